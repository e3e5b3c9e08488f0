"""EM aligner speed and memory: train 5 Model 1 + 5 HMM iterations in both directions
on 10,000 synthetic pairs of 20–30 tokens in ≤ 60 s (independently, and jointly with
``training="agreement"``), align one pair in ≤ 5 ms, stop a training within 1 s of a cancel
or a signal (a job's soft time limit, a worker's shutdown), and train on 60,000 pairs in a
process whose peak memory stays ≤ 1.5 GB.

Run: ``.venv/bin/python -m benchmarks.bench_em [--pairs N] [--seed S] [--memory-pairs N]
[--baseline DIR]``. The peer, measured in the same run, is NLTK's ``IBMModel1`` (plain Python)
on the first 500 pairs, one iteration, against our Model 1 on the same pairs; the ratio is
printed. Numba compilation is done (and timed) first on a tiny corpus so that it does not count
against the target. The memory figure is the peak resident set of a process of its own that
builds the corpus and trains on it (``--memory-pairs 0``: skipped); with ``--baseline DIR``, a
checkout of another commit (``git worktree add DIR COMMIT``), the same process runs that
commit's code too, and the links of both models on 2,000 pairs are compared. Exits non-zero
if a target is missed.
"""

from __future__ import annotations

import argparse
import json
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from benchmarks.paths import ROOT
from benchmarks.results import Row, save
from scoring.aligners.em import EMAligner
from scoring.aligners.options import EMOptions

TRAIN_TARGET_S = 60.0
ALIGN_TARGET_MS = 5.0
STOP_TARGET_S = 1.0
MEMORY_TARGET_MB = 1536.0

#: Run in a process of its own, in the folder of the code measured (this checkout or a
#: baseline's): builds the corpus, trains, prints the peak resident set (ru_maxrss, KiB on
#: Linux) before and after the training and a digest of the links on the first 2,000 pairs.
_MEMORY_CHILD = """
import hashlib, json, resource, sys, time
import numpy as np
from benchmarks.bench_em import synthetic_corpus
from scoring.aligners.em import EMAligner
from scoring.aligners.options import EMOptions
rng = np.random.default_rng(1)
EMAligner(EMOptions(model1_iterations=1, hmm_iterations=1)).fit(synthetic_corpus(20, rng))
pairs = synthetic_corpus(int(sys.argv[1]), np.random.default_rng(int(sys.argv[2])))
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
started = time.perf_counter()
aligner = EMAligner(EMOptions()).fit(pairs)
seconds = time.perf_counter() - started
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
digest = hashlib.sha256()
for source, target in pairs[:2000]:
    out = aligner.align(source, target)
    links = (sorted(out.sure), sorted(out.possible), sorted(out.confidence.items()))
    digest.update(repr(links).encode())
print(json.dumps({"before_mb": before / 1024, "peak_mb": peak / 1024, "seconds": seconds,
                  "links": digest.hexdigest()}))
"""


def synthetic_corpus(
    n_pairs: int, rng: np.random.Generator, vocab: int = 8000
) -> list[tuple[list[str], list[str]]]:
    """Pairs of 20–30 tokens: Zipfian source words, each replaced by one of three paraphrases
    (itself half the time), light local reordering, a few insertions and deletions."""
    ranks = np.arange(1, vocab + 1)
    zipf = 1.0 / ranks
    zipf /= zipf.sum()
    paraphrase = rng.integers(0, vocab, size=(vocab, 2))
    pairs = []
    for _ in range(n_pairs):
        n = int(rng.integers(20, 31))
        src = rng.choice(vocab, size=n, p=zipf)
        tgt = []
        for w in src:
            u = rng.random()
            if u < 0.05:
                continue  # deleted
            tgt.append(int(w) if u < 0.55 else int(paraphrase[w, int(u < 0.8)]))
            if rng.random() < 0.03:
                tgt.append(int(rng.choice(vocab, p=zipf)))  # inserted
        for k in range(len(tgt) - 1):
            if rng.random() < 0.1:
                tgt[k], tgt[k + 1] = tgt[k + 1], tgt[k]
        tgt = tgt[:30] if len(tgt) >= 20 else tgt + [int(w) for w in src[: 20 - len(tgt)]]
        pairs.append(([f"w{w}" for w in src], [f"w{w}" for w in tgt]))
    return pairs


