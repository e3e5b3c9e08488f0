"""Passes over recorded pFSM/pPDA lattices (numba kernels): forward and backward over an edge
list, many pairs at once for training, and the Viterbi edit sequence decoded from
back-pointers (Wang & Manning 2012, §2.1 and §2.3).

The lattice of a pair does not depend on the weights, so training records it once
(:func:`record_lattice`) and runs :func:`edge_forward` / :func:`edge_backward`, or
:func:`edge_batch` over every pair, on the edge list: about ten times faster than walking the
configurations again.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from scoring.pfsm.features import N_STATES, ST_DEL, ST_INS, ST_J1, ST_J2, ST_J3
from scoring.pfsm.walk import (
    DX,
    DY,
    F64,
    I8,
    I16,
    I32,
    I64,
    I64_2D,
    KIND_GAP,
    KIND_LANDED,
    KIND_NORMAL,
    MODE_RECORD,
    MODE_VITERBI,
    NEG,
    SH_EXTRA,
    SH_SPECIAL,
    STOP0,
    BatchPairs,
    BatchWork,
    EdgeList,
    decode_node,
    lae,
    layout,
    normal_index,
    op_state,
    sweep,
)


@njit(cache=True)
def viterbi_path(
    n: int, m: int, d: int, single: I8, block: I8, w: F64, alpha: F64, bp: I64, out: I64
) -> tuple[int, float]:
    """Best edit sequence: fills ``out`` rows ``(state, i_start, j_start, di, dj)`` in order and
    returns ``(row count, best score)``. Jumps have ``di = dj = 0`` and the position at which
    they are taken. ``out`` needs ``3 (N + M) + 3`` rows."""
    beta = alpha[:1]
    counts = np.zeros(1)
    best = sweep(
        MODE_VITERBI, n, m, d, single, block, w, alpha, beta, bp, counts,
        np.zeros((0, 4), dtype=np.int64), np.zeros(2, dtype=np.int64),
    )  # fmt: skip
    offs, _ = layout(n, m, d)
    rows = 0
    u = bp[offs[5]]
    start = normal_index(0, 0, SH_SPECIAL, m)
    while u != start and u >= 0:
        kind, side, i, j, sh = decode_node(u, n, m, d, offs)
        if sh < SH_SPECIAL:
            di, dj = DX[sh], DY[sh]
            out[rows, 0] = op_state(sh, i - di, j - dj, n, m, single, block)
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
                _, _, i_from, j_from, _ = decode_node(bp[u], n, m, d, offs)
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
def record_lattice(
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
    w = np.zeros(STOP0 + N_STATES)
    counts = np.zeros(1)
    sweep(MODE_RECORD, n, m, d, single, block, w, alpha, beta, ids, counts, rec, meta)
    offs, _ = layout(n, m, d)
    return int(ids[normal_index(0, 0, SH_SPECIAL, m)]), int(ids[offs[5]])


@njit(cache=True)
def edge_forward(
    src: I32, dst: I32, f1: I16, f2: I16, w: F64, start: int, final: int, alpha: F64
) -> float:
    """Forward pass over an edge list in reverse order (sources topologically ascending)."""
    alpha[:] = NEG
    alpha[start] = 0.0
    for e in range(src.shape[0] - 1, -1, -1):
        a = alpha[src[e]]
        if a == NEG:
            continue
        sc = w[f1[e]]
        if f2[e] >= 0:
            sc += w[f2[e]]
        alpha[dst[e]] = lae(alpha[dst[e]], a + sc)
    return float(alpha[final])


@njit(cache=True)
def edge_backward(
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
    beta[:] = NEG
    beta[final] = 0.0
    for e in range(src.shape[0]):
        b = beta[dst[e]]
        sc = w[f1[e]]
        if f2[e] >= 0:
            sc += w[f2[e]]
        val = sc + b
        u = src[e]
        beta[u] = lae(beta[u], val)
        post = scale * np.exp(alpha[u] + val - y)
        counts[f1[e]] += post
        if f2[e] >= 0:
            counts[f2[e]] += post


@njit(cache=True)
def edge_batch(
    with_gradient: bool,
    w: F64,
    alpha0: float,
    pairs: BatchPairs,
    lattice: EdgeList,
    work: BatchWork,
) -> tuple[float, float]:
    """``values[k] = y_k`` for every pair; with ``with_gradient`` also the squared error
    ``Σ_k (target_k − y_k / norm_k − alpha0)²`` (returned with its ``alpha0`` derivative) and its
    gradient in ``w`` added to ``counts``."""
    targets, norms, edge_off, node_off, starts, finals = pairs
    src, dst, f1, f2 = lattice
    alpha, beta, counts, values = work
    loss = 0.0
    g_alpha = 0.0
    for k in range(starts.shape[0]):
        e0 = edge_off[k]
        e1 = edge_off[k + 1]
        nodes = node_off[k + 1] - node_off[k]
        a = alpha[:nodes]
        y = edge_forward(src[e0:e1], dst[e0:e1], f1[e0:e1], f2[e0:e1], w, starts[k], finals[k], a)
        values[k] = y
        if not with_gradient:
            continue
        resid = targets[k] - (y / norms[k] + alpha0)
        loss += resid * resid
        g_alpha += -2.0 * resid
        edge_backward(
            src[e0:e1], dst[e0:e1], f1[e0:e1], f2[e0:e1], w, y, finals[k], a, beta[:nodes],
            counts, -2.0 * resid / norms[k],
        )  # fmt: skip
    return loss, g_alpha
