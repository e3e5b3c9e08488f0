"""A file read as the wrong format: the error says which format the file looks like."""

from __future__ import annotations

from pathlib import Path

import pytest

from scoring.errors import FormatError
from scoring.formats import read_corpus
from scoring.formats.guess import guess_format

MSRP = "\ufeffQuality\t#1 ID\t#2 ID\t#1 String\t#2 String\n1\t1\t2\ta b\ta c\n"
MULTIMWA = "p1\ta b\tN/A\ta c\tN/A\t1\t1\t0-0\t\n"
FIRST_LINES = {
    "jacana": '[{"id": "p1"}]',
    "jsonl": '{"id": "p1"}\n',
    "rte2": "\ufeff\ufeff# sentence pair 1\na b\n",
    "msrp": MSRP,
    "multimwa": MULTIMWA,
    "sts": "a b .\ta c .\n",
}


@pytest.mark.parametrize("name", sorted(FIRST_LINES))
def test_each_format_is_known_by_its_first_line(tmp_path: Path, name: str) -> None:
    path = tmp_path / "file.txt"
    path.write_text(FIRST_LINES[name], encoding="utf-8")
    assert guess_format(path) == name


def test_a_file_like_no_format_or_unreadable_suggests_none(tmp_path: Path) -> None:
    (tmp_path / "prose.txt").write_text("Dear reader,\n", encoding="utf-8")
    assert guess_format(tmp_path / "prose.txt") is None
    assert guess_format(tmp_path) is None
    assert guess_format(tmp_path / "missing.txt") is None


def test_an_msrp_file_read_as_jacana_is_refused_with_the_format_to_choose(tmp_path: Path) -> None:
    path = tmp_path / "msr.txt"
    path.write_text(MSRP, encoding="utf-8")
    with pytest.raises(FormatError) as caught:
        list(read_corpus("jacana", [path]))
    error = caught.value
    assert error.message.startswith("expected a JSON array of pairs")
    assert error.message.endswith("(the file looks like the msrp format: read it as msrp)")
    assert (error.path, error.line) == (str(path), 1)


def test_a_broken_file_of_the_chosen_format_gets_no_hint(tmp_path: Path) -> None:
    path = tmp_path / "broken.tsv"
    path.write_text(MULTIMWA + "p2\ta b\tN/A\n", encoding="utf-8")
    with pytest.raises(FormatError) as caught:
        list(read_corpus("multimwa", [path]))
    assert caught.value.line == 2 and "looks like" not in caught.value.message


def test_a_zip_or_binary_file_suggests_no_format(tmp_path: Path) -> None:
    # compressed bytes may hold a tab before the first newline, as the web app's zipped jacana
    # export does: two tab-separated "fields" must not suggest the sts format
    archive = tmp_path / "export.zip"
    archive.write_bytes(b"PK\x03\x04\x14\x00gold.json\tx\n")
    binary = tmp_path / "tool"
    binary.write_bytes(b"\x7fELF\x02\x01\x00\x00\tx\n")
    assert guess_format(archive) is None
    assert guess_format(binary) is None


def test_a_zipped_export_read_as_jacana_names_no_other_format(tmp_path: Path) -> None:
    archive = tmp_path / "sample-jacana-all.zip"
    archive.write_bytes(b"PK\x03\x04\x14\x00gold.json\tx\n")
    with pytest.raises(FormatError) as caught:
        list(read_corpus("jacana", [archive]))
    assert "zip archive" in caught.value.message
    assert "looks like" not in caught.value.message
