"""EM aligner speed: train 5 Model 1 + 5 HMM iterations in both directions
on 10,000 synthetic pairs of 20–30 tokens in ≤ 60 s (independently, and jointly with
``training="agreement"``), and align one pair in ≤ 5 ms.

Run: ``.venv/bin/python -m benchmarks.bench_em [--pairs N] [--seed S]``. The peer,
measured in the same run, is NLTK's ``IBMModel1`` (plain Python) on the first 500 pairs, one
iteration, against our Model 1 on the same pairs; the ratio is printed. Numba compilation is
done (and timed) first on a tiny corpus so that it does not count against the target. Exits
non-zero if a target is missed.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from benchmarks.results import Row, save
from scoring.aligners.em import EMAligner
from scoring.aligners.options import EMOptions

TRAIN_TARGET_S = 60.0
ALIGN_TARGET_MS = 5.0


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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=0)
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
    if align_ms > ALIGN_TARGET_MS:
        missed.append(f"aligning took {align_ms:.2f} ms > {ALIGN_TARGET_MS:.0f} ms")
    for line in missed:
        print(f"TARGET MISSED: {line}", file=sys.stderr)
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
