"""MultiMWA TSV: reading, byte-identical round trips, errors that name file, line and field."""

from __future__ import annotations

from pathlib import Path

import pytest

from scoring.alignment.links import Alignment
from scoring.errors import FormatError
from scoring.formats import get_format, select_gold
from tests.scoring.formats._helpers import assert_points_at

SPEC = get_format("multimwa")
# Unsorted links, a sure link repeated in the possible column, double spaces, an empty tenth
# column on the first line only, odd values in the unused columns: all kept on a round trip.
ORIGINAL = (
    "wiki-1\tThe  cat sat .\tN/A\tA cat was sitting .\tN/A\t1\t1\t3-4 1-1 0-0\t2-3 2-2 0-0\t\n"
    "wiki-2\tHe left\tx\the went away\tN/A\t0\t1\t0-0\t1-1 1-2\n"
    "wiki-3\tNothing here\tN/A\tat all\tN/A\t1\t1\t\t\n"
)


def _write(tmp_path: Path, text: str, name: str = "test.tsv") -> Path:
    path = tmp_path / name
    path.write_bytes(text.encode("utf-8"))
    return path


def test_it_reads_tokens_and_sure_and_possible_links(tmp_path: Path) -> None:
    first, second, third = SPEC.read([_write(tmp_path, ORIGINAL)])
    assert first.id == "wiki-1"
    assert first.source_tokens == ["The", "cat", "sat", "."]
    assert first.target_tokens == ["A", "cat", "was", "sitting", "."]
    assert first.gold_alignment == Alignment.from_links(
        4, 5, sure=[(0, 0), (1, 1), (3, 4)], possible=[(2, 2), (2, 3)]
    )
    assert second.gold_alignment is not None and second.gold_alignment.possible_only == {
        (1, 1),
        (1, 2),
    }
    assert third.gold_alignment == Alignment.empty(2, 2)
    assert first.split == "test"


def test_it_reads_the_alignment_as_an_annotators_work_when_asked(tmp_path: Path) -> None:
    (record, *_) = SPEC.read([_write(tmp_path, ORIGINAL)], annotator="alice")
    assert record.gold_alignment is None
    assert record.annotations["alice"].alignment.sure == {(0, 0), (1, 1), (3, 4)}


def test_a_file_read_and_written_again_is_byte_identical(tmp_path: Path) -> None:
    records = list(SPEC.read([_write(tmp_path, ORIGINAL)]))
    SPEC.write(records, tmp_path / "again.tsv", alignment=select_gold)
    assert (tmp_path / "again.tsv").read_bytes() == ORIGINAL.encode("utf-8")


def test_a_changed_alignment_is_written_canonically(tmp_path: Path) -> None:
    (record, *_) = SPEC.read([_write(tmp_path, ORIGINAL)])
    record.gold_alignment = Alignment.from_links(4, 5, sure=[(3, 4), (0, 0)], possible=[(1, 2)])
    SPEC.write([record], tmp_path / "out.tsv", alignment=select_gold)
    line = (tmp_path / "out.tsv").read_text(encoding="utf-8")
    assert line == "wiki-1\tThe  cat sat .\tN/A\tA cat was sitting .\tN/A\t1\t1\t0-0 3-4\t1-2\t\n"


def test_edinburgh_through_multimwa_keeps_every_link_and_round_trips(
    shared_data: Path, tmp_path: Path
) -> None:
    folder = shared_data / "edinburgh"
    jacana = list(
        get_format("jacana").read(
            [folder / "gold.train.sure.json", folder / "gold.train.sure+poss.json"]
        )
    )
    SPEC.write(jacana, tmp_path / "edinburgh.tsv", alignment=select_gold)
    again = list(SPEC.read([tmp_path / "edinburgh.tsv"]))
    assert [(r.id, r.source_tokens, r.target_tokens, r.gold_alignment) for r in again] == [
        (r.id, r.source_tokens, r.target_tokens, r.gold_alignment) for r in jacana
    ]
    SPEC.write(again, tmp_path / "twice.tsv", alignment=select_gold)
    assert (tmp_path / "twice.tsv").read_bytes() == (tmp_path / "edinburgh.tsv").read_bytes()


@pytest.mark.parametrize(
    ("line", "field", "message"),
    [
        ("p1\ta b\tN/A\ta b\tN/A\t1\t1\t0-0", "possible links", "expected 9"),
        ("p1\ta b", "column 3", "found 2: the line ends before column 3"),
        ("p1\ta b\tN/A\ta b\tN/A\t1\t1\t0-0\t\tx", "column 10", "expected 9"),
        ("p1\ta b\tN/A\ta b\tN/A\t1\t1\t0-0 1?1\t", "sure links", r"'1\?1'"),
        ("p1\ta b\tN/A\ta b\tN/A\t1\t1\t0-0\t5-1", "possible links", "outside"),
        ("p1\ta b\tN/A\ta b\tN/A\t1\t1\t0-0 0-0\t", "sure links", "twice"),
        (" p1\ta b\tN/A\ta b\tN/A\t1\t1\t0-0\t", "id", "surrounding spaces"),
        ("p1\t \tN/A\ta b\tN/A\t1\t1\t\t", "sentence 1", "no tokens"),
    ],
)
def test_bad_lines_are_refused_naming_file_line_and_field(
    tmp_path: Path, line: str, field: str, message: str
) -> None:
    good = "p0\ta b\tN/A\ta b\tN/A\t1\t1\t0-0\t\n"
    path = _write(tmp_path, good + line + "\n")
    with pytest.raises(FormatError, match=message) as caught:
        list(SPEC.read([path]))
    assert_points_at(caught.value, path, 2, field)


def test_a_duplicate_id_and_an_empty_file_are_refused(tmp_path: Path) -> None:
    line = "p0\ta b\tN/A\ta b\tN/A\t1\t1\t0-0\t\n"
    path = _write(tmp_path, line + line)
    with pytest.raises(FormatError, match="p0") as caught:
        list(SPEC.read([path]))
    assert_points_at(caught.value, path, 2, "id")
    with pytest.raises(FormatError, match="empty"):
        list(SPEC.read([_write(tmp_path, "", "empty.tsv")]))
