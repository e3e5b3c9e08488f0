"""Pooled training (scheme *All* of Wang & Cer 2012): the grouped-offset start of
``fit(groups=...)``."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from scoring.errors import InputError
from scoring.pfsm import PFSMScorer, grouped_training_objective, training_objective
from scoring.pfsm.features import N_FEATURES, Lexicon
from scoring.pfsm.lattice import CompiledPairs
from scoring.scorers.options import PFSMOptions
from tests.scoring.pfsm.reference import brute_force

VOCAB = [f"w{k}" for k in range(60)]


def subset(
    rng: np.random.Generator, count: int, lengths: tuple[int, int], offset: float
) -> tuple[list[tuple[list[str], list[str]]], list[float]]:
    """Pairs whose target replaces a random share of the source words; the gold score is
    ``offset + 2 × the share of source words kept``."""
    pairs, scores = [], []
    for _ in range(count):
        size = int(rng.integers(*lengths))
        source = [str(w) for w in rng.choice(VOCAB, size=size, replace=False)]
        kept = rng.random(size) < rng.uniform(0.1, 1.0)
        target = [w if k else str(rng.choice(VOCAB)) for w, k in zip(source, kept, strict=True)]
        pairs.append((source, target))
        scores.append(offset + 2.0 * sum(w in target for w in source) / size)
    return pairs, scores


def two_subsets(seed: int) -> tuple[list[Any], np.ndarray, list[str]]:
    """Short pairs with low scores and long pairs with high scores, as MSRvid and SMTeuroparl
    (mean length 15 against 61 tokens, mean score 2.1 against 4.3)."""
    rng = np.random.default_rng(seed)
    short, short_y = subset(rng, 50, (3, 6), 0.0)
    long, long_y = subset(rng, 50, (14, 20), 3.0)
    return short + long, np.array(short_y + long_y), ["short"] * 50 + ["long"] * 50


def within(predictions: np.ndarray, targets: np.ndarray) -> tuple[float, float]:
    return (
        float(np.corrcoef(predictions[:50], targets[:50])[0, 1]),
        float(np.corrcoef(predictions[50:], targets[50:])[0, 1]),
    )


def test_pooled_training_with_groups_still_ranks_pairs_within_each_subset() -> None:
    pairs, targets, groups = two_subsets(0)
    model = PFSMScorer(PFSMOptions(synonyms=False)).fit(pairs, targets, groups=groups)
    assert model.training["start"] == "grouped"
    assert min(within(model.score(pairs), targets)) > 0.9
    held_out, held_targets, _ = two_subsets(1)
    assert min(within(model.score(held_out), held_targets)) > 0.9
    # the model still predicts on the papers' scale: y / (|s1| + |s2|) + α with one α
    offsets = model.training["group_offsets"]
    assert set(offsets) == {"short", "long"} and offsets["long"] > offsets["short"] + 2.0


def test_from_the_papers_start_pooled_training_predicts_from_length_alone() -> None:
    # what fit(groups=...) is for: the papers' θ = 0 start ends where inserts and deletes carry
    # the prediction, and the ranking within each subset is lost
    pairs, targets, _ = two_subsets(0)
    model = PFSMScorer(PFSMOptions(synonyms=False)).fit(pairs, targets)
    assert model.training["start"] == "zero"
    assert max(within(model.score(pairs), targets)) < 0.5
    weights = model.feature_weights()
    assert weights["trans:DEL>DEL"] > 0.5 and abs(weights["state:S_WORD"]) < 0.1


def test_one_group_is_the_papers_procedure() -> None:
    pairs, targets, _ = two_subsets(2)
    plain = PFSMScorer(PFSMOptions(synonyms=False, max_iter=30)).fit(pairs, targets)
    one = PFSMScorer(PFSMOptions(synonyms=False, max_iter=30)).fit(pairs, targets, groups=[7] * 100)
    assert one.training["start"] == "zero" and "group_offsets" not in one.training
    np.testing.assert_array_equal(one.weights, plain.weights)
    assert one.alpha == plain.alpha


@pytest.mark.parametrize("jump_limit", [0, 1])
def test_grouped_objective_and_gradient_match_the_enumeration(jump_limit: int) -> None:
    lexicon = Lexicon(synonyms=False, paraphrases=None)
    texts = [("a b c", "a c b"), ("a , b", "b , a"), ("x y", "x z y"), ("p q r s", "p r q")]
    tables = [lexicon.match_tables(s.split(), t.split()) for s, t in texts]
    compiled = CompiledPairs(tables, jump_limit)
    targets = np.array([3.0, 1.5, 4.0, 2.5])
    group_index = np.array([1, 0, 1, 0], dtype=np.int64)
    rng = np.random.default_rng(5)
    kept = np.sort(rng.choice(N_FEATURES, size=40, replace=False)).astype(np.int64)
    params = rng.normal(scale=0.3, size=kept.size + 2)
    value, grad = grouped_training_objective(compiled, params, kept, targets, group_index, 5.0)
    w = np.zeros(N_FEATURES)
    w[kept] = params[:-2]
    ys = np.array([brute_force(t, w, jump_limit)[0] for t in tables])
    norms = np.array([sum(t.shape) for t in tables], dtype=float)
    theta = params[:-2]
    predicted = ys / norms + params[-2:][group_index]
    assert value == pytest.approx(np.sum((targets - predicted) ** 2) + 5.0 * theta @ theta)
    eps = 1e-6
    for index in range(params.size):
        step = np.zeros_like(params)
        step[index] = eps
        up, _ = grouped_training_objective(compiled, params + step, kept, targets, group_index, 5.0)
        down, _ = grouped_training_objective(compiled, params - step, kept, targets, group_index, 5)
        assert grad[index] == pytest.approx((up - down) / (2 * eps), rel=1e-5, abs=1e-6)
    # with equal offsets it is the papers' Eq. 3
    paper, _ = training_objective(compiled, np.append(theta, 0.7), kept, targets, 5.0)
    same = np.append(theta, [0.7, 0.7])
    grouped, _ = grouped_training_objective(compiled, same, kept, targets, group_index, 5.0)
    assert grouped == pytest.approx(paper, rel=1e-12)


@pytest.mark.parametrize(
    ("groups", "message"),
    [
        (["a", "b"], "3 pairs but groups has 2 labels"),
        ("abc", "groups must be a list"),
        (["a", None, "b"], "group 1 is None"),
        (["a", "", "b"], "group 1 is ''"),
        (["a", True, "b"], "group 1 is True"),
    ],
)
def test_fit_rejects_bad_groups(groups: Any, message: str) -> None:
    pairs = [(["a"], ["a"]), (["b"], ["c"]), (["d", "e"], ["d"])]
    with pytest.raises(InputError, match=message):
        PFSMScorer(PFSMOptions(synonyms=False)).fit(pairs, [1.0, 2.0, 3.0], groups=groups)
