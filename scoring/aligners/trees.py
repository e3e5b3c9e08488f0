"""A binary gradient-boosted tree ensemble kept as plain arrays and evaluated by a numba kernel.

scikit-learn's ``HistGradientBoostingClassifier`` trains the trees (:func:`fit_trees`, which
can report each tree and bins weighted rows itself, :mod:`scoring.aligners.tree_bins`);
:meth:`TreeEnsemble.from_sklearn` copies them into arrays (feature, threshold, children, leaf
values), so a saved model is numbers only (no pickle). The tests check the kernel against
scikit-learn's own ``predict_proba``. :func:`one_thread` is the thread limit the fits run under.
"""

from __future__ import annotations

import functools
import math
from contextlib import AbstractContextManager
from typing import Any

import numpy as np
import numpy.typing as npt
from numba import njit
from threadpoolctl import ThreadpoolController

from scoring.aligners.tree_bins import Bins, weighted_bins
from scoring.errors import InputError, ModelError
from scoring.progress import Progress

F64 = npt.NDArray[np.float64]
I64 = npt.NDArray[np.int64]


@njit(cache=True)
def _ensemble_predict(
    x: F64,
    feature: I64,
    threshold: F64,
    left: I64,
    right: I64,
    is_leaf: npt.NDArray[np.bool_],
    missing_left: npt.NDArray[np.bool_],
    value: F64,
    tree_offset: I64,
    baseline: float,
) -> F64:
    """``sigmoid(baseline + Σ_trees leaf value)`` for each row of ``x`` ``(R, F)``; node ``k`` of
    tree ``t`` is at ``tree_offset[t] + k``, children indices are tree-relative."""
    out = np.empty(x.shape[0])
    for r in range(x.shape[0]):
        raw = baseline
        for t in range(tree_offset.shape[0] - 1):
            base = tree_offset[t]
            node = 0
            while not is_leaf[base + node]:
                v = x[r, feature[base + node]]
                if math.isnan(v):
                    go_left = missing_left[base + node]
                else:
                    go_left = v <= threshold[base + node]
                node = left[base + node] if go_left else right[base + node]
            raw += value[base + node]
        out[r] = 1.0 / (1.0 + math.exp(-raw))
    return out


@functools.cache
def _threadpools() -> ThreadpoolController:
    """The process's thread pools (numpy's BLAS, scikit-learn's OpenMP), found once: finding
    them reads the process's memory map, 3 ms a call, which a prefill paid for every pair.

    threadpoolctl sees only the libraries loaded when it looks, so scikit-learn's OpenMP
    runtime is loaded first: in a fresh process (a new worker's first retraining) the tree
    fits would otherwise use a thread per core, and on two cores shared with other work such a
    fit took ten times as long as on one thread."""
    import sklearn.ensemble  # noqa: F401  (loads the OpenMP runtime that the fits use)

    return ThreadpoolController()


def one_thread() -> AbstractContextManager[Any]:
    """A context that runs numpy's BLAS and scikit-learn's OpenMP on one thread each, as
    training and the encoder do: on two cores shared with other work a tree fit took 45 s with
    a thread per core, 3.3 s with one; a sentence's encoding 390 ms against 26 ms."""
    limiter: AbstractContextManager[Any] = _threadpools().limit(limits=1)
    return limiter


