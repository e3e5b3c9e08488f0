"""What an agreement report rests on: the chance model and the reason it was chosen, the scores
over every link next to those over non-identical ones, and the one binning of lengths."""

from __future__ import annotations

import csv
import io

import pytest

from scoring.alignment.agreement import AgreementParams
from scoring.alignment.links import Alignment
from scoring.alignment.metrics import ComparePair, corpus_scores
from scoring.alignment.report_records import report_to_csv
from scoring.alignment.reports import (
    CHANCE_MODELS,
    OVERALL,
    build_report,
    choose_chance_model,
)
from scoring.corpus import (
    LENGTH_BIN_STARTS,
    AnnotationRecord,
    PairRecord,
    length_bin_label,
    length_bin_labels,
)
from scoring.errors import ScoringError

NAMES = ["ann", "bob"]
PARAMS = AgreementParams(samples=4, seed=3)


def _record(key: int, *, prefill: bool = True, length: int = 4) -> PairRecord:
    """A pair of ``length`` tokens a side whose first two words are identical on both sides
    (``the cat``); ``ann`` links the diagonal, ``bob`` all of it but the last word."""
    source = ["the", "cat", *[f"s{k}" for k in range(length - 2)]]
    target = ["the", "cat", *[f"t{k}" for k in range(length - 2)]]
    diagonal = Alignment.from_pharaoh(" ".join(f"{i}-{i}" for i in range(length)), length, length)
    partial = Alignment.from_pharaoh(
        " ".join(f"{i}-{i}" for i in range(length - 1)), length, length
    )
    return PairRecord(
        id=f"p{key}",
        source_tokens=source,
        target_tokens=target,
        prefill=Alignment.from_pharaoh("0-0", length, length) if prefill else None,
        annotations={"ann": AnnotationRecord(diagonal), "bob": AnnotationRecord(partial)},
    )


def test_the_automatic_choice_takes_the_prefill_only_when_every_annotation_started_from_it() -> (
    None
):
    records = [_record(k) for k in range(4)]
    choice = choose_chance_model(records, NAMES)
    assert choice.name == "prefill"
    assert "every annotation started from it" in choice.reason


def test_annotations_made_before_the_prefill_make_the_automatic_choice_fall_back_saying_why() -> (
    None
):
    records = [_record(k) for k in range(4)]
    choice = choose_chance_model(
        records, NAMES, made_without_prefill={("p2", "bob"), ("p3", "bob"), ("p9", "ann")}
    )
    assert choice.name == "density"
    assert choice.reason.startswith("2 annotations of 8 were made without the prefill")
    assert "bob's on pair p2" in choice.reason


def test_annotators_left_out_of_the_report_do_not_count_against_the_prefill() -> None:
    records = [_record(k) for k in range(3)]
    choice = choose_chance_model(records, NAMES, made_without_prefill={("p1", "cy")})
    assert choice.name == "prefill"


def test_pairs_without_a_prefill_make_the_automatic_choice_fall_back_counting_them() -> None:
    records = [_record(0, prefill=False), _record(1), _record(2)]
    assert choose_chance_model(records, NAMES).reason == ("1 of 3 annotated pairs has no prefill")
    none = [_record(k, prefill=False) for k in range(2)]
    assert choose_chance_model(none, NAMES) == choose_chance_model(none, NAMES, "auto")
    assert choose_chance_model(none, NAMES).reason == "no annotated pair has a prefill"


def test_an_explicit_prefill_model_is_kept_and_warns_about_annotations_made_without_it() -> None:
    records = [_record(k) for k in range(2)]
    choice = choose_chance_model(records, NAMES, "prefill", made_without_prefill={("p0", "ann")})
    assert choice.name == "prefill"
    assert choice.reason == (
        "chosen for this report; 1 annotation of 4 were made without the prefill (imported or "
        "started before it existed), e.g. ann's on pair p0"
    )
    assert choose_chance_model(records, NAMES, "density").reason == "chosen for this report"
    with pytest.raises(ScoringError, match="chance model must be one of"):
        choose_chance_model(records, NAMES, "coin")


def test_the_density_model_is_described_without_claiming_the_corpus_has_no_prefill() -> None:
    records = [_record(k) for k in range(3)]
    report = build_report(records, NAMES, params=PARAMS, chance_model="density").to_dict()
    signature = report["signature"]
    assert signature["chance_model"] == "density"
    assert signature["chance_model_description"] == CHANCE_MODELS["density"]
    assert "no prefill" not in signature["chance_model_description"]
    assert signature["chance_model_reason"] == "chosen for this report"


