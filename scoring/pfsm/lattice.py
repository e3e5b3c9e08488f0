"""Dynamic programs over the edit sequences of one pair, or of many (seed 001 §2, §2.2, §2.3).

- :func:`log_partition`: ``y = log Σ_e exp Q(e)`` over all complete edit sequences ``e``
  (seed 001 Eq. 2), by the forward pass.
- :func:`expected_counts`: ``y`` and ``∂y/∂θ = E_p[f]``, the expected feature counts under
  ``p(e) ∝ exp Q(e)``, by the forward and backward passes.
- :func:`viterbi`: the best edit sequence (``max_e Q(e)``, seed 001 §2.1) as a list of
  :class:`EditOp`.
- :func:`support_counts`: how many lattice edges carry each feature (used for the cut-off).
- :class:`PackedPairs`: many pairs packed for the training objective.

``jump_limit = 0`` is the pFSM; ``jump_limit = D ≥ 1`` the pPDA whose forward jumps skip at most
``D`` tokens and whose resuming jump passes at most ``D`` tokens (see :mod:`scoring.pfsm`).
Weights are a float vector of :data:`~scoring.pfsm.features.N_FEATURES` entries, in nats.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from scoring.pfsm import _kernels as k
from scoring.pfsm.features import N_FEATURES, STATE_NAMES, MatchTables, PFSMInputError

MAX_JUMP_LIMIT = 10


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
        raise PFSMInputError(f"jump_limit must be an integer, got {jump_limit!r}")
    if not 0 <= int(jump_limit) <= MAX_JUMP_LIMIT:
        raise PFSMInputError(
            f"jump_limit must be between 0 (pFSM) and {MAX_JUMP_LIMIT}, got {jump_limit}"
        )
    return int(jump_limit)


def check_weights(weights: npt.ArrayLike) -> npt.NDArray[np.float64]:
    w = np.ascontiguousarray(weights, dtype=np.float64)
    if w.shape != (N_FEATURES,):
        raise PFSMInputError(f"weights must have shape ({N_FEATURES},), got {w.shape}")
    if not np.all(np.isfinite(w)):
        raise PFSMInputError("weights must be finite")
    return w


def _tables(tables: MatchTables) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.int8], int, int]:
    single = np.ascontiguousarray(tables.single, dtype=np.int8)
    block = np.ascontiguousarray(tables.block, dtype=np.int8)
    if single.ndim != 2 or single.shape[0] == 0 or single.shape[1] == 0:
        raise PFSMInputError(f"match table must be a non-empty (N, M) array, got {single.shape}")
    n, m = single.shape
    if block.shape != (n, m, 3):
        raise PFSMInputError(f"block table must have shape ({n}, {m}, 3), got {block.shape}")
    return single, block, int(n), int(m)


def node_count(n: int, m: int, jump_limit: int) -> int:
    """Slots the kernels need for an ``n × m`` pair (nodes of the lattice, plus the final one)."""
    return int(k._layout(n, m, jump_limit)[1])


def _buffers(
    size: int,
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.int64]]:
    return np.empty(size), np.empty(size), np.empty(size, dtype=np.int64)


def log_partition(tables: MatchTables, weights: npt.ArrayLike, jump_limit: int = 0) -> float:
    """``y = log Σ_e exp θ·f(e)`` for one pair (seed 001 Eq. 2)."""
    single, block, n, m = _tables(tables)
    d = check_jump_limit(jump_limit)
    w = check_weights(weights)
    alpha, beta, bp = _buffers(node_count(n, m, d))
    counts = np.zeros(N_FEATURES)
    return float(k._sweep(k.MODE_FORWARD, n, m, d, single, block, w, alpha, beta, bp, counts))


def expected_counts(
    tables: MatchTables, weights: npt.ArrayLike, jump_limit: int = 0
) -> tuple[float, npt.NDArray[np.float64]]:
    """``(y, E[f])``: the log-partition and the expected count of every feature, ``(F,)``."""
    single, block, n, m = _tables(tables)
    d = check_jump_limit(jump_limit)
    w = check_weights(weights)
    alpha, beta, bp = _buffers(node_count(n, m, d))
    counts = np.zeros(N_FEATURES)
    y = k._sweep(k.MODE_BACKWARD, n, m, d, single, block, w, alpha, beta, bp, counts)
    return float(y), counts


def support_counts(tables: MatchTables, jump_limit: int = 0) -> npt.NDArray[np.float64]:
    """Per feature, the number of lattice edges that carry it and lie on a complete sequence."""
    single, block, n, m = _tables(tables)
    d = check_jump_limit(jump_limit)
    w = np.zeros(N_FEATURES)
    alpha, beta, bp = _buffers(node_count(n, m, d))
    counts = np.zeros(N_FEATURES)
    k._sweep(k.MODE_SUPPORT, n, m, d, single, block, w, alpha, beta, bp, counts)
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
    rows, best = k._viterbi_path(n, m, d, single, block, w, alpha, bp, out)
    ops = [EditOp(*(int(v) for v in out[r])) for r in range(rows)]
    return float(best), ops


class PackedPairs:
    """Match tables of many pairs in flat arrays, with buffers for the batch kernel."""

    def __init__(self, tables: Sequence[MatchTables], jump_limit: int) -> None:
        self.jump_limit = check_jump_limit(jump_limit)
        if not tables:
            raise PFSMInputError("no pairs given")
        lengths = np.array([t.shape for t in tables], dtype=np.int64).reshape(-1, 2)
        if np.any(lengths == 0):
            raise PFSMInputError("every sentence needs at least one token")
        sizes = lengths[:, 0] * lengths[:, 1]
        self.lengths = lengths
        self.single_off = np.concatenate(([0], np.cumsum(sizes)[:-1])).astype(np.int64)
        self.block_off = self.single_off * 3
        self.single = np.ascontiguousarray(
            np.concatenate([t.single.ravel() for t in tables]), dtype=np.int8
        )
        self.block = np.ascontiguousarray(
            np.concatenate([t.block.ravel() for t in tables]), dtype=np.int8
        )
        self.norms = lengths.sum(axis=1).astype(np.float64)
        size = max(node_count(int(n), int(m), self.jump_limit) for n, m in lengths)
        self._alpha, self._beta, self._bp = _buffers(size)

    def __len__(self) -> int:
        return int(self.lengths.shape[0])

    def _run(
        self, mode: int, w: npt.NDArray[np.float64], alpha0: float, targets: npt.NDArray[np.float64]
    ) -> tuple[float, float, npt.NDArray[np.float64], npt.NDArray[np.float64]]:
        counts = np.zeros(N_FEATURES)
        values = np.zeros(len(self))
        loss, g_alpha = k._batch(
            mode, w, alpha0, targets, self.norms, self.lengths, self.single, self.single_off,
            self.block, self.block_off, self.jump_limit, self._alpha, self._beta, self._bp,
            counts, values,
        )  # fmt: skip
        return float(loss), float(g_alpha), counts, values

    def log_partitions(self, weights: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        """``y`` of every pair, ``(P,)``."""
        _, _, _, values = self._run(k.MODE_FORWARD, weights, 0.0, np.zeros(len(self)))
        return values

    def squared_error(
        self, weights: npt.NDArray[np.float64], alpha0: float, targets: npt.NDArray[np.float64]
    ) -> tuple[float, npt.NDArray[np.float64], float]:
        """``Σ (ŷ − (y/(|s1|+|s2|) + α))²`` with its gradients in ``weights`` and ``α``."""
        loss, g_alpha, grad, _ = self._run(k.MODE_BACKWARD, weights, alpha0, targets)
        return loss, grad, g_alpha

    def support(self) -> npt.NDArray[np.float64]:
        """Feature support counts summed over all pairs (see :func:`support_counts`)."""
        _, _, counts, _ = self._run(k.MODE_SUPPORT, np.zeros(N_FEATURES), 0.0, np.zeros(len(self)))
        return counts
