"""Features of the gaps between anchored links, where annotators draw many-to-many blocks.

Annotators link a phrase to its paraphrase with one gesture ("the New York-based actor" /
"De Niro"): every cell of the block is a link, and most of the links a cell-by-cell classifier
misses are such blocks between words that share nothing. What marks them is where they lie: in
the *gap* between two consecutive anchored links (a word pair matched by the lexical rules or
linked by both EM directions), with neither word anchored itself. For each cell
(:data:`FEATURES`): whether it is in such a gap, the gap's height and width (a 1×1 gap is one
link, a 3×2 one often a block), and whether its row and its column are anchored. A block also
grows from an anchor ("US president" / "President Bush" around "president" / "President"): the
anchors among the cell's four neighbours, and how far the cell is from the nearest anchor of its
row and of its column (0 when the row or column has none).

The sentence edges are anchors too (before the first word and after the last).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

F64 = npt.NDArray[np.float64]
B = npt.NDArray[np.bool_]

FEATURES = (
    "block_in_gap",
    "block_gap_rows",
    "block_gap_columns",
    "block_row_anchored",
    "block_column_anchored",
    "block_anchors_beside",
    "block_row_anchor_distance",
    "block_column_anchor_distance",
)


def block_features(anchors: B) -> F64:
    """``(N·M, len(FEATURES))`` for a pair whose anchored cells are ``anchors`` ``(N, M)``."""
    n, m = anchors.shape
    rows: B = np.asarray(anchors.any(axis=1))
    cols: B = np.asarray(anchors.any(axis=0))
    # for each row: the column of the anchor of the nearest anchored row above and below
    # (the leftmost / rightmost of that row's anchors); the edges are anchors at -1 and (n, m)
    prev_row = np.full(n, -1)
    prev_col = np.full(n, -1)
    next_row = np.full(n, n)
    next_col = np.full(n, m)
    last_row, last_col = -1, -1
    for i in range(n):
        prev_row[i], prev_col[i] = last_row, last_col
        if rows[i]:
            last_row, last_col = i, int(np.flatnonzero(anchors[i]).max())
    last_row, last_col = n, m
    for i in range(n - 1, -1, -1):
        next_row[i], next_col[i] = last_row, last_col
        if rows[i]:
            last_row, last_col = i, int(np.flatnonzero(anchors[i]).min())
    j = np.arange(m)[None, :]
    inside = (~rows)[:, None] & (~cols)[None, :] & (j > prev_col[:, None]) & (j < next_col[:, None])
    height = np.where(inside, (next_row - prev_row - 1)[:, None], 0).astype(np.float64)
    width = np.where(inside, (next_col - prev_col - 1)[:, None], 0).astype(np.float64)
    padded = np.pad(anchors, 1).astype(np.float64)
    beside = padded[:-2, 1:-1] + padded[2:, 1:-1] + padded[1:-1, :-2] + padded[1:-1, 2:]
    columns = [
        inside.astype(np.float64),
        height,
        width,
        np.repeat(rows.astype(np.float64), m),
        np.tile(cols.astype(np.float64), n),
        beside,
        _nearest(anchors),
        _nearest(anchors.T).T,
    ]
    return np.stack([c.reshape(-1) for c in columns], axis=1)


def _nearest(anchors: B) -> F64:
    """For each cell, the distance to the nearest anchor of its row (0 without one)."""
    n, m = anchors.shape
    out = np.zeros((n, m))
    j = np.arange(m)
    for i in np.flatnonzero(anchors.any(axis=1)):
        at = np.flatnonzero(anchors[i])
        out[i] = np.abs(j[:, None] - at[None, :]).min(axis=1)
    return out