def test_the_report_keeps_the_reason_it_is_given_and_finds_one_itself_otherwise() -> None:
    records = [_record(k) for k in range(3)]
    given = build_report(
        records,
        NAMES,
        params=PARAMS,
        chance_model="density",
        chance_model_reason="2 annotations of 6 were made without the prefill",
    ).to_dict()
    assert given["signature"]["chance_model_reason"] == (
        "2 annotations of 6 were made without the prefill"
    )
    found = build_report(records, NAMES, params=PARAMS).to_dict()
    assert found["signature"]["chance_model"] == "prefill"
    assert found["signature"]["chance_model_reason"] == choose_chance_model(records, NAMES).reason


def test_tables_3_to_5_offer_the_scores_over_every_link_next_to_the_non_identical_ones() -> None:
    records = [_record(k, length=5) for k in range(3)]
    report = build_report(records, NAMES, params=PARAMS).to_dict()
    compare = [
        ComparePair(
            r.source_tokens,
            r.target_tokens,
            r.annotations["ann"].alignment,
            r.annotations["bob"].alignment,
        )
        for r in records
    ]
    table3 = report["annotator_pairs"][0]["table3"][OVERALL]
    every = corpus_scores(compare, kind="possible", exclude_identical=False).overall.to_dict()
    without = corpus_scores(compare, kind="possible").overall.to_dict()
    assert table3["with_identical"]["poss"] == every
    assert table3["poss"] == without
    # ann links 5 words of which bob links 4; 2 of both are "the"/"cat" linked to themselves
    assert table3["poss"]["precision"] == pytest.approx(2 / 3)
    assert table3["with_identical"]["poss"]["precision"] == pytest.approx(4 / 5)
    table4 = report["annotator_pairs"][0]["table4"][OVERALL]
    phrases = corpus_scores(
        compare, level="phrase", kind="possible", exclude_identical=False
    ).overall.to_dict()
    assert table4["with_identical"]["poss"] == phrases
    table5 = report["table5"][0]["groups"][OVERALL]
    prefill_compare = [
        ComparePair(r.source_tokens, r.target_tokens, r.prefill, r.annotations["ann"].alignment)
        for r in records
    ]
    assert table5["with_identical"]["words"]["poss"] == (
        corpus_scores(prefill_compare, kind="possible", exclude_identical=False).overall.to_dict()
    )


def test_a_report_that_keeps_identical_links_has_no_second_set_of_scores() -> None:
    records = [_record(k) for k in range(2)]
    report = build_report(
        records, NAMES, params=AgreementParams(samples=4, seed=3, exclude_identical=False)
    ).to_dict()
    assert report["annotator_pairs"][0]["table3"][OVERALL]["with_identical"] == {}
    assert report["table5"][0]["groups"][OVERALL]["with_identical"] == {}


def test_the_csv_carries_the_scores_over_every_link_in_their_own_rows() -> None:
    records = [_record(k, length=5) for k in range(2)]
    report = build_report(records, NAMES, params=PARAMS)
    rows = list(csv.DictReader(io.StringIO(report_to_csv(report))))
    row = next(
        r
        for r in rows
        if r["table"] == "table3"
        and r["group"] == OVERALL
        and r["column"] == "poss:with_identical"
        and r["measure"] == "precision"
    )
    assert float(row["value"]) == pytest.approx(4 / 5)
    assert any(r["column"] == "words:poss:with_identical" for r in rows if r["table"] == "table5")


def test_figure_4_bins_lengths_as_every_corpus_page_does() -> None:
    records = [_record(k, length=n) for k, n in enumerate((3, 7, 12, 70))]
    report = build_report(records, NAMES, params=PARAMS).to_dict()
    bins = report["annotator_pairs"][0]["figure4"][OVERALL]["phrase_all"]
    assert [b["min_length"] for b in bins] == list(LENGTH_BIN_STARTS)
    labels = [length_bin_label(b["min_length"], b["max_length_exclusive"]) for b in bins]
    assert labels == length_bin_labels()
    assert labels[:3] == ["1–5", "6–10", "11–15"] and labels[-1] == "61+"
    assert [b["pairs"] for b in bins] == [1, 1, 1, 0, 0, 0, 0, 0, 1]
