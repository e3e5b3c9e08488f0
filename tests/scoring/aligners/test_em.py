"""The EM aligner: kernels against brute-force references, and EM sanity on a synthetic corpus."""

from __future__ import annotations

import itertools
import json
import math
from pathlib import Path

import numpy as np
import pytest

from scoring.aligners import get_aligner
from scoring.aligners.base import Aligner, read_model_file
from scoring.aligners.em import EMAligner, _DirectionRun, _layout
from scoring.aligners.em_kernels import (
    agree,
    grow_diag_final,
    hmm_agreement_estep,
    hmm_estep,
    model1_agreement_estep,
    model1_estep,
    posteriors,
)
from scoring.aligners.options import EMOptions
from scoring.errors import OptionsError

# --- plain-Python references -------------------------------------------------------------------


def _ref_transitions(
    n_i: int, jump: np.ndarray, bounds: np.ndarray, max_jump: int, smooth: float
) -> tuple[list[list[float]], list[float], list[float]]:
    """Transitions, start distribution and end factor (mean 1) as the module docstring says."""

    def c(d: int) -> float:
        return float(jump[min(max(d, -max_jump), max_jump) + max_jump])

    def smoothed(raw: list[float]) -> list[float]:
        return [(1 - smooth) * v / sum(raw) + smooth / n_i for v in raw]

    trans = [smoothed([c(i - ip) for i in range(n_i)]) for ip in range(n_i)]
    init = smoothed([float(bounds[0, min(i + 1, max_jump)]) for i in range(n_i)])
    end = [
        n_i * v for v in smoothed([float(bounds[1, min(n_i - i, max_jump)]) for i in range(n_i)])
    ]
    return trans, init, end


def _ref_enumerate(
    emit: np.ndarray,
    emit_null: np.ndarray,
    trans: list[list[float]],
    init: list[float],
    end: list[float],
    p0: float,
) -> list[tuple[tuple[int, ...], float]]:
    """Every state sequence with its joint probability (times the end factor of its last
    position); state ``s < I`` is word ``s``, state ``I + i`` the empty word remembering
    ``i``."""
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
        out.append((states, prob * end[prev]))
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
    cells = rng.integers(0, 5, size=3 * 3 + 2 * 2).astype(np.int32)
    cell_off = np.array([0, 9, 13], dtype=np.int64)
    weights = np.array([1.0, 2.5])
    prob = rng.random(5) + 0.1
    counts = np.zeros(5)
    ll = model1_estep(src_len, tgt_len, cells, cell_off, weights, prob, counts, 0.0)

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


def _random_bounds(rng: np.random.Generator, max_jump: int, start: bool, end: bool) -> np.ndarray:
    """Start (row 0) and end (row 1) tables: random where asked, else constant."""
    bounds = np.ones((2, max_jump + 1))
    for row, flag in enumerate((start, end)):
        if flag:
            bounds[row] = rng.random(max_jump + 1) + 0.05
    return bounds


@pytest.mark.parametrize(("start", "end"), [(False, False), (True, False), (True, True)])
@pytest.mark.parametrize("shape", [(1, 1), (3, 2), (2, 4), (3, 3), (4, 1)])
def test_hmm_posteriors_and_viterbi_match_brute_force(
    shape: tuple[int, int], start: bool, end: bool
) -> None:
    n_i, n_j = shape
    rng = np.random.default_rng(n_i * 10 + n_j)
    max_jump, smooth, p0 = 2, 0.2, 0.3
    emit = rng.random((n_j, n_i)) + 0.01
    emit_null = rng.random(n_j) * 0.3 + 0.01
    jump = rng.random(2 * max_jump + 1) + 0.05
    bounds = _random_bounds(rng, max_jump, start, end)
    post, post_null, path = posteriors(emit, emit_null, jump, bounds, max_jump, smooth, p0)

    trans, init, end_factor = _ref_transitions(n_i, jump, bounds, max_jump, smooth)
    if not end:
        assert end_factor == pytest.approx([1.0] * n_i, rel=1e-12)
    table = _ref_enumerate(emit, emit_null, trans, init, end_factor, p0)
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


