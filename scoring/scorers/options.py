"""The options of every scorer, declared once (see :mod:`scoring.options`).

Each scorer kind of :mod:`scoring.scorers.base` names its options class; the models take an
instance (``Perp(PerpOptions(...))``, ``PFSMScorer(PPDAOptions(jump_limit=2))``,
``MtClassifier(names, SvmOptions(...))``, ``CombinedModel(task, CombinedOptions(...))``), the
web app and the CLI build them from JSON through :meth:`~scoring.options.Options.from_dict`.
This module imports nothing heavy, so naming a scorer's options costs no numba import.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

from scoring.options import Choices, Constraint, Interval, Options

_POSITIVE = Interval(0, None, closed="neither")
_AT_LEAST_0 = Interval(0, None)
_AT_LEAST_1 = Interval(1, None)
_FOLDS = Interval(2, None)

#: The pPDA's largest jump (Wang & Manning 2012 use 1, 2, 5 and 10).
MAX_JUMP_LIMIT = 10
#: Rows of Finch, Hwang & Sumita (2005) Table 3: the feature sets of ``scoring.mt.features``
#: (``TABLE3_SUBSETS``).
MT_FEATURE_SETS: tuple[str, ...] = (
    "WER",
    "PER",
    "POS-",
    "PER POS-",
    "POS+",
    "POS",
    *(f"BLEU{n}" for n in range(1, 5)),
    *(f"NIST{n}" for n in range(1, 6)),
    "ALL",
)
SCALINGS: tuple[str, ...] = ("standard", "minmax", "none")
#: Feature groups of the combined scorer (``scoring.scorers.combined``).
GROUPS: tuple[str, ...] = ("perp", "mt", "align", "overlap", "wordnet", "encoder")
LEARNERS: tuple[str, ...] = ("svm", "ridge")


@dataclass(frozen=True, slots=True)
class PerpOptions(Options):
    """PERP's learning and feature settings (Heilman & Madnani 2012, §5: T = 200,
    α = 0.01); ``score_max`` turns similarities into the distances the perceptron fits,
    ``stop_words`` (default: NLTK's English list and punctuation) are the words shifts skip."""

    owner: ClassVar[str] = "scorer 'perp'"
    constraints: ClassVar[Mapping[str, Constraint]] = {
        "epochs": _AT_LEAST_1,
        "learning_rate": _POSITIVE,
        "seed": _AT_LEAST_0,
        "oov_frequency": _AT_LEAST_0,
        "score_max": _POSITIVE,
    }

    epochs: int = 200
    learning_rate: float = 0.01
    seed: int = 0
    oov_frequency: float = 1e-7
    score_max: float = 5.0
    stop_words: tuple[str, ...] | None = None


@dataclass(frozen=True, slots=True)
class PFSMOptions(Options):
    """The pFSM (Wang & Manning 2012): the WordNet synonym state (``synonyms``), a paraphrase
    table (``paraphrase_table``, a path), the bigram block edits, λ (``l2``), the feature
    count cut-off and the L-BFGS iteration limit."""

    owner: ClassVar[str] = "scorer 'pfsm'"
    paths: ClassVar[frozenset[str]] = frozenset({"paraphrase_table"})
    constraints: ClassVar[Mapping[str, Constraint]] = {
        "l2": _AT_LEAST_0,
        "cutoff": _AT_LEAST_0,
        "max_iter": _AT_LEAST_1,
    }

    synonyms: bool = True
    paraphrase_table: str | None = None
    block_edits: bool = True
    l2: float = 5.0
    cutoff: int = 5
    max_iter: int = 300


@dataclass(frozen=True, slots=True)
class PPDAOptions(PFSMOptions):
    """The pPDA (Wang & Cer 2012): the pFSM's options and the jump limit."""

    owner: ClassVar[str] = "scorer 'ppda'"
    constraints: ClassVar[Mapping[str, Constraint]] = {
        **PFSMOptions.constraints,
        "jump_limit": Interval(1, MAX_JUMP_LIMIT),
    }

    jump_limit: int = 5


@dataclass(frozen=True, slots=True)
class SvmOptions(Options):
    """An RBF SVM's search (``scoring.mt.classifier``): ``C`` from ``c_grid``, ``γ`` as
    ``factor / n_features`` for each of ``gamma_factors``, ``ε`` (regression) from
    ``epsilon_grid``, by ``folds``-fold cross-validation seeded by ``seed``, on features scaled
    by ``scaling``."""

    owner: ClassVar[str] = "the SVM"
    constraints: ClassVar[Mapping[str, Constraint]] = {
        "seed": _AT_LEAST_0,
        "folds": _FOLDS,
        "c_grid": _POSITIVE,
        "gamma_factors": _POSITIVE,
        "epsilon_grid": _AT_LEAST_0,
        "scaling": Choices(SCALINGS),
    }

    seed: int = 0
    folds: int = 5
    c_grid: tuple[float, ...] = (0.1, 1.0, 10.0, 100.0)
    gamma_factors: tuple[float, ...] = (0.1, 1.0, 10.0)
    epsilon_grid: tuple[float, ...] = (0.1, 0.5)
    scaling: str = "standard"


@dataclass(frozen=True, slots=True)
class MtOptions(SvmOptions):
    """The MT-metric scorer (Finch, Hwang & Sumita 2005): the SVM's options and the row of
    Table 3 whose features it uses."""

    owner: ClassVar[str] = "scorer 'mt'"
    constraints: ClassVar[Mapping[str, Constraint]] = {
        **SvmOptions.constraints,
        "features": Choices(MT_FEATURE_SETS),
    }

    features: str = "ALL"

    def svm(self) -> SvmOptions:
        """The options of its SVM."""
        return SvmOptions(
            seed=self.seed,
            folds=self.folds,
            c_grid=self.c_grid,
            gamma_factors=self.gamma_factors,
            epsilon_grid=self.epsilon_grid,
            scaling=self.scaling,
        )


@dataclass(frozen=True, slots=True)
class CombinedOptions(Options):
    """The combined scorer (``scoring.scorers.combined``): its feature groups, a PPDB lexical
    table for the aligner features (a path; the path is stored, not the table), the learner
    (``svm``, or ``ridge`` for regression) and their searches."""

    owner: ClassVar[str] = "scorer 'combined'"
    paths: ClassVar[frozenset[str]] = frozenset({"ppdb"})
    constraints: ClassVar[Mapping[str, Constraint]] = {
        "groups": Choices(GROUPS),
        "seed": _AT_LEAST_0,
        "folds": _FOLDS,
        "c_grid": _POSITIVE,
        "gamma_factors": _POSITIVE,
        "epsilon_grid": _AT_LEAST_0,
        "learner": Choices(LEARNERS),
        "alpha_grid": _POSITIVE,
    }

    groups: tuple[str, ...] = GROUPS
    ppdb: str | None = None
    seed: int = 0
    folds: int = 5
    c_grid: tuple[float, ...] = (0.3, 1.0, 3.0, 10.0)
    gamma_factors: tuple[float, ...] = (0.03, 0.1, 0.3, 1.0)
    epsilon_grid: tuple[float, ...] = (0.1, 0.5)
    learner: str = "svm"
    alpha_grid: tuple[float, ...] = (0.1, 1.0, 10.0, 100.0, 1000.0)

    def check(self) -> None:
        # The groups in their canonical order, each once: the order of the feature columns.
        object.__setattr__(self, "groups", tuple(g for g in GROUPS if g in self.groups))

    def svm(self) -> SvmOptions:
        """The options of its SVM (standard scaling)."""
        return SvmOptions(
            seed=self.seed,
            folds=self.folds,
            c_grid=self.c_grid,
            gamma_factors=self.gamma_factors,
            epsilon_grid=self.epsilon_grid,
        )
