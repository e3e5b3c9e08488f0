"""F1 and the correlations against scipy; undefined values are None."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import pearsonr, spearmanr

from scoring.errors import ScoringError
from scoring.measures import f1, pearson, ranks, spearman


def test_f1_is_the_harmonic_mean_and_none_when_a_part_is_undefined() -> None:
    assert f1(0.5, 1.0) == pytest.approx(2 / 3)
    assert f1(0.0, 0.0) == 0.0
    assert f1(None, 1.0) is None
    assert f1(1.0, None) is None


def test_pearson_and_spearman_agree_with_scipy() -> None:
    rng = np.random.default_rng(3)
    a, b = rng.normal(size=50), rng.integers(0, 5, size=50).astype(float)
    assert pearson(a, b) == pytest.approx(pearsonr(a, b)[0], rel=1e-12)
    assert spearman(a, b) == pytest.approx(spearmanr(a, b)[0], rel=1e-12)


def test_correlations_of_a_constant_or_a_single_value_are_undefined() -> None:
    assert pearson([1.0, 1.0, 1.0], [1.0, 2.0, 3.0]) is None
    assert spearman([2.0], [1.0]) is None


def test_ties_share_their_average_rank() -> None:
    assert ranks([3.0, 1.0, 3.0, 2.0]).tolist() == [3.5, 1.0, 3.5, 2.0]


def test_series_of_different_lengths_are_refused() -> None:
    with pytest.raises(ScoringError, match="3 values with 2"):
        pearson([1.0, 2.0, 3.0], [1.0, 2.0])