@pytest.mark.parametrize("align_weight", [0.5, 0.0])
def test_the_hmm_e_step_counts_match_brute_force(align_weight: float) -> None:
    n_i, n_j = 4, 3
    rng = np.random.default_rng(11)
    max_jump, smooth, p0 = 2, 0.1, 0.25
    emit = rng.random((n_j, n_i)) + 0.01
    emit_null = rng.random(n_j) * 0.3 + 0.01
    jump = rng.random(2 * max_jump + 1) + 0.05
    bounds = _random_bounds(rng, max_jump, True, True)
    # One pair whose cells are numbered row by row, the empty word last in each row.
    prob = np.concatenate([np.append(emit[j], emit_null[j]) for j in range(n_j)])
    cells = np.arange(prob.size, dtype=np.int32)
    counts = np.zeros(prob.size)
    jump_counts = np.zeros(jump.size)
    bound_counts = np.zeros_like(bounds)
    null_counts = np.zeros(2)
    ll = hmm_estep(
        np.array([n_i]),
        np.array([n_j]),
        cells,
        np.array([0, prob.size]),
        np.array([2.0]),
        np.array([align_weight]),
        prob,
        jump,
        bounds,
        (max_jump, smooth),
        p0,
        counts,
        jump_counts,
        bound_counts,
        null_counts,
        0.0,
    )
    trans, init, end = _ref_transitions(n_i, jump, bounds, max_jump, smooth)
    table = _ref_enumerate(emit, emit_null, trans, init, end, p0)
    total = sum(p for _, p in table)
    assert ll == pytest.approx(2.0 * math.log(total), rel=1e-10)
    # Lexicon counts take the pair's weight (2), the alignment model's its alignment weight.
    ref_counts = np.zeros(prob.size)
    ref_jumps = np.zeros(jump.size)
    ref_bounds = np.zeros_like(bounds)
    ref_null = 0.0
    for states, p in table:
        w = 2.0 * p / total
        wa = align_weight * p / total
        prev = -1
        for j, s in enumerate(states):
            pos, null = (s - n_i, True) if s >= n_i else (s, False)
            ref_counts[j * (n_i + 1) + (n_i if null else pos)] += w
            ref_null += wa if null else 0.0
            if j == 0:
                ref_bounds[0, min(pos + 1, max_jump)] += wa
            elif not null:
                ref_jumps[min(max(pos - prev, -max_jump), max_jump) + max_jump] += wa
            prev = pos
        ref_bounds[1, min(n_i - prev, max_jump)] += wa
    np.testing.assert_allclose(counts, ref_counts, rtol=1e-10)
    np.testing.assert_allclose(jump_counts, ref_jumps, rtol=1e-10, atol=1e-15)
    np.testing.assert_allclose(bound_counts, ref_bounds, rtol=1e-10, atol=1e-15)
    assert null_counts[0] == pytest.approx(ref_null, rel=1e-10)
    assert null_counts[1] == pytest.approx(align_weight * n_j)


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
        np.testing.assert_array_equal(grow_diag_final(fwd, bwd), _ref_grow_diag_final(fwd, bwd))


def _random_posteriors(rng: np.random.Generator, n_rows: int, n_cols: int) -> np.ndarray:
    """Rows that sum to 1 over ``n_cols`` words and the empty word (last column)."""
    raw: np.ndarray = rng.random((n_rows, n_cols + 1)) + 0.01
    out: np.ndarray = raw / raw.sum(axis=1, keepdims=True)
    return out


def test_agreement_keeps_only_link_mass_both_directions_give() -> None:
    rng = np.random.default_rng(7)
    for n_i, n_j in [(1, 1), (3, 5), (6, 2)]:
        fwd = _random_posteriors(rng, n_j, n_i)
        bwd = _random_posteriors(rng, n_i, n_j)
        q_fwd, q_bwd = fwd.copy(), bwd.copy()
        stats = np.zeros(3)
        agree(n_i, n_j, q_fwd, q_bwd, stats)
        q = fwd[:, :n_i] * bwd[:, :n_j].T
        np.testing.assert_allclose(q_fwd[:, :n_i], q, rtol=1e-12)
        np.testing.assert_allclose(q_bwd[:, :n_j], q.T, rtol=1e-12)
        # q is at most either directional posterior, so no word gets more than one link's mass.
        assert (q <= fwd[:, :n_i]).all() and (q <= bwd[:, :n_j].T).all()
        assert (q.sum(axis=1) <= 1.0).all() and (q.sum(axis=0) <= 1.0).all()
        # The empty word keeps each direction's own posterior.
        np.testing.assert_array_equal(q_fwd[:, n_i], fwd[:, n_i])
        np.testing.assert_array_equal(q_bwd[:, n_j], bwd[:, n_j])
        assert stats == pytest.approx([q.sum(), fwd[:, :n_i].sum(), bwd[:, :n_j].sum()])


