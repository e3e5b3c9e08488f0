"""Output files of the command line: checked before any work is done, written whole or not at
all. A command that trains for minutes should not then fail on an ``--output`` that names a
folder, and an error half-way must leave nothing behind."""

from __future__ import annotations

from pathlib import Path

from scoring.errors import FormatError
from scoring.files import atomic_output


def check_output_file(path: Path, field: str = "--output") -> None:
    """``path`` can be written as a file: it is not a folder and its folder exists."""
    if path.is_dir():
        raise FormatError(
            "the output path is a directory; give the name of a file to write",
            path=path,
            field=field,
        )
    directory = path.parent if str(path.parent) else Path(".")
    if not directory.is_dir():
        raise FormatError("the output folder does not exist", path=path, field=field)


def write_atomic(path: Path, text: str, field: str = "--output") -> None:
    """Write ``text`` to ``path`` through a temporary file renamed into place."""
    check_output_file(path, field)
    with atomic_output(path) as handle:
        handle.write(text)
