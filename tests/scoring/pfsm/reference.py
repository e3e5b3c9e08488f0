"""Plain-Python enumeration of every edit sequence, written from the papers' description.

Independent of the kernels: no lattice, no offsets, no processing order. A configuration is the
position ``(i, j)``, the previous operation and the jump memory of Wang & Manning 2012, §2.2
(``J_start``,
``J_landing``, ``J_end``); moves follow the rules in the text:

- the pFSM: insert, delete, or a substitution allowed by the match tables; stop at the end of both;
- pPDA: from an unjumped configuration, jump forward ``1..D`` tokens on either side, remembering
  ``J_start`` and ``J_landing``; immediately afterwards only substitutions; after at least one
  substitution jump back to ``J_start`` remembering ``J_end`` (at most ``D`` past ``J_landing``);
  in the gap every operation except the jump side's own insert/delete until a substitution has
  been made; on reaching ``J_landing`` only the jump to ``J_end``, which clears the memory.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np

from scoring.pfsm.features import (
    BLOCK_SHAPES,
    N_STATES,
    ST_DEL,
    ST_INS,
    ST_J1,
    ST_J2,
    ST_J3,
    MatchTables,
)

Step = tuple[int, int, int, int, int]  # state, i, j, di, dj


def _operations(t: MatchTables, i: int, j: int) -> Iterator[tuple[int, int, int]]:
    n, m = t.shape
    if j < m:
        yield ST_INS, 0, 1
    if i < n:
        yield ST_DEL, 1, 0
    if i < n and j < m and t.single[i, j] >= 0:
        yield int(t.single[i, j]), 1, 1
    for shape, (di, dj) in enumerate(BLOCK_SHAPES):
        if i + di <= n and j + dj <= m and t.block[i, j, shape] >= 0:
            yield int(t.block[i, j, shape]), di, dj


def enumerate_sequences(t: MatchTables, jump_limit: int) -> list[list[tuple[tuple, Step]]]:
    """Every complete edit sequence, each as a list of ``(configuration, step)``."""
    n, m = t.shape
    out: list[list[tuple[tuple, Step]]] = []

    def walk(i: int, j: int, prev: tuple, memory: tuple | None, path: list) -> None:
        config = (i, j, prev, memory)
        if memory is None:
            if i == n and j == m:
                out.append([*path, (config, (-1, i, j, 0, 0))])
            for state, di, dj in _operations(t, i, j):
                walk(
                    i + di, j + dj, (state, di, dj), None, [*path, (config, (state, i, j, di, dj))]
                )
            for a in range(1, jump_limit + 1):
                # side "y": the gap is in the target; side "x": in the source
                if j + a <= m:
                    mem = ("landed", "y", j, j + a, False)
                    walk(i, j + a, (ST_J1, 0, 0), mem, [*path, (config, (ST_J1, i, j, 0, 0))])
                if i + a <= n:
                    mem = ("landed", "x", i, i + a, False)
                    walk(i + a, j, (ST_J1, 0, 0), mem, [*path, (config, (ST_J1, i, j, 0, 0))])
            return
        phase, side = memory[0], memory[1]
        if phase == "landed":
            _, _, j_start, j_landing, subs = memory
            for state, di, dj in _operations(t, i, j):
                is_sub = di > 0 and dj > 0
                if not subs and not is_sub:
                    continue
                position = (j + dj) if side == "y" else (i + di)
                if position - j_landing > jump_limit:
                    continue  # the resuming jump may pass at most D tokens
                mem = ("landed", side, j_start, j_landing, True)
                walk(i + di, j + dj, (state, di, dj), mem, [*path, (config, (state, i, j, di, dj))])
            if subs:
                j_end = j if side == "y" else i
                mem = ("gap", side, j_landing, j_end, False)
                ni, nj = (i, j_start) if side == "y" else (j_start, j)
                walk(ni, nj, (ST_J2, 0, 0), mem, [*path, (config, (ST_J2, i, j, 0, 0))])
            return
        _, _, j_landing, j_end, subs = memory
        position = j if side == "y" else i
        if position == j_landing:
            ni, nj = (i, j_end) if side == "y" else (j_end, j)
            walk(ni, nj, (ST_J3, 0, 0), None, [*path, (config, (ST_J3, i, j, 0, 0))])
            return
        for state, di, dj in _operations(t, i, j):
            on_side = dj if side == "y" else di
            off_side = di if side == "y" else dj
            if position + on_side > j_landing:
                continue
            if off_side == 0 and not subs:
                continue  # Insert (side y) / Delete (side x) waits for a substitution
            mem = ("gap", side, j_landing, j_end, subs or (di > 0 and dj > 0))
            walk(i + di, j + dj, (state, di, dj), mem, [*path, (config, (state, i, j, di, dj))])

    walk(0, 0, (-1, 0, 0), None, [])
    return out


def feature_vector(sequence: list[tuple[tuple, Step]]) -> np.ndarray:
    """Counts of every feature along one sequence (state, transition, stop)."""
    f = np.zeros(N_STATES + N_STATES * N_STATES + N_STATES)
    prev = -1
    for _, (state, *_rest) in sequence:
        if state < 0:
            f[N_STATES + N_STATES * N_STATES + prev] += 1
            continue
        f[state] += 1
        if prev >= 0:
            f[N_STATES + prev * N_STATES + state] += 1
        prev = state
    return f


def brute_force(t: MatchTables, weights: np.ndarray, jump_limit: int):
    """``(y, E[f], best score, best sequence, support counts)`` by enumeration."""
    seqs = enumerate_sequences(t, jump_limit)
    feats = np.array([feature_vector(s) for s in seqs])
    scores = feats @ weights
    top = scores.max()
    y = top + math.log(np.exp(scores - top).sum())
    probs = np.exp(scores - y)
    expected = probs @ feats
    best = int(np.argmax(scores))
    edges: dict[tuple, np.ndarray] = {}
    for seq in seqs:
        prev = -1
        for position, (config, step) in enumerate(seq):
            following = seq[position + 1][0] if position + 1 < len(seq) else "final"
            key = (config, following)
            if key not in edges:
                e = np.zeros(feats.shape[1])
                state = step[0]
                if state < 0:
                    e[N_STATES + N_STATES * N_STATES + prev] = 1
                else:
                    e[state] = 1
                    if prev >= 0:
                        e[N_STATES + prev * N_STATES + state] = 1
                edges[key] = e
            prev = step[0]
    support = np.sum(list(edges.values()), axis=0)
    return y, expected, float(scores[best]), seqs[best], support
