"""What format a corpus file looks like, from its first line: the hint an error gives when a
file is read as another format (an MSRP file imported as jacana fails on its first byte, and
"expected a JSON array of pairs" alone does not say what to choose instead)."""

from __future__ import annotations

from pathlib import Path

#: Bytes read to find the first line (a jacana file may hold one long line).
_HEAD = 65_536
#: The first bytes of a zip archive (the web app's exports of several files).
_ZIP_MAGIC = b"PK\x03\x04"


def guess_format(path: Path) -> str | None:
    """The format name ``path``'s first non-blank line suggests, or ``None`` when it suggests
    none, is not text (a zip archive, a binary file) or cannot be read (a directory, a missing
    file: the reader says so). A pipe is not read again: its reader has taken what it held."""
    if not path.is_file():
        return None
    try:
        with path.open("rb") as handle:
            head = handle.read(_HEAD)
    except OSError:
        return None
    if head.startswith(_ZIP_MAGIC) or b"\x00" in head.split(b"\n", 1)[0]:
        return None  # a zip or a binary file: its bytes happen to hold tabs, not columns
    text = head.decode("utf-8", errors="replace").replace("\ufeff", "")
    line = next((line for line in text.splitlines() if line.strip()), "").strip("\r\n")
    start = line.lstrip()
    if start.startswith("["):
        return "jacana"
    if start.startswith("{"):
        return "jsonl"
    if start.startswith("# sentence pair"):
        return "rte2"
    fields = line.split("\t")
    if len(fields) == 9:
        return "multimwa"
    if len(fields) == 5 and (fields[0] == "Quality" or fields[0].strip() in ("0", "1")):
        return "msrp"
    if len(fields) == 2:
        return "sts"
    return None
