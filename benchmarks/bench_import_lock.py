"""How long an import keeps other users' writes waiting on SQLite, the embedded default.

``manage.py import_corpus`` of 40,000 jacana pairs shaped like Edinburgh++'s (12 to 30 tokens a
side, a gold link for about four words in five; about 25 MB) into a fresh SQLite database in a
temporary directory, then ``import_corpus --onto-existing --annotator bob`` of another alignment
of the same pairs (bob's annotation of every pair), while another process writes to the same
database every 50 ms, as an annotator's autosave would, with the app's busy timeout. Prints each
import's time, the other writer's longest wait during it (the time the import held the write
lock) and its failed writes.

Target: the longest wait at most half the busy timeout, so that a save that arrives while an
import writes still goes through; no failed write.

    python -m benchmarks.bench_import_lock [--pairs N] [--no-onto-existing]
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
from typing import Any

from benchmarks.paths import ROOT
from benchmarks.results import Row, save

BUSY_TIMEOUT = 20.0  # seconds, as config/settings.py sets it for SQLite
WORDS = (
    "the a council approved new budget on tuesday police arrested two men shop minister"
).split()


def write_jacana(path: Path, pairs: int, seed: int = 0, links_seed: int | None = None) -> None:
    """``pairs`` pairs drawn with ``seed``; their links drawn with ``links_seed`` when given
    (the same pairs, another alignment of them)."""
    rng = random.Random(seed)
    other = None if links_seed is None else random.Random(links_seed)
    items = []
    for k in range(pairs):
        source = [rng.choice(WORDS) for _ in range(rng.randint(12, 30))]
        target = [rng.choice(WORDS) for _ in range(rng.randint(12, 30))]
        links = _links(other or rng, len(source), len(target))
        if other is not None:  # the pairs' words as without links_seed
            _links(rng, len(source), len(target))
        item = {"id": f"n:{k}", "source": " ".join(source), "target": " ".join(target)}
        items.append(json.dumps({**item, "sureAlign": links}))
    path.write_text("[\n" + ",\n".join(items) + "\n]\n", encoding="utf-8")


def _links(rng: random.Random, n: int, m: int) -> str:
    """A link for about four source words in five, near the diagonal."""
    return " ".join(
        f"{i}-{min(m - 1, i * m // n + rng.randint(0, 1))}" for i in range(n) if rng.random() < 0.8
    )


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


def _longest(writes: list[list[Any]], began: float, ended: float) -> tuple[float, int, int]:
    """The longest wait, the failed writes and the writes of those begun in ``[began,
    ended)``."""
    during = [w for w in writes if began <= w[0] < ended]
    longest = max((waited for _, waited, _ in during), default=0.0)
    return longest, sum(1 for *_, bad in during if bad), len(during)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--pairs", type=int, default=40_000)
    parser.add_argument(
        "--no-onto-existing",
        dest="onto_existing",
        action="store_false",
        help="measure the import of the pairs alone, not the annotations added to them after",
    )
    parser.add_argument(
        "--probe", nargs=3, metavar=("DATABASE", "STOP", "OUT"), help=argparse.SUPPRESS
    )
    args = parser.parse_args()
    if args.probe:
        probe(args.probe[0], Path(args.probe[1]), Path(args.probe[2]))
        return 0
    runs: list[tuple[str, float, float]] = []  # what, began, ended
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
        imports = [("pairs", ["--corpus", "bench", "--format", "jacana", str(corpus)])]
        if args.onto_existing:
            bobs = folder / "bob.json"
            write_jacana(bobs, args.pairs, links_seed=1)
            onto = ["--onto-existing", "--annotator", "bob", str(bobs)]
            imports.append(("onto", ["--corpus", "bench", "--format", "jacana", *onto]))
        stop, out = folder / "stop", folder / "probe.json"
        probe_args = ["--probe", str(database), str(stop), str(out)]
        other = subprocess.Popen(
            [sys.executable, "-m", "benchmarks.bench_import_lock", *probe_args], cwd=ROOT
        )
        time.sleep(1.0)
        for what, import_args in imports:
            began = time.time()
            subprocess.run(
                [sys.executable, "manage.py", "import_corpus", *import_args],
                cwd=ROOT,
                env=env,
                check=True,
                stdout=subprocess.DEVNULL,
            )
            runs.append((what, began, time.time()))
            time.sleep(0.5)
        stop.touch()
        other.wait(60)
        writes = json.loads(out.read_text())
    rows = []
    details: dict[str, Any] = {}
    for what, began, ended in runs:
        longest, failed, count = _longest(writes, began, ended + 0.5)
        seconds = ended - began
        met = longest <= BUSY_TIMEOUT / 2 and failed == 0
        doing = (
            f"{args.pairs:,} jacana pairs are imported"
            if what == "pairs"
            else f"an annotator's alignments are added to those {args.pairs:,} pairs "
            "(--onto-existing)"
        )
        print(
            f"while {doing}: {seconds:.1f} s; another writer, every 50 ms: {count} writes, "
            f"longest wait {longest:.1f} s (the write lock held by the import), {failed} "
            f"failed: {'OK' if met else 'TOO LONG'}"
        )
        rows.append(
            Row(
                f"longest wait of another writer while {doing}",
                longest,
                "s",
                peer="the import",
                peer_figure=seconds,
                target=f"≤ {BUSY_TIMEOUT / 2:.0f} s, no failed write",
                met=met,
            )
        )
        suffix = "" if what == "pairs" else "_onto_existing"
        details |= {f"failed_writes{suffix}": failed, f"writes{suffix}": count}
    save("bench_import_lock", rows, **details)
    return 0 if all(row.met for row in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
