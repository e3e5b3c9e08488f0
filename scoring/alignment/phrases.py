"""Phrase-pair extraction with atomic/composite labels (Cohn et al. 2008, §3).

A *phrase pair* is a source span ``[i1, i2]`` and a target span ``[j1, j2]`` (0-based, inclusive)
that is **consistent** with a word alignment (Och, Tillmann & Ney 1999): at least one link lies
inside the block, and no link joins a word inside either span to a word outside the other span.

Cohn et al. (2008, §3) add a conservative rule, on by default here: **no unaligned word on any of
the four span boundaries** (unaligned words inside a span are allowed). With the rule switched off
the extraction is the standard SMT heuristic (Moses ``extract``): target spans may be extended over
unaligned words at their edges and source spans may start or end with unaligned words.

A pair is **composite** when it can be built from two smaller *extracted* pairs whose source spans
split its source span in two and whose target spans split its target span in two, in the same or in
swapped order; the other pairs are **atomic** (the paper's ``A_atom``). "Extracted" honours the same
boundary rule and maximum length, so ``reached an ↔ arrived at a`` is atomic when ``at`` is
unaligned and the rule is on (the paper's Table 2).

The numba kernels work on one ``(N, M)`` boolean matrix. :func:`extract_phrase_pairs` is the
public entry point for one alignment, :func:`extract_phrase_pairs_batch` for a corpus (one call
of the kernel for many alignments, which saves the fixed cost of a call per sentence pair). Run
them on the sure matrix for the paper's "Sure" columns and on ``P`` for "Poss".
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import chain

import numpy as np
import numpy.typing as npt
from numba import njit

from scoring.alignment.links import Alignment
from scoring.errors import AlignmentError, InputError

SpanArray = npt.NDArray[np.int32]
BoolArray = npt.NDArray[np.bool_]
MatrixArray = npt.NDArray[np.uint8] | BoolArray
"""A 0/1 alignment matrix as the kernels read it: uint8 or boolean."""


@dataclass(frozen=True, slots=True)
class PhrasePairs:
    """Phrase pairs of one alignment matrix.

    ``spans`` is an int32 ``(K, 4)`` array of ``(i1, i2, j1, j2)``, inclusive 0-based token
    indices, sorted lexicographically; ``atomic`` a boolean ``(K,)`` mask.
    """

    spans: SpanArray
    atomic: BoolArray

    def __len__(self) -> int:
        return int(self.spans.shape[0])

    def as_set(self, *, atomic_only: bool = False) -> set[tuple[int, int, int, int]]:
        rows = self.spans[self.atomic] if atomic_only else self.spans
        return {(int(a), int(b), int(c), int(d)) for a, b, c, d in rows}

    def keys(self, n_source: int, n_target: int) -> npt.NDArray[np.int64]:
        """One int64 per pair, ``((i1·N + i2)·M + j1)·M + j2``: sorted, since spans are."""
        s = self.spans.astype(np.int64)
        return ((s[:, 0] * n_source + s[:, 1]) * n_target + s[:, 2]) * n_target + s[:, 3]


@dataclass(frozen=True, slots=True)
class PhrasePairsBatch:
    """Phrase pairs of many alignment matrices, stored flat.

    ``spans`` and ``atomic`` are as in :class:`PhrasePairs`, matrix after matrix; the pairs of
    matrix ``b`` are rows ``offsets[b]:offsets[b + 1]`` (int64 ``(B + 1,)``). ``len()`` is the
    number of matrices and ``batch[b]`` their :class:`PhrasePairs` (views, no copy).
    """

    spans: SpanArray
    atomic: BoolArray
    offsets: npt.NDArray[np.int64]

    def __len__(self) -> int:
        return int(self.offsets.shape[0]) - 1

    def __getitem__(self, index: int) -> PhrasePairs:
        if not -len(self) <= index < len(self):
            raise IndexError(f"batch index {index} out of range for {len(self)} alignments")
        index %= len(self)
        start, stop = int(self.offsets[index]), int(self.offsets[index + 1])
        return PhrasePairs(self.spans[start:stop], self.atomic[start:stop])

    def __iter__(self) -> Iterator[PhrasePairs]:
        return (self[index] for index in range(len(self)))

    def counts(self) -> npt.NDArray[np.int64]:
        """Number of phrase pairs of each matrix, ``(B,)``."""
        return np.diff(self.offsets)


# --- kernels -----------------------------------------------------------------------------------


@njit(cache=True)
def span_tables(
    mat: MatrixArray,
    boundary: bool,
    max_len: int,
    lo: npt.NDArray[np.int32],
    hi: npt.NDArray[np.int32],
    elo: npt.NDArray[np.int32],
    ehi: npt.NDArray[np.int32],
    scratch: npt.NDArray[np.int64],
) -> None:
    """Fill the ``(N, N)`` tables describing which target spans each source span licenses.

    For an extractable source span ``[i1, i2]``: ``lo/hi`` is the projection of its links (the
    tightest consistent target span), ``elo/ehi`` how far the target span may be stretched over
    unaligned target words (equal to ``lo/hi`` when the boundary rule is on). ``lo = -1`` marks a
    source span that licenses nothing. ``max_len`` (0 = none) bounds both span lengths; the
    target-length bound on stretched spans is applied by the callers. ``scratch`` is an int64
    work array of at least ``2·N + 4·M`` entries (reused across calls to avoid allocations).
    O(N² + N·M).
    """
    n = mat.shape[0]
    m = mat.shape[1]
    colmin = scratch[0:n]
    colmax = scratch[n : 2 * n]
    rowmin = scratch[2 * n : 2 * n + m]
    rowmax = scratch[2 * n + m : 2 * n + 2 * m]
    down = scratch[2 * n + 2 * m : 2 * n + 3 * m]
    up = scratch[2 * n + 3 * m : 2 * n + 4 * m]
    colmin[:] = m
    colmax[:] = -1
    rowmin[:] = n
    rowmax[:] = -1
    for i in range(n):
        for j in range(m):
            if mat[i, j]:
                if j < colmin[i]:
                    colmin[i] = j
                if j > colmax[i]:
                    colmax[i] = j
                if i < rowmin[j]:
                    rowmin[j] = i
                if i > rowmax[j]:
                    rowmax[j] = i
    # How far each target position can be stretched over unaligned neighbours.
    for j in range(m):
        down[j] = j
        if j > 0 and rowmax[j - 1] < 0:
            down[j] = down[j - 1]
    for j in range(m - 1, -1, -1):
        up[j] = j
        if j < m - 1 and rowmax[j + 1] < 0:
            up[j] = up[j + 1]
    # Readers look at ``lo`` first; the other tables are only meaningful where ``lo >= 0``.
    for i1 in range(n):
        for i2 in range(n):
            lo[i1, i2] = -1
    for i1 in range(n):
        if boundary and colmax[i1] < 0:
            continue
        jmin = m
        jmax = -1
        minrow = n
        maxrow = -1
        for i2 in range(i1, n):
            if max_len > 0 and i2 - i1 + 1 > max_len:
                break
            if colmax[i2] >= 0:
                new_min = min(jmin, colmin[i2])
                new_max = max(jmax, colmax[i2])
                if jmax < 0:
                    for j in range(new_min, new_max + 1):
                        minrow = min(minrow, rowmin[j])
                        maxrow = max(maxrow, rowmax[j])
                else:
                    for j in range(new_min, jmin):
                        minrow = min(minrow, rowmin[j])
                        maxrow = max(maxrow, rowmax[j])
                    for j in range(jmax + 1, new_max + 1):
                        minrow = min(minrow, rowmin[j])
                        maxrow = max(maxrow, rowmax[j])
                jmin = new_min
                jmax = new_max
            if jmax < 0:
                continue
            # The target range only grows with i2, so a link leaving above never comes back.
            if minrow < i1:
                break
            if max_len > 0 and jmax - jmin + 1 > max_len:
                break
            if maxrow > i2:
                continue
            if boundary and colmax[i2] < 0:
                continue
            lo[i1, i2] = jmin
            hi[i1, i2] = jmax
            if boundary:
                elo[i1, i2] = jmin
                ehi[i1, i2] = jmax
            else:
                elo[i1, i2] = down[jmin]
                ehi[i1, i2] = up[jmax]


@njit(cache=True)
def _is_atomic(
    lo: npt.NDArray[np.int32],
    hi: npt.NDArray[np.int32],
    elo: npt.NDArray[np.int32],
    ehi: npt.NDArray[np.int32],
    max_len: int,
    i1: int,
    i2: int,
    j1: int,
    j2: int,
) -> bool:
    """True unless ``(i1, i2, j1, j2)`` splits into two extracted pairs (straight or swapped).

    For each source split point the feasible target split points form an interval, so the test
    is O(i2 − i1).
    """
    cap = max_len if max_len > 0 else 1 << 30
    for s in range(i1, i2):
        la = lo[i1, s]
        if la < 0:
            continue
        ra = lo[s + 1, i2]
        if ra < 0:
            continue
        # Straight: left source part takes [j1, t], right part [t + 1, j2].
        if elo[i1, s] <= j1 <= la and hi[s + 1, i2] <= j2 <= ehi[s + 1, i2]:
            t_lo = max(hi[i1, s], elo[s + 1, i2] - 1, j2 - cap)
            t_hi = min(ehi[i1, s], ra - 1, j1 + cap - 1)
            if t_lo <= t_hi:
                return False
        # Swapped: right source part takes [j1, t], left part [t + 1, j2].
        if elo[s + 1, i2] <= j1 <= ra and hi[i1, s] <= j2 <= ehi[i1, s]:
            t_lo = max(hi[s + 1, i2], elo[i1, s] - 1, j2 - cap)
            t_hi = min(ehi[s + 1, i2], la - 1, j1 + cap - 1)
            if t_lo <= t_hi:
                return False
    return True


@njit(cache=True)
def count_pairs(
    lo: npt.NDArray[np.int32],
    hi: npt.NDArray[np.int32],
    elo: npt.NDArray[np.int32],
    ehi: npt.NDArray[np.int32],
    max_len: int,
) -> int:
    n = lo.shape[0]
    total = 0
    for i1 in range(n):
        for i2 in range(i1, n):
            if lo[i1, i2] < 0:
                continue
            for j1 in range(elo[i1, i2], lo[i1, i2] + 1):
                for j2 in range(hi[i1, i2], ehi[i1, i2] + 1):
                    if max_len > 0 and j2 - j1 + 1 > max_len:
                        break
                    total += 1
    return total


@njit(cache=True)
def _fill_pairs(
    lo: npt.NDArray[np.int32],
    hi: npt.NDArray[np.int32],
    elo: npt.NDArray[np.int32],
    ehi: npt.NDArray[np.int32],
    max_len: int,
    spans: npt.NDArray[np.int32],
    atomic: npt.NDArray[np.bool_],
    k: int,
) -> int:
    """Write pairs from row ``k`` on in lexicographic ``(i1, i2, j1, j2)`` order; return the row
    after the last one written, or -1 if the buffers ran out (the caller grows them and calls
    again with the same ``k``)."""
    n = lo.shape[0]
    capacity = spans.shape[0]
    for i1 in range(n):
        for i2 in range(i1, n):
            first = lo[i1, i2]
            if first < 0:
                continue
            last = hi[i1, i2]
            stretch = ehi[i1, i2]
            for j1 in range(elo[i1, i2], first + 1):
                for j2 in range(last, stretch + 1):
                    if max_len > 0 and j2 - j1 + 1 > max_len:
                        break
                    if k == capacity:
                        return -1
                    spans[k, 0] = i1
                    spans[k, 1] = i2
                    spans[k, 2] = j1
                    spans[k, 3] = j2
                    # A one-word source span has no split point.
                    atomic[k] = i1 == i2 or _is_atomic(lo, hi, elo, ehi, max_len, i1, i2, j1, j2)
                    k += 1
    return k


@njit(cache=True)
def _grown(
    spans: npt.NDArray[np.int32], atomic: npt.NDArray[np.bool_], keep: int
) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.bool_]]:
    """Buffers of twice the capacity holding the first ``keep`` rows of ``spans``/``atomic``."""
    capacity = 2 * spans.shape[0]
    new_spans = np.empty((capacity, 4), np.int32)
    new_spans[:keep] = spans[:keep]
    new_atomic = np.empty(capacity, np.bool_)
    new_atomic[:keep] = atomic[:keep]
    return new_spans, new_atomic


@njit(cache=True)
def write_keys(
    lo: npt.NDArray[np.int32],
    hi: npt.NDArray[np.int32],
    elo: npt.NDArray[np.int32],
    ehi: npt.NDArray[np.int32],
    max_len: int,
    m: int,
    run: npt.NDArray[np.int32],
    exclude_identical: bool,
    atom_keys: npt.NDArray[np.int64],
    all_keys: npt.NDArray[np.int64],
) -> tuple[int, int]:
    """Write sorted int64 keys ``((i1·N + i2)·M + j1)·M + j2`` of all and of the atomic pairs.

    The Monte Carlo loop's allocation-free variant of :func:`_fill_pairs`; identical pairs (per
    ``run``, see :func:`identity_runs`) are skipped when ``exclude_identical``. The buffers must
    hold :func:`count_pairs` entries. Returns ``(n_atomic, n_all)``.
    """
    n = lo.shape[0]
    na = 0
    nall = 0
    for i1 in range(n):
        for i2 in range(i1, n):
            if lo[i1, i2] < 0:
                continue
            for j1 in range(elo[i1, i2], lo[i1, i2] + 1):
                for j2 in range(hi[i1, i2], ehi[i1, i2] + 1):
                    if max_len > 0 and j2 - j1 + 1 > max_len:
                        break
                    if exclude_identical:
                        length = i2 - i1 + 1
                        if j2 - j1 + 1 == length and run[i1, j1] >= length:
                            continue
                    key = ((np.int64(i1) * n + i2) * m + j1) * m + j2
                    all_keys[nall] = key
                    nall += 1
                    if _is_atomic(lo, hi, elo, ehi, max_len, i1, i2, j1, j2):
                        atom_keys[na] = key
                        na += 1
    return na, nall


@njit(cache=True)
def _extract(
    mat: MatrixArray, boundary: bool, max_len: int
) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.bool_]]:
    n = mat.shape[0]
    tables = np.empty((4, n, n), np.int32)  # one allocation: short sentences are common
    lo = tables[0]
    hi = tables[1]
    elo = tables[2]
    ehi = tables[3]
    scratch = np.empty(2 * n + 4 * mat.shape[1], np.int64)
    span_tables(mat, boundary, max_len, lo, hi, elo, ehi, scratch)
    count = count_pairs(lo, hi, elo, ehi, max_len)
    spans = np.empty((count, 4), np.int32)
    atomic = np.empty(count, np.bool_)
    _fill_pairs(lo, hi, elo, ehi, max_len, spans, atomic, 0)
    return spans, atomic


@njit(cache=True)
def _extract_batch(
    flat: MatrixArray,
    shapes: npt.NDArray[np.int64],
    boundary: bool,
    max_len: int,
) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.bool_], npt.NDArray[np.int64]]:
    """:func:`_extract` over many matrices stored row-major one after another in ``flat``
    (``shapes[b] = (N_b, M_b)``); the pairs of matrix ``b`` are rows ``offsets[b]:offsets[b + 1]``.
    One set of work tables serves every matrix."""
    count = shapes.shape[0]
    offsets = np.zeros(count + 1, np.int64)
    max_n = 0
    max_m = 0
    words = 0
    for b in range(count):
        max_n = max(max_n, shapes[b, 0])
        max_m = max(max_m, shapes[b, 1])
        words += shapes[b, 0]
    work = np.empty(4 * max_n * max_n, np.int32)
    scratch = np.empty(2 * max_n + 4 * max_m, np.int64)
    # About three pairs per source word is typical; the buffers double when that is too few.
    spans = np.empty((max(16, 3 * words), 4), np.int32)
    atomic = np.empty(spans.shape[0], np.bool_)
    start = 0
    k = 0
    for b in range(count):
        n = shapes[b, 0]
        m = shapes[b, 1]
        mat = flat[start : start + n * m].reshape((n, m))
        start += n * m
        tables = work[: 4 * n * n].reshape((4, n, n))
        lo = tables[0]
        hi = tables[1]
        elo = tables[2]
        ehi = tables[3]
        span_tables(mat, boundary, max_len, lo, hi, elo, ehi, scratch)
        end = _fill_pairs(lo, hi, elo, ehi, max_len, spans, atomic, k)
        while end < 0:
            spans, atomic = _grown(spans, atomic, k)
            end = _fill_pairs(lo, hi, elo, ehi, max_len, spans, atomic, k)
        k = end
        offsets[b + 1] = k
    return spans[:k].copy(), atomic[:k].copy(), offsets


@njit(cache=True)
def identity_runs(eq: npt.NDArray[np.uint8]) -> npt.NDArray[np.int32]:
    """``run[i, j]``: how many tokens from ``(i, j)`` on match along the diagonal."""
    n = eq.shape[0]
    m = eq.shape[1]
    run = np.zeros((n + 1, m + 1), np.int32)
    for i in range(n - 1, -1, -1):
        for j in range(m - 1, -1, -1):
            if eq[i, j]:
                run[i, j] = run[i + 1, j + 1] + 1
    return run


@njit(cache=True)
def _identical_mask(spans: npt.NDArray[np.int32], run: npt.NDArray[np.int32]) -> BoolArray:
    out = np.zeros(spans.shape[0], np.bool_)
    for k in range(spans.shape[0]):
        length = spans[k, 1] - spans[k, 0] + 1
        if spans[k, 3] - spans[k, 2] + 1 == length and run[spans[k, 0], spans[k, 2]] >= length:
            out[k] = True
    return out


# --- public API --------------------------------------------------------------------------------


_BOOL = np.dtype(np.bool_)


def _as_matrix(matrix: npt.ArrayLike | Alignment, *, use: str) -> MatrixArray:
    """The 2-D 0/1 matrix the kernels read: a boolean array as it is (the common case, without a
    copy or a look at its values), anything else checked and converted to contiguous uint8."""
    if type(matrix) is np.ndarray and matrix.dtype is _BOOL and matrix.ndim == 2:
        return matrix
    if isinstance(matrix, Alignment):
        if use == "sure":
            arr = matrix.sure_matrix()
        elif use == "possible":
            arr = matrix.possible_matrix()
        else:
            raise InputError(f"use must be 'sure' or 'possible', got {use!r}")
    else:
        arr = np.asarray(matrix)
    if arr.ndim != 2:
        raise InputError(f"alignment matrix must be 2-D, got shape {arr.shape}")
    if arr.dtype != np.bool_ and not np.isin(arr, (0, 1)).all():
        raise InputError("alignment matrix must be boolean (0/1 values)")
    return np.ascontiguousarray(arr, dtype=np.uint8)


def _max_len(max_length: int | None) -> int:
    if max_length is None:
        return 0
    if isinstance(max_length, bool) or not isinstance(max_length, (int, np.integer)):
        raise InputError(f"max_length must be an integer or None, got {max_length!r}")
    if max_length < 1:
        raise InputError(f"max_length must be at least 1, got {max_length}")
    return int(max_length)


def extract_phrase_pairs(
    alignment: npt.ArrayLike | Alignment,
    *,
    use: str = "possible",
    boundary_rule: bool = True,
    max_length: int | None = None,
) -> PhrasePairs:
    """All phrase pairs consistent with one alignment, each labelled atomic or composite.

    ``alignment`` is a boolean ``(N, M)`` matrix (source × target) or an :class:`Alignment`, in
    which case ``use`` picks its sure matrix (``"sure"``) or ``P`` (``"possible"``, the default).
    ``boundary_rule`` is Cohn et al.'s "no unaligned word on a span boundary" (on by default);
    ``max_length`` bounds the length of both spans in tokens (``None``: no bound; Moses uses 7).

    Returns :class:`PhrasePairs`: int32 ``(K, 4)`` spans ``(i1, i2, j1, j2)`` (inclusive) in
    lexicographic order and a boolean ``(K,)`` atomic mask. Cost is O(N²·M) at worst.
    """
    mat = _as_matrix(alignment, use=use)
    spans, atomic = _extract(mat, bool(boundary_rule), _max_len(max_length))
    return PhrasePairs(spans, atomic)


def extract_phrase_pairs_batch(
    alignments: Iterable[npt.ArrayLike | Alignment],
    *,
    use: str = "possible",
    boundary_rule: bool = True,
    max_length: int | None = None,
) -> PhrasePairsBatch:
    """:func:`extract_phrase_pairs` over many alignments in one call of the kernel.

    The way to extract from a corpus: the per-call cost of crossing into the kernel and of
    building two arrays is paid once for the batch instead of once per sentence pair. The
    arguments mean what they mean for :func:`extract_phrase_pairs`, and ``batch[b]`` equals
    ``extract_phrase_pairs(alignments[b], ...)``.
    """
    max_len = _max_len(max_length)
    matrices = [_as_matrix(alignment, use=use) for alignment in alignments]
    shapes = np.fromiter(
        chain.from_iterable([matrix.shape for matrix in matrices]), np.int64, 2 * len(matrices)
    ).reshape(-1, 2)
    # Boolean when every matrix is (the kernel reads either dtype the same way).
    flat = (
        np.concatenate([matrix.ravel() for matrix in matrices])
        if matrices
        else np.empty(0, np.uint8)
    )
    spans, atomic, offsets = _extract_batch(flat, shapes, bool(boundary_rule), max_len)
    return PhrasePairsBatch(spans, atomic, offsets)


def identity_matrix(source: Sequence[str], target: Sequence[str]) -> npt.NDArray[np.uint8]:
    """uint8 ``(N, M)``: 1 where the two tokens are equal ignoring case (``str.lower``)."""
    if not source or not target:
        return np.zeros((len(source), len(target)), np.uint8)
    src = np.array([t.lower() for t in source], dtype=object)
    tgt = np.array([t.lower() for t in target], dtype=object)
    return np.ascontiguousarray(src[:, None] == tgt[None, :], dtype=np.uint8)


def identical_mask(
    spans: npt.ArrayLike,
    source: Sequence[str],
    target: Sequence[str],
    *,
    identity: npt.NDArray[np.uint8] | None = None,
) -> BoolArray:
    """Boolean ``(K,)``: which phrase pairs are lexically identical (case-insensitive).

    ``spans`` are ``(i1, i2, j1, j2)`` rows as returned by :func:`extract_phrase_pairs`;
    ``identity`` may pass a precomputed :func:`identity_matrix` (then the tokens are not read).
    """
    arr = np.ascontiguousarray(np.asarray(spans, dtype=np.int32).reshape(-1, 4))
    eq = identity_matrix(source, target) if identity is None else identity
    n, m = eq.shape
    if arr.size and (
        arr[:, 0].min() < 0
        or arr[:, 1].max() >= n
        or arr[:, 2].min() < 0
        or arr[:, 3].max() >= m
        or (arr[:, 1] < arr[:, 0]).any()
        or (arr[:, 3] < arr[:, 2]).any()
    ):
        raise AlignmentError(f"a phrase span lies outside the {n}×{m} sentence pair")
    return _identical_mask(arr, identity_runs(eq))


def drop_identical(pairs: PhrasePairs, source: Sequence[str], target: Sequence[str]) -> PhrasePairs:
    """The phrase pairs whose two sides differ as case-insensitive token sequences."""
    keep = ~identical_mask(pairs.spans, source, target)
    return PhrasePairs(np.ascontiguousarray(pairs.spans[keep]), pairs.atomic[keep].copy())


def phrase_text(
    span: Sequence[int], source: Sequence[str], target: Sequence[str]
) -> tuple[str, str]:
    """The two sides of a phrase pair as space-joined strings."""
    i1, i2, j1, j2 = (int(v) for v in span)
    return " ".join(source[i1 : i2 + 1]), " ".join(target[j1 : j2 + 1])
