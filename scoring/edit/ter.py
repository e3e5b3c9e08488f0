"""Translation Edit Rate with shifts, edit for edit as tercom 0.8.0 computes it (Snover et al.
2006, §2).

TER (Snover et al. 2006) is the minimum number of edits — insertions, deletions, substitutions of
single words and *shifts* of contiguous word sequences — that turn a hypothesis into the
reference, divided by the reference length. The exact minimum is NP-hard; tercom finds it
greedily, and this module reproduces that search decision by decision, so edit counts, shifts and
the final alignment are those tercom 0.8.0 prints with its default settings:

- Text: tercom lowercases (Java ``toLowerCase``; here :meth:`str.lower`) unless case-sensitive,
  strips and splits on ASCII whitespace (Java's ``\\s``), and does no other tokenization.
- Edit distance: tercom's beam search over the ``(|ref| + 1) × (|hyp| + 1)`` matrix, column by
  column along the hypothesis: a cell is expanded only if its cost is within ``beam_width`` (20)
  of the best diagonal move into its column; ties prefer match/substitution, then insertion, then
  deletion. This is not always the true Levenshtein distance, and tercom's figures depend on it.
- Shifts: repeatedly, every candidate move of a hypothesis phrase (≤ ``max_shift_size`` = 10
  words) that matches a reference phrase at a position where the hypothesis or the reference is
  currently in error, within ``max_shift_distance`` (50) words, to just after the hypothesis word
  aligned to the reference word before (or at) the matching position. Candidates are tried from
  the longest phrase to the shortest, in tercom's order (hypothesis start, end, reference position
  ascending, then offset −1…len−1), with tercom's early stop (a shift of ``n`` words is assumed to
  fix at most ``2n`` edits). The first candidate with the largest gain wins; a shift whose gain is
  exactly zero (it removes one edit and costs one) is taken when nothing better exists. The
  search stops when no candidate gains.

Costs are pluggable (:class:`TerCosts`), and so is word matching (:class:`MatchModel`): a model
gives, for every hypothesis × reference word pair, the diagonal cost, the edit label and whether
the two words may anchor a shift. TERp's stem and synonym matches plug in there; phrase
substitutions need extra moves in the kernel and are not implemented.

Two stages, as everywhere in :mod:`scoring`: :func:`ter_batch` gives per-segment sufficient
statistics (edits, reference length) as arrays, :func:`corpus_ter` aggregates them; :func:`ter`
gives one segment's full edit sequence (:class:`TerAlignment`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np
import numpy.typing as npt
from numba import njit

from scoring.errors import ScoringError

F64 = npt.NDArray[np.float64]
I64 = npt.NDArray[np.int64]
I8 = npt.NDArray[np.int8]
BoolArray = npt.NDArray[np.bool_]

# Edit labels, as tercom prints them in its alignments (' ' is a match). TERp adds T (stem),
# Y (synonym) and P (phrase substitution); a match model may use them for diagonal moves.
OP_MATCH = ord(" ")
OP_SUB = ord("S")
OP_INS = ord("I")
OP_DEL = ord("D")
OP_STEM = ord("T")
OP_SYNONYM = ord("Y")
OP_PHRASE = ord("P")
_DIAGONAL_OPS = frozenset({OP_MATCH, OP_SUB, OP_STEM, OP_SYNONYM, OP_PHRASE})

_INF = 999999.0  # tercom's INF: the "no diagonal move yet" value of a column's best cost
_JAVA_SPACE = re.compile(r"[ \t\n\x0b\f\r]+")  # java.util.regex \s (ASCII only)
_JAVA_SPACE_CHARS = " \t\n\x0b\f\r"


class TerError(ScoringError, ValueError):
    """TER input is unusable: mismatched lengths, a bad cost or table, a non-string segment."""


@dataclass(frozen=True, slots=True)
class TerCosts:
    """Edit costs; tercom's defaults. All must be ≥ 0 and the shift cost > 0 (so the greedy
    shift search terminates: every accepted shift lowers the edit distance by at least it)."""

    match: float = 0.0
    substitute: float = 1.0
    insert: float = 1.0
    delete: float = 1.0
    shift: float = 1.0


@dataclass(frozen=True, slots=True)
class TerParams:
    """Search settings; tercom 0.8.0's defaults. ``lowercase=False`` is tercom's ``-s``."""

    beam_width: int = 20
    max_shift_size: int = 10
    max_shift_distance: int = 50
    lowercase: bool = True


@dataclass(frozen=True, slots=True)
class WordTable:
    """What a :class:`MatchModel` says about one ``(H, R)`` hypothesis × reference word grid.

    ``cost[h, r]`` float64: cost of aligning hyp word ``h`` with ref word ``r`` on the diagonal;
    ``op[h, r]`` int8: the edit label (:data:`OP_MATCH` marks an exact match, which tercom treats
    as error-free; any other label counts as an error for shift selection);
    ``shiftable[h, r]`` bool: the two words are equal for finding shift candidates.
    Indices are positions in the *original* hypothesis: shifts reorder words, not the table.
    """

    cost: F64
    op: I8
    shiftable: BoolArray


class MatchModel(Protocol):
    """The hook for extra match types (TERp's stem and synonym edits)."""

    def table(self, hyp: Sequence[str], ref: Sequence[str], costs: TerCosts) -> WordTable: ...


class ExactMatch:
    """tercom's matching: words are equal or substituted; only equal words anchor shifts."""

    def table(self, hyp: Sequence[str], ref: Sequence[str], costs: TerCosts) -> WordTable:
        vocab: dict[str, int] = {}
        h = np.array([vocab.setdefault(w, len(vocab)) for w in hyp], np.int64)
        r = np.array([vocab.setdefault(w, len(vocab)) for w in ref], np.int64)
        eq = h[:, None] == r[None, :]
        cost = np.where(eq, costs.match, costs.substitute).astype(np.float64)
        op = np.where(eq, OP_MATCH, OP_SUB).astype(np.int8)
        return WordTable(np.ascontiguousarray(cost), np.ascontiguousarray(op), eq)


@dataclass(frozen=True, slots=True)
class Shift:
    """One shift, in tercom's terms: hyp words ``start..end`` (inclusive, positions in the
    hypothesis as it was before this shift) move to just after position ``newloc`` (−1: to the
    front), to sit opposite reference position ``moveto``."""

    start: int
    end: int
    moveto: int
    newloc: int
    cost: float

    @property
    def size(self) -> int:
        return self.end - self.start + 1


@dataclass(frozen=True, slots=True)
class TerAlignment:
    """One segment's TER and its edit sequence.

    ``ops`` is tercom's alignment string over ``hyp_after_shifts`` × ``ref``: ``' '`` match,
    ``S`` substitution, ``I`` hyp word inserted, ``D`` ref word deleted (or a model's own
    labels). ``shifts`` are applied in order to ``hyp`` to give ``hyp_after_shifts``.
    """

    hyp: tuple[str, ...]
    ref: tuple[str, ...]
    hyp_after_shifts: tuple[str, ...]
    ops: str
    shifts: tuple[Shift, ...]
    num_edits: float
    ref_len: float

    @property
    def score(self) -> float:
        return _ter_score(self.num_edits, self.ref_len)

    def count(self, label: str) -> int:
        """How many edits of one label (``'S'``, ``'I'``, ``'D'``, …) the alignment has."""
        return self.ops.count(label)


@dataclass(frozen=True, slots=True)
class TerStats:
    """Per-segment sufficient statistics: float64 ``(N,)`` edits and reference lengths, and the
    :func:`signature` of the settings that produced them."""

    num_edits: F64
    ref_len: F64
    signature: str = ""

    @property
    def scores(self) -> F64:
        """Per-segment TER (tercom's convention: 1 for edits against an empty reference)."""
        out = np.zeros_like(self.num_edits)
        pos = self.ref_len > 0
        out[pos] = self.num_edits[pos] / self.ref_len[pos]
        out[~pos & (self.num_edits > 0)] = 1.0
        return out


def signature(costs: TerCosts | None = None, params: TerParams | None = None) -> str:
    """A one-line record of the settings, stored with results (house style: sacrebleu's)."""
    c = costs or TerCosts()
    p = params or TerParams()
    return (
        f"ter:tercom-0.8.0|case:{'lc' if p.lowercase else 'mixed'}|tok:whitespace"
        f"|beam:{p.beam_width}|shift-size:{p.max_shift_size}|shift-dist:{p.max_shift_distance}"
        f"|costs:{c.match:g},{c.substitute:g},{c.insert:g},{c.delete:g},{c.shift:g}"
    )


def _ter_score(num_edits: float, ref_len: float) -> float:
    if ref_len <= 0.0:
        return 1.0 if num_edits > 0.0 else 0.0
    return num_edits / ref_len


# --- kernels -----------------------------------------------------------------------------------


@njit(cache=True)
def _beam_edit_distance(
    perm: I64,
    n_ref: int,
    cost: F64,
    is_match: BoolArray,
    ins_cost: F64,
    del_cost: F64,
    beam: float,
    start_col: int,
    s_mat: F64,
    p_mat: I8,
    pre: F64,
    pre_state: F64,
    record: bool,
) -> float:
    """tercom's ``MinEditDist``: beam-pruned edit distance of ``hyp[perm]`` to the reference.

    ``s_mat`` / ``p_mat`` are ``(H + 1, R + 1)`` cost and back-pointer matrices indexed
    ``[hyp column, ref row]`` (−1 = unreached). With ``record`` the cost column and the three
    beam variables *before* each column is processed are saved in ``pre`` ``(H + 1, R + 1)`` and
    ``pre_state`` ``(H + 1, 3)``; a later call with ``start_col = p`` restores column ``p`` from
    them and recomputes only columns ``p..H`` — valid for any hypothesis that shares the first
    ``p`` words, since a column depends only on the words before it. Returns ``S[H, R]``.
    """
    n_hyp = perm.shape[0]
    if start_col == 0:
        for j in range(n_hyp + 1):
            for i in range(n_ref + 1):
                s_mat[j, i] = -1.0
        s_mat[0, 0] = 0.0
        current_best = _INF
        current_first_good = 0
        cur_last_good = 0
    else:
        for i in range(n_ref + 1):
            s_mat[start_col, i] = pre[start_col, i]
        for j in range(start_col + 1, n_hyp + 1):
            for i in range(n_ref + 1):
                s_mat[j, i] = -1.0
        current_best = pre_state[start_col, 0]
        current_first_good = int(pre_state[start_col, 1])
        cur_last_good = int(pre_state[start_col, 2])
    for j in range(start_col, n_hyp + 1):
        if record:
            for i in range(n_ref + 1):
                pre[j, i] = s_mat[j, i]
            pre_state[j, 0] = current_best
            pre_state[j, 1] = current_first_good
            pre_state[j, 2] = cur_last_good
        last_best = current_best
        current_best = _INF
        first_good = current_first_good
        current_first_good = -1
        last_good = cur_last_good
        cur_last_good = -1
        h = perm[j] if j < n_hyp else -1
        i = first_good
        while i <= n_ref:
            if i > last_good:
                break
            score = s_mat[j, i]
            if score < 0.0 or (j < n_hyp and score > last_best + beam):
                i += 1
                continue
            if current_first_good == -1:
                current_first_good = i
            if i < n_ref and j < n_hyp:
                c = cost[h, i] + score
                if is_match[h, i]:
                    # tercom lets a match lower the column's best even if the cell kept a
                    # cheaper value; a substitution only when it improved the cell.
                    if s_mat[j + 1, i + 1] < 0.0 or c < s_mat[j + 1, i + 1]:
                        s_mat[j + 1, i + 1] = c
                        if record:
                            p_mat[j + 1, i + 1] = 0
                    if c < current_best:
                        current_best = c
                elif s_mat[j + 1, i + 1] < 0.0 or c < s_mat[j + 1, i + 1]:
                    s_mat[j + 1, i + 1] = c
                    if record:
                        p_mat[j + 1, i + 1] = 0
                    if c < current_best:
                        current_best = c
            cur_last_good = i + 1
            if j < n_hyp:
                icost = score + ins_cost[h]
                if s_mat[j + 1, i] < 0.0 or s_mat[j + 1, i] > icost:
                    s_mat[j + 1, i] = icost
                    if record:
                        p_mat[j + 1, i] = 1
            if i < n_ref:
                dcost = score + del_cost[i]
                if s_mat[j, i + 1] < 0.0 or s_mat[j, i + 1] > dcost:
                    s_mat[j, i + 1] = dcost
                    if record:
                        p_mat[j, i + 1] = 2
                    if i >= last_good:
                        last_good = i + 1
            i += 1
    return float(s_mat[n_hyp, n_ref])


@njit(cache=True)
def _trace(perm: I64, n_ref: int, op: I8, p_mat: I8, path: I8) -> int:
    """Follow the back-pointers from ``(H, R)``; writes edit labels to ``path``, returns its
    length (labels are at ``path[:length]`` in order)."""
    i = n_ref
    j = perm.shape[0]
    k = path.shape[0]
    while i > 0 or j > 0:
        k -= 1
        move = p_mat[j, i]
        if move == 0:
            path[k] = op[perm[j - 1], i - 1]
            i -= 1
            j -= 1
        elif move == 1:
            path[k] = OP_INS
            j -= 1
        else:
            path[k] = OP_DEL
            i -= 1
    length = path.shape[0] - k
    for t in range(length):
        path[t] = path[k + t]
    return int(length)


@njit(cache=True)
def _align_errors(
    path: I8, length: int, n_hyp: int, n_ref: int, herr: BoolArray, rerr: BoolArray, ralign: I64
) -> None:
    """tercom's ``FindAlignErr``: which hyp and ref positions are in error, and the hyp position
    each ref position faces (for a deleted ref word, the hyp position before it; −1 at the
    start)."""
    hpos = -1
    rpos = -1
    for t in range(length):
        sym = path[t]
        if sym == OP_INS:
            hpos += 1
            herr[hpos] = True
        elif sym == OP_DEL:
            rpos += 1
            rerr[rpos] = True
            ralign[rpos] = hpos
        else:
            hpos += 1
            rpos += 1
            bad = sym != OP_MATCH
            herr[hpos] = bad
            rerr[rpos] = bad
            ralign[rpos] = hpos


@njit(cache=True)
def _apply_shift(perm: I64, start: int, end: int, newloc: int, out: I64) -> None:
    """tercom's ``PerformShift``: move ``perm[start..end]`` to just after ``newloc``."""
    n = perm.shape[0]
    c = 0
    if newloc == -1:
        for i in range(start, end + 1):
            out[c] = perm[i]
            c += 1
        for i in range(0, start):
            out[c] = perm[i]
            c += 1
        for i in range(end + 1, n):
            out[c] = perm[i]
            c += 1
    elif newloc < start:
        for i in range(0, newloc + 1):
            out[c] = perm[i]
            c += 1
        for i in range(start, end + 1):
            out[c] = perm[i]
            c += 1
        for i in range(newloc + 1, start):
            out[c] = perm[i]
            c += 1
        for i in range(end + 1, n):
            out[c] = perm[i]
            c += 1
    elif newloc > end:
        for i in range(0, start):
            out[c] = perm[i]
            c += 1
        for i in range(end + 1, newloc + 1):
            out[c] = perm[i]
            c += 1
        for i in range(start, end + 1):
            out[c] = perm[i]
            c += 1
        for i in range(newloc + 1, n):
            out[c] = perm[i]
            c += 1
    else:
        # Moving inside itself (tercom keeps this case although candidates never produce it).
        for i in range(0, start):
            out[c] = perm[i]
            c += 1
        i = end + 1
        while i < n and i <= end + (newloc - start):
            out[c] = perm[i]
            c += 1
            i += 1
        for i in range(start, end + 1):
            out[c] = perm[i]
            c += 1
        for i in range(end + (newloc - start) + 1, n):
            out[c] = perm[i]
            c += 1


@njit(cache=True)
def _push_shift(shifts: I64, n_shifts: int, row: I64) -> I64:
    """Store ``row[:4]`` (start, end, moveto, newloc) as shift ``n_shifts``, doubling the
    ``(K, 4)`` table when it is full; returns the table (a new one if it grew)."""
    if n_shifts == shifts.shape[0]:
        grown = np.empty((shifts.shape[0] * 2, 4), np.int64)
        grown[:n_shifts] = shifts[:n_shifts]
        shifts = grown
    shifts[n_shifts] = row[:4]
    return shifts


@njit(cache=True)
def _gather_shifts(
    perm: I64,
    n_ref: int,
    shiftable: BoolArray,
    herr: BoolArray,
    rerr: BoolArray,
    ralign: I64,
    max_size: int,
    max_dist: int,
    cands: I64,
) -> int:
    """tercom's ``GatherAllPossShifts``: candidate ``(start, end, moveto, newloc)`` rows in
    tercom's order, written to ``cands``; returns how many. Exact repeats of an earlier
    ``(start, end, newloc)`` are dropped: their gain equals the earlier one's, so they could
    never replace it under tercom's strict-improvement rule."""
    n_hyp = perm.shape[0]
    count = 0
    alive = np.zeros(n_ref, np.bool_)
    for start in range(n_hyp):
        hs = perm[start]
        ok = False
        any_match = False
        for m in range(n_ref):
            if shiftable[hs, m]:
                any_match = True
                ra = ralign[m]
                if start != ra and ra - start <= max_dist and start - ra - 1 <= max_dist:
                    ok = True
                    break
        if not any_match or not ok:
            continue
        for m in range(n_ref):
            alive[m] = shiftable[hs, m]
        ok = True
        end = start
        while ok and end < n_hyp and end < start + max_size:
            length = end - start + 1
            if end > start:
                he = perm[end]
                for m in range(n_ref):
                    if alive[m]:
                        alive[m] = m + length - 1 < n_ref and shiftable[he, m + length - 1]
            ok = False
            found = False
            for m in range(n_ref):
                if alive[m]:
                    found = True
                    break
            if not found:
                end += 1
                continue
            any_herr = False
            for t in range(start, end + 1):
                if herr[t]:
                    any_herr = True
                    break
            if not any_herr:
                ok = True
                end += 1
                continue
            for moveto in range(n_ref):
                if not alive[moveto]:
                    continue
                ra = ralign[moveto]
                if not (
                    ra != start
                    and (ra < start or ra > end)
                    and ra - start <= max_dist
                    and start - ra <= max_dist
                ):
                    continue
                ok = True
                any_rerr = False
                for t in range(moveto, moveto + length):
                    if rerr[t]:
                        any_rerr = True
                        break
                if not any_rerr:
                    continue
                for roff in range(-1, length):
                    newloc = -2
                    if roff == -1 and moveto == 0:
                        newloc = -1
                    elif start != ralign[moveto + roff] and (
                        roff == 0 or ralign[moveto + roff] != ralign[moveto]
                    ):
                        newloc = ralign[moveto + roff]
                    if newloc == -2:
                        continue
                    dup = False
                    for k in range(count):
                        if cands[k, 0] == start and cands[k, 1] == end and cands[k, 3] == newloc:
                            dup = True
                            break
                    if dup:
                        continue
                    if count == cands.shape[0]:
                        return -1
                    cands[count, 0] = start
                    cands[count, 1] = end
                    cands[count, 2] = moveto + roff
                    cands[count, 3] = newloc
                    count += 1
            end += 1
    return count


@njit(cache=True)
def _ter_core(
    n_ref: int,
    cost: F64,
    op: I8,
    shiftable: BoolArray,
    ins_cost: F64,
    del_cost: F64,
    shift_cost: float,
    beam: float,
    max_size: int,
    max_dist: int,
) -> tuple[float, I64, I8, int, I64, int]:
    """tercom's ``TER``: greedy shifts, then the final alignment (Snover et al. 2006, §2).

    ``cost``/``op``/``shiftable`` are the ``(H, R)`` word tables. Returns ``(num_edits, perm,
    path, path_len, shifts, n_shifts)``: ``perm`` (H,) the hypothesis order after the shifts as
    original positions, ``path[:path_len]`` the edit labels, ``shifts[:n_shifts]`` rows of
    ``(start, end, moveto, newloc)``.
    """
    n_hyp = cost.shape[0]
    is_match = np.empty((n_hyp, n_ref), np.bool_)
    for h in range(n_hyp):
        for r in range(n_ref):
            is_match[h, r] = op[h, r] == OP_MATCH
    perm = np.arange(n_hyp)
    s_mat = np.empty((n_hyp + 1, n_ref + 1))
    p_mat = np.zeros((n_hyp + 1, n_ref + 1), np.int8)
    pre = np.empty((n_hyp + 1, n_ref + 1))
    pre_state = np.empty((n_hyp + 1, 3))
    path = np.empty(n_hyp + n_ref, np.int8)
    herr = np.zeros(n_hyp, np.bool_)
    rerr = np.zeros(n_ref, np.bool_)
    ralign = np.zeros(n_ref, np.int64)
    cands = np.empty((64, 4), np.int64)
    trial = np.empty(n_hyp, np.int64)
    best_perm = np.empty(n_hyp, np.int64)
    shifts = np.empty((8, 4), np.int64)
    n_shifts = 0
    edits = 0.0
    while True:
        # Edit distance and path of the current order (the trials below overwrite the tables).
        cur_ed = _beam_edit_distance(
            perm,
            n_ref,
            cost,
            is_match,
            ins_cost,
            del_cost,
            beam,
            0,
            s_mat,
            p_mat,
            pre,
            pre_state,
            True,
        )
        path_len = _trace(perm, n_ref, op, p_mat, path)
        herr[:] = False
        rerr[:] = False
        ralign[:] = 0
        _align_errors(path, path_len, n_hyp, n_ref, herr, rerr, ralign)
        while True:  # a full candidate table is answered -1: grow it and gather again
            n_cands = _gather_shifts(
                perm, n_ref, shiftable, herr, rerr, ralign, max_size, max_dist, cands
            )
            if n_cands >= 0:
                break
            cands = np.empty((cands.shape[0] * 2, 4), np.int64)
        # CalcBestShift: longest candidates first, stop once shorter ones cannot do better.
        curerr = cur_ed
        best_cost = 0.0
        best_ed = cur_ed
        best = -1
        for i in range(max_size, -1, -1):
            maxfix = 2.0 * (1 + i)
            curfix = curerr - (best_cost + best_ed)
            if curfix > maxfix or (best_cost != 0.0 and curfix == maxfix):
                break
            for k in range(n_cands):
                if cands[k, 1] - cands[k, 0] != i:
                    continue
                curfix = curerr - (best_cost + best_ed)
                if curfix > maxfix or (best_cost != 0.0 and curfix == maxfix):
                    break
                _apply_shift(perm, cands[k, 0], cands[k, 1], cands[k, 3], trial)
                first = 0
                while first < n_hyp and trial[first] == perm[first]:
                    first += 1
                ed = _beam_edit_distance(
                    trial,
                    n_ref,
                    cost,
                    is_match,
                    ins_cost,
                    del_cost,
                    beam,
                    first,
                    s_mat,
                    p_mat,
                    pre,
                    pre_state,
                    False,
                )
                gain = (best_ed + best_cost) - (ed + shift_cost)
                if gain > 0.0 or (best_cost == 0.0 and gain == 0.0):
                    best = k
                    best_cost = shift_cost
                    best_ed = ed
                    best_perm[:] = trial
        if best < 0:
            break
        shifts = _push_shift(shifts, n_shifts, cands[best])
        n_shifts += 1
        edits += best_cost
        perm[:] = best_perm
    return cur_ed + edits, perm, path, path_len, shifts, n_shifts


@njit(cache=True)
def _ter_batch_exact(
    hyp_tok: I64,
    hyp_off: I64,
    ref_tok: I64,
    ref_off: I64,
    costs: F64,
    beam: float,
    max_size: int,
    max_dist: int,
    out_edits: F64,
) -> None:
    """Exact-match TER of every segment: ``*_tok`` are word ids, ``*_off`` ``(N + 1,)`` CSR
    offsets; ``costs`` is ``(match, substitute, insert, delete, shift)``. Both sides non-empty."""
    for s in range(hyp_off.shape[0] - 1):
        h0 = hyp_off[s]
        n_hyp = hyp_off[s + 1] - h0
        r0 = ref_off[s]
        n_ref = ref_off[s + 1] - r0
        cost = np.empty((n_hyp, n_ref))
        op = np.empty((n_hyp, n_ref), np.int8)
        shiftable = np.empty((n_hyp, n_ref), np.bool_)
        for h in range(n_hyp):
            for r in range(n_ref):
                eq = hyp_tok[h0 + h] == ref_tok[r0 + r]
                shiftable[h, r] = eq
                if eq:
                    cost[h, r] = costs[0]
                    op[h, r] = OP_MATCH
                else:
                    cost[h, r] = costs[1]
                    op[h, r] = OP_SUB
        ins_cost = np.full(n_hyp, costs[2])
        del_cost = np.full(n_ref, costs[3])
        result = _ter_core(
            n_ref, cost, op, shiftable, ins_cost, del_cost, costs[4], beam, max_size, max_dist
        )
        out_edits[s] = result[0]


# --- public API --------------------------------------------------------------------------------


def tokenize(text: str, *, lowercase: bool = True) -> list[str]:
    """tercom's default text handling: Java ``toLowerCase`` (unless ``lowercase=False``), then
    strip and split on ASCII whitespace. No punctuation splitting (that is tercom's ``-N``)."""
    if not isinstance(text, str):
        raise TerError(f"a segment must be a string, got {type(text).__name__}")
    if lowercase:
        text = text.lower()
    text = text.strip(_JAVA_SPACE_CHARS)
    return _JAVA_SPACE.split(text) if text else []


def _check_costs(costs: TerCosts) -> None:
    for name in ("match", "substitute", "insert", "delete", "shift"):
        value = getattr(costs, name)
        if not np.isfinite(value) or value < 0:
            raise TerError(f"TER cost '{name}' must be a finite number ≥ 0, got {value!r}")
    if costs.shift <= 0:
        raise TerError(f"TER cost 'shift' must be > 0, got {costs.shift!r}")


def _check_params(params: TerParams) -> None:
    for name in ("beam_width", "max_shift_size", "max_shift_distance"):
        value = getattr(params, name)
        if not isinstance(value, int) or value < 0:
            raise TerError(f"TER setting '{name}' must be an integer ≥ 0, got {value!r}")


def _null_edits(n_hyp: int, n_ref: int) -> float:
    # tercom's TERnullstr: an empty side costs one edit per word of the other side.
    return float(n_ref if n_hyp == 0 else n_hyp)


def _tokens(seg: str | Sequence[str], params: TerParams, what: str, index: int) -> list[str]:
    if isinstance(seg, str):
        return tokenize(seg, lowercase=params.lowercase)
    if not isinstance(seg, Sequence):
        raise TerError(f"{what} {index}: expected a string or a token sequence")
    if not all(isinstance(w, str) for w in seg):
        raise TerError(f"{what} {index}: tokens must be strings")
    words = [w.lower() for w in seg] if params.lowercase else list(seg)
    if any(not w or _JAVA_SPACE.search(w) for w in words):
        raise TerError(f"{what} {index}: a token is empty or contains whitespace")
    return words


def _validated_table(table: WordTable, n_hyp: int, n_ref: int) -> WordTable:
    cost = np.ascontiguousarray(table.cost, dtype=np.float64)
    op = np.ascontiguousarray(table.op, dtype=np.int8)
    shiftable = np.ascontiguousarray(table.shiftable, dtype=np.bool_)
    for name, arr in (("cost", cost), ("op", op), ("shiftable", shiftable)):
        if arr.shape != (n_hyp, n_ref):
            raise TerError(f"match table '{name}' has shape {arr.shape}, expected {(n_hyp, n_ref)}")
    if not np.all(np.isfinite(cost)) or (cost < 0).any():
        raise TerError("match table 'cost' must hold finite values ≥ 0")
    bad = set(np.unique(op).tolist()) - set(_DIAGONAL_OPS)
    if bad:
        raise TerError(f"match table 'op' holds unknown edit labels {sorted(bad)}")
    return WordTable(cost, op, shiftable)


def ter(
    hyp: str | Sequence[str],
    ref: str | Sequence[str],
    *,
    costs: TerCosts | None = None,
    params: TerParams | None = None,
    model: MatchModel | None = None,
) -> TerAlignment:
    """TER of one hypothesis against one reference, with tercom's full edit sequence.

    ``hyp``/``ref`` are raw strings (tokenized as tercom does) or token sequences (only
    lowercased when ``params.lowercase``). ``model`` supplies the word tables (default
    :class:`ExactMatch`). Cost: one beam search per candidate shift, O(|hyp|·|ref|) each.
    """
    costs = costs or TerCosts()
    params = params or TerParams()
    _check_costs(costs)
    _check_params(params)
    h = _tokens(hyp, params, "hypothesis", 0)
    r = _tokens(ref, params, "reference", 0)
    if not h or not r:
        # tercom's TERnullstr: one edit per word of the other side, whatever the costs.
        return TerAlignment(
            hyp=tuple(h),
            ref=tuple(r),
            hyp_after_shifts=tuple(h),
            ops="I" * len(h) if h else "D" * len(r),
            shifts=(),
            num_edits=_null_edits(len(h), len(r)),
            ref_len=float(len(r)),
        )
    table = _validated_table((model or ExactMatch()).table(h, r, costs), len(h), len(r))
    edits, perm, path, path_len, shift_rows, n_shifts = _ter_core(
        len(r),
        table.cost,
        table.op,
        table.shiftable,
        np.full(len(h), costs.insert),
        np.full(len(r), costs.delete),
        float(costs.shift),
        float(params.beam_width),
        int(params.max_shift_size),
        int(params.max_shift_distance),
    )
    shifts = tuple(
        Shift(int(a), int(b), int(c), int(d), float(costs.shift))
        for a, b, c, d in shift_rows[:n_shifts]
    )
    return TerAlignment(
        hyp=tuple(h),
        ref=tuple(r),
        hyp_after_shifts=tuple(h[int(p)] for p in perm),
        ops="".join(chr(int(c)) for c in path[:path_len]),
        shifts=shifts,
        num_edits=float(edits),
        ref_len=float(len(r)),
    )


def ter_batch(
    hyps: Sequence[str | Sequence[str]],
    refs: Sequence[str | Sequence[str]],
    *,
    costs: TerCosts | None = None,
    params: TerParams | None = None,
) -> TerStats:
    """Per-segment TER statistics of parallel hypotheses and references (exact matching).

    Same figures as :func:`ter` per segment, computed in one numba call. Returns
    :class:`TerStats` with float64 ``(N,)`` ``num_edits`` and ``ref_len``.
    """
    costs = costs or TerCosts()
    params = params or TerParams()
    _check_costs(costs)
    _check_params(params)
    if len(hyps) != len(refs):
        raise TerError(f"{len(hyps)} hypotheses but {len(refs)} references")
    n = len(hyps)
    vocab: dict[str, int] = {}
    hyp_ids: list[int] = []
    ref_ids: list[int] = []
    hyp_off = np.zeros(n + 1, np.int64)
    ref_off = np.zeros(n + 1, np.int64)
    hyp_len = np.zeros(n, np.int64)
    ref_len = np.zeros(n, np.int64)
    keep: list[int] = []
    for k in range(n):
        h = _tokens(hyps[k], params, "hypothesis", k)
        r = _tokens(refs[k], params, "reference", k)
        hyp_len[k] = len(h)
        ref_len[k] = len(r)
        if h and r:
            keep.append(k)
            hyp_ids.extend(vocab.setdefault(w, len(vocab)) for w in h)
            ref_ids.extend(vocab.setdefault(w, len(vocab)) for w in r)
            hyp_off[len(keep)] = len(hyp_ids)
            ref_off[len(keep)] = len(ref_ids)
    edits = np.array([_null_edits(int(a), int(b)) for a, b in zip(hyp_len, ref_len, strict=True)])
    if keep:
        out = np.empty(len(keep))
        _ter_batch_exact(
            np.array(hyp_ids, np.int64),
            hyp_off[: len(keep) + 1].copy(),
            np.array(ref_ids, np.int64),
            ref_off[: len(keep) + 1].copy(),
            np.array([costs.match, costs.substitute, costs.insert, costs.delete, costs.shift]),
            float(params.beam_width),
            int(params.max_shift_size),
            int(params.max_shift_distance),
            out,
        )
        edits[np.array(keep)] = out
    return TerStats(
        num_edits=edits.astype(np.float64),
        ref_len=ref_len.astype(np.float64),
        signature=signature(costs, params),
    )


def corpus_ter(stats: TerStats) -> float:
    """Corpus TER: total edits over total reference length (tercom's "Total TER")."""
    return _ter_score(float(stats.num_edits.sum()), float(stats.ref_len.sum()))
