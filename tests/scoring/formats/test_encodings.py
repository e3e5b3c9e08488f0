"""Text that is not UTF-8 is refused with what to do about it, in words a person who saved the
file from a spreadsheet or an old editor can act on: which byte, after which words, and what
the file seems to be saved as."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scoring.errors import FormatError
from scoring.formats import get_format
from tests.scoring.formats._helpers import assert_points_at

MULTIMWA = "p1\tcafé au lait\tN/A\tc d\tN/A\t1\t1\t0-0\t\n"
JSONL = json.dumps({"id": "p1", "source_tokens": ["café", "b"], "target_tokens": ["c"]}) + "\n"
JACANA = json.dumps(
    [{"id": "p1", "source": "café b", "target": "c", "sureAlign": "0-0", "possibleAlign": ""}],
    ensure_ascii=False,
)
MSRP = "Quality\t#1 ID\t#2 ID\t#1 String\t#2 String\n1\t1\t2\tcafé b\tc d\n"


def _files(tmp_path: Path, name: str, text: str, encoding: str) -> list[Path]:
    if name == "pharaoh":
        folder = tmp_path / "pharaoh"
        folder.mkdir()
        for member, content in (("source.txt", "café b\n"), ("target.txt", "c d\n")):
            (folder / member).write_text(content, encoding=encoding)
        (folder / "alignment.txt").write_text("0-0\n", encoding="utf-8")
        return [folder]
    path = tmp_path / {"multimwa": "a.tsv", "jsonl": "a.jsonl", "jacana": "a.json"}.get(
        name, "msr.txt"
    )
    path.write_text(text, encoding=encoding)
    return [path]


CASES = [
    ("multimwa", MULTIMWA),
    ("jsonl", JSONL),
    ("jacana", JACANA),
    ("msrp", MSRP),
    ("pharaoh", ""),
]


@pytest.mark.parametrize(("name", "text"), CASES)
def test_a_file_saved_as_utf16_is_refused_as_utf16_at_its_first_line(
    tmp_path: Path, name: str, text: str
) -> None:
    # a spreadsheet's "Unicode text": the readers saw a stray 0xFF, or no JSON array at all
    paths = _files(tmp_path, name, text, "utf-16")
    with pytest.raises(FormatError) as caught:
        list(get_format(name).read(paths))
    assert "the file is saved as UTF-16" in caught.value.message, caught.value
    assert "save it as UTF-8" in caught.value.message
    assert caught.value.line == 1 and caught.value.field == "(file)"


@pytest.mark.parametrize(("name", "text"), [c for c in CASES if c[0] != "jsonl"])
def test_a_latin1_file_names_the_byte_the_words_before_it_and_the_encoding(
    tmp_path: Path, name: str, text: str
) -> None:
    # not b'\xe9 b ' at offset 3: the byte in hex, after 'caf', as a person finds it
    paths = _files(tmp_path, name, text, "latin-1")
    with pytest.raises(FormatError) as caught:
        list(get_format(name).read(paths))
    message = caught.value.message
    assert "the byte 0xE9 after 'caf' is not UTF-8 text" in message, message
    assert "seems to be saved as Windows-1252 or Latin-1" in message
    assert "b'" not in message and "offset" not in message


def test_a_bad_byte_at_a_fields_start_says_so(tmp_path: Path) -> None:
    path = tmp_path / "a.tsv"
    path.write_bytes(b"p1\t\x81ab\tN/A\tc\tN/A\t1\t1\t\t\n")  # 0x81: not Windows-1252 either
    with pytest.raises(FormatError) as caught:
        list(get_format("multimwa").read([path]))
    assert_points_at(caught.value, path, 1, "sentence 1")
    assert caught.value.message == (
        "the byte 0x81 at the start is not UTF-8 text; save the file as UTF-8"
    )
