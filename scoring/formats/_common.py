"""Helpers shared by the format readers and writers: strict line decoding, id bookkeeping,
all-or-nothing output files."""

from __future__ import annotations

import re
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path

from scoring.alignment.links import Alignment
from scoring.corpus import PairRecord
from scoring.errors import FormatError

BOM = "\ufeff"
_BOM_BYTES = BOM.encode("utf-8")

AlignmentSelector = Callable[[PairRecord], Alignment | None]


#: The first bytes of a zip archive: the web app's exports of several files are zips.
_ZIP_MAGIC = b"PK\x03\x04"
#: The byte order marks UTF-16 text begins with (little- and big-endian).
_UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")


def require_file(path: Path) -> None:
    """``path`` can be read as a file: it exists and is not a folder. A pipe (``<(…)``,
    ``/dev/stdin``) is accepted but not peeked at, since what is read from it is gone: its
    reader reads it once and checks its first bytes with :func:`refuse_unreadable_head`."""
    if not path.exists():
        raise FormatError("no such file", path=path)
    if path.is_dir():
        raise FormatError("expected a file, found a directory", path=path)
    if path.is_file():
        with path.open("rb") as handle:
            refuse_unreadable_head(handle.read(len(_ZIP_MAGIC)), path=path)


def unnamed(path: Path) -> bool:
    """Whether ``path`` is a stream rather than a file of its own: a pipe (``<(…)``), or
    ``/dev/stdin`` or ``/dev/fd/N`` whatever they are connected to. Its name says nothing of
    what it holds, so a reader that takes something from file names (rte2's annotator letter,
    sts's sub-corpus and gold file) takes it from the order of its paths instead."""
    if path.parts[:2] in (("/", "dev"), ("/", "proc")):
        return True
    return path.exists() and not path.is_file() and not path.is_dir()


def refuse_unreadable_head(head: bytes, *, path: Path) -> None:
    """A :class:`FormatError` if ``head``, the first bytes of ``path``, start a zip archive or
    UTF-16 text (a spreadsheet's "Unicode text"), which no reader reads, saying what to do."""
    if head.startswith(_UTF16_BOMS):
        raise FormatError(
            'the file is saved as UTF-16 (a spreadsheet\'s "Unicode text"); save it as UTF-8',
            path=path,
            line=1,
            field="(file)",
        )
    if not head.startswith(_ZIP_MAGIC):
        return
    if damaged_zip(path):
        # unzip would fail on it too: a download or copy cut short, most likely
        raise FormatError(
            "this file starts as a zip archive does but cannot be opened as one: it is cut "
            "short or damaged; download or copy it again",
            path=path,
        )
    raise FormatError(
        "this is a zip archive (an export of the web app?); unzip it and give the "
        "file or folder inside",
        path=path,
    )


def damaged_zip(path: Path) -> bool:
    """Whether the file ``path`` begins as a zip archive (an export's download) yet cannot be
    opened as one: a download or copy cut short."""
    if not path.is_file():
        return False
    with path.open("rb") as handle:
        head = handle.read(len(_ZIP_MAGIC))
    return head == _ZIP_MAGIC and not zipfile.is_zipfile(path)


#: The longest line a reader accepts (one pair of a JSONL file is a few kilobytes): a longer line
#: is refused before it is held in memory whole.
MAX_LINE_BYTES = 1 << 20
#: The most tokens a sentence may have; longer ones are refused at import (a grid of 250 × 250
#: cells is already more than an annotator can correct).
MAX_TOKENS = 250


def raw_lines(path: Path) -> Iterator[tuple[int, bytes]]:
    """``(1-based line number, line bytes without CR/LF)``; leading BOMs of the file removed.

    Raises :class:`FormatError` (line 1) on an empty file, and on a line longer than
    :data:`MAX_LINE_BYTES`. Reads the file lazily, a bounded amount at a time.
    """
    require_file(path)
    with path.open("rb") as handle:
        number = 0
        while True:
            line = handle.readline(MAX_LINE_BYTES + 2)
            if not line:
                break
            number += 1
            if len(line) > MAX_LINE_BYTES + 1 or (
                len(line) == MAX_LINE_BYTES + 2 and not line.endswith(b"\n")
            ):
                raise FormatError(
                    f"the line is longer than {MAX_LINE_BYTES:,} bytes",
                    path=path,
                    line=number,
                    field="(line)",
                )
            if line.endswith(b"\n"):
                line = line[:-1]
            if line.endswith(b"\r"):
                line = line[:-1]
            if number == 1:
                refuse_unreadable_head(line, path=path)
                while line.startswith(_BOM_BYTES):
                    line = line[len(_BOM_BYTES) :]
            yield number, line
        if number == 0:
            raise FormatError("the file is empty", path=path, line=1, field="(file)")


