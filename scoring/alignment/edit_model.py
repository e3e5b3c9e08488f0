"""The chance model of Ĉ (Cohn, Callison-Burch & Lapata 2008, §3): how many cells an annotator
changes from the automatic prefill, as a per-cell probability ``Pr(edit | r, N, M)`` fitted as a
linear function of ``N + M`` over that annotator's pairs and clipped to ``[0, 1]``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from scoring.alignment.links import Alignment
from scoring.errors import AlignmentError, InputError, UndefinedError


@dataclass(frozen=True, slots=True)
class EditModel:
    """``Pr(edit | r, N, M) = clip(intercept + slope·(N + M), 0, 1)`` for one annotator and kind."""

    annotator: str
    kind: str
    intercept: float
    slope: float
    n_pairs: int

    def probability(self, n_source: int, n_target: int) -> float:
        value = self.intercept + self.slope * float(n_source + n_target)
        return min(1.0, max(0.0, value))

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> EditModel:
        return cls(
            str(data["annotator"]),
            str(data["kind"]),
            float(data["intercept"]),
            float(data["slope"]),
            int(data["n_pairs"]),
        )


def alignment_matrix(alignment: Alignment, kind: str) -> npt.NDArray[np.uint8]:
    """``P`` (``kind="possible"``) or ``S`` of an alignment as a contiguous uint8 matrix."""
    if kind == "possible":
        return np.ascontiguousarray(alignment.possible_matrix(), dtype=np.uint8)
    if kind == "sure":
        return np.ascontiguousarray(alignment.sure_matrix(), dtype=np.uint8)
    raise InputError(f"kind must be 'possible' or 'sure', got {kind!r}")


def edit_count(annotation: Alignment, prefill: Alignment, kind: str = "possible") -> int:
    """Cells of the ``N×M`` matrix (``P`` or ``S``) where an annotation differs from the prefill."""
    if annotation.shape != prefill.shape:
        raise AlignmentError(f"annotation is {annotation.shape} but the prefill is {prefill.shape}")
    changed = alignment_matrix(annotation, kind) != alignment_matrix(prefill, kind)
    return int(np.count_nonzero(changed))


def fit_edit_model(
    observations: Iterable[tuple[int, int, int]], *, annotator: str, kind: str = "possible"
) -> EditModel:
    """Least-squares line through the per-pair edit rates ``edits / (N·M)`` against ``N + M``.

    ``observations`` are ``(N, M, edits)`` per pair the annotator corrected. With one pair, or
    when every pair has the same ``N + M``, the slope is 0 and the intercept the mean rate (the
    paper's single-pair example: 8 edits of 12×13 → 8/156 = 5.13%).
    """
    xs: list[float] = []
    ys: list[float] = []
    for n, m, edits in observations:
        cells = n * m
        if cells == 0:
            continue
        if not 0 <= edits <= cells:
            raise InputError(f"{edits} edits do not fit a {n}×{m} matrix")
        xs.append(float(n + m))
        ys.append(edits / cells)
    if not xs:
        raise UndefinedError(
            f"annotator {annotator!r} has no non-empty pair with a prefill to fit Pr(edit) on"
        )
    x = np.array(xs)
    y = np.array(ys)
    x_mean = math.fsum(xs) / len(xs)
    y_mean = math.fsum(ys) / len(ys)
    var = math.fsum(((x - x_mean) ** 2).tolist())
    covariance = math.fsum(((x - x_mean) * (y - y_mean)).tolist())
    slope = 0.0 if var == 0.0 else covariance / var
    intercept = y_mean - slope * x_mean
    return EditModel(annotator, kind, intercept, slope, len(xs))
