"""Input that would exhaust the server is refused with file, line and field, before it is held."""

from __future__ import annotations

import json
import tracemalloc
from pathlib import Path

import pytest

from scoring.errors import FormatError
from scoring.formats import get_format
from scoring.formats._common import MAX_LINE_BYTES, MAX_TOKENS
from tests.scoring.formats._helpers import assert_points_at

GOOD = {"id": "p1", "source_tokens": ["a", "b"], "target_tokens": ["a", "c"]}


def _read_all(name: str, paths: list[Path]) -> list[object]:
    return list(get_format(name).read(paths))


def test_a_jsonl_line_nested_100000_deep_is_refused_naming_the_line(tmp_path: Path) -> None:
    path = tmp_path / "deep.jsonl"
    path.write_text(json.dumps(GOOD) + "\n" + "[" * 100_000 + "]" * 100_000 + "\n")
    with pytest.raises(FormatError, match="nested too deeply") as caught:
        _read_all("jsonl", [path])
    assert_points_at(caught.value, path, 2, "(json)")


def test_a_jacana_file_nested_100000_deep_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "deep.json"
    path.write_text("[\n" + "{" + '"a":' * 1 + "[" * 100_000 + "]" * 100_000 + "}\n]")
    with pytest.raises(FormatError, match="nested too deeply") as caught:
        _read_all("jacana", [path])
    assert_points_at(caught.value, path, 2, "(json)")


def test_a_sentence_of_10000_tokens_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "long.jsonl"
    long = {**GOOD, "source_tokens": ["w"] * 10_000, "target_tokens": ["w"] * 10_000}
    path.write_text(json.dumps(GOOD) + "\n" + json.dumps({**long, "id": "p2"}) + "\n")
    with pytest.raises(FormatError, match=f"10,000 tokens; at most {MAX_TOKENS}") as caught:
        _read_all("jsonl", [path])
    assert_points_at(caught.value, path, 2, "source_tokens")


def test_pharaoh_and_msrp_sentences_have_the_same_limit(tmp_path: Path) -> None:
    folder = tmp_path / "ph"
    folder.mkdir()
    (folder / "source.txt").write_text(" ".join(["w"] * (MAX_TOKENS + 1)) + "\n")
    (folder / "target.txt").write_text("a b\n")
    (folder / "alignment.txt").write_text("0-0\n")
    with pytest.raises(FormatError, match="tokens; at most") as caught:
        _read_all("pharaoh", [folder])
    assert caught.value.line == 1


def test_a_200_megabyte_line_is_refused_without_reading_it_whole(tmp_path: Path) -> None:
    path = tmp_path / "huge.jsonl"
    with path.open("wb") as handle:
        handle.write(json.dumps(GOOD).encode() + b"\n")
        handle.write(b'{"id": "' + b"x" * (200 << 20) + b'"}\n')
    tracemalloc.start()
    with pytest.raises(FormatError, match="longer than") as caught:
        _read_all("jsonl", [path])
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert_points_at(caught.value, path, 2, "(line)")
    assert peak < 8 * MAX_LINE_BYTES  # a few line buffers, not 200 MB


def test_a_line_just_under_the_limit_is_read(tmp_path: Path) -> None:
    path = tmp_path / "ok.jsonl"
    record = {**GOOD, "metadata": {"note": "x" * (MAX_LINE_BYTES - 200)}}
    path.write_text(json.dumps(record) + "\n")
    assert len(_read_all("jsonl", [path])) == 1
