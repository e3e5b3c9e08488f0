"""SemEval STS files: input lines with the gold scores beside them."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from scoring.errors import FormatError
from scoring.formats import get_format, sts
from tests.scoring.formats._helpers import assert_points_at


def write_subcorpus(folder: Path, name: str, inputs: str, scores: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"STS.input.{name}.txt"
    path.write_text(inputs, encoding="utf-8")
    (folder / f"STS.gs.{name}.txt").write_text(scores, encoding="utf-8")
    return path


def test_the_2012_training_data_has_2234_pairs_in_three_files(shared_data: Path) -> None:
    train = shared_data / "sts2012" / "train"
    inputs = sorted(train.glob("STS.input.*.txt"))
    records = list(get_format("sts").read(inputs))
    assert len(inputs) == 3
    assert len(records) == 2234
    assert Counter(r.subcorpus for r in records) == {
        "MSRpar": 750,
        "MSRvid": 750,
        "SMTeuroparl": 734,
    }
    # The gold scores are those of the gold files, line by line.
    for name in ("MSRpar", "MSRvid", "SMTeuroparl"):
        gold = [float(v) for v in (train / f"STS.gs.{name}.txt").read_text().split()]
        assert [r.gold_score for r in records if r.subcorpus == name] == gold
    assert all(r.split == "train" for r in records)
    assert records[0].id == "MSRpar-train:1"


def test_a_folder_reads_every_input_file_in_it(shared_data: Path) -> None:
    records = list(sts.read([shared_data / "sts2012" / "test"]))
    assert len(records) == 3108  # STS.gs.ALL.txt has no input file and is not read
    assert {r.subcorpus for r in records} >= {"surprise.OnWN", "surprise.SMTnews"}


def test_raw_text_is_kept_and_tokenized(tmp_path: Path) -> None:
    path = write_subcorpus(tmp_path / "trial", "X", 'He said "hi."\tHi .\n', "4.2\n")
    (record,) = sts.read([path])
    assert record.id == "X-trial:1"
    assert record.source_text == 'He said "hi."'
    assert record.source_tokens == ["He", "said", "``", "hi", ".", "''"]
    assert record.gold_score == 4.2


# --- bad input -------------------------------------------------------------------------------


def read_error(*paths: Path) -> FormatError:
    with pytest.raises(FormatError) as caught:
        list(sts.read(list(paths)))
    return caught.value


def test_it_rejects_line_counts_that_do_not_match(tmp_path: Path) -> None:
    path = write_subcorpus(tmp_path, "X", "a\tb\nc\td\n", "1.0\n")
    error = read_error(path)
    assert_points_at(error, path, 2, "s1")
    assert "more lines than STS.gs.X.txt" in str(error)


def test_it_rejects_a_gold_file_longer_than_the_input(tmp_path: Path) -> None:
    path = write_subcorpus(tmp_path, "X", "a\tb\n", "1.0\n2.0\n")
    assert_points_at(read_error(path), tmp_path / "STS.gs.X.txt", 2, "score")


def test_it_rejects_a_wrong_column_count(tmp_path: Path) -> None:
    path = write_subcorpus(tmp_path, "X", "a\tb\nonly one\n", "1\n2\n")
    assert_points_at(read_error(path), path, 2, "s2")


def test_it_rejects_a_score_outside_0_to_5(tmp_path: Path) -> None:
    path = write_subcorpus(tmp_path, "X", "a\tb\n", "5.5\n")
    assert_points_at(read_error(path), tmp_path / "STS.gs.X.txt", 1, "score")


def test_it_rejects_non_utf8_bytes(tmp_path: Path) -> None:
    path = write_subcorpus(tmp_path, "X", "", "1\n")
    path.write_bytes(b"a\tcaf\xe9\n")
    assert_points_at(read_error(path), path, 1, "s2")


def test_it_rejects_an_empty_file(tmp_path: Path) -> None:
    path = write_subcorpus(tmp_path, "X", "", "")
    assert_points_at(read_error(path), path, 1, "(file)")


def test_it_rejects_a_missing_gold_file(tmp_path: Path) -> None:
    path = write_subcorpus(tmp_path, "X", "a\tb\n", "1\n")
    (tmp_path / "STS.gs.X.txt").unlink()
    assert_points_at(read_error(path), tmp_path / "STS.gs.X.txt", None, "score")


def test_it_rejects_duplicate_ids_when_a_file_is_given_twice(tmp_path: Path) -> None:
    path = write_subcorpus(tmp_path, "X", "a\tb\n", "1\n")
    assert_points_at(read_error(path, path), path, 1, "id")


def test_a_folder_without_input_files_names_the_file_it_holds_not_the_folder(
    tmp_path: Path,
) -> None:
    (tmp_path / "notes.png").write_bytes(b"\x89PNG")
    error = read_error(tmp_path)
    assert_points_at(error, tmp_path / "notes.png", None, "(file name)")
    assert "expected an input file named STS.input.<subcorpus>.txt" in str(error)


def test_an_empty_folder_is_named(tmp_path: Path) -> None:
    error = read_error(tmp_path)
    assert_points_at(error, tmp_path, None, None)
    assert "the folder holds no STS.input.*.txt file" in str(error)


def test_a_given_split_names_the_ids_and_the_split_instead_of_the_folder(tmp_path: Path) -> None:
    path = write_subcorpus(tmp_path / "upload-1f2e", "X", "a\tb\n", "3\n")
    (unnamed,) = sts.read([path])
    assert (unnamed.id, unnamed.split) == ("X:1", "")
    (named,) = get_format("sts").read([path], split="test")
    assert (named.id, named.split) == ("X-test:1", "test")
