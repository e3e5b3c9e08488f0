"""Files the package writes: whole or not at all."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from scoring.errors import FormatError

#: What ``-`` stands for on the command line: standard input as an input file, standard output
#: as an output file. Readers open ``STDIN`` as any other path (a redirected file or a pipe
#: alike); :func:`atomic_output` writes ``STDOUT`` through ``sys.stdout``.
STDIN = Path("/dev/stdin")
STDOUT = Path("/dev/stdout")


def is_stream(path: Path) -> bool:
    """Whether ``path`` is a stream to write in place rather than a file to replace: a pipe
    (``>(…)``), a device, or a link of ``/dev`` or ``/proc`` (``/dev/stdout``, ``/dev/fd/N``)
    whatever it is connected to: when the shell redirected it to a file, renaming a file over
    it would replace the link, not write the file."""
    if path.parts[:2] in (("/", "dev"), ("/", "proc")) and path.is_symlink():
        return True
    return path.exists() and not path.is_file() and not path.is_dir()


@contextlib.contextmanager
def atomic_output(path: Path) -> Iterator[IO[str]]:
    """Write ``path`` through a temporary file renamed into place only on success.

    A reader error half-way through a conversion therefore leaves no partial output, nor the
    folders made for it (``--output new/run1/out.jsonl``, or a Pharaoh output folder). A stream
    (``/dev/stdout``, a named pipe, a shell's ``>(gzip > f)``) is written in place as the output
    comes: a file renamed over it would replace the device or pipe and its reader would get
    nothing.
    """
    if path.is_dir():
        raise FormatError(
            "the output path is a directory; give the name of a file to write",
            path=path,
            field="output",
        )
    if path == STDOUT:
        # sys.stdout, not the device: what the command already printed stays before it, and
        # a stdout the shell appends to (``>>``) is not truncated by opening it again
        yield sys.stdout
        sys.stdout.flush()
        return
    if is_stream(path):
        with path.open("w", encoding="utf-8", newline="\n") as stream:
            yield stream
        return
    made = [folder for folder in (path.parent, *path.parent.parents) if not folder.exists()]
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.partial")
    written = False
    try:
        with temporary.open("w", encoding="utf-8", newline="\n") as handle:
            yield handle
        os.replace(temporary, path)
        written = True
    finally:
        with contextlib.suppress(FileNotFoundError):
            temporary.unlink()
        if not written:
            for folder in made:  # innermost first; one still holding a file stays
                with contextlib.suppress(OSError):
                    folder.rmdir()
