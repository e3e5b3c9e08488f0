"""The numba kernels of the EM aligner (:mod:`scoring.aligners.em`): IBM Model 1 and HMM
E-steps (Brown et al. 1993; Vogel, Ney & Tillmann 1996), joint E-steps by agreement (Liang,
Taskar & Klein 2006), posteriors, and grow-diag-final symmetrisation (Koehn, Och & Marcu 2003).

The public functions are kernels for :mod:`scoring.aligners.em` and the supervised aligner:
they take the corpus laid out as contiguous arrays (pair lengths, CSR cell tables, weights)
and write counts into arrays the caller owns. Arguments of the joint HMM E-step travel as
typed tuples (see the aliases below).

The kernels release the GIL (``nogil``): the thread of the calling process that reports it
alive (a worker's job heartbeat) runs meanwhile. A signal's Python handler (a job's soft time
limit, a worker's shutdown) runs only once a kernel returns, so the E-steps take a range of
pairs, and :mod:`scoring.aligners.em` calls them chunk by chunk, a fraction of a second each;
cell tables are ``int32`` (four bytes a cell of every pair: the largest array of a training).
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt
from numba import njit

F64 = npt.NDArray[np.float64]
I64 = npt.NDArray[np.int64]
I32 = npt.NDArray[np.int32]
I8 = npt.NDArray[np.int8]
#: ``(source lengths, target lengths, cells s→t, offsets s→t, cells t→s, offsets t→s, pair
#: weights, alignment-model weights)`` of the training pairs.
AgreementPairs = tuple[I64, I64, I32, I64, I32, I64, F64, F64]
#: One direction's HMM: ``(lexicon probabilities, jump table, start/end table, p0)``.
HmmModel = tuple[F64, F64, F64, float]
#: One direction's expected counts: ``(lexicon, jumps, start/end, empty word)``.
HmmCounts = tuple[F64, F64, F64, F64]


@njit(cache=True, nogil=True)
def _max_lengths(src_len: I64, tgt_len: I64) -> tuple[int, int]:
    max_i = 1
    max_j = 1
    for k in range(src_len.shape[0]):
        max_i = max(max_i, src_len[k])
        max_j = max(max_j, tgt_len[k])
    return max_i, max_j


@njit(cache=True, nogil=True)
def _model1_pair(n_i: int, n_j: int, cells: I32, base: int, prob: F64, post: F64) -> float:
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


@njit(cache=True, nogil=True)
def _add_counts(
    n_i: int, n_j: int, cells: I32, base: int, post: F64, w: float, counts: F64
) -> None:
    """Add ``w · post[j, i]`` (``(J, I + 1)``, the empty word last) to the expected count of
    each cell of one pair."""
    for j in range(n_j):
        row = base + j * (n_i + 1)
        for i in range(n_i + 1):
            counts[cells[row + i]] += w * post[j, i]


@njit(cache=True, nogil=True)
def model1_estep(
    src_len: I64,
    tgt_len: I64,
    cells: I32,
    cell_off: I64,
    weights: F64,
    prob: F64,
    counts: F64,
    ll: float,
) -> float:
    """One Model 1 E-step over the pairs given (all, or a chunk: slices of the per-pair arrays,
    ``cells`` whole); adds expected counts to ``counts``, returns ``ll`` plus the weighted
    log-likelihood, added pair by pair (so that chunks in turn sum as one call does).
    ``cells[cell_off[k] + j·(I+1) + i]`` is the table index of ``(e_i, f_j)`` (``i = I`` is the
    empty word)."""
    max_i, max_j = _max_lengths(src_len, tgt_len)
    post = np.empty((max_j, max_i + 1))
    for k in range(src_len.shape[0]):
        n_i = src_len[k]
        n_j = tgt_len[k]
        ll += weights[k] * _model1_pair(n_i, n_j, cells, cell_off[k], prob, post)
        _add_counts(n_i, n_j, cells, cell_off[k], post, weights[k], counts)
    return ll


@njit(cache=True, nogil=True)
def transitions(
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


@njit(cache=True, nogil=True)
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


@njit(cache=True, nogil=True)
def _hmm_pair(
    n_i: int,
    n_j: int,
    cells: I32,
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
    start and end distances (:func:`transitions`) to ``bound_counts``, and ``w ·`` the expected
    number of empty-word positions and of all positions to ``null_counts[0]`` and ``[1]``.
    Returns the log-likelihood (:func:`_forward_backward`). ``work`` holds the buffers of
    :func:`_hmm_work`, at least as large as the pair."""
    trans, init, end, emit, emit_null, alpha, beta, scale = work
    q = 1.0 - p0
    transitions(n_i, jump, bounds, max_jump, smooth, trans, init, end)
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


