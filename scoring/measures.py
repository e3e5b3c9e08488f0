"""Summary measures shared by every part of :mod:`scoring`: F1 from precision and recall, and
Pearson's and Spearman's correlations. An undefined value (an empty denominator, fewer than two
points, a constant series) is ``None``, never a silent 0 or NaN.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from scoring.errors import ScoringError

F64 = npt.NDArray[np.float64]


def f1(precision: float | None, recall: float | None) -> float | None:
    """The harmonic mean ``2PR/(P+R)``; 0 when both are 0, ``None`` when either is undefined."""
    if precision is None or recall is None:
        return None
    if precision + recall == 0.0:
        return 0.0
    return 2.0 * precision * recall / (precision + recall)


def pearson(a: Sequence[float] | F64, b: Sequence[float] | F64) -> float | None:
    """Pearson's r of two equally long series; ``None`` for fewer than two values or a constant
    series."""
    x, y = _pair(a, b)
    if x.size < 2 or float(np.std(x)) == 0.0 or float(np.std(y)) == 0.0:
        return None
    xc, yc = x - x.mean(), y - y.mean()
    value = float(xc @ yc) / math.sqrt(float(xc @ xc) * float(yc @ yc))
    return value if math.isfinite(value) else None


def spearman(a: Sequence[float] | F64, b: Sequence[float] | F64) -> float | None:
    """Spearman's ρ: Pearson's r of the average ranks (ties share the mean of their places)."""
    x, y = _pair(a, b)
    return pearson(ranks(x), ranks(y))


def ranks(values: Sequence[float] | F64) -> F64:
    """1-based average ranks, float64 ``(N,)``."""
    v = np.asarray(values, dtype=np.float64)
    order = np.argsort(v, kind="mergesort")
    sorted_values = v[order]
    out = np.empty(v.size, dtype=np.float64)
    start = 0
    while start < v.size:
        end = start
        while end + 1 < v.size and sorted_values[end + 1] == sorted_values[start]:
            end += 1
        out[order[start : end + 1]] = (start + end) / 2.0 + 1.0
        start = end + 1
    return out


def _pair(a: Sequence[float] | F64, b: Sequence[float] | F64) -> tuple[F64, F64]:
    x = np.asarray(a, dtype=np.float64)
    y = np.asarray(b, dtype=np.float64)
    if x.ndim != 1 or y.ndim != 1 or x.shape != y.shape:
        raise ScoringError(f"correlation of {x.size} values with {y.size}: give equal-length lists")
    return x, y
