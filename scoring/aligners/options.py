"""The options of every aligner, declared once (see :mod:`scoring.options`).

Each aligner class names its options class (``Aligner.options_class``); the web app's prefill
form, its checks of a prefill job's options and the CLI's ``--option KEY=VALUE`` all read these.
An option whose type is ``str | None`` and that is listed in ``paths`` names a file.

Every number has an upper end (see :mod:`scoring.options`): iterations and trees about ten to
twenty times their defaults, which a two-core worker still trains on a few thousand pairs well
inside a job's time limit; sentence lengths and jumps at four times the longest sentence an
import accepts; probabilities at 1; weights and smoothing counts far beyond any useful value.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from scoring.options import SEED, Choices, Constraint, Interval, Options

#: How the ``em`` aligner combines the ``lexical`` aligner's matches (``scoring.aligners.em``).
LEXICAL_MODES = ("none", "merge", "first", "first-sure")
DECODE_MODES = ("viterbi", "posterior", "agreement")
#: Possible links of the symmetrization: grow-diag-final's beyond the intersection, or none
#: (the sure links alone: a wrong possible link costs an annotator a correction).
POSSIBLE_MODES = ("grow-diag-final", "none")
TRAINING_MODES = ("independent", "agreement")
START_MODES = ("jump", "uniform", "learned")
END_MODES = ("none", "jump", "learned")
#: How the ``supervised`` aligner turns probabilities into links (``scoring.aligners.supervised``).
DECISIONS = ("corrections", "thresholds")

_PROBABILITY = Interval(0, 1)
#: The most tokens of a sentence an aligner may be told to align, and the longest HMM jump: four
#: times the longest sentence an import accepts (250 tokens).
MAX_LENGTH = 1_000
#: The most EM iterations of each model (IBM Model 1, HMM): an HMM iteration over MSRP's 4,076
#: training pairs takes 0.3 s (with ``max_jump`` 20 or 1,000 alike).
MAX_EM_ITERATIONS = 100
#: The most boosted trees of the supervised aligner's ensembles (default 200 and 100).
MAX_TREES = 2_000
#: The most epochs of the supervised aligner's cross-encoder fine-tuning: an epoch takes about
#: 45 s per 640 pairs on one core (5 is the documented setting).
MAX_FINE_TUNE_EPOCHS = 10
_LENGTH = Interval(1, MAX_LENGTH)
_EM_ITERATIONS = Interval(0, MAX_EM_ITERATIONS)


@dataclass(frozen=True, slots=True)
class AlignerOptions(Options):
    """Options every aligner has: ``max_length``, the most tokens of a sentence it aligns."""

    owner: ClassVar[str] = "an aligner"
    constraints: ClassVar[Mapping[str, Constraint]] = {"max_length": _LENGTH}

    max_length: int = 250


@dataclass(frozen=True, slots=True)
class LexicalOptions(AlignerOptions):
    """``lexical``: which match rules to use, a PPDB lexical table, and whether a missing
    resource is an error (``strict_resources``) or a warning."""

    owner: ClassVar[str] = "aligner 'lexical'"
    paths: ClassVar[frozenset[str]] = frozenset({"ppdb"})

    stem: bool = True
    wordnet: bool = True
    ppdb: str | None = None
    strict_resources: bool = False


@dataclass(frozen=True, slots=True)
class IdentityOptions(AlignerOptions):
    """``identity``: identical and lowercase words only, the literature's identity baseline, so
    it has no match rules or resources to choose (``lexical`` adds stems, WordNet and PPDB)."""

    owner: ClassVar[str] = "aligner 'identity'"
    #: The ``lexical`` options an identity model file may hold, at the values under which they
    #: leave identity a baseline; read as no option. Any other value is refused as unknown.
    baseline_values: ClassVar[Mapping[str, object]] = {
        "stem": False,
        "wordnet": False,
        "ppdb": None,
        "strict_resources": False,
    }

    @classmethod
    def from_dict(
        cls, data: Mapping[str, Any], *, unknown: Literal["error", "drop"] = "error"
    ) -> IdentityOptions:
        if isinstance(data, Mapping):
            data = {
                key: value
                for key, value in data.items()
                if key not in cls.baseline_values or value != cls.baseline_values[key]
            }
        return super(IdentityOptions, cls).from_dict(data, unknown=unknown)


@dataclass(frozen=True, slots=True)
class EMOptions(AlignerOptions):
    """``em``: IBM Model 1 and HMM iterations, the HMM's empty word, jumps, start and end,
    the identity lexicon's weight, decoding and symmetrization (``scoring.aligners.em``)."""

    owner: ClassVar[str] = "aligner 'em'"
    paths: ClassVar[frozenset[str]] = frozenset({"ppdb"})
    constraints: ClassVar[Mapping[str, Constraint]] = {
        "max_length": _LENGTH,
        "model1_iterations": _EM_ITERATIONS,
        "hmm_iterations": _EM_ITERATIONS,
        "p_null": Interval(0, 1, closed="neither"),
        "max_jump": _LENGTH,
        "jump_smoothing": Interval(0, 100),
        "start": Choices(START_MODES),
        "end": Choices(END_MODES),
        "identity_weight": Interval(0, 1_000_000),
        "decode": Choices(DECODE_MODES),
        "floor": _PROBABILITY,
        "lexicon_smoothing": Interval(0, 100),
        "prune": _PROBABILITY,
        "lexical": Choices(LEXICAL_MODES),
        "training": Choices(TRAINING_MODES),
        "agreement_threshold": Interval(0, 1, closed="right"),
        "possible": Choices(POSSIBLE_MODES),
    }

    model1_iterations: int = 5
    hmm_iterations: int = 5
    p_null: float = 0.4
    learn_null: bool = False
    max_jump: int = 20
    jump_smoothing: float = 0.2
    start: str = "jump"
    end: str = "jump"
    identity_weight: float = 100.0
    lowercase: bool = True
    decode: str = "viterbi"
    floor: float = 1e-7
    lexicon_smoothing: float = 0.0
    prune: float = 1e-7
    lexical: str = "none"
    ppdb: str | None = None
    training: str = "independent"
    agreement_threshold: float = 0.5
    possible: str = "none"

    def check(self) -> None:
        if self.model1_iterations + self.hmm_iterations == 0:
            raise self.invalid(
                "at least one EM iteration is needed (model1_iterations + hmm_iterations ≥ 1)",
                option="hmm_iterations",
                value=0,
            )


