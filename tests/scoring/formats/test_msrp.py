"""MSRP TSV: 4,076 train and 1,725 test pairs, binary label as gold label, Treebank tokens."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from scoring.errors import FormatError
from scoring.formats import get_format, msrp
from scoring.text import tokenize
from tests.scoring.formats._helpers import assert_points_at

HEADER = "\ufeffQuality\t#1 ID\t#2 ID\t#1 String\t#2 String\n"


def write(path: Path, *rows: str, header: str = HEADER) -> Path:
    path.write_text(header + "".join(row + "\n" for row in rows), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("name", "pairs", "positives"),
    [("msr_paraphrase_train.txt", 4076, 2753), ("msr_paraphrase_test.txt", 1725, 1147)],
)
def test_the_shared_files_give_the_published_counts(
    shared_data: Path, name: str, pairs: int, positives: int
) -> None:
    """Dolan & Brockett (2005): 4,076 training and 1,725 test pairs, about 67% paraphrases."""
    path = shared_data / "msrp" / name
    records = list(get_format("msrp").read([path]))
    assert len(records) == pairs
    assert Counter(record.gold_label for record in records) == {1: positives, 0: pairs - positives}
    # Independent count of the data lines: every line but the header.
    assert len(path.read_bytes().splitlines()) - 1 == pairs


def test_a_pair_keeps_its_text_and_gets_treebank_tokens(shared_data: Path) -> None:
    first = next(msrp.read([shared_data / "msrp" / "msr_paraphrase_train.txt"]))
    assert first.id == "702876_702977"
    assert first.split == "train"
    assert first.gold_label == 1
    assert first.source_text.startswith('Amrozi accused his brother, whom he called "the witness"')
    assert first.source_tokens == tokenize(first.source_text)
    assert first.source_tokens[7:12] == ["called", "``", "the", "witness", "''"]
    assert first.metadata == {"msrp": {"id1": "702876", "id2": "702977"}}


def test_quotes_do_not_merge_lines(tmp_path: Path) -> None:
    path = write(
        tmp_path / "m.txt",
        '1\t1\t2\tHe said "stop.\tShe said "go."',
        "0\t3\t4\tA\tB",
    )
    first, second = msrp.read([path])
    assert first.source_text == 'He said "stop.'
    assert second.id == "3_4"


# --- bad input -------------------------------------------------------------------------------


def read_error(path: Path) -> FormatError:
    with pytest.raises(FormatError) as caught:
        list(msrp.read([path]))
    return caught.value


def test_it_rejects_a_wrong_column_count(tmp_path: Path) -> None:
    path = write(tmp_path / "m.txt", "1\t1\t2\tA\tB", "1\t3\t4\tonly one sentence")
    error = read_error(path)
    assert_points_at(error, path, 3, "#2 String")
    assert "expected 5 tab-separated columns" in str(error)


def test_it_rejects_an_extra_column(tmp_path: Path) -> None:
    path = write(tmp_path / "m.txt", "1\t1\t2\tA\tB\textra")
    assert_points_at(read_error(path), path, 2, "column 6")


def test_it_rejects_a_label_other_than_0_or_1(tmp_path: Path) -> None:
    path = write(tmp_path / "m.txt", "yes\t1\t2\tA\tB")
    assert_points_at(read_error(path), path, 2, "Quality")


def test_it_rejects_duplicate_ids(tmp_path: Path) -> None:
    path = write(tmp_path / "m.txt", "1\t1\t2\tA\tB", "0\t1\t2\tC\tD")
    error = read_error(path)
    assert_points_at(error, path, 3, "#1 ID")
    assert "duplicate id '1_2'" in str(error)


def test_it_rejects_non_utf8_bytes_naming_the_column(tmp_path: Path) -> None:
    path = write(tmp_path / "m.txt", "1\t1\t2\tA\tB")
    path.write_bytes(path.read_bytes() + b"1\t3\t4\tcaf\xe9\tB\n")
    error = read_error(path)
    assert_points_at(error, path, 3, "#1 String")
    assert "not UTF-8" in str(error)


def test_it_rejects_an_empty_file(tmp_path: Path) -> None:
    path = tmp_path / "m.txt"
    path.write_bytes(b"")
    assert_points_at(read_error(path), path, 1, "(file)")


def test_it_rejects_a_header_without_pairs(tmp_path: Path) -> None:
    path = write(tmp_path / "m.txt")
    assert_points_at(read_error(path), path, 2, "Quality")


def test_it_rejects_a_missing_header(tmp_path: Path) -> None:
    path = write(tmp_path / "m.txt", "1\t1\t2\tA\tB", header="")
    assert_points_at(read_error(path), path, 1, "header")


def test_it_rejects_a_sentence_without_tokens(tmp_path: Path) -> None:
    path = write(tmp_path / "m.txt", "1\t1\t2\tA\t  ")
    assert_points_at(read_error(path), path, 2, "#2 String")
