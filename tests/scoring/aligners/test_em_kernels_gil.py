"""The EM kernels release the GIL: another thread of the process (a job's heartbeat) runs
while one E-step over a large corpus computes."""

from __future__ import annotations

import itertools
import threading
import time

import numpy as np

from scoring.aligners.em_kernels import model1_estep

N = 30  # words of each side of every pair


def _estep(pairs: int) -> float:
    """One Model 1 E-step over ``pairs`` pairs of N×N words sharing one cell table; seconds."""
    rng = np.random.default_rng(0)
    cells = rng.integers(0, 500, size=N * (N + 1)).astype(np.int32)
    lengths = np.full(pairs, N, dtype=np.int64)
    start = time.perf_counter()
    model1_estep(
        lengths,
        lengths,
        cells,
        np.zeros(pairs, dtype=np.int64),
        np.ones(pairs),
        np.full(500, 1 / 500),
        np.zeros(500),
        0.0,
    )
    return time.perf_counter() - start


def test_another_thread_runs_while_an_estep_computes() -> None:
    _estep(10)  # compiled or loaded from the cache outside the measurement
    pairs = 20_000
    while _estep(pairs) < 0.4:
        pairs *= 2
    ticks: list[float] = []
    stop = threading.Event()

    def tick() -> None:
        while not stop.is_set():
            ticks.append(time.perf_counter())
            time.sleep(0.005)

    ticker = threading.Thread(target=tick)
    ticker.start()
    time.sleep(0.05)
    start = time.perf_counter()
    seconds = _estep(pairs)
    end = time.perf_counter()
    stop.set()
    ticker.join()
    during = [start] + [t for t in ticks if start < t < end] + [end]
    longest_gap = max(b - a for a, b in itertools.pairwise(during))
    assert longest_gap < seconds / 2, (longest_gap, seconds)
