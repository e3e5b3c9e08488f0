"""The scorer registry, saved models, evaluation measures and the train/score CLI."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from scipy import stats

from scoring.cli import main
from scoring.errors import FormatError, InputError, ModelError, OptionsError
from scoring.options import Choices
from scoring.scorers.base import (
    SCORERS,
    evaluate,
    get_scorer,
    load_scorer,
    parse_options,
    save_scorer,
    scorer_from_dict,
)
from scoring.scorers.options import MtOptions, PFSMOptions

PAIRS = [
    ("a man is playing a guitar .", "a man plays the guitar .", 4.6),
    ("a woman is slicing an onion .", "a woman cuts an onion .", 4.2),
    ("a dog runs in the park .", "a cat sleeps on the sofa .", 0.8),
    ("the boy is riding a horse .", "a boy rides a horse .", 4.8),
    ("a man is cooking .", "a girl is dancing on stage .", 0.4),
    ("two men are fighting .", "two men are wrestling .", 3.4),
    ("a plane is taking off .", "an airplane takes off .", 4.9),
    ("a child plays piano .", "a kid is swimming in a pool .", 0.6),
]


def pairs_and_targets() -> tuple[list[tuple[list[str], list[str]]], list[float]]:
    return [(a.split(), b.split()) for a, b, _ in PAIRS], [y for _, _, y in PAIRS]


def test_regression_measures_match_scipy() -> None:
    rng = np.random.default_rng(3)
    gold, predicted = rng.normal(size=30), rng.normal(size=30)
    predicted[:5] = predicted[0]  # ties
    result = evaluate("regression", gold, predicted)
    assert result.pearson == pytest.approx(stats.pearsonr(gold, predicted)[0], abs=1e-12)
    assert result.spearman == pytest.approx(stats.spearmanr(gold, predicted)[0], abs=1e-12)
    assert list(result.to_dict()) == ["task", "n", "pearson", "spearman"]


def test_classification_measures_are_counted_over_the_positive_class() -> None:
    result = evaluate("classification", [1, 1, 0, 0, 1], [1, 0, 0, 1, 1])
    assert result.accuracy == pytest.approx(3 / 5)
    assert (result.precision, result.recall) == (pytest.approx(2 / 3), pytest.approx(2 / 3))
    assert result.f1 == pytest.approx(2 / 3)
    assert list(result.to_dict()) == ["task", "n", "accuracy", "precision", "recall", "f1"]


def test_undefined_measures_are_none_not_zero() -> None:
    assert evaluate("regression", [1.0, 2.0, 3.0], [2.0, 2.0, 2.0]).pearson is None
    assert evaluate("classification", [0, 0], [0, 0]).f1 is None


def test_a_trained_pfsm_survives_a_save_and_load(tmp_path: Path) -> None:
    pairs, targets = pairs_and_targets()
    scorer = get_scorer("pfsm", cutoff=0).fit(pairs, targets)
    path = save_scorer(scorer, tmp_path / "m.json")
    again = load_scorer(path)
    assert again.kind == "pfsm" and again.task == "regression"
    np.testing.assert_array_equal(again.predict(pairs), scorer.predict(pairs))


def test_bad_input_is_refused_with_a_clear_message(tmp_path: Path) -> None:
    with pytest.raises(OptionsError, match=r"unknown scorer kind 'bleu'.*perp"):
        get_scorer("bleu")
    with pytest.raises(OptionsError, match="does regression"):
        get_scorer("pfsm", task="classification")
    with pytest.raises(InputError, match="2 pairs but 1 targets"):
        get_scorer("pfsm").fit(pairs_and_targets()[0][:2], [1.0])
    with pytest.raises(InputError, match="sentence 2 is empty"):
        get_scorer("pfsm").fit([(["a"], [])], [1.0])
    with pytest.raises(ModelError, match="not trained"):
        get_scorer("pfsm").predict(pairs_and_targets()[0])
    with pytest.raises(FormatError, match="field 'format'"):
        scorer_from_dict({"kind": "pfsm"})
    (tmp_path / "bad.json").write_text("{not json")
    with pytest.raises(FormatError, match=r"bad\.json.*not a JSON model"):
        load_scorer(tmp_path / "bad.json")
    with pytest.raises(OptionsError, match="KEY=VALUE"):
        parse_options("perp", ["epochs"])


def test_command_line_options_are_read_as_their_options_type() -> None:
    assert parse_options("pfsm", ["cutoff=20", "synonyms=false", "l2=1"]) == {
        "cutoff": 20,
        "synonyms": False,
        "l2": 1.0,
    }
    assert parse_options("combined", ["groups=mt,overlap", "c_grid=[1, 10]"]) == {
        "groups": ["mt", "overlap"],
        "c_grid": [1.0, 10.0],
    }
    with pytest.raises(OptionsError, match="unknown option 'epochs' for scorer 'pfsm'"):
        parse_options("pfsm", ["epochs=20"])
    with pytest.raises(OptionsError, match="option 'cutoff' of scorer 'pfsm' must be an int"):
        parse_options("pfsm", ["cutoff=many"])


def test_every_scorer_refuses_an_unknown_option_listing_the_known_ones() -> None:
    for kind, cls in SCORERS.items():
        with pytest.raises(OptionsError) as error:
            get_scorer(kind, colour="red")
        assert f"unknown option 'colour' for scorer '{kind}'" in str(error.value)
        assert all(name in str(error.value) for name in cls.options_class.names())


def test_a_saved_scorer_keeps_its_options_and_drops_the_ones_this_version_does_not_know() -> None:
    pairs, targets = pairs_and_targets()
    saved = get_scorer("pfsm", cutoff=0, l2=2).fit(pairs, targets).to_dict()
    assert saved["options"] == PFSMOptions(cutoff=0, l2=2.0).to_dict()
    saved["options"]["jump_limit"] = 3  # an older pfsm took it and had no use for it
    again = scorer_from_dict(saved)
    assert again.options == PFSMOptions(cutoff=0, l2=2.0)
    np.testing.assert_array_equal(
        again.predict(pairs), get_scorer("pfsm", cutoff=0, l2=2).fit(pairs, targets).predict(pairs)
    )


def test_the_cli_trains_and_scores_files(tmp_path: Path, capsys) -> None:
    lines = [f"{a}\t{b}\t{y}" for a, b, y in PAIRS]
    (tmp_path / "train.tsv").write_text("\n".join(lines) + "\n")
    model = tmp_path / "model.json"
    args = ["train", "--kind", "pfsm", "--input", str(tmp_path / "train.tsv")]
    assert main([*args, "--output", str(model), "--option", "cutoff=0", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["train"]["n"] == len(PAIRS) and report["train"]["pearson"] is not None
    assert main(["score", "--model", str(model), "--input", str(tmp_path / "train.tsv")]) == 0
    scores = [float(v) for v in capsys.readouterr().out.split()]
    expected = load_scorer(model).predict(pairs_and_targets()[0])
    np.testing.assert_allclose(scores, expected, atol=1e-6)


def test_the_cli_names_the_file_and_line_of_bad_input(tmp_path: Path, capsys) -> None:
    (tmp_path / "bad.tsv").write_text("one\ttwo\t3\nonly one column\n")
    code = main(
        [
            "train",
            "--kind",
            "pfsm",
            "--input",
            str(tmp_path / "bad.tsv"),
            "--output",
            str(tmp_path / "m.json"),
        ]
    )
    assert code == 2
    assert "bad.tsv:2: field 'columns'" in capsys.readouterr().err
    assert not (tmp_path / "m.json").exists()


def test_the_mt_classifier_scores_single_pairs_as_in_training_after_a_reload() -> None:
    pairs, targets = pairs_and_targets()
    labels = [1.0 if y >= 2.5 else 0.0 for y in targets]
    scorer = get_scorer("mt", "classification", features="BLEU1", folds=2).fit(pairs, labels)
    again = scorer_from_dict(json.loads(json.dumps(scorer.to_dict())))
    together = again.predict(pairs)
    alone = [again.predict([pair])[0] for pair in pairs]
    np.testing.assert_array_equal(together, scorer.predict(pairs))
    np.testing.assert_array_equal(together, alone)
    assert set(together) <= {0.0, 1.0}


def test_the_mt_scorer_trains_on_its_features_a_chunk_at_a_time_and_a_cancel_stops_between_chunks(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from scoring.scorers import base

    pairs, targets = pairs_and_targets()
    whole = get_scorer("mt", features="BLEU1", folds=2).fit(pairs, targets)
    monkeypatch.setattr(base, "MT_FEATURE_CHUNK", 3)
    heard: list[str] = []
    chunked = get_scorer("mt", features="BLEU1", folds=2).fit(
        pairs, targets, progress=lambda _fraction, stage: heard.append(stage)
    )
    np.testing.assert_array_equal(chunked.predict(pairs), whole.predict(pairs))
    assert f"MT-metric features: 3 of {len(pairs)} pairs" in heard

    class Cancelled(Exception):
        pass

    def cancel_at_the_first_chunk(_fraction: float, stage: str) -> None:
        if stage.startswith("MT-metric features: tagged"):
            raise Cancelled

    with pytest.raises(Cancelled):
        get_scorer("mt", features="BLEU1", folds=2).fit(
            pairs, targets, progress=cancel_at_the_first_chunk
        )


def test_the_mt_scorer_names_the_table_rows_it_knows() -> None:
    pairs, targets = pairs_and_targets()
    with pytest.raises(OptionsError, match=r"option 'features' of scorer 'mt' must be one of WER"):
        get_scorer("mt", features="BLEU9")
    with pytest.raises(InputError, match="classification targets must be 0 or 1"):
        get_scorer("mt", "classification").fit(pairs, targets)


def test_the_mt_options_name_every_row_of_table_3() -> None:
    from scoring.mt.features import TABLE3_SUBSETS

    assert MtOptions.constraints["features"] == Choices(tuple(TABLE3_SUBSETS))


def test_an_evaluation_notes_a_scorer_that_gave_every_pair_one_value() -> None:
    one_class = evaluate("classification", [1, 0, 0, 0], [0, 0, 0, 0]).to_dict()
    assert one_class["accuracy"] == 0.75 and one_class["f1"] is None
    assert one_class["note"].startswith("every pair got the same class (0)")
    flat = evaluate("regression", [1.0, 2.0, 3.0], [2.5, 2.5, 2.5]).to_dict()
    assert flat["note"].startswith("every pair got the same value (2.5)")
    assert "note" not in evaluate("classification", [1, 0], [1, 0]).to_dict()


@pytest.mark.parametrize(
    ("kind", "task", "targets", "refusal"),
    [
        (
            "mt",
            "classification",
            [0, 1],
            "5-fold cross-validation needs ≥ 5 pairs of each label, got 1 of label 0 and 1 of "
            "label 1",
        ),
        ("mt", "classification", [1] * 12, "a classifier needs exactly two labels, got [1]"),
        ("mt", "regression", [1.0, 2.0, 3.0], "5-fold cross-validation needs ≥ 10 pairs, got 3"),
        (
            "combined",
            "regression",
            [1.0, 2.0] * 4 + [3.0],
            "5-fold cross-validation needs ≥ 10 pairs, got 9",
        ),
        ("perp", "regression", [1.0], "training needs at least two pairs"),
        (
            "perp",
            "regression",
            [3.5] * 8,
            "every target is 3.5; a scorer learns nothing from a single value",
        ),
        (
            "combined",
            "regression",
            [2.0] * 12,
            "every target is 2; a scorer learns nothing from a single value",
        ),
        ("mt", "classification", [0, 1] * 5, None),
        ("pfsm", "regression", [1.0, 2.0], None),
    ],
)
def test_a_training_that_could_only_fail_is_told_from_its_targets_alone(
    kind: str, task: str, targets: list[float], refusal: str | None
) -> None:
    scorer = get_scorer(kind, task)
    assert scorer.training_refusal(targets) == refusal
    if refusal is not None:
        pairs = [(["a", "b"], ["a", "c"])] * len(targets)
        with pytest.raises(InputError, match=re.escape(refusal)):
            scorer.fit(pairs, targets)  # the same rule, applied by the training itself


def _overshooting(scorer: Any) -> Any:
    """``scorer`` with its model's raw values replaced: past both ends of 0.4–4.9, and inside."""
    scorer._predict = lambda pairs: np.array([5.7, -0.3, 2.0][: len(pairs)])
    return scorer