@dataclass(frozen=True, slots=True)
class SupervisedOptions(AlignerOptions):
    """``supervised``: features (WordNet, PPDB, POS, encoders, corpus lexicon, blocks), the
    tree ensembles, the EM model whose posteriors are features, the fine-tuned cross-encoder
    and how links are decided (``scoring.aligners.supervised``)."""

    owner: ClassVar[str] = "aligner 'supervised'"
    paths: ClassVar[frozenset[str]] = frozenset({"ppdb"})
    constraints: ClassVar[Mapping[str, Constraint]] = {
        "max_length": _LENGTH,
        "sure_threshold": Interval(0, 1, closed="right"),
        "possible_threshold": Interval(0, 1, closed="right"),
        "trees": Interval(1, MAX_TREES),
        "learning_rate": Interval(0, 1, closed="right"),
        "max_leaf_nodes": Interval(2, 512),
        "min_samples_leaf": Interval(1, 100_000),
        "seed": SEED,
        "em_hmm_iterations": _EM_ITERATIONS,
        "negative_sample": Interval(0, 1, closed="right"),
        "fine_tune_epochs": Interval(0, MAX_FINE_TUNE_EPOCHS),
        "fine_tune_weight": _PROBABILITY,
        "decision": Choices(DECISIONS),
        "kind_trees": Interval(1, MAX_TREES),
        "max_training_pairs": Interval(1, 10_000_000),
    }

    ppdb: str | None = None
    wordnet: bool = True
    pos: bool = True
    sure_threshold: float = 0.5
    possible_threshold: float = 0.3
    trees: int = 200
    learning_rate: float = 0.02
    max_leaf_nodes: int = 31
    min_samples_leaf: int = 100
    seed: int = 0
    em_hmm_iterations: int = 5
    negative_sample: float = 0.2
    encoder: bool = True
    large_encoder: bool = False
    fine_tune_epochs: int = 0
    fine_tune_weight: float = 0.3
    decision: str = "corrections"
    lexicon: bool = True
    blocks: bool = True
    kind_trees: int = 100
    #: The trees learn from a seeded sample of this many annotated pairs at most (the corpus
    #: lexicon counts them all): the learning curve is flat past a few hundred, and the
    #: features of 13,000 pairs took two hours of a job.
    max_training_pairs: int = 2_000

    def unlearnt_advice(self, links: int) -> str:
        """Which options to change when the link trees, learning from ``links`` gold cells,
        gave no link a probability that reaches the cut. Boosting starts every cell at the
        links' base rate and each tree moves its log-odds by about ``learning_rate`` at most:
        leaves of more cells than there are links stay mostly non-links, and with a small
        ``trees × learning_rate`` the links' probabilities stop short of the cut however many
        links there are."""
        budget = self.trees * self.learning_rate
        defaults = SupervisedOptions()
        default = defaults.trees * defaults.learning_rate
        causes, fixes = [], []
        if links < self.min_samples_leaf:
            causes.append(
                f"{links} links are few for leaves of min_samples_leaf={self.min_samples_leaf} "
                "cells"
            )
            fixes.append("finish more pairs or lower min_samples_leaf")
        if budget < default:
            causes.append(
                f"trees={self.trees} at learning_rate={self.learning_rate:g} move the "
                f"probabilities too little (trees × learning_rate = {budget:g}, {default:g} at "
                "the defaults)"
            )
            fixes.append("raise trees or learning_rate")
        if not causes:
            return (
                "finish more pairs, raise trees or learning_rate, or lower min_samples_leaf "
                f"(now {self.min_samples_leaf})"
            )
        return f"{' and '.join(causes)}: {', or '.join(fixes)}"

    def check(self) -> None:
        if self.possible_threshold > self.sure_threshold:
            raise self.invalid(
                "thresholds must satisfy 0 < possible_threshold ≤ sure_threshold ≤ 1, got "
                f"possible_threshold={self.possible_threshold}, "
                f"sure_threshold={self.sure_threshold}",
                option="possible_threshold",
                value=self.possible_threshold,
            )
