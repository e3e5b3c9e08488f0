"""The table of every benchmark's last figures (``benchmarks/results/*.json``).

    python -m benchmarks.summary [--readme]

Prints the table as Markdown (every figure), writes it to ``benchmarks/results/summary.md`` and,
with ``--readme``, puts a short form (one line per benchmark: its first missed figure, else its
first) into the README between the ``bench:start``/``bench:end`` markers.
"""

from __future__ import annotations

import argparse
import json
import re
from typing import Any

from benchmarks.paths import ROOT
from benchmarks.results import RESULTS

START, END = "<!-- bench:start -->", "<!-- bench:end -->"


def _number(value: float | None, unit: str = "") -> str:
    if value is None:
        return "—"
    text = f"{value:,.0f}" if abs(value) >= 100 else f"{value:,.3g}"
    return f"{text} {unit}".strip()


def _results() -> list[dict[str, Any]]:
    return [json.loads(path.read_text(encoding="utf-8")) for path in sorted(RESULTS.glob("*.json"))]


def _cells(row: dict[str, Any]) -> list[str]:
    peer = f"{row['peer']} {_number(row['peer_figure'], row['unit'])}".strip()
    ratio = "—" if row["ratio"] is None else f"{row['ratio']:,.3g}×"
    target = f"{row['target']} {'✓' if row['met'] else '✗ missed'}".strip()
    return [row["what"], _number(row["figure"], row["unit"]), peer or "—", ratio, target]


def table() -> str:
    """Every figure of every benchmark."""
    lines = [
        "| benchmark | what | figure | peer (same run) | ratio | target | machine, date |",
        "|---|---|---|---|---|---|---|",
    ]
    for body in _results():
        where = f"{body['machine']['cores']} cores, {body['date']}"
        name = body["benchmark"].removeprefix("bench_")
        for row in body["rows"]:
            lines.append("| " + " | ".join([name, *_cells(row), where]) + " |")
    return "\n".join(lines) + "\n"


def short_table() -> str:
    """One line per benchmark: its first missed figure, else its first; and how many of its
    targets were met (rows without a target are figures shown for reference)."""
    lines = [
        "| benchmark | figure | value | peer (same run) | ratio | target | targets met | date |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for body in _results():
        rows = body["rows"]
        shown = next((row for row in rows if not row["met"]), rows[0])
        targeted = [row for row in rows if row["target"]]  # the others are shown for reference
        met = sum(row["met"] for row in targeted)
        name = body["benchmark"].removeprefix("bench_")
        lines.append(
            "| "
            + " | ".join([name, *_cells(shown), f"{met} of {len(targeted)}", body["date"]])
            + " |"
        )
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--readme", action="store_true", help="update the README's table")
    args = parser.parse_args()
    text = table()
    print(text)
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "summary.md").write_text(text, encoding="utf-8")
    if args.readme:
        readme = ROOT / "README.md"
        content = readme.read_text(encoding="utf-8")
        block = f"{START}\n{short_table()}{END}"
        pattern = re.compile(re.escape(START) + ".*?" + re.escape(END), re.S)
        if not pattern.search(content):
            raise SystemExit(f"README.md has no {START} … {END} block")
        readme.write_text(pattern.sub(lambda _: block, content), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
