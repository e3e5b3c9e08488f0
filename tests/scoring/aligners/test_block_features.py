"""Gaps between anchored links: where many-to-many blocks lie."""

from __future__ import annotations

import numpy as np

from scoring.aligners.block_features import FEATURES, block_features


def test_cells_between_two_anchors_are_in_a_gap_of_their_size() -> None:
    # "the actor and producer said" / "De Niro said": "said" anchored at (4, 2); the rows
    # 0-3 and columns 0-1 lie between the sentence start and that anchor
    anchors = np.zeros((5, 3), dtype=bool)
    anchors[4, 2] = True
    out = block_features(anchors).reshape(5, 3, len(FEATURES))
    in_gap = out[:, :, FEATURES.index("block_in_gap")]
    assert in_gap.tolist() == [[1, 1, 0]] * 4 + [[0, 0, 0]]
    assert out[0, 0, FEATURES.index("block_gap_rows")] == 4.0
    assert out[0, 0, FEATURES.index("block_gap_columns")] == 2.0
    assert out[4, 0, FEATURES.index("block_row_anchored")] == 1.0
    assert out[0, 2, FEATURES.index("block_column_anchored")] == 1.0


def test_a_cell_outside_the_rectangle_of_its_gap_is_not_in_it() -> None:
    # anchors (0, 0) and (3, 3): rows 1-2 face columns 1-2; column 4 lies after the last anchor
    anchors = np.zeros((4, 5), dtype=bool)
    anchors[0, 0] = anchors[3, 3] = True
    in_gap = block_features(anchors).reshape(4, 5, len(FEATURES))[:, :, 0]
    assert in_gap[1].tolist() == [0, 1, 1, 0, 0]
    assert in_gap[2].tolist() == [0, 1, 1, 0, 0]


def test_a_cell_beside_an_anchor_knows_how_far_it_is_from_it() -> None:
    anchors = np.zeros((2, 4), dtype=bool)
    anchors[1, 1] = True
    out = block_features(anchors).reshape(2, 4, len(FEATURES))
    assert out[0, :, FEATURES.index("block_anchors_beside")].tolist() == [0, 1, 0, 0]
    assert out[1, :, FEATURES.index("block_anchors_beside")].tolist() == [1, 0, 1, 0]
    assert out[1, :, FEATURES.index("block_row_anchor_distance")].tolist() == [1, 0, 1, 2]
    assert out[0, :, FEATURES.index("block_row_anchor_distance")].tolist() == [0, 0, 0, 0]
    assert out[:, 1, FEATURES.index("block_column_anchor_distance")].tolist() == [1, 0]
