"""RBF-kernel SVMs on Finch, Hwang & Sumita's (2005) MT-metric features: a paraphrase classifier
and a score regressor.

Finch, Hwang & Sumita (2005) §4.3 classify MSRP pairs with "a support vector machine (SVM)
classifier (Vapnik, 1995) with radial basis function kernels". Here:

- :class:`MtClassifier`: scikit-learn ``SVC(kernel="rbf")`` behind a ``StandardScaler`` in a
  ``Pipeline``, for yes/no labels (MSRP); :class:`MtRegressor`: ``SVR(kernel="rbf")`` the same
  way, for graded scores (STS). ``scaling="minmax"`` scales to [0, 1] instead (libsvm's advice),
  ``"none"`` keeps raw features. The paper gives no hyper-parameters; ``C`` and ``γ`` (and
  SVR's ``ε``) are chosen by k-fold cross-validation *on the training set only* (stratified for
  the classifier), the folds shuffled by a generator seeded from ``seed``. ``γ`` is searched as
  a multiple of ``1 / n_features`` (scikit-learn's ``"scale"`` on standardised data).
- A fitted model is reduced to plain arrays: the scaler's mean and scale, the support vectors,
  the dual coefficients, the intercept and ``γ``. Prediction always goes through these arrays,
  ``f(x) = Σ_i α_i exp(−γ ‖z − sv_i‖²) + b`` with ``z = (x − mean) / scale`` (the classifier
  says ``classes[1]`` when ``f(x) > 0``), so a model gives the same figures before and after
  :meth:`~MtClassifier.to_dict` / :meth:`~MtClassifier.from_dict`, which give and take JSON
  values (floats written by ``repr`` read back exactly; no pickle, so loading never runs code).
- The search's settings are :class:`~scoring.scorers.options.SvmOptions`.
- :func:`classification_report` (accuracy, precision, recall, F1 of the positive class, as
  Finch, Hwang & Sumita's (2005) Tables 2–3) and :func:`scoring.measures.pearson` (STS)
  evaluate predictions.

Inputs are float64 feature matrices ``(N, F)`` with the model's :attr:`feature_names` as
columns (:func:`scoring.mt.features.mt_features` gives them).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Self

import numpy as np
import numpy.typing as npt

from scoring.errors import FormatError, InputError, ModelError, OptionsError
from scoring.measures import f1, pearson
from scoring.progress import Progress
from scoring.scorers.options import SvmOptions

F64 = npt.NDArray[np.float64]
I64 = npt.NDArray[np.int64]

FORMAT = "scoring.mt.classifier"
FORMAT_VERSION = 1


# --- evaluation --------------------------------------------------------------------------------


def _vector(values: object, what: str) -> F64:
    try:
        out = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError) as error:
        raise InputError(f"{what} must be numbers: {error}") from error
    if out.ndim != 1:
        raise InputError(f"{what} must be one-dimensional, got shape {out.shape}")
    return out


def _same_length(a: F64, b: F64) -> None:
    if a.shape[0] != b.shape[0]:
        raise InputError(f"{a.shape[0]} gold values but {b.shape[0]} predictions")
    if a.shape[0] == 0:
        raise InputError("no values to evaluate")


def cross_validation_refusal(
    targets: Sequence[float] | npt.NDArray[Any], *, folds: int, classification: bool
) -> str | None:
    """Why ``folds``-fold cross-validation cannot run on ``targets``, or ``None``: a classifier
    needs exactly two labels with ``folds`` pairs of each (its folds are stratified), a
    regressor ``2 · folds`` pairs. The SVMs' and the ridge model's ``fit`` apply it, and a
    training request is refused by it before it is queued."""
    values = np.asarray(targets, dtype=np.float64).reshape(-1)
    if not classification:
        if values.shape[0] < 2 * folds:
            return f"{folds}-fold cross-validation needs ≥ {2 * folds} pairs, got {values.shape[0]}"
        return None
    classes, counts = np.unique(values, return_counts=True)
    shown = [int(c) if float(c).is_integer() else float(c) for c in classes]
    if classes.shape[0] != 2:
        return f"a classifier needs exactly two labels, got {shown}"
    if int(counts.min()) < folds:
        got = " and ".join(f"{n} of label {c}" for c, n in zip(shown, counts.tolist(), strict=True))
        return f"{folds}-fold cross-validation needs ≥ {folds} pairs of each label, got {got}"
    return None


def classification_report(
    gold: Sequence[int] | I64, predicted: Sequence[int] | I64
) -> dict[str, float]:
    """Accuracy, precision, recall and F-measure of the positive class (label 1), in percent,
    as Finch, Hwang & Sumita 2005 reports them."""
    g = _vector(gold, "gold labels")
    p = _vector(predicted, "predicted labels")
    _same_length(g, p)
    tp = float(np.sum((g == 1) & (p == 1)))
    precision = tp / float(np.sum(p == 1)) if np.any(p == 1) else 0.0
    recall = tp / float(np.sum(g == 1)) if np.any(g == 1) else 0.0
    f_measure = f1(precision, recall) or 0.0
    return {
        "accuracy": 100.0 * float(np.mean(g == p)),
        "precision": 100.0 * precision,
        "recall": 100.0 * recall,
        "f1": 100.0 * f_measure,
    }


class _SearchStopped(BaseException):
    """A progress report raised inside the grid search. scikit-learn scores a fit that raises an
    ``Exception`` as NaN and goes on with the rest of the grid (a cancelled job went on fitting
    to the end); a ``BaseException`` passes through it and is unwrapped to ``error``."""

    def __init__(self, error: Exception) -> None:
        super().__init__(str(error))
        self.error = error


# --- the fitted parameters ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RbfParameters:
    """A fitted RBF SVM as arrays: ``mean``/``scale`` ``(F,)`` of the standardiser,
    ``support_vectors`` ``(S, F)`` in standardised units, ``dual_coef`` ``(S,)``,
    ``intercept`` and ``gamma`` (per squared standardised unit)."""

    mean: F64
    scale: F64
    support_vectors: F64
    dual_coef: F64
    intercept: float
    gamma: float

    def decision(self, x: F64) -> F64:
        """``f(x)`` for every row of ``x`` ``(N, F)``: float64 ``(N,)``."""
        z = (x - self.mean) / self.scale
        # ‖z − sv‖² = ‖z‖² + ‖sv‖² − 2 z·sv, as libsvm computes it; clipped at 0 against
        # rounding.
        d2 = (
            np.einsum("ij,ij->i", z, z)[:, None]
            + np.einsum("ij,ij->i", self.support_vectors, self.support_vectors)[None, :]
            - 2.0 * (z @ self.support_vectors.T)
        )
        np.maximum(d2, 0.0, out=d2)
        out: F64 = np.exp(-self.gamma * d2) @ self.dual_coef + self.intercept
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "mean": self.mean.tolist(),
            "scale": self.scale.tolist(),
            "support_vectors": self.support_vectors.tolist(),
            "dual_coef": self.dual_coef.tolist(),
            "intercept": self.intercept,
            "gamma": self.gamma,
        }

    @classmethod
    def from_dict(
        cls, data: Mapping[str, Any], n_features: int, path: Path | None = None
    ) -> RbfParameters:
        def array(field: str, ndim: int) -> F64:
            try:
                out = np.asarray(data[field], dtype=np.float64)
            except KeyError:
                raise FormatError("missing", path=path, field=f"svm.{field}") from None
            except (TypeError, ValueError) as error:
                raise FormatError(
                    f"not numbers: {error}", path=path, field=f"svm.{field}"
                ) from None
            if out.ndim != ndim or not np.all(np.isfinite(out)):
                raise FormatError(
                    f"expected a finite {ndim}-d array", path=path, field=f"svm.{field}"
                )
            return np.ascontiguousarray(out)

        def number(field: str) -> float:
            value = data.get(field)
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise FormatError("expected a number", path=path, field=f"svm.{field}")
            if not math.isfinite(value):
                raise FormatError("expected a finite number", path=path, field=f"svm.{field}")
            return float(value)

        params = cls(
            array("mean", 1),
            array("scale", 1),
            array("support_vectors", 2),
            array("dual_coef", 1),
            number("intercept"),
            number("gamma"),
        )
        if params.mean.shape != (n_features,) or params.scale.shape != (n_features,):
            raise FormatError(
                f"the scaler needs {n_features} values (one per feature)",
                path=path,
                field="svm.mean",
            )
        if np.any(params.scale <= 0):
            raise FormatError("scales must be positive", path=path, field="svm.scale")
        s = params.support_vectors.shape
        if s[1] != n_features or params.dual_coef.shape != (s[0],):
            raise FormatError(
                f"support vectors {s} do not fit {n_features} features and "
                f"{params.dual_coef.shape[0]} dual coefficients",
                path=path,
                field="svm.support_vectors",
            )
        return params


# --- models ------------------------------------------------------------------------------------


class _RbfModel:
    kind: ClassVar[str]

    def __init__(self, feature_names: Sequence[str], options: SvmOptions | None = None) -> None:
        if isinstance(feature_names, str) or not feature_names:
            raise InputError("feature_names must be a non-empty sequence of names")
        if len(set(feature_names)) != len(feature_names):
            raise InputError("feature names repeat")
        self.feature_names: tuple[str, ...] = tuple(feature_names)
        self.options = options if options is not None else SvmOptions()
        self.params: RbfParameters | None = None
        self.hyperparameters: dict[str, float] = {}
        self.cv_score: float = math.nan

    # -- input checks

    def _matrix(self, x: object) -> F64:
        try:
            m = np.ascontiguousarray(x, dtype=np.float64)
        except (TypeError, ValueError) as error:
            raise InputError(f"features must be numbers: {error}") from error
        if m.ndim != 2 or m.shape[1] != len(self.feature_names):
            raise InputError(
                f"expected a feature matrix of shape (N, {len(self.feature_names)}) "
                f"({', '.join(self.feature_names[:3])}…), got shape {m.shape}"
            )
        if m.shape[0] == 0:
            raise InputError("the feature matrix has no rows")
        bad = np.argwhere(~np.isfinite(m))
        if bad.size:
            row, col = (int(v) for v in bad[0])
            raise InputError(
                f"row {row}: feature '{self.feature_names[col]}' is not finite ({m[row, col]})"
            )
        return m

    def _fitted(self) -> RbfParameters:
        if self.params is None:
            raise ModelError(f"this {type(self).__name__} has not been fitted")
        return self.params

    # -- training

    @property
    def folds(self) -> int:
        return self.options.folds

    def _search(
        self,
        x: F64,
        y: F64,
        estimator: Any,
        grid: dict[str, list[Any]],
        cv: Any,
        scoring: Any,
        progress: Progress | None = None,
    ) -> Any:
        from sklearn.metrics import check_scoring
        from sklearn.model_selection import GridSearchCV, ParameterGrid
        from sklearn.pipeline import Pipeline
        from sklearn.preprocessing import FunctionTransformer, MinMaxScaler, StandardScaler

        scaler: Any = {
            "standard": StandardScaler(),
            "minmax": MinMaxScaler(),
            "none": FunctionTransformer(),
        }[self.options.scaling]
        pipeline = Pipeline([("scale", scaler), ("svm", estimator)])
        gammas = [factor / x.shape[1] for factor in self.options.gamma_factors]
        param_grid = {"svm__C": list(self.options.c_grid), "svm__gamma": gammas, **grid}
        if progress is not None:
            # The grid's scores are computed one fit after another (n_jobs=1): counting them
            # tells how far the search is.
            fits = len(ParameterGrid(param_grid)) * cv.get_n_splits()
            scorer, scored, report = check_scoring(pipeline, scoring), [0], progress

            def counted(model: Any, x_part: F64, y_part: F64) -> float:
                scored[0] += 1
                try:
                    report(scored[0] / (fits + 1), f"SVM grid search: fit {scored[0]} of {fits}")
                except Exception as stop:
                    raise _SearchStopped(stop) from stop
                return float(scorer(model, x_part, y_part))

            scoring = counted

        search = GridSearchCV(pipeline, param_grid, cv=cv, scoring=scoring, n_jobs=1, refit=True)
        try:
            search.fit(x, y)
        except _SearchStopped as stopped:
            raise stopped.error from None
        best = search.best_estimator_
        fitted, svm = best.named_steps["scale"], best.named_steps["svm"]
        # Every scaling is z = (x − mean) / scale.
        if self.options.scaling == "standard":
            mean, scale = fitted.mean_, fitted.scale_
        elif self.options.scaling == "minmax":
            mean, scale = fitted.data_min_, 1.0 / fitted.scale_
        else:
            mean, scale = np.zeros(x.shape[1]), np.ones(x.shape[1])
        self.params = RbfParameters(
            mean=np.ascontiguousarray(mean, dtype=np.float64),
            scale=np.ascontiguousarray(scale, dtype=np.float64),
            support_vectors=np.ascontiguousarray(svm.support_vectors_, dtype=np.float64),
            dual_coef=np.ascontiguousarray(svm.dual_coef_[0], dtype=np.float64),
            intercept=float(svm.intercept_[0]),
            gamma=float(svm._gamma),
        )
        self.hyperparameters = {
            key.removeprefix("svm__"): float(value) for key, value in search.best_params_.items()
        }
        self.cv_score = float(search.best_score_)
        return best

    def _cv_seed(self) -> int:
        return int(np.random.default_rng(self.options.seed).integers(0, 2**31 - 1))

    # -- use

    def decision_function(self, x: object) -> F64:
        """``f(x)`` of every row: the SVM's signed distance (classifier) or the score
        (regressor), float64 ``(N,)``."""
        return self._fitted().decision(self._matrix(x))

    # -- persistence

    def to_dict(self) -> dict[str, Any]:
        """The fitted model as JSON values: its search settings, the chosen hyper-parameters
        and the SVM's arrays (:class:`RbfParameters`)."""
        params = self._fitted()
        o = self.options
        return {
            "format": FORMAT,
            "version": FORMAT_VERSION,
            "kind": self.kind,
            "feature_names": list(self.feature_names),
            "seed": o.seed,
            "folds": o.folds,
            "c_grid": list(o.c_grid),
            "gamma_factors": list(o.gamma_factors),
            "scaling": o.scaling,
            "hyperparameters": self.hyperparameters,
            "cv_score": self.cv_score,
            "svm": params.to_dict(),
            **self._extra_dict(),
        }

    def _extra_dict(self) -> dict[str, Any]:
        return {}

    @classmethod
    def from_dict(cls, data: object, *, path: Path | None = None) -> Self:
        """Rebuild a fitted model from :meth:`to_dict` output; :class:`FormatError` naming the
        field at fault (``path``: the file it came from)."""
        header = _header(data, path, cls.kind)
        model = cls(header["feature_names"], _options(header, path))
        model._restore_extra(header, path)
        model.params = RbfParameters.from_dict(header["svm"], len(model.feature_names), path)
        hyper = header.get("hyperparameters", {})
        if not isinstance(hyper, Mapping):
            raise FormatError("expected an object", path=path, field="hyperparameters")
        model.hyperparameters = {str(k): float(v) for k, v in hyper.items()}
        model.cv_score = float(header.get("cv_score", math.nan))
        return model

    def _restore_extra(self, header: Mapping[str, Any], path: Path | None) -> None:
        """Restore what :meth:`_extra_dict` added."""


