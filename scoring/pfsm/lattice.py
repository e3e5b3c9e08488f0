"""Dynamic programs over the edit sequences of one pair, or of many (Wang & Manning 2012, §2, §2.2,
§2.3).

- :func:`log_partition`: ``y = log Σ_e exp Q(e)`` over all complete edit sequences ``e``
  (Wang & Manning 2012, Eq. 2), by the forward pass.
- :func:`expected_counts`: ``y`` and ``∂y/∂θ = E_p[f]``, the expected feature counts under
  ``p(e) ∝ exp Q(e)``, by the forward and backward passes.
- :func:`viterbi`: the best edit sequence (``max_e Q(e)``, Wang & Manning 2012, §2.1) as a list of
  :class:`EditOp`.
- :func:`support_counts`: how many lattice edges carry each feature (used for the cut-off).
- :class:`CompiledPairs`: the edge lists of many pairs, for the training objective.

The lattice is built once per pair by the kernels of :mod:`scoring.pfsm.walk` (which walk the
machine's configurations directly) and kept as an :class:`EdgeList`; the forward and
backward passes then run over that list.

``jump_limit = 0`` is the pFSM; ``jump_limit = D ≥ 1`` the pPDA whose forward jumps skip at most
``D`` tokens and whose resuming jump passes at most ``D`` tokens (see :mod:`scoring.pfsm`).
Weights are a float vector of :data:`~scoring.pfsm.features.N_FEATURES` entries, in nats.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from scoring.errors import InputError, OptionsError
from scoring.pfsm import edges, walk
from scoring.pfsm.features import (
    N_FEATURES,
    STATE_NAMES,
    SUBSTITUTION_STATES,
    MatchTables,
)
from scoring.scorers.options import MAX_JUMP_LIMIT

#: Lattice slots one pair may need (three 8-byte arrays of this size are allocated: ~1 GB).
MAX_NODES = 40_000_000


@dataclass(frozen=True, slots=True)
class EditOp:
    """One step of an edit sequence: ``state`` over source tokens ``[i, i + di)`` and target
    tokens ``[j, j + dj)``. Jumps consume nothing (``di = dj = 0``); ``(i, j)`` is where they
    are taken."""

    state: int
    i: int
    j: int
    di: int
    dj: int

    @property
    def name(self) -> str:
        return STATE_NAMES[self.state]


def check_jump_limit(jump_limit: int) -> int:
    if isinstance(jump_limit, bool) or not isinstance(jump_limit, int | np.integer):
        raise OptionsError(f"jump_limit must be an integer, got {jump_limit!r}")
    if not 0 <= int(jump_limit) <= MAX_JUMP_LIMIT:
        raise OptionsError(
            f"jump_limit must be between 0 (pFSM) and {MAX_JUMP_LIMIT}, got {jump_limit}"
        )
    return int(jump_limit)


def check_weights(weights: npt.ArrayLike) -> npt.NDArray[np.float64]:
    w = np.ascontiguousarray(weights, dtype=np.float64)
    if w.shape != (N_FEATURES,):
        raise InputError(f"weights must have shape ({N_FEATURES},), got {w.shape}")
    if not np.all(np.isfinite(w)):
        raise InputError("weights must be finite")
    return w


def _tables(tables: MatchTables) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.int8], int, int]:
    single = np.ascontiguousarray(tables.single, dtype=np.int8)
    block = np.ascontiguousarray(tables.block, dtype=np.int8)
    if single.ndim != 2 or single.shape[0] == 0 or single.shape[1] == 0:
        raise InputError(f"match table must be a non-empty (N, M) array, got {single.shape}")
    n, m = single.shape
    if block.shape != (n, m, 3):
        raise InputError(f"block table must have shape ({n}, {m}, 3), got {block.shape}")
    return single, block, int(n), int(m)


def node_count(n: int, m: int, jump_limit: int) -> int:
    """Slots the kernels need for an ``n × m`` pair (nodes of the lattice, plus the final one):
    ``8 (N+1)(M+1) (1 + 4 D (D+1)) + 1``. Raises :class:`~scoring.errors.InputError` above
    :data:`MAX_NODES`."""
    size = int(walk.layout(n, m, jump_limit)[1])
    if size > MAX_NODES:
        raise InputError(
            f"a {n}×{m}-token pair is too long for jump limit {jump_limit}: its lattice needs "
            f"{size:,} slots (limit {MAX_NODES:,}); lower the jump limit or split the sentences"
        )
    return size


def _buffers(
    size: int,
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.int64]]:
    return np.empty(size), np.empty(size), np.empty(size, dtype=np.int64)


@dataclass(frozen=True, slots=True)
class EdgeList:
    """The lattice of one pair as edges ``src → dst`` carrying features ``f1`` and ``f2``
    (−1: none), only edges on some complete edit sequence, sources in reverse topological order.
    It depends on the pair and the jump limit, not on the weights, so training builds it once."""

    src: npt.NDArray[np.int32]
    dst: npt.NDArray[np.int32]
    f1: npt.NDArray[np.int16]
    f2: npt.NDArray[np.int16]
    nodes: int
    start: int
    final: int


def edge_list(
    tables: MatchTables, jump_limit: int = 0, scratch: list[npt.NDArray[np.int64]] | None = None
) -> EdgeList:
    """Build the :class:`EdgeList` of one pair. ``scratch`` (a one-element list holding an
    ``(E, 4)`` int64 array, grown as needed) lets a caller reuse one buffer across pairs."""
    if scratch is None:
        scratch = [np.empty((0, 4), dtype=np.int64)]
    rec, nodes, start, final = _record(tables, jump_limit, scratch)
    return EdgeList(
        src=np.ascontiguousarray(rec[:, 0], dtype=np.int32),
        dst=np.ascontiguousarray(rec[:, 1], dtype=np.int32),
        f1=np.ascontiguousarray(rec[:, 2], dtype=np.int16),
        f2=np.ascontiguousarray(rec[:, 3], dtype=np.int16),
        nodes=nodes,
        start=start,
        final=final,
    )


def _record(
    tables: MatchTables, jump_limit: int, scratch: list[npt.NDArray[np.int64]]
) -> tuple[npt.NDArray[np.int64], int, int, int]:
    single, block, n, m = _tables(tables)
    d = check_jump_limit(jump_limit)
    alpha, beta, ids = _buffers(node_count(n, m, d))
    meta = np.zeros(2, dtype=np.int64)
    columns = scratch[0].shape[1]
    start, final = edges.record_lattice(n, m, d, single, block, alpha, beta, ids, scratch[0], meta)
    if meta[0] > scratch[0].shape[0]:  # too small: grow and record again
        scratch[0] = np.empty((int(meta[0]) * 2, columns), dtype=np.int64)
        start, final = edges.record_lattice(
            n, m, d, single, block, alpha, beta, ids, scratch[0], meta
        )
    return scratch[0][: int(meta[0])], int(meta[1]), int(start), int(final)


def link_posteriors(
    tables: MatchTables, weights: npt.ArrayLike, jump_limit: int = 0
) -> npt.NDArray[np.float64]:
    """``(N, M)``: the probability under ``p(e) ∝ exp θ·f(e)`` that an edit sequence links
    source token ``i`` with target token ``j`` (a substitution, or a block substitution whose
    spans cover both). A per-link confidence for prefilled alignments."""
    w = check_weights(weights)
    rec, nodes, start, final = _record(tables, jump_limit, [np.empty((0, 8), dtype=np.int64)])
    src = np.ascontiguousarray(rec[:, 0], dtype=np.int32)
    dst = np.ascontiguousarray(rec[:, 1], dtype=np.int32)
    f1 = np.ascontiguousarray(rec[:, 2], dtype=np.int16)
    f2 = np.ascontiguousarray(rec[:, 3], dtype=np.int16)
    alpha = np.empty(nodes)
    beta = np.empty(nodes)
    y = edges.edge_forward(src, dst, f1, f2, w, start, final, alpha)
    edges.edge_backward(src, dst, f1, f2, w, y, final, alpha, beta, np.zeros(N_FEATURES), 0.0)
    score = w[f1] + np.where(f2 >= 0, w[np.maximum(f2, 0)], 0.0)
    post = np.exp(alpha[src] + score + beta[dst] - y)
    n, m = tables.shape
    out = np.zeros((n, m))
    is_sub = np.isin(f1, sorted(SUBSTITUTION_STATES))
    for e in np.flatnonzero(is_sub):
        i0, j0, i1, j1 = (int(v) for v in rec[e, 4:8])
        out[i0:i1, j0:j1] += post[e]
    return out


def log_partition(tables: MatchTables, weights: npt.ArrayLike, jump_limit: int = 0) -> float:
    """``y = log Σ_e exp θ·f(e)`` for one pair (Wang & Manning 2012, Eq. 2)."""
    w = check_weights(weights)
    return float(CompiledPairs([tables], jump_limit).log_partitions(w)[0])


def expected_counts(
    tables: MatchTables, weights: npt.ArrayLike, jump_limit: int = 0
) -> tuple[float, npt.NDArray[np.float64]]:
    """``(y, E[f])``: the log-partition and the expected count of every feature, ``(F,)``."""
    w = check_weights(weights)
    lat = edge_list(tables, jump_limit)
    alpha = np.empty(lat.nodes)
    beta = np.empty(lat.nodes)
    counts = np.zeros(N_FEATURES)
    y = edges.edge_forward(lat.src, lat.dst, lat.f1, lat.f2, w, lat.start, lat.final, alpha)
    edges.edge_backward(lat.src, lat.dst, lat.f1, lat.f2, w, y, lat.final, alpha, beta, counts, 1.0)
    return float(y), counts


def support_counts(tables: MatchTables, jump_limit: int = 0) -> npt.NDArray[np.float64]:
    """Per feature, the number of lattice edges that carry it and lie on a complete sequence."""
    return _support(edge_list(tables, jump_limit))


def _support(lat: EdgeList) -> npt.NDArray[np.float64]:
    return _feature_edge_counts(lat.f1, lat.f2)


def _feature_edge_counts(
    f1: npt.NDArray[np.int16], f2: npt.NDArray[np.int16]
) -> npt.NDArray[np.float64]:
    counts = np.bincount(f1, minlength=N_FEATURES).astype(np.float64)
    counts += np.bincount(f2[f2 >= 0], minlength=N_FEATURES)
    return counts


def viterbi(
    tables: MatchTables, weights: npt.ArrayLike, jump_limit: int = 0
) -> tuple[float, list[EditOp]]:
    """The highest-scoring complete edit sequence and its score ``Q(e)``."""
    single, block, n, m = _tables(tables)
    d = check_jump_limit(jump_limit)
    w = check_weights(weights)
    alpha, _, bp = _buffers(node_count(n, m, d))
    out = np.zeros((3 * (n + m) + 3, 5), dtype=np.int64)
    rows, best = edges.viterbi_path(n, m, d, single, block, w, alpha, bp, out)
    ops = [EditOp(*(int(v) for v in out[r])) for r in range(rows)]
    return float(best), ops


class CompiledPairs:
    """The edge lists of many pairs, concatenated, for the batch training objective."""

    def __init__(self, tables: Sequence[MatchTables], jump_limit: int) -> None:
        self.jump_limit = check_jump_limit(jump_limit)
        if not tables:
            raise InputError("no pairs given")
        scratch = [np.empty((0, 4), dtype=np.int64)]
        lattices = [edge_list(t, self.jump_limit, scratch) for t in tables]
        self.norms = np.array([sum(t.shape) for t in tables], dtype=np.float64)
        self.edge_off = np.concatenate(([0], np.cumsum([x.src.size for x in lattices])))
        self.node_off = np.concatenate(([0], np.cumsum([x.nodes for x in lattices])))
        self.edge_off = self.edge_off.astype(np.int64)
        self.node_off = self.node_off.astype(np.int64)
        self.starts = np.array([x.start for x in lattices], dtype=np.int64)
        self.finals = np.array([x.final for x in lattices], dtype=np.int64)
        self.src = np.concatenate([x.src for x in lattices]).astype(np.int32)
        self.dst = np.concatenate([x.dst for x in lattices]).astype(np.int32)
        self.f1 = np.concatenate([x.f1 for x in lattices]).astype(np.int16)
        self.f2 = np.concatenate([x.f2 for x in lattices]).astype(np.int16)
        size = max(x.nodes for x in lattices)
        self._alpha = np.empty(size)
        self._beta = np.empty(size)

    def __len__(self) -> int:
        return int(self.starts.size)

    @property
    def edges(self) -> int:
        return int(self.src.size)

    def _run(
        self,
        with_gradient: bool,
        w: npt.NDArray[np.float64],
        alpha0: float,
        targets: npt.NDArray[np.float64],
    ) -> tuple[float, float, npt.NDArray[np.float64], npt.NDArray[np.float64]]:
        counts = np.zeros(N_FEATURES)
        values = np.zeros(len(self))
        loss, g_alpha = edges.edge_batch(
            with_gradient,
            np.ascontiguousarray(w, dtype=np.float64),
            float(alpha0),
            (
                np.ascontiguousarray(targets, dtype=np.float64),
                self.norms,
                self.edge_off,
                self.node_off,
                self.starts,
                self.finals,
            ),
            (self.src, self.dst, self.f1, self.f2),
            (self._alpha, self._beta, counts, values),
        )
        return float(loss), float(g_alpha), counts, values

    def log_partitions(self, weights: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        """``y`` of every pair, ``(P,)``."""
        _, _, _, values = self._run(False, weights, 0.0, np.zeros(len(self)))
        return values

    def squared_error(
        self, weights: npt.NDArray[np.float64], alpha0: float, targets: npt.NDArray[np.float64]
    ) -> tuple[float, npt.NDArray[np.float64], float]:
        """``Σ (ŷ − (y/(|s1|+|s2|) + α))²`` with its gradients in ``weights`` and ``α``."""
        loss, g_alpha, grad, _ = self._run(True, weights, alpha0, targets)
        return loss, grad, g_alpha

    def squared_error_residuals(
        self, weights: npt.NDArray[np.float64], targets: npt.NDArray[np.float64]
    ) -> tuple[float, npt.NDArray[np.float64], npt.NDArray[np.float64]]:
        """``Σ r²`` with ``r = ŷ − y/(|s1|+|s2|)`` (no ``α``: fold offsets into ``targets``),
        its gradient in ``weights`` and the residuals ``r``, ``(P,)``."""
        loss, _, grad, values = self._run(True, weights, 0.0, targets)
        return loss, grad, np.asarray(targets, dtype=np.float64) - values / self.norms

    def support(self) -> npt.NDArray[np.float64]:
        """Feature support counts summed over all pairs (see :func:`support_counts`)."""
        return _feature_edge_counts(self.f1, self.f2)
