"""Weighted rows binned by the project give the trees of scikit-learn's fit on the raw values."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pytest
from sklearn.ensemble import HistGradientBoostingClassifier

from scoring.aligners.tree_bins import column_thresholds, weighted_bins
from scoring.aligners.trees import TreeEnsemble, fit_trees, varying_columns

F64 = npt.NDArray[np.float64]


def _data(rows: int, seed: int) -> tuple[F64, npt.NDArray[np.int64]]:
    """Columns as the aligner's features are: continuous with ties, clipped at 1 (a mass at the
    largest value), few distinct values, a flag, missing values, a constant, a constant that is
    sometimes missing."""
    rng = np.random.default_rng(seed)
    continuous = np.round(rng.normal(size=rows), 2)
    clipped = np.minimum(rng.exponential(0.4, size=rows), 1.0)
    few = rng.integers(0, 6, size=rows).astype(np.float64)
    flag = (rng.random(rows) < 0.1).astype(np.float64)
    sparse = np.where(rng.random(rows) < 0.3, np.nan, rng.normal(size=rows))
    constant = np.full(rows, 2.0)
    constant_or_missing = np.where(rng.random(rows) < 0.2, np.nan, 1.0)
    x = np.column_stack(
        (continuous, clipped, few, flag, sparse, constant, constant_or_missing, rng.random(rows))
    )
    signal = continuous + 2 * clipped - 0.3 * few + flag + np.nan_to_num(sparse, nan=1.5)
    y = (signal + rng.normal(scale=0.7, size=rows) > 1.0).astype(np.int64)
    return x, y


def _model(max_bins: int) -> HistGradientBoostingClassifier:
    return HistGradientBoostingClassifier(
        max_iter=25,
        learning_rate=0.3,
        max_leaf_nodes=15,
        min_samples_leaf=10,
        max_bins=max_bins,
        early_stopping=False,
        random_state=0,
    )


def _assert_same_trees(ours: TreeEnsemble, theirs: TreeEnsemble) -> None:
    for key, array in theirs.arrays().items():
        np.testing.assert_array_equal(ours.arrays()[key], array, err_msg=key)
    assert ours.baseline == theirs.baseline


@pytest.mark.parametrize("max_bins", [255, 12])
@pytest.mark.parametrize("weights", ["one or five", "uniform", "none"])
def test_trees_fitted_on_our_bins_are_those_of_a_fit_on_the_raw_values(
    max_bins: int, weights: str
) -> None:
    x, y = _data(3000, seed=max_bins)
    rng = np.random.default_rng(1)
    weight = {
        "uniform": rng.uniform(0.2, 3.0, size=y.size),
        "one or five": np.where(rng.random(y.size) < 0.7, 1.0, 5.0),
        "none": None,
    }[weights]
    model = _model(max_bins)
    ours = fit_trees(model, x, y, weight)
    assert model.n_features_in_ == x.shape[1] - 1  # without the constant column
    theirs = _model(max_bins).fit(x, y, sample_weight=weight)
    _assert_same_trees(ours, TreeEnsemble.from_sklearn(theirs))
    # new rows: between and beyond the training values, on them, and missing anywhere
    test, _ = _data(2000, seed=99)
    test[:, 1] = np.where(rng.random(2000) < 0.5, test[:, 1], rng.uniform(-0.5, 1.5, 2000))
    test[rng.random(test.shape) < 0.05] = np.nan
    np.testing.assert_array_equal(ours.predict(test), theirs.predict_proba(test)[:, 1])


def _empty_bin_data() -> tuple[F64, npt.NDArray[np.int64]]:
    """Two columns whose percentiles (``max_bins`` 4: at 25, 50 and 75 % of the weight) leave a
    bin no row falls in, each with missing values.

    Column 0: of its 1,920 values, 480 are 0, 240 are 1, 720 are 2 and 480 are 3 to 9: the
    25 % ends the 0s (threshold 0.5), 50 % falls in the 2s (2) and 75 % ends them (2.5), so
    (2, 2.5] is empty. Its missing rows are negative like its values up to 2: the best split
    sends them left, found scanning right to left, which reaches the raw bin before 2.5 first.
    Column 1: mostly 3, its largest value (the rest 0 to 2.9), so its last threshold is 3 and
    no row is above; its missing rows are all positive: the best split is missing or not,
    whose raw bin is the last one holding rows (threshold 3, not infinite)."""
    rng = np.random.default_rng(5)
    counts = np.array([400, 200, 600])
    first = np.concatenate(
        (
            np.repeat([0.0, 1.0, 2.0], counts),
            rng.integers(3, 10, size=400),
            np.repeat([0.0, 1.0, 2.0], counts // 5),
            rng.integers(3, 10, size=80),
        )
    ).astype(np.float64)
    second = np.where(rng.random(1920) < 0.2, rng.integers(0, 30, size=1920) / 10, 3.0)
    second[1600:] = np.nan
    y = np.where(np.arange(1920) < 1600, first >= 3, 1).astype(np.int64)
    x = np.concatenate((np.column_stack((first, second)), np.tile([[np.nan, 1.0]], (300, 1))))
    y = np.concatenate((y, np.zeros(300, dtype=np.int64)))
    shuffled = rng.permutation(y.size)
    return x[shuffled], y[shuffled]


def test_a_bin_no_row_falls_in_keeps_the_raw_fits_thresholds() -> None:
    x, y = _empty_bin_data()
    weight = np.ones(y.size)
    bins = weighted_bins(x, weight, 4)
    assert bins is not None
    np.testing.assert_array_equal(bins.raw[0], [0.5, 2.0, 2.5])
    assert bins.present[0].tolist() == [0, 1, 3]
    assert bins.raw[1][-1] == 3.0 and bins.present[1][-1] == bins.raw[1].size - 1
    ours = fit_trees(_model(4), x, y, weight)
    theirs = _model(4).fit(x, y, sample_weight=weight)
    _assert_same_trees(ours, TreeEnsemble.from_sklearn(theirs))
    split = ~ours.is_leaf
    first, second = split & (ours.feature == 0), split & (ours.feature == 1)
    assert 2.5 in ours.threshold[first & ours.missing_left]
    assert 3.0 in ours.threshold[second & ~ours.missing_left]
    # in the empty bin and above the largest value: where another raw threshold would differ
    test = np.array([[2.2, 3.5], [2.2, 1.0], [np.nan, 3.5], [7.0, 3.5], [2.2, np.nan]])
    np.testing.assert_array_equal(ours.predict(test), theirs.predict_proba(test)[:, 1])


def test_the_columns_a_tree_can_split_on_are_kept() -> None:
    x = np.array([[1.0, 2.0, 3.0, np.nan], [1.0, 2.0, 4.0, 5.0], [1.0, 2.0, 3.0, 5.0]])
    assert varying_columns(x).tolist() == [2, 3]
    assert varying_columns(np.ones((4, 3))).tolist() == [0, 1, 2]


def test_a_column_with_few_values_is_cut_between_them() -> None:
    column = np.array([3.0, 1.0, np.nan, 1.0, 2.0, 3.0])
    np.testing.assert_array_equal(column_thresholds(column, np.ones(6), 255), [1.5, 2.5])
    assert column_thresholds(np.full(4, 7.0), np.ones(4), 255).size == 0


def test_many_values_are_cut_at_weighted_percentiles() -> None:
    """``averaged_inverted_cdf`` with weights: a percentile on a step of the cumulative weight
    takes the midpoint to the next value, otherwise the value it falls in."""
    column = np.arange(8, dtype=np.float64)
    weight = np.array([1.0, 1.0, 2.0, 4.0, 1.0, 1.0, 1.0, 1.0])  # total 12
    # max_bins 4: percentiles 25, 50, 75 → cumulative weight 3, 6, 9 of 1, 2, 4, 8, 9, 10, …
    np.testing.assert_array_equal(column_thresholds(column, weight, 4), [2.0, 3.0, 4.5])


def test_rows_scikit_learn_would_bin_otherwise_are_left_to_it() -> None:
    x, y = _data(500, seed=3)
    weight = np.ones(y.size)
    weight[7] = 0.0  # a row of no weight is binned but ignored by the thresholds
    assert weighted_bins(x, weight, 255) is None
    ours = fit_trees(_model(255), x, y, weight)
    _assert_same_trees(ours, TreeEnsemble.from_sklearn(_model(255).fit(x, y, sample_weight=weight)))
    nothing = x.copy()
    nothing[:, 2] = np.nan
    assert weighted_bins(nothing, np.ones(y.size), 255) is None