def training_memory(code: Path, n_pairs: int, seed: int) -> dict[str, float | str]:
    """Peak memory (MB) of a process that trains on ``n_pairs`` synthetic pairs with the code
    in ``code``; also its memory before the training, the training's seconds and the links'
    digest."""
    out = subprocess.run(
        [sys.executable, "-c", _MEMORY_CHILD, str(n_pairs), str(seed)],
        cwd=code,
        capture_output=True,
        text=True,
        check=True,
    )
    result: dict[str, float | str] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


class _Stopped(Exception):
    pass


def stop_latency(pairs: list[tuple[list[str], list[str]]], after_s: float, how: str) -> float:
    """Seconds from a request to stop a training, ``after_s`` into it, to the training
    stopping: ``how="cancel"``, a ``progress`` that raises once asked to (a cancelled job);
    ``"signal"``, a signal whose handler raises (a soft time limit's, a stopping worker's)."""
    asked: list[float] = []
    progress: Callable[[float, str], None] | None = None
    if how == "cancel":

        def cancel() -> None:
            asked.append(time.perf_counter())

        def raising(fraction: float, stage: str) -> None:
            if asked:
                raise _Stopped

        progress = raising
        timer = threading.Timer(after_s, cancel)
        timer.start()
    else:

        def handler(signum: int, frame: object) -> None:
            raise _Stopped

        previous = signal.signal(signal.SIGALRM, handler)
        asked.append(time.perf_counter() + after_s)
        signal.setitimer(signal.ITIMER_REAL, after_s)
    try:
        EMAligner(EMOptions(model1_iterations=5, hmm_iterations=5)).fit(pairs, progress=progress)
    except _Stopped:
        pass
    except SystemError as error:  # a signal landing in numba's code comes out wrapped
        if not isinstance(error.__cause__ or error.__context__, _Stopped):
            raise
    else:
        raise RuntimeError("the training ended before the stop was asked")
    finally:
        if how == "signal":
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
    return time.perf_counter() - asked[0]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--memory-pairs", type=int, default=60_000)
    parser.add_argument("--baseline", type=Path, default=None)
    args = parser.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    pairs = synthetic_corpus(args.pairs, rng)
    lengths = [len(s) for s, _ in pairs] + [len(t) for _, t in pairs]
    print(f"corpus: {len(pairs)} pairs, {min(lengths)}–{max(lengths)} tokens, seed {args.seed}")

    started = time.perf_counter()
    warm = EMAligner(EMOptions(model1_iterations=1, hmm_iterations=1))
    warm.fit(pairs[:20])
    warm.align(*pairs[0])
    print(f"numba compilation / cache load: {time.perf_counter() - started:.2f} s")

    aligner = EMAligner(EMOptions(model1_iterations=5, hmm_iterations=5))
    started = time.perf_counter()
    aligner.fit(pairs)
    train_s = time.perf_counter() - started
    print(
        f"train 5 Model 1 + 5 HMM iterations, both directions: {train_s:.2f} s "
        f"(target ≤ {TRAIN_TARGET_S:.0f} s)"
    )

    # Joint training (Liang et al. 2006), the option ``training="agreement"``: same iterations.
    joint = EMAligner(EMOptions(model1_iterations=5, hmm_iterations=5, training="agreement"))
    started = time.perf_counter()
    joint.fit(pairs)
    joint_s = time.perf_counter() - started
    print(
        f"the same, trained by agreement: {joint_s:.2f} s (×{joint_s / train_s:.2f} of "
        f"independent training; target ≤ {TRAIN_TARGET_S:.0f} s)"
    )

    # A stop asked in the HMM iterations: Python runs between two chunks of an E-step.
    after_s = 0.7 * train_s
    cancel_s = stop_latency(pairs, after_s, "cancel")
    signal_s = stop_latency(pairs, after_s, "signal")
    print(
        f"training stopped {cancel_s:.2f} s after a cancel and {signal_s:.2f} s after a signal, "
        f"{after_s:.0f} s into it (target ≤ {STOP_TARGET_S:.0f} s)"
    )

    sample = pairs[:500]
    started = time.perf_counter()
    for s, t in sample:
        aligner.align(s, t)
    align_ms = 1000 * (time.perf_counter() - started) / len(sample)
    print(
        f"align one pair (mean of {len(sample)}): {align_ms:.2f} ms "
        f"(target ≤ {ALIGN_TARGET_MS:.0f} ms)"
    )

    # Peer: NLTK's plain-Python IBM Model 1, one iteration, versus ours on the same pairs.
    from nltk.translate import AlignedSent, IBMModel1

    peer_pairs = pairs[:500]
    bitext = [AlignedSent(t, s) for s, t in peer_pairs]
    started = time.perf_counter()
    IBMModel1(bitext, 1)
    peer_s = time.perf_counter() - started
    ours = EMAligner(EMOptions(model1_iterations=1, hmm_iterations=0, identity_weight=0.0))
    started = time.perf_counter()
    ours.fit(peer_pairs)
    ours_s = (time.perf_counter() - started) / 2  # both directions are trained; NLTK does one
    print(
        f"peer: NLTK IBMModel1, 1 iteration, 500 pairs: {peer_s:.3f} s; ours (one direction): "
        f"{ours_s:.3f} s; speed-up ×{peer_s / ours_s:.1f}",
        flush=True,
    )

    memory_rows = []
    memory_mb = 0.0
    links_differ = False
    if args.memory_pairs:
        ours_mem = training_memory(ROOT, args.memory_pairs, args.seed)
        memory_mb = float(ours_mem["peak_mb"])
        print(
            f"training on {args.memory_pairs:,} pairs: peak memory {memory_mb:.0f} MB "
            f"({float(ours_mem['before_mb']):.0f} MB before the training, "
            f"{float(ours_mem['seconds']):.0f} s; target ≤ {MEMORY_TARGET_MB:.0f} MB)",
            flush=True,
        )
        peer_mb: float | None = None
        if args.baseline is not None:
            base = training_memory(args.baseline, args.memory_pairs, args.seed)
            peer_mb = float(base["peak_mb"])
            links_differ = base["links"] != ours_mem["links"]
            print(
                f"baseline {args.baseline}: peak memory {peer_mb:.0f} MB "
                f"({float(base['before_mb']):.0f} MB before the training, "
                f"{float(base['seconds']):.0f} s); links on 2,000 pairs "
                f"{'DIFFER' if links_differ else 'identical'}"
            )
        memory_rows.append(
            Row(
                f"peak memory of a process training on {args.memory_pairs:,} pairs",
                memory_mb,
                "MB",
                "baseline commit" if peer_mb is not None else "",
                peer_mb,
                peer_mb / memory_mb if peer_mb is not None else None,
                target=f"≤ {MEMORY_TARGET_MB:.0f} MB",
                met=memory_mb <= MEMORY_TARGET_MB and not links_differ,
            )
        )

    save(
        "bench_em",
        [
            Row(
                f"EM training, 5 Model 1 + 5 HMM iterations, both directions, {len(pairs):,} pairs",
                train_s,
                "s",
                target=f"≤ {TRAIN_TARGET_S:.0f} s",
                met=train_s <= TRAIN_TARGET_S,
            ),
            Row(
                "the same, trained by agreement",
                joint_s,
                "s",
                target=f"≤ {TRAIN_TARGET_S:.0f} s",
                met=joint_s <= TRAIN_TARGET_S,
            ),
            Row(
                "a training stopped after a cancel",
                cancel_s,
                "s",
                target=f"≤ {STOP_TARGET_S:.0f} s",
                met=cancel_s <= STOP_TARGET_S,
            ),
            Row(
                "a training stopped after a signal",
                signal_s,
                "s",
                target=f"≤ {STOP_TARGET_S:.0f} s",
                met=signal_s <= STOP_TARGET_S,
            ),
            *memory_rows,
            Row(
                "aligning one pair",
                align_ms,
                "ms",
                target=f"≤ {ALIGN_TARGET_MS:.0f} ms",
                met=align_ms <= ALIGN_TARGET_MS,
            ),
            Row(
                "IBM Model 1, one iteration, 500 pairs, one direction",
                ours_s,
                "s",
                "nltk IBMModel1",
                peer_s,
                peer_s / ours_s,
            ),
        ],
    )
    missed = []
    if train_s > TRAIN_TARGET_S:
        missed.append(f"training took {train_s:.1f} s > {TRAIN_TARGET_S:.0f} s")
    if joint_s > TRAIN_TARGET_S:
        missed.append(f"training by agreement took {joint_s:.1f} s > {TRAIN_TARGET_S:.0f} s")
    if max(cancel_s, signal_s) > STOP_TARGET_S:
        missed.append(f"a training stopped {max(cancel_s, signal_s):.1f} s after it was asked")
    if memory_mb > MEMORY_TARGET_MB:
        missed.append(f"training took {memory_mb:.0f} MB > {MEMORY_TARGET_MB:.0f} MB")
    if links_differ:
        missed.append("the links differ from the baseline's")
    if align_ms > ALIGN_TARGET_MS:
        missed.append(f"aligning took {align_ms:.2f} ms > {ALIGN_TARGET_MS:.0f} ms")
    for line in missed:
        print(f"TARGET MISSED: {line}", file=sys.stderr)
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
