"""``python -m scoring``: the researchers' command line (see ``python -m scoring --help``)."""

import sys

from scoring.cli import main

sys.exit(main())