def _two_way_layouts(
    src: list[np.ndarray], tgt: list[np.ndarray], size: int
) -> tuple[tuple[np.ndarray, ...], tuple[np.ndarray, ...]]:
    return _layout(src, tgt, size), _layout(tgt, src, size)


def test_the_joint_model1_e_step_counts_the_product_of_both_directions() -> None:
    rng = np.random.default_rng(13)
    size = 6
    src = [np.array([1, 2]), np.array([3, 1, 4])]
    tgt = [np.array([2, 5, 3]), np.array([4])]
    weights = np.array([1.0, 3.0])
    st, ts = _two_way_layouts(src, tgt, size)
    prob_st = rng.random(st[4].size) + 0.1
    prob_ts = rng.random(ts[4].size) + 0.1
    counts_st = np.zeros_like(prob_st)
    counts_ts = np.zeros_like(prob_ts)
    stats = np.zeros(3)
    ll_st, ll_ts = model1_agreement_estep(
        st[0], st[1], st[2], st[3], ts[2], ts[3], weights, prob_st, prob_ts,
        counts_st, counts_ts, stats, (0.0, 0.0),
    )  # fmt: skip

    def table(keys: np.ndarray, prob: np.ndarray) -> dict[tuple[int, int], float]:
        return {(int(k) // size, int(k) % size): float(p) for k, p in zip(keys, prob, strict=True)}

    t_st, t_ts = table(st[4], prob_st), table(ts[4], prob_ts)
    ref_st: dict[tuple[int, int], float] = {}
    ref_ts: dict[tuple[int, int], float] = {}
    ref_ll = [0.0, 0.0]
    for s, t, w in zip(src, tgt, weights, strict=True):
        # post[d][j][i]: Model 1 posterior of direction d, the empty word (id 0) last.
        posts = []
        for d, (cond, gen, tab) in enumerate(((s, t, t_st), (t, s, t_ts))):
            rows = []
            for f in gen.tolist():
                values = [tab[(e, f)] for e in [*cond.tolist(), 0]]
                ref_ll[d] += w * math.log(sum(values) / len(values))
                rows.append([v / sum(values) for v in values])
            posts.append(rows)
        for i, e in enumerate(s.tolist()):
            for j, f in enumerate(t.tolist()):
                q = posts[0][j][i] * posts[1][i][j]
                ref_st[(e, f)] = ref_st.get((e, f), 0.0) + w * q
                ref_ts[(f, e)] = ref_ts.get((f, e), 0.0) + w * q
        for d, (gen, ref) in enumerate(((t, ref_st), (s, ref_ts))):
            for j, f in enumerate(gen.tolist()):
                ref[(0, f)] = ref.get((0, f), 0.0) + w * posts[d][j][-1]
    assert (ll_st, ll_ts) == pytest.approx(ref_ll, rel=1e-12)
    assert table(st[4], counts_st) == pytest.approx(ref_st, rel=1e-12)
    assert table(ts[4], counts_ts) == pytest.approx(ref_ts, rel=1e-12)


def test_the_joint_hmm_e_step_takes_jumps_from_each_direction_and_links_from_both() -> None:
    rng = np.random.default_rng(17)
    size, max_jump, smooth, p0 = 9, 2, 0.2, (0.3, 0.15)
    src = [np.array([1, 2, 3]), np.array([4, 1])]
    tgt = [np.array([5, 6]), np.array([7, 8, 4, 2])]
    weights = np.array([2.0, 1.0])
    layouts = _two_way_layouts(src, tgt, size)
    probs = [rng.random(layout[4].size) + 0.05 for layout in layouts]
    align_weights = np.array([1.0, 0.5])
    jumps = [rng.random(2 * max_jump + 1) + 0.05 for _ in layouts]
    bounds = [_random_bounds(rng, max_jump, True, True) for _ in layouts]

    def fresh(p: np.ndarray) -> tuple[np.ndarray, ...]:
        return (
            np.zeros_like(p),
            np.zeros(2 * max_jump + 1),
            np.zeros((2, max_jump + 1)),
            np.zeros(2),
        )

    joint = [fresh(p) for p in probs]
    alone = [fresh(p) for p in probs]
    st, ts = layouts
    lls = hmm_agreement_estep(
        (st[0], st[1], st[2], st[3], ts[2], ts[3], weights, align_weights),
        (probs[0], jumps[0], bounds[0], p0[0]),
        (probs[1], jumps[1], bounds[1], p0[1]),
        (max_jump, smooth),
        tuple(joint[0]),
        tuple(joint[1]),
        np.zeros(3),
        (0.0, 0.0),
    )
    for d, layout in enumerate(layouts):
        ll = hmm_estep(
            layout[0], layout[1], layout[2], layout[3], weights, align_weights, probs[d],
            jumps[d], bounds[d], (max_jump, smooth), p0[d], alone[d][0], alone[d][1],
            alone[d][2], alone[d][3], 0.0,
        )  # fmt: skip
        assert lls[d] == pytest.approx(ll, rel=1e-12)
        np.testing.assert_allclose(joint[d][1], alone[d][1], rtol=1e-12)  # jumps
        np.testing.assert_allclose(joint[d][2], alone[d][2], rtol=1e-12)  # start and end
        np.testing.assert_allclose(joint[d][3], alone[d][3], rtol=1e-12)  # empty word
    # Lexicon counts: the product of the two directions' posteriors (checked by brute force).
    ref = [np.zeros_like(p) for p in probs]
    for k, w in enumerate(weights):
        posts = []
        for d, (cond_len, gen_len, cells, off, _) in enumerate(layouts):
            n_i, n_j = int(cond_len[k]), int(gen_len[k])
            idx = cells[off[k] : off[k + 1]].reshape(n_j, n_i + 1)
            post, post_null, _ = posteriors(
                probs[d][idx[:, :n_i]].copy(), probs[d][idx[:, n_i]].copy(), jumps[d],
                bounds[d], max_jump, smooth, p0[d],
            )  # fmt: skip
            posts.append((idx, post, post_null))
        q = posts[0][1] * posts[1][1].T
        for d, (idx, _, post_null) in enumerate(posts):
            links = q if d == 0 else q.T
            np.add.at(ref[d], idx[:, :-1], w * links)
            np.add.at(ref[d], idx[:, -1], w * post_null)
    np.testing.assert_allclose(joint[0][0], ref[0], rtol=1e-10)
    np.testing.assert_allclose(joint[1][0], ref[1], rtol=1e-10)


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
    aligner = EMAligner(EMOptions(identity_weight=0.0, model1_iterations=5, hmm_iterations=5))
    aligner.fit(corpus)
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


def test_agreement_training_recovers_a_known_word_translation_table() -> None:
    corpus, truth, correct = _synthetic_corpus(np.random.default_rng(0))
    aligner = EMAligner(EMOptions(identity_weight=0.0, training="agreement"))
    aligner.fit(corpus)
    for direction in (0, 1):
        lexicon = aligner.lexicon(direction)
        for source_word, target_word in truth.items():
            e, f = (source_word, target_word) if direction == 0 else (target_word, source_word)
            row = {g: p for (c, g), p in lexicon.items() if c == e}
            assert max(row, key=row.__getitem__) == f
    forward = aligner.lexicon(0)
    for source_word, target_word in truth.items():
        assert forward[(source_word, target_word)] == pytest.approx(correct, abs=0.08)


def test_agreement_training_logs_both_likelihoods_and_the_agreed_share() -> None:
    # Joint EM maximises no single likelihood, so neither direction's is promised to rise; what
    # holds is that the agreed share of the link mass is a fraction (q ≤ either posterior).
    corpus, _, _ = _synthetic_corpus(np.random.default_rng(2))
    aligner = EMAligner(EMOptions(identity_weight=1.0, training="agreement", hmm_iterations=4))
    aligner.fit(corpus)
    for direction in aligner.log["directions"]:
        assert len(direction["model1_log_likelihood"]) == 5
        assert len(direction["hmm_log_likelihood"]) == 4
        assert all(math.isfinite(v) and v < 0 for v in direction["hmm_log_likelihood"])
    shares = aligner.log["agreed_share"]
    assert len(shares["model1"]) == 5 and len(shares["hmm"]) == 4
    assert all(0.0 < v <= 1.0 for v in shares["model1"] + shares["hmm"])
    assert "agreed_share" not in _trained(EMAligner(EMOptions(identity_weight=1.0)), corpus).log


def _trained(aligner: EMAligner, corpus: list[tuple[list[str], list[str]]]) -> EMAligner:
    aligner.fit(corpus)
    return aligner


def test_agreement_decoding_makes_sure_the_links_whose_posterior_product_passes() -> None:
    corpus, _, _ = _synthetic_corpus(np.random.default_rng(3), pairs=200)
    for threshold in (0.3, 0.5):
        aligner = _trained(
            EMAligner(
                EMOptions(decode="agreement", agreement_threshold=threshold, training="agreement")
            ),
            corpus,
        )
        for source, target in corpus[:20]:
            post_st, post_ts, _, _ = aligner.directional(source, target)
            expected = {(int(i), int(j)) for i, j in np.argwhere(post_st * post_ts >= threshold)}
            output = aligner.align(source, target)
            assert output.sure == expected
            assert output.sure <= output.possible


def test_unknown_training_and_decoding_modes_are_refused() -> None:
    with pytest.raises(OptionsError, match=r"option 'training' .* must be one of"):
        EMAligner(EMOptions(training="joint"))
    with pytest.raises(OptionsError, match=r"option 'agreement_threshold' .* must be in"):
        EMAligner(EMOptions(agreement_threshold=0.0))


def test_an_agreement_model_keeps_its_training_mode_through_save_and_load(
    tmp_path: Path,
) -> None:
    corpus, _, _ = _synthetic_corpus(np.random.default_rng(4), pairs=60)
    aligner = _trained(EMAligner(EMOptions(training="agreement", decode="agreement")), corpus)
    loaded = Aligner.load(aligner.save(tmp_path / "agree.npz"))
    assert isinstance(loaded, EMAligner)
    assert loaded.options == aligner.options
    assert loaded.options.training == "agreement"
    assert loaded.log["agreed_share"] == aligner.log["agreed_share"]
    for source, target in corpus[:10]:
        assert loaded.align(source, target).alignment == aligner.align(source, target).alignment


def test_a_model_saved_before_the_training_option_loads_as_independent(tmp_path: Path) -> None:
    corpus, _, _ = _synthetic_corpus(np.random.default_rng(5), pairs=60)
    aligner = _trained(EMAligner(), corpus)
    path = aligner.save(tmp_path / "em.npz")
    header, arrays = read_model_file(path)
    for key in ("training", "agreement_threshold"):
        del header["options"][key]
    del header["state"]["training"]
    blob = np.frombuffer(json.dumps(header).encode("utf-8"), dtype=np.uint8)
    old = tmp_path / "old.npz"
    with old.open("wb") as handle:
        np.savez_compressed(handle, __header__=blob, **arrays)  # type: ignore[arg-type]
    loaded = Aligner.load(old)
    assert loaded.options.training == "independent"
    assert loaded.options.decode == "viterbi"
    for source, target in corpus[:10]:
        assert loaded.align(source, target).alignment == aligner.align(source, target).alignment


def test_a_model_saved_before_the_end_option_loads_without_an_end_factor(
    tmp_path: Path,
) -> None:
    corpus, _, _ = _synthetic_corpus(np.random.default_rng(6), pairs=60)
    aligner = _trained(EMAligner(EMOptions(end="none")), corpus)
    path = aligner.save(tmp_path / "em.npz")
    header, arrays = read_model_file(path)
    del header["options"]["end"]
    del arrays["bounds0"], arrays["bounds1"]
    blob = np.frombuffer(json.dumps(header).encode("utf-8"), dtype=np.uint8)
    old = tmp_path / "old.npz"
    with old.open("wb") as handle:
        np.savez_compressed(handle, __header__=blob, **arrays)  # type: ignore[arg-type]
    loaded = Aligner.load(old)
    assert isinstance(loaded, EMAligner)
    assert loaded.options.end == "none"
    for source, target in corpus[:10]:
        np.testing.assert_allclose(
            loaded.directional(source, target)[0], aligner.directional(source, target)[0]
        )
        assert loaded.align(source, target).alignment == aligner.align(source, target).alignment


def test_an_unknown_start_or_end_mode_is_refused() -> None:
    with pytest.raises(OptionsError, match=r"option 'end' .* must be one of"):
        EMAligner(EMOptions(end="uniform"))
    with pytest.raises(OptionsError, match=r"option 'start' .* must be one of"):
        EMAligner(EMOptions(start="none"))


@pytest.mark.parametrize(("start", "end"), [("jump", "jump"), ("learned", "learned")])
def test_start_and_end_counts_go_to_the_jump_table_or_to_their_own(start: str, end: str) -> None:
    max_jump = 3
    options = EMOptions(start=start, end=end, max_jump=max_jump)
    run = _DirectionRun([np.array([1, 2])], [np.array([2, 1])], 3, options)
    rng = np.random.default_rng(19)
    jump_counts = rng.random(2 * max_jump + 1)
    bound_counts = rng.random((2, max_jump + 1))
    bound_counts[:, 0] = 0.0  # distance 0 never occurs
    run.update_alignment(jump_counts, bound_counts)
    if start == "jump":
        expected = jump_counts.copy()
        expected[max_jump:] += bound_counts[0] + bound_counts[1]
        np.testing.assert_allclose(run.jump, expected / expected.sum())
        np.testing.assert_array_equal(run.bounds, np.tile(run.jump[max_jump:], (2, 1)))
    else:
        np.testing.assert_allclose(run.jump, jump_counts / jump_counts.sum())
        rows = bound_counts[:, 1:] / bound_counts[:, 1:].sum(axis=1, keepdims=True)
        np.testing.assert_allclose(run.bounds[:, 1:], rows)


def test_the_identity_pairs_do_not_train_the_alignment_model() -> None:
    # Every pair reversed: the first target word sits at the source's end, the last at its
    # start. The one-word identity pairs (start and end at distance 1) must not outweigh that.
    rng = np.random.default_rng(8)
    corpus = []
    for _ in range(60):
        words = [f"w{k}" for k in rng.choice(40, size=5, replace=False)]
        corpus.append((words, words[::-1]))
    options = {"identity_weight": 100.0, "start": "learned", "end": "learned", "max_jump": 3}
    aligner = _trained(EMAligner(EMOptions(**options)), corpus)
    for bounds in aligner.bounds:
        assert bounds[0, 1] < 0.1 and bounds[1, 1] < 0.1
        assert bounds[0, 3] > 0.9 and bounds[1, 3] > 0.9  # distance 5, clipped to max_jump 3
    source, target = corpus[0]
    assert aligner.align(source, target).sure == {(k, 4 - k) for k in range(5)}


def test_em_aligns_the_synthetic_corpus_along_the_diagonal() -> None:
    corpus, _, _ = _synthetic_corpus(np.random.default_rng(1), pairs=300)
    aligner = EMAligner(EMOptions(identity_weight=0.0))
    aligner.fit(corpus)
    hits = total = 0
    for source, target in corpus[:50]:
        output = aligner.align(source, target)
        total += len(source)
        hits += sum((k, k) in output.sure for k in range(len(source)))
    assert hits / total > 0.9


def test_the_log_likelihood_never_decreases_within_each_model() -> None:
    corpus, _, _ = _synthetic_corpus(np.random.default_rng(2))
    aligner = EMAligner(EMOptions(identity_weight=1.0, model1_iterations=8, hmm_iterations=8))
    aligner.fit(corpus)
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
    aligner.fit(pairs)
    output = aligner.align(*pairs[0])
    assert {(0, 1), (1, 2), (3, 0)} <= output.sure


def test_unknown_identical_words_are_still_linked() -> None:
    aligner = get_aligner("em")
    aligner.fit([(["a", "b", "c"], ["a", "b", "c"])] * 3)
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
    plain.fit(pairs)
    combined = get_aligner("em", lexical="first-sure")
    combined.fit(pairs)
    lexical = get_aligner("lexical").align(*pairs[0])
    output = combined.align(*pairs[0])
    assert lexical.possible <= output.possible
    assert lexical.sure <= output.sure
    assert output.warnings == lexical.warnings


def test_grow_diag_final_possible_links_are_shown_only_when_asked() -> None:
    rng = np.random.default_rng(0)
    words = [f"w{k}" for k in range(12)]
    pairs = [
        ([str(w) for w in rng.choice(words, 5)], [str(w) for w in rng.choice(words, 6)])
        for _ in range(20)
    ]
    default = get_aligner("em", identity_weight=0.0)
    default.fit(pairs)
    grown = get_aligner("em", identity_weight=0.0, possible="grow-diag-final")
    grown.fit(pairs)
    added = 0
    for pair in pairs:
        plain, full = default.align(*pair), grown.align(*pair)
        assert plain.possible == plain.sure == full.sure
        added += len(full.possible - full.sure)
    assert added > 0
    with pytest.raises(OptionsError, match=r"'possible' .* must be one of grow-diag-final, none"):
        get_aligner("em", possible="all")
