"""Pharaoh directories: line-aligned tokens, links and ids; byte-identical round trips."""

from __future__ import annotations

from pathlib import Path

import pytest

from scoring.alignment.links import Alignment
from scoring.corpus import AnnotationRecord, PairRecord
from scoring.errors import FormatError
from scoring.formats import get_format, pharaoh, select_annotator, select_prefill
from tests.scoring.formats._helpers import assert_points_at


def make_dir(root: Path, **files: str) -> Path:
    root.mkdir()
    for name, text in files.items():
        (root / f"{name}.txt").write_text(text, encoding="utf-8")
    return root


def sample(root: Path) -> Path:
    return make_dir(
        root,
        source="the cat sat\na dog barked loudly\n",
        target="a cat was sitting\nthe dog barked\n",
        alignment="0-0 1-1 2?2 2-3\n1-1 2-2-S 0-0-P\n",
    )


def test_it_reads_tokens_and_sure_and_possible_links(tmp_path: Path) -> None:
    first, second = pharaoh.read([sample(tmp_path / "corpus")])
    assert first.id == "1" and second.id == "2"
    assert first.source_tokens == ["the", "cat", "sat"]
    assert first.target_tokens == ["a", "cat", "was", "sitting"]
    assert first.gold_alignment == Alignment.from_links(3, 4, [(0, 0), (1, 1), (2, 3)], [(2, 2)])
    assert second.gold_alignment == Alignment.from_links(4, 3, [(1, 1), (2, 2)], [(0, 0)])
    assert first.source_text == "the cat sat"


def test_ids_come_from_ids_txt_when_present(tmp_path: Path) -> None:
    root = sample(tmp_path / "corpus")
    (root / "ids.txt").write_text("mtc:7\nmtc:9\n", encoding="utf-8")
    assert [record.id for record in pharaoh.read([root])] == ["mtc:7", "mtc:9"]


def test_the_alignment_can_be_read_as_an_annotators_work(tmp_path: Path) -> None:
    (record, _) = get_format("pharaoh").read([sample(tmp_path / "c")], annotator="alice")
    assert record.gold_alignment is None
    assert record.annotations["alice"].alignment.shape == (3, 4)


def test_alignment_txt_is_optional(tmp_path: Path) -> None:
    root = make_dir(tmp_path / "c", source="a b\n", target="c\n")
    (record,) = pharaoh.read([root])
    assert record.gold_alignment is None and record.annotations == {}


def test_export_import_export_is_byte_identical(tmp_path: Path) -> None:
    records = list(pharaoh.read([sample(tmp_path / "in")]))
    pharaoh.write(records, tmp_path / "first")
    pharaoh.write(pharaoh.read([tmp_path / "first"]), tmp_path / "second")
    for name in ("source.txt", "target.txt", "alignment.txt", "ids.txt"):
        assert (tmp_path / "first" / name).read_bytes() == (tmp_path / "second" / name).read_bytes()
    assert (tmp_path / "first" / "alignment.txt").read_text() == "0-0 1-1 2?2 2-3\n0?0 1-1 2-2\n"


def test_the_writer_writes_the_chosen_alignment(tmp_path: Path) -> None:
    record = PairRecord(
        id="p1",
        source_tokens=["a", "b"],
        target_tokens=["c", "d"],
        prefill=Alignment.from_links(2, 2, [(0, 0)]),
        annotations={"bob": AnnotationRecord(alignment=Alignment.from_links(2, 2, [], [(1, 1)]))},
    )
    pharaoh.write([record], tmp_path / "bob", alignment=select_annotator("bob"))
    pharaoh.write([record], tmp_path / "prefill", alignment=select_prefill)
    pharaoh.write([record], tmp_path / "nobody", alignment=select_annotator("carol"))
    assert (tmp_path / "bob" / "alignment.txt").read_text() == "1?1\n"
    assert (tmp_path / "prefill" / "alignment.txt").read_text() == "0-0\n"
    assert (tmp_path / "nobody" / "alignment.txt").read_text() == "\n"


# --- bad input -------------------------------------------------------------------------------


def read_error(root: Path) -> FormatError:
    with pytest.raises(FormatError) as caught:
        list(pharaoh.read([root]))
    return caught.value


def test_it_rejects_links_outside_the_sentence(tmp_path: Path) -> None:
    root = make_dir(tmp_path / "c", source="a b\na b\n", target="c\nc\n", alignment="0-0\n2-0\n")
    error = read_error(root)
    assert_points_at(error, root / "alignment.txt", 2, "alignment")
    assert "outside" in str(error)


def test_it_rejects_bad_link_syntax(tmp_path: Path) -> None:
    root = make_dir(tmp_path / "c", source="a b\n", target="c\n", alignment="0-0 1:0\n")
    assert_points_at(read_error(root), root / "alignment.txt", 1, "alignment")


def test_it_rejects_files_of_different_lengths(tmp_path: Path) -> None:
    root = make_dir(tmp_path / "c", source="a\nb\nc\n", target="a\nb\n", alignment="\n\n\n")
    error = read_error(root)
    assert_points_at(error, root / "source.txt", 3, "source")
    assert "more lines than target.txt" in str(error)


def test_it_rejects_duplicate_ids(tmp_path: Path) -> None:
    root = make_dir(tmp_path / "c", source="a\nb\n", target="a\nb\n", ids="x\nx\n")
    error = read_error(root)
    assert_points_at(error, root / "ids.txt", 2, "id")
    assert "duplicate id 'x'" in str(error)


def test_it_rejects_an_empty_file(tmp_path: Path) -> None:
    root = make_dir(tmp_path / "c", source="", target="")
    assert_points_at(read_error(root), root / "source.txt", 1, "(file)")


def test_it_rejects_an_empty_sentence(tmp_path: Path) -> None:
    root = make_dir(tmp_path / "c", source="a\n\n", target="a\nb\n")
    assert_points_at(read_error(root), root / "source.txt", 2, "source")


def test_it_rejects_non_utf8_bytes(tmp_path: Path) -> None:
    root = make_dir(tmp_path / "c", source="a\n", target="b\n")
    (root / "target.txt").write_bytes(b"ok\ncaf\xe9\n")
    (root / "source.txt").write_bytes(b"a\nb\n")
    error = read_error(root)
    assert_points_at(error, root / "target.txt", 2, "target")
    assert "UTF-8" in str(error)


def test_it_rejects_a_file_where_a_directory_is_expected(tmp_path: Path) -> None:
    path = tmp_path / "alignment.txt"
    path.write_text("0-0\n")
    with pytest.raises(FormatError, match="directory"):
        list(pharaoh.read([path]))


def test_it_refuses_to_write_tokens_with_spaces(tmp_path: Path) -> None:
    record = PairRecord(id="p", source_tokens=["New York"], target_tokens=["NY"])
    with pytest.raises(FormatError) as caught:
        pharaoh.write([record], tmp_path / "out")
    assert caught.value.field == "source_tokens"
    assert not (tmp_path / "out" / "source.txt").exists()
