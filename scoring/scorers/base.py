"""One interface over the similarity scorers of the four papers.

=========  ===============================================  ==========================
kind       model                                            tasks
=========  ===============================================  ==========================
``perp``   TERp edits + averaged perceptron       regression
``pfsm``   probabilistic finite-state edit model  regression
``ppda``   the same with jumps, limit 5 by default  regression
``mt``     MT-metric features + RBF SVM          regression, classification
``combined``  PERP, MT, aligner and overlap features + RBF SVM  regression, classification
=========  ===============================================  ==========================

Pairs are ``(tokens_1, tokens_2)``. ``fit(pairs, targets, progress=None)`` trains (telling
``progress``, :mod:`scoring.progress`, of each step), ``predict(pairs)`` scores
(classification: 0/1 labels). :func:`save_scorer` writes one JSON file, versioned, that
:func:`load_scorer` reads back without running code; :func:`evaluate` gives the papers'
measures: Pearson (STS), Spearman (MT evaluation), accuracy and F1 (MSRP).
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt

from scoring import __version__
from scoring.errors import FormatError, ScoringError
from scoring.measures import f1, pearson, spearman
from scoring.progress import Progress, progress_part, progress_report

TokenPair = tuple[list[str], list[str]]
F64 = npt.NDArray[np.float64]
FORMAT_NAME = "scoring-scorer"
FORMAT_VERSION = 1
TASKS = ("regression", "classification")


class ScorerError(ScoringError, ValueError):
    """A scorer cannot be built, trained or used with the given input."""


class Scorer(ABC):
    """A trainable pair scorer; subclasses wrap one model of :mod:`scoring`."""

    kind: ClassVar[str] = ""
    tasks: ClassVar[tuple[str, ...]] = ("regression",)

    def __init__(self, task: str = "regression", **options: Any) -> None:
        if task not in self.tasks:
            raise ScorerError(
                f"the {self.kind} scorer does {' and '.join(self.tasks)}, not {task!r}"
            )
        self.task = task
        self.options = options
        self.trained = False

    def fit(
        self,
        pairs: Sequence[TokenPair],
        targets: Sequence[float],
        *,
        progress: Progress | None = None,
    ) -> Scorer:
        """Train on ``pairs`` and their ``targets``; ``progress`` hears of each step."""
        checked = check_pairs(pairs)
        y = np.asarray(targets, dtype=np.float64)
        if y.shape != (len(checked),):
            raise ScorerError(f"{len(checked)} pairs but {y.size} targets")
        if not np.all(np.isfinite(y)):
            raise ScorerError("targets must be finite numbers")
        if self.task == "classification" and not np.isin(y, (0.0, 1.0)).all():
            raise ScorerError("classification targets must be 0 or 1")
        if len(checked) < 2:
            raise ScorerError("training needs at least two pairs")
        self._fit(checked, y, progress)
        self.trained = True
        return self

    def predict(self, pairs: Sequence[TokenPair]) -> F64:
        if not self.trained:
            raise ScorerError(f"the {self.kind} scorer is not trained")
        checked = check_pairs(pairs)
        if not checked:
            return np.zeros(0)
        return np.asarray(self._predict(checked), dtype=np.float64)

    def to_dict(self) -> dict[str, Any]:
        if not self.trained:
            raise ScorerError(f"the {self.kind} scorer is not trained")
        return {
            "format": FORMAT_NAME,
            "format_version": FORMAT_VERSION,
            "scoring_version": __version__,
            "kind": self.kind,
            "task": self.task,
            "options": self.options,
            "model": self._model_dict(),
        }

    @abstractmethod
    def _fit(self, pairs: list[TokenPair], targets: F64, progress: Progress | None) -> None: ...

    @abstractmethod
    def _predict(self, pairs: list[TokenPair]) -> F64: ...

    @abstractmethod
    def _model_dict(self) -> dict[str, Any]: ...

    @abstractmethod
    def _load_model(self, data: Mapping[str, Any]) -> None: ...


class PerpScorer(Scorer):
    kind = "perp"

    def _model(self) -> Any:
        from scoring.edit.perp import Perp, PerpConfig

        config = PerpConfig(**{k: v for k, v in self.options.items() if k in _PERP_OPTIONS})
        return Perp(config=config)

    def _fit(self, pairs: list[TokenPair], targets: F64, progress: Progress | None) -> None:
        self._perp = self._model().fit(pairs, list(targets), progress=progress)

    def _predict(self, pairs: list[TokenPair]) -> F64:
        return np.asarray(self._perp.predict(pairs))

    def _model_dict(self) -> dict[str, Any]:
        return dict(self._perp.to_dict())

    def _load_model(self, data: Mapping[str, Any]) -> None:
        from scoring.edit.perp import Perp

        self._perp = Perp.from_dict(dict(data))


_PERP_OPTIONS = {"epochs", "learning_rate", "seed", "oov_frequency"}


class PFSMAdapter(Scorer):
    kind = "pfsm"
    _options: ClassVar[set[str]] = {"synonyms", "paraphrase_table", "block_edits", "l2", "cutoff"}

    def _model(self) -> Any:
        from scoring.pfsm import PFSMScorer

        options = {k: v for k, v in self.options.items() if k in self._options | {"jump_limit"}}
        return PFSMScorer(kind=self.kind, **options)

    def _fit(self, pairs: list[TokenPair], targets: F64, progress: Progress | None) -> None:
        self._pfsm = self._model().fit(pairs, list(targets), progress=progress)

    def _predict(self, pairs: list[TokenPair]) -> F64:
        return np.asarray(self._pfsm.score(pairs))

    def _model_dict(self) -> dict[str, Any]:
        return dict(self._pfsm.to_dict())

    def _load_model(self, data: Mapping[str, Any]) -> None:
        from scoring.pfsm import PFSMScorer

        self._pfsm = PFSMScorer.from_dict(data)


class PPDAAdapter(PFSMAdapter):
    kind = "ppda"

    def __init__(self, task: str = "regression", **options: Any) -> None:
        options.setdefault("jump_limit", 5)
        super().__init__(task, **options)


class MtAdapter(Scorer):
    """Finch, Hwang & Sumita 2005: MT-metric features of both directions, RBF SVM (classifier or
    regressor).

    Option ``features`` names a row of the paper's Table 3 (``"ALL"`` by default, or ``"WER"``,
    ``"PER"``, ``"POS"``, ``"BLEU1"``, …). NIST's information weights come from the training
    sentences, kept with the model, so one pair can be scored on its own as in training.
    """

    kind = "mt"
    tasks = ("regression", "classification")

    def _names(self) -> tuple[str, ...]:
        from scoring.mt.features import TABLE3_SUBSETS

        row = str(self.options.get("features", "ALL"))
        if row not in TABLE3_SUBSETS:
            raise ScorerError(
                f"unknown feature set {row!r}; Table 3 rows: {', '.join(TABLE3_SUBSETS)}"
            )
        return TABLE3_SUBSETS[row]

    def _features(self, pairs: list[TokenPair]) -> F64:
        from scoring.mt.features import mt_features

        return np.asarray(mt_features(pairs, self._names(), info_refs=self._refs))

    def _fit(self, pairs: list[TokenPair], targets: F64, progress: Progress | None) -> None:
        from scoring.mt.classifier import MtClassifier, MtRegressor
        from scoring.mt.features import normalise
        from scoring.resources import pos_tag

        progress_report(progress, 0.0, f"MT-metric features of {len(pairs)} pairs")
        self._refs = [normalise(s, pos_tag(s)) for pair in pairs for s in pair]
        settings = {k: v for k, v in self.options.items() if k in ("seed", "folds", "scaling")}
        x = self._features(pairs)
        search = progress_part(progress, 0.3, 1.0)
        if self.task == "classification":
            self._svm: Any = MtClassifier(self._names(), **settings).fit(
                x, targets.astype(int), progress=search
            )
        else:
            self._svm = MtRegressor(self._names(), **settings).fit(x, targets, progress=search)

    def _predict(self, pairs: list[TokenPair]) -> F64:
        return np.asarray(self._svm.predict(self._features(pairs)), dtype=np.float64)

    def _model_dict(self) -> dict[str, Any]:
        return {"svm": self._svm.to_json(), "info_refs": self._refs}

    def _load_model(self, data: Mapping[str, Any]) -> None:
        from scoring.mt.classifier import MtClassifier, MtRegressor

        cls = MtClassifier if self.task == "classification" else MtRegressor
        self._svm = cls.from_json(data["svm"])
        self._refs = [list(sentence) for sentence in data["info_refs"]]


class CombinedAdapter(Scorer):
    """The combined scorer, the union of PERP, MT-metric, aligner and overlap features with an
    RBF SVM (:class:`scoring.scorers.combined.CombinedModel`). Options: ``groups`` (feature
    groups, default all), ``ppdb`` (a PPDB lexical table for the aligner), ``learner`` (``svm``
    or ``ridge``), ``seed``, ``folds``, ``c_grid``, ``gamma_factors``, ``epsilon_grid``,
    ``alpha_grid``."""

    kind = "combined"
    tasks = ("regression", "classification")
    _options: ClassVar[set[str]] = {
        "groups",
        "ppdb",
        "seed",
        "folds",
        "c_grid",
        "gamma_factors",
        "epsilon_grid",
        "learner",
        "alpha_grid",
    }

    def __init__(self, task: str = "regression", **options: Any) -> None:
        from scoring.scorers.combined import CombinedModel

        super().__init__(task, **options)
        unknown = sorted(set(options) - self._options)
        if unknown:
            raise ScorerError(
                f"unknown combined option {unknown[0]!r}; known: {', '.join(sorted(self._options))}"
            )
        self._combined = CombinedModel(task, **options)  # checks the values now

    def _fit(self, pairs: list[TokenPair], targets: F64, progress: Progress | None) -> None:
        self._combined.fit(pairs, targets, progress=progress)

    def _predict(self, pairs: list[TokenPair]) -> F64:
        return self._combined.predict(pairs)

    def _model_dict(self) -> dict[str, Any]:
        return self._combined.to_dict()

    def _load_model(self, data: Mapping[str, Any]) -> None:
        from scoring.scorers.combined import CombinedModel

        self._combined = CombinedModel.from_dict(dict(data))
        if self._combined.task != self.task:
            raise ScorerError(f"the model does {self._combined.task}, the file says {self.task}")


SCORERS: dict[str, type[Scorer]] = {
    cls.kind: cls for cls in (PerpScorer, PFSMAdapter, PPDAAdapter, MtAdapter, CombinedAdapter)
}


def scorer_kinds() -> tuple[str, ...]:
    return tuple(SCORERS)


def get_scorer(kind: str, task: str = "regression", **options: Any) -> Scorer:
    """A new, untrained scorer; an unknown kind is an error listing the known ones."""
    try:
        cls = SCORERS[kind]
    except KeyError:
        raise ScorerError(
            f"unknown scorer kind {kind!r}; known kinds: {', '.join(SCORERS)}"
        ) from None
    return cls(task, **options)


def scorer_from_dict(data: Mapping[str, Any], *, path: str | Path | None = None) -> Scorer:
    """Rebuild a trained scorer from :meth:`Scorer.to_dict` output."""
    if not isinstance(data, Mapping) or data.get("format") != FORMAT_NAME:
        raise FormatError("not a saved scorer model", path=path, field="format")
    if data.get("format_version") != FORMAT_VERSION:
        raise FormatError(
            f"saved-scorer format version {data.get('format_version')!r} is not supported "
            f"(this version reads {FORMAT_VERSION})",
            path=path,
            field="format_version",
        )
    kind = data.get("kind")
    if kind not in SCORERS:
        raise FormatError(f"unknown scorer kind {kind!r}", path=path, field="kind")
    options = data.get("options") or {}
    if not isinstance(options, Mapping):
        raise FormatError("options must be an object", path=path, field="options")
    scorer = get_scorer(str(kind), str(data.get("task", "regression")), **dict(options))
    try:
        scorer._load_model(data["model"])
    except (KeyError, TypeError, ValueError) as error:
        if isinstance(error, ScoringError):
            raise
        raise FormatError(f"the model is malformed: {error}", path=path, field="model") from None
    scorer.trained = True
    return scorer


def save_scorer(scorer: Scorer, path: str | Path) -> Path:
    target = Path(path)
    target.write_text(json.dumps(scorer.to_dict(), sort_keys=True) + "\n", encoding="utf-8")
    return target


def load_scorer(path: str | Path) -> Scorer:
    source = Path(path)
    try:
        data = json.loads(source.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise FormatError("no such file", path=source) from None
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise FormatError(f"not a JSON model file ({error})", path=source) from None
    return scorer_from_dict(data, path=source)


def parse_options(items: Sequence[str]) -> dict[str, Any]:
    """``["epochs=200", "synonyms=false"]`` → ``{"epochs": 200, "synonyms": False}``: values
    are read as JSON when they can be, else kept as strings."""
    options: dict[str, Any] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise ScorerError(f"option {item!r} is not KEY=VALUE")
        try:
            options[key] = json.loads(value)
        except json.JSONDecodeError:
            options[key] = value
    return options


def check_pairs(pairs: Sequence[TokenPair]) -> list[TokenPair]:
    """Validate ``(tokens, tokens)`` pairs: non-empty lists of non-empty strings."""
    out: list[TokenPair] = []
    for index, pair in enumerate(pairs):
        if not isinstance(pair, tuple | list) or len(pair) != 2:
            raise ScorerError(f"pair {index}: expected (tokens_1, tokens_2)")
        sides = []
        for side, tokens in enumerate(pair, start=1):
            if isinstance(tokens, str) or not isinstance(tokens, Sequence):
                raise ScorerError(f"pair {index}: sentence {side} must be a list of tokens")
            if not tokens or not all(isinstance(t, str) and t for t in tokens):
                raise ScorerError(f"pair {index}: sentence {side} is empty or has empty tokens")
            sides.append(list(tokens))
        out.append((sides[0], sides[1]))
    return out


# --- evaluation --------------------------------------------------------------------------------


def evaluate(
    task: str, gold: Sequence[float] | F64, predicted: Sequence[float] | F64
) -> dict[str, Any]:
    """The papers' measures: Pearson and Spearman (regression) or accuracy, precision, recall,
    F1 of the positive class (classification). Undefined values are ``None`` with a reason."""
    y = np.asarray(gold, dtype=np.float64)
    p = np.asarray(predicted, dtype=np.float64)
    if y.shape != p.shape or y.ndim != 1:
        raise ScorerError(f"{y.size} gold values but {p.size} predictions")
    out: dict[str, Any] = {"task": task, "n": int(y.size)}
    if task == "regression":
        out["pearson"] = pearson(y, p)
        out["spearman"] = spearman(y, p)
        return out
    if task != "classification":
        raise ScorerError(f"task must be one of {TASKS}, got {task!r}")
    tp = int(np.sum((p == 1) & (y == 1)))
    fp = int(np.sum((p == 1) & (y == 0)))
    fn = int(np.sum((p == 0) & (y == 1)))
    out["accuracy"] = float(np.mean(p == y)) if y.size else None
    precision = tp / (tp + fp) if tp + fp else None
    recall = tp / (tp + fn) if tp + fn else None
    out["precision"], out["recall"] = precision, recall
    out["f1"] = f1(precision, recall)
    return out
