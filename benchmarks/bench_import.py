"""Import 100,000 JSONL pairs through ``manage.py import_corpus``.

Target: peak memory of the importing process under 500 MB. Prints pairs/second. The import runs
in a child process on a fresh SQLite database in a temporary directory, and its peak resident
set size is read from the kernel's accounting of that child (``wait4``).

    python -m benchmarks.bench_import [--pairs N]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.paths import ROOT
from benchmarks.results import Row, save

PEAK_LIMIT_MB = 500
WORDS = (
    "the a council approved new budget on tuesday after three hour debate police arrested two "
    "men in connection with burglary shop minister resigned friday citing personal reasons "
    "scientists discovered species frog rainforest company said profits rose percent quarter"
).split()


def write_corpus(path: Path, pairs: int, seed: int = 0) -> None:
    rng = random.Random(seed)
    with path.open("w", encoding="utf-8") as out:
        for index in range(pairs):
            src = [rng.choice(WORDS) for _ in range(rng.randint(15, 30))]
            tgt = [rng.choice(WORDS) for _ in range(rng.randint(15, 30))]
            links = sorted({(rng.randrange(len(src)), rng.randrange(len(tgt))) for _ in range(12)})
            sure = [list(link) for link in links[:8]]
            poss = [list(link) for link in links[8:]]
            record = {
                "id": f"p{index}",
                "subcorpus": ("news", "mtc", "novels")[index % 3],
                "split": "train",
                "source_tokens": src,
                "target_tokens": tgt,
                "prefill": {"aligner": "identity", "sure": sure, "possible": []},
                "annotations": {
                    "alice": {"sure": sure, "possible": poss, "status": "submitted"},
                },
            }
            out.write(json.dumps(record) + "\n")


def run(cmd: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Run a child process; return (seconds, peak RSS in MB)."""
    start = time.perf_counter()
    process = subprocess.Popen(cmd, cwd=ROOT, env=env)
    _, status, usage = os.wait4(process.pid, 0)
    elapsed = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"command failed: {' '.join(cmd)}")
    return elapsed, usage.ru_maxrss / 1024


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--pairs", type=int, default=100_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        corpus = Path(tmp) / "corpus.jsonl"
        write_corpus(corpus, args.pairs)
        env = {**os.environ, "VAR_DIR": tmp, "DATABASE_URL": f"sqlite:///{tmp}/bench.sqlite3"}
        env.pop("CELERY_BROKER_URL", None)
        run([sys.executable, "manage.py", "migrate", "--no-input", "-v", "0"], env)
        seconds, peak = run(
            [
                sys.executable,
                "manage.py",
                "import_corpus",
                "--corpus",
                "bench",
                "--format",
                "jsonl",
                str(corpus),
            ],
            env,
        )
    rate = args.pairs / seconds
    verdict = "OK" if peak < PEAK_LIMIT_MB else "TOO MUCH MEMORY"
    print(
        f"import of {args.pairs:,} JSONL pairs: {seconds:.1f} s, {rate:,.0f} pairs/s, "
        f"peak RSS {peak:.0f} MB (limit {PEAK_LIMIT_MB} MB): {verdict}"
    )
    save(
        "bench_import",
        [
            Row(f"manage.py import_corpus, {args.pairs:,} JSONL pairs", rate, "pairs/s"),
            Row(
                "peak memory of that import",
                peak,
                "MB",
                target=f"≤ {PEAK_LIMIT_MB} MB",
                met=peak < PEAK_LIMIT_MB,
            ),
        ],
    )
    return 0 if peak < PEAK_LIMIT_MB else 1


if __name__ == "__main__":
    sys.exit(main())
