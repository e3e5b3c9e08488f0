"""numba kernels: forward, backward (expected feature counts), Viterbi over pFSM/pPDA lattices.

Private: call them through :mod:`scoring.pfsm.lattice`, which validates and allocates.

Lattice (Wang & Manning 2012, §2 and §2.2). A node is a machine configuration: the position ``(i,
j)`` (source
and target tokens consumed so far), the jump memory, and the *shape* of the last operation. With
the match tables (``single`` ``(N, M)``, ``block`` ``(N, M, 3)``) the shape and the position
determine the last state, hence the transition feature of the next edge. Node families:

- normal ``(i, j, shape)``; shapes ``INS DEL S11 B12 B21 B22`` (0–5), ``START`` (6), ``J3`` (7).
- landed, per side (``Y``: the jump is on the target side, ``X``: on the source side), in
  coordinates ``(q, p)`` = (other side, jump side) position: ``(q, p, a, k, shape)`` where
  ``a = J_landing − J_start`` (1..D) is the gap the forward jump left and ``k = p − J_landing``
  (0..D) how far the machine has gone past the landing; shape ``J1`` (6) only with ``k = 0``.
- gap, per side: ``(q, p, r, b, shape)`` with ``p`` inside the gap, ``r = J_landing − p``
  (0..D) the part of the gap still to edit and ``b = J_end − J_landing`` (1..D); shapes 0–5,
  ``J2`` (6), and ``PRE`` (7): the operation that consumes only the other side, taken before
  the first substitution of the gap (its state is ``DEL`` for side Y and ``INS`` for side X).

Every edge consumes at least one token except the three jumps, and the tokens consumed are
``c = i + j`` (normal), ``q + p − a`` (landed) and ``q + p + b`` (gap), so nodes are processed by
``c`` and, within one ``c``, in the order landed (k ≥ 1), gap, normal, landed (k = 0): jumps only
go forward in that order.

Edge score: ``w[state] + w[transition(prev, state)]`` (no transition feature after START), and
``w[stop(prev)]`` on the edge into the final node. Values are natural logs.

Two things keep the pPDA affordable. Nodes that cannot finish are never entered: a gap can only
be closed if some substitution lies at its first position (before its first substitution the gap
admits only the other side's insert/delete), which :func:`_last_substitutions` tabulates; and
only cells flagged live by an incoming edge are scanned. Then, because the lattice does not
depend on the weights, training records it once per pair as an edge list (``MODE_RECORD``) and
runs the forward and backward passes over that list (:func:`_edge_forward`,
:func:`_edge_backward`), which is about ten times faster than walking the configurations.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from numba import njit

from scoring.pfsm.features import (
    N_STATES,
    ST_DEL,
    ST_INS,
    ST_J1,
    ST_J2,
    ST_J3,
)

MODE_FORWARD = 0
MODE_VITERBI = 1
MODE_BACKWARD = 2
MODE_SUPPORT = 3
MODE_RECORD = 4

SH_INS = 0
SH_DEL = 1
SH_S11 = 2
SH_SPECIAL = 6  # START (normal), J1 (landed), J2 (gap)
SH_EXTRA = 7  # J3 (normal), PRE (gap)
N_SHAPES = 8

KIND_NORMAL = 0
KIND_LANDED = 1
KIND_GAP = 2
KIND_FINAL = 3

_DX = np.array([0, 1, 1, 1, 2, 2], dtype=np.int64)
_DY = np.array([1, 0, 1, 2, 1, 2], dtype=np.int64)
_TRANS0 = N_STATES
_STOP0 = N_STATES + N_STATES * N_STATES
_MAX_EDGES = 64

I8 = npt.NDArray[np.int8]
I64 = npt.NDArray[np.int64]
F64 = npt.NDArray[np.float64]
I64_2D = npt.NDArray[np.int64]
I32 = npt.NDArray[np.int32]
I16 = npt.NDArray[np.int16]
U8 = npt.NDArray[np.uint8]
_NEG = -np.inf


@njit(cache=True)
def _lae(a: float, b: float) -> float:
    if a == _NEG:
        return b
    if b == _NEG:
        return a
    if a > b:
        return float(a + np.log1p(np.exp(b - a)))
    return float(b + np.log1p(np.exp(a - b)))


@njit(cache=True)
def _layout(n: int, m: int, d: int) -> tuple[npt.NDArray[np.int64], int]:
    """Offsets of the node families in the flat node array; returns (offsets[6], total)."""
    offs = np.zeros(6, dtype=np.int64)
    size_normal = (n + 1) * (m + 1) * N_SHAPES
    per_cell = (d * (d + 1)) * N_SHAPES if d > 0 else 0
    size_side = (n + 1) * (m + 1) * per_cell
    offs[0] = 0
    offs[1] = size_normal  # landed Y
    offs[2] = offs[1] + size_side  # gap Y
    offs[3] = offs[2] + size_side  # landed X
    offs[4] = offs[3] + size_side  # gap X
    offs[5] = offs[4] + size_side  # final node
    return offs, int(offs[5] + 1)


@njit(cache=True)
def _normal_index(i: int, j: int, sh: int, m: int) -> int:
    return (i * (m + 1) + j) * N_SHAPES + sh


@njit(cache=True)
def _landed_index(
    offs: I64, side: int, q: int, p: int, a: int, k: int, sh: int, big_p: int, d: int
) -> int:
    cell = ((q * (big_p + 1) + p) * d + (a - 1)) * (d + 1) + k
    return int(offs[1 + 2 * side]) + cell * N_SHAPES + sh


@njit(cache=True)
def _gap_index(
    offs: I64, side: int, q: int, p: int, r: int, b: int, sh: int, big_p: int, d: int
) -> int:
    cell = ((q * (big_p + 1) + p) * (d + 1) + r) * d + (b - 1)
    return int(offs[2 + 2 * side]) + cell * N_SHAPES + sh


@njit(cache=True)
def _op_state(sh: int, i0: int, j0: int, n: int, m: int, single: I8, block: I8) -> int:
    """State of the operation of shape ``sh`` (0–5) starting at ``(i0, j0)``, or −1."""
    if sh == SH_INS:
        return ST_INS if j0 < m else -1
    if sh == SH_DEL:
        return ST_DEL if i0 < n else -1
    if i0 + _DX[sh] > n or j0 + _DY[sh] > m:
        return -1
    if sh == SH_S11:
        return int(single[i0, j0])
    return int(block[i0, j0, sh - 3])


@njit(cache=True)
def _to_ij(side: int, q: int, p: int) -> tuple[int, int]:
    if side == 0:
        return q, p
    return p, q


@njit(cache=True)
def _dq_dp(side: int, sh: int) -> tuple[int, int]:
    if side == 0:
        return int(_DX[sh]), int(_DY[sh])
    return int(_DY[sh]), int(_DX[sh])


@njit(cache=True)
def _last_state(
    kind: int, side: int, sh: int, i: int, j: int, n: int, m: int, single: I8, block: I8
) -> int:
    """State of the operation that led into a node at actual position ``(i, j)`` (−1: START)."""
    if sh < SH_SPECIAL:
        return _op_state(sh, i - _DX[sh], j - _DY[sh], n, m, single, block)
    if kind == KIND_NORMAL:
        return -1 if sh == SH_SPECIAL else ST_J3
    if kind == KIND_LANDED:
        return ST_J1
    if sh == SH_SPECIAL:
        return ST_J2
    return ST_DEL if side == 0 else ST_INS


@njit(cache=True)
def _score(w: F64, prev: int, state: int) -> float:
    if prev < 0:
        return float(w[state])
    return float(w[state] + w[_TRANS0 + prev * N_STATES + state])


@njit(cache=True)
def _flag(fam: int, q: int, p: int, x: int, n: int, m: int, d: int) -> int:
    """Index of the live-cell flag of family ``fam`` (0 normal, 1/2 landed/gap Y, 3/4 X) at
    ``(q, p)`` with memory ``x`` (``a − 1`` for landed, ``b − 1`` for gap, 0 for normal)."""
    rr = max(n, m) + 1
    return ((fam * rr + q) * rr + p) * max(d, 1) + x


@njit(cache=True)
def _last_substitutions(n: int, m: int, d: int, single: I8, block: I8) -> I64:
    """``(2, max(N, M) + 1, D + 1)``: for side Y, ``[0, j, a]`` is the last source position ``i``
    with a substitution at ``(i, j)`` that spans at most ``a`` target tokens (−1: none); side X
    likewise with the roles swapped. A gap starting at ``p`` with width ``a`` can only be
    completed from other-side position ``q`` if ``[side, p, a] ≥ q``: before its first
    substitution the gap admits only the other side's insertion/deletion, which leaves ``p``
    where it is. Used to prune dead ends; it never changes a value."""
    out = np.full((2, max(n, m) + 1, d + 1), -1, dtype=np.int64)
    for i in range(n):
        for j in range(m):
            for sh in range(SH_S11, SH_SPECIAL):
                di = _DX[sh]
                dj = _DY[sh]
                if i + di > n or j + dj > m:
                    continue
                s = single[i, j] if sh == SH_S11 else block[i, j, sh - 3]
                if s < 0:
                    continue
                for a in range(dj, d + 1):
                    if a >= 1 and out[0, j, a] < i:
                        out[0, j, a] = i
                for a in range(di, d + 1):
                    if a >= 1 and out[1, i, a] < j:
                        out[1, i, a] = j
    return out


@njit(cache=True)
def _out_edges(
    kind: int,
    side: int,
    q: int,
    p: int,
    x1: int,
    x2: int,
    sh: int,
    n: int,
    m: int,
    d: int,
    single: I8,
    block: I8,
    lastsub: I64,
    w: F64,
    offs: I64,
    ev: I64,
    esc: F64,
    es: I64,
    efl: I64,
    flags: U8,
) -> tuple[int, int]:
    """Fill ``ev`` (target node), ``esc`` (score), ``es`` (state, −1 for stop) with the edges
    leaving one node; returns ``(count, previous state)``."""
    cnt = 0
    if kind == KIND_NORMAL:
        i, j = q, p
    else:
        i, j = _to_ij(side, q, p)
    prev = _last_state(kind, side, sh, i, j, n, m, single, block)
    if kind == KIND_NORMAL:
        if sh == SH_SPECIAL and (i != 0 or j != 0):
            return 0, prev
        if i == n and j == m and prev >= 0:
            ev[cnt] = offs[5]
            efl[cnt] = -1
            esc[cnt] = w[_STOP0 + prev]
            es[cnt] = -1
            cnt += 1
        for op in range(6):
            s = _op_state(op, i, j, n, m, single, block)
            if s < 0:
                continue
            ev[cnt] = _normal_index(i + _DX[op], j + _DY[op], op, m)
            efl[cnt] = _flag(0, i + _DX[op], j + _DY[op], 0, n, m, d)
            esc[cnt] = _score(w, prev, s)
            es[cnt] = s
            cnt += 1
        if d > 0 and i < n and j < m:
            sc = _score(w, prev, ST_J1)
            for a in range(1, d + 1):
                if j + a < m and lastsub[0, j, a] >= i:  # side Y: skip a target tokens
                    ev[cnt] = _landed_index(offs, 0, i, j + a, a, 0, SH_SPECIAL, m, d)
                    efl[cnt] = _flag(1, i, j + a, a - 1, n, m, d)
                    esc[cnt] = sc
                    es[cnt] = ST_J1
                    cnt += 1
                if i + a < n and lastsub[1, i, a] >= j:  # side X: skip a source tokens
                    ev[cnt] = _landed_index(offs, 1, j, i + a, a, 0, SH_SPECIAL, n, d)
                    efl[cnt] = _flag(3, j, i + a, a - 1, n, m, d)
                    esc[cnt] = sc
                    es[cnt] = ST_J1
                    cnt += 1
        return cnt, prev
    big_q = n if side == 0 else m
    big_p = m if side == 0 else n
    if kind == KIND_LANDED:
        a, k = x1, x2
        for op in range(6):
            if sh == SH_SPECIAL and op < SH_S11:
                continue  # only substitutions right after the forward jump
            dq, dp = _dq_dp(side, op)
            if k + dp > d or q + dq > big_q or p + dp > big_p:
                continue
            s = _op_state(op, i, j, n, m, single, block)
            if s < 0 or lastsub[side, p - k - a, a] < q + dq:
                continue
            ev[cnt] = _landed_index(offs, side, q + dq, p + dp, a, k + dp, op, big_p, d)
            efl[cnt] = _flag(1 + 2 * side, q + dq, p + dp, a - 1, n, m, d)
            esc[cnt] = _score(w, prev, s)
            es[cnt] = s
            cnt += 1
        if sh != SH_SPECIAL:
            ev[cnt] = _gap_index(offs, side, q, p - k - a, a, k, SH_SPECIAL, big_p, d)
            efl[cnt] = _flag(2 + 2 * side, q, p - k - a, k - 1, n, m, d)
            esc[cnt] = _score(w, prev, ST_J2)
            es[cnt] = ST_J2
            cnt += 1
        return cnt, prev
    # gap
    r, b = x1, x2
    if r == 0:
        if side == 0:
            ev[cnt] = _normal_index(q, p + b, SH_EXTRA, m)
            efl[cnt] = _flag(0, q, p + b, 0, n, m, d)
        else:
            ev[cnt] = _normal_index(p + b, q, SH_EXTRA, m)
            efl[cnt] = _flag(0, p + b, q, 0, n, m, d)
        esc[cnt] = _score(w, prev, ST_J3)
        es[cnt] = ST_J3
        return 1, prev
    no_sub_yet = sh >= SH_SPECIAL
    for op in range(6):
        dq, dp = _dq_dp(side, op)
        if dp > r or q + dq > big_q:
            continue
        if dq == 0 and no_sub_yet:
            continue  # the jump side's own insertion/deletion waits for a substitution
        s = _op_state(op, i, j, n, m, single, block)
        if s < 0:
            continue
        target_shape = op
        if dp == 0 and no_sub_yet:
            if lastsub[side, p, r] < q + dq:
                continue
            target_shape = SH_EXTRA
        ev[cnt] = _gap_index(offs, side, q + dq, p + dp, r - dp, b, target_shape, big_p, d)
        efl[cnt] = _flag(2 + 2 * side, q + dq, p + dp, b - 1, n, m, d)
        esc[cnt] = _score(w, prev, s)
        es[cnt] = s
        cnt += 1
    return cnt, prev


@njit(cache=True)
def _node_id(u: int, ids: I64, meta: I64) -> int:
    if ids[u] < 0:
        ids[u] = meta[1]
        meta[1] += 1
    return int(ids[u])


@njit(cache=True)
def _record(u: int, v: int, s: int, prev: int, ids: I64, rec: I64_2D, meta: I64) -> int:
    """Append edge ``u → v`` as ``(source id, target id, feature, feature or −1)`` and return
    its row, or only count it (−1) once the capacity ``rec.shape[0]`` is reached.
    ``meta = [edges, nodes]``. With 8 columns the caller adds the source and target positions
    ``(i, j)`` (for link posteriors)."""
    a = _node_id(u, ids, meta)
    b = _node_id(v, ids, meta)
    e = int(meta[0])
    meta[0] += 1
    if e >= rec.shape[0]:
        return -1
    rec[e, 0] = a
    rec[e, 1] = b
    if s < 0:
        rec[e, 2] = _STOP0 + prev
        rec[e, 3] = -1
    else:
        rec[e, 2] = s
        rec[e, 3] = _TRANS0 + prev * N_STATES + s if prev >= 0 else -1
    return e


@njit(cache=True)
def _visit(
    mode: int,
    u: int,
    kind: int,
    side: int,
    q: int,
    p: int,
    x1: int,
    x2: int,
    sh: int,
    n: int,
    m: int,
    d: int,
    single: I8,
    block: I8,
    lastsub: I64,
    w: F64,
    offs: I64,
    alpha: F64,
    beta: F64,
    bp: I64,
    counts: F64,
    log_z: float,
    scale: float,
    ev: I64,
    esc: F64,
    es: I64,
    efl: I64,
    flags: U8,
    rec: I64_2D,
    meta: I64,
) -> None:
    """Process one node: push (forward, Viterbi) or pull (backward, support)."""
    if alpha[u] == _NEG:
        return
    cnt, prev = _out_edges(
        kind,
        side,
        q,
        p,
        x1,
        x2,
        sh,
        n,
        m,
        d,
        single,
        block,
        lastsub,
        w,
        offs,
        ev,
        esc,
        es,
        efl,
        flags,
    )
    if mode == MODE_FORWARD:
        base = alpha[u]
        for e in range(cnt):
            v = ev[e]
            alpha[v] = _lae(alpha[v], base + esc[e])
            if efl[e] >= 0:
                flags[efl[e]] = 1
        return
    if mode == MODE_VITERBI:
        base = alpha[u]
        for e in range(cnt):
            v = ev[e]
            val = base + esc[e]
            if val > alpha[v]:
                alpha[v] = val
                bp[v] = u
                if efl[e] >= 0:
                    flags[efl[e]] = 1
        return
    acc = _NEG
    for e in range(cnt):
        v = ev[e]
        if beta[v] == _NEG:
            continue
        val = esc[e] + beta[v]
        acc = _lae(acc, val)
        s = es[e]
        if mode == MODE_RECORD:
            e_rec = _record(u, v, s, prev, bp, rec, meta)
            if e_rec >= 0 and rec.shape[1] == 8:
                iu, ju = (q, p) if kind == KIND_NORMAL else _to_ij(side, q, p)
                _, _, iv, jv, _ = _decode_node(v, n, m, d, offs)
                rec[e_rec, 4] = iu
                rec[e_rec, 5] = ju
                rec[e_rec, 6] = iv
                rec[e_rec, 7] = jv
            continue
        post = scale * np.exp(alpha[u] + val - log_z) if mode == MODE_BACKWARD else 1.0
        if s < 0:
            counts[_STOP0 + prev] += post
        else:
            counts[s] += post
            if prev >= 0:
                counts[_TRANS0 + prev * N_STATES + s] += post
    beta[u] = acc


@njit(cache=True)
def _group(
    mode: int,
    group: int,
    c: int,
    n: int,
    m: int,
    d: int,
    single: I8,
    block: I8,
    lastsub: I64,
    w: F64,
    offs: I64,
    alpha: F64,
    beta: F64,
    bp: I64,
    counts: F64,
    log_z: float,
    scale: float,
    ev: I64,
    esc: F64,
    es: I64,
    efl: I64,
    flags: U8,
    rec: I64_2D,
    meta: I64,
) -> None:
    """All nodes of one processing group with ``c`` tokens consumed.

    Groups: 0 landed with k ≥ 1, 1 gap, 2 normal, 3 landed with k = 0 (after J1)."""
    if group == 2:
        lo = max(0, c - m)
        hi = min(n, c)
        for i in range(lo, hi + 1):
            j = c - i
            if flags[_flag(0, i, j, 0, n, m, d)] == 0:
                continue
            for sh in range(N_SHAPES):
                u = _normal_index(i, j, sh, m)
                if alpha[u] == _NEG:
                    continue
                _visit(
                    mode,
                    u,
                    KIND_NORMAL,
                    0,
                    i,
                    j,
                    0,
                    0,
                    sh,
                    n,
                    m,
                    d,
                    single,
                    block,
                    lastsub,
                    w,
                    offs,
                    alpha,
                    beta,
                    bp,
                    counts,
                    log_z,
                    scale,
                    ev,
                    esc,
                    es,
                    efl,
                    flags,
                    rec,
                    meta,
                )
        return
    if d == 0:
        return
    for side in range(2):
        big_q = n if side == 0 else m
        big_p = m if side == 0 else n
        if group == 1:
            for q in range(big_q + 1):
                for b in range(1, d + 1):
                    p = c - q - b
                    if p < 0 or p > big_p:
                        continue
                    if flags[_flag(2 + 2 * side, q, p, b - 1, n, m, d)] == 0:
                        continue
                    for r in range(d + 1):
                        if p + r + b > big_p:
                            break
                        for sh in range(N_SHAPES):
                            u = _gap_index(offs, side, q, p, r, b, sh, big_p, d)
                            if alpha[u] == _NEG:
                                continue
                            _visit(
                                mode,
                                u,
                                KIND_GAP,
                                side,
                                q,
                                p,
                                r,
                                b,
                                sh,
                                n,
                                m,
                                d,
                                single,
                                block,
                                lastsub,
                                w,
                                offs,
                                alpha,
                                beta,
                                bp,
                                counts,
                                log_z,
                                scale,
                                ev,
                                esc,
                                es,
                                efl,
                                flags,
                                rec,
                                meta,
                            )
        else:
            for q in range(big_q + 1):
                for a in range(1, d + 1):
                    p = c - q + a
                    if p < 0 or p > big_p:
                        continue
                    if flags[_flag(1 + 2 * side, q, p, a - 1, n, m, d)] == 0:
                        continue
                    if group == 3:
                        if p - a < 0:
                            continue
                        u = _landed_index(offs, side, q, p, a, 0, SH_SPECIAL, big_p, d)
                        if alpha[u] == _NEG:
                            continue
                        _visit(
                            mode,
                            u,
                            KIND_LANDED,
                            side,
                            q,
                            p,
                            a,
                            0,
                            SH_SPECIAL,
                            n,
                            m,
                            d,
                            single,
                            block,
                            lastsub,
                            w,
                            offs,
                            alpha,
                            beta,
                            bp,
                            counts,
                            log_z,
                            scale,
                            ev,
                            esc,
                            es,
                            efl,
                            flags,
                            rec,
                            meta,
                        )
                        continue
                    for k in range(1, d + 1):
                        if p - k - a < 0:
                            break
                        for sh in range(SH_SPECIAL):
                            u = _landed_index(offs, side, q, p, a, k, sh, big_p, d)
                            if alpha[u] == _NEG:
                                continue
                            _visit(
                                mode,
                                u,
                                KIND_LANDED,
                                side,
                                q,
                                p,
                                a,
                                k,
                                sh,
                                n,
                                m,
                                d,
                                single,
                                block,
                                lastsub,
                                w,
                                offs,
                                alpha,
                                beta,
                                bp,
                                counts,
                                log_z,
                                scale,
                                ev,
                                esc,
                                es,
                                efl,
                                flags,
                                rec,
                                meta,
                            )


@njit(cache=True)
def _sweep(
    mode: int,
    n: int,
    m: int,
    d: int,
    single: I8,
    block: I8,
    w: F64,
    alpha: F64,
    beta: F64,
    bp: I64,
    counts: F64,
    rec: I64_2D,
    meta: I64,
) -> float:
    """The dynamic programs of one pair; returns ``y`` (or the best score for Viterbi).

    ``MODE_FORWARD`` fills ``alpha`` (log forward values). ``MODE_VITERBI`` uses max instead of
    log-sum and fills ``bp`` with back-pointers. ``MODE_BACKWARD`` runs the forward pass, then the
    backward pass into ``beta``, adding each feature's expected count ``E[f]`` to ``counts``.
    ``MODE_SUPPORT`` does the same but adds 1 per lattice edge that lies on a complete edit
    sequence. ``MODE_RECORD`` writes those edges into ``rec`` (see :func:`_record`), in reverse
    topological order of their sources, with node ids kept in ``bp``; the start node's id is
    ``bp[_normal_index(0, 0, SH_SPECIAL, m)]`` and the final node's ``bp[offsets[5]]``.
    ``alpha``/``beta``/``bp`` need ``_layout(n, m, d)[1]`` slots.
    """
    offs, total = _layout(n, m, d)
    lastsub = _last_substitutions(n, m, d, single, block)
    rr = max(n, m) + 1
    flags = np.zeros(5 * rr * rr * max(d, 1), dtype=np.uint8)
    ev = np.empty(_MAX_EDGES, dtype=np.int64)
    esc = np.empty(_MAX_EDGES, dtype=np.float64)
    es = np.empty(_MAX_EDGES, dtype=np.int64)
    efl = np.empty(_MAX_EDGES, dtype=np.int64)
    last_c = n + m
    forward_mode = MODE_VITERBI if mode == MODE_VITERBI else MODE_FORWARD
    alpha[:total] = _NEG
    if mode == MODE_VITERBI:
        bp[:total] = -1
    alpha[_normal_index(0, 0, SH_SPECIAL, m)] = 0.0
    flags[_flag(0, 0, 0, 0, n, m, d)] = 1
    for c in range(last_c + 1):
        for group in range(4):
            _group(
                forward_mode, group, c, n, m, d, single, block, lastsub, w, offs,
                alpha, beta, bp, counts, 0.0, 0.0, ev, esc, es, efl, flags, rec, meta,
            )  # fmt: skip
    y = float(alpha[offs[5]])
    if mode in (MODE_FORWARD, MODE_VITERBI) or y == _NEG:
        return y
    beta[:total] = _NEG
    beta[offs[5]] = 0.0
    if mode == MODE_RECORD:
        bp[:total] = -1
    for c in range(last_c, -1, -1):
        for group in range(3, -1, -1):
            _group(
                mode, group, c, n, m, d, single, block, lastsub, w, offs,
                alpha, beta, bp, counts, y, 1.0, ev, esc, es, efl, flags, rec, meta,
            )  # fmt: skip
    return y


@njit(cache=True)
def _decode_node(u: int, n: int, m: int, d: int, offs: I64) -> tuple[int, int, int, int, int]:
    """Inverse of the index functions: ``(kind, side, i, j, sh)`` of flat node ``u``."""
    if u >= offs[5]:
        return KIND_FINAL, 0, n, m, 0
    if u < offs[1]:
        sh = u % N_SHAPES
        cell = u // N_SHAPES
        return KIND_NORMAL, 0, cell // (m + 1), cell % (m + 1), sh
    fam = 1
    while fam < 4 and u >= offs[fam + 1]:
        fam += 1
    side = (fam - 1) // 2
    kind = KIND_LANDED if fam % 2 == 1 else KIND_GAP
    big_p = m if side == 0 else n
    rest = u - offs[fam]
    sh = rest % N_SHAPES
    rest //= N_SHAPES
    rest //= d  # second memory index
    rest //= d + 1  # first memory index
    p = rest % (big_p + 1)
    q = rest // (big_p + 1)
    i, j = _to_ij(side, q, p)
    return kind, side, i, j, sh


@njit(cache=True)
def _viterbi_path(
    n: int, m: int, d: int, single: I8, block: I8, w: F64, alpha: F64, bp: I64, out: I64
) -> tuple[int, float]:
    """Best edit sequence: fills ``out`` rows ``(state, i_start, j_start, di, dj)`` in order and
    returns ``(row count, best score)``. Jumps have ``di = dj = 0`` and the position at which
    they are taken. ``out`` needs ``3 (N + M) + 3`` rows."""
    beta = alpha[:1]
    counts = np.zeros(1)
    best = _sweep(
        MODE_VITERBI, n, m, d, single, block, w, alpha, beta, bp, counts,
        np.zeros((0, 4), dtype=np.int64), np.zeros(2, dtype=np.int64),
    )  # fmt: skip
    offs, _ = _layout(n, m, d)
    rows = 0
    u = bp[offs[5]]
    start = _normal_index(0, 0, SH_SPECIAL, m)
    while u != start and u >= 0:
        kind, side, i, j, sh = _decode_node(u, n, m, d, offs)
        if sh < SH_SPECIAL:
            di, dj = _DX[sh], _DY[sh]
            out[rows, 0] = _op_state(sh, i - di, j - dj, n, m, single, block)
            out[rows, 1] = i - di
            out[rows, 2] = j - dj
            out[rows, 3] = di
            out[rows, 4] = dj
        else:
            if kind == KIND_GAP and sh == SH_EXTRA:
                di = 1 if side == 0 else 0
                dj = 1 - di
                out[rows, 0] = ST_DEL if side == 0 else ST_INS
                out[rows, 1] = i - di
                out[rows, 2] = j - dj
                out[rows, 3] = di
                out[rows, 4] = dj
            else:
                state = ST_J3 if kind == KIND_NORMAL else (ST_J1 if kind == KIND_LANDED else ST_J2)
                # a jump is reported where it is taken: the previous node's position
                _, _, i_from, j_from, _ = _decode_node(bp[u], n, m, d, offs)
                out[rows, 0] = state
                out[rows, 1] = i_from
                out[rows, 2] = j_from
                out[rows, 3] = 0
                out[rows, 4] = 0
        rows += 1
        u = bp[u]
    # reverse in place
    for r in range(rows // 2):
        for col in range(5):
            tmp = out[r, col]
            out[r, col] = out[rows - 1 - r, col]
            out[rows - 1 - r, col] = tmp
    return rows, best


@njit(cache=True)
def _record_lattice(
    n: int,
    m: int,
    d: int,
    single: I8,
    block: I8,
    alpha: F64,
    beta: F64,
    ids: I64,
    rec: I64_2D,
    meta: I64,
) -> tuple[int, int]:
    """Write the lattice of one pair as an edge list (``MODE_RECORD``); returns the ids of the
    start and final nodes. Call with a zero-row ``rec`` to learn the size (``meta[0]``) first."""
    meta[0] = 0
    meta[1] = 0
    w = np.zeros(_STOP0 + N_STATES)
    counts = np.zeros(1)
    _sweep(MODE_RECORD, n, m, d, single, block, w, alpha, beta, ids, counts, rec, meta)
    offs, _ = _layout(n, m, d)
    return int(ids[_normal_index(0, 0, SH_SPECIAL, m)]), int(ids[offs[5]])


@njit(cache=True)
def _edge_forward(
    src: I32, dst: I32, f1: I16, f2: I16, w: F64, start: int, final: int, alpha: F64
) -> float:
    """Forward pass over an edge list in reverse order (sources topologically ascending)."""
    alpha[:] = _NEG
    alpha[start] = 0.0
    for e in range(src.shape[0] - 1, -1, -1):
        a = alpha[src[e]]
        if a == _NEG:
            continue
        sc = w[f1[e]]
        if f2[e] >= 0:
            sc += w[f2[e]]
        alpha[dst[e]] = _lae(alpha[dst[e]], a + sc)
    return float(alpha[final])


@njit(cache=True)
def _edge_backward(
    src: I32,
    dst: I32,
    f1: I16,
    f2: I16,
    w: F64,
    y: float,
    final: int,
    alpha: F64,
    beta: F64,
    counts: F64,
    scale: float,
) -> None:
    """Backward pass; adds ``scale × E[f]`` to ``counts``."""
    beta[:] = _NEG
    beta[final] = 0.0
    for e in range(src.shape[0]):
        b = beta[dst[e]]
        sc = w[f1[e]]
        if f2[e] >= 0:
            sc += w[f2[e]]
        val = sc + b
        u = src[e]
        beta[u] = _lae(beta[u], val)
        post = scale * np.exp(alpha[u] + val - y)
        counts[f1[e]] += post
        if f2[e] >= 0:
            counts[f2[e]] += post


@njit(cache=True)
def _edge_batch(
    with_gradient: bool,
    w: F64,
    alpha0: float,
    targets: F64,
    norms: F64,
    edge_off: I64,
    node_off: I64,
    starts: I64,
    finals: I64,
    src: I32,
    dst: I32,
    f1: I16,
    f2: I16,
    alpha: F64,
    beta: F64,
    counts: F64,
    values: F64,
) -> tuple[float, float]:
    """``values[k] = y_k`` for every pair; with ``with_gradient`` also the squared error
    ``Σ_k (target_k − y_k / norm_k − alpha0)²`` (returned with its ``alpha0`` derivative) and its
    gradient in ``w`` added to ``counts``."""
    loss = 0.0
    g_alpha = 0.0
    for k in range(starts.shape[0]):
        e0 = edge_off[k]
        e1 = edge_off[k + 1]
        nodes = node_off[k + 1] - node_off[k]
        a = alpha[:nodes]
        y = _edge_forward(src[e0:e1], dst[e0:e1], f1[e0:e1], f2[e0:e1], w, starts[k], finals[k], a)
        values[k] = y
        if not with_gradient:
            continue
        resid = targets[k] - (y / norms[k] + alpha0)
        loss += resid * resid
        g_alpha += -2.0 * resid
        _edge_backward(
            src[e0:e1], dst[e0:e1], f1[e0:e1], f2[e0:e1], w, y, finals[k], a, beta[:nodes],
            counts, -2.0 * resid / norms[k],
        )  # fmt: skip
    return loss, g_alpha
