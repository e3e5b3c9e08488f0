"""The table of every benchmark's last figures (``benchmarks/results/*.json``).

    python -m benchmarks.summary [--readme]

Prints the table as Markdown, writes it to ``benchmarks/results/summary.md`` and, with
``--readme``, puts it into the README between the ``bench:start``/``bench:end`` markers.
"""

from __future__ import annotations

import argparse
import json
import re

from benchmarks.paths import ROOT
from benchmarks.results import RESULTS

START, END = "<!-- bench:start -->", "<!-- bench:end -->"


def _number(value: float | None, unit: str = "") -> str:
    if value is None:
        return "—"
    text = f"{value:,.0f}" if abs(value) >= 100 else f"{value:,.3g}"
    return f"{text} {unit}".strip()


def table() -> str:
    lines = [
        "| benchmark | what | figure | peer (same run) | ratio | target | machine, date |",
        "|---|---|---|---|---|---|---|",
    ]
    for path in sorted(RESULTS.glob("*.json")):
        body = json.loads(path.read_text(encoding="utf-8"))
        where = f"{body['machine']['cores']} cores, {body['date']}"
        for row in body["rows"]:
            peer = f"{row['peer']} {_number(row['peer_figure'], row['unit'])}".strip()
            ratio = "—" if row["ratio"] is None else f"{row['ratio']:,.3g}×"
            target = f"{row['target']} {'✓' if row['met'] else '✗ missed'}".strip()
            lines.append(
                f"| {body['benchmark'].removeprefix('bench_')} | {row['what']} | "
                f"{_number(row['figure'], row['unit'])} | {peer or '—'} | {ratio} | {target} | "
                f"{where} |"
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
        block = f"{START}\n{text}{END}"
        pattern = re.compile(re.escape(START) + ".*?" + re.escape(END), re.S)
        if not pattern.search(content):
            raise SystemExit(f"README.md has no {START} … {END} block")
        readme.write_text(pattern.sub(lambda _: block, content), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
