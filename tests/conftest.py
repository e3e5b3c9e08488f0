import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.paths import NLTK_DATA, SHARED_DATA

# Linguistic resources come from the shared copy in tests; the product itself
# finds them on NLTK's normal search path.
os.environ.setdefault("NLTK_DATA", str(NLTK_DATA))
# Web processes load the scorers' resources in a background thread; tests that want it say so.
os.environ.setdefault("PRELOAD_SCORERS", "0")


@pytest.fixture(autouse=True, scope="session")
def _in_memory_broker_for_unit_tests() -> None:
    """Unit tests never publish to the embedded broker under var/; the integration
    suite sets CELERY_BROKER_URL and talks to a real broker and worker."""
    if "CELERY_BROKER_URL" not in os.environ:
        from config.celery import app

        app.conf.broker_url = "memory://"


@pytest.fixture(autouse=True)
def _fresh_cache() -> None:
    """Login failures and API rate counts of one test never carry over to the next."""
    from django.core.cache import cache

    cache.clear()


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The public data sets (``DATA_DIR``); a missing folder is an error, never a silent skip."""
    if not SHARED_DATA.is_dir():
        raise FileNotFoundError(f"the shared test data is missing: {SHARED_DATA}")
    return SHARED_DATA


@pytest.fixture
def eager_chunks(settings: Any, tmp_path: Path) -> Iterator[None]:
    """The chunk tasks a job sends run inside the runner that sends them, as the chord's
    callback does (no worker in the unit suite); the files they share go under the test's
    folder."""
    from config.celery import app

    settings.EXPORT_DIR = tmp_path / "exports"
    previous = app.conf.task_always_eager
    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = previous
