"""Standard agreement statistics over alignment cells, labelled as such.

Alongside Ĉ (:mod:`scoring.alignment.agreement`) users know these nominal statistics:

- **Cohen's κ** (Cohen 1960), two raters, each with their own category distribution;
- **Fleiss' κ** (Fleiss 1971), any fixed number of raters, one pooled distribution;
- **Krippendorff's α** (nominal metric), any number of raters, missing ratings allowed.

Items are *alignment cells* labelled ``none`` / ``possible`` / ``sure`` (codes 0, 1, 2, the codes
of :meth:`Alignment.to_matrix`). Two item sets are offered:

- :func:`cell_ratings` — every cell of every pair's ``N×M`` grid (dominated by ``none``);
- :func:`brockett_items` — Brockett's (2007) recipe for the RTE-2 alignments, as the released
  files reproduce it: one item per hypothesis-side link (text word, hypothesis word) proposed by
  any annotator; one item per hypothesis token that some annotator left unaligned (its null link);
  one item per pair for the tool's ``NULL`` token (plus one per link of ``NULL`` if an annotator
  made any). Each annotator labels each item sure, possible or none; an unproposed link and a null
  link both count as none. On the RTE-2 dev files this gives 13,163 items and Fleiss' κ = 0.7336
  (his 0.73364).

Each statistic returns ``None`` (with a reason) when it is undefined, e.g. when chance agreement is
1 because every rating falls into one category.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from itertools import combinations
from typing import Any

import numpy as np
import numpy.typing as npt

from scoring.corpus import PairRecord
from scoring.errors import InputError
from scoring.records import Record

CATEGORIES: tuple[str, ...] = ("none", "possible", "sure")
NONE, POSSIBLE, SURE = 0, 1, 2
MISSING = -1

IntArray = npt.NDArray[np.int64]


@dataclass(frozen=True, slots=True)
class AgreementStatistic:
    """One labelled statistic with the quantities it was computed from."""

    statistic: str
    value: float | None
    observed: float | None
    expected: float | None
    items: int
    raters: list[str]
    categories: list[str]
    undefined_reason: str = ""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _as_ratings(ratings: npt.ArrayLike, n_categories: int, *, allow_missing: bool) -> IntArray:
    arr = np.asarray(ratings)
    if arr.ndim != 2:
        raise InputError(f"ratings must be a 2-D (items × raters) array, got shape {arr.shape}")
    if arr.size and not np.issubdtype(arr.dtype, np.integer):
        raise InputError("ratings must be integer category codes")
    arr = arr.astype(np.int64)
    low = MISSING if allow_missing else 0
    bad = (arr < low) | (arr >= n_categories)
    if bad.any():
        item, rater = (int(v) for v in np.argwhere(bad)[0])
        raise InputError(
            f"item {item}, rater {rater}: category code {arr[item, rater]} is not in "
            f"0..{n_categories - 1}" + (" or -1 (missing)" if allow_missing else "")
        )
    return arr


def _finish(
    name: str,
    observed: float | None,
    expected: float | None,
    items: int,
    raters: Sequence[str],
    categories: Sequence[str],
) -> AgreementStatistic:
    if observed is None or expected is None:
        return AgreementStatistic(
            name, None, observed, expected, items, list(raters), list(categories), "no items"
        )
    if expected >= 1.0:
        return AgreementStatistic(
            name,
            None,
            observed,
            expected,
            items,
            list(raters),
            list(categories),
            "chance agreement is 1 (every rating is in one category)",
        )
    value = (observed - expected) / (1.0 - expected)
    return AgreementStatistic(
        name, value, observed, expected, items, list(raters), list(categories)
    )


def cohen_kappa(
    a: npt.ArrayLike,
    b: npt.ArrayLike,
    *,
    categories: Sequence[str] = CATEGORIES,
    raters: tuple[str, str] = ("A", "B"),
) -> AgreementStatistic:
    """Cohen's κ of two raters' category codes (1-D arrays of equal length)."""
    x = np.asarray(a)
    y = np.asarray(b)
    if x.shape != y.shape or x.ndim != 1:
        raise InputError(
            f"two 1-D rating arrays of equal length expected, got {x.shape}, {y.shape}"
        )
    k = len(categories)
    ratings = _as_ratings(np.stack([x, y], axis=1), k, allow_missing=False)
    n = ratings.shape[0]
    if n == 0:
        return _finish("Cohen's kappa", None, None, 0, raters, categories)
    table = np.zeros((k, k), np.int64)
    np.add.at(table, (ratings[:, 0], ratings[:, 1]), 1)
    observed = float(np.trace(table)) / n
    expected = float((table.sum(axis=1) * table.sum(axis=0)).sum()) / (n * n)
    return _finish("Cohen's kappa", observed, expected, n, raters, categories)


def fleiss_kappa_from_counts(
    counts: npt.ArrayLike,
    *,
    categories: Sequence[str] | None = None,
    raters: Sequence[str] = (),
) -> AgreementStatistic:
    """Fleiss' κ from an ``(items, categories)`` table of how many raters chose each category.

    Every item must have the same number of ratings (at least 2).
    """
    table = np.asarray(counts, dtype=np.int64)
    if table.ndim != 2:
        raise InputError(f"counts must be 2-D (items × categories), got shape {table.shape}")
    if (table < 0).any():
        raise InputError("counts must be non-negative")
    cats = list(categories) if categories is not None else [str(c) for c in range(table.shape[1])]
    items = table.shape[0]
    if items == 0:
        return _finish("Fleiss' kappa", None, None, 0, raters, cats)
    per_item = table.sum(axis=1)
    n = int(per_item[0])
    if (per_item != n).any() or n < 2:
        raise InputError("Fleiss' kappa needs the same number (≥ 2) of ratings on every item")
    agree = (table * (table - 1)).sum(axis=1) / (n * (n - 1))
    observed = float(agree.mean())
    shares = table.sum(axis=0) / (items * n)
    expected = float((shares**2).sum())
    return _finish("Fleiss' kappa", observed, expected, items, raters, cats)


def fleiss_kappa(
    ratings: npt.ArrayLike,
    *,
    categories: Sequence[str] = CATEGORIES,
    raters: Sequence[str] = (),
) -> AgreementStatistic:
    """Fleiss' κ of an ``(items, raters)`` array of category codes."""
    arr = _as_ratings(ratings, len(categories), allow_missing=False)
    counts = np.stack([(arr == c).sum(axis=1) for c in range(len(categories))], axis=1)
    names = list(raters) or [str(r) for r in range(arr.shape[1])]
    return fleiss_kappa_from_counts(
        counts.reshape(-1, len(categories)), categories=categories, raters=names
    )


