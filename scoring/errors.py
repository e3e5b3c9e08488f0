"""Exceptions raised by :mod:`scoring`.

Every error a user can cause carries enough context to fix the input: the file, the line and the
field at fault. The CLI and the web app print ``str(error)`` as is.
"""

from __future__ import annotations

from pathlib import Path


class ScoringError(Exception):
    """Base class of every error :mod:`scoring` raises on bad input or a missing resource."""


class AlignmentError(ScoringError, ValueError):
    """An alignment is malformed: a link outside the sentence, S not within P, bad syntax."""


class FormatError(ScoringError, ValueError):
    """A corpus file cannot be read. Names the file, the 1-based line and the field."""

    def __init__(
        self,
        message: str,
        *,
        path: str | Path | None = None,
        line: int | None = None,
        field: str | None = None,
    ) -> None:
        self.message = message
        self.path = str(path) if path is not None else None
        self.line = line
        self.field = field
        super().__init__(str(self))

    def __str__(self) -> str:
        where = self.path or "<input>"
        if self.line is not None:
            where += f":{self.line}"
        if self.field:
            where += f": field '{self.field}'"
        return f"{where}: {self.message}"


class ResourceMissingError(ScoringError):
    """A linguistic resource (WordNet, a tagger, PPDB) is not installed.

    The message includes the exact command that installs it.
    """
