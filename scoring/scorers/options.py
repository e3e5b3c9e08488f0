"""The options of every scorer, declared once (see :mod:`scoring.options`).

Each scorer kind of :mod:`scoring.scorers.base` names its options class; the models take an
instance (``Perp(PerpOptions(...))``, ``PFSMScorer(PPDAOptions(jump_limit=2))``,
``MtClassifier(names, SvmOptions(...))``, ``CombinedModel(task, CombinedOptions(...))``), the
web app and the CLI build them from JSON through :meth:`~scoring.options.Options.from_dict`.
This module imports nothing heavy, so naming a scorer's options costs no numba import.

Every number has an upper end (see :mod:`scoring.options`), chosen from the trainings' costs
measured on a loaded two-core machine: on STS-2012 MSRpar's 750 pairs a PERP epoch takes 0.03 s,
a pFSM L-BFGS iteration 0.07 s and a pPDA one 0.8 s (both converged in 37); on MSRP's 4,076
training pairs one fit of an SVM's grid search takes up to 2 s (C = 1,000). At the upper ends a
few thousand pairs still train well inside a job's time limit.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

from scoring.options import SEED, Choices, Constraint, Interval, Options, upper_bounds_apply

_FOLDS = Interval(2, 20)
#: The SVMs' C values (the defaults go up to 100): a larger C makes libsvm's fits slow.
_C = Interval(0, 1_000, closed="right")
_GAMMA_FACTORS = Interval(0, 100, closed="right")
_EPSILONS = Interval(0, 100)
#: The most values of each grid of an SVM search.
MAX_GRID_VALUES = 10
#: The most fits of an SVM grid search, ``|c_grid| · |gamma_factors| · |epsilon_grid| · folds``
#: (the defaults: 120 and 160).
MAX_GRID_FITS = 1_000
_SVM_ITEMS = {
    "c_grid": MAX_GRID_VALUES,
    "gamma_factors": MAX_GRID_VALUES,
    "epsilon_grid": MAX_GRID_VALUES,
}

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
        "epochs": Interval(1, 5_000),
        "learning_rate": Interval(0, 1_000, closed="right"),
        "seed": SEED,
        "oov_frequency": Interval(0, 1),
        "score_max": Interval(0, 1_000_000, closed="right"),
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
        "l2": Interval(0, 10_000),
        "cutoff": Interval(0, 100_000),
        "max_iter": Interval(1, 3_000),
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
        # an iteration costs ten times the pFSM's
        "max_iter": Interval(1, 600),
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
        "seed": SEED,
        "folds": _FOLDS,
        "c_grid": _C,
        "gamma_factors": _GAMMA_FACTORS,
        "epsilon_grid": _EPSILONS,
        "scaling": Choices(SCALINGS),
    }
    max_items: ClassVar[Mapping[str, int]] = _SVM_ITEMS

    seed: int = 0
    folds: int = 5
    c_grid: tuple[float, ...] = (0.1, 1.0, 10.0, 100.0)
    gamma_factors: tuple[float, ...] = (0.1, 1.0, 10.0)
    epsilon_grid: tuple[float, ...] = (0.1, 0.5)
    scaling: str = "standard"

    def check(self) -> None:
        _check_grid_fits(self)


def _check_grid_fits(options: SvmOptions | CombinedOptions) -> None:
    """At most :data:`MAX_GRID_FITS` fits in the SVM's grid search (ε's grid counts even for a
    classifier, which does not search it)."""
    fits = (
        len(options.c_grid) * len(options.gamma_factors) * len(options.epsilon_grid) * options.folds
    )
    if fits > MAX_GRID_FITS and upper_bounds_apply():
        raise options.invalid(
            f"the SVM's grid search would make {fits:,} fits (c_grid × gamma_factors × "
            f"epsilon_grid values × folds); at most {MAX_GRID_FITS:,} are allowed",
            option="c_grid",
            value=list(options.c_grid),
        )


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
        "seed": SEED,
        "folds": _FOLDS,
        "c_grid": _C,
        "gamma_factors": _GAMMA_FACTORS,
        "epsilon_grid": _EPSILONS,
        "learner": Choices(LEARNERS),
        "alpha_grid": Interval(0, 1_000_000, closed="right"),
    }
    max_items: ClassVar[Mapping[str, int]] = {**_SVM_ITEMS, "alpha_grid": 20}

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
        if self.learner == "svm":
            _check_grid_fits(self)

    def svm(self) -> SvmOptions:
        """The options of its SVM (standard scaling)."""
        return SvmOptions(
            seed=self.seed,
            folds=self.folds,
            c_grid=self.c_grid,
            gamma_factors=self.gamma_factors,
            epsilon_grid=self.epsilon_grid,
        )