def test_a_regressor_scores_within_its_training_targets_range_unless_asked_raw(
    tmp_path: Path,
) -> None:
    pairs, targets = pairs_and_targets()
    scorer = get_scorer("pfsm", cutoff=0).fit(pairs, targets)
    assert scorer.target_range == (0.4, 4.9)
    _overshooting(scorer)
    np.testing.assert_array_equal(scorer.predict(pairs[:3]), [4.9, 0.4, 2.0])
    np.testing.assert_array_equal(scorer.predict(pairs[:3], clip=False), [5.7, -0.3, 2.0])
    saved = scorer.to_dict()
    assert saved["target_range"] == [0.4, 4.9]
    again = _overshooting(scorer_from_dict(json.loads(json.dumps(saved))))
    np.testing.assert_array_equal(again.predict(pairs[:3]), [4.9, 0.4, 2.0])


def test_a_model_saved_without_a_range_scores_raw_and_a_bad_range_is_refused() -> None:
    pairs, targets = pairs_and_targets()
    saved = get_scorer("pfsm", cutoff=0).fit(pairs, targets).to_dict()
    del saved["target_range"]
    old = _overshooting(scorer_from_dict(saved))
    assert old.target_range is None
    np.testing.assert_array_equal(old.predict(pairs[:3]), [5.7, -0.3, 2.0])
    for bad in ([5, 0], [0], ["0", 5], [0, float("inf")], "0-5", [True, 5]):
        with pytest.raises(FormatError, match="target_range") as refused:
            scorer_from_dict({**saved, "target_range": bad})
        assert refused.value.field == "target_range"


