"""The annotation guidelines page: markdown set by an admin, kept in ``VAR_DIR/guidelines.md``.

A file rather than a model field so no schema change is needed; the shipped default lives in
``frontend/guidelines_default.md``. The file is replaced atomically on save.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import markdown
import nh3
from django.conf import settings

from annotate.exceptions import DomainError

DEFAULT = Path(__file__).resolve().parent.parent.parent / "frontend" / "guidelines_default.md"
MAX_LENGTH = 200_000


def _path() -> Path:
    return Path(settings.VAR_DIR) / "guidelines.md"


def guidelines_get() -> str:
    path = _path()
    if path.exists():
        return path.read_text(encoding="utf-8")
    return DEFAULT.read_text(encoding="utf-8") if DEFAULT.exists() else ""


def guidelines_html(text: str | None = None) -> str:
    """The markdown rendered to HTML and sanitised (an admin's typo must not run script)."""
    raw = markdown.markdown(guidelines_get() if text is None else text, extensions=["tables"])
    return nh3.clean(raw)


def guidelines_set(*, text: str) -> str:
    if len(text) > MAX_LENGTH:
        raise DomainError(f"the guidelines are longer than {MAX_LENGTH} characters")
    path = _path()
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".guidelines-")
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(text)
    os.replace(tmp, path)
    return text
