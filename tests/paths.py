"""Where the tests find the shared data (``../shared`` beside the project root).

Only tests and benchmarks use it; the product never does.
"""

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
SHARED_DATA = SHARED / "data"
NLTK_DATA = SHARED / "nltk_data"
