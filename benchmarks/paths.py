"""Where benchmarks and experiments find the public data sets.

``DATA_DIR`` comes from the environment (``make bench`` and ``make reproduce`` fill it in, as
they fill in ``NLTK_DATA`` for NLTK's resources). A missing setting stops the run with a message
naming it.
"""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def data_dir() -> Path:
    value = os.environ.get("DATA_DIR")
    if not value:
        raise SystemExit("set DATA_DIR to the folder holding the data sets (make bench sets it)")
    path = Path(value)
    if not path.is_dir():
        raise SystemExit(f"DATA_DIR={value} is not a folder")
    return path
