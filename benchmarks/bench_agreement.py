"""Benchmark: Monte Carlo Ĉ (scoring.alignment.agreement) on synthetic annotated pairs.

    .venv/bin/python -m benchmarks.bench_agreement

Target: Ĉ with J = 1,000 samples on 300 pairs of 20–30 tokens in ≤ 10 s wall on this
2-core machine, memory bounded. The timed call is the full computation the product runs: both
kinds (P and S), every item set (words, atomic and all phrase pairs), edit-model fitting and
aggregation. Also printed: peak RSS, and how the time grows from J = 100 to 1,000 and from 100 to
1,000 pairs. Exits 1 if the target is missed.
"""

from __future__ import annotations

import os
import resource
import sys
import time

import numpy as np

from benchmarks.results import Row, save
from scoring.alignment.agreement import (
    AgreementPair,
    AgreementParams,
    chance_corrected_agreement,
    default_threads,
)
from scoring.alignment.links import Alignment

TARGET_SECONDS = 10.0


def synthetic_pairs(count: int, seed: int = 0) -> list[AgreementPair]:
    """Pairs of 20–30 tokens: a near-diagonal prefill, a shared correction of it, and two
    annotators who each add a few edits of their own."""
    rng = np.random.default_rng(seed)
    vocab = [f"w{k}" for k in range(60)]
    pairs = []
    for k in range(count):
        n, m = (int(v) for v in rng.integers(20, 31, size=2))
        src = [vocab[int(v)] for v in rng.integers(0, 60, n)]
        tgt = [vocab[int(v)] for v in rng.integers(0, 60, m)]
        prefill = np.zeros((n, m), dtype=bool)
        for i in range(n):
            if rng.random() < 0.8:
                prefill[i, int(np.clip(round(i * m / n) + rng.integers(-1, 2), 0, m - 1))] = True
        truth = prefill ^ (rng.random((n, m)) < 0.03)

        def annotator(truth: np.ndarray = truth, n: int = n, m: int = m) -> Alignment:
            p = truth ^ (rng.random((n, m)) < 0.01)
            return Alignment.from_matrices(p & (rng.random((n, m)) < 0.7), p)

        pairs.append(
            AgreementPair(
                f"pair-{k}", src, tgt, Alignment.from_matrices(prefill), annotator(), annotator()
            )
        )
    return pairs


def timed(pairs: list[AgreementPair], samples: int) -> tuple[float, float, float | None]:
    """Wall seconds, CPU seconds (all threads) and the phrase-level Ĉ of one full run."""
    start = time.perf_counter()
    cpu = time.process_time()
    report = chance_corrected_agreement(pairs, params=AgreementParams(samples=samples, seed=1))
    c_hat = report.results["possible"]["phrase_atomic"].c_hat
    return time.perf_counter() - start, time.process_time() - cpu, c_hat


def main() -> int:
    pairs_1000 = synthetic_pairs(1000)
    pairs_300 = pairs_1000[:300]
    timed(pairs_1000[:2], 5)  # compile / load the numba cache outside the timing

    seconds, cpu, c_hat = timed(pairs_300, 1000)
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"Ĉ, J=1000, 300 pairs of 20-30 tokens (P and S, all item sets): {seconds:.2f} s wall")
    print(f"  CPU time {cpu:.2f} s on {default_threads()} threads; load average {os.getloadavg()}")
    print(f"  Ĉ (atomic phrase pairs, P) = {c_hat}")
    print(f"  peak RSS {rss_mb:.0f} MB")

    t_j100, _, _ = timed(pairs_300, 100)
    print(
        f"J growth, 300 pairs: J=100 {t_j100:.2f} s -> J=1000 {seconds:.2f} s "
        f"(x{seconds / t_j100:.1f} for x10 samples)"
    )
    t_p100, _, _ = timed(pairs_1000[:100], 100)
    t_p1000, _, _ = timed(pairs_1000, 100)
    print(
        f"pair growth, J=100: 100 pairs {t_p100:.2f} s -> 1000 pairs {t_p1000:.2f} s "
        f"(x{t_p1000 / t_p100:.1f} for x10 pairs)"
    )
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak RSS after all runs {rss_mb:.0f} MB")
    save(
        "bench_agreement",
        [
            Row(
                "Monte Carlo Ĉ, J = 1,000, 300 pairs of 20–30 tokens",
                seconds,
                "s",
                target=f"≤ {TARGET_SECONDS:.0f} s",
                met=seconds <= TARGET_SECONDS,
            )
        ],
        peak_rss_mb=round(rss_mb),
        seconds_j100=t_j100,
        seconds_1000_pairs_j100=t_p1000,
    )
    if seconds > TARGET_SECONDS:
        print(f"FAIL: {seconds:.2f} s is above the target {TARGET_SECONDS:.0f} s")
        return 1
    print(f"OK: {seconds:.2f} s ≤ {TARGET_SECONDS:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
