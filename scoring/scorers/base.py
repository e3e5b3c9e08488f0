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

Pairs are ``(tokens_1, tokens_2)``. ``fit(pairs, targets)`` trains (``progress=`` hears of
each step, :mod:`scoring.progress`), ``predict(pairs)`` scores
(classification: 0/1 labels). A regressor's scores are clipped to the range of the targets it
was trained on (``target_range``: an STS model trained on 0–5 never says 5.7 or −0.3, as the
SemEval STS tasks required of their systems); ``predict(pairs, clip=False)`` gives the model's
raw values. Correlations barely move either way. Each kind's options are a frozen dataclass
(:mod:`scoring.scorers.options`); :func:`get_scorer` takes them as JSON values.
``to_dict()`` / :func:`scorer_from_dict` give and take a trained scorer as JSON values;
:func:`save_scorer` writes them to one JSON file, versioned, that :func:`load_scorer` reads back
without running code. :func:`evaluate` gives the papers' measures: Pearson (STS), Spearman (MT
evaluation), accuracy and F1 (MSRP).
"""

from __future__ import annotations

import contextlib
from abc import ABC, abstractmethod
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Self

import numpy as np
import numpy.typing as npt

from scoring import __version__
from scoring.errors import FormatError, InputError, ModelError, OptionsError, ScoringError
from scoring.measures import f1, pearson, spearman
from scoring.options import Options, saved_options
from scoring.persistence import read_json, save_json
from scoring.progress import Progress, in_chunks, progress_part, progress_report
from scoring.records import Record
from scoring.scorers.options import (
    CombinedOptions,
    MtOptions,
    PerpOptions,
    PFSMOptions,
    PPDAOptions,
)

TokenPair = tuple[list[str], list[str]]
F64 = npt.NDArray[np.float64]
FORMAT_NAME = "scoring-scorer"
FORMAT_VERSION = 1
TASKS = ("regression", "classification")


class Scorer(ABC):
    """A trainable pair scorer; subclasses wrap one model of :mod:`scoring` and name its
    options dataclass (``options_class``, :mod:`scoring.scorers.options`)."""

    kind: ClassVar[str] = ""
    tasks: ClassVar[tuple[str, ...]] = ("regression",)
    options_class: ClassVar[type[Options]] = Options

    def __init__(self, task: str = "regression", options: Options | None = None) -> None:
        if task not in self.tasks:
            raise OptionsError(
                f"the {self.kind} scorer does {' and '.join(self.tasks)}, not {task!r}",
                option="task",
                value=task,
            )
        chosen = self.options_class() if options is None else options
        if type(chosen) is not self.options_class:
            raise OptionsError(
                f"the {self.kind} scorer takes {self.options_class.__name__}, "
                f"not {type(chosen).__name__}"
            )
        self.task = task
        self.options = chosen
        self.trained = False
        #: A regressor's training targets' ``(min, max)``, which its scores are clipped to;
        #: ``None`` for a classifier and for a model saved before it was recorded.
        self.target_range: tuple[float, float] | None = None

    def fit(
        self,
        pairs: Sequence[TokenPair],
        targets: Sequence[float],
        *,
        progress: Progress | None = None,
    ) -> Self:
        """Train on ``pairs`` and their ``targets``; ``progress`` hears of each step."""
        checked = check_pairs(pairs)
        y = np.asarray(targets, dtype=np.float64)
        if y.shape != (len(checked),):
            raise InputError(f"{len(checked)} pairs but {y.size} targets")
        refusal = self.training_refusal(y)
        if refusal is not None:
            raise InputError(refusal)
        self._fit(checked, y, progress)
        self.target_range = (float(y.min()), float(y.max())) if self.task == "regression" else None
        self.trained = True
        return self

    def training_refusal(self, targets: Sequence[float] | F64) -> str | None:
        """Why training on pairs with these ``targets`` could only fail, or ``None``: read from
        the targets alone, so a request is refused before its training is queued (and
        :meth:`fit` applies the same rule)."""
        y = np.asarray(targets, dtype=np.float64).reshape(-1)
        if not np.all(np.isfinite(y)):
            return "targets must be finite numbers"
        if self.task == "classification" and not np.isin(y, (0.0, 1.0)).all():
            return "classification targets must be 0 or 1"
        if y.shape[0] < 2:
            return "training needs at least two pairs"
        if self.task == "regression" and np.all(y == y[0]):
            # a model of one value predicts it whatever the pair, and its correlations are
            # undefined: a "trained" scorer that scores nothing (a classifier says it needs
            # two labels)
            return f"every target is {y[0]:g}; a scorer learns nothing from a single value"
        return None

    def predict(self, pairs: Sequence[TokenPair], *, clip: bool = True) -> F64:
        """Scores of ``pairs`` (n,): a classifier's 0/1 labels; a regressor's values, within
        :attr:`target_range` unless ``clip`` is false."""
        if not self.trained:
            raise ModelError(f"the {self.kind} scorer is not trained")
        checked = check_pairs(pairs)
        if not checked:
            return np.zeros(0)
        scores = np.asarray(self._predict(checked), dtype=np.float64)
        if clip and self.target_range is not None:
            scores = np.clip(scores, *self.target_range)
        return scores

    def to_dict(self) -> dict[str, Any]:
        """The saved-scorer envelope: format, kind, task, options and the model's own
        ``to_dict()``."""
        if not self.trained:
            raise ModelError(f"the {self.kind} scorer is not trained")
        return {
            "format": FORMAT_NAME,
            "format_version": FORMAT_VERSION,
            "scoring_version": __version__,
            "kind": self.kind,
            "task": self.task,
            "options": self.options.to_dict(),
            "target_range": None if self.target_range is None else list(self.target_range),
            "model": self._model_dict(),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], *, path: str | Path | None = None) -> Scorer:
        """Rebuild a trained scorer of any kind from :meth:`to_dict` output (see
        :func:`scorer_from_dict`)."""
        return scorer_from_dict(data, path=path)

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
    options_class = PerpOptions
    options: PerpOptions

    def _fit(self, pairs: list[TokenPair], targets: F64, progress: Progress | None) -> None:
        from scoring.edit.perp import Perp

        self._perp = Perp(self.options).fit(pairs, list(targets), progress=progress)

    def _predict(self, pairs: list[TokenPair]) -> F64:
        return np.asarray(self._perp.predict(pairs))

    def _model_dict(self) -> dict[str, Any]:
        return self._perp.to_dict()

    def _load_model(self, data: Mapping[str, Any]) -> None:
        from scoring.edit.perp import Perp

        self._perp = Perp.from_dict(data)


class PFSMAdapter(Scorer):
    kind = "pfsm"
    options_class: ClassVar[type[Options]] = PFSMOptions
    options: PFSMOptions

    def _fit(self, pairs: list[TokenPair], targets: F64, progress: Progress | None) -> None:
        from scoring.pfsm import PFSMScorer

        self._pfsm = PFSMScorer(self.options).fit(pairs, list(targets), progress=progress)

    def _predict(self, pairs: list[TokenPair]) -> F64:
        return np.asarray(self._pfsm.score(pairs))

    def _model_dict(self) -> dict[str, Any]:
        return self._pfsm.to_dict()

    def _load_model(self, data: Mapping[str, Any]) -> None:
        from scoring.pfsm import PFSMScorer

        self._pfsm = PFSMScorer.from_dict(data)


class PPDAAdapter(PFSMAdapter):
    kind = "ppda"
    options_class = PPDAOptions


# Pairs of an mt training's features per progress report (where a cancelled job stops).
MT_FEATURE_CHUNK = 200


class MtAdapter(Scorer):
    """Finch, Hwang & Sumita 2005: MT-metric features of both directions, RBF SVM (classifier or
    regressor).

    Option ``features`` names a row of the paper's Table 3 (``"ALL"`` by default, or ``"WER"``,
    ``"PER"``, ``"POS"``, ``"BLEU1"``, …); the others are the SVM's search
    (:class:`~scoring.scorers.options.MtOptions`). NIST's information weights come from the
    training sentences, kept with the model, so one pair can be scored on its own as in
    training.
    """

    kind = "mt"
    tasks = ("regression", "classification")
    options_class = MtOptions
    options: MtOptions

    def _names(self) -> tuple[str, ...]:
        from scoring.mt.features import TABLE3_SUBSETS

        return TABLE3_SUBSETS[self.options.features]

    def training_refusal(self, targets: Sequence[float] | F64) -> str | None:
        from scoring.mt.classifier import cross_validation_refusal

        return super().training_refusal(targets) or cross_validation_refusal(
            targets, folds=self.options.folds, classification=self.task == "classification"
        )

    def _features(self, pairs: list[TokenPair]) -> F64:
        from scoring.mt.features import mt_features

        return np.asarray(mt_features(pairs, self._names(), info_refs=self._refs))

    def _fit(self, pairs: list[TokenPair], targets: F64, progress: Progress | None) -> None:
        from scoring.mt.classifier import MtClassifier, MtRegressor
        from scoring.mt.features import normalise
        from scoring.resources import pos_tag

        progress_report(progress, 0.0, f"MT-metric features of {len(pairs)} pairs")
        # a chunk at a time, each a report where a cancelled job stops (tagging and the
        # features of an MSRP-sized corpus ran half a minute past a cancel); with the references
        # fixed, a chunk's features are those of the whole set
        tagging = progress_part(progress, 0.0, 0.1)
        self._refs = []
        for part in in_chunks(pairs, MT_FEATURE_CHUNK, tagging, "MT-metric features: tagged"):
            self._refs += [normalise(s, pos_tag(s)) for pair in part for s in pair]
        computing = progress_part(progress, 0.1, 0.3)
        blocks = [
            self._features(list(part))
            for part in in_chunks(pairs, MT_FEATURE_CHUNK, computing, "MT-metric features:")
        ]
        x = np.concatenate(blocks) if blocks else self._features(pairs)
        search = progress_part(progress, 0.3, 1.0)
        svm = self.options.svm()
        if self.task == "classification":
            self._svm: Any = MtClassifier(self._names(), svm).fit(
                x, targets.astype(int), progress=search
            )
        else:
            self._svm = MtRegressor(self._names(), svm).fit(x, targets, progress=search)

    def _predict(self, pairs: list[TokenPair]) -> F64:
        return np.asarray(self._svm.predict(self._features(pairs)), dtype=np.float64)

    def _model_dict(self) -> dict[str, Any]:
        return {"svm": self._svm.to_dict(), "info_refs": self._refs}

    def _load_model(self, data: Mapping[str, Any]) -> None:
        from scoring.mt.classifier import MtClassifier, MtRegressor

        cls = MtClassifier if self.task == "classification" else MtRegressor
        self._svm = cls.from_dict(data["svm"])
        self._refs = [list(sentence) for sentence in data["info_refs"]]


class CombinedAdapter(Scorer):
    """The combined scorer, the union of PERP, MT-metric, aligner and overlap features with an
    RBF SVM (:class:`scoring.scorers.combined.CombinedModel`); its options are
    :class:`~scoring.scorers.options.CombinedOptions`."""

    kind = "combined"
    tasks = ("regression", "classification")
    options_class = CombinedOptions
    options: CombinedOptions

    def __init__(self, task: str = "regression", options: Options | None = None) -> None:
        from scoring.scorers.combined import CombinedModel

        super().__init__(task, options)
        self._combined = CombinedModel(task, self.options)  # checks the task and learner now

    def training_refusal(self, targets: Sequence[float] | F64) -> str | None:
        from scoring.mt.classifier import cross_validation_refusal

        return super().training_refusal(targets) or cross_validation_refusal(
            targets, folds=self.options.folds, classification=self.task == "classification"
        )

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
            raise FormatError(
                f"the model does {self._combined.task}, the file says {self.task}", field="task"
            )


SCORERS: dict[str, type[Scorer]] = {
    cls.kind: cls for cls in (PerpScorer, PFSMAdapter, PPDAAdapter, MtAdapter, CombinedAdapter)
}


def scorer_kinds() -> tuple[str, ...]:
    return tuple(SCORERS)


def scorer_class(kind: str) -> type[Scorer]:
    """The scorer registered as ``kind``; an unknown kind is an error listing the known ones."""
    try:
        return SCORERS[kind]
    except KeyError:
        raise OptionsError(
            f"unknown scorer kind {kind!r}; known kinds: {', '.join(SCORERS)}",
            option="kind",
            value=kind,
        ) from None


def get_scorer(kind: str, task: str = "regression", **options: Any) -> Scorer:
    """A new, untrained scorer, its options given as JSON values (checked by its options
    dataclass: an unknown one is an error listing the known ones)."""
    cls = scorer_class(kind)
    return cls(task, cls.options_class.from_dict(options))


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
    cls = SCORERS[str(kind)]
    # An option this version does not know had no effect on the saved model: left out. One
    # beyond an upper bound set since it was trained is kept.
    with saved_options():
        with _in_model_file(path, "task"):
            scorer = cls(
                str(data.get("task", "regression")),
                cls.options_class.from_dict(options, unknown="drop"),
            )
        with _in_model_file(path, "model"):
            try:
                scorer._load_model(data["model"])
            except (KeyError, TypeError, ValueError) as error:
                if isinstance(error, ScoringError):
                    raise
                raise FormatError(
                    f"the model is malformed: {error}", path=path, field="model"
                ) from None
    scorer.target_range = _target_range(data.get("target_range"), path)
    scorer.trained = True
    return scorer


@contextlib.contextmanager
def _in_model_file(path: str | Path | None, field: str) -> Iterator[None]:
    """Errors raised while a saved scorer is rebuilt from the file ``path`` name that file: a
    model that does not fit its scorer (a task it does not do, weights of another shape, the
    inner model of another kind) is a fault of the file, whichever part of it is at fault;
    ``field`` is the part (``task`` or ``model``) when the error names none. Without a path
    (a model held in a database) errors pass as they are."""
    if path is None:
        yield
        return
    try:
        yield
    except InputError as error:
        if error.path is not None:
            raise
        raise FormatError(
            error.message, path=path, line=error.line, field=error.field or field
        ) from error
    except OptionsError as error:  # the task, or an option the file gives
        where = "task" if error.option == "task" else "options"
        raise FormatError(str(error), path=path, field=where) from error
    except ModelError as error:
        raise FormatError(str(error), path=path, field=field) from error


def _target_range(value: Any, path: str | Path | None) -> tuple[float, float] | None:
    """A saved ``target_range``: two finite numbers, the first not above the second, or null
    (a classifier, or a model saved before ranges were: its scores are not clipped)."""
    if value is None:
        return None
    if (
        isinstance(value, list)
        and len(value) == 2
        and all(isinstance(v, int | float) and not isinstance(v, bool) for v in value)
        and all(np.isfinite(value))
        and value[0] <= value[1]
    ):
        return float(value[0]), float(value[1])
    raise FormatError(
        f"target_range must be [min, max] of finite numbers or null, not {value!r}"[:200],
        path=path,
        field="target_range",
    )


def save_scorer(scorer: Scorer, path: str | Path) -> Path:
    """Write a trained scorer's :meth:`Scorer.to_dict` to a JSON file."""
    return save_json(scorer, path)


