"""Where the tests find the public data sets and NLTK's resources.

``DATA_DIR`` and ``NLTK_DATA`` are settings that ``make test`` fills in; run by hand, the tests
fall back to the ``shared`` folder beside the project root, where CI keeps them. Only tests use
these paths; the product never does.
"""

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
_SHARED = ROOT.parent / "shared"
SHARED_DATA = Path(os.environ.get("DATA_DIR") or _SHARED / "data")
NLTK_DATA = Path(os.environ.get("NLTK_DATA") or _SHARED / "nltk_data")
