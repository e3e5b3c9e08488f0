"""Benchmark: reading 100,000 JSONL pairs with full validation, streaming.

    .venv/bin/python -m benchmarks.bench_formats_jsonl [--pairs N]

Writes a synthetic corpus (20–30 tokens a side, a prefill with confidences, two annotators, a
gold alignment) to a temporary file with :func:`scoring.formats.jsonl.write`, then reads it back
with :func:`scoring.formats.jsonl.read`, dropping each record as the importer's validation pass
would. Prints pairs/second for the reader and for the peer, a bare ``json.loads`` per line (no
validation, no records), their ratio, and the process's peak resident memory. Exits non-zero if
the peak exceeds 500 MB.
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from benchmarks.results import Row, save
from scoring.alignment.links import Alignment
from scoring.corpus import AnnotationRecord, PairRecord
from scoring.formats import jsonl

PEAK_LIMIT_MB = 500.0


def synthetic_pairs(count: int, seed: int) -> Iterator[PairRecord]:
    rng = np.random.default_rng(seed)
    vocabulary = [f"w{k}" for k in range(5000)]
    for index in range(count):
        n, m = int(rng.integers(20, 31)), int(rng.integers(20, 31))
        source = [vocabulary[k] for k in rng.integers(0, len(vocabulary), n)]
        target = [vocabulary[k] for k in rng.integers(0, len(vocabulary), m)]
        diagonal = [(i, min(m - 1, i)) for i in range(n)]
        extra = [(int(rng.integers(0, n)), int(rng.integers(0, m))) for _ in range(5)]
        prefill = Alignment.from_links(n, m, diagonal, extra)
        yield PairRecord(
            id=f"synthetic:{index}",
            source_tokens=source,
            target_tokens=target,
            source_text=" ".join(source),
            target_text=" ".join(target),
            subcorpus=("news", "mtc", "novels")[index % 3],
            split="train",
            gold_score=float(rng.uniform(0, 5)),
            prefill=prefill,
            prefill_aligner="bench",
            prefill_confidence={link: float(rng.uniform()) for link in prefill.possible},
            annotations={
                name: AnnotationRecord(alignment=Alignment.from_links(n, m, diagonal[:-2], extra))
                for name in ("alice", "bob")
            },
            gold_alignment=Alignment.from_links(n, m, diagonal),
        )


def peak_rss_mb() -> float:
    # ru_maxrss is in kilobytes on Linux.
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "corpus.jsonl"
        started = time.perf_counter()
        jsonl.write(synthetic_pairs(args.pairs, args.seed), path)
        write_seconds = time.perf_counter() - started
        size_mb = path.stat().st_size / 1e6
        before_read = peak_rss_mb()

        started = time.perf_counter()
        peer_count = 0
        with path.open(encoding="utf-8") as handle:
            for line in handle:
                json.loads(line)
                peer_count += 1
        peer_seconds = time.perf_counter() - started

        started = time.perf_counter()
        count = 0
        for _record in jsonl.read([path]):
            count += 1
        read_seconds = time.perf_counter() - started
        peak = peak_rss_mb()

    assert count == peer_count == args.pairs
    print(f"pairs: {count:,} ({size_mb:.0f} MB of JSONL, seed {args.seed})")
    print(f"write: {count / write_seconds:,.0f} pairs/s")
    print(f"read (validated records): {count / read_seconds:,.0f} pairs/s")
    print(f"peer json.loads per line: {peer_count / peer_seconds:,.0f} pairs/s")
    print(f"ratio read / peer: {read_seconds / peer_seconds:.2f}× the time")
    print(
        f"peak RSS: {peak:.0f} MB (before reading: {before_read:.0f} MB; limit {PEAK_LIMIT_MB:.0f})"
    )
    save(
        "bench_formats_jsonl",
        [
            Row(
                f"reading {count:,} JSONL pairs with full validation",
                count / read_seconds,
                "pairs/s",
                "json.loads alone",
                peer_count / peer_seconds,
                peer_seconds / read_seconds,
            ),
            Row(
                "peak memory while reading",
                peak,
                "MB",
                target=f"≤ {PEAK_LIMIT_MB:.0f} MB",
                met=peak <= PEAK_LIMIT_MB,
            ),
        ],
    )
    if peak > PEAK_LIMIT_MB:
        print("FAIL: peak memory above the limit", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
