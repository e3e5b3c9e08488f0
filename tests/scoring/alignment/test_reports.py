"""Agreement reports (scoring.alignment.reports, report_records): the JSON layout, consistency
with the modules they summarise, chunked Monte Carlo, the typed records read back from JSON, and
CSV."""

from __future__ import annotations

import csv
import io
import json

import numpy as np
import pytest

from scoring.alignment.agreement import AgreementPair, AgreementParams, chance_corrected_agreement
from scoring.alignment.links import Alignment
from scoring.alignment.metrics import ComparePair, corpus_scores
from scoring.alignment.report_records import CorpusReport, report_to_csv
from scoring.alignment.reports import (
    OVERALL,
    build_report,
    fit_report_models,
    report_statistics,
)
from scoring.corpus import AnnotationRecord, PairRecord
from scoring.errors import FormatError, ScoringError

NAMES = ["ann", "bob", "cy"]


def _records(count: int = 24, seed: int = 4) -> list[PairRecord]:
    rng = np.random.default_rng(seed)
    records = []
    vocab = ["the", "a", "cat", "dog", "sat", "ran", "mat", "park", "on", "in"]
    for k in range(count):
        n, m = (int(v) for v in rng.integers(3, 9, size=2))
        src = [vocab[int(v)] for v in rng.integers(0, 10, n)]
        tgt = [vocab[int(v)] for v in rng.integers(0, 10, m)]
        pre = np.zeros((n, m), dtype=bool)
        for i in range(min(n, m)):
            pre[i, i] = rng.random() < 0.7
        annotations = {}
        for name in NAMES:
            if name == "cy" and k % 3 == 0:
                continue  # cy did not annotate every pair
            p = pre ^ (rng.random((n, m)) < 0.12)
            annotations[name] = AnnotationRecord(
                Alignment.from_matrices(p & (rng.random((n, m)) < 0.6), p)
            )
        records.append(
            PairRecord(
                id=f"pair-{k}",
                source_tokens=src,
                target_tokens=tgt,
                subcorpus=["mtc", "news"][k % 2],
                prefill=Alignment.from_matrices(pre),
                annotations=annotations,
            )
        )
    return records


PARAMS = AgreementParams(samples=20, seed=77)


@pytest.fixture(scope="module")
def built() -> CorpusReport:
    return build_report(_records(), NAMES, params=PARAMS, length_edges=(4, 6))


@pytest.fixture(scope="module")
def report(built: CorpusReport) -> dict:
    """The report's JSON form, as the web app stores and serves it."""
    return json.loads(json.dumps(built.to_dict()))


def test_it_reports_every_pair_of_annotators_per_subcorpus_and_overall(built, report) -> None:
    pairs = [(p["candidate"], p["reference"]) for p in report["annotator_pairs"]]
    assert pairs == [("ann", "bob"), ("ann", "cy"), ("bob", "cy")]
    for entry in report["annotator_pairs"]:
        for table in ("table3", "table4"):
            assert list(entry[table]) == ["mtc", "news", OVERALL]
            row = entry[table][OVERALL]
            assert set(row["c_hat"]) == {"poss", "sure"}
            for column in ("poss", "sure"):
                assert set(row[column]) >= {"precision", "recall", "f1", "undefined"}
    assert report["annotator_pairs"][1]["pairs"] == 16  # cy skipped every third pair
    assert json.loads(json.dumps(built.to_dict())) == built.to_dict() == report


