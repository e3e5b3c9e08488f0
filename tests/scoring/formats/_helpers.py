"""Shared checks for the format tests."""

from __future__ import annotations

from pathlib import Path

from scoring.errors import FormatError


def assert_points_at(
    error: FormatError, path: Path | None, line: int | None, field: str | None
) -> None:
    """The error names the file, the line and the field, in its attributes and its message."""
    message = str(error)
    if path is not None:
        assert error.path == str(path), message
        assert str(path) in message
    if line is not None:
        assert error.line == line, message
        assert f":{line}:" in message
    if field is not None:
        assert error.field == field, message
        assert f"field '{field}'" in message
