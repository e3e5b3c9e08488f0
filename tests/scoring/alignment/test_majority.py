"""The majority rule: worked examples and random alignments of 2–5 annotators against a
cell-by-cell count."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scoring.alignment.links import Alignment
from scoring.alignment.majority import majority_alignment, majority_vote
from scoring.errors import AlignmentError
from tests.scoring.alignment.majority_reference import reference_majority
from tests.scoring.strategies import SETTINGS, alignments


def test_one_sure_in_three_linked_by_two_is_a_possible_link() -> None:
    nobody = Alignment.empty(1, 1)
    possible = Alignment.from_links(1, 1, possible=[(0, 0)])
    sure = Alignment.from_links(1, 1, sure=[(0, 0)])
    assert majority_alignment([nobody, possible, sure]) == possible


def test_two_of_three_make_a_sure_link_and_one_of_three_makes_nothing() -> None:
    a = Alignment.from_pharaoh("0-0 1-1 2?2", 3, 3)
    b = Alignment.from_pharaoh("0-0 1?1", 3, 3)
    c = Alignment.from_pharaoh("0?0 2?2 0-2", 3, 3)
    majority = majority_alignment([a, b, c])
    assert majority.sure == {(0, 0)}
    assert majority.possible == {(0, 0), (1, 1), (2, 2)}


def test_with_two_annotators_a_link_needs_both_and_half_is_a_tie() -> None:
    a = Alignment.from_pharaoh("0-0 1-1", 2, 2)
    b = Alignment.from_pharaoh("0-0 1?1 0-1", 2, 2)
    vote = majority_vote([a, b])
    assert vote.alignment.sure == {(0, 0)}
    assert vote.alignment.possible == {(0, 0), (1, 1)}
    assert vote.link_ties == {(0, 1)}
    assert vote.kind_ties == {(1, 1)}


def test_only_identical_alignments_are_unanimous() -> None:
    a = Alignment.from_pharaoh("0-0 1?1", 2, 2)
    assert majority_vote([a, a, a]).unanimous
    assert majority_vote([Alignment.empty(2, 2)] * 2).unanimous
    kind = Alignment.from_pharaoh("0-0 1-1", 2, 2)
    assert not majority_vote([a, kind]).unanimous  # a kind tie
    assert not majority_vote([a, a, kind]).unanimous  # no tie, but one annotator differs
    extra = Alignment.from_pharaoh("0-0 1?1 0?1", 2, 2)
    assert not majority_vote([a, a, extra]).unanimous


def test_one_annotator_is_their_own_majority() -> None:
    a = Alignment.from_pharaoh("0-0 1?1", 2, 2)
    assert majority_alignment([a]) == a
    assert not majority_vote([a]).link_ties


def test_it_refuses_no_alignments_and_pairs_of_different_sizes() -> None:
    with pytest.raises(AlignmentError, match="no alignments"):
        majority_vote([])
    with pytest.raises(AlignmentError, match="alignment 1 is of a 2×3 pair"):
        majority_vote([Alignment.empty(2, 2), Alignment.empty(2, 3)])


@st.composite
def annotators(draw: st.DrawFn) -> list[Alignment]:
    n, m, k = draw(st.integers(1, 5)), draw(st.integers(1, 5)), draw(st.integers(2, 5))
    return [draw(alignments(n, m)) for _ in range(k)]


@SETTINGS
@given(annotators())
def test_it_agrees_with_a_cell_by_cell_count(found: list[Alignment]) -> None:
    assert majority_vote(found).unanimous == all(other == found[0] for other in found)
    sure, linked, link_ties, kind_ties = reference_majority(found)
    vote = majority_vote(found)
    assert vote.alignment.sure == sure
    assert vote.alignment.possible == linked
    assert vote.link_ties == link_ties
    assert vote.kind_ties == kind_ties
