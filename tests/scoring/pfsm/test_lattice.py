"""The dynamic programs against brute-force enumeration of every edit sequence (reference.py)."""

from __future__ import annotations

import numpy as np
import pytest

from scoring.pfsm import lattice
from scoring.pfsm.features import (
    N_FEATURES,
    ST_J1,
    ST_SWORD,
    Lexicon,
    MatchTables,
)
from scoring.pfsm.model import training_objective
from tests.scoring.pfsm.reference import brute_force, enumerate_sequences, feature_vector

PAIRS = [
    ("a b c", "b a c"),  # adjacent swap
    ("the cat sat", "a cat sat down"),
    ("x y", "y x"),
    ("can not go .", "cannot go now ."),  # 2→1 block
    ("He attacks , we go", "we go , he attack"),  # lemma, punctuation, long swap
    ("p q r s", "s r q p"),
]
JUMP_LIMITS = [0, 1, 2, 5, 10]


@pytest.fixture(scope="module")
def lexicon() -> Lexicon:
    return Lexicon(synonyms=False, paraphrases=None)


def tables_for(lexicon: Lexicon, source: str, target: str) -> MatchTables:
    return lexicon.match_tables(source.split(), target.split())


def random_weights(seed: int) -> np.ndarray:
    return np.random.default_rng(seed).normal(scale=0.6, size=N_FEATURES)


@pytest.mark.parametrize("jump_limit", JUMP_LIMITS)
@pytest.mark.parametrize(("source", "target"), PAIRS)
def test_forward_value_and_expected_counts_equal_brute_force_enumeration(
    lexicon: Lexicon, source: str, target: str, jump_limit: int
) -> None:
    tables = tables_for(lexicon, source, target)
    w = random_weights(len(source) * 31 + jump_limit)
    y_ref, expected_ref, _, _, support_ref = brute_force(tables, w, jump_limit)
    assert lattice.log_partition(tables, w, jump_limit) == pytest.approx(y_ref, abs=1e-10)
    y, expected = lattice.expected_counts(tables, w, jump_limit)
    assert y == pytest.approx(y_ref, abs=1e-10)
    np.testing.assert_allclose(expected, expected_ref, atol=1e-10)
    np.testing.assert_array_equal(lattice.support_counts(tables, jump_limit), support_ref)


@pytest.mark.parametrize("jump_limit", JUMP_LIMITS)
@pytest.mark.parametrize(("source", "target"), PAIRS)
def test_viterbi_path_is_the_argmax_of_the_enumeration(
    lexicon: Lexicon, source: str, target: str, jump_limit: int
) -> None:
    tables = tables_for(lexicon, source, target)
    w = random_weights(len(target) * 17 + jump_limit)
    sequences = enumerate_sequences(tables, jump_limit)
    scores = np.array([feature_vector(seq) @ w for seq in sequences])
    best, ops = lattice.viterbi(tables, w, jump_limit)
    assert best == pytest.approx(scores.max(), abs=1e-10)
    # distinct sequences can share a feature vector, so any sequence of maximal score will do
    argmax = {
        tuple(step for _, step in seq if step[0] >= 0)
        for seq, score in zip(sequences, scores, strict=True)
        if score >= scores.max() - 1e-9
    }
    assert tuple((op.state, op.i, op.j, op.di, op.dj) for op in ops) in argmax


@pytest.mark.parametrize("jump_limit", [0, 2, 5])
@pytest.mark.parametrize(("source", "target"), PAIRS[3:])
def test_link_posteriors_equal_the_enumerated_link_marginals(
    lexicon: Lexicon, source: str, target: str, jump_limit: int
) -> None:
    tables = tables_for(lexicon, source, target)
    w = random_weights(5 + jump_limit)
    sequences = enumerate_sequences(tables, jump_limit)
    scores = np.array([feature_vector(seq) @ w for seq in sequences])
    probs = np.exp(scores - scores.max())
    probs /= probs.sum()
    expected = np.zeros(tables.shape)
    for seq, prob in zip(sequences, probs, strict=True):
        for _, (_state, i, j, di, dj) in seq:
            if di > 0 and dj > 0:  # substitutions, single or block
                expected[i : i + di, j : j + dj] += prob
    np.testing.assert_allclose(lattice.link_posteriors(tables, w, jump_limit), expected, atol=1e-12)


