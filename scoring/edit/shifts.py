"""What TER, TERp and PERP share: the edit codes of an alignment string and the shift moves.

Both are tercom's (Snover et al. 2006, §2): an edit is one character (``" "`` match, ``S``
substitution, ``I`` insertion, ``D`` deletion, and TERp's ``T`` stem, ``Y`` synonym and ``P``
phrase substitution; Snover et al. 2009), and a shift moves a span of hypothesis positions to
just after another position. :func:`apply_shift` and :func:`push_shift` are numba kernels called
from the other kernels of this package.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from numba import njit

I64 = npt.NDArray[np.int64]

OP_MATCH = ord(" ")
OP_SUB = ord("S")
OP_INS = ord("I")
OP_DEL = ord("D")
OP_STEM = ord("T")
OP_SYNONYM = ord("Y")
OP_PHRASE = ord("P")


@njit(cache=True)
def apply_shift(perm: I64, start: int, end: int, newloc: int, out: I64) -> None:
    """tercom's ``PerformShift``: move ``perm[start..end]`` to just after ``newloc``."""
    n = perm.shape[0]
    c = 0
    if newloc == -1:
        for i in range(start, end + 1):
            out[c] = perm[i]
            c += 1
        for i in range(0, start):
            out[c] = perm[i]
            c += 1
        for i in range(end + 1, n):
            out[c] = perm[i]
            c += 1
    elif newloc < start:
        for i in range(0, newloc + 1):
            out[c] = perm[i]
            c += 1
        for i in range(start, end + 1):
            out[c] = perm[i]
            c += 1
        for i in range(newloc + 1, start):
            out[c] = perm[i]
            c += 1
        for i in range(end + 1, n):
            out[c] = perm[i]
            c += 1
    elif newloc > end:
        for i in range(0, start):
            out[c] = perm[i]
            c += 1
        for i in range(end + 1, newloc + 1):
            out[c] = perm[i]
            c += 1
        for i in range(start, end + 1):
            out[c] = perm[i]
            c += 1
        for i in range(newloc + 1, n):
            out[c] = perm[i]
            c += 1
    else:
        # Moving inside itself (tercom keeps this case although candidates never produce it).
        for i in range(0, start):
            out[c] = perm[i]
            c += 1
        i = end + 1
        while i < n and i <= end + (newloc - start):
            out[c] = perm[i]
            c += 1
            i += 1
        for i in range(start, end + 1):
            out[c] = perm[i]
            c += 1
        for i in range(end + (newloc - start) + 1, n):
            out[c] = perm[i]
            c += 1


@njit(cache=True)
def push_shift(shifts: I64, n_shifts: int, row: I64) -> I64:
    """Store ``row[:4]`` (start, end, moveto, newloc) as shift ``n_shifts``, doubling the
    ``(K, 4)`` table when it is full; returns the table (a new one if it grew)."""
    if n_shifts == shifts.shape[0]:
        grown = np.empty((shifts.shape[0] * 2, 4), np.int64)
        grown[:n_shifts] = shifts[:n_shifts]
        shifts = grown
    shifts[n_shifts] = row[:4]
    return shifts