def load_scorer(path: str | Path) -> Scorer:
    """Read a scorer written by :func:`save_scorer`."""
    return scorer_from_dict(read_json(path), path=path)


def parse_options(kind: str, items: Sequence[str]) -> dict[str, Any]:
    """``["epochs=200", "synonyms=false"]`` → the JSON options of scorer ``kind`` that were
    given, read as each option's type and checked (``{"epochs": 200, "synonyms": False}``)."""
    options = scorer_class(kind).options_class.from_strings(items)
    given = {item.partition("=")[0].strip().replace("-", "_") for item in items}
    return {key: value for key, value in options.to_dict().items() if key in given}


def check_pairs(pairs: Sequence[TokenPair]) -> list[TokenPair]:
    """Validate ``(tokens, tokens)`` pairs: non-empty lists of non-empty strings."""
    out: list[TokenPair] = []
    for index, pair in enumerate(pairs):
        if not isinstance(pair, tuple | list) or len(pair) != 2:
            raise InputError(f"pair {index}: expected (tokens_1, tokens_2)")
        sides = []
        for side, tokens in enumerate(pair, start=1):
            if isinstance(tokens, str) or not isinstance(tokens, Sequence):
                raise InputError(f"pair {index}: sentence {side} must be a list of tokens")
            if not tokens or not all(isinstance(t, str) and t for t in tokens):
                raise InputError(f"pair {index}: sentence {side} is empty or has empty tokens")
            sides.append(list(tokens))
        out.append((sides[0], sides[1]))
    return out


