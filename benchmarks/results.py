"""Where benchmarks record their figures: ``benchmarks/results/<name>.json``.

Each benchmark calls :func:`save` with its rows (figure, the peer measured in the same run, the
ratio, the target and whether it was met) and the machine and date are added here.
``python -m benchmarks.summary`` turns the files into a table for the README.
"""

from __future__ import annotations

import datetime
import json
import os
import platform
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from benchmarks.paths import ROOT

RESULTS = ROOT / "benchmarks" / "results"


@dataclass
class Row:
    """One measured figure beside its peer. ``ratio`` is written so that larger is better
    unless the row says otherwise in ``what`` (e.g. a time ratio)."""

    what: str
    figure: float
    unit: str
    peer: str = ""
    peer_figure: float | None = None
    ratio: float | None = None
    target: str = ""
    met: bool = True


def machine() -> dict[str, Any]:
    return {
        "system": f"{platform.system()} {platform.release()}",
        "cpu": platform.processor() or platform.machine(),
        "cores": os.cpu_count(),
        "python": platform.python_version(),
        "load_average": [round(v, 2) for v in os.getloadavg()],
    }


def save(name: str, rows: list[Row], **details: Any) -> Path:
    """Write ``benchmarks/results/<name>.json``; returns its path."""
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / f"{name}.json"
    body = {
        "benchmark": name,
        "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": machine(),
        "rows": [asdict(row) for row in rows],
        "met": all(row.met for row in rows),
        "details": details,
    }
    path.write_text(json.dumps(body, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"results: {path.relative_to(ROOT)}")
    return path