def test_a_classifier_keeps_its_labels_and_has_no_range() -> None:
    pairs, targets = pairs_and_targets()
    labels = [1.0 if y > 2.5 else 0.0 for y in targets]
    scorer = get_scorer("mt", "classification").fit(pairs * 2, labels * 2)  # 5 of each label
    assert scorer.target_range is None and scorer.to_dict()["target_range"] is None
    assert set(scorer.predict(pairs)) <= {0.0, 1.0}


def test_the_cli_scores_within_the_range_and_raw_when_asked(tmp_path: Path, capsys) -> None:
    pairs, targets = pairs_and_targets()
    model = save_scorer(get_scorer("pfsm", cutoff=0).fit(pairs, targets), tmp_path / "m.json")
    saved = json.loads(model.read_text())
    saved["target_range"] = [1.0, 2.0]  # narrower than the model's values: some are clipped
    model.write_text(json.dumps(saved))
    (tmp_path / "in.tsv").write_text("".join(f"{a}\t{b}\n" for a, b, _ in PAIRS))
    raw = load_scorer(model).predict(pairs, clip=False)
    assert main(["score", "--model", str(model), "--input", str(tmp_path / "in.tsv")]) == 0
    clipped = [float(v) for v in capsys.readouterr().out.split()]
    np.testing.assert_allclose(clipped, np.clip(raw, 1.0, 2.0), atol=1e-6)
    args = ["score", "--model", str(model), "--input", str(tmp_path / "in.tsv"), "--raw"]
    assert main(args) == 0
    np.testing.assert_allclose([float(v) for v in capsys.readouterr().out.split()], raw, atol=1e-6)