def test_table_4_equals_the_metrics_and_agreement_modules_on_the_same_pairs(report) -> None:
    records = _records()
    news = [r for r in records if r.subcorpus == "news"]
    compare = [
        ComparePair(
            r.source_tokens,
            r.target_tokens,
            r.annotations["ann"].alignment,
            r.annotations["bob"].alignment,
            r.id,
        )
        for r in news
    ]
    expected = corpus_scores(compare, level="phrase", kind="sure").overall.to_dict()
    assert report["annotator_pairs"][0]["table4"]["news"]["sure"] == expected

    models = fit_report_models(records, NAMES, kinds=PARAMS.kinds)
    agreement = chance_corrected_agreement(
        [
            AgreementPair(
                r.id,
                r.source_tokens,
                r.target_tokens,
                r.prefill,
                r.annotations["ann"].alignment,
                r.annotations["bob"].alignment,
            )
            for r in news
            if r.prefill is not None
        ],
        params=PARAMS,
        annotator_a="ann",
        annotator_b="bob",
        models_a=models["ann"],
        models_b=models["bob"],
    )
    c_hat = report["annotator_pairs"][0]["table4"]["news"]["c_hat"]["poss"]["c_hat"]
    assert c_hat == agreement.results["possible"]["phrase_atomic"].c_hat


def test_chunked_monte_carlo_gives_the_same_report(report) -> None:
    records = _records()
    models = fit_report_models(records, NAMES, kinds=PARAMS.kinds)
    stats = []
    for chunk in (records[:5], records[5:17], records[17:]):
        stats.extend(report_statistics(chunk, NAMES, models=models, params=PARAMS))
    stats = json.loads(json.dumps(stats))
    chunked = build_report(
        records, NAMES, params=PARAMS, models=models, statistics=stats, length_edges=(4, 6)
    )
    assert json.dumps(chunked.to_dict(), sort_keys=True) == json.dumps(report, sort_keys=True)


def test_figure_4_bins_by_the_shorter_sentence(report) -> None:
    records = _records()
    bins = report["annotator_pairs"][0]["figure4"][OVERALL]["phrase_all"]
    shorter = [min(r.shape) for r in records]
    assert [b["pairs"] for b in bins] == [
        sum(s < 4 for s in shorter),
        sum(4 <= s < 6 for s in shorter),
        sum(s >= 6 for s in shorter),
    ]
    assert set(report["annotator_pairs"][0]["figure4"][OVERALL]) == {"phrase_all", "phrase_atomic"}


def test_table_5_compares_each_annotator_with_the_prefill(report) -> None:
    assert [t["annotator"] for t in report["table5"]] == NAMES
    records = _records()
    compare = [
        ComparePair(r.source_tokens, r.target_tokens, r.prefill, r.annotations["cy"].alignment)
        for r in records
        if "cy" in r.annotations and r.prefill is not None
    ]
    expected = corpus_scores(compare, level="word", kind="possible").overall.to_dict()
    assert report["table5"][2]["groups"][OVERALL]["words"]["poss"] == expected


def test_the_signature_records_seed_samples_and_parameters(report) -> None:
    sig = report["signature"]
    assert sig["seed"] == 77 and sig["samples"] == 20
    assert sig["params"]["exclude_identical"] is True
    assert set(report["edit_models"]) == set(NAMES)


def test_the_json_form_reads_back_as_the_same_records(built: CorpusReport, report) -> None:
    assert CorpusReport.from_dict(report) == built
    assert CorpusReport.from_dict({"corpus": "c", "chunks": 3, **report}) == built


def test_the_csv_of_a_stored_report_is_the_csv_of_its_records(built: CorpusReport, report) -> None:
    assert report_to_csv(CorpusReport.from_dict(report)) == report_to_csv(built)


def test_a_report_stored_before_the_later_figures_still_reads(report) -> None:
    old = json.loads(json.dumps(report))
    for key in ("standard", "pair_ranking"):
        del old[key]
    for key in ("chance_model", "chance_model_description", "resamples"):
        del old["signature"][key]
    for pair in old["annotator_pairs"]:
        del pair["null_links"]
    stored = CorpusReport.from_dict(old)
    assert stored.standard == {} and stored.pair_ranking == []
    assert stored.signature.chance_model == "prefill"
    tables = {r["table"] for r in csv.DictReader(io.StringIO(report_to_csv(stored)))}
    assert tables == {"table3", "table4", "figure4", "table5"}


