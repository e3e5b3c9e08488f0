"""System checks of the deployment (``manage.py check --deploy``)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core import checks


@checks.register(checks.Tags.caches, deploy=True)
def shared_cache_check(app_configs: Any, **kwargs: Any) -> list[checks.CheckMessage]:
    """The API rate limits live in the cache: in production it should be Redis, which every
    web process on every machine shares at the cost of one round trip. The file cache of the
    embedded default costs several file-system calls per API request."""
    backend = settings.CACHES["default"]["BACKEND"]
    if not settings.PRODUCTION or not backend.endswith("FileBasedCache"):
        return []
    return [
        checks.Warning(
            "the API rate limits use the file cache under VAR_DIR",
            hint="set CACHE_URL=redis://host:6379/1 (the web processes of every machine must "
            "share it)",
            id="annotate.W001",
        )
    ]
