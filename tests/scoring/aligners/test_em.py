"""The EM aligner: kernels against brute-force references, and EM sanity on a synthetic corpus."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from scoring.aligners import get_aligner
from scoring.aligners.em import (
    EMAligner,
    _grow_diag_final,
    _hmm_estep,
    _model1_estep,
    _posteriors,
)

# --- plain-Python references -------------------------------------------------------------------


def _ref_transitions(
    n_i: int, jump: np.ndarray, max_jump: int, smooth: float, uniform_start: bool
) -> tuple[list[list[float]], list[float]]:
    def c(d: int) -> float:
        return float(jump[min(max(d, -max_jump), max_jump) + max_jump])

    trans = []
    for ip in range(n_i):
        row = [c(i - ip) for i in range(n_i)]
        total = sum(row)
        trans.append([(1 - smooth) * v / total + smooth / n_i for v in row])
    if uniform_start:
        init = [1.0 / n_i] * n_i
    else:
        raw = [c(i + 1) for i in range(n_i)]
        init = [(1 - smooth) * v / sum(raw) + smooth / n_i for v in raw]
    return trans, init


def _ref_enumerate(
    emit: np.ndarray,
    emit_null: np.ndarray,
    trans: list[list[float]],
    init: list[float],
    p0: float,
) -> list[tuple[tuple[int, ...], float]]:
    """Every state sequence with its joint probability; state ``s < I`` is word ``s``, state
    ``I + i`` the empty word remembering ``i``."""
    n_j, n_i = emit.shape
    out = []
    for states in itertools.product(range(2 * n_i), repeat=n_j):
        prob = 1.0
        prev = -1
        for j, s in enumerate(states):
            pos, null = (s - n_i, True) if s >= n_i else (s, False)
            if j == 0:
                p_move = (p0 if null else 1 - p0) * init[pos]
            elif null:
                p_move = p0 if pos == prev else 0.0
            else:
                p_move = (1 - p0) * trans[prev][pos]
            prob *= p_move * (emit_null[j] if null else emit[j, pos])
            prev = pos
        out.append((states, prob))
    return out


def _ref_grow_diag_final(fwd: np.ndarray, bwd: np.ndarray) -> np.ndarray:
    """Koehn, Och & Marcu (2003) as written in the Moses documentation."""
    n, m = fwd.shape
    union = {(i, j) for i in range(n) for j in range(m) if fwd[i, j] or bwd[i, j]}
    alignment = {(i, j) for i in range(n) for j in range(m) if fwd[i, j] and bwd[i, j]}
    inter = set(alignment)

    def src_aligned(i: int) -> bool:
        return any(a == i for a, _ in alignment)

    def tgt_aligned(j: int) -> bool:
        return any(b == j for _, b in alignment)

    neighbours = [(-1, 0), (0, -1), (1, 0), (0, 1), (-1, -1), (-1, 1), (1, -1), (1, 1)]
    added = True
    while added:
        added = False
        for i in range(n):
            for j in range(m):
                if (i, j) not in alignment:
                    continue
                for di, dj in neighbours:
                    a, b = i + di, j + dj
                    if (a, b) in alignment or (a, b) not in union:
                        continue
                    if not src_aligned(a) or not tgt_aligned(b):
                        alignment.add((a, b))
                        added = True
    for directional in (fwd, bwd):
        for i in range(n):
            for j in range(m):
                free = not src_aligned(i) or not tgt_aligned(j)
                if directional[i, j] and (i, j) not in alignment and free:
                    alignment.add((i, j))
    out = np.zeros((n, m), dtype=np.int8)
    for link in alignment:
        out[link] = 2 if link in inter else 1
    return out


# --- kernels -------------------------------------------------------------------------------------


def test_the_model1_e_step_matches_a_plain_computation() -> None:
    rng = np.random.default_rng(3)
    # Two pairs: (I=2, J=3) and (I=1, J=2); cells index a 5-entry table.
    src_len = np.array([2, 1], dtype=np.int64)
    tgt_len = np.array([3, 2], dtype=np.int64)
    cells = rng.integers(0, 5, size=3 * 3 + 2 * 2).astype(np.int64)
    cell_off = np.array([0, 9, 13], dtype=np.int64)
    weights = np.array([1.0, 2.5])
    prob = rng.random(5) + 0.1
    counts = np.zeros(5)
    ll = _model1_estep(src_len, tgt_len, cells, cell_off, weights, prob, counts)

    ref_counts = np.zeros(5)
    ref_ll = 0.0
    for k in range(2):
        n_i, n_j = int(src_len[k]), int(tgt_len[k])
        for j in range(n_j):
            row = [int(cells[cell_off[k] + j * (n_i + 1) + i]) for i in range(n_i + 1)]
            den = sum(prob[c] for c in row)
            ref_ll += weights[k] * math.log(den / (n_i + 1))
            for c in row:
                ref_counts[c] += weights[k] * prob[c] / den
    assert ll == pytest.approx(ref_ll, rel=1e-12)
    np.testing.assert_allclose(counts, ref_counts, rtol=1e-12)


@pytest.mark.parametrize("uniform_start", [False, True])
@pytest.mark.parametrize("shape", [(1, 1), (3, 2), (2, 4), (3, 3)])
def test_hmm_posteriors_and_viterbi_match_brute_force(
    shape: tuple[int, int], uniform_start: bool
) -> None:
    n_i, n_j = shape
    rng = np.random.default_rng(n_i * 10 + n_j)
    max_jump, smooth, p0 = 2, 0.2, 0.3
    emit = rng.random((n_j, n_i)) + 0.01
    emit_null = rng.random(n_j) * 0.3 + 0.01
    jump = rng.random(2 * max_jump + 1) + 0.05
    post, post_null, path = _posteriors(emit, emit_null, jump, max_jump, smooth, uniform_start, p0)

    trans, init = _ref_transitions(n_i, jump, max_jump, smooth, uniform_start)
    table = _ref_enumerate(emit, emit_null, trans, init, p0)
    total = sum(p for _, p in table)
    ref_post = np.zeros((n_j, n_i))
    ref_null = np.zeros(n_j)
    for states, p in table:
        for j, s in enumerate(states):
            if s < n_i:
                ref_post[j, s] += p / total
            else:
                ref_null[j] += p / total
    np.testing.assert_allclose(post, ref_post, rtol=1e-10, atol=1e-14)
    np.testing.assert_allclose(post_null, ref_null, rtol=1e-10, atol=1e-14)
    best_states, _ = max(table, key=lambda item: item[1])
    assert [int(v) for v in path] == [s if s < n_i else -1 for s in best_states]


def test_the_hmm_e_step_counts_match_brute_force() -> None:
    n_i, n_j = 3, 3
    rng = np.random.default_rng(11)
    max_jump, smooth, p0 = 2, 0.1, 0.25
    emit = rng.random((n_j, n_i)) + 0.01
    emit_null = rng.random(n_j) * 0.3 + 0.01
    jump = rng.random(2 * max_jump + 1) + 0.05
    # One pair whose cells are numbered row by row, the empty word last in each row.
    prob = np.concatenate([np.append(emit[j], emit_null[j]) for j in range(n_j)])
    cells = np.arange(prob.size, dtype=np.int64)
    counts = np.zeros(prob.size)
    jump_counts = np.zeros(jump.size)
    null_counts = np.zeros(2)
    ll = _hmm_estep(
        np.array([n_i]),
        np.array([n_j]),
        cells,
        np.array([0, prob.size]),
        np.array([2.0]),
        prob,
        jump,
        max_jump,
        smooth,
        False,
        p0,
        counts,
        jump_counts,
        null_counts,
    )
    trans, init = _ref_transitions(n_i, jump, max_jump, smooth, False)
    table = _ref_enumerate(emit, emit_null, trans, init, p0)
    total = sum(p for _, p in table)
    assert ll == pytest.approx(2.0 * math.log(total), rel=1e-10)
    ref_counts = np.zeros(prob.size)
    ref_jumps = np.zeros(jump.size)
    ref_null = 0.0
    for states, p in table:
        w = 2.0 * p / total
        prev = -1
        for j, s in enumerate(states):
            pos, null = (s - n_i, True) if s >= n_i else (s, False)
            ref_counts[j * (n_i + 1) + (n_i if null else pos)] += w
            ref_null += w if null else 0.0
            if j == 0:
                ref_jumps[min(pos + 1, max_jump) + max_jump] += w
            elif not null:
                ref_jumps[min(max(pos - prev, -max_jump), max_jump) + max_jump] += w
            prev = pos
    np.testing.assert_allclose(counts, ref_counts, rtol=1e-10)
    np.testing.assert_allclose(jump_counts, ref_jumps, rtol=1e-10)
    assert null_counts[0] == pytest.approx(ref_null, rel=1e-10)
    assert null_counts[1] == pytest.approx(2.0 * n_j)


def test_grow_diag_final_matches_the_reference_on_random_alignments() -> None:
    rng = np.random.default_rng(5)
    for _ in range(300):
        n, m = int(rng.integers(1, 8)), int(rng.integers(1, 8))
        # Directional alignments: each target word at most one source word, and vice versa.
        fwd = np.zeros((n, m), dtype=np.int8)
        bwd = np.zeros((n, m), dtype=np.int8)
        for j in range(m):
            if rng.random() < 0.8:
                fwd[int(rng.integers(0, n)), j] = 1
        for i in range(n):
            if rng.random() < 0.8:
                bwd[i, int(rng.integers(0, m))] = 1
        np.testing.assert_array_equal(_grow_diag_final(fwd, bwd), _ref_grow_diag_final(fwd, bwd))


# --- EM on a synthetic corpus ------------------------------------------------------------------


def _synthetic_corpus(
    rng: np.random.Generator, pairs: int = 400, vocab: int = 12
) -> tuple[list[tuple[list[str], list[str]]], dict[str, str], float]:
    """Source words ``s<k>``; each is translated as ``t<k>`` with probability 0.8, else as one
    of its three own noise words ``n<k>_<r>``; the target keeps the source order."""
    correct = 0.8
    corpus = []
    for _ in range(pairs):
        words = rng.integers(0, vocab, size=int(rng.integers(4, 9))).tolist()
        target = [
            f"t{w}" if rng.random() < correct else f"n{w}_{int(rng.integers(0, 3))}" for w in words
        ]
        corpus.append(([f"s{w}" for w in words], target))
    truth = {f"s{k}": f"t{k}" for k in range(vocab)}
    return corpus, truth, correct


def test_em_recovers_a_known_word_translation_table() -> None:
    corpus, truth, correct = _synthetic_corpus(np.random.default_rng(0))
    aligner = EMAligner(identity_weight=0.0, model1_iterations=5, hmm_iterations=5)
    aligner.train(corpus)
    lexicon = aligner.lexicon(0)
    for source_word, target_word in truth.items():
        row = {f: p for (e, f), p in lexicon.items() if e == source_word}
        assert max(row, key=row.__getitem__) == target_word
        assert row[target_word] == pytest.approx(correct, abs=0.08)
    # The reverse direction learns the inverse mapping.
    reverse = aligner.lexicon(1)
    for source_word, target_word in truth.items():
        row = {f: p for (e, f), p in reverse.items() if e == target_word}
        assert max(row, key=row.__getitem__) == source_word


def test_em_aligns_the_synthetic_corpus_along_the_diagonal() -> None:
    corpus, _, _ = _synthetic_corpus(np.random.default_rng(1), pairs=300)
    aligner = EMAligner(identity_weight=0.0)
    aligner.train(corpus)
    hits = total = 0
    for source, target in corpus[:50]:
        output = aligner.align(source, target)
        total += len(source)
        hits += sum((k, k) in output.sure for k in range(len(source)))
    assert hits / total > 0.9


def test_the_log_likelihood_never_decreases_within_each_model() -> None:
    corpus, _, _ = _synthetic_corpus(np.random.default_rng(2))
    aligner = EMAligner(identity_weight=1.0, model1_iterations=8, hmm_iterations=8)
    aligner.train(corpus)
    for direction in aligner.log["directions"]:
        for key in ("model1_log_likelihood", "hmm_log_likelihood"):
            values = direction[key]
            assert len(values) == 8
            for before, after in itertools.pairwise(values):
                assert after >= before - 1e-9 * abs(before), (key, values)


# --- behaviour on words --------------------------------------------------------------------------


def test_the_identity_lexicon_links_identical_words_even_when_rare() -> None:
    pairs = [
        (["the", "senator", "left", "yesterday"], ["yesterday", "the", "senator", "departed"]),
        (["a", "storm", "hit", "the", "coast"], ["the", "coast", "was", "hit", "by", "a", "storm"]),
        (["prices", "rose", "sharply"], ["prices", "went", "up", "sharply"]),
    ]
    aligner = get_aligner("em")
    aligner.train(pairs)
    output = aligner.align(*pairs[0])
    assert {(0, 1), (1, 2), (3, 0)} <= output.sure


def test_unknown_identical_words_are_still_linked() -> None:
    aligner = get_aligner("em")
    aligner.train([(["a", "b", "c"], ["a", "b", "c"])] * 3)
    output = aligner.align(["zebra", "a", "quokka"], ["quokka", "a", "zebra"])
    assert {(0, 2), (1, 1), (2, 0)} <= output.possible


def test_lexical_first_keeps_the_lexical_links_and_adds_em_ones() -> None:
    pairs = [
        (
            ["he", "quickly", "purchased", "the", "car"],
            ["he", "bought", "the", "automobile", "fast"],
        ),
        (["she", "quickly", "bought", "a", "bike"], ["she", "purchased", "a", "bike", "fast"]),
    ] * 3
    plain = get_aligner("em")
    plain.train(pairs)
    combined = get_aligner("em", lexical="first-sure")
    combined.train(pairs)
    lexical = get_aligner("lexical").align(*pairs[0])
    output = combined.align(*pairs[0])
    assert lexical.possible <= output.possible
    assert lexical.sure <= output.sure
    assert output.warnings == lexical.warnings
