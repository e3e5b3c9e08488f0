"""RBF-SVM classifier and regressor on MT-metric features (scoring.mt.classifier): agreement with
scikit-learn's own decision function, seeded cross-validation, the JSON round trip, the
evaluation measures against hand-computed values and scipy, and bad input."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import MinMaxScaler, StandardScaler
from sklearn.svm import SVC, SVR

from scoring.errors import FormatError, InputError, ScoringError
from scoring.mt.classifier import (
    MtClassifier,
    MtRegressor,
    classification_report,
)
from scoring.persistence import read_json, save_json
from scoring.scorers.options import SvmOptions

NAMES = ("PER", "BLEU1", "NIST1")
SMALL_GRID = {"c_grid": (0.5, 5.0), "gamma_factors": (0.5, 2.0), "folds": 3}


def small(**options: object) -> SvmOptions:
    """A small search (two values of C and of γ, 3 folds) with ``options``."""
    return SvmOptions.from_dict({**SMALL_GRID, **options})


def circles(seed: int, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Label 1 inside a ball, 0 outside, features on different scales: an RBF problem."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 3)) * np.array([1.0, 10.0, 0.1]) + np.array([0.0, 50.0, 1.0])
    z = (x - np.array([0.0, 50.0, 1.0])) / np.array([1.0, 10.0, 0.1])
    y = (np.sum(z**2, axis=1) < 2.4).astype(np.int64)
    return x, y


@pytest.fixture(scope="module")
def fitted() -> MtClassifier:
    x, y = circles(seed=1, n=150)
    return MtClassifier(NAMES, small(seed=4)).fit(x, y)


def test_it_learns_a_nonlinear_boundary(fitted: MtClassifier) -> None:
    x, y = circles(seed=2, n=300)
    assert fitted.score(x, y) > 0.85
    assert fitted.hyperparameters["C"] in SMALL_GRID["c_grid"]
    assert 0.5 < fitted.cv_score <= 1.0


@pytest.mark.parametrize("scaling", ["standard", "minmax", "none"])
def test_its_decisions_equal_scikit_learns_for_the_chosen_settings(scaling: str) -> None:
    x, y = circles(seed=1, n=150)
    model = MtClassifier(NAMES, small(seed=4, scaling=scaling)).fit(x, y)
    steps = {"standard": [StandardScaler()], "minmax": [MinMaxScaler()], "none": []}[scaling]
    gamma = model.hyperparameters["gamma"]
    reference = make_pipeline(*steps, SVC(C=model.hyperparameters["C"], gamma=gamma)).fit(x, y)
    test, _ = circles(seed=3, n=200)
    np.testing.assert_allclose(
        model.decision_function(test), reference.decision_function(test), rtol=0, atol=1e-9
    )
    assert np.array_equal(model.predict(test), reference.predict(test))


def test_the_same_seed_gives_the_same_model_and_another_seed_other_folds() -> None:
    x, y = circles(seed=1, n=150)
    one = MtClassifier(NAMES, small(seed=9)).fit(x, y)
    two = MtClassifier(NAMES, small(seed=9)).fit(x, y)
    assert one.to_dict() == two.to_dict()
    other = MtClassifier(NAMES, small(seed=10)).fit(x, y)
    assert other.cv_score != one.cv_score


def test_a_saved_classifier_predicts_identically_after_loading(
    fitted: MtClassifier, tmp_path: Path
) -> None:
    path = save_json(fitted, tmp_path / "model.json")
    loaded = MtClassifier.from_dict(read_json(path), path=path)
    x, _ = circles(seed=5, n=400)
    assert np.array_equal(loaded.decision_function(x), fitted.decision_function(x))
    assert np.array_equal(loaded.predict(x), fitted.predict(x))
    assert loaded.feature_names == NAMES
    assert loaded.hyperparameters == fitted.hyperparameters
    assert loaded.to_dict() == fitted.to_dict()
    assert "pickle" not in path.read_text() and json.loads(path.read_text())["kind"] == "classifier"


def test_the_regressor_fits_scores_and_survives_a_round_trip(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    x = rng.uniform(-2, 2, size=(120, 2))
    y = np.sin(x[:, 0]) * 2 + x[:, 1] ** 2 + rng.normal(scale=0.05, size=120)
    model = MtRegressor(["WER", "PER"], small(seed=1, epsilon_grid=(0.1,))).fit(x, y)
    test = rng.uniform(-2, 2, size=(200, 2))
    truth = np.sin(test[:, 0]) * 2 + test[:, 1] ** 2
    assert model.score(test, truth) > 0.9
    params = model.hyperparameters
    reference = make_pipeline(
        StandardScaler(), SVR(C=params["C"], gamma=params["gamma"], epsilon=params["epsilon"])
    ).fit(x, y)
    np.testing.assert_allclose(model.predict(test), reference.predict(test), rtol=0, atol=1e-9)
    loaded = MtRegressor.from_dict(read_json(save_json(model, tmp_path / "svr.json")))
    assert np.array_equal(loaded.predict(test), model.predict(test))


# --- evaluation --------------------------------------------------------------------------------


def test_the_classification_report_matches_hand_counts() -> None:
    # tp = 2, fp = 1, fn = 1, tn = 1.
    report = classification_report([1, 1, 1, 0, 0], [1, 1, 0, 1, 0])
    assert report["accuracy"] == pytest.approx(60.0)
    assert report["precision"] == pytest.approx(200 / 3)
    assert report["recall"] == pytest.approx(200 / 3)
    assert report["f1"] == pytest.approx(200 / 3)


# --- bad input ---------------------------------------------------------------------------------


def test_it_rejects_a_matrix_with_the_wrong_number_of_columns(fitted: MtClassifier) -> None:
    with pytest.raises(InputError, match=r"shape \(N, 3\).*got shape \(4, 2\)"):
        fitted.predict(np.zeros((4, 2)))


def test_it_rejects_non_finite_features_naming_row_and_feature(fitted: MtClassifier) -> None:
    x = np.zeros((3, 3))
    x[2, 1] = np.nan
    with pytest.raises(InputError, match="row 2: feature 'BLEU1' is not finite"):
        fitted.predict(x)


def test_it_rejects_labels_of_another_length_or_a_single_class() -> None:
    x, y = circles(seed=1, n=40)
    with pytest.raises(InputError, match="40 feature rows but 39 labels"):
        MtClassifier(NAMES, small()).fit(x, y[:-1])
    with pytest.raises(InputError, match="exactly two labels"):
        MtClassifier(NAMES, small()).fit(x, np.ones(40, np.int64))
    with pytest.raises(InputError, match="0 gold values but 1 predictions"):
        classification_report([], [1])


def test_an_unfitted_model_says_so() -> None:
    with pytest.raises(ScoringError, match="has not been fitted"):
        MtClassifier(NAMES).predict(np.zeros((1, 3)))


def test_loading_a_damaged_file_names_the_file_and_field(
    fitted: MtClassifier, tmp_path: Path
) -> None:
    data = fitted.to_dict()
    data["svm"]["dual_coef"] = data["svm"]["dual_coef"][:-1]
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    with pytest.raises(FormatError, match=r"bad\.json: field 'svm\.support_vectors'"):
        MtClassifier.from_dict(read_json(path), path=path)
    path.write_text("{not json")
    with pytest.raises(FormatError, match=r"bad\.json:1: not a JSON model file"):
        read_json(path)
    with pytest.raises(FormatError, match="field 'kind': expected a regressor"):
        MtRegressor.from_dict(fitted.to_dict())
    data = fitted.to_dict()
    data["scaling"] = "log"
    with pytest.raises(FormatError, match=r"field 'scaling': .* must be one of standard"):
        MtClassifier.from_dict(data)
