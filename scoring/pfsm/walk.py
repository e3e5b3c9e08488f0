"""The pFSM/pPDA machine walked configuration by configuration (numba kernels): forward,
backward (expected feature counts), Viterbi, and recording the lattice as an edge list.
:mod:`scoring.pfsm.lattice` validates input, allocates and calls :func:`sweep`.

Lattice (Wang & Manning 2012, §2 and §2.2). A node is a machine configuration: the position
``(i, j)`` (source and target tokens consumed so far), the jump memory, and the *shape* of the
last operation. With the match tables (``single`` ``(N, M)``, ``block`` ``(N, M, 3)``) the shape
and the position determine the last state, hence the transition feature of the
next edge. Node families:

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
runs the forward and backward passes over that list (:mod:`scoring.pfsm.edges`), about ten
times faster than walking the configurations.
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

DX = np.array([0, 1, 1, 1, 2, 2], dtype=np.int64)
DY = np.array([1, 0, 1, 2, 1, 2], dtype=np.int64)
_TRANS0 = N_STATES
STOP0 = N_STATES + N_STATES * N_STATES
_MAX_EDGES = 64

I8 = npt.NDArray[np.int8]
I64 = npt.NDArray[np.int64]
F64 = npt.NDArray[np.float64]
I64_2D = npt.NDArray[np.int64]
I32 = npt.NDArray[np.int32]
I16 = npt.NDArray[np.int16]
U8 = npt.NDArray[np.uint8]
#: A node's coordinates: ``(kind, side, q, p, x1, x2, shape)``.
Node = tuple[int, int, int, int, int, int, int]
#: One pair's machine: ``(n, m, jump limit, single, block, last substitutions, weights, offsets)``.
Machine = tuple[int, int, int, I8, I8, I64, F64, I64]
#: The dynamic programs' arrays: ``(alpha, beta, back-pointers, counts, log Z, scale)``.
Passes = tuple[F64, F64, I64, F64, float, float]
#: Scratch for the edges leaving one node: ``(targets, scores, states, flags, live cells)``.
Edges = tuple[I64, F64, I64, I64, U8]
#: Where ``MODE_RECORD`` writes edges: ``(rows, meta)``.
Record = tuple[I64_2D, I64]
#: Many pairs' recorded lattices: ``(targets, norms, edge offsets, node offsets, starts, finals)``.
BatchPairs = tuple[F64, F64, I64, I64, I64, I64]
#: Edge lists: ``(source node, target node, first feature, second feature)``.
EdgeList = tuple[I32, I32, I16, I16]
#: ``(alpha, beta, feature counts, y per pair)``.
BatchWork = tuple[F64, F64, F64, F64]
NEG = -np.inf


@njit(cache=True)
def lae(a: float, b: float) -> float:
    if a == NEG:
        return b
    if b == NEG:
        return a
    if a > b:
        return float(a + np.log1p(np.exp(b - a)))
    return float(b + np.log1p(np.exp(a - b)))


@njit(cache=True)
def layout(n: int, m: int, d: int) -> tuple[npt.NDArray[np.int64], int]:
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
def normal_index(i: int, j: int, sh: int, m: int) -> int:
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
def op_state(sh: int, i0: int, j0: int, n: int, m: int, single: I8, block: I8) -> int:
    """State of the operation of shape ``sh`` (0–5) starting at ``(i0, j0)``, or −1."""
    if sh == SH_INS:
        return ST_INS if j0 < m else -1
    if sh == SH_DEL:
        return ST_DEL if i0 < n else -1
    if i0 + DX[sh] > n or j0 + DY[sh] > m:
        return -1
    if sh == SH_S11:
        return int(single[i0, j0])
    return int(block[i0, j0, sh - 3])


@njit(cache=True)
def to_ij(side: int, q: int, p: int) -> tuple[int, int]:
    if side == 0:
        return q, p
    return p, q


@njit(cache=True)
def _dq_dp(side: int, sh: int) -> tuple[int, int]:
    if side == 0:
        return int(DX[sh]), int(DY[sh])
    return int(DY[sh]), int(DX[sh])


@njit(cache=True)
def _last_state(
    kind: int, side: int, sh: int, i: int, j: int, n: int, m: int, single: I8, block: I8
) -> int:
    """State of the operation that led into a node at actual position ``(i, j)`` (−1: START)."""
    if sh < SH_SPECIAL:
        return op_state(sh, i - DX[sh], j - DY[sh], n, m, single, block)
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
                di = DX[sh]
                dj = DY[sh]
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
    node: Node,
    machine: Machine,
    edges: Edges,
) -> tuple[int, int]:
    """Fill ``ev`` (target node), ``esc`` (score), ``es`` (state, −1 for stop) with the edges
    leaving one node; returns ``(count, previous state)``."""
    kind, side, q, p, x1, x2, sh = node
    n, m, d, single, block, lastsub, w, offs = machine
    ev, esc, es, efl, _ = edges
    cnt = 0
    if kind == KIND_NORMAL:
        i, j = q, p
    else:
        i, j = to_ij(side, q, p)
    prev = _last_state(kind, side, sh, i, j, n, m, single, block)
    if kind == KIND_NORMAL:
        if sh == SH_SPECIAL and (i != 0 or j != 0):
            return 0, prev
        if i == n and j == m and prev >= 0:
            ev[cnt] = offs[5]
            efl[cnt] = -1
            esc[cnt] = w[STOP0 + prev]
            es[cnt] = -1
            cnt += 1
        for op in range(6):
            s = op_state(op, i, j, n, m, single, block)
            if s < 0:
                continue
            ev[cnt] = normal_index(i + DX[op], j + DY[op], op, m)
            efl[cnt] = _flag(0, i + DX[op], j + DY[op], 0, n, m, d)
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
            s = op_state(op, i, j, n, m, single, block)
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
            ev[cnt] = normal_index(q, p + b, SH_EXTRA, m)
            efl[cnt] = _flag(0, q, p + b, 0, n, m, d)
        else:
            ev[cnt] = normal_index(p + b, q, SH_EXTRA, m)
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
        s = op_state(op, i, j, n, m, single, block)
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
        rec[e, 2] = STOP0 + prev
        rec[e, 3] = -1
    else:
        rec[e, 2] = s
        rec[e, 3] = _TRANS0 + prev * N_STATES + s if prev >= 0 else -1
    return e


@njit(cache=True)
def _visit(
    mode: int,
    u: int,
    node: Node,
    machine: Machine,
    passes: Passes,
    edges: Edges,
    record: Record,
) -> None:
    """Process one node: push (forward, Viterbi) or pull (backward, support)."""
    kind, side, q, p, x1, x2, sh = node
    n, m, d, _, _, _, _, offs = machine
    alpha, beta, bp, counts, log_z, scale = passes
    ev, esc, es, efl, flags = edges
    rec, meta = record
    if alpha[u] == NEG:
        return
    cnt, prev = _out_edges(
        (kind, side, q, p, x1, x2, sh),
        machine,
        edges,
    )
    if mode == MODE_FORWARD:
        base = alpha[u]
        for e in range(cnt):
            v = ev[e]
            alpha[v] = lae(alpha[v], base + esc[e])
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
    acc = NEG
    for e in range(cnt):
        v = ev[e]
        if beta[v] == NEG:
            continue
        val = esc[e] + beta[v]
        acc = lae(acc, val)
        s = es[e]
        if mode == MODE_RECORD:
            e_rec = _record(u, v, s, prev, bp, rec, meta)
            if e_rec >= 0 and rec.shape[1] == 8:
                iu, ju = (q, p) if kind == KIND_NORMAL else to_ij(side, q, p)
                _, _, iv, jv, _ = decode_node(v, n, m, d, offs)
                rec[e_rec, 4] = iu
                rec[e_rec, 5] = ju
                rec[e_rec, 6] = iv
                rec[e_rec, 7] = jv
            continue
        post = scale * np.exp(alpha[u] + val - log_z) if mode == MODE_BACKWARD else 1.0
        if s < 0:
            counts[STOP0 + prev] += post
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
    machine: Machine,
    passes: Passes,
    edges: Edges,
    record: Record,
) -> None:
    """All nodes of one processing group with ``c`` tokens consumed.

    Groups: 0 landed with k ≥ 1, 1 gap, 2 normal, 3 landed with k = 0 (after J1)."""
    n, m, d, _, _, _, _, offs = machine
    alpha, _, _, _, _, _ = passes
    _, _, _, _, flags = edges
    if group == 2:
        lo = max(0, c - m)
        hi = min(n, c)
        for i in range(lo, hi + 1):
            j = c - i
            if flags[_flag(0, i, j, 0, n, m, d)] == 0:
                continue
            for sh in range(N_SHAPES):
                u = normal_index(i, j, sh, m)
                if alpha[u] == NEG:
                    continue
                _visit(
                    mode,
                    u,
                    (KIND_NORMAL, 0, i, j, 0, 0, sh),
                    machine,
                    passes,
                    edges,
                    record,
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
                            if alpha[u] == NEG:
                                continue
                            _visit(
                                mode,
                                u,
                                (KIND_GAP, side, q, p, r, b, sh),
                                machine,
                                passes,
                                edges,
                                record,
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
                        if alpha[u] == NEG:
                            continue
                        _visit(
                            mode,
                            u,
                            (KIND_LANDED, side, q, p, a, 0, SH_SPECIAL),
                            machine,
                            passes,
                            edges,
                            record,
                        )
                        continue
                    for k in range(1, d + 1):
                        if p - k - a < 0:
                            break
                        for sh in range(SH_SPECIAL):
                            u = _landed_index(offs, side, q, p, a, k, sh, big_p, d)
                            if alpha[u] == NEG:
                                continue
                            _visit(
                                mode,
                                u,
                                (KIND_LANDED, side, q, p, a, k, sh),
                                machine,
                                passes,
                                edges,
                                record,
                            )


@njit(cache=True)
def sweep(
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
    ``bp[normal_index(0, 0, SH_SPECIAL, m)]`` and the final node's ``bp[offsets[5]]``.
    ``alpha``/``beta``/``bp`` need ``layout(n, m, d)[1]`` slots.
    """
    offs, total = layout(n, m, d)
    lastsub = _last_substitutions(n, m, d, single, block)
    rr = max(n, m) + 1
    flags = np.zeros(5 * rr * rr * max(d, 1), dtype=np.uint8)
    ev = np.empty(_MAX_EDGES, dtype=np.int64)
    esc = np.empty(_MAX_EDGES, dtype=np.float64)
    es = np.empty(_MAX_EDGES, dtype=np.int64)
    efl = np.empty(_MAX_EDGES, dtype=np.int64)
    machine = (n, m, d, single, block, lastsub, w, offs)
    edges = (ev, esc, es, efl, flags)
    record = (rec, meta)
    last_c = n + m
    forward_mode = MODE_VITERBI if mode == MODE_VITERBI else MODE_FORWARD
    alpha[:total] = NEG
    if mode == MODE_VITERBI:
        bp[:total] = -1
    alpha[normal_index(0, 0, SH_SPECIAL, m)] = 0.0
    flags[_flag(0, 0, 0, 0, n, m, d)] = 1
    for c in range(last_c + 1):
        for group in range(4):
            _group(
                forward_mode,
                group,
                c,
                machine,
                (alpha, beta, bp, counts, 0.0, 0.0),
                edges,
                record,
            )
    y = float(alpha[offs[5]])
    if mode in (MODE_FORWARD, MODE_VITERBI) or y == NEG:
        return y
    beta[:total] = NEG
    beta[offs[5]] = 0.0
    if mode == MODE_RECORD:
        bp[:total] = -1
    for c in range(last_c, -1, -1):
        for group in range(3, -1, -1):
            _group(
                mode,
                group,
                c,
                machine,
                (alpha, beta, bp, counts, y, 1.0),
                edges,
                record,
            )
    return y


@njit(cache=True)
def decode_node(u: int, n: int, m: int, d: int, offs: I64) -> tuple[int, int, int, int, int]:
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
    i, j = to_ij(side, q, p)
    return kind, side, i, j, sh