# --- evaluation --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Evaluation(Record):
    """The papers' measures of predictions against gold values: Pearson and Spearman
    (regression) or accuracy, precision, recall and F1 of the positive class
    (classification); ``None`` where undefined. Its JSON has the measures of its task only,
    and ``note`` when the scorer gave every pair the same value: a classifier that predicts
    one class is the majority baseline, whatever its accuracy."""

    task: str
    n: int
    pearson: float | None = None
    spearman: float | None = None
    accuracy: float | None = None
    precision: float | None = None
    recall: float | None = None
    f1: float | None = None
    note: str = ""

    def to_dict(self) -> dict[str, Any]:
        measures = (
            ("pearson", "spearman")
            if self.task == "regression"
            else ("accuracy", "precision", "recall", "f1")
        )
        out = {"task": self.task, "n": self.n, **{m: getattr(self, m) for m in measures}}
        if self.note:
            out["note"] = self.note
        return out


def evaluate(
    task: str, gold: Sequence[float] | F64, predicted: Sequence[float] | F64
) -> Evaluation:
    """The papers' measures (:class:`Evaluation`) of ``predicted`` against ``gold``."""
    y = np.asarray(gold, dtype=np.float64)
    p = np.asarray(predicted, dtype=np.float64)
    if y.shape != p.shape or y.ndim != 1:
        raise InputError(f"{y.size} gold values but {p.size} predictions")
    if task not in TASKS:
        raise OptionsError(f"task must be one of {TASKS}, got {task!r}", option="task")
    note = ""
    if p.size > 1 and np.all(p == p[0]):
        note = (
            f"every pair got the same {'value' if task == 'regression' else 'class'} "
            f"({p[0]:g}): the model learnt nothing that separates the pairs (too few or too "
            "one-sided training pairs?)"
        )
    if task == "regression":
        return Evaluation(
            task, int(y.size), pearson=pearson(y, p), spearman=spearman(y, p), note=note
        )
    tp = int(np.sum((p == 1) & (y == 1)))
    fp = int(np.sum((p == 1) & (y == 0)))
    fn = int(np.sum((p == 0) & (y == 1)))
    precision = tp / (tp + fp) if tp + fp else None
    recall = tp / (tp + fn) if tp + fn else None
    return Evaluation(
        task,
        int(y.size),
        accuracy=float(np.mean(p == y)) if y.size else None,
        precision=precision,
        recall=recall,
        f1=f1(precision, recall),
        note=note,
    )
