"""Monte Carlo kernels of Ĉ (Cohn, Callison-Burch & Lapata 2008, §3), numba, thread-safe
(``nogil``): for one sentence pair, the items two annotators share (non-identical links, atomic
phrase pairs), and ``J`` samples of the chance model that flips prefill cells with each
annotator's ``Pr(edit)``, accumulating the same intersections and minima. Called by
:mod:`scoring.alignment.agreement`, which seeds each pair's random stream.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from numba import njit

from scoring.alignment.phrases import count_pairs, identity_runs, span_tables, write_keys


@njit(cache=True, nogil=True)
def _side(
    mat: npt.NDArray[np.uint8],
    eq: npt.NDArray[np.uint8],
    run: npt.NDArray[np.int32],
    exclude_identical: bool,
    boundary: bool,
    max_len: int,
    lo: npt.NDArray[np.int32],
    hi: npt.NDArray[np.int32],
    elo: npt.NDArray[np.int32],
    ehi: npt.NDArray[np.int32],
    scratch: npt.NDArray[np.int64],
    words: npt.NDArray[np.int64],
    atom_keys: npt.NDArray[np.int64],
    all_keys: npt.NDArray[np.int64],
) -> tuple[int, int, int, npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """The compared items of one matrix as sorted int64 keys.

    Words: links ``i·M + j``; phrases: see :func:`scoring.alignment.phrases.write_keys`;
    identical items dropped when ``exclude_identical``. Returns
    ``(n_words, n_atomic, n_all, atom_keys, all_keys)``;
    the key buffers are reallocated only when too small.
    """
    n = mat.shape[0]
    m = mat.shape[1]
    nw = 0
    for i in range(n):
        for j in range(m):
            if mat[i, j] and not (exclude_identical and eq[i, j]):
                words[nw] = i * m + j
                nw += 1
    span_tables(mat, boundary, max_len, lo, hi, elo, ehi, scratch)
    # With the boundary rule a source span licenses at most one target span, so N(N+1)/2 keys
    # always fit; without it, count first.
    count = n * (n + 1) // 2 if boundary else count_pairs(lo, hi, elo, ehi, max_len)
    if count > all_keys.shape[0]:
        atom_keys = np.empty(2 * count, np.int64)
        all_keys = np.empty(2 * count, np.int64)
    na, nall = write_keys(lo, hi, elo, ehi, max_len, m, run, exclude_identical, atom_keys, all_keys)
    return nw, na, nall, atom_keys, all_keys


@njit(cache=True, nogil=True)
def _intersect_sorted(a: npt.NDArray[np.int64], na: int, b: npt.NDArray[np.int64], nb: int) -> int:
    x = 0
    y = 0
    common = 0
    while x < na and y < nb:
        if a[x] == b[y]:
            common += 1
            x += 1
            y += 1
        elif a[x] < b[y]:
            x += 1
        else:
            y += 1
    return common


@njit(cache=True, nogil=True)
def _flip(
    prefill: npt.NDArray[np.uint8],
    p: float,
    rng: np.random.Generator,
    work: npt.NDArray[np.uint8],
) -> None:
    """``work`` = prefill with each cell flipped independently with probability ``p``.

    Flip positions are drawn by geometric skips, so the cost is O(expected flips), not O(N·M).
    """
    n = prefill.shape[0]
    m = prefill.shape[1]
    for i in range(n):
        for j in range(m):
            work[i, j] = prefill[i, j]
    if p <= 0.0:
        return
    cells = n * m
    if p >= 1.0:
        for i in range(n):
            for j in range(m):
                work[i, j] = 1 - work[i, j]
        return
    pos = np.int64(-1)
    while True:
        pos += rng.geometric(p)
        if pos >= cells:
            break
        i = pos // m
        j = pos - i * m
        work[i, j] = 1 - work[i, j]


@njit(cache=True, nogil=True)
def pair_kernel(
    prefill: npt.NDArray[np.uint8],
    obs_a: npt.NDArray[np.uint8],
    obs_b: npt.NDArray[np.uint8],
    eq: npt.NDArray[np.uint8],
    p_a: float,
    p_b: float,
    samples: int,
    resume: bool,
    exclude_identical: bool,
    boundary: bool,
    max_len: int,
    rng: np.random.Generator,
    observed: npt.NDArray[np.int64],
    sampled: npt.NDArray[np.int64],
    ratio_sum: npt.NDArray[np.float64],
) -> None:
    """Observed and Monte Carlo statistics of one sentence pair (Cohn et al. Equations 5, 7).

    Rows follow :data:`LEVELS` (words, atomic phrase pairs, all phrase pairs).
    ``observed[level] = (|A ∩ B|, min(|A|, |B|))``; ``sampled[level] = (Σ_j |A_j ∩ B_j|,
    Σ_j min_j, number of samples with min_j > 0)``; ``ratio_sum[level] = Σ_j |A_j ∩ B_j| / min_j``
    over those samples, summed in sample order. Each sample draws A's flips, then B's, from
    ``rng``. Work arrays are allocated once per call.

    With ``resume`` the call draws ``samples`` more samples and adds them to the sums of an
    earlier call with the same ``rng`` (``observed`` is left as it is): J samples drawn in
    batches give the numbers of one call, bit for bit, and the caller can stop between batches.
    """
    n = prefill.shape[0]
    m = prefill.shape[1]
    run = identity_runs(eq)
    lo = np.empty((n, n), np.int32)
    hi = np.empty((n, n), np.int32)
    elo = np.empty((n, n), np.int32)
    ehi = np.empty((n, n), np.int32)
    scratch = np.empty(2 * n + 4 * m, np.int64)
    words_a = np.empty(n * m, np.int64)
    words_b = np.empty(n * m, np.int64)
    cap = n * (n + 1) // 2 + 1
    atom_a = np.empty(cap, np.int64)
    all_a = np.empty(cap, np.int64)
    atom_b = np.empty(cap, np.int64)
    all_b = np.empty(cap, np.int64)
    work_a = np.empty((n, m), np.uint8)
    work_b = np.empty((n, m), np.uint8)
    out = np.zeros((3, 2), np.int64)
    if not resume:
        for level in range(3):
            sampled[level, 0] = 0
            sampled[level, 1] = 0
            sampled[level, 2] = 0
            ratio_sum[level] = 0.0
    for sample in range(0 if resume else -1, samples):
        if sample < 0:
            mat_a = obs_a
            mat_b = obs_b
        else:
            _flip(prefill, p_a, rng, work_a)
            _flip(prefill, p_b, rng, work_b)
            mat_a = work_a
            mat_b = work_b
        nwa, naa, nla, atom_a, all_a = _side(
            mat_a, eq, run, exclude_identical, boundary, max_len,
            lo, hi, elo, ehi, scratch, words_a, atom_a, all_a,
        )  # fmt: skip
        nwb, nab, nlb, atom_b, all_b = _side(
            mat_b, eq, run, exclude_identical, boundary, max_len,
            lo, hi, elo, ehi, scratch, words_b, atom_b, all_b,
        )  # fmt: skip
        out[0, 0] = _intersect_sorted(words_a, nwa, words_b, nwb)
        out[0, 1] = min(nwa, nwb)
        out[1, 0] = _intersect_sorted(atom_a, naa, atom_b, nab)
        out[1, 1] = min(naa, nab)
        out[2, 0] = _intersect_sorted(all_a, nla, all_b, nlb)
        out[2, 1] = min(nla, nlb)
        if sample < 0:
            for level in range(3):
                observed[level, 0] = out[level, 0]
                observed[level, 1] = out[level, 1]
            continue
        for level in range(3):
            sampled[level, 0] += out[level, 0]
            sampled[level, 1] += out[level, 1]
            if out[level, 1] > 0:
                sampled[level, 2] += 1
                ratio_sum[level] += out[level, 0] / out[level, 1]