def krippendorff_alpha_nominal(
    ratings: npt.ArrayLike,
    *,
    categories: Sequence[str] = CATEGORIES,
    raters: Sequence[str] = (),
) -> AgreementStatistic:
    """Krippendorff's α with the nominal metric; ``-1`` marks a missing rating.

    Coincidence-matrix form (Krippendorff 2011): items with fewer than two ratings are not
    pairable and are left out. ``observed``/``expected`` hold the *disagreements* ``D_o``/``D_e``.
    """
    arr = _as_ratings(ratings, len(categories), allow_missing=True)
    k = len(categories)
    names = list(raters) or [str(r) for r in range(arr.shape[1])]
    coincidence = np.zeros((k, k), np.float64)
    for row in arr:
        values = row[row >= 0]
        m_u = values.size
        if m_u < 2:
            continue
        counts = np.bincount(values, minlength=k).astype(np.float64)
        pairs = np.outer(counts, counts) - np.diag(counts)
        coincidence += pairs / (m_u - 1)
    total = coincidence.sum()
    if total == 0:
        return AgreementStatistic(
            "Krippendorff's alpha (nominal)", None, None, None, 0, names, list(categories),
            "no item has two ratings",
        )  # fmt: skip
    marginals = coincidence.sum(axis=0)
    d_o = float((total - np.trace(coincidence)) / total)
    d_e = float((total * total - (marginals**2).sum()) / (total * (total - 1)))
    items = int(((arr >= 0).sum(axis=1) >= 2).sum())
    if d_e == 0.0:
        return AgreementStatistic(
            "Krippendorff's alpha (nominal)", None, d_o, d_e, items, names, list(categories),
            "expected disagreement is 0 (every rating is in one category)",
        )  # fmt: skip
    return AgreementStatistic(
        "Krippendorff's alpha (nominal)", 1.0 - d_o / d_e, d_o, d_e, items, names,
        list(categories),
    )  # fmt: skip


# --- item sets ---------------------------------------------------------------------------------


def _annotated(records: Sequence[PairRecord], annotators: Sequence[str]) -> list[PairRecord]:
    if len(annotators) < 2:
        raise InputError("agreement needs at least two annotators")
    return [r for r in records if all(a in r.annotations for a in annotators)]


def cell_ratings(records: Sequence[PairRecord], annotators: Sequence[str]) -> IntArray:
    """``(cells, raters)`` codes (0 none, 1 possible, 2 sure) over every cell of every pair that
    all ``annotators`` annotated."""
    blocks = []
    for record in _annotated(records, annotators):
        grids = [record.annotations[a].alignment.to_matrix().ravel() for a in annotators]
        blocks.append(np.stack(grids, axis=1).astype(np.int64))
    if not blocks:
        return np.zeros((0, len(annotators)), np.int64)
    return np.concatenate(blocks, axis=0)


