"""Levenshtein distance: unit-cost insertions, deletions and substitutions between two sequences
of any hashable symbols (the characters of two words, the words of two sentences)."""

from __future__ import annotations

from collections.abc import Hashable, Sequence

import numpy as np
import numpy.typing as npt
from numba import njit

I64 = npt.NDArray[np.int64]


def levenshtein(a: Sequence[Hashable], b: Sequence[Hashable]) -> int:
    """The least number of unit edits that turn ``a`` into ``b``; O(|a|·|b|) time, O(|b|) memory."""
    symbols: dict[Hashable, int] = {}
    x = np.fromiter((symbols.setdefault(s, len(symbols)) for s in a), np.int64, len(a))
    y = np.fromiter((symbols.setdefault(s, len(symbols)) for s in b), np.int64, len(b))
    return int(_levenshtein(x, y))


@njit(cache=True)
def _levenshtein(a: I64, b: I64) -> int:
    n = b.shape[0]
    row = np.arange(n + 1)
    for i in range(a.shape[0]):
        diag = row[0]
        row[0] = i + 1
        for j in range(n):
            up = row[j + 1]
            best = diag + (0 if a[i] == b[j] else 1)
            if up + 1 < best:
                best = up + 1
            if row[j] + 1 < best:
                best = row[j] + 1
            row[j + 1] = best
            diag = up
    return int(row[n])
