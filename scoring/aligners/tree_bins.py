"""Feature bins for weighted tree fits: scikit-learn's own thresholds, found in two sorts.

``HistGradientBoostingClassifier`` bins each feature column before it grows trees: a column
with at most ``max_bins`` distinct values gets the midpoints between them, a longer one the
weighted percentiles at ``100 k / max_bins`` (``k = 1 … max_bins - 1``, NumPy's
``averaged_inverted_cdf`` with weights). With sample weights, scikit-learn 1.9 computes each
percentile separately and sorts the column again for each of them: 254 sorts of every column,
half of the link trees' fit. :func:`weighted_bins` computes the same thresholds, bit for bit,
from one cumulative sum of the sorted weights and one ``searchsorted`` for all percentiles,
and codes each value by its bin (scikit-learn's rule: ``t[i-1] < x <= t[i]``; missing stays
missing). Fitted on the codes, scikit-learn takes its distinct-values path (midpoints of the
codes), grows the same trees, and :meth:`Bins.thresholds` turns each split back into the
raw threshold the fit on the raw values would have kept (the tests compare the two).

A bin may hold no row: a percentile can fall on a value and the next one on the midpoint after
it, or on the column's largest value. Scikit-learn's distinct-values path on the codes then
sees fewer bins than the raw fit had; the splits are the same partitions of the rows, and
:meth:`Bins.thresholds` picks among the raw bins that give a partition the one the raw fit's
scan reaches first: the lowest left to right (missing values go right), the highest right to
left (missing values go left, scanned only for a column with missing values).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

F64 = npt.NDArray[np.float64]

#: scikit-learn bins the thresholds on a random subsample of this many rows when there are
#: more; :func:`weighted_bins` declines such data (the caller lets scikit-learn bin it).
SUBSAMPLE = 200_000
#: scikit-learn clips thresholds to this (an infinite one is kept for splits on missing values).
ALMOST_INF = 1e300


def column_thresholds(column: F64, weight: F64, max_bins: int) -> F64:
    """The bin thresholds scikit-learn finds for ``column`` with positive ``weight``: the
    midpoints of its distinct values when there are at most ``max_bins``, else its weighted
    percentiles (``averaged_inverted_cdf``), each without repeats and clipped to
    :data:`ALMOST_INF`. Missing values are ignored; the column needs one value at least."""
    present = ~np.isnan(column)
    values, weights = column[present], weight[present]
    order = np.argsort(values)  # the sort (and tie order) scikit-learn starts from
    values, weights = values[order], weights[order]
    if values.size == 0:
        raise ValueError("a column with no value has no bins")
    step = np.flatnonzero(values[1:] != values[:-1])
    distinct = np.concatenate((values[:1], values[1:][step]))
    if distinct.size == 1:
        return np.empty(0)
    if distinct.size <= max_bins:
        thresholds = (distinct[:-1] + distinct[1:]) / 2
    else:
        # scikit-learn sorts the sorted column again (as a one-column matrix, not stably), and
        # the order of equal values sets the order the weights are summed in
        again = np.argsort(values.reshape(-1, 1), axis=0)[:, 0]
        cdf = np.cumsum(weights[again])
        ranks = np.linspace(0, 100, num=max_bins + 1)[1:-1]
        wanted = ranks / 100 * cdf[-1]
        last = values.size - 1
        at = np.clip(np.searchsorted(cdf, wanted), 0, last)
        above = cdf[at] - wanted > np.finfo(np.float64).eps
        low = values[again[at]]
        high = values[again[np.clip(at + 1, 0, last)]]
        thresholds = np.where(above, low, (low + high) / 2)
        unique = np.unique(thresholds)
        if unique.shape[0] != thresholds.shape[0]:
            thresholds = unique
    clipped: F64 = np.clip(thresholds, None, ALMOST_INF)
    return clipped


@dataclass(frozen=True)
class Bins:
    """Each column's raw thresholds (``raw[f]``), the rows' bin codes (``codes``, missing as
    NaN) and, per column, the codes that occur (``present[f]``, increasing) and whether any
    value is missing (``missing[f]``)."""

    raw: list[F64]
    codes: F64
    present: list[npt.NDArray[np.int64]]
    missing: npt.NDArray[np.bool_]

    def thresholds(
        self,
        feature: npt.NDArray[np.int64],
        code_bin: npt.NDArray[np.int64],
        missing_left: npt.NDArray[np.bool_],
    ) -> F64:
        """The raw thresholds of splits made on the codes: split ``k`` is on column
        ``feature[k]`` after bin ``code_bin[k]`` of the codes' binning (the ``code_bin``-th code
        present), missing values going left if ``missing_left[k]``."""
        out = np.empty(feature.shape[0])
        for k in range(feature.shape[0]):
            f, b = int(feature[k]), int(code_bin[k])
            raw, present = self.raw[f], self.present[f]
            if self.missing[f] and missing_left[k]:
                # right to left: the highest raw bin before the next code present
                out[k] = raw[present[b + 1] - 1]
            elif present[b] == raw.shape[0]:
                out[k] = np.inf  # a split on missing values: every value goes left
            else:
                out[k] = raw[present[b]]
        return out


def weighted_bins(x: npt.ArrayLike, weight: npt.ArrayLike, max_bins: int) -> Bins | None:
    """The bins of :func:`column_thresholds` for every column of ``x`` ``(R, F)`` with
    ``weight`` ``(R,)``, or ``None`` where scikit-learn bins otherwise: more than
    :data:`SUBSAMPLE` rows (it bins a weighted subsample), a weight that is not positive and
    finite, or a column with no value (it fails)."""
    data = np.asarray(x, dtype=np.float64)
    weights = np.asarray(weight, dtype=np.float64)
    if data.ndim != 2 or weights.shape != (data.shape[0],) or data.shape[0] > SUBSAMPLE:
        return None
    if not (np.isfinite(weights).all() and (weights > 0).all()):
        return None
    missing_cells = np.isnan(data)
    missing: npt.NDArray[np.bool_] = np.asarray(missing_cells.any(axis=0))
    if missing_cells.all(axis=0).any():
        return None
    raw = [column_thresholds(data[:, f], weights, max_bins) for f in range(data.shape[1])]
    codes = np.empty(data.shape, order="F")
    present = []
    for f, thresholds in enumerate(raw):
        column = np.searchsorted(thresholds, data[:, f], side="left")
        counts = np.bincount(column[~missing_cells[:, f]], minlength=thresholds.size + 1)
        present.append(np.flatnonzero(counts))
        codes[:, f] = column
    codes[missing_cells] = np.nan
    return Bins(raw=raw, codes=codes, present=present, missing=missing)
