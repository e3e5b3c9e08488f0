"""Evaluation measures against hand-computed examples; folds and cross-validation."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from scoring.aligners.base import Aligner, AlignerOutput, TokenPair
from scoring.aligners.evaluation import (
    cross_validate,
    evaluate_predictions,
    evaluate_records,
    fold_assignment,
    format_summary,
    references,
    training_gold,
)
from scoring.alignment.links import Alignment
from scoring.corpus import AnnotationRecord, PairRecord
from scoring.errors import InputError
from tests.scoring.alignment.majority_reference import reference_majority
from tests.scoring.strategies import SETTINGS, alignments

PAIRS: list[TokenPair] = [(["a", "b", "c"], ["a", "x", "c"]), (["d", "e"], ["d", "f"])]
GOLD = [
    Alignment.from_links(3, 3, sure=[(0, 0), (1, 1)], possible=[(2, 2)]),
    Alignment.from_links(2, 2, sure=[(0, 0), (1, 1)]),
]
PREDICTED = [
    Alignment.from_links(3, 3, sure=[(0, 0)], possible=[(1, 1), (1, 2)]),
    Alignment.empty(2, 2),
]


@pytest.fixture(scope="module")
def report() -> dict[str, Any]:
    return evaluate_predictions(PAIRS, PREDICTED, GOLD, aligner="hand", gold_name="g").to_dict()


def test_the_literature_metric_averages_per_pair_precision_and_recall(
    report: dict[str, Any],
) -> None:
    lit = report["literature"]
    # Pair 1: A = {0-0, 1-1, 1-2}, G = {0-0, 1-1}: P 2/3, R 1. Pair 2: A = ∅ (no P), R 0.
    assert lit["precision"] == pytest.approx(2 / 3)
    assert lit["recall"] == pytest.approx(0.5)
    assert lit["f1"] == pytest.approx(4 / 7)
    assert lit["exact_match"] == 0.0
    assert lit["pairs_without_predicted_links"] == 1
    assert "gold = sure links only" in lit["label"]


def test_the_literature_metric_on_sure_predictions_uses_only_them(report: dict[str, Any]) -> None:
    lit = report["literature_sure_only"]
    # Pair 1: A = {0-0}: P 1, R 1/2. Pair 2: R 0.
    assert lit["precision"] == pytest.approx(1.0)
    assert lit["recall"] == pytest.approx(0.25)
    assert lit["f1"] == pytest.approx(0.4)


def test_exact_match_counts_pairs_whose_links_equal_the_gold() -> None:
    predicted = [Alignment.from_links(3, 3, sure=[(0, 0), (1, 1)]), Alignment.empty(2, 2)]
    lit = evaluate_predictions(PAIRS, predicted, GOLD).to_dict()["literature"]
    assert lit["exact_match"] == pytest.approx(50.0)


def test_non_identical_links_are_scored_on_their_own(report: dict[str, Any]) -> None:
    non = report["non_identical"]
    # Pair 1: A' = {1-1 (b-x), 1-2 (b-c)}, G' = {1-1}; pair 2: A' = ∅, G' = {1-1 (e-f)}.
    assert (non["predicted_links"], non["gold_links"], non["correct_links"]) == (2, 2, 1)
    assert non["precision"] == pytest.approx(0.5)
    assert non["recall"] == pytest.approx(0.5)
    assert non["f1"] == pytest.approx(0.5)


def test_och_ney_scores_use_sure_and_possible_links_summed_over_pairs(
    report: dict[str, Any],
) -> None:
    on = report["och_ney"]
    # |A_S ∩ G_P| = 1 of |A_S| = 1; |A_P ∩ G_S| = 2 of |G_S| = 4;
    # AER = 1 − (|A ∩ S| + |A ∩ P|) / (|A| + |S|) = 1 − (2 + 2) / (3 + 4).
    assert on["precision"] == pytest.approx(1.0)
    assert on["recall"] == pytest.approx(0.5)
    assert on["f1"] == pytest.approx(2 / 3)
    assert on["aer"] == pytest.approx(3 / 7)
    ni = report["och_ney_non_identical"]
    # Identical links left out: A_S = ∅ → precision undefined; recall |{1-1}| / |{1-1, 1-1}|.
    assert ni["precision"] is None
    assert ni["recall"] == pytest.approx(0.5)


def test_atomic_phrase_pairs_are_scored() -> None:
    pairs: list[TokenPair] = [(["a", "b"], ["x", "y"])]
    gold = [Alignment.from_links(2, 2, sure=[(0, 0), (1, 1)])]
    predicted = [Alignment.from_links(2, 2, sure=[(0, 0)])]
    scores = evaluate_predictions(pairs, predicted, gold).to_dict()
    # Predicted pairs: {a↔x} (atomic). Gold: a↔x, b↔y atomic, "a b"↔"x y" composite.
    assert scores["phrases_sure"]["precision"] == pytest.approx(1.0)
    assert scores["phrases_sure"]["recall"] == pytest.approx(0.5)
    assert scores["phrases_possible"]["f1"] == pytest.approx(2 / 3)


def test_the_summary_labels_every_line(report: dict[str, Any]) -> None:
    text = format_summary(report)
    for label in ("literature metric", "non-identical", "Och & Ney", "atomic phrase pairs"):
        assert label in text


def test_mismatched_inputs_are_refused() -> None:
    with pytest.raises(InputError, match="2 pairs, 1 predictions"):
        evaluate_predictions(PAIRS, PREDICTED[:1], GOLD)
    with pytest.raises(InputError, match="disagree"):
        evaluate_predictions(PAIRS, PREDICTED[::-1], GOLD)


def _record(key: str, alignments: dict[str, Alignment]) -> PairRecord:
    return PairRecord(
        id=key,
        source_tokens=["a", "b"],
        target_tokens=["a", "b"],
        annotations={k: AnnotationRecord(alignment=v) for k, v in alignments.items()},
    )


def test_references_are_each_annotator_and_their_majority() -> None:
    one = Alignment.from_links(2, 2, sure=[(0, 0)])
    two = Alignment.from_links(2, 2, sure=[(0, 0), (1, 1)])
    records = [_record("p1", {"A": one, "B": two, "C": one})]
    refs = references(records)
    assert list(refs) == ["A", "B", "C", "majority"]
    assert refs["majority"][0].sure == {(0, 0)}
    with pytest.raises(InputError, match="no alignment to evaluate against"):
        references([_record("p2", {})])


def test_folds_are_balanced_seeded_and_reproducible() -> None:
    folds = fold_assignment(23, 5, seed=1)
    assert sorted(np.bincount(folds).tolist()) == [4, 4, 5, 5, 5]
    np.testing.assert_array_equal(folds, fold_assignment(23, 5, seed=1))
    assert not np.array_equal(folds, fold_assignment(23, 5, seed=2))
    with pytest.raises(InputError, match="at least 2 folds"):
        fold_assignment(5, 1, seed=0)


class _GoldRecorder(Aligner):
    """Remembers which sentences it saw gold for; its output says if the pair was among them."""

    name = "gold-recorder"
    uses_gold = True

    def _train(self, pairs: Sequence[TokenPair], gold: Sequence[Alignment | None] | None) -> None:
        assert gold is not None
        self.seen = {tuple(s) for (s, _), g in zip(pairs, gold, strict=True) if g is not None}
        self.trained_on = len(pairs)

    def _align(self, source: list[str], target: list[str]) -> AlignerOutput:
        return AlignerOutput(
            Alignment.empty(len(source), len(target)),
            {},
            metadata={"saw_gold": tuple(source) in self.seen, "trained_on": self.trained_on},
        )


def test_cross_validation_never_shows_a_pair_its_own_gold() -> None:
    pairs: list[TokenPair] = [([f"w{k}"], ["x"]) for k in range(10)]
    gold = [Alignment.from_links(1, 1, sure=[(0, 0)]) for _ in pairs]
    outputs, record = cross_validate(_GoldRecorder, pairs, gold, folds=5, seed=3)
    assert len(outputs) == 10
    assert not any(o.metadata["saw_gold"] for o in outputs)
    assert all(o.metadata["trained_on"] == 10 for o in outputs)
    assert record["fold_sizes"] == [2, 2, 2, 2, 2] and record["seed"] == 3


def test_a_gold_learning_aligner_without_folds_or_training_gold_is_refused() -> None:
    records = [_record("p1", {"A": Alignment.empty(2, 2)})]
    with pytest.raises(InputError, match="--folds K"):
        evaluate_records(_GoldRecorder, records)


def test_evaluating_records_reports_every_reference() -> None:
    records = [
        _record(f"p{k}", {"A": Alignment.from_links(2, 2, sure=[(0, 0), (1, 1)])}) for k in range(3)
    ]
    from scoring.aligners import get_aligner

    result = evaluate_records(lambda: get_aligner("identity"), records, phrases=False)
    assert list(result["references"]) == ["A"]
    lit = result["references"]["A"]["literature"]
    assert lit["f1"] == pytest.approx(1.0) and lit["exact_match"] == pytest.approx(100.0)


@SETTINGS
@given(st.lists(alignments(3, 4), min_size=2, max_size=5))
def test_evaluation_takes_the_majority_by_the_one_rule(found: list[Alignment]) -> None:
    record = PairRecord(
        id="p",
        source_tokens=["a", "b", "c"],
        target_tokens=["a", "b", "c", "d"],
        annotations={f"r{k}": AnnotationRecord(alignment=a) for k, a in enumerate(found)},
    )
    sure, linked, _, _ = reference_majority(found)
    taught = training_gold(record)
    assert taught is not None
    assert (taught.sure, taught.possible) == (sure, linked)
    if len(found) >= 3:
        reference = references([record])["majority"][0]
        assert (reference.sure, reference.possible) == (sure, linked)
