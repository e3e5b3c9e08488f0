"""A plain-Python statement of the majority rule, independent of the numpy implementation: other
tests (aligner evaluation, prefill training, the adjudication page) compare against it."""

from __future__ import annotations

from collections.abc import Sequence

from scoring.alignment.links import Alignment, Link


def reference_majority(
    alignments: Sequence[Alignment],
) -> tuple[set[Link], set[Link], set[Link], set[Link]]:
    """``(sure, linked, link ties, kind ties)`` by counting votes cell by cell."""
    n, m = alignments[0].shape
    k = len(alignments)
    sure: set[Link] = set()
    linked: set[Link] = set()
    link_ties: set[Link] = set()
    kind_ties: set[Link] = set()
    for i in range(n):
        for j in range(m):
            votes = sum((i, j) in a.possible for a in alignments)
            sure_votes = sum((i, j) in a.sure for a in alignments)
            if votes * 2 == k:
                link_ties.add((i, j))
            if votes * 2 > k:
                linked.add((i, j))
                if sure_votes * 2 > k:
                    sure.add((i, j))
                elif sure_votes * 2 == k:
                    kind_ties.add((i, j))
    return sure, linked, link_ties, kind_ties
