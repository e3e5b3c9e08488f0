"""Corrections: the cells an annotator changes to turn a prefill into their gold alignment.

The annotator's grid has one state per cell: empty, possible or sure. Starting from a prefill,
the work left is the number of cells whose state must change:

``three_state``
    cells whose state (empty / possible / sure) differs between the prefill and the gold;
``linked``
    cells whose linked-or-not status differs (a possible prefill cell that the gold has sure
    costs nothing here).

:func:`decide_states` turns per-cell probabilities into the prefill that minimises the expected
number of corrections of either kind.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from scoring.aligners.base import AlignerOutput
from scoring.alignment.links import Alignment
from scoring.errors import AlignmentError

F64 = npt.NDArray[np.float64]
I8 = npt.NDArray[np.int8]

EMPTY, POSSIBLE, SURE = 0, 1, 2


@dataclass(frozen=True, slots=True)
class Corrections:
    """The corrections of one pair (or summed over pairs)."""

    three_state: int
    linked: int

    def __add__(self, other: Corrections) -> Corrections:
        return Corrections(self.three_state + other.three_state, self.linked + other.linked)


def corrections(prefill: Alignment, gold: Alignment) -> Corrections:
    """The cells of one pair an annotator changes to turn ``prefill`` into ``gold``."""
    if prefill.shape != gold.shape:
        raise AlignmentError(
            f"prefill is of a {prefill.n_source}×{prefill.n_target} pair, gold of a "
            f"{gold.n_source}×{gold.n_target} pair"
        )
    shown, wanted = prefill.to_matrix(), gold.to_matrix()
    return Corrections(
        three_state=int(np.count_nonzero(shown != wanted)),
        linked=int(np.count_nonzero((shown > 0) != (wanted > 0))),
    )


def total_corrections(prefills: Sequence[Alignment], golds: Sequence[Alignment]) -> Corrections:
    """:func:`corrections` summed over pairs."""
    if len(prefills) != len(golds):
        raise AlignmentError(f"{len(prefills)} prefills for {len(golds)} gold alignments")
    total = Corrections(0, 0)
    for prefill, gold in zip(prefills, golds, strict=True):
        total = total + corrections(prefill, gold)
    return total


def decide_states(p_linked: F64, p_sure: F64, *, possible_cost: float = 1.0) -> I8:
    """The state of each cell (0 empty, 1 possible, 2 sure) with the fewest expected corrections.

    ``p_linked`` is ``P(gold cell linked)``, ``p_sure`` ``P(gold cell sure)`` (``≤ p_linked``).
    Showing a cell as sure costs a correction unless the gold has it sure, as possible unless
    the gold has it possible, as empty unless the gold leaves it empty: the expected costs are
    ``1 − p_sure``, ``1 − (p_linked − p_sure)`` and ``p_linked``, the least is taken.
    ``possible_cost`` scales the cost of a possible cell that the gold has otherwise (below 1
    shows more possible links; 1 is the three-state count).
    """
    linked = np.clip(np.asarray(p_linked, dtype=np.float64), 0.0, 1.0)
    sure = np.minimum(np.clip(np.asarray(p_sure, dtype=np.float64), 0.0, 1.0), linked)
    costs = np.stack(
        [linked, possible_cost * (1.0 - (linked - sure)), 1.0 - sure],
        axis=-1,
    )
    states: I8 = np.argmin(costs, axis=-1).astype(np.int8)
    return states


def expected_corrections(p_linked: F64, p_sure: F64, states: I8) -> float:
    """The expected three-state corrections of showing ``states`` under the given probabilities:
    how unsure a prefill is, in cells."""
    linked = np.clip(np.asarray(p_linked, dtype=np.float64), 0.0, 1.0)
    sure = np.minimum(np.clip(np.asarray(p_sure, dtype=np.float64), 0.0, 1.0), linked)
    right = np.where(states == SURE, sure, np.where(states == POSSIBLE, linked - sure, 1 - linked))
    return float(np.sum(1.0 - right))


def uncertainty(output: AlignerOutput) -> float:
    """How unsure a prefill is, in expected corrections: the aligner's own estimate
    (``metadata["expected_corrections"]``) when it gives one, else the summed doubt
    ``Σ (1 − confidence)`` of its links."""
    value = output.metadata.get("expected_corrections")
    if value is not None:
        return float(value)
    return float(sum(1.0 - c for c in output.confidence.values()))
