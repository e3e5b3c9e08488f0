"""Benchmark: TER on the 1,000 WMT17 pairs, scoring.edit.ter vs sacrebleu's TER sentence scoring.

Run as ``.venv/bin/python -m benchmarks.bench_ter``. Both sides start from the raw strings
(tercom's default lowercasing and whitespace tokenization) and are timed in this process: best
CPU time of three interleaved rounds, after numba compilation. Exits 1 unless the edit counts are
identical and scoring.edit.ter is at least 20× faster.
"""

from __future__ import annotations

import json
import sys

import numpy as np
from sacrebleu.metrics import TER

from benchmarks.paths import data_dir
from benchmarks.results import Row, save
from benchmarks.timing import interleaved_best
from scoring.edit.ter import ter_batch

TARGET = 20.0


def main() -> int:
    pairs = json.loads((data_dir() / "conformance/ter/wmt17_ende_1000pairs.json").read_text())
    hyps = [p["hyp"] for p in pairs]
    refs = [p["ref"] for p in pairs]
    metric = TER()

    def peer() -> list[float]:
        return [metric.sentence_score(h, [r]).num_edits for h, r in zip(hyps, refs, strict=True)]

    ours_edits = ter_batch(hyps, refs).num_edits  # compiles (or loads) the kernels
    peer_edits = np.array(peer(), dtype=np.float64)
    same = bool(np.array_equal(ours_edits, peer_edits))

    t_peer, t_ours = interleaved_best(3, peer, lambda: ter_batch(hyps, refs))
    n = len(pairs)
    ratio = t_peer / t_ours
    print(f"pairs: {n}")
    print(f"sacrebleu TER sentence_score: {n / t_peer:10.1f} pairs/s ({t_peer * 1e3:.1f} ms CPU)")
    print(
        f"scoring.edit.ter.ter_batch:        {n / t_ours:10.1f} pairs/s ({t_ours * 1e3:.1f} ms CPU)"
    )
    print(f"speed-up: {ratio:.1f}x (target >= {TARGET:.0f}x)")
    print(f"identical edit counts: {same}")
    if not same:
        bad = np.nonzero(ours_edits != peer_edits)[0]
        print(f"  differing segments: {bad[:20].tolist()}")
    save(
        "bench_ter",
        [
            Row(
                f"TER with shifts, {n:,} WMT17 pairs (identical edits: {same})",
                n / t_ours,
                "pairs/s",
                "sacrebleu",
                n / t_peer,
                ratio,
                f"≥ {TARGET:.0f}×, identical edits",
                same and ratio >= TARGET,
            )
        ],
    )
    return 0 if same and ratio >= TARGET else 1


if __name__ == "__main__":
    sys.exit(main())