def not_utf8(raw: bytes, start: int) -> str:
    """What to tell whoever saved ``raw``, whose byte ``start`` is the first that is not UTF-8:
    the byte, the words before it (to find it in an editor) and, when the text reads as the
    usual other encoding (a spreadsheet's or an old editor's Windows-1252), that it seems to be
    that, then to save it as UTF-8."""
    line_start = raw.rfind(b"\n", 0, start) + 1
    before = raw[max(line_start, start - 24) : start].decode("utf-8", errors="replace")
    before = before.rsplit('"', 1)[-1].strip()  # in JSON: the string's own words
    where = f" after {before!r}" if before else " at the start"
    try:
        raw[line_start : start + 16].decode("cp1252")
        seems = " (the text seems to be saved as Windows-1252 or Latin-1)"
    except UnicodeDecodeError:
        seems = ""
    return f"the byte 0x{raw[start]:02X}{where} is not UTF-8 text{seems}; save the file as UTF-8"


def decode(raw: bytes, *, path: Path, line: int, field: str) -> str:
    """Strict UTF-8 decoding of one field; the error names the bad byte and what precedes it."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise FormatError(not_utf8(raw, error.start), path=path, line=line, field=field) from None


def decode_line(raw: bytes, *, path: Path, line: int, field: str) -> str:
    """Line ``line`` of a plain text file (the command line's sentences, links and pairs) as
    text, without its line end: on the first line a UTF-8 byte order mark is dropped and UTF-16
    (a spreadsheet's "Unicode text") is refused as such; other bytes that are not UTF-8 are
    refused as the corpus readers refuse them (the byte, the words before it, whether the text
    seems to be Windows-1252)."""
    raw = raw.rstrip(b"\r\n")
    if line == 1:
        if raw.startswith(_UTF16_BOMS):
            raise FormatError(
                'the file is saved as UTF-16 (a spreadsheet\'s "Unicode text"); save it as UTF-8',
                path=path,
                line=1,
                field=field,
            )
        while raw.startswith(_BOM_BYTES):
            raw = raw[len(_BOM_BYTES) :]
    return decode(raw, path=path, line=line, field=field)


def json_message(message: str) -> str:
    """A :class:`json.JSONDecodeError`'s ``msg`` without its trailing ``at`` (``Unterminated
    string starting at``), whose position the caller names as a line and column."""
    return re.sub(r"(?: starting)? at$", "", message)


class IdRegistry:
    """Remembers every id read so far and rejects a second occurrence."""

    def __init__(self) -> None:
        self._seen: dict[str, tuple[str, int, str]] = {}

    def add(
        self, pair_id: str, *, path: Path, line: int, field: str = "id", record: str = ""
    ) -> None:
        """``record`` names the pair beyond its line (``pair #3`` of a JSON array, whose pairs
        may share a line); errors start with it."""
        prefix = f"{record}: " if record else ""
        if not pair_id:
            raise FormatError(f"{prefix}the id is empty", path=path, line=line, field=field)
        first = self._seen.get(pair_id)
        if first is not None:
            where = f"line {first[1]}" if first[0] == str(path) else f"{first[0]}:{first[1]}"
            if first[2]:
                where += f", {first[2]}"
            raise FormatError(
                f"{prefix}duplicate id {pair_id!r} (first used on {where})",
                path=path,
                line=line,
                field=field,
            )
        self._seen[pair_id] = (str(path), line, record)


def split_from_name(name: str) -> str:
    """``train``/``test``/``dev``/``trial`` when the file or folder name says so, else ``""``."""
    match = re.search(r"(?:^|[^a-z])(train|test|dev|trial)(?:[^a-z]|$)", name.lower())
    return match.group(1) if match else ""


def check_tokens(tokens: list[str], *, path: Path, line: int, field: str) -> list[str]:
    if not tokens:
        raise FormatError("the sentence has no tokens", path=path, line=line, field=field)
    if len(tokens) > MAX_TOKENS:
        raise FormatError(
            f"the sentence has {len(tokens):,} tokens; at most {MAX_TOKENS} are accepted",
            path=path,
            line=line,
            field=field,
        )
    return tokens


def default_alignment(record: PairRecord) -> Alignment | None:
    """The alignment a single-alignment format writes when the caller does not choose one.

    The gold alignment if there is one, else the only annotation, else the prefill, else none.
    """
    if record.gold_alignment is not None:
        return record.gold_alignment
    if len(record.annotations) == 1:
        return next(iter(record.annotations.values())).alignment
    return record.prefill


def checked_alignment(
    record: PairRecord, selector: AlignmentSelector | None, *, output: Path
) -> Alignment | None:
    alignment = (selector or default_alignment)(record)
    if alignment is not None and alignment.shape != record.shape:
        raise FormatError(
            f"pair {record.id!r}: the alignment is for a {alignment.n_source}×"
            f"{alignment.n_target} pair but the tokens are {record.shape[0]}×{record.shape[1]}",
            path=output,
            field="alignment",
        )
    return alignment


def check_writable_tokens(record: PairRecord, *, output: Path) -> None:
    """Tokens written space-separated must be non-empty and free of whitespace."""
    for side, tokens in (
        ("source_tokens", record.source_tokens),
        ("target_tokens", record.target_tokens),
    ):
        for position, token in enumerate(tokens):
            if not token or any(ch.isspace() for ch in token):
                raise FormatError(
                    f"pair {record.id!r}: token #{position} {token!r} is empty or contains "
                    "whitespace and cannot be written space-separated",
                    path=output,
                    field=side,
                )