def _label(
    alignment_sure: set[tuple[int, int]],
    alignment_poss: set[tuple[int, int]],
    link: tuple[int, int],
) -> int:
    if link in alignment_sure:
        return SURE
    if link in alignment_poss:
        return POSSIBLE
    return NONE


def brockett_items(records: Sequence[PairRecord], annotators: Sequence[str]) -> IntArray:
    """``(items, raters)`` codes following Brockett's (2007) RTE-2 recipe (see the module doc).

    Links are ``(text index, hypothesis index)`` as :func:`scoring.formats.rte2.read_rte2` gives
    them (source = text, target = hypothesis); the ``NULL`` token's links come from
    ``record.metadata["rte2"]["null"][annotator]`` when present.
    """
    rows: list[list[int]] = []
    for record in _annotated(records, annotators):
        aligns = [record.annotations[a].alignment for a in annotators]
        sure = [set(al.sure) for al in aligns]
        poss = [set(al.possible) for al in aligns]
        for link in sorted(set().union(*poss)):
            rows.append([_label(s, p, link) for s, p in zip(sure, poss, strict=True)])
        aligned_targets = [{j for _, j in p} for p in poss]
        for j in range(len(record.target_tokens)):
            if any(j not in targets for targets in aligned_targets):
                rows.append([NONE] * len(annotators))
        null = record.metadata.get("rte2", {}).get("null", {})
        null_sure = [set(null.get(a, {}).get("sure", [])) for a in annotators]
        null_poss = [
            set(null.get(a, {}).get("possible", [])) | ns
            for a, ns in zip(annotators, null_sure, strict=True)
        ]
        for i in sorted(set().union(*null_poss)):
            rows.append(
                [
                    SURE if i in ns else POSSIBLE if i in np_ else NONE
                    for ns, np_ in zip(null_sure, null_poss, strict=True)
                ]
            )
        rows.append([NONE] * len(annotators))
    return np.asarray(rows, dtype=np.int64).reshape(-1, len(annotators))


def cell_agreement(
    records: Sequence[PairRecord],
    annotators: Sequence[str],
    *,
    items: str = "cells",
) -> dict[str, Any]:
    """Fleiss' κ, Krippendorff's α and pairwise Cohen's κ over alignment cells.

    ``items="cells"`` uses every grid cell; ``items="brockett"`` Brockett's (2007) item recipe.
    """
    if items == "cells":
        ratings = cell_ratings(records, annotators)
        label = "every cell of each pair's grid"
    elif items == "brockett":
        ratings = brockett_items(records, annotators)
        label = "Brockett (2007): proposed hypothesis-side links + null links + NULL token"
    else:
        raise InputError(f"items must be 'cells' or 'brockett', got {items!r}")
    names = list(annotators)
    out: dict[str, Any] = {
        "items": label,
        "n_items": int(ratings.shape[0]),
        "categories": list(CATEGORIES),
        "fleiss_kappa": fleiss_kappa(ratings, raters=names).to_dict(),
        "krippendorff_alpha_nominal": krippendorff_alpha_nominal(ratings, raters=names).to_dict(),
        "cohen_kappa": [],
    }
    for x, y in combinations(range(len(names)), 2):
        stat = cohen_kappa(ratings[:, x], ratings[:, y], raters=(names[x], names[y]))
        out["cohen_kappa"].append(stat.to_dict())
    return out


# --- per-pair statistics and bootstrap intervals ------------------------------------------------


@dataclass(frozen=True, slots=True)
class ItemStatistics:
    """Sufficient statistics of Fleiss' κ and Krippendorff's α, one row per sentence pair.

    ``agree[p]`` is pair ``p``'s sum over items of the share of agreeing rater pairs,
    ``items[p]`` its item count, ``categories[p]`` its ratings per category ``(P, k)`` and
    ``coincidence[p]`` its coincidence matrix ``(P, k, k)``; ``raters`` rate every item.
    """

    agree: npt.NDArray[np.float64]
    items: npt.NDArray[np.int64]
    categories: npt.NDArray[np.int64]
    coincidence: npt.NDArray[np.float64]
    raters: int


def item_statistics(
    blocks: Sequence[IntArray], raters: int, k: int = len(CATEGORIES)
) -> ItemStatistics:
    """Per-pair statistics of ``(items, raters)`` rating blocks (every rating present)."""
    p = len(blocks)
    agree = np.zeros(p)
    items = np.zeros(p, np.int64)
    categories = np.zeros((p, k), np.int64)
    coincidence = np.zeros((p, k, k))
    for index, block in enumerate(blocks):
        if block.shape[0] == 0:
            continue
        counts = np.stack([(block == c).sum(axis=1) for c in range(k)], axis=1)
        agree[index] = float(((counts * (counts - 1)).sum(axis=1) / (raters * (raters - 1))).sum())
        items[index] = block.shape[0]
        categories[index] = counts.sum(axis=0)
        coincidence[index] = (counts.T @ counts - np.diag(counts.sum(axis=0))) / (raters - 1)
    return ItemStatistics(agree, items, categories, coincidence, raters)


