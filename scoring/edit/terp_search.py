"""TERp's search (Snover et al. 2009) as numba kernels: edit distance with stem, synonym and
phrase substitutions, and greedy shifts, decision by decision as TERp 1.0 makes them.

:func:`terp_search` is the one entry point, called by :mod:`scoring.edit.terp` (TERp's own
costs) and :mod:`scoring.edit.perp` (learned, word-dependent costs). Its inputs travel as a few
typed tuples of contiguous arrays and scalars (see the aliases below); the kernels unpack them
at the top, so the loops see plain arrays.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from numba import njit

from scoring.edit.shifts import (
    OP_DEL,
    OP_INS,
    OP_MATCH,
    OP_PHRASE,
    OP_STEM,
    OP_SUB,
    OP_SYNONYM,
    apply_shift,
    push_shift,
)

F64 = npt.NDArray[np.float64]
I64 = npt.NDArray[np.int64]
I8 = npt.NDArray[np.int8]
BoolArray = npt.NDArray[np.bool_]
#: ``(eq, stem, syn)``: ``(H, R)`` bool tables by original hypothesis position.
Tables = tuple[BoolArray, BoolArray, BoolArray]
#: ``(sub (H, R), ins (H,), dele (R,), match, stem, synonym, shift)`` edit costs.
Costs = tuple[F64, F64, F64, float, float, float, float]
#: ``(hyp_stop (H,), ref_stop (R,))``: shift stop words.
Stops = tuple[BoolArray, BoolArray]
#: ``(beam width, shift size, shift distance, shifts on, shift spans through phrases)``.
Search = tuple[float, int, int, bool, bool]
#: ``(hyp_ids, ref_len, hyp_len, first row by ref position, hyp-id offsets, hyp ids, cost)``.
Phrases = tuple[I64, I64, I64, I64, I64, I64, F64]
#: ``(cost, edit label, phrase row)`` matrices ``(R + 1, H + 1)`` the edit distance fills.
Work = tuple[F64, I8, I64]
#: ``(hyp error, ref error, ref alignment, hyp alignment)`` of the current path.
Errors = tuple[BoolArray, BoolArray, I64, I64]
#: ``(max shift size, max shift distance, shift spans through phrases)``.
Limits = tuple[int, int, bool]

_INF = 999999.0  # TERp's INF: the "no diagonal move yet" value of a column's best cost


@njit(cache=True)
def _phrase_matches(
    k: int, perm: I64, j: int, hyp_ids: I64, ph_hlen: I64, ph_off: I64, ph_ids: I64
) -> bool:
    n_hyp = perm.shape[0]
    hl = ph_hlen[k]
    if j + hl > n_hyp:
        return False
    base = ph_off[k]
    for t in range(hl):  # noqa: SIM110 (numba: no generator in all())
        if hyp_ids[perm[j + t]] != ph_ids[base + t]:
            return False
    return True


@njit(cache=True)
def _min_edit_dist(
    perm: I64,
    n_ref: int,
    tables: Tables,
    costs: Costs,
    beam: float,
    phrases: Phrases,
    work: Work,
) -> float:
    """TERp's ``MinEditDist_SW`` over ``hyp[perm]``: fills ``s_mat``/``p_mat``/``pl_mat``
    ``(R + 1, H + 1)`` (cost, edit label, phrase row of a ``P``) and returns the cost. Unreached
    cells hold +inf (TERp uses −1, which only differs when costs may be negative)."""
    eq, stem_ok, syn_ok = tables
    sub_cost, ins_cost, del_cost, match_cost, stem_cost, syn_cost, _ = costs
    hyp_ids, ph_rlen, ph_hlen, ph_first, ph_off, ph_ids, ph_cost = phrases
    s_mat, p_mat, pl_mat = work
    n_hyp = perm.shape[0]
    inf = np.inf
    for i in range(n_ref + 1):
        for j in range(n_hyp + 1):
            s_mat[i, j] = inf
            p_mat[i, j] = 0
    s_mat[0, 0] = 0.0
    current_best = _INF
    current_first_good = 0
    cur_last_good = 0
    for j in range(n_hyp + 1):
        last_best = current_best
        current_best = _INF
        first_good = current_first_good if current_first_good > 0 else 0
        current_first_good = -1
        last_good = cur_last_good
        cur_last_good = -1
        h = perm[j] if j < n_hyp else -1
        for i in range(first_good, n_ref + 1):
            if j != n_hyp and i > last_good:
                break
            score = s_mat[i, j]
            if score == inf:
                continue
            if j < n_hyp and score > last_best + beam:
                continue
            if current_first_good == -1:
                current_first_good = i
            if i < n_ref and j < n_hyp:
                if eq[h, i]:
                    cost = match_cost + score
                    if s_mat[i + 1, j + 1] == inf or cost < s_mat[i + 1, j + 1]:
                        s_mat[i + 1, j + 1] = cost
                        p_mat[i + 1, j + 1] = OP_MATCH
                    if cost < current_best:
                        current_best = cost
                else:
                    cost = sub_cost[h, i] + score
                    if s_mat[i + 1, j + 1] == inf or cost < s_mat[i + 1, j + 1]:
                        s_mat[i + 1, j + 1] = cost
                        p_mat[i + 1, j + 1] = OP_SUB
                        if cost < current_best:
                            current_best = cost
                    if stem_ok[h, i]:
                        cost = stem_cost + score
                        if s_mat[i + 1, j + 1] == inf or cost < s_mat[i + 1, j + 1]:
                            s_mat[i + 1, j + 1] = cost
                            p_mat[i + 1, j + 1] = OP_STEM
                            if cost < current_best:
                                current_best = cost
                    if syn_ok[h, i]:
                        cost = syn_cost + score
                        if s_mat[i + 1, j + 1] == inf or cost < s_mat[i + 1, j + 1]:
                            s_mat[i + 1, j + 1] = cost
                            p_mat[i + 1, j + 1] = OP_SYNONYM
                            if cost < current_best:
                                current_best = cost
            cur_last_good = i + 1
            if i < n_ref:
                for k in range(ph_first[i], ph_first[i + 1]):
                    if not ph_cost[k] < inf:
                        continue
                    if not _phrase_matches(k, perm, j, hyp_ids, ph_hlen, ph_off, ph_ids):
                        continue
                    ti = i + ph_rlen[k]
                    tj = j + ph_hlen[k]
                    cost = score + ph_cost[k]
                    if s_mat[ti, tj] == inf or cost < s_mat[ti, tj]:
                        s_mat[ti, tj] = cost
                        p_mat[ti, tj] = OP_PHRASE
                        pl_mat[ti, tj] = k
            if j < n_hyp:
                icost = score + ins_cost[h]
                if s_mat[i, j + 1] == inf or s_mat[i, j + 1] > icost:
                    s_mat[i, j + 1] = icost
                    p_mat[i, j + 1] = OP_INS
            if i < n_ref:
                dcost = score + del_cost[i]
                if s_mat[i + 1, j] == inf or s_mat[i + 1, j] > dcost:
                    s_mat[i + 1, j] = dcost
                    p_mat[i + 1, j] = OP_DEL
                    if i >= last_good:
                        last_good = i + 1
    return float(s_mat[n_ref, n_hyp])


@njit(cache=True)
def _trace(
    n_hyp: int,
    n_ref: int,
    p_mat: I8,
    pl_mat: I64,
    ph_rlen: I64,
    ph_hlen: I64,
    path: I8,
    path_rl: I64,
    path_hl: I64,
    path_ph: I64,
) -> int:
    """Back-pointers from ``(R, H)`` to the origin; labels and spans go to ``path*[:length]``."""
    i = n_ref
    j = n_hyp
    k = path.shape[0]
    while i > 0 or j > 0:
        k -= 1
        op = p_mat[i, j]
        path[k] = op
        path_ph[k] = -1
        if op == OP_INS:
            path_rl[k] = 0
            path_hl[k] = 1
            j -= 1
        elif op == OP_DEL:
            path_rl[k] = 1
            path_hl[k] = 0
            i -= 1
        elif op == OP_PHRASE:
            e = pl_mat[i, j]
            path_ph[k] = e
            path_rl[k] = ph_rlen[e]
            path_hl[k] = ph_hlen[e]
            i -= ph_rlen[e]
            j -= ph_hlen[e]
        else:
            path_rl[k] = 1
            path_hl[k] = 1
            i -= 1
            j -= 1
    length = path.shape[0] - k
    for t in range(length):
        path[t] = path[k + t]
        path_rl[t] = path_rl[k + t]
        path_hl[t] = path_hl[k + t]
        path_ph[t] = path_ph[k + t]
    return int(length)


@njit(cache=True)
def _align_errors(
    path: I8,
    path_rl: I64,
    path_hl: I64,
    length: int,
    herr: BoolArray,
    rerr: BoolArray,
    ralign: I64,
    halign: I64,
) -> None:
    """TERp's ``FindAlignErr``: positions in error and each side's facing position."""
    hpos = -1
    rpos = -1
    for t in range(length):
        sym = path[t]
        if sym == OP_PHRASE:
            srpos = rpos + 1
            shpos = hpos + 1
            for _ in range(path_hl[t]):
                hpos += 1
                herr[hpos] = True
                halign[hpos] = srpos
            for _ in range(path_rl[t]):
                rpos += 1
                rerr[rpos] = True
                ralign[rpos] = shpos
        elif sym == OP_INS:
            hpos += 1
            herr[hpos] = True
            halign[hpos] = rpos
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
            halign[hpos] = rpos


@njit(cache=True)
def _add_candidate(
    cands: I64, count: int, start: int, end: int, moveto: int, newloc: int, bucket: int
) -> int:
    """Add a shift to its length bucket unless that bucket holds the same (start, end, newloc)
    already (TERp keeps each bucket in a TreeSet: the first one added stays). Returns the new
    count, or −1 if ``cands`` is full."""
    for k in range(count):
        if (
            cands[k, 4] == bucket
            and cands[k, 0] == start
            and cands[k, 1] == end
            and cands[k, 3] == newloc
        ):
            return count
    if count == cands.shape[0]:
        return -1
    cands[count, 0] = start
    cands[count, 1] = end
    cands[count, 2] = moveto
    cands[count, 3] = newloc
    cands[count, 4] = bucket
    return count + 1


@njit(cache=True)
def _gather_shifts(
    perm: I64,
    n_ref: int,
    shift_eq: BoolArray,
    errors: Errors,
    stops: Stops,
    limits: Limits,
    phrases: Phrases,
    cands: I64,
) -> int:
    """TERp's ``gather_poss_shifts``: rows ``(start, end, moveto, newloc, bucket)`` in
    ``cands``; returns how many (−1 if ``cands`` is too small). Spans grow word by word while
    the words match (``shift_eq``) and, with ``use_phrases``, also jump over phrase entries
    (TERp's recursion, done here with an explicit stack in the same order)."""
    herr, rerr, ralign, halign = errors
    hyp_stop, ref_stop = stops
    max_size, max_dist, use_phrases = limits
    hyp_ids, ph_rlen, ph_hlen, ph_first, ph_off, ph_ids, _ = phrases
    n_hyp = perm.shape[0]
    count = 0
    st_hlen = np.empty(max_size + 2, np.int64)
    st_rlen = np.empty(max_size + 2, np.int64)
    st_len = np.empty(max_size + 2, np.int64)
    st_k = np.empty(max_size + 2, np.int64)
    for ri in range(n_ref):
        for hi in range(n_hyp):
            top = 0
            st_hlen[0] = 0
            st_rlen[0] = 0
            st_len[0] = 0
            st_k[0] = -1
            while top >= 0:
                h_len = st_hlen[top]
                r_len = st_rlen[top]
                ln = st_len[top]
                if h_len >= max_size or ln >= max_size - h_len:
                    top -= 1
                    continue
                hind = hi + h_len + ln
                rind = ri + r_len + ln
                if hind >= n_hyp or rind >= n_ref:
                    top -= 1
                    continue
                if st_k[top] == -1:
                    st_k[top] = ph_first[rind] if use_phrases else 0
                pushed = False
                # TERp looks phrases up only for reference positions facing hypothesis words
                # within a shift's reach of the lookup position (its ``paramap`` window).
                in_window = False
                if use_phrases:
                    sh = hind - max_dist if hind - max_dist > 0 else 0
                    eh = hind + max_dist if hind + max_dist < n_hyp - 1 else n_hyp - 1
                    lo_r = halign[sh] if halign[sh] > 0 else 0
                    hi_r = halign[eh] if halign[eh] < n_ref - 1 else n_ref - 1
                    in_window = lo_r <= rind <= hi_r
                if in_window:
                    while st_k[top] < ph_first[rind + 1]:
                        k = st_k[top]
                        st_k[top] += 1
                        if _phrase_matches(k, perm, hind, hyp_ids, ph_hlen, ph_off, ph_ids):
                            top += 1
                            st_hlen[top] = h_len + ln + ph_hlen[k]
                            st_rlen[top] = r_len + ln + ph_rlen[k]
                            st_len[top] = 0
                            st_k[top] = -1
                            pushed = True
                            break
                if pushed:
                    continue
                if not shift_eq[perm[hind], rind]:
                    top -= 1
                    continue
                st_len[top] = ln + 1
                st_k[top] = -1
                no_err = True
                for t in range(hi, hind + 1):
                    if herr[t]:
                        no_err = False
                        break
                if no_err:
                    continue
                no_err = True
                for t in range(ri, rind + 1):
                    if rerr[t]:
                        no_err = False
                        break
                if no_err:
                    continue
                all_stop = True
                for t in range(hi, hind + 1):
                    if not hyp_stop[perm[t]]:
                        all_stop = False
                        break
                if all_stop:
                    continue
                all_stop = True
                for t in range(ri, rind + 1):
                    if not ref_stop[t]:
                        all_stop = False
                        break
                if all_stop:
                    continue
                moveto = ralign[ri]
                if not (
                    moveto != hi
                    and (moveto < hi or moveto > hind)
                    and moveto - hi <= max_dist
                    and hi - moveto <= max_dist
                ):
                    continue
                span = hind - hi + 1
                if rind - ri + 1 > span:
                    span = rind - ri + 1
                if span > max_size + 1:
                    span = max_size + 1
                for roff in range(-1, hind - hi + 1):
                    if roff == -1 and ri == 0:
                        count = _add_candidate(cands, count, hi, hind, -1, -1, span - 1)
                    elif (
                        ri + roff >= 0
                        and ri + roff < n_ref
                        and hi != ralign[ri + roff]
                        and (roff == 0 or ralign[ri + roff] != ralign[ri])
                    ):
                        count = _add_candidate(
                            cands, count, hi, hind, ri + roff, ralign[ri + roff], span - 1
                        )
                    if count < 0:
                        return -1
    return count


@njit(cache=True)
def terp_search(
    n_ref: int,
    tables: Tables,
    shift_eq: BoolArray,
    costs: Costs,
    stops: Stops,
    search: Search,
    phrases: Phrases,
) -> tuple[float, I64, I8, I64, I64, I64, int, I64, int]:
    """TERp's ``TERpp``: greedy shifts (``CalcBestShift``), then the final alignment.

    Word tables are ``(H, R)`` by original hypothesis position. Returns ``(num_edits, perm,
    path, path_rl, path_hl, path_ph, path_len, shifts, n_shifts)``: ``perm`` (H,) the order
    after shifts, the path's labels, spans and phrase rows, and shift rows
    ``(start, end, moveto, newloc)``.
    """
    shift_cost = costs[6]
    beam, max_size, max_dist, do_shifts, shift_phrases = search
    ph_rlen, ph_hlen = phrases[1], phrases[2]
    n_hyp = tables[0].shape[0]
    perm = np.arange(n_hyp)
    s_mat = np.empty((n_ref + 1, n_hyp + 1))
    p_mat = np.zeros((n_ref + 1, n_hyp + 1), np.int8)
    pl_mat = np.zeros((n_ref + 1, n_hyp + 1), np.int64)
    work = (s_mat, p_mat, pl_mat)
    size = n_hyp + n_ref
    path = np.empty(size, np.int8)
    path_rl = np.empty(size, np.int64)
    path_hl = np.empty(size, np.int64)
    path_ph = np.empty(size, np.int64)
    herr = np.zeros(n_hyp, np.bool_)
    rerr = np.zeros(n_ref, np.bool_)
    ralign = np.zeros(n_ref, np.int64)
    halign = np.zeros(n_hyp, np.int64)
    cands = np.empty((64, 5), np.int64)
    trial = np.empty(n_hyp, np.int64)
    best_perm = np.empty(n_hyp, np.int64)
    shifts = np.empty((8, 4), np.int64)
    n_shifts = 0
    edits = 0.0
    while True:
        # Edit distance and path of the current order (the trials below overwrite the tables).
        cur_ed = _min_edit_dist(
            perm,
            n_ref,
            tables,
            costs,
            beam,
            phrases,
            work,
        )
        path_len = _trace(
            n_hyp, n_ref, p_mat, pl_mat, ph_rlen, ph_hlen, path, path_rl, path_hl, path_ph
        )
        if not do_shifts:
            break
        herr[:] = False
        rerr[:] = False
        ralign[:] = 0
        halign[:] = 0
        _align_errors(path, path_rl, path_hl, path_len, herr, rerr, ralign, halign)
        while True:  # a full candidate table is answered -1: grow it and gather again
            n_cands = _gather_shifts(
                perm,
                n_ref,
                shift_eq,
                (herr, rerr, ralign, halign),
                stops,
                (max_size, max_dist, shift_phrases),
                phrases,
                cands,
            )
            if n_cands >= 0:
                break
            cands = np.empty((cands.shape[0] * 2, 5), np.int64)
        # TERp's order: longest bucket first, then (start, end, newloc) ascending.
        w = n_hyp + 2
        keys = np.empty(n_cands, np.int64)
        for k in range(n_cands):
            keys[k] = (((max_size + 1 - cands[k, 4]) * w + cands[k, 0]) * w + cands[k, 1]) * w + (
                cands[k, 3] + 1
            )
        order = np.argsort(keys)
        curerr = cur_ed
        best_cost = 0.0
        best_ed = cur_ed
        best = -1
        for idx in range(n_cands):
            k = order[idx]
            maxfix = 2.0 * (1 + cands[k, 4])
            curfix = curerr - (best_cost + best_ed)
            if curfix > maxfix or (best_cost != 0.0 and curfix == maxfix):
                break
            apply_shift(perm, cands[k, 0], cands[k, 1], cands[k, 3], trial)
            ed = _min_edit_dist(
                trial,
                n_ref,
                tables,
                costs,
                beam,
                phrases,
                work,
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
    return cur_ed + edits, perm, path, path_rl, path_hl, path_ph, path_len, shifts, n_shifts