@njit(cache=True, nogil=True)
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


@njit(cache=True, nogil=True)
def hmm_estep(
    src_len: I64,
    tgt_len: I64,
    cells: I32,
    cell_off: I64,
    weights: F64,
    align_weights: F64,
    prob: F64,
    jump: F64,
    bounds: F64,
    hmm: tuple[int, float],
    p0: float,
    counts: F64,
    jump_counts: F64,
    bound_counts: F64,
    null_counts: F64,
    ll: float,
) -> float:
    """One HMM E-step over the pairs given (all, or a chunk, as :func:`model1_estep`): expected
    lexicon counts, weighted by ``weights``, into
    ``counts``; the alignment model's, weighted by ``align_weights``: expected jump counts
    (index ``d + max_jump``) into ``jump_counts``, start and end distance counts into
    ``bound_counts`` (:func:`transitions`), the expected number of empty-word positions and
    of all positions into ``null_counts[0]`` and ``[1]``; returns ``ll`` plus the
    log-likelihood weighted by ``weights``. ``hmm`` is ``(max_jump, smooth)``
    (:func:`transitions`)."""
    max_jump, smooth = hmm
    max_i, max_j = _max_lengths(src_len, tgt_len)
    work = _hmm_work(max_i, max_j)
    post = np.empty((max_j, max_i + 1))
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


@njit(cache=True, nogil=True)
def agree(n_i: int, n_j: int, post_fwd: F64, post_bwd: F64, stats: F64) -> None:
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


@njit(cache=True, nogil=True)
def model1_agreement_estep(
    src_len: I64,
    tgt_len: I64,
    cells_st: I32,
    off_st: I64,
    cells_ts: I32,
    off_ts: I64,
    weights: F64,
    prob_st: F64,
    prob_ts: F64,
    counts_st: F64,
    counts_ts: F64,
    stats: F64,
    ll: tuple[float, float],
) -> tuple[float, float]:
    """One joint Model 1 E-step of both directions (``st`` generates the target words from the
    source words, ``ts`` the reverse; each with its own cells, as in :func:`model1_estep`) over
    the pairs given (all, or a chunk): expected counts from :func:`agree` into ``counts_st``
    and ``counts_ts``, agreement sums into ``stats``; returns ``ll`` plus the two directions'
    weighted log-likelihoods."""
    max_s, max_t = _max_lengths(src_len, tgt_len)
    post_st = np.empty((max_t, max_s + 1))
    post_ts = np.empty((max_s, max_t + 1))
    ll_st, ll_ts = ll
    for k in range(src_len.shape[0]):
        n_s = src_len[k]
        n_t = tgt_len[k]
        w = weights[k]
        ll_st += w * _model1_pair(n_s, n_t, cells_st, off_st[k], prob_st, post_st)
        ll_ts += w * _model1_pair(n_t, n_s, cells_ts, off_ts[k], prob_ts, post_ts)
        agree(n_s, n_t, post_st, post_ts, stats)
        _add_counts(n_s, n_t, cells_st, off_st[k], post_st, w, counts_st)
        _add_counts(n_t, n_s, cells_ts, off_ts[k], post_ts, w, counts_ts)
    return ll_st, ll_ts