def _header(data: object, path: Path | None, kind: str) -> Mapping[str, Any]:
    if not isinstance(data, Mapping):
        raise FormatError("a model file must hold a JSON object", path=path)
    if data.get("format") != FORMAT:
        raise FormatError(f"not a {FORMAT} model", path=path, field="format")
    if data.get("version") != FORMAT_VERSION:
        raise FormatError(
            f"unsupported version {data.get('version')!r} (this code reads {FORMAT_VERSION})",
            path=path,
            field="version",
        )
    if data.get("kind") != kind:
        raise FormatError(f"expected a {kind}, got {data.get('kind')!r}", path=path, field="kind")
    names = data.get("feature_names")
    if not isinstance(names, list) or not names or not all(isinstance(n, str) for n in names):
        raise FormatError("expected a list of names", path=path, field="feature_names")
    if not isinstance(data.get("svm"), Mapping):
        raise FormatError("missing", path=path, field="svm")
    return data


def _options(data: Mapping[str, Any], path: Path | None) -> SvmOptions:
    """The search settings saved with a model (missing ones take their defaults)."""
    try:
        return SvmOptions.from_dict({key: data[key] for key in SvmOptions.names() if key in data})
    except OptionsError as error:
        raise FormatError(
            f"bad training settings: {error}", path=path, field=error.option
        ) from None


