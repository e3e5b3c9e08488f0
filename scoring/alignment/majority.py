"""The majority of several annotators' alignments of one pair: the one rule the product uses
wherever a majority is taken (adjudication's *accept majority*, the gold a prefill aligner learns
from, aligner evaluation against several annotators).

A link is in the majority when **more than half** of the annotators linked it (sure or possible),
and it is sure when more than half marked it sure: with three annotators two of three, as the
RTE-2 gold of Brockett (2007); with two, both. A cell linked by exactly half of an even number of
annotators is a **tie**, and so is a majority link that exactly half marked sure: ties are
disagreements for an adjudicator to settle, never decided by the code. In the majority alignment
a tied cell stays unlinked and a tied kind stays possible (the conservative reading), and
:class:`MajorityVote` lists both kinds of tie so that a page can show them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from scoring.alignment.links import Alignment, Link
from scoring.errors import AlignmentError


@dataclass(frozen=True)
class MajorityVote:
    """The votes of ``annotators`` alignments of one ``(N, M)`` pair and what they decide.

    ``linked`` and ``sure`` are ``(N, M)`` vote counts (``sure ≤ linked`` cell by cell).
    """

    annotators: int
    linked: npt.NDArray[np.int64]
    sure: npt.NDArray[np.int64]

    @property
    def alignment(self) -> Alignment:
        """The majority alignment: linked by more than half, sure when more than half say so."""
        return Alignment.from_matrices(
            2 * self.sure > self.annotators, 2 * self.linked > self.annotators
        )

    @property
    def link_ties(self) -> frozenset[Link]:
        """Cells linked by exactly half of the annotators (only with an even number of them)."""
        return _cells(2 * self.linked == self.annotators)

    @property
    def kind_ties(self) -> frozenset[Link]:
        """Majority links that exactly half of the annotators marked sure."""
        return _cells((2 * self.linked > self.annotators) & (2 * self.sure == self.annotators))

    @property
    def unanimous(self) -> bool:
        """Whether every annotator made the same alignment: each cell linked by all or none,
        and each link marked sure by all or none. The majority is then that alignment, with no
        tie, and needs no adjudicator's judgement (a bulk accept takes only these)."""
        everyone = self.annotators
        return bool(
            np.all((self.linked == 0) | (self.linked == everyone))
            and np.all((self.sure == 0) | (self.sure == everyone))
        )


def majority_vote(alignments: Sequence[Alignment]) -> MajorityVote:
    """Count the votes of one or more alignments of the same pair (see the module's rule)."""
    if not alignments:
        raise AlignmentError("the majority of no alignments is undefined")
    shape = alignments[0].shape
    for index, alignment in enumerate(alignments):
        if alignment.shape != shape:
            raise AlignmentError(
                f"alignment {index} is of a {alignment.n_source}×{alignment.n_target} pair, "
                f"the first of a {shape[0]}×{shape[1]} pair"
            )
    linked = np.zeros(shape, dtype=np.int64)
    sure = np.zeros(shape, dtype=np.int64)
    for alignment in alignments:
        linked += alignment.possible_matrix()
        sure += alignment.sure_matrix()
    return MajorityVote(annotators=len(alignments), linked=linked, sure=sure)


def majority_alignment(alignments: Sequence[Alignment]) -> Alignment:
    """The majority alignment of one pair's alignments (ties left out; see the module)."""
    return majority_vote(alignments).alignment


def _cells(mask: npt.NDArray[np.bool_]) -> frozenset[Link]:
    return frozenset((int(i), int(j)) for i, j in zip(*np.nonzero(mask), strict=True))
