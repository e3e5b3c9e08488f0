"""MSR RTE-2 alignments (Brockett 2007): three annotator files → one set with three annotations."""

from __future__ import annotations

from pathlib import Path

import pytest

from scoring.alignment.links import Alignment
from scoring.corpus import PairRecord
from scoring.errors import FormatError
from scoring.formats import get_format
from scoring.formats.rte2 import read_rte2
from tests.scoring.formats._helpers import assert_points_at

BOM = "\ufeff"


@pytest.fixture(scope="module")
def dev(shared_data: Path) -> list[PairRecord]:
    return read_rte2(sorted((shared_data / "rte2-alignments").glob("RTE2_dev_*.align.txt")))


def test_the_dev_set_has_800_pairs_with_three_annotations(dev: list[PairRecord]) -> None:
    assert len(dev) == 800
    assert [record.id for record in dev[:2]] == ["dev:1", "dev:2"]
    assert all(sorted(record.annotations) == ["A", "B", "C"] for record in dev)
    assert all(record.split == "dev" for record in dev)


def test_link_counts_match_table_2_of_the_report(dev: list[PairRecord]) -> None:
    """Brockett (2007) Table 2, development set: SURE, POSSIBLE and null counts per annotator.

    The report's null count includes the tool's NULL word of each of the 800 hypotheses.
    """
    table_2 = {"A": (5983, 2154, 2909), "B": (6022, 2015, 2963), "C": (5888, 2733, 2956)}
    for letter, (sure, possible, null) in table_2.items():
        alignments = [record.annotations[letter].alignment for record in dev]
        unlinked = sum(
            len(record.target_tokens)
            - len({j for _, j in record.annotations[letter].alignment.possible})
            for record in dev
        )
        assert sum(len(a.sure) for a in alignments) == sure
        assert sum(len(a.possible_only) for a in alignments) == possible
        assert unlinked + len(dev) == null


def test_the_first_pair_reads_as_the_report_shows_it(dev: list[PairRecord]) -> None:
    """Report sample: Regina ({ 4 p1 p2 / / }) Shueller ({ 5 p1 p2 / / }) … . ({ 38 / / })."""
    record = dev[0]
    assert record.source_tokens[:5] == ["ECB", "spokeswoman", ",", "Regina", "Schueller"]
    assert record.target_tokens[:2] == ["Regina", "Shueller"]  # BOMs removed, typo kept
    alignment = record.annotations["A"].alignment
    assert {(3, 0), (4, 1), (37, 9)} <= alignment.sure
    assert {(0, 0), (1, 0), (0, 1), (1, 1)} == alignment.possible_only
    assert record.metadata["rte2"]["null"]["A"] == {"sure": [], "possible": []}
    assert record.metadata["rte2"]["pair"] == 1


def test_the_known_irregularities_are_kept_in_the_metadata(dev: list[PairRecord]) -> None:
    # Annotator C writes some sentence-final "." as ".."; the majority's "." is used.
    variants = {
        r.id: r.metadata["rte2"]["token_variants"]
        for r in dev
        if "token_variants" in r.metadata["rte2"]
    }
    assert len(variants) == 41
    assert all(set(found) == {"C"} for found in variants.values())
    assert variants["dev:9"] == {"C": {"source": {"53": ".."}}}
    assert dev[8].source_tokens[53] == "."
    # The last line of C's file lacks its final ')'.
    repaired = [r.id for r in dev if "repairs" in r.metadata["rte2"]]
    assert repaired == ["dev:800"]
    assert (22, 14) in dev[-1].annotations["C"].alignment.sure  # ". ({ 23 / / }" still read


def test_the_registry_reads_it_too(shared_data: Path) -> None:
    paths = sorted((shared_data / "rte2-alignments").glob("RTE2_dev_*.align.txt"))
    records = get_format("rte2").read(paths)
    assert next(records).id == "dev:1"


# --- small files -----------------------------------------------------------------------------


def write_set(folder: Path, texts: dict[str, str]) -> list[Path]:
    folder.mkdir(exist_ok=True)
    paths = []
    for letter, text in texts.items():
        path = folder / f"RTE2_test_{letter}.align.txt"
        path.write_text(text, encoding="utf-8", newline="")
        paths.append(path)
    return paths


