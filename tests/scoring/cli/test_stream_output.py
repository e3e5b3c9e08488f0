"""An ``--output`` that is a stream (``/dev/stdout``, a named pipe, a shell's ``>(gzip > f)``)
receives the output: it is written in place, never replaced by a renamed regular file."""

from __future__ import annotations

import json
import os
import stat
import threading
from pathlib import Path

import pytest

from scoring.cli import main
from scoring.files import atomic_output

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes need POSIX")


def _read_in_background(pipe: Path) -> tuple[threading.Thread, list[str]]:
    received: list[str] = []

    def read() -> None:
        with pipe.open(encoding="utf-8") as handle:
            received.append(handle.read())

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    return reader, received


def test_a_named_pipe_receives_what_is_written_and_stays_a_pipe(tmp_path: Path) -> None:
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    reader, received = _read_in_background(pipe)
    with atomic_output(pipe) as handle:
        handle.write("0-0 1?1\n")
    reader.join(timeout=10)
    assert received == ["0-0 1?1\n"]
    assert stat.S_ISFIFO(pipe.stat().st_mode)


def test_convert_writes_to_a_link_to_a_pipe_as_to_dev_stdout(tmp_path: Path) -> None:
    record = {"id": "p1", "source_tokens": ["a", "b"], "target_tokens": ["c", "d"]}
    corpus = tmp_path / "in.jsonl"
    corpus.write_text(json.dumps(record) + "\n", encoding="utf-8")
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    link = tmp_path / "stdout"  # as /dev/stdout links to /proc/self/fd/1
    link.symlink_to(pipe)
    reader, received = _read_in_background(pipe)
    convert = ["convert", "--from", "jsonl", "--to", "jsonl", "--output", str(link), str(corpus)]
    assert main(convert) == 0
    reader.join(timeout=10)
    assert [json.loads(line)["id"] for line in received[0].splitlines()] == ["p1"]
    assert link.is_symlink() and stat.S_ISFIFO(pipe.stat().st_mode)
