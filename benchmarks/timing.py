"""Timing helpers shared by the benchmarks."""

from __future__ import annotations

import time
from collections.abc import Callable


def interleaved_best(rounds: int, *funcs: Callable[[], object]) -> list[float]:
    """Best CPU time (``time.process_time``) of each function over ``rounds`` interleaved
    rounds: the machine is shared, so both peers sample the same load, and CPU time leaves out
    the time this process waits for a core."""
    best = [float("inf")] * len(funcs)
    for _ in range(rounds):
        for k, func in enumerate(funcs):
            start = time.process_time()
            func()
            best[k] = min(best[k], time.process_time() - start)
    return best
