"""Corrections: cells an annotator changes, and the prefill with the fewest expected ones."""

from __future__ import annotations

import numpy as np
import pytest

from scoring.aligners.corrections import (
    Corrections,
    corrections,
    decide_states,
    expected_corrections,
    total_corrections,
)
from scoring.alignment.links import Alignment
from scoring.errors import AlignmentError


def test_corrections_count_the_cells_whose_state_differs_by_hand() -> None:
    # 3×3 grid. Prefill: (0,0) sure, (1,1) possible, (2,2) sure, (0,2) possible.
    # Gold:    (0,0) sure, (1,1) sure,     (2,1) possible,        (0,2) possible.
    # (1,1) possible → sure: a three-state correction, still linked.
    # (2,2) sure → empty: both kinds. (2,1) empty → possible: both kinds.
    prefill = Alignment.from_links(3, 3, sure=[(0, 0), (2, 2)], possible=[(1, 1), (0, 2)])
    gold = Alignment.from_links(3, 3, sure=[(0, 0), (1, 1)], possible=[(2, 1), (0, 2)])
    assert corrections(prefill, gold) == Corrections(three_state=3, linked=2)
    assert corrections(gold, gold) == Corrections(0, 0)
    empty = Alignment.empty(3, 3)
    assert corrections(empty, gold) == Corrections(4, 4)
    assert total_corrections([prefill, empty], [gold, gold]) == Corrections(7, 6)


def test_corrections_of_different_shapes_are_refused() -> None:
    with pytest.raises(AlignmentError, match="2×3 pair, gold of a 3×3"):
        corrections(Alignment.empty(2, 3), Alignment.empty(3, 3))


def test_each_cell_gets_the_state_with_the_fewest_expected_corrections() -> None:
    p_linked = np.array([0.9, 0.9, 0.9, 0.4, 0.6, 0.2])
    p_sure = np.array([0.8, 0.3, 0.5, 0.35, 0.2, 0.0])
    # costs (empty, possible, sure): (.9, .9, .2) (.9, .4, .7) (.9, .6, .5) (.4, .95, .65)
    # (.6, .6, .8): a tie keeps the cell empty; (.2, .8, 1)
    states = decide_states(p_linked, p_sure)
    assert states.tolist() == [2, 1, 2, 0, 0, 0]
    assert decide_states(p_linked, p_sure, possible_cost=0.5).tolist() == [2, 1, 1, 0, 1, 0]
    expected = expected_corrections(p_linked, p_sure, states)
    assert expected == pytest.approx(0.2 + 0.4 + 0.5 + 0.4 + 0.6 + 0.2)