def test_a_malformed_stored_report_names_the_field_at_fault(report) -> None:
    bad = json.loads(json.dumps(report))
    bad["annotator_pairs"][0]["table3"][OVERALL]["pairs"] = "many"
    with pytest.raises(FormatError, match=r"annotator_pairs\[0\]\.table3\.overall\.pairs"):
        CorpusReport.from_dict(bad)
    del bad["annotator_pairs"]
    with pytest.raises(FormatError, match="field 'annotator_pairs': missing"):
        CorpusReport.from_dict(bad)


def test_csv_has_one_measure_per_row_and_marks_undefined_values(built, report) -> None:
    rows = list(csv.DictReader(io.StringIO(report_to_csv(built))))
    tables = {"table3", "table4", "figure4", "table5", "null_links", "standard"}
    assert {r["table"] for r in rows} == tables
    row = next(
        r
        for r in rows
        if r["table"] == "table4"
        and r["group"] == OVERALL
        and r["column"] == "poss"
        and r["measure"] == "c_hat"
        and r["candidate"] == "ann"
        and r["reference"] == "bob"
    )
    value = report["annotator_pairs"][0]["table4"][OVERALL]["c_hat"]["poss"]["c_hat"]
    assert float(row["value"]) == value
    for r in rows:
        if r["value"] == "":
            assert r["note"], r  # an undefined value always says why
        else:
            float(r["value"])


def test_undefined_scores_become_empty_csv_cells_with_a_note() -> None:
    records = _records(4)
    for r in records:  # nobody links anything: precision and recall are undefined
        for name in r.annotations:
            r.annotations[name] = AnnotationRecord(Alignment.empty(*r.shape))
    text = report_to_csv(build_report(records, NAMES[:2], params=AgreementParams(samples=2)))
    rows = list(csv.DictReader(io.StringIO(text)))
    precision = [r for r in rows if r["measure"] == "precision" and r["table"] == "table3"]
    assert precision and all(r["value"] == "" and r["note"] == "undefined" for r in precision)


def test_csv_text_cells_a_spreadsheet_would_run_start_with_a_quote_and_numbers_stay_numbers() -> (
    None
):
    records = _records(8)
    evil = {"ann": '=HYPERLINK("http://x")', "bob": "-bob", "cy": "@cy"}
    for r in records:
        r.annotations = {evil[name]: value for name, value in r.annotations.items()}
        r.subcorpus = "+sum" if r.subcorpus == "mtc" else "\tnews"
    report = build_report(records, list(evil.values()), params=AgreementParams(samples=2))
    rows = list(csv.DictReader(io.StringIO(report_to_csv(report))))
    assert {r["candidate"] for r in rows if r["table"] == "table3"} == {
        '\'=HYPERLINK("http://x")',
        "'-bob",
    }
    assert {r["group"] for r in rows if r["table"] == "table3"} == {"'+sum", "'\tnews", OVERALL}
    assert not [
        cell
        for r in rows
        for key, cell in r.items()
        if key != "value" and cell and cell[0] in "=+-@\t\r"
    ]
    values = [float(r["value"]) for r in rows if r["value"]]
    assert any(v < 0 for v in values)  # e.g. a negative kappa: a number, not text


def test_progress_reaches_the_end_of_each_stage() -> None:
    seen: dict[str, tuple[int, int]] = {}
    build_report(
        _records(6),
        NAMES,
        params=AgreementParams(samples=2),
        progress=lambda stage, done, total: seen.__setitem__(stage, (done, total)),
    )
    assert seen["monte_carlo"][0] == seen["monte_carlo"][1] > 0
    assert seen["tables"] == (6, 6)


def test_it_rejects_a_single_annotator_or_an_unknown_one() -> None:
    with pytest.raises(ScoringError, match="two annotators"):
        build_report(_records(3), ["ann"])
    with pytest.raises(ScoringError, match="zed"):
        build_report(_records(3), ["ann", "zed"])