def _fleiss_from(stats: ItemStatistics, weights: npt.NDArray[np.float64]) -> float | None:
    n_items = float(weights @ stats.items)
    if n_items == 0:
        return None
    observed = float(weights @ stats.agree) / n_items
    shares = (weights @ stats.categories) / (n_items * stats.raters)
    expected = float((shares**2).sum())
    return None if expected >= 1.0 else (observed - expected) / (1.0 - expected)


def _alpha_from(stats: ItemStatistics, weights: npt.NDArray[np.float64]) -> float | None:
    coincidence = np.tensordot(weights, stats.coincidence, axes=1)
    total = float(coincidence.sum())
    if total <= 1.0:
        return None
    marginals = coincidence.sum(axis=0)
    d_o = (total - float(np.trace(coincidence))) / total
    d_e = (total * total - float((marginals**2).sum())) / (total * (total - 1))
    return None if d_e == 0.0 else 1.0 - d_o / d_e


def _interval(values: list[float | None]) -> tuple[list[float] | None, str]:
    finite = [v for v in values if v is not None]
    if len(finite) < len(values) / 2 or not finite:
        return None, "undefined in most resamples"
    low, high = np.percentile(finite, [2.5, 97.5])
    return [float(low), float(high)], ""


@dataclass(frozen=True, slots=True)
class IntervalStatistic(Record):
    """One statistic over the shared items with its 95% bootstrap percentile interval
    (``None`` with ``ci_undefined_reason`` when undefined in most resamples)."""

    name: str
    value: float | None
    ci95: list[float] | None
    undefined_reason: str
    ci_undefined_reason: str


@dataclass(frozen=True, slots=True)
class StandardAgreement(Record):
    """Fleiss' κ and Krippendorff's α (nominal) of some annotators over some items, with the
    numbers of items and pairs they rest on and the bootstrap's ``resamples`` and ``seed``."""

    items: str
    n_items: int
    n_pairs: int
    raters: list[str]
    resamples: int
    seed: int
    fleiss_kappa: IntervalStatistic
    krippendorff_alpha: IntervalStatistic


def agreement_with_intervals(
    blocks: Sequence[IntArray],
    raters: Sequence[str],
    *,
    items_label: str,
    resamples: int = 1000,
    seed: int = 0,
) -> StandardAgreement:
    """Fleiss' κ and Krippendorff's α (nominal) of per-pair rating blocks, each with the number
    of items and pairs it rests on and a 95% percentile interval from ``resamples`` bootstrap
    resamples of the pairs (``np.random.default_rng(seed)``). A statistic on no items, or whose
    chance agreement is 1, is ``None`` with the reason; never 0 or 1 by default."""
    stats = item_statistics(blocks, len(raters))
    ones = np.ones(len(blocks))
    n_items = int(stats.items.sum())
    rng = np.random.default_rng(seed)
    boot_k: list[float | None] = []
    boot_a: list[float | None] = []
    if len(blocks):
        for _ in range(resamples):
            weights = np.bincount(
                rng.integers(0, len(blocks), len(blocks)), minlength=len(blocks)
            ).astype(np.float64)
            boot_k.append(_fleiss_from(stats, weights))
            boot_a.append(_alpha_from(stats, weights))
    statistics: list[IntervalStatistic] = []
    for name, value, boot in (
        ("Fleiss' kappa", _fleiss_from(stats, ones), boot_k),
        ("Krippendorff's alpha (nominal)", _alpha_from(stats, ones), boot_a),
    ):
        if n_items == 0:
            reason = "no items shared by all annotators"
        elif value is None:
            reason = "chance agreement is 1 (every rating is in one category)"
        else:
            reason = ""
        interval, why = _interval(boot) if value is not None else (None, reason)
        statistics.append(
            IntervalStatistic(
                name=name,
                value=value,
                ci95=interval,
                undefined_reason=reason,
                ci_undefined_reason=why if interval is None else "",
            )
        )
    return StandardAgreement(
        items=items_label,
        n_items=n_items,
        n_pairs=len(blocks),
        raters=list(raters),
        resamples=resamples,
        seed=seed,
        fleiss_kappa=statistics[0],
        krippendorff_alpha=statistics[1],
    )


def brockett_blocks(records: Sequence[PairRecord], annotators: Sequence[str]) -> list[IntArray]:
    """:func:`brockett_items` per pair (one block per pair all ``annotators`` annotated)."""
    return [brockett_items([record], annotators) for record in _annotated(records, annotators)]