class TreeEnsemble:
    """A binary gradient-boosted tree ensemble as plain arrays."""

    KEYS = ("feature", "threshold", "left", "right", "is_leaf", "missing_left", "value", "offset")

    def __init__(self, arrays: dict[str, npt.NDArray[Any]], baseline: float) -> None:
        self.feature = np.ascontiguousarray(arrays["feature"], dtype=np.int64)
        self.threshold = np.ascontiguousarray(arrays["threshold"], dtype=np.float64)
        self.left = np.ascontiguousarray(arrays["left"], dtype=np.int64)
        self.right = np.ascontiguousarray(arrays["right"], dtype=np.int64)
        self.is_leaf = np.ascontiguousarray(arrays["is_leaf"], dtype=np.bool_)
        self.missing_left = np.ascontiguousarray(arrays["missing_left"], dtype=np.bool_)
        self.value = np.ascontiguousarray(arrays["value"], dtype=np.float64)
        self.offset = np.ascontiguousarray(arrays["offset"], dtype=np.int64)
        self.baseline = float(baseline)

    @classmethod
    def from_sklearn(
        cls, model: Any, bins: Bins | None = None, columns: I64 | None = None
    ) -> TreeEnsemble:
        """Copy the trees of a fitted binary ``HistGradientBoostingClassifier``; with ``bins``,
        a model fitted on ``bins.codes``, whose thresholds become those of the raw values; with
        ``columns``, a model fitted on those columns of the features (split ``k`` on fitted
        column ``f`` is on feature ``columns[f]``)."""
        nodes = [predictors[0].nodes for predictors in model._predictors]
        if not nodes:
            raise ModelError("the tree ensemble has no trees")
        if any(bool(n["is_categorical"].any()) for n in nodes):
            raise ModelError("categorical splits are not supported")
        offset = np.zeros(len(nodes) + 1, dtype=np.int64)
        offset[1:] = np.cumsum([len(n) for n in nodes])
        cat: Any = np.concatenate(nodes)  # a structured array (one record per node)
        threshold, feature = cat["num_threshold"], cat["feature_idx"]
        split = ~cat["is_leaf"].astype(bool)
        if bins is not None:
            threshold = threshold.copy()
            threshold[split] = bins.thresholds(
                feature[split].astype(np.int64),
                cat["bin_threshold"][split].astype(np.int64),
                cat["missing_go_to_left"][split].astype(bool),
            )
        if columns is not None:
            feature = feature.copy()  # a leaf keeps scikit-learn's feature 0
            feature[split] = columns[feature[split]]
        arrays = {
            "feature": feature,
            "threshold": threshold,
            "left": cat["left"],
            "right": cat["right"],
            "is_leaf": cat["is_leaf"],
            "missing_left": cat["missing_go_to_left"],
            "value": cat["value"],
            "offset": offset,
        }
        return cls(arrays, float(np.ravel(model._baseline_prediction)[0]))

    def arrays(self) -> dict[str, npt.NDArray[Any]]:
        return {
            "feature": self.feature,
            "threshold": self.threshold,
            "left": self.left,
            "right": self.right,
            "is_leaf": self.is_leaf.astype(np.uint8),
            "missing_left": self.missing_left.astype(np.uint8),
            "value": self.value,
            "offset": self.offset,
        }

    def predict(self, x: npt.ArrayLike) -> F64:
        """Probability of the positive class for each row of ``x``."""
        data = np.ascontiguousarray(x, dtype=np.float64)
        if data.ndim != 2:
            raise InputError(f"features must be a 2-D array, got shape {data.shape}")
        if self.feature.size and data.shape[1] <= int(self.feature.max()):
            raise InputError(f"the model needs more than {data.shape[1]} features")
        return _ensemble_predict(
            data,
            self.feature,
            self.threshold,
            self.left,
            self.right,
            self.is_leaf,
            self.missing_left,
            self.value,
            self.offset,
            self.baseline,
        )


def fit_trees(
    model: Any,
    x: npt.ArrayLike,
    y: npt.ArrayLike,
    sample_weight: npt.ArrayLike | None = None,
    progress: Progress | None = None,
) -> TreeEnsemble:
    """Fit ``model``, a ``HistGradientBoostingClassifier`` made with ``early_stopping=False``,
    telling ``progress`` when it starts (binning the features takes a while on many rows) and
    after each tree; returns its trees.

    Columns no tree can split on are left out (:func:`varying_columns`), and weighted rows are
    binned by :func:`~scoring.aligners.tree_bins.weighted_bins` (the thresholds scikit-learn
    would find, many times faster) and scikit-learn fits the bins' codes; the trees are those
    of a plain fit on ``x`` (checked by the tests).

    scikit-learn offers no callback here, but its early stopping scores the model after every
    tree with a callable ``scoring`` of our own: on the training data (no validation split, so
    every row still trains) and with a patience longer than the trees, so it never stops and
    the trees are those of a plain fit (checked by the tests). The score itself is unused."""
    if progress is not None:
        trees, scored, report = int(model.max_iter), [0], progress
        report(0.0, f"binning {np.shape(y)[0]:,} cells")

        def each_tree(estimator: Any, x_part: Any, y_part: Any, sample_weight: Any = None) -> float:
            if scored[0]:  # the first call scores the model before its first tree
                report(scored[0] / trees, f"tree {scored[0]} of {trees}")
            scored[0] += 1
            return 0.0

        model.set_params(
            early_stopping=True,
            scoring=each_tree,
            validation_fraction=None,
            n_iter_no_change=trees + 1,
        )
    # what varying_columns and weighted_bins assume of the model and the features
    known = (
        isinstance(x, np.ndarray)
        and x.ndim == 2
        and model.categorical_features in (None, "from_dtype")
        and model.max_features == 1.0
        and model.interaction_cst is None
        and model.monotonic_cst is None
    )
    if not known:
        model.fit(x, y, sample_weight=sample_weight)
        return TreeEnsemble.from_sklearn(model)
    data = np.asarray(x, dtype=np.float64)
    columns = varying_columns(data)
    data = data[:, columns]
    bins = None
    if sample_weight is not None and model.class_weight is None:  # class weights change them
        bins = weighted_bins(data, sample_weight, int(model.max_bins))
    model.fit(data if bins is None else bins.codes, y, sample_weight=sample_weight)
    return TreeEnsemble.from_sklearn(model, bins, columns)


def varying_columns(x: F64) -> I64:
    """The columns of ``x`` a tree can split on: those with two values or a missing one (all
    of them if none has). The others change no fit: scikit-learn finds no split in them, and
    without their histograms it grows the same trees faster."""
    missing = np.isnan(x).any(axis=0)
    present = np.where(missing, 0.0, x)
    constant = ~missing & (
        present.min(axis=0, initial=np.inf) == present.max(axis=0, initial=-np.inf)
    )
    kept = np.flatnonzero(~constant)
    return kept if kept.size else np.arange(x.shape[1])