def test_a_jump_limit_of_ten_reaches_swaps_that_five_cannot(lexicon: Lexicon) -> None:
    # "a" and "g" trade places across a gap of six tokens: only a limit ≥ 6 can swap them.
    tables = tables_for(lexicon, "a b c d e f g", "g x y z w v a")
    w = random_weights(7)
    for limit in (5, 10):
        y_ref, expected_ref, *_ = brute_force(tables, w, limit)
        y, expected = lattice.expected_counts(tables, w, limit)
        assert y == pytest.approx(y_ref, abs=1e-10)
        np.testing.assert_allclose(expected, expected_ref, atol=1e-10)
    assert lattice.log_partition(tables, w, 10) != pytest.approx(
        lattice.log_partition(tables, w, 5)
    )


def test_without_any_substitution_the_ppda_adds_no_sequence(lexicon: Lexicon) -> None:
    # A forward jump must land on a substitution, so with no matching words the pPDA is the pFSM.
    tables = tables_for(lexicon, "a b c", "d e f g")
    w = random_weights(3)
    assert lattice.log_partition(tables, w, 5) == pytest.approx(lattice.log_partition(tables, w, 0))
    assert all(
        step[0] != ST_J1 for seq in enumerate_sequences(tables, 5) for _, step in seq
    )  # the reference agrees


def test_ppda_viterbi_crosses_links_where_the_pfsm_cannot(lexicon: Lexicon) -> None:
    tables = tables_for(lexicon, "x y", "y x")
    w = np.zeros(N_FEATURES)
    w[ST_SWORD] = 5.0
    _, pfsm_ops = lattice.viterbi(tables, w, 0)
    _, ppda_ops = lattice.viterbi(tables, w, 1)
    assert sum(op.state == ST_SWORD for op in pfsm_ops) == 1
    assert {(op.i, op.j) for op in ppda_ops if op.state == ST_SWORD} == {(0, 1), (1, 0)}


@pytest.mark.parametrize("jump_limit", [0, 2])
def test_objective_gradient_equals_finite_differences(lexicon: Lexicon, jump_limit: int) -> None:
    tables = [tables_for(lexicon, s, t) for s, t in PAIRS[:4]]
    compiled = lattice.CompiledPairs(tables, jump_limit)
    targets = np.array([3.0, 1.5, 4.0, 2.5])
    rng = np.random.default_rng(11)
    kept = np.sort(rng.choice(N_FEATURES, size=40, replace=False)).astype(np.int64)
    params = rng.normal(scale=0.3, size=kept.size + 1)
    value, grad = training_objective(compiled, params, kept, targets, 5.0)
    eps = 1e-6
    numeric = np.empty_like(params)
    for index in range(params.size):
        step = np.zeros_like(params)
        step[index] = eps
        up, _ = training_objective(compiled, params + step, kept, targets, 5.0)
        down, _ = training_objective(compiled, params - step, kept, targets, 5.0)
        numeric[index] = (up - down) / (2 * eps)
    np.testing.assert_allclose(grad, numeric, rtol=1e-5, atol=1e-6)
    # and the value is Eq. 3 computed from the enumerated y's
    w = np.zeros(N_FEATURES)
    w[kept] = params[:-1]
    ys = np.array([brute_force(t, w, jump_limit)[0] for t in tables])
    norms = np.array([sum(t.shape) for t in tables])
    expected = np.sum((targets - (ys / norms + params[-1])) ** 2) + 5.0 * params[:-1] @ params[:-1]
    assert value == pytest.approx(expected, rel=1e-10)


def test_it_rejects_bad_weights_and_jump_limits(lexicon: Lexicon) -> None:
    tables = tables_for(lexicon, "a b", "a c")
    with pytest.raises(ValueError, match="weights must have shape"):
        lattice.log_partition(tables, np.zeros(3))
    with pytest.raises(ValueError, match="finite"):
        lattice.log_partition(tables, np.full(N_FEATURES, np.nan))
    with pytest.raises(ValueError, match="jump_limit must be between 0"):
        lattice.log_partition(tables, np.zeros(N_FEATURES), 11)
    with pytest.raises(ValueError, match="jump_limit must be an integer"):
        lattice.log_partition(tables, np.zeros(N_FEATURES), 2.5)  # type: ignore[arg-type]


def test_it_refuses_a_pair_whose_lattice_would_not_fit_in_memory(lexicon: Lexicon) -> None:
    tokens = [f"w{k}" for k in range(300)]
    tables = lexicon.match_tables(tokens, tokens)
    with pytest.raises(ValueError, match="300×300-token pair is too long for jump limit 10"):
        lattice.log_partition(tables, np.zeros(N_FEATURES), 10)
    assert lattice.node_count(300, 300, 0) < lattice.MAX_NODES  # the pFSM is fine
