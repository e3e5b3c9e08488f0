"""Benchmark: phrase-pair extraction with atomic labels vs ``nltk.translate.phrase_based``.

    .venv/bin/python -m benchmarks.bench_phrases

Random N×N alignments for N = 10, 20 and 40 tokens (each source word linked to about one target
word near the diagonal, plus some extra links, some words left unaligned). Both extractors run
in this process on the same alignments, measured like for like (no boundary rule, no length
limit, as nltk does); ours also labels every pair atomic or composite, nltk does not.

Target: sentence pairs/second ≥ 50× nltk's at every N for a corpus extracted the way the product
extracts one (:func:`extract_phrase_pairs_batch`: the alignments in one call, spans and atomic
masks returned in full). One call of :func:`extract_phrase_pairs` per alignment is measured and
recorded too; at 10 tokens it is bounded by the fixed cost of a call into numba and of returning
two arrays (about 3 µs of its total). The default configuration (Cohn et al.'s boundary rule) is
printed. Exits 1 if a target is missed.
"""

from __future__ import annotations

import time

import numpy as np
from nltk.translate.phrase_based import phrase_extraction

from benchmarks.results import Row, save
from scoring.alignment.phrases import extract_phrase_pairs, extract_phrase_pairs_batch

TARGET_RATIO = 50.0
ROUNDS = 5
SIZES = (10, 20, 40)


def random_alignments(count: int, n: int, seed: int = 0) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        mat = np.zeros((n, n), dtype=bool)
        for i in range(n):
            if rng.random() < 0.85:
                mat[i, int(np.clip(i + rng.integers(-2, 3), 0, n - 1))] = True
        mat |= rng.random((n, n)) < 0.02
        out.append(mat)
    return out


def _rate(run, alignments: list, min_seconds: float) -> float:
    """Alignments per second; ``run`` takes the whole list and returns the pairs it found."""
    done = 0
    start = time.perf_counter()
    while True:
        run(alignments)
        done += len(alignments)
        elapsed = time.perf_counter() - start
        if elapsed >= min_seconds:
            return done / elapsed


def measure(n: int) -> dict[str, float] | None:
    """Alignments per second at n tokens: nltk's, ours one call per alignment, ours as one
    batch, ours as one batch with the boundary rule; ``None`` if the extractors disagree."""
    alignments = random_alignments(200 if n <= 20 else 60, n)
    words = " ".join(f"w{k}" for k in range(n))
    nltk_inputs = [[(int(i), int(j)) for i, j in np.argwhere(m)] for m in alignments]

    def nltk(inputs: list) -> int:
        return sum(len(phrase_extraction(words, words, links)) for links in inputs)

    def per_call(mats: list) -> int:
        return sum(len(extract_phrase_pairs(m, boundary_rule=False)) for m in mats)

    def batch(mats: list) -> int:
        return len(extract_phrase_pairs_batch(mats, boundary_rule=False).spans)

    def batch_default(mats: list) -> int:
        return len(extract_phrase_pairs_batch(mats).spans)

    # Same spans as nltk (which reports (e_start, e_end + 1) and (f_start, f_end + 1)), per call
    # and in the batch.
    sample = extract_phrase_pairs_batch(alignments[:20], boundary_rule=False)
    for k, (m, links) in enumerate(zip(alignments[:20], nltk_inputs[:20], strict=True)):
        theirs = {(e[0], e[1], f[0], f[1]) for e, f, _, _ in phrase_extraction(words, words, links)}
        for pairs in (extract_phrase_pairs(m, boundary_rule=False), sample[k]):
            ours = {(a, b + 1, c, d + 1) for a, b, c, d in pairs.spans.tolist()}
            if ours != theirs:
                return None
    for run in (per_call, batch, batch_default):
        run(alignments[:2])  # compile outside the timing
    # Interleave short rounds and keep each extractor's best round, so that load from other
    # processes on this shared machine hits all alike.
    runs = {"nltk": nltk, "per_call": per_call, "batch": batch, "batch_default": batch_default}
    inputs = {"nltk": nltk_inputs}
    best = dict.fromkeys(runs, 0.0)
    for _ in range(ROUNDS):
        for name, run in runs.items():
            seconds = 0.6 if name == "nltk" else 0.3
            rate = _rate(run, inputs.get(name, alignments), seconds)
            best[name] = max(best[name], rate)
    return best


def main() -> int:
    rows = []
    for n in SIZES:
        rates = measure(n)
        if rates is None:
            print(f"FAIL: the two extractors disagree on a {n}×{n} alignment")
            return 1
        nltk_rate = rates["nltk"]
        print(
            f"{n}×{n}: nltk {nltk_rate:10.1f} alignments/s; ours, one batch "
            f"{rates['batch']:10.1f} (×{rates['batch'] / nltk_rate:.1f}); one call each "
            f"{rates['per_call']:10.1f} (×{rates['per_call'] / nltk_rate:.1f}); one batch with the "
            f"boundary rule {rates['batch_default']:10.1f} "
            f"(×{rates['batch_default'] / nltk_rate:.1f})"
        )
        ratio = rates["batch"] / nltk_rate
        rows.append(
            Row(
                f"phrase pairs with atomic labels, {n}×{n} alignments, a corpus in one call",
                rates["batch"],
                "alignments/s",
                "nltk phrase_extraction",
                nltk_rate,
                ratio,
                f"≥ {TARGET_RATIO:.0f}×",
                ratio >= TARGET_RATIO,
            )
        )
        rows.append(
            Row(
                f"phrase pairs with atomic labels, {n}×{n} alignments, one call per alignment",
                rates["per_call"],
                "alignments/s",
                "nltk phrase_extraction",
                nltk_rate,
                rates["per_call"] / nltk_rate,
            )
        )
    save("bench_phrases", rows)
    missed = [row.what for row in rows if not row.met]
    if missed:
        print(f"FAIL: below {TARGET_RATIO:.0f}× at: {'; '.join(missed)}")
        return 1
    print(f"OK: ≥ {TARGET_RATIO:.0f}× at every size")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
