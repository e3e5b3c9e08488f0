"""Statistical aligner: IBM Model 1 then HMM, trained by EM in both directions.

As Cohn et al. (2008, §4) did with GIZA++: IBM Model 1 (Brown et al. 1993) and then the HMM
alignment model (Vogel, Ney & Tillmann 1996, with the empty word of Och & Ney 2003, §2.1.1),
each trained by EM on every pair of the corpus in both directions, with the word-identity
lexicon of Quirk, Brockett & Dolan (2004) added to the training data (every word type of the
corpus, paired with itself, as an extra one-word sentence pair of weight ``identity_weight``).
The two directional alignments are symmetrized: their intersection gives the sure links,
grow-diag-final (Koehn, Och & Marcu 2003) adds the rest as possible links. A link's confidence
is the mean of its two directional posterior probabilities.

Model, one direction (``e`` = the conditioning sentence of ``I`` words, ``f`` = the generated
sentence of ``J`` words; the other direction swaps them):

- Model 1: ``p(f, a | e) = Π_j t(f_j | e_{a_j}) / (I + 1)``, ``a_j ∈ {0..I−1, NULL}``.
- HMM: states are ``I`` word positions and ``I`` empty-word states that remember the last word
  position. ``p(a_j = i | a_{j−1} = i') = (1 − p0) · [(1 − λ) c(i − i') / Σ_k c(k − i') + λ / I]``
  with jump widths clipped to ``±max_jump`` and ``λ = jump_smoothing`` (GIZA++ smooths the
  same way); the empty word is entered with probability ``p0 = p_null`` and keeps ``i'``. The
  first position is uniform (``start="uniform"``), a jump from ``−1`` (``start="jump"``) or
  drawn from its own table of distances ``i + 1`` (``start="learned"``); likewise the last
  position ``a_J = i`` (word or empty word remembering ``i``) is weighted by
  ``end(i) = I · [(1 − λ) b(I − i) / Σ_k b(I − k) + λ / I]``, ``b`` the jump table (a jump
  to the virtual position ``I``, ``end="jump"``) or its own table (``end="learned"``), or not
  at all (``end="none"``). The end factor makes the model deficient (its mean over ``i`` is 1,
  so ``Σ_a p(f, a | e)`` is not 1), as GIZA++'s is. ``c`` (with the start and end distances
  when they are jumps) is re-estimated from expected jump counts (Vogel et al. §3); ``p0`` is
  fixed, or re-estimated from the expected empty-word positions with ``learn_null=True``.
- The alignment model (jumps, start, end, ``p0``) learns from the corpus pairs only, each of
  weight 1: the identity pairs are lexicon data and add lexicon counts only. A saved model
  keeps its start and end tables (``bounds``); one saved before they existed loads with
  ``end="none"`` and the start it was trained with, and aligns as before.
- Forward-backward is computed with per-position scaling (Rabiner 1989); the log-likelihood of
  an iteration is ``Σ_pairs weight · Σ_j log(scale_j)`` under the parameters entering it
  (with an end factor, that of the deficient model).
  Within Model 1 it never decreases (exact EM). The HMM's jump update is Vogel's count
  normalisation, not an exact M-step, so there the property is checked, not guaranteed (the
  tests do so on a synthetic corpus; the training log keeps every value).
- Decoding: Viterbi (``decode="viterbi"``) or per-position posterior ≥ 0.5 (``"posterior"``).

Training by agreement (``training="agreement"``; the default ``"independent"`` is the above), as
in Liang, Taskar & Klein (2006): from the first iteration of each stage (Model 1, then HMM) every
E-step computes both directions' link posteriors on a pair and gives each word-word link the
expected count ``q(i, j) = p_st(a_j = i | x) · p_ts(b_i = j | x)`` (their approximate E-step,
§3) in the lexicon updates of both directions. Following the authors' cross-EM code (its default
``mergeConsiderNull = false``), the empty-word counts of a position keep that direction's own
posterior (``1 − Σ q`` instead measured 83.3 / 76.3 at the defaults and 85.2 / 77.8 with
``learn_null``: no clear gain), and the jump and empty-word-entry counts come from each
direction's own pairwise marginals, as in their Berkeley aligner: a product of node marginals
defines no transition posterior. Joint EM maximises no single likelihood, so the log's
per-direction log-likelihoods may fall; it also keeps ``agreed_share`` per iteration,
``2 Σ q / (Σ p_st + Σ p_ts)`` over the pairs. ``decode="agreement"`` is their posterior decoding:
the sure links are those with ``q ≥ agreement_threshold`` (at alignment time, under the trained
models), the possible links grow-diag-final's from the Viterbi alignments. Training costs ×1.1
of independent training (``tests/benchmarks/bench_em.py``).

Lexicon probabilities are kept only for word pairs that co-occur in a training pair (a sparse
table, keys ``e · V + f``, optionally add-n smoothed, ``lexicon_smoothing``). At alignment time
a pair never seen in training gets the median learned identity probability if the two words are
identical and ``floor`` otherwise.

Comparison with GIZA++ (Och & Ney 2003; ``-m1 5 -mh 5``, the identity pairs given the count
weight 100 in its ``.snt`` input), intersection, literature F1 (Edinburgh++ train / RTE-2 dev
majority): GIZA++ 86.6 / 84.8. This implementation first reached 84.2 / 75.1; per direction,
the loss was in recall when the short RTE-2 hypothesis is generated from the long text (69 %
against GIZA++'s 83 %), mostly the hypothesis's final full stop left to the empty word. Two
causes, both in the alignment model, not in Model 1 or the lexicon:

1. GIZA++ multiplies only the lexicon counts by a sentence pair's count weight; its jump,
   start and end counts are unweighted, and a one-word pair adds to the start table of
   length 1 only. Here the start was a jump from −1 in the shared jump table, and every
   identity pair added its weight (100) to the jump of width +1: the table held 99.7 % at +1,
   which forbade every other jump but through the smoothing. Counting the alignment model
   from the corpus pairs only, with weight 1: 85.1 / 76.5.
2. GIZA++'s HMM learns a distribution of the first and of the last position for each
   sentence length (``UniformEntryExit = 3`` in its ``hmm.cpp``; the last, a deficient factor
   of mean 1); the model here had no end factor. Without it, the last word of a short
   sentence aligned to the end of a long one needs a long jump. With ``end="jump"`` (a jump
   to the position after the sentence, in the same jump table): 86.5 / 84.8; directional
   recall then matches GIZA++'s (RTE-2 83.1 / 87.1 against 83.1 / 86.6).

Variants, same measure: the end factor alone (identity pairs still counted) 85.7 / 83.1;
``start="learned"`` 86.5 / 85.0; ``end="learned"`` 86.4 / 84.7; both learned 86.4 / 84.8;
``start="uniform"`` 86.1 / 85.1; GIZA++'s effective ``p0 = 0.4 / 1.4`` (its ``emprobforempty``
is the weight of the empty-word transition before the row is normalised) 86.6 / 84.3; no jump
clipping (``max_jump=100``) 86.5 / 84.7; jump counts scaled per pair by ``I / (J − 1)`` as
GIZA++'s normalised ``epsilon · l`` 86.5 / 84.6. Left different from GIZA++: its jumps are
conditioned on the ``mkcls`` class of the previous word (``emAlignmentDependencies = 2``), its
start and end tables are per sentence length, its first HMM iteration is Model 1 (uniform
jumps, empty word ``1 / (I + 1)``), its ``Ahmm.5`` alignments are decoded in the fifth E-step
(the parameters of four iterations), and it drops counts below ``1e-7``. Of these only the
decoding after four iterations was tried (``hmm_iterations=4``: 86.5 / 84.7); the word-class
and per-length tables were not implemented.

Defaults (``identity_weight=100``, ``p_null=0.4``, ``start="jump"``, ``end="jump"``) were chosen
on Edinburgh++ train and RTE-2 dev (see ``tests/benchmarks/aligner_results.py``). Identity
weight 1 / 5 / 20 / 100 / 300: 84.4 / 74.4, 86.0 / 81.8, 86.2 / 83.7, 86.5 / 84.8, 86.3 / 85.3:
a heavy identity lexicon keeps identical words together where the few hundred pairs of a
corpus give EM too little evidence (GIZA++ with the identity pairs of weight 1: 84.8 / 76.7).
``p_null=0.2`` 86.5 / 83.5. Before the two fixes above (``end="none"``, identity pairs in the
jump counts), weight 5 with the uniform start gave 83.1 / 69.6, weight 300 84.3 / 75.8;
posterior decoding of the product, ``decode="agreement"``, threshold 0.5 / 0.4 / 0.3: 84.0 /
75.2, 84.3 / 75.2, 84.4 / 74.7 (figures of that earlier model).

Training by agreement, same measure, with the fixes: at the defaults 84.8 / 82.8, with
``p_null=0.05`` 84.9 / 79.4: below independent training; the default stays ``"independent"``.
Before the fixes agreement at ``p_null=0.05`` had been the best setting (85.2 / 78.9; also
``decode="agreement"`` 85.1 / 79.8 and other ``p_null`` values, all within 85.2 / 78.9), as it
filtered the links the directions disputed. With the lexical aligner first
(``lexical="first-sure"``) the defaults now give 85.7 / 84.0 (before the fixes 87.1 / 84.1).

Combination with the ``lexical`` aligner (option ``lexical``, PPDB path ``ppdb``):

- ``"merge"``: the EM links, plus lexical matches between words the EM links leave unaligned
  (sure matches as sure, the others possible); EM possible links that are sure lexical matches
  become sure.
- ``"first"``: the lexical links, plus EM links between words the lexical links leave unaligned
  (intersection as sure, grow-diag-final as possible); ``"first-sure"``: the same with the
  intersection links only.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt
from numba import njit

from scoring.aligners.base import Aligner, AlignerError, AlignerOutput, TokenPair
from scoring.aligners.lexical import STEM, LexicalAligner, greedy_one_to_one
from scoring.alignment.links import Alignment

F64 = npt.NDArray[np.float64]
I64 = npt.NDArray[np.int64]
I8 = npt.NDArray[np.int8]

NULL_ID = 0
LEXICAL_MODES = ("none", "merge", "first", "first-sure")
DECODE_MODES = ("viterbi", "posterior", "agreement")
TRAINING_MODES = ("independent", "agreement")
START_MODES = ("jump", "uniform", "learned")
END_MODES = ("none", "jump", "learned")


# --- numba kernels -----------------------------------------------------------------------------


@njit(cache=True)
def _max_lengths(src_len: I64, tgt_len: I64) -> tuple[int, int]:
    max_i = 1
    max_j = 1
    for k in range(src_len.shape[0]):
        max_i = max(max_i, src_len[k])
        max_j = max(max_j, tgt_len[k])
    return max_i, max_j


@njit(cache=True)
def _model1_pair(n_i: int, n_j: int, cells: I64, base: int, prob: F64, post: F64) -> float:
    """Model 1 posteriors of one pair: ``post[j, i] = p(a_j = i | e, f)`` (``(J, I + 1)``, the
    empty word last); returns ``log p(f | e)``. ``cells[base + j·(I+1) + i]`` is the table index
    of ``(e_i, f_j)`` (``i = I`` is the empty word)."""
    ll = 0.0
    for j in range(n_j):
        row = base + j * (n_i + 1)
        den = 0.0
        for i in range(n_i + 1):
            den += prob[cells[row + i]]
        ll += math.log(den / (n_i + 1))
        for i in range(n_i + 1):
            post[j, i] = prob[cells[row + i]] / den
    return ll


@njit(cache=True)
def _add_counts(
    n_i: int, n_j: int, cells: I64, base: int, post: F64, w: float, counts: F64
) -> None:
    """Add ``w · post[j, i]`` (``(J, I + 1)``, the empty word last) to the expected count of
    each cell of one pair."""
    for j in range(n_j):
        row = base + j * (n_i + 1)
        for i in range(n_i + 1):
            counts[cells[row + i]] += w * post[j, i]


@njit(cache=True)
def _model1_estep(
    src_len: I64,
    tgt_len: I64,
    cells: I64,
    cell_off: I64,
    weights: F64,
    prob: F64,
    counts: F64,
) -> float:
    """One Model 1 E-step over all pairs; adds expected counts to ``counts``, returns the
    weighted log-likelihood. ``cells[cell_off[k] + j·(I+1) + i]`` is the table index of
    ``(e_i, f_j)`` (``i = I`` is the empty word)."""
    max_i, max_j = _max_lengths(src_len, tgt_len)
    post = np.empty((max_j, max_i + 1))
    ll = 0.0
    for k in range(src_len.shape[0]):
        n_i = src_len[k]
        n_j = tgt_len[k]
        ll += weights[k] * _model1_pair(n_i, n_j, cells, cell_off[k], prob, post)
        _add_counts(n_i, n_j, cells, cell_off[k], post, weights[k], counts)
    return ll


@njit(cache=True)
def _transitions(
    n_i: int,
    jump: F64,
    bounds: F64,
    max_jump: int,
    smooth: float,
    trans: F64,
    init: F64,
    end: F64,
) -> None:
    """Fill ``trans[i', i] = (1 − λ) c(i − i') / Σ_k c(k − i') + λ / I`` (``(I, I)``), the
    start distribution ``init[i] = (1 − λ) b₀(i + 1) / Σ_k b₀(k + 1) + λ / I`` and the end
    factor ``end[i] = I · [(1 − λ) b₁(I − i) / Σ_k b₁(I − k) + λ / I]`` (mean 1: a constant
    ``b₁`` gives no end factor); ``λ = smooth``, ``b = bounds`` (``(2, max_jump + 1)``, indexed
    by the distance from the virtual positions −1 and ``I``, clipped to ``max_jump``)."""
    for ip in range(n_i):
        total = 0.0
        for i in range(n_i):
            d = min(max(i - ip, -max_jump), max_jump)
            v = jump[d + max_jump]
            trans[ip, i] = v
            total += v
        for i in range(n_i):
            trans[ip, i] = (1.0 - smooth) * trans[ip, i] / total + smooth / n_i
    total = 0.0
    total_end = 0.0
    for i in range(n_i):
        init[i] = bounds[0, min(i + 1, max_jump)]
        end[i] = bounds[1, min(n_i - i, max_jump)]
        total += init[i]
        total_end += end[i]
    for i in range(n_i):
        init[i] = (1.0 - smooth) * init[i] / total + smooth / n_i
        end[i] = (1.0 - smooth) * n_i * end[i] / total_end + smooth


@njit(cache=True)
def _forward_backward(
    n_i: int,
    n_j: int,
    emit: F64,
    emit_null: F64,
    trans: F64,
    init: F64,
    end: F64,
    p0: float,
    alpha: F64,
    beta: F64,
    scale: F64,
) -> float:
    """Scaled forward-backward of the HMM with empty-word states (Och & Ney 2003, §2.1.1).

    ``emit`` ``(J, I)``, ``emit_null`` ``(J,)``; fills ``alpha`` ``(J, 2I)`` (word states, then
    empty-word states remembering position ``i``), ``beta`` ``(J, I)`` (the two kinds of state
    share their future) and ``scale`` ``(J,)``; the posterior of a state is ``alpha · beta``.
    The last position's states (of either kind, remembering ``i``) are weighted by ``end[i]``;
    its scale includes that weight. Returns ``log`` of the weighted sum over alignments
    (``log p(f | e)`` when ``end`` is 1).
    """
    q = 1.0 - p0
    total = 0.0
    for i in range(n_i):
        alpha[0, i] = q * init[i] * emit[0, i]
        alpha[0, n_i + i] = p0 * init[i] * emit_null[0]
        total += alpha[0, i] + alpha[0, n_i + i]
    scale[0] = total
    for i in range(2 * n_i):
        alpha[0, i] /= total
    for j in range(1, n_j):
        total = 0.0
        for i in range(n_i):
            acc = 0.0
            for ip in range(n_i):
                acc += (alpha[j - 1, ip] + alpha[j - 1, n_i + ip]) * trans[ip, i]
            alpha[j, i] = q * emit[j, i] * acc
            alpha[j, n_i + i] = p0 * emit_null[j] * (alpha[j - 1, i] + alpha[j - 1, n_i + i])
            total += alpha[j, i] + alpha[j, n_i + i]
        scale[j] = total
        for i in range(2 * n_i):
            alpha[j, i] /= total
    last = n_j - 1
    total = 0.0
    for i in range(n_i):
        total += (alpha[last, i] + alpha[last, n_i + i]) * end[i]
    scale[last] *= total
    for i in range(n_i):
        alpha[last, i] /= total
        alpha[last, n_i + i] /= total
        beta[last, i] = end[i]
    for j in range(n_j - 1, 0, -1):
        for ip in range(n_i):
            acc = 0.0
            for i in range(n_i):
                acc += trans[ip, i] * emit[j, i] * beta[j, i]
            beta[j - 1, ip] = (q * acc + p0 * emit_null[j] * beta[j, ip]) / scale[j]
    ll = 0.0
    for j in range(n_j):
        ll += math.log(scale[j])
    return ll


@njit(cache=True)
def _hmm_pair(
    n_i: int,
    n_j: int,
    cells: I64,
    base: int,
    prob: F64,
    jump: F64,
    bounds: F64,
    max_jump: int,
    smooth: float,
    p0: float,
    w: float,
    work: tuple[F64, F64, F64, F64, F64, F64, F64, F64],
    post: F64,
    jump_counts: F64,
    bound_counts: F64,
    null_counts: F64,
) -> float:
    """Forward-backward of one pair in one direction: fills ``post`` (``(J, I + 1)``) with the
    link posteriors, the empty word last, and adds ``w ·`` the expected jump counts (index
    ``d + max_jump``, from the pairwise marginals) to ``jump_counts``, ``w ·`` those of the
    start and end distances (:func:`_transitions`) to ``bound_counts``, and ``w ·`` the expected
    number of empty-word positions and of all positions to ``null_counts[0]`` and ``[1]``.
    Returns the log-likelihood (:func:`_forward_backward`). ``work`` holds the buffers of
    :func:`_hmm_work`, at least as large as the pair."""
    trans, init, end, emit, emit_null, alpha, beta, scale = work
    q = 1.0 - p0
    _transitions(n_i, jump, bounds, max_jump, smooth, trans, init, end)
    for j in range(n_j):
        row = base + j * (n_i + 1)
        for i in range(n_i):
            emit[j, i] = prob[cells[row + i]]
        emit_null[j] = prob[cells[row + n_i]]
    ll = _forward_backward(n_i, n_j, emit, emit_null, trans, init, end, p0, alpha, beta, scale)
    for j in range(n_j):
        null_post = 0.0
        for i in range(n_i):
            post[j, i] = alpha[j, i] * beta[j, i]
            null_post += alpha[j, n_i + i] * beta[j, i]
        post[j, n_i] = null_post
    if w == 0.0:
        return ll
    for j in range(n_j):
        null_counts[0] += w * post[j, n_i]
    null_counts[1] += w * n_j
    last = n_j - 1
    for i in range(n_i):
        bound_counts[0, min(i + 1, max_jump)] += w * (post[0, i] + alpha[0, n_i + i] * beta[0, i])
        bound_counts[1, min(n_i - i, max_jump)] += w * (
            post[last, i] + alpha[last, n_i + i] * beta[last, i]
        )
    for j in range(1, n_j):
        for ip in range(n_i):
            prev = alpha[j - 1, ip] + alpha[j - 1, n_i + ip]
            if prev == 0.0:
                continue
            for i in range(n_i):
                xi = prev * q * trans[ip, i] * emit[j, i] * beta[j, i] / scale[j]
                d = min(max(i - ip, -max_jump), max_jump)
                jump_counts[d + max_jump] += w * xi
    return ll


@njit(cache=True)
def _hmm_work(max_i: int, max_j: int) -> tuple[F64, F64, F64, F64, F64, F64, F64, F64]:
    """Work buffers of :func:`_hmm_pair` for pairs of up to ``max_i`` × ``max_j`` words."""
    return (
        np.empty((max_i, max_i)),
        np.empty(max_i),
        np.empty(max_i),
        np.empty((max_j, max_i)),
        np.empty(max_j),
        np.empty((max_j, 2 * max_i)),
        np.empty((max_j, max_i)),
        np.empty(max_j),
    )


@njit(cache=True)
def _hmm_estep(
    src_len: I64,
    tgt_len: I64,
    cells: I64,
    cell_off: I64,
    weights: F64,
    align_weights: F64,
    prob: F64,
    jump: F64,
    bounds: F64,
    max_jump: int,
    smooth: float,
    p0: float,
    counts: F64,
    jump_counts: F64,
    bound_counts: F64,
    null_counts: F64,
) -> float:
    """One HMM E-step over all pairs: expected lexicon counts, weighted by ``weights``, into
    ``counts``; the alignment model's, weighted by ``align_weights``: expected jump counts
    (index ``d + max_jump``) into ``jump_counts``, start and end distance counts into
    ``bound_counts`` (:func:`_transitions`), the expected number of empty-word positions and
    of all positions into ``null_counts[0]`` and ``[1]``; returns the log-likelihood weighted
    by ``weights``."""
    max_i, max_j = _max_lengths(src_len, tgt_len)
    work = _hmm_work(max_i, max_j)
    post = np.empty((max_j, max_i + 1))
    ll = 0.0
    for k in range(src_len.shape[0]):
        n_i = src_len[k]
        n_j = tgt_len[k]
        w = weights[k]
        base = cell_off[k]
        wa = align_weights[k]
        ll += w * _hmm_pair(
            n_i,
            n_j,
            cells,
            base,
            prob,
            jump,
            bounds,
            max_jump,
            smooth,
            p0,
            wa,
            work,
            post,
            jump_counts,
            bound_counts,
            null_counts,
        )
        _add_counts(n_i, n_j, cells, base, post, w, counts)
    return ll


@njit(cache=True)
def _agree(n_i: int, n_j: int, post_fwd: F64, post_bwd: F64, stats: F64) -> None:
    """The approximate E-step of Liang, Taskar & Klein (2006, §3) for one pair, in place.

    ``post_fwd`` (``(J, I + 1)``) holds the link posteriors of the direction generating the
    ``J`` words from the ``I``, ``post_bwd`` (``(I, J + 1)``) those of the reverse, the empty
    word last in both. Each word-word link of both becomes ``q(i, j) = post_fwd[j, i] ·
    post_bwd[i, j]``; the empty-word columns keep each direction's own posterior, as in the
    authors' cross-EM code (``mergeConsiderNull = false``). Adds ``Σ q`` and the sums of the
    forward and of the backward word-word posteriors to ``stats[0..2]`` (unweighted: the
    one-word identity pairs would swamp them)."""
    for j in range(n_j):
        for i in range(n_i):
            a = post_fwd[j, i]
            b = post_bwd[i, j]
            stats[0] += a * b
            stats[1] += a
            stats[2] += b
            post_fwd[j, i] = a * b
            post_bwd[i, j] = a * b


@njit(cache=True)
def _model1_agreement_estep(
    src_len: I64,
    tgt_len: I64,
    cells_st: I64,
    off_st: I64,
    cells_ts: I64,
    off_ts: I64,
    weights: F64,
    prob_st: F64,
    prob_ts: F64,
    counts_st: F64,
    counts_ts: F64,
    stats: F64,
) -> tuple[float, float]:
    """One joint Model 1 E-step of both directions (``st`` generates the target words from the
    source words, ``ts`` the reverse; each with its own cells, as in :func:`_model1_estep`):
    expected counts from :func:`_agree` into ``counts_st`` and ``counts_ts``, agreement sums
    into ``stats``; returns the two directions' weighted log-likelihoods."""
    max_s, max_t = _max_lengths(src_len, tgt_len)
    post_st = np.empty((max_t, max_s + 1))
    post_ts = np.empty((max_s, max_t + 1))
    ll_st = 0.0
    ll_ts = 0.0
    for k in range(src_len.shape[0]):
        n_s = src_len[k]
        n_t = tgt_len[k]
        w = weights[k]
        ll_st += w * _model1_pair(n_s, n_t, cells_st, off_st[k], prob_st, post_st)
        ll_ts += w * _model1_pair(n_t, n_s, cells_ts, off_ts[k], prob_ts, post_ts)
        _agree(n_s, n_t, post_st, post_ts, stats)
        _add_counts(n_s, n_t, cells_st, off_st[k], post_st, w, counts_st)
        _add_counts(n_t, n_s, cells_ts, off_ts[k], post_ts, w, counts_ts)
    return ll_st, ll_ts


@njit(cache=True)
def _hmm_agreement_estep(
    src_len: I64,
    tgt_len: I64,
    cells_st: I64,
    off_st: I64,
    cells_ts: I64,
    off_ts: I64,
    weights: F64,
    align_weights: F64,
    prob_st: F64,
    prob_ts: F64,
    jump_st: F64,
    jump_ts: F64,
    bounds_st: F64,
    bounds_ts: F64,
    max_jump: int,
    smooth: float,
    p0_st: float,
    p0_ts: float,
    counts_st: F64,
    counts_ts: F64,
    jump_counts_st: F64,
    jump_counts_ts: F64,
    bound_counts_st: F64,
    bound_counts_ts: F64,
    null_counts_st: F64,
    null_counts_ts: F64,
    stats: F64,
) -> tuple[float, float]:
    """One joint HMM E-step of both directions: lexicon counts from :func:`_agree`; jump and
    empty-word counts from each direction's own posteriors (as :func:`_hmm_estep`); agreement
    sums into ``stats``; returns the two directions' weighted log-likelihoods."""
    max_s, max_t = _max_lengths(src_len, tgt_len)
    work_st = _hmm_work(max_s, max_t)
    work_ts = _hmm_work(max_t, max_s)
    post_st = np.empty((max_t, max_s + 1))
    post_ts = np.empty((max_s, max_t + 1))
    ll_st = 0.0
    ll_ts = 0.0
    for k in range(src_len.shape[0]):
        n_s = src_len[k]
        n_t = tgt_len[k]
        w = weights[k]
        wa = align_weights[k]
        ll_st += w * _hmm_pair(
            n_s,
            n_t,
            cells_st,
            off_st[k],
            prob_st,
            jump_st,
            bounds_st,
            max_jump,
            smooth,
            p0_st,
            wa,
            work_st,
            post_st,
            jump_counts_st,
            bound_counts_st,
            null_counts_st,
        )
        ll_ts += w * _hmm_pair(
            n_t,
            n_s,
            cells_ts,
            off_ts[k],
            prob_ts,
            jump_ts,
            bounds_ts,
            max_jump,
            smooth,
            p0_ts,
            wa,
            work_ts,
            post_ts,
            jump_counts_ts,
            bound_counts_ts,
            null_counts_ts,
        )
        _agree(n_s, n_t, post_st, post_ts, stats)
        _add_counts(n_s, n_t, cells_st, off_st[k], post_st, w, counts_st)
        _add_counts(n_t, n_s, cells_ts, off_ts[k], post_ts, w, counts_ts)
    return ll_st, ll_ts


@njit(cache=True)
def _posteriors(
    emit: F64,
    emit_null: F64,
    jump: F64,
    bounds: F64,
    max_jump: int,
    smooth: float,
    p0: float,
) -> tuple[F64, F64, F64]:
    """Posterior ``(J, I)`` of each link, ``(J,)`` of the empty word, and the Viterbi path
    ``(J,)`` (source position, or −1 for the empty word) of one pair in one direction."""
    n_j, n_i = emit.shape
    trans = np.empty((n_i, n_i))
    init = np.empty(n_i)
    end = np.empty(n_i)
    alpha = np.empty((n_j, 2 * n_i))
    beta = np.empty((n_j, n_i))
    scale = np.empty(n_j)
    _transitions(n_i, jump, bounds, max_jump, smooth, trans, init, end)
    _forward_backward(n_i, n_j, emit, emit_null, trans, init, end, p0, alpha, beta, scale)
    post = np.empty((n_j, n_i))
    post_null = np.zeros(n_j)
    for j in range(n_j):
        for i in range(n_i):
            post[j, i] = alpha[j, i] * beta[j, i]
            post_null[j] += alpha[j, n_i + i] * beta[j, i]
    # Viterbi in log space over the 2I states.
    tiny = 1e-300
    delta = np.empty((n_j, 2 * n_i))
    back = np.zeros((n_j, 2 * n_i), dtype=np.int64)
    lq = math.log(1.0 - p0)
    lp = math.log(p0)
    for i in range(n_i):
        delta[0, i] = lq + math.log(init[i] + tiny) + math.log(emit[0, i] + tiny)
        delta[0, n_i + i] = lp + math.log(init[i] + tiny) + math.log(emit_null[0] + tiny)
    for j in range(1, n_j):
        for i in range(n_i):
            best = -np.inf
            arg = 0
            for ip in range(2 * n_i):
                v = delta[j - 1, ip] + math.log(trans[ip % n_i, i] + tiny)
                if v > best:
                    best = v
                    arg = ip
            delta[j, i] = best + lq + math.log(emit[j, i] + tiny)
            back[j, i] = arg
            a = delta[j - 1, i]
            b = delta[j - 1, n_i + i]
            if a >= b:
                delta[j, n_i + i] = a + lp + math.log(emit_null[j] + tiny)
                back[j, n_i + i] = i
            else:
                delta[j, n_i + i] = b + lp + math.log(emit_null[j] + tiny)
                back[j, n_i + i] = n_i + i
    path = np.empty(n_j)
    state = 0
    best = -np.inf
    for s in range(2 * n_i):
        v = delta[n_j - 1, s] + math.log(end[s % n_i] + tiny)
        if v > best:
            best = v
            state = s
    for j in range(n_j - 1, -1, -1):
        path[j] = state if state < n_i else -1
        state = back[j, state]
    return post, post_null, path


@njit(cache=True)
def _grow_diag_final(forward: I8, backward: I8) -> I8:
    """Symmetrize two directional ``(N, M)`` link matrices (Koehn et al. 2003): returns
    2 for intersection links, 1 for links added by grow-diag-final, 0 otherwise."""
    n, m = forward.shape
    out = np.zeros((n, m), dtype=np.int8)
    src_used = np.zeros(n, dtype=np.bool_)
    tgt_used = np.zeros(m, dtype=np.bool_)
    for i in range(n):
        for j in range(m):
            if forward[i, j] and backward[i, j]:
                out[i, j] = 2
                src_used[i] = True
                tgt_used[j] = True
    # Neighbour order of Moses' grow-diag-final (it decides ties between competing links).
    di = np.array([-1, 0, 1, 0, -1, -1, 1, 1])
    dj = np.array([0, -1, 0, 1, -1, 1, -1, 1])
    changed = True
    while changed:
        changed = False
        for i in range(n):
            for j in range(m):
                if out[i, j] == 0:
                    continue
                for k in range(8):
                    a = i + di[k]
                    b = j + dj[k]
                    if a < 0 or a >= n or b < 0 or b >= m or out[a, b] != 0:
                        continue
                    if not (forward[a, b] or backward[a, b]):
                        continue
                    if not src_used[a] or not tgt_used[b]:
                        out[a, b] = 1
                        src_used[a] = True
                        tgt_used[b] = True
                        changed = True
    for pass_ in range(2):
        directional = forward if pass_ == 0 else backward
        for i in range(n):
            for j in range(m):
                if directional[i, j] and out[i, j] == 0 and (not src_used[i] or not tgt_used[j]):
                    out[i, j] = 1
                    src_used[i] = True
                    tgt_used[j] = True
    return out


# --- training data layout ----------------------------------------------------------------------


class _Direction:
    """One direction's sparse lexicon: sorted keys ``e · V + f`` and ``t(f | e)``."""

    def __init__(self, keys: I64, prob: F64) -> None:
        self.keys = keys
        self.prob = prob


def _layout(
    cond: Sequence[I64], gen: Sequence[I64], vocab_size: int
) -> tuple[I64, I64, I64, I64, I64]:
    """Cell index of every (conditioning word or empty word, generated word) of every pair.

    Returns ``(cond_len, gen_len, cells, cell_off, keys)``: ``keys`` are the distinct table keys
    (sorted) and ``cells`` index into them, pair by pair, ``(J, I + 1)`` row-major.
    """
    cond_len = np.fromiter((len(c) for c in cond), dtype=np.int64, count=len(cond))
    gen_len = np.fromiter((len(g) for g in gen), dtype=np.int64, count=len(gen))
    sizes = gen_len * (cond_len + 1)
    cell_off = np.zeros(len(cond) + 1, dtype=np.int64)
    np.cumsum(sizes, out=cell_off[1:])
    raw = np.empty(int(cell_off[-1]), dtype=np.int64)
    for k, (c, g) in enumerate(zip(cond, gen, strict=True)):
        with_null = np.append(c, NULL_ID)
        raw[cell_off[k] : cell_off[k + 1]] = (with_null[None, :] * vocab_size + g[:, None]).ravel()
    keys, cells = np.unique(raw, return_inverse=True)
    return cond_len, gen_len, cells.astype(np.int64), cell_off, keys


def _normalize(
    counts: F64, group: I64, members: F64, n_groups: int, add: float, floor: float
) -> F64:
    """M-step of the lexicon: ``t(f | e) = (c(e, f) + add) / (c(e) + add · |{f}|)`` (add-n
    smoothing over the word pairs seen with ``e``, Moore 2004), at least ``floor``."""
    totals = np.bincount(group, weights=counts, minlength=n_groups)
    prob = (counts + add) / np.maximum(totals[group] + add * members[group], 1e-300)
    return np.maximum(prob, floor)


class _DirectionRun:
    """One direction's training data layout (:func:`_layout`) and current parameters."""

    def __init__(
        self, cond: Sequence[I64], gen: Sequence[I64], size: int, options: dict[str, Any]
    ) -> None:
        self.cond_len, self.gen_len, self.cells, self.cell_off, self.keys = _layout(cond, gen, size)
        self.size = size
        self.group = self.keys // size
        # Uniform start: t(f | e) = 1 / (number of f co-occurring with e).
        self.members = np.bincount(self.group, minlength=size).astype(np.float64)
        self.prob: F64 = 1.0 / self.members[self.group]
        self.max_jump = int(options["max_jump"])
        self.start = str(options["start"])
        self.end = str(options["end"])
        self.jump: F64 = np.ones(2 * self.max_jump + 1)
        self.bounds = _boundary_tables(
            self.start, self.end, self.jump, np.ones((2, self.max_jump + 1))
        )
        self.p0 = float(options["p_null"])
        self.add = float(options["lexicon_smoothing"])
        self.floor = float(options["floor"])
        self.prune = float(options["prune"])
        self.model1_ll: list[float] = []
        self.hmm_ll: list[float] = []
        self.p0_log: list[float] = []

    def normalize(self, counts: F64) -> F64:
        return _normalize(counts, self.group, self.members, self.size, self.add, self.floor)

    def update_alignment(self, jump_counts: F64, bound_counts: F64) -> None:
        """M-step of the jump table and of the start and end tables (:func:`_boundary_tables`)
        from the expected counts of :func:`_hmm_estep`."""
        jc = jump_counts.copy()
        own = bound_counts.copy()
        for row, mode in enumerate((self.start, self.end)):
            if mode == "jump":
                jc[self.max_jump :] += bound_counts[row]
        self.jump = np.maximum(jc / jc.sum(), 1e-12)
        own[:, 0] = 0.0
        own = np.maximum(own / np.maximum(own.sum(axis=1, keepdims=True), 1e-300), 1e-12)
        self.bounds = _boundary_tables(self.start, self.end, self.jump, own)

    def table(self) -> _Direction:
        keep = (self.prob >= self.prune) | (self.group == NULL_ID)
        return _Direction(self.keys[keep].copy(), self.prob[keep].copy())


def _boundary_tables(start: str, end: str, jump: F64, learned: F64) -> F64:
    """The ``bounds`` of :func:`_transitions` (``(2, max_jump + 1)``): weights of the first
    position by its distance from −1 (row 0) and of the last by its distance from ``I`` (row
    1). ``"jump"`` takes them from the jump table (a jump of that width), ``"learned"`` from
    ``learned`` (their own tables), ``"uniform"`` (start) and ``"none"`` (end) are constant."""
    max_jump = (jump.size - 1) // 2
    out = np.ones((2, max_jump + 1))
    for row, mode in enumerate((start, end)):
        if mode == "jump":
            out[row] = jump[max_jump:]
        elif mode == "learned":
            out[row] = learned[row]
    return out


def _agreed_share(stats: F64) -> float:
    """``2 Σ q / (Σ p_st + Σ p_ts)`` over the training pairs (:func:`_agree`): the share of the
    directional word-word link mass on which the two directions agree, in ``[0, 1]``."""
    total = stats[1] + stats[2]
    return float(2.0 * stats[0] / total) if total > 0 else 0.0


class EMAligner(Aligner):
    """IBM Model 1 + HMM in both directions, symmetrized (intersection sure, GDF possible)."""

    name = "em"
    version = 1
    needs_training = True
    defaults: ClassVar[dict[str, Any]] = {
        "model1_iterations": 5,
        "hmm_iterations": 5,
        "p_null": 0.4,
        "learn_null": False,
        "max_jump": 20,
        "jump_smoothing": 0.2,
        "start": "jump",
        "end": "jump",
        "identity_weight": 100.0,
        "lowercase": True,
        "decode": "viterbi",
        "floor": 1e-7,
        "lexicon_smoothing": 0.0,
        "prune": 1e-7,
        "lexical": "none",
        "ppdb": None,
        "training": "independent",
        "agreement_threshold": 0.5,
    }
    choices: ClassVar[dict[str, tuple[str, ...]]] = {
        "decode": DECODE_MODES,
        "training": TRAINING_MODES,
        "start": START_MODES,
        "end": END_MODES,
        "lexical": LEXICAL_MODES,
    }

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        o = self.options
        if not 0.0 < o["agreement_threshold"] <= 1.0:
            raise AlignerError(
                f"option 'agreement_threshold' must be in (0, 1], got {o['agreement_threshold']}"
            )
        if not 0.0 < o["p_null"] < 1.0:
            raise AlignerError(f"option 'p_null' must be in (0, 1), got {o['p_null']}")
        for key in ("model1_iterations", "hmm_iterations"):
            if o[key] < 0:
                raise AlignerError(f"option {key!r} must be ≥ 0, got {o[key]}")
        if o["model1_iterations"] + o["hmm_iterations"] == 0:
            raise AlignerError("at least one EM iteration is needed")
        if o["max_jump"] < 1:
            raise AlignerError(f"option 'max_jump' must be ≥ 1, got {o['max_jump']}")
        if o["identity_weight"] < 0:
            raise AlignerError(f"option 'identity_weight' must be ≥ 0, got {o['identity_weight']}")
        self.vocab: dict[str, int] = {}
        self.directions: list[_Direction] = []
        self.jumps: list[F64] = []
        self.bounds: list[F64] = []
        self.identity_prob: list[float] = []
        self.p_null: list[float] = []
        self.log: dict[str, Any] = {}
        self._lexical: LexicalAligner | None = None

    # --- training -----------------------------------------------------------------------------

    def _norm(self, word: str) -> str:
        return word.lower() if self.options["lowercase"] else word

    def _train(self, pairs: Sequence[TokenPair], gold: Sequence[Alignment | None] | None) -> None:
        o = self.options
        started = time.perf_counter()
        vocab: dict[str, int] = {"<NULL>": NULL_ID}
        src_ids: list[I64] = []
        tgt_ids: list[I64] = []
        for source, target in pairs:
            src_ids.append(
                np.array([vocab.setdefault(self._norm(w), len(vocab)) for w in source], np.int64)
            )
            tgt_ids.append(
                np.array([vocab.setdefault(self._norm(w), len(vocab)) for w in target], np.int64)
            )
        weights = np.ones(len(pairs))
        # The alignment model (jumps, start, end, empty word) learns from the corpus pairs only.
        align_weights = np.ones(len(pairs))
        if o["identity_weight"] > 0:
            # Quirk et al. (2004): every word type, paired with itself, as extra training data.
            words = np.arange(1, len(vocab), dtype=np.int64)
            src_ids.extend(words[k : k + 1] for k in range(words.size))
            tgt_ids.extend(words[k : k + 1] for k in range(words.size))
            weights = np.concatenate([weights, np.full(words.size, o["identity_weight"])])
            align_weights = np.concatenate([align_weights, np.zeros(words.size)])
        size = len(vocab)
        # Direction 0 generates the target words from the source words, direction 1 the reverse.
        runs = (
            _DirectionRun(src_ids, tgt_ids, size, o),
            _DirectionRun(tgt_ids, src_ids, size, o),
        )
        st, ts = runs
        agreement = o["training"] == "agreement"
        agreement_log: dict[str, list[float]] = {"model1": [], "hmm": []}
        max_jump = int(o["max_jump"])
        smooth = float(o["jump_smoothing"])
        lls: tuple[float, ...]
        for _ in range(o["model1_iterations"]):
            counts = [np.zeros_like(run.prob) for run in runs]
            if agreement:
                stats = np.zeros(3)
                lls = _model1_agreement_estep(
                    st.cond_len,
                    st.gen_len,
                    st.cells,
                    st.cell_off,
                    ts.cells,
                    ts.cell_off,
                    weights,
                    st.prob,
                    ts.prob,
                    counts[0],
                    counts[1],
                    stats,
                )
                agreement_log["model1"].append(_agreed_share(stats))
            else:
                lls = tuple(
                    _model1_estep(
                        run.cond_len, run.gen_len, run.cells, run.cell_off, weights, run.prob, c
                    )
                    for run, c in zip(runs, counts, strict=True)
                )
            for run, c, ll in zip(runs, counts, lls, strict=True):
                run.model1_ll.append(ll)
                run.prob = run.normalize(c)
        for _ in range(o["hmm_iterations"]):
            counts = [np.zeros_like(run.prob) for run in runs]
            jump_counts = [np.zeros_like(run.jump) for run in runs]
            bound_counts = [np.zeros_like(run.bounds) for run in runs]
            null_counts = [np.zeros(2) for _ in runs]
            if agreement:
                stats = np.zeros(3)
                lls = _hmm_agreement_estep(
                    st.cond_len,
                    st.gen_len,
                    st.cells,
                    st.cell_off,
                    ts.cells,
                    ts.cell_off,
                    weights,
                    align_weights,
                    st.prob,
                    ts.prob,
                    st.jump,
                    ts.jump,
                    st.bounds,
                    ts.bounds,
                    max_jump,
                    smooth,
                    st.p0,
                    ts.p0,
                    counts[0],
                    counts[1],
                    jump_counts[0],
                    jump_counts[1],
                    bound_counts[0],
                    bound_counts[1],
                    null_counts[0],
                    null_counts[1],
                    stats,
                )
                agreement_log["hmm"].append(_agreed_share(stats))
            else:
                lls = tuple(
                    _hmm_estep(
                        run.cond_len,
                        run.gen_len,
                        run.cells,
                        run.cell_off,
                        weights,
                        align_weights,
                        run.prob,
                        run.jump,
                        run.bounds,
                        max_jump,
                        smooth,
                        run.p0,
                        c,
                        jc,
                        bc,
                        nc,
                    )
                    for run, c, jc, bc, nc in zip(
                        runs, counts, jump_counts, bound_counts, null_counts, strict=True
                    )
                )
            for run, c, jc, bc, nc, ll in zip(
                runs, counts, jump_counts, bound_counts, null_counts, lls, strict=True
            ):
                run.hmm_ll.append(ll)
                run.p0_log.append(run.p0)
                run.prob = run.normalize(c)
                run.update_alignment(jc, bc)
                if o["learn_null"]:
                    run.p0 = float(np.clip(nc[0] / nc[1], 0.01, 0.95))
        self.vocab = vocab
        self.directions = [run.table() for run in runs]
        self.jumps = [run.jump for run in runs]
        self.bounds = [run.bounds for run in runs]
        self.identity_prob = [self._median_identity(table, size) for table in self.directions]
        self.p_null = [run.p0 for run in runs]
        log: dict[str, Any] = {
            "pairs": len(pairs),
            "vocabulary": size - 1,
            "directions": [
                {
                    "model1_log_likelihood": run.model1_ll,
                    "hmm_log_likelihood": run.hmm_ll,
                    "p_null": run.p0_log,
                }
                for run in runs
            ],
        }
        if agreement:
            log["agreed_share"] = agreement_log
        log["seconds"] = time.perf_counter() - started
        self.log = log

    def lexicon(self, direction: int = 0) -> dict[tuple[str, str], float]:
        """The learned ``t(f | e)`` as ``{(e, f): probability}``; direction 0 generates target
        words from source words, 1 the reverse; the empty word is ``"<NULL>"``."""
        if direction not in (0, 1) or not self.directions:
            raise AlignerError("lexicon(direction) needs a trained model and direction 0 or 1")
        words = sorted(self.vocab, key=self.vocab.__getitem__)
        size = len(words)
        table = self.directions[direction]
        e, f = np.divmod(table.keys, size)
        return {
            (words[a], words[b]): float(p)
            for a, b, p in zip(e.tolist(), f.tolist(), table.prob.tolist(), strict=True)
        }

    @staticmethod
    def _median_identity(table: _Direction, size: int) -> float:
        e, f = np.divmod(table.keys, size)
        same = (e == f) & (e != NULL_ID)
        return float(np.median(table.prob[same])) if same.any() else 0.5

    # --- alignment ----------------------------------------------------------------------------

    def _lookup(self, direction: int, cond: I64, gen: I64) -> tuple[F64, F64]:
        """Emission matrix ``(J, I)`` and empty-word column ``(J,)`` for one direction."""
        size = len(self.vocab)
        table = self.directions[direction]
        with_null = np.append(cond, NULL_ID)
        keys = with_null[None, :] * size + gen[:, None]
        pos = np.searchsorted(table.keys, keys)
        pos = np.minimum(pos, table.keys.size - 1)
        known = (with_null[None, :] >= 0) & (gen[:, None] >= 0)
        found = known & (table.keys[pos] == keys)
        values = np.where(found, table.prob[pos], self.options["floor"])
        unseen_same = ~found & (with_null[None, :] == gen[:, None])
        values = np.where(unseen_same, self.identity_prob[direction], values)
        return np.ascontiguousarray(values[:, :-1]), np.ascontiguousarray(values[:, -1])

    def _ids(self, words: list[str], unknown_start: dict[str, int]) -> I64:
        out = np.empty(len(words), dtype=np.int64)
        for k, w in enumerate(words):
            key = self._norm(w)
            idx = self.vocab.get(key)
            if idx is None:
                # Unknown words get negative ids, equal for equal words, so identity still holds.
                idx = unknown_start.setdefault(key, -1 - len(unknown_start))
            out[k] = idx
        return out

    def directional(self, source: list[str], target: list[str]) -> tuple[F64, F64, I8, I8]:
        """Posteriors and decoded links of both directions for one pair.

        Returns ``post_st`` ``(N, M)`` (target word generated from source word), ``post_ts``
        ``(N, M)`` (the reverse direction, transposed) and the two directional link matrices.
        """
        unknown: dict[str, int] = {}
        s = self._ids(source, unknown)
        t = self._ids(target, unknown)
        n, m = len(s), len(t)
        posts: list[F64] = []
        links: list[I8] = []
        for direction, (cond, gen) in enumerate(((s, t), (t, s))):
            emit, emit_null = self._lookup(direction, cond, gen)
            post, post_null, path = _posteriors(
                emit,
                emit_null,
                self.jumps[direction],
                self.bounds[direction],
                int(self.options["max_jump"]),
                float(self.options["jump_smoothing"]),
                self.p_null[direction],
            )
            mat = np.zeros((gen.size, cond.size), dtype=np.int8)
            if self.options["decode"] != "posterior":
                for j, i in enumerate(path.astype(np.int64)):
                    if i >= 0:
                        mat[j, i] = 1
            else:
                best = post.argmax(axis=1)
                for j, i in enumerate(best):
                    if post[j, i] > post_null[j] and post[j, i] >= 0.5:
                        mat[j, i] = 1
            if direction == 0:
                posts.append(post.T)
                links.append(np.ascontiguousarray(mat.T))
            else:
                posts.append(post)
                links.append(mat)
        assert posts[0].shape == (n, m)
        return posts[0], posts[1], links[0], links[1]

    def _align(self, source: list[str], target: list[str]) -> AlignerOutput:
        post_st, post_ts, fwd, bwd = self.directional(source, target)
        codes = _grow_diag_final(fwd, bwd)
        if self.options["decode"] == "agreement":
            # Liang et al. (2006): sure = links whose product of posteriors reaches the threshold.
            codes[codes == 2] = 1
            codes[post_st * post_ts >= self.options["agreement_threshold"]] = 2
        warnings: tuple[str, ...] = ()
        if self.options["lexical"] == "merge":
            lexical = self._lexical_aligner()
            classes = lexical.match_classes(source, target)
            codes = _merge_lexical(codes, classes)
            warnings = lexical.rules.warnings
        elif self.options["lexical"] in ("first", "first-sure"):
            lexical = self._lexical_aligner()
            classes = lexical.match_classes(source, target)
            codes = _lexical_first(codes, classes, self.options["lexical"] == "first")
            warnings = lexical.rules.warnings
        confidence_matrix = np.clip((post_st + post_ts) / 2.0, 0.0, 1.0)
        sure = [(int(i), int(j)) for i, j in np.argwhere(codes == 2)]
        possible = [(int(i), int(j)) for i, j in np.argwhere(codes == 1)]
        confidence = {link: float(confidence_matrix[link]) for link in sure + possible}
        return AlignerOutput(
            alignment=Alignment.from_links(len(source), len(target), sure, possible),
            confidence=confidence,
            warnings=warnings,
        )

    def _lexical_aligner(self) -> LexicalAligner:
        if self._lexical is None:
            self._lexical = LexicalAligner(ppdb=self.options["ppdb"])
        return self._lexical

    # --- persistence --------------------------------------------------------------------------

    def _state(self) -> tuple[dict[str, Any], dict[str, npt.NDArray[Any]]]:
        words = sorted(self.vocab, key=self.vocab.__getitem__)
        state = {
            "vocabulary": words,
            "identity_prob": self.identity_prob,
            "p_null": self.p_null,
            "training": self.options["training"],
            "log": self.log,
        }
        arrays: dict[str, npt.NDArray[Any]] = {}
        for k, (table, jump, bounds) in enumerate(
            zip(self.directions, self.jumps, self.bounds, strict=True)
        ):
            arrays[f"keys{k}"] = table.keys
            arrays[f"prob{k}"] = table.prob
            arrays[f"jump{k}"] = jump
            arrays[f"bounds{k}"] = bounds
        return state, arrays

    def _restore(self, state: dict[str, Any], arrays: dict[str, npt.NDArray[Any]]) -> None:
        try:
            words = state["vocabulary"]
            self.vocab = {w: k for k, w in enumerate(words)}
            self.identity_prob = [float(v) for v in state["identity_prob"]]
            self.p_null = [float(v) for v in state["p_null"]]
            self.log = dict(state.get("log", {}))
            # Models saved before the option existed were trained independently.
            self.options["training"] = str(state.get("training", "independent"))
            self.directions = [
                _Direction(
                    np.ascontiguousarray(arrays[f"keys{k}"], dtype=np.int64),
                    np.ascontiguousarray(arrays[f"prob{k}"], dtype=np.float64),
                )
                for k in range(2)
            ]
            self.jumps = [
                np.ascontiguousarray(arrays[f"jump{k}"], dtype=np.float64) for k in range(2)
            ]
            if "bounds0" in arrays:
                self.bounds = [
                    np.ascontiguousarray(arrays[f"bounds{k}"], dtype=np.float64) for k in range(2)
                ]
            else:
                # Models saved before the start and end tables: the start from the jump table
                # or uniform, no end factor.
                self.options["end"] = "none"
                self.bounds = [
                    _boundary_tables(self.options["start"], "none", jump, np.ones((2, 1)))
                    for jump in self.jumps
                ]
        except KeyError as error:
            raise AlignerError(f"saved 'em' model lacks field {error}") from error
        size = int(self.options["max_jump"])
        if (
            len(self.vocab) != len(words)
            or any(j.size != 2 * size + 1 for j in self.jumps)
            or any(b.shape != (2, size + 1) for b in self.bounds)
        ):
            raise AlignerError("saved 'em' model is inconsistent (vocabulary or jump table size)")


def _lexical_first(codes: I8, classes: npt.NDArray[np.int8], em_possible: bool) -> I8:
    """The lexical aligner's links, then EM links between words it left unaligned: the
    intersection's as sure, grow-diag-final's as possible if ``em_possible``."""
    out = np.zeros_like(codes)
    for i, j, cls in greedy_one_to_one(classes):
        out[i, j] = 2 if cls >= STEM else 1
    src_free = np.logical_not((out > 0).any(axis=1))
    tgt_free = np.logical_not((out > 0).any(axis=0))
    for i, j in np.argwhere(codes > 0).tolist():
        if src_free[i] and tgt_free[j] and (codes[i, j] == 2 or em_possible):
            out[i, j] = codes[i, j]
    # Links added above may share a word with each other (GDF blocks); that is intended.
    return out


def _merge_lexical(codes: I8, classes: npt.NDArray[np.int8]) -> I8:
    """Add lexical matches between words the EM links leave unaligned (see module docstring)."""
    out = codes.copy()
    free = classes.copy()
    free[(codes > 0).any(axis=1), :] = 0
    free[:, (codes > 0).any(axis=0)] = 0
    for i, j, cls in greedy_one_to_one(free):
        out[i, j] = 2 if cls >= STEM else 1
    # An EM possible link that is also a sure lexical match becomes sure.
    out[(out == 1) & (classes >= STEM)] = 2
    return out