PAIR_1 = (
    "# sentence pair 1\r\nThe cat sat .\r\nNULL ({ / / }) cat ({ 2 p1 / / }) sat ({ 3 / / }) \r\n"
)
PAIR_2 = "# sentence pair 2\r\nA dog barked .\r\nNULL ({ 4 / / }) dog ({ 2 / / }) . ({ / / })\r\n"


def test_null_links_and_possible_links_are_read(tmp_path: Path) -> None:
    (path,) = write_set(tmp_path, {"B": BOM * 3 + PAIR_1 + PAIR_2})
    first, second = read_rte2([path])
    assert first.id == "test:1"
    assert first.annotations["B"].alignment == Alignment.from_links(
        4, 2, [(1, 0), (2, 1)], [(0, 0)]
    )
    assert second.metadata["rte2"]["null"]["B"] == {"sure": [3], "possible": []}


def read_error(paths: list[Path]) -> FormatError:
    with pytest.raises(FormatError) as caught:
        read_rte2(paths)
    return caught.value


def test_it_rejects_token_counts_that_differ_between_annotators(tmp_path: Path) -> None:
    other = PAIR_2.replace("A dog barked .", "A dog barked loudly .")
    paths = write_set(tmp_path, {"A": PAIR_1 + PAIR_2, "B": PAIR_1 + other})
    error = read_error(paths)
    assert_points_at(error, paths[1], 5, "text")
    assert "annotator B's text has 5 tokens" in str(error)


def test_it_rejects_hypothesis_counts_that_differ_between_annotators(tmp_path: Path) -> None:
    other = PAIR_1.replace("sat ({ 3 / / })", "sat ({ 3 / / }) down ({ / / })")
    paths = write_set(tmp_path, {"A": PAIR_1, "C": other})
    assert_points_at(read_error(paths), paths[1], 3, "hypothesis")


def test_it_rejects_links_outside_the_text(tmp_path: Path) -> None:
    (path,) = write_set(tmp_path, {"A": PAIR_1 + PAIR_2.replace("dog ({ 2", "dog ({ 5")})
    error = read_error([path])
    assert_points_at(error, path, 6, "hypothesis word #1 'dog'")
    assert "outside the text" in str(error)


def test_it_rejects_malformed_link_lists(tmp_path: Path) -> None:
    (path,) = write_set(tmp_path, {"A": PAIR_1.replace("p1", "q1")})
    assert_points_at(read_error([path]), path, 3, "hypothesis word #1 'cat'")


def test_it_rejects_pairs_out_of_step(tmp_path: Path) -> None:
    paths = write_set(tmp_path, {"A": PAIR_1, "B": PAIR_1.replace("pair 1", "pair 7")})
    assert_points_at(read_error(paths), paths[1], 1, "# sentence pair")


def test_it_rejects_duplicate_pair_numbers(tmp_path: Path) -> None:
    (path,) = write_set(tmp_path, {"A": PAIR_1 + PAIR_2.replace("pair 2", "pair 1")})
    error = read_error([path])
    assert_points_at(error, path, 4, "# sentence pair")
    assert "duplicate id '1' (first used on line 1)" in str(error)


def test_it_rejects_different_pair_counts(tmp_path: Path) -> None:
    paths = write_set(tmp_path, {"A": PAIR_1 + PAIR_2, "B": PAIR_1})
    assert_points_at(read_error(paths), paths[1], 4, "# sentence pair")


def test_it_rejects_non_utf8_bytes(tmp_path: Path) -> None:
    (path,) = write_set(tmp_path, {"A": PAIR_1})
    path.write_bytes(path.read_bytes().replace(b"The cat", b"The c\xe2t"))
    error = read_error([path])
    assert_points_at(error, path, 2, "text")
    assert "UTF-8" in str(error)


def test_it_rejects_an_empty_file(tmp_path: Path) -> None:
    (path,) = write_set(tmp_path, {"A": ""})
    assert_points_at(read_error([path]), path, 1, "(file)")


def test_it_rejects_a_file_name_without_an_annotator_letter(tmp_path: Path) -> None:
    path = tmp_path / "alignments.txt"
    path.write_text(PAIR_1, encoding="utf-8")
    assert_points_at(read_error([path]), path, None, "(file name)")
