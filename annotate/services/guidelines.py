"""The annotation guidelines page: markdown set by an admin, kept in ``VAR_DIR/guidelines.md``,
and its HTML, rendered once when saved and kept beside it in ``VAR_DIR/guidelines.html``.

Files rather than a model field so no schema change is needed; the shipped default lives in
``frontend/guidelines_default.md``. Both files are replaced atomically on save. The HTML file
starts with a comment holding the hash of the markdown it was made from, so a page view only
reads the two files; when they do not match (a markdown file written by an older version or by
hand) the HTML is rendered again once and stored.

Rendering is CommonMark with tables and strikethrough (markdown-it-py: time linear in the
text, markdown nesting capped), then sanitised by nh3 (raw HTML such as ``<kbd>`` is kept when
safe; an admin's typo must not run script). Linear is not free: markdown-it-py is pure Python
(``"![" * 7500`` takes about a third of a second, up to twice that on a loaded machine), and
nh3 slows down quadratically on raw HTML nested thousands deep, so :data:`MAX_LENGTH` keeps
the slowest save well within a second.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from functools import lru_cache
from pathlib import Path

import nh3
from django.conf import settings
from markdown_it import MarkdownIt

from annotate.exceptions import DomainError

DEFAULT = Path(__file__).resolve().parent.parent.parent / "frontend" / "guidelines_default.md"
MAX_LENGTH = 15_000
_STAMP = "<!-- guidelines sha256:{} -->\n"


_MARKDOWN = MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])


def guidelines_render(text: str) -> str:
    """Markdown → sanitised HTML."""
    return nh3.clean(_MARKDOWN.render(text))


def _path() -> Path:
    return Path(settings.VAR_DIR) / "guidelines.md"


def _html_path() -> Path:
    return Path(settings.VAR_DIR) / "guidelines.html"


def _stamp(text: str) -> str:
    return _STAMP.format(hashlib.sha256(text.encode("utf-8")).hexdigest())


def guidelines_get() -> str:
    path = _path()
    if path.exists():
        return path.read_text(encoding="utf-8")
    return DEFAULT.read_text(encoding="utf-8") if DEFAULT.exists() else ""


@lru_cache(maxsize=1)
def _default_html(text: str) -> str:
    return guidelines_render(text)


def guidelines_html(text: str | None = None) -> str:
    """The HTML of the guidelines (``text``: the markdown, when the caller has read it): the
    stored rendering, or the default's, rendered once per process."""
    text = guidelines_get() if text is None else text
    if not _path().exists():
        return _default_html(text)
    stamp = _stamp(text)
    try:
        stored = _html_path().read_text(encoding="utf-8")
    except FileNotFoundError:
        stored = ""
    if stored.startswith(stamp):
        return stored[len(stamp) :]
    html = guidelines_render(text)
    _write(_html_path(), stamp + html)
    return html


def guidelines_set(*, text: str) -> str:
    """Store the markdown and its HTML; returns the HTML. A blank text goes back to the
    defaults: annotators are never left with empty guidelines."""
    if not text.strip():
        _path().unlink(missing_ok=True)
        _html_path().unlink(missing_ok=True)
        return guidelines_html()
    if len(text) > MAX_LENGTH:
        raise DomainError(
            f"the guidelines are {len(text):,} characters long; at most {MAX_LENGTH:,} are "
            "accepted",
            field="markdown",
        )
    html = guidelines_render(text)
    _write(_path(), text)
    _write(_html_path(), _stamp(text) + html)
    return html


def _write(path: Path, content: str) -> None:
    """Replace ``path`` atomically (a reader sees the old file or the new one, never half)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}-")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(content)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