@njit(cache=True, nogil=True)
def hmm_agreement_estep(
    pairs: AgreementPairs,
    model_st: HmmModel,
    model_ts: HmmModel,
    hmm: tuple[int, float],
    counts_st: HmmCounts,
    counts_ts: HmmCounts,
    stats: F64,
    ll: tuple[float, float],
) -> tuple[float, float]:
    """One joint HMM E-step of both directions over the pairs given (all, or a chunk): lexicon
    counts from :func:`agree`; jump and empty-word counts from each direction's own posteriors
    (as :func:`hmm_estep`); agreement sums into ``stats``; returns ``ll`` plus the two
    directions' weighted log-likelihoods."""
    src_len, tgt_len, cells_st, off_st, cells_ts, off_ts, weights, align_weights = pairs
    prob_st, jump_st, bounds_st, p0_st = model_st
    prob_ts, jump_ts, bounds_ts, p0_ts = model_ts
    max_jump, smooth = hmm
    lex_st, jump_counts_st, bound_counts_st, null_counts_st = counts_st
    lex_ts, jump_counts_ts, bound_counts_ts, null_counts_ts = counts_ts
    max_s, max_t = _max_lengths(src_len, tgt_len)
    work_st = _hmm_work(max_s, max_t)
    work_ts = _hmm_work(max_t, max_s)
    post_st = np.empty((max_t, max_s + 1))
    post_ts = np.empty((max_s, max_t + 1))
    ll_st, ll_ts = ll
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
        agree(n_s, n_t, post_st, post_ts, stats)
        _add_counts(n_s, n_t, cells_st, off_st[k], post_st, w, lex_st)
        _add_counts(n_t, n_s, cells_ts, off_ts[k], post_ts, w, lex_ts)
    return ll_st, ll_ts


@njit(cache=True, nogil=True)
def posteriors(
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
    transitions(n_i, jump, bounds, max_jump, smooth, trans, init, end)
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


@njit(cache=True, nogil=True)
def grow_diag_final(forward: I8, backward: I8) -> I8:
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


@njit(cache=True, nogil=True)
def union_sorted(a: I64, b: I64) -> I64:
    """The sorted distinct values of two sorted arrays of distinct values, merged in one pass."""
    out = np.empty(a.size + b.size, dtype=np.int64)
    i = 0
    j = 0
    n = 0
    while i < a.size and j < b.size:
        if a[i] < b[j]:
            out[n] = a[i]
            i += 1
        elif b[j] < a[i]:
            out[n] = b[j]
            j += 1
        else:
            out[n] = a[i]
            i += 1
            j += 1
        n += 1
    while i < a.size:
        out[n] = a[i]
        i += 1
        n += 1
    while j < b.size:
        out[n] = b[j]
        j += 1
        n += 1
    return out[:n].copy()


@njit(cache=True, nogil=True)
def normalize_lexicon(
    counts: F64, keys: I64, size: int, members: F64, add: float, floor: float
) -> F64:
    """M-step of the lexicon, in place: ``counts`` (one per key ``e · size + f``) become
    ``t(f | e) = (c(e, f) + add) / (c(e) + add · |{f}|)`` (add-n smoothing over the word pairs
    seen with ``e``, Moore 2004; ``members[e] = |{f}|``), at least ``floor``; returns
    ``counts``. The totals ``c(e)`` add up in key order, as ``numpy.bincount`` would."""
    totals = np.zeros(members.size)
    for k in range(counts.size):
        totals[keys[k] // size] += counts[k]
    for k in range(counts.size):
        e = keys[k] // size
        p = (counts[k] + add) / max(totals[e] + add * members[e], 1e-300)
        counts[k] = max(p, floor)
    return counts
