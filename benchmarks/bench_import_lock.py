"""How long an import keeps other users' writes waiting on SQLite, the embedded default.

``manage.py import_corpus`` of 40,000 jacana pairs shaped like Edinburgh++'s (12 to 30 tokens a
side, a gold link for about four words in five; about 25 MB) into a fresh SQLite database in a
temporary directory, while another process writes to the same database every
50 ms, as an annotator's autosave would, with the app's busy timeout. Prints the import's time,
the other writer's longest wait (the time the import held the write lock) and its failed writes.

Target: the longest wait at most half the busy timeout, so that a save that arrives while an
import writes still goes through; no failed write.

    python -m benchmarks.bench_import_lock [--pairs N]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.paths import ROOT
from benchmarks.results import Row, save

BUSY_TIMEOUT = 20.0  # seconds, as config/settings.py sets it for SQLite
WORDS = (
    "the a council approved new budget on tuesday police arrested two men shop minister"
).split()


def write_jacana(path: Path, pairs: int, seed: int = 0) -> None:
    rng = random.Random(seed)
    items = []
    for k in range(pairs):
        source = [rng.choice(WORDS) for _ in range(rng.randint(12, 30))]
        target = [rng.choice(WORDS) for _ in range(rng.randint(12, 30))]
        links = " ".join(
            f"{i}-{min(len(target) - 1, i * len(target) // len(source) + rng.randint(0, 1))}"
            for i in range(len(source))
            if rng.random() < 0.8
        )
        item = {"id": f"n:{k}", "source": " ".join(source), "target": " ".join(target)}
        items.append(json.dumps({**item, "sureAlign": links}))
    path.write_text("[\n" + ",\n".join(items) + "\n]\n", encoding="utf-8")


def probe(database: str, stop: Path, out: Path) -> None:
    """The other writer: one short write transaction every 50 ms until ``stop`` exists; writes
    ``[started, waited seconds, failed]`` per write to ``out``."""
    connection = sqlite3.connect(database, timeout=BUSY_TIMEOUT, isolation_level=None)
    connection.execute("CREATE TABLE IF NOT EXISTS bench_probe (at REAL)")
    writes = []
    while not stop.exists():
        started = time.time()
        clock = time.perf_counter()
        try:
            connection.execute("BEGIN IMMEDIATE")
            connection.execute("INSERT INTO bench_probe VALUES (?)", (started,))
            connection.execute("COMMIT")
            failed = False
        except sqlite3.OperationalError:
            failed = True
        writes.append([started, time.perf_counter() - clock, failed])
        time.sleep(0.05)
    out.write_text(json.dumps(writes))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--pairs", type=int, default=40_000)
    parser.add_argument(
        "--probe", nargs=3, metavar=("DATABASE", "STOP", "OUT"), help=argparse.SUPPRESS
    )
    args = parser.parse_args()
    if args.probe:
        probe(args.probe[0], Path(args.probe[1]), Path(args.probe[2]))
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        corpus, database = folder / "pairs.json", folder / "bench.sqlite3"
        write_jacana(corpus, args.pairs)
        env = {**os.environ, "VAR_DIR": tmp, "DATABASE_URL": f"sqlite:///{database}"}
        env.pop("CELERY_BROKER_URL", None)
        subprocess.run(
            [sys.executable, "manage.py", "migrate", "--no-input", "-v", "0"],
            cwd=ROOT,
            env=env,
            check=True,
        )
        stop, out = folder / "stop", folder / "probe.json"
        probe_args = ["--probe", str(database), str(stop), str(out)]
        other = subprocess.Popen(
            [sys.executable, "-m", "benchmarks.bench_import_lock", *probe_args], cwd=ROOT
        )
        time.sleep(1.0)
        started = time.time()
        import_args = ["--corpus", "bench", "--format", "jacana", str(corpus)]
        subprocess.run(
            [sys.executable, "manage.py", "import_corpus", *import_args],
            cwd=ROOT,
            env=env,
            check=True,
            stdout=subprocess.DEVNULL,
        )
        seconds = time.time() - started
        time.sleep(0.5)
        stop.touch()
        other.wait(60)
        writes = [w for w in json.loads(out.read_text()) if w[0] >= started]
    longest = max(waited for _, waited, _ in writes)
    failed = sum(1 for *_, bad in writes if bad)
    met = longest <= BUSY_TIMEOUT / 2 and failed == 0
    print(
        f"import of {args.pairs:,} jacana pairs: {seconds:.1f} s; another writer, every 50 ms: "
        f"{len(writes)} writes, longest wait {longest:.1f} s (the write lock held by the "
        f"import), {failed} failed: {'OK' if met else 'TOO LONG'}"
    )
    save(
        "bench_import_lock",
        [
            Row(
                f"longest wait of another writer while {args.pairs:,} jacana pairs are imported",
                longest,
                "s",
                peer="the import",
                peer_figure=seconds,
                target=f"≤ {BUSY_TIMEOUT / 2:.0f} s, no failed write",
                met=met,
            ),
        ],
        failed_writes=failed,
        writes=len(writes),
    )
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