class MtClassifier(_RbfModel):
    """RBF-SVM paraphrase classifier (Finch, Hwang & Sumita 2005, §4.3) on standardised features.

    >>> model = MtClassifier(["PER"], seed=0).fit(x_train, y_train)  # doctest: +SKIP
    >>> classification_report(y_test, model.predict(x_test))["accuracy"]  # doctest: +SKIP
    """

    kind: ClassVar[str] = "classifier"

    def __init__(self, feature_names: Sequence[str], options: SvmOptions | None = None) -> None:
        super().__init__(feature_names, options)
        self.classes: tuple[int, int] = (0, 1)

    def fit(
        self, x: object, y: Sequence[int] | I64, *, progress: Progress | None = None
    ) -> MtClassifier:
        """Choose ``C`` and ``γ`` by stratified k-fold accuracy on ``(x, y)``, then refit on all
        of it. ``y``: two distinct integer labels. ``progress`` hears of each fit."""
        from sklearn.model_selection import StratifiedKFold
        from sklearn.svm import SVC

        m = self._matrix(x)
        labels = _vector(y, "labels")
        if labels.shape[0] != m.shape[0]:
            raise InputError(f"{m.shape[0]} feature rows but {labels.shape[0]} labels")
        if not np.all(labels == np.round(labels)):
            raise InputError("labels must be integers")
        refusal = cross_validation_refusal(labels, folds=self.folds, classification=True)
        if refusal is not None:
            raise InputError(refusal)
        cv = StratifiedKFold(self.folds, shuffle=True, random_state=self._cv_seed())
        best = self._search(
            m,
            labels.astype(np.int64),
            SVC(kernel="rbf", cache_size=500),
            {},
            cv,
            "accuracy",
            progress,
        )
        self.classes = (int(best.classes_[0]), int(best.classes_[1]))
        return self

    def predict(self, x: object) -> I64:
        """Labels of every row, int64 ``(N,)``."""
        positive = self.decision_function(x) > 0
        return np.where(positive, self.classes[1], self.classes[0]).astype(np.int64)

    def score(self, x: object, y: Sequence[int] | I64) -> float:
        """Accuracy (a fraction, as scikit-learn's ``score``)."""
        return classification_report(y, self.predict(x))["accuracy"] / 100.0

    def _extra_dict(self) -> dict[str, Any]:
        return {"classes": list(self.classes)}

    def _restore_extra(self, header: Mapping[str, Any], path: Path | None) -> None:
        classes = header.get("classes")
        if (
            not isinstance(classes, list)
            or len(classes) != 2
            or not all(isinstance(c, int) and not isinstance(c, bool) for c in classes)
        ):
            raise FormatError("expected two integer labels", path=path, field="classes")
        self.classes = (classes[0], classes[1])


