"""tercom's search (Snover et al. 2006, §2) as numba kernels: the beam edit distance, the
path, and the greedy shifts, decision by decision as tercom 0.8.0 makes them.

:func:`ter_search` aligns one segment and :func:`ter_search_batch` many with exact-match word
tables; :mod:`scoring.edit.ter` validates input, builds the tables and calls them.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from numba import njit

from scoring.edit.shifts import (
    OP_DEL,
    OP_INS,
    OP_MATCH,
    OP_SUB,
    apply_shift,
    push_shift,
)

F64 = npt.NDArray[np.float64]
I64 = npt.NDArray[np.int64]
I8 = npt.NDArray[np.int8]
BoolArray = npt.NDArray[np.bool_]

_INF = 999999.0  # tercom's INF: the "no diagonal move yet" value of a column's best cost


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
def ter_search(
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
                apply_shift(perm, cands[k, 0], cands[k, 1], cands[k, 3], trial)
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
        shifts = push_shift(shifts, n_shifts, cands[best])
        n_shifts += 1
        edits += best_cost
        perm[:] = best_perm
    return cur_ed + edits, perm, path, path_len, shifts, n_shifts


@njit(cache=True)
def ter_search_batch(
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
        result = ter_search(
            n_ref, cost, op, shiftable, ins_cost, del_cost, costs[4], beam, max_size, max_dist
        )
        out_edits[s] = result[0]
