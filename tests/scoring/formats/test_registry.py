"""The format registry: names, capabilities and errors for what it does not know."""

from __future__ import annotations

from pathlib import Path

import pytest

from scoring.corpus import PairRecord
from scoring.errors import FormatError
from scoring.formats import FORMATS, format_names, get_format, read_corpus, writable_formats
from tests.scoring.formats._helpers import assert_points_at


def test_it_knows_the_seven_formats() -> None:
    assert set(format_names()) == {
        "jsonl",
        "pharaoh",
        "jacana",
        "multimwa",
        "rte2",
        "msrp",
        "sts",
    }
    assert set(FORMATS) == set(format_names())


def test_it_says_which_formats_can_be_written() -> None:
    assert set(writable_formats()) == {"jsonl", "pharaoh", "jacana", "multimwa"}
    assert not get_format("msrp").writable


def test_it_says_whether_a_format_takes_a_file_or_a_directory() -> None:
    assert get_format("pharaoh").input_kind == "directory"
    assert get_format("pharaoh").output_kind == "directory"
    assert get_format("jsonl").input_kind == "file"
    assert get_format("jacana").output_kind == "file"
    assert get_format("sts").input_kind == "file or directory"
    assert get_format("jsonl").selects_alignment is False
    assert get_format("pharaoh").selects_alignment is True


def test_it_rejects_an_unknown_format_listing_the_known_ones(tmp_path: Path) -> None:
    """No line applies to a format name: the error names the file and the option instead."""
    path = tmp_path / "corpus.csv"
    with pytest.raises(FormatError) as caught:
        get_format("csv", path=path)
    assert_points_at(caught.value, path, None, "format")
    assert (
        "unknown format 'csv'; known formats: jsonl, pharaoh, jacana, multimwa, rte2, msrp, sts"
        in str(caught.value)
    )
    with pytest.raises(FormatError, match="known formats"):
        read_corpus("csv", [path])


def test_it_rejects_an_option_the_format_does_not_take(tmp_path: Path) -> None:
    with pytest.raises(FormatError) as caught:
        get_format("msrp").read([tmp_path / "x.txt"], annotator="alice")
    assert caught.value.field == "annotator"
    assert "its options: none" in str(caught.value)


def test_it_rejects_writing_a_read_only_format(tmp_path: Path) -> None:
    record = PairRecord(id="p", source_tokens=["a"], target_tokens=["b"])
    with pytest.raises(FormatError, match="writable formats: jsonl, pharaoh, jacana, multimwa"):
        get_format("sts").write([record], tmp_path / "out.txt")


def test_it_rejects_a_missing_input_file(tmp_path: Path) -> None:
    path = tmp_path / "missing.jsonl"
    with pytest.raises(FormatError) as caught:
        list(read_corpus("jsonl", [path]))
    assert caught.value.path == str(path)
    assert "no such file" in str(caught.value)
