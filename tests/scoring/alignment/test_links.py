"""The one alignment value type: both notations, bounds, and round trips."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from scoring.alignment.links import (
    Alignment,
    check_bounds,
    links_from_triples,
    links_to_triples,
)
from scoring.errors import AlignmentError, ScoringError
from scoring.formats import multimwa


def test_triples_and_pharaoh_describe_the_same_alignment() -> None:
    triples = [[0, 0, "S"], [1, 2, "P"], [2, 1, "S"]]
    from_triples = Alignment.from_triples(triples, 3, 3)
    assert from_triples == Alignment.from_pharaoh("0-0 1?2 2-1", 3, 3)
    assert from_triples.to_triples() == triples
    assert from_triples.to_pharaoh() == "0-0 1?2 2-1"


@pytest.mark.parametrize(
    ("item", "message"),
    [
        ([0, 0], "expected \\[i, j, 'S' or 'P'\\]"),
        ([0, 0, "X"], "expected \\[i, j, 'S' or 'P'\\]"),
        ([0, True, "S"], "indices must be integers"),
        ([0, 1.0, "S"], "indices must be integers"),
        ([3, 0, "S"], "link 3-0 is outside the 3×2 sentence pair"),
        ([-1, 0, "S"], "link -1-0 is outside"),
    ],
)
def test_a_bad_triple_is_refused_naming_its_position(item: list[object], message: str) -> None:
    with pytest.raises(AlignmentError, match=f"links\\[1\\]: {message}"):
        links_from_triples([[0, 0, "S"], item], 3, 2)


def test_a_link_given_twice_is_refused() -> None:
    with pytest.raises(AlignmentError, match="links\\[1\\]: link 0-0 is given twice"):
        links_from_triples([[0, 0, "S"], [0, 0, "P"]], 1, 1)


def test_the_same_bounds_check_guards_every_constructor() -> None:
    with pytest.raises(AlignmentError, match="outside the 2×2 sentence pair"):
        Alignment.from_links(2, 2, [(2, 0)])
    with pytest.raises(AlignmentError, match="outside the 2×2 sentence pair"):
        check_bounds([(0, 5)], 2, 2)


def test_a_link_one_past_the_last_word_asks_whether_the_links_count_from_1() -> None:
    # "1-1 2-2 3-3" on three words: a 1-based file, whose first link in range goes unnoticed
    with pytest.raises(AlignmentError) as error:
        Alignment.from_pharaoh("1-1 2-2 3-3", 3, 3)
    assert str(error.value) == (
        "link 3-3 is outside the 3×3 sentence pair (source indices 0..2, target 0..2); "
        "positions count from 0: are the links counted from 1?"
    )
    for far in ([(0, 3)], [(9, 1)], [(-1, 1)]):  # not one past on both sides, or a 0: no question
        with pytest.raises(AlignmentError) as error:
            check_bounds(far, 3, 3)
        assert "counted from 1" not in str(error.value)


def test_triples_are_written_sorted_by_position() -> None:
    assert links_to_triples({(1, 0): False, (0, 1): True}) == [[0, 1, "S"], [1, 0, "P"]]


@pytest.mark.parametrize("token", ["２-2", "0-١", "0?²"])
def test_a_pharaoh_link_of_digits_other_than_ascii_ones_is_refused(token: str) -> None:
    with pytest.raises(AlignmentError, match=re.escape(f"link #2 '{token}' is not Pharaoh syntax")):
        Alignment.from_pharaoh(f"0-0 {token}", 3, 3)


def test_a_multimwa_link_of_other_digits_is_refused_naming_its_line(tmp_path: Path) -> None:
    path = tmp_path / "pairs.tsv"
    path.write_text("p1\ta b\tN/A\ta b\tN/A\t1\t1\t0-0 １-1\t\n", encoding="utf-8")
    with pytest.raises(ScoringError, match=r"pairs\.tsv:1: field 'sure links'.*found '１-1'"):
        list(multimwa.read([path]))