class MtRegressor(_RbfModel):
    """RBF-SVR for graded similarity scores (STS) on standardised features."""

    kind: ClassVar[str] = "regressor"

    def fit(
        self, x: object, y: Sequence[float] | F64, *, progress: Progress | None = None
    ) -> MtRegressor:
        """Choose ``C``, ``γ`` and ``ε`` by k-fold Pearson correlation on ``(x, y)``, then refit
        on all of it. ``progress`` hears of each fit."""
        from sklearn.metrics import make_scorer
        from sklearn.model_selection import KFold
        from sklearn.svm import SVR

        m = self._matrix(x)
        scores = _vector(y, "scores")
        if scores.shape[0] != m.shape[0]:
            raise InputError(f"{m.shape[0]} feature rows but {scores.shape[0]} scores")
        if not np.all(np.isfinite(scores)):
            raise InputError("scores must be finite")
        refusal = cross_validation_refusal(scores, folds=self.folds, classification=False)
        if refusal is not None:
            raise InputError(refusal)
        cv = KFold(self.folds, shuffle=True, random_state=self._cv_seed())

        def correlation(gold: F64, predicted: F64) -> float:
            r = pearson(gold, predicted)
            return -1.0 if r is None else r

        self._search(
            m,
            scores,
            SVR(kernel="rbf", cache_size=500),
            {"svm__epsilon": list(self.options.epsilon_grid)},
            cv,
            make_scorer(correlation),
            progress,
        )
        return self

    def predict(self, x: object) -> F64:
        """Predicted scores, float64 ``(N,)``."""
        return self.decision_function(x)

    def score(self, x: object, y: Sequence[float] | F64) -> float | None:
        """Pearson's r of the predictions against ``y`` (``None`` if undefined)."""
        return pearson(y, self.predict(x))

    def _extra_dict(self) -> dict[str, Any]:
        return {"epsilon_grid": list(self.options.epsilon_grid)}