def test_it_rejects_duplicate_pair_ids() -> None:
    records = _records(2)
    records[1].id = records[0].id
    with pytest.raises(ScoringError, match="twice"):
        build_report(records, NAMES)


def _without_prefill(records: list[PairRecord]) -> list[PairRecord]:
    for record in records:
        record.prefill = None
    return records


def test_a_corpus_without_prefill_gets_the_link_density_chance_model_labelled() -> None:
    records = _without_prefill(_records())
    report = build_report(records, NAMES, params=PARAMS, length_edges=(4, 6)).to_dict()
    assert report["signature"]["chance_model"] == "density"
    assert "link density" in report["signature"]["chance_model_description"]
    c_hat = report["annotator_pairs"][0]["table3"][OVERALL]["c_hat"]["poss"]
    assert c_hat["c_hat"] is not None and -1.0 <= c_hat["c_hat"] <= 1.0
    # each annotator's Pr(edit) from an empty start is their share of linked cells
    model = report["edit_models"]["ann"]["possible"]
    linked = sum(len(r.annotations["ann"].alignment.possible) for r in records)
    cells = sum(len(r.source_tokens) * len(r.target_tokens) for r in records)
    assert model["n_pairs"] == len(records)
    assert 0.0 < linked / cells < 1.0


def test_the_prefill_model_is_kept_when_every_pair_has_one(report) -> None:
    assert report["signature"]["chance_model"] == "prefill"


def test_an_explicit_prefill_model_without_prefills_is_refused_clearly() -> None:
    records = _without_prefill(_records())
    with pytest.raises(ScoringError, match=r"needs a prefill.*use the density chance model"):
        build_report(records, NAMES, params=PARAMS, chance_model="prefill")


def test_kappa_and_alpha_come_with_item_counts_and_intervals(report) -> None:
    overall = report["standard"][OVERALL]
    assert overall["n_pairs"] == sum(1 for r in _records() if len(r.annotations) == 3)
    assert overall["n_items"] > 0
    for key in ("fleiss_kappa", "krippendorff_alpha"):
        stat = overall[key]
        low, high = stat["ci95"]
        assert low <= stat["value"] <= high
    assert set(report["standard"]) == {"mtc", "news", OVERALL}


def test_null_link_agreement_counts_words_both_left_unaligned() -> None:
    from scoring.alignment.reports import null_link_agreement

    a = Alignment.from_links(3, 2, [(0, 0)])  # unaligned: s1 s2 t1
    b = Alignment.from_links(3, 2, [(1, 1)])  # unaligned: s0 s2 t0
    record = PairRecord(
        id="p",
        source_tokens=["x", "y", "z"],
        target_tokens=["u", "v"],
        annotations={"a": AnnotationRecord(a), "b": AnnotationRecord(b)},
    )
    result = null_link_agreement([record], "a", "b")
    assert (result.both, result.only_candidate, result.only_reference) == (1, 2, 2)
    assert result.f1 == pytest.approx(2 * 1 / (2 * 1 + 2 + 2))
    full = Alignment.from_links(1, 1, [(0, 0)])
    linked = PairRecord(
        id="q",
        source_tokens=["x"],
        target_tokens=["y"],
        annotations={"a": AnnotationRecord(full), "b": AnnotationRecord(full)},
    )
    undefined = null_link_agreement([linked], "a", "b")
    assert undefined.f1 is None and "neither" in undefined.undefined_reason


def test_pairs_are_ranked_least_agreement_first(report) -> None:
    ranking = report["pair_ranking"]
    assert [row["min_f1"] for row in ranking] == sorted(row["min_f1"] for row in ranking)
    worst = ranking[0]
    assert worst["min_f1"] == min(worst["f1"].values())
    assert len(ranking) == len(_records())
