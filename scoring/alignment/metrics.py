"""Precision, recall, F1 and AER over word links and phrase pairs.

Candidate ``A`` is scored against reference ``B`` (for agreement, one annotator is the reference),
after Och & Ney (2003), Fraser & Marcu (2007) and Cohn et al. (2008, §3, Equations 2 and 3):

- words: ``Precision = |A_S ∩ B_P| / |A_S|``, ``Recall = |A_P ∩ B_S| / |B_S|``,
  ``F1 = 2PR / (P + R)``; ``AER = 1 − (|A ∩ B_S| + |A ∩ B_P|) / (|A| + |B_S|)`` with ``A = A_P``
  (every candidate link, sure or possible);
- phrases, once over the pairs extracted from the sure alignments and once over those of ``P``:
  ``Precision = |A_atom ∩ B_all| / |A_atom|``, ``Recall = |A_all ∩ B_atom| / |B_atom|``.

Lexically identical word and phrase pairs (the same tokens ignoring case) are left out by default,
as the paper does. Two stages: :func:`word_counts` / :func:`phrase_counts` give per-pair integer
counts; :func:`word_scores` / :func:`phrase_scores` turn (summed) counts into scores. Corpus
figures are micro averages: counts are summed over pairs before dividing. A score whose
denominator is empty is ``None`` and is listed in ``undefined``, never a silent 0.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, fields
from itertools import combinations
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from scoring.alignment.links import Alignment, Link
from scoring.alignment.phrases import extract_phrase_pairs, identical_mask, identity_matrix
from scoring.errors import AlignmentError, InputError
from scoring.measures import f1

Kind = Literal["sure", "possible"]
WordKind = Literal["mixed", "sure", "possible"]
Level = Literal["word", "phrase"]


def _ratio(numerator: int, denominator: int) -> float | None:
    return None if denominator == 0 else numerator / denominator


@dataclass(frozen=True, slots=True)
class Scores:
    """Precision, recall, F1 (and AER for words); ``None`` where a denominator was empty."""

    precision: float | None
    recall: float | None
    f1: float | None
    aer: float | None = None
    with_aer: bool = False  # word scores carry AER; phrase scores do not

    @property
    def undefined(self) -> list[str]:
        """Names of the scores that are undefined (empty denominator)."""
        names = ["precision", "recall", "f1"] + (["aer"] if self.with_aer else [])
        return [name for name in names if getattr(self, name) is None]

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "precision": self.precision,
            "recall": self.recall,
            "f1": self.f1,
        }
        if self.with_aer:
            out["aer"] = self.aer
        out["undefined"] = self.undefined
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Scores:
        """The inverse of :meth:`to_dict` (``undefined`` is recomputed)."""

        def value(key: str) -> float | None:
            item = data[key]
            return None if item is None else float(item)

        with_aer = "aer" in data
        return cls(
            value("precision"),
            value("recall"),
            value("f1"),
            value("aer") if with_aer else None,
            with_aer,
        )


@dataclass(frozen=True, slots=True)
class WordCounts:
    """Sufficient statistics of the word-level scores of one pair (or a sum over pairs)."""

    candidate_sure: int = 0  # |A_S|
    reference_sure: int = 0  # |B_S|
    candidate_sure_in_reference_possible: int = 0  # |A_S ∩ B_P|
    candidate_possible_in_reference_sure: int = 0  # |A_P ∩ B_S|
    candidate_possible: int = 0  # |A_P|, the AER's |A|
    candidate_possible_in_reference_possible: int = 0  # |A_P ∩ B_P|
    reference_possible: int = 0  # |B_P|
    candidate_sure_in_reference_sure: int = 0  # |A_S ∩ B_S|

    def __add__(self, other: WordCounts) -> WordCounts:
        return WordCounts(
            *(getattr(self, f.name) + getattr(other, f.name) for f in fields(WordCounts))
        )

    def to_dict(self) -> dict[str, int]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> WordCounts:
        return cls(**{f.name: int(data[f.name]) for f in fields(cls)})


@dataclass(frozen=True, slots=True)
class PhraseCounts:
    """Sufficient statistics of the phrase-level scores of one pair (or a sum over pairs)."""

    candidate_atomic: int = 0  # |A_atom|
    reference_atomic: int = 0  # |B_atom|
    candidate_atomic_in_reference: int = 0  # |A_atom ∩ B_all|
    candidate_in_reference_atomic: int = 0  # |A_all ∩ B_atom|
    candidate_all: int = 0
    reference_all: int = 0
    atomic_agreement: int = 0  # |A_atom ∩ B_atom|, the numerator of π̂ in agreement

    def __add__(self, other: PhraseCounts) -> PhraseCounts:
        return PhraseCounts(
            *(getattr(self, f.name) + getattr(other, f.name) for f in fields(PhraseCounts))
        )

    def to_dict(self) -> dict[str, int]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> PhraseCounts:
        return cls(**{f.name: int(data[f.name]) for f in fields(cls)})


def _check_tokens(
    alignment: Alignment, source: Sequence[str] | None, target: Sequence[str] | None, who: str
) -> None:
    if source is None or target is None:
        return
    if alignment.shape != (len(source), len(target)):
        raise AlignmentError(
            f"{who} alignment is for a {alignment.n_source}×{alignment.n_target} pair but the "
            f"tokens are {len(source)}×{len(target)}"
        )


def _need_tokens(
    exclude_identical: bool, source: Sequence[str] | None, target: Sequence[str] | None
) -> None:
    if exclude_identical and (source is None or target is None):
        raise InputError(
            "leaving out identical pairs needs the source and target tokens "
            "(pass them, or exclude_identical=False)"
        )


def word_counts(
    candidate: Alignment,
    reference: Alignment,
    source: Sequence[str] | None = None,
    target: Sequence[str] | None = None,
    *,
    exclude_identical: bool = True,
) -> WordCounts:
    """Per-pair word-link counts of ``candidate`` against ``reference`` (Cohn et al. Eq. 2)."""
    if candidate.shape != reference.shape:
        raise AlignmentError(
            f"the alignments disagree on the pair's size: {candidate.shape} vs {reference.shape}"
        )
    _check_tokens(candidate, source, target, "candidate")
    _need_tokens(exclude_identical, source, target)

    def keep(links: frozenset[Link]) -> frozenset[Link]:
        if not exclude_identical or source is None or target is None:
            return links
        return frozenset((i, j) for i, j in links if source[i].lower() != target[j].lower())

    a_s, a_p = keep(candidate.sure), keep(candidate.possible)
    b_s, b_p = keep(reference.sure), keep(reference.possible)
    return WordCounts(
        candidate_sure=len(a_s),
        reference_sure=len(b_s),
        candidate_sure_in_reference_possible=len(a_s & b_p),
        candidate_possible_in_reference_sure=len(a_p & b_s),
        candidate_possible=len(a_p),
        candidate_possible_in_reference_possible=len(a_p & b_p),
        reference_possible=len(b_p),
        candidate_sure_in_reference_sure=len(a_s & b_s),
    )


def word_scores(counts: WordCounts, kind: str = "mixed") -> Scores:
    """Precision, recall, F1 and AER from (summed) :class:`WordCounts`.

    ``kind="mixed"`` is Equation 2 (``A_S`` against ``B_P``, ``A_P`` against ``B_S``), the
    standard for scoring against a reference. For the paper's Table 3 columns, ``"possible"``
    compares ``P`` with ``P`` and ``"sure"`` compares ``S`` with ``S``. AER is always Och & Ney's.
    """
    if kind == "mixed":
        precision = _ratio(counts.candidate_sure_in_reference_possible, counts.candidate_sure)
        recall = _ratio(counts.candidate_possible_in_reference_sure, counts.reference_sure)
    elif kind == "possible":
        both = counts.candidate_possible_in_reference_possible
        precision = _ratio(both, counts.candidate_possible)
        recall = _ratio(both, counts.reference_possible)
    elif kind == "sure":
        both = counts.candidate_sure_in_reference_sure
        precision = _ratio(both, counts.candidate_sure)
        recall = _ratio(both, counts.reference_sure)
    else:
        raise InputError(f"word kind must be 'mixed', 'possible' or 'sure', got {kind!r}")
    aer_den = counts.candidate_possible + counts.reference_sure
    aer = (
        None
        if aer_den == 0
        else 1.0
        - (
            counts.candidate_possible_in_reference_sure
            + counts.candidate_possible_in_reference_possible
        )
        / aer_den
    )
    return Scores(precision, recall, f1(precision, recall), aer, with_aer=True)


def lowest_pairwise_f1(alignments: Sequence[Alignment]) -> float | None:
    """How far apart the annotators of one pair are: the lowest word-link F1 between any two of
    ``alignments`` (``P`` against ``P``, every link counted, identical words included: the F1 of
    :func:`word_scores` with ``kind="possible"``, which does not depend on which of the two is
    the reference). Where that F1 is undefined because an alignment has no link, two empty
    alignments agree completely (1.0) and an empty one shares nothing with one that has links
    (0.0). ``None`` for fewer than two alignments."""
    if len(alignments) < 2:
        return None
    lowest = 1.0
    for a, b in combinations(alignments, 2):
        value = word_scores(word_counts(a, b, exclude_identical=False), "possible").f1
        if value is None:
            value = 1.0 if not a.possible and not b.possible else 0.0
        lowest = min(lowest, value)
    return lowest


def _phrase_keys(
    alignment: Alignment,
    kind: str,
    identity: npt.NDArray[np.uint8] | None,
    boundary_rule: bool,
    max_length: int | None,
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Sorted int64 keys of all and of the atomic phrase pairs (identical ones dropped when
    ``identity`` is given)."""
    pairs = extract_phrase_pairs(
        alignment, use=kind, boundary_rule=boundary_rule, max_length=max_length
    )
    keys = pairs.keys(alignment.n_source, alignment.n_target)
    atomic = pairs.atomic
    if identity is not None:
        keep = ~identical_mask(pairs.spans, (), (), identity=identity)
        keys, atomic = keys[keep], atomic[keep]
    return keys, keys[atomic]


def _common(a: npt.NDArray[np.int64], b: npt.NDArray[np.int64]) -> int:
    return int(np.intersect1d(a, b, assume_unique=True).size)


def phrase_counts(
    candidate: Alignment,
    reference: Alignment,
    source: Sequence[str] | None = None,
    target: Sequence[str] | None = None,
    *,
    kind: str = "possible",
    exclude_identical: bool = True,
    boundary_rule: bool = True,
    max_length: int | None = None,
) -> PhraseCounts:
    """Per-pair phrase-pair counts of ``candidate`` against ``reference`` (Cohn et al. Eq. 3).

    ``kind`` picks the alignment the pairs are extracted from: ``"sure"`` (S) or
    ``"possible"`` (P).
    """
    if kind not in ("sure", "possible"):
        raise InputError(f"kind must be 'sure' or 'possible', got {kind!r}")
    if candidate.shape != reference.shape:
        raise AlignmentError(
            f"the alignments disagree on the pair's size: {candidate.shape} vs {reference.shape}"
        )
    _check_tokens(candidate, source, target, "candidate")
    _need_tokens(exclude_identical, source, target)
    identity = None
    if exclude_identical and source is not None and target is not None:
        identity = identity_matrix(source, target)
    a_all, a_atom = _phrase_keys(candidate, kind, identity, boundary_rule, max_length)
    b_all, b_atom = _phrase_keys(reference, kind, identity, boundary_rule, max_length)
    return PhraseCounts(
        candidate_atomic=int(a_atom.size),
        reference_atomic=int(b_atom.size),
        candidate_atomic_in_reference=_common(a_atom, b_all),
        candidate_in_reference_atomic=_common(a_all, b_atom),
        candidate_all=int(a_all.size),
        reference_all=int(b_all.size),
        atomic_agreement=_common(a_atom, b_atom),
    )


def phrase_scores(counts: PhraseCounts) -> Scores:
    """Precision, recall and F1 from (summed) :class:`PhraseCounts`."""
    precision = _ratio(counts.candidate_atomic_in_reference, counts.candidate_atomic)
    recall = _ratio(counts.candidate_in_reference_atomic, counts.reference_atomic)
    return Scores(precision, recall, f1(precision, recall))


def sum_word_counts(items: Iterable[WordCounts]) -> WordCounts:
    total = WordCounts()
    for item in items:
        total = total + item
    return total


def sum_phrase_counts(items: Iterable[PhraseCounts]) -> PhraseCounts:
    total = PhraseCounts()
    for item in items:
        total = total + item
    return total


@dataclass(frozen=True, slots=True)
class ComparePair:
    """One sentence pair to compare: tokens plus candidate and reference alignments."""

    source: Sequence[str]
    target: Sequence[str]
    candidate: Alignment
    reference: Alignment
    key: str = ""


@dataclass(frozen=True, slots=True)
class CorpusScores:
    """Micro-averaged corpus scores plus the per-pair counts and scores they came from."""

    level: str
    kind: str
    overall: Scores
    counts: WordCounts | PhraseCounts
    per_pair: list[tuple[str, WordCounts | PhraseCounts, Scores]]

    def to_dict(self) -> dict[str, Any]:
        return {
            "level": self.level,
            "kind": self.kind,
            "overall": self.overall.to_dict(),
            "counts": self.counts.to_dict(),
            "per_pair": [
                {"key": key, "counts": c.to_dict(), "scores": s.to_dict()}
                for key, c, s in self.per_pair
            ],
        }


def corpus_scores(
    pairs: Iterable[ComparePair],
    *,
    level: str = "word",
    kind: str | None = None,
    exclude_identical: bool = True,
    boundary_rule: bool = True,
    max_length: int | None = None,
) -> CorpusScores:
    """Score a corpus: per-pair counts, then a micro average (counts summed before dividing).

    ``kind``: for phrases, the alignment the pairs come from (``"sure"`` or ``"possible"``); for
    words, ``"mixed"`` (Equation 2), ``"possible"`` (P vs P) or ``"sure"`` (S vs S). The
    default is ``"mixed"`` for words and ``"possible"`` for phrases.
    """
    if kind is None:
        kind = "mixed" if level == "word" else "possible"
    if level == "word" and kind not in ("mixed", "sure", "possible"):
        raise InputError(f"word kind must be 'mixed', 'possible' or 'sure', got {kind!r}")
    if level == "phrase" and kind not in ("sure", "possible"):
        raise InputError(f"phrase kind must be 'sure' or 'possible', got {kind!r}")
    per_pair: list[tuple[str, WordCounts | PhraseCounts, Scores]] = []
    if level == "word":
        total_w = WordCounts()
        for pair in pairs:
            wc = word_counts(
                pair.candidate,
                pair.reference,
                pair.source,
                pair.target,
                exclude_identical=exclude_identical,
            )
            total_w = total_w + wc
            per_pair.append((pair.key, wc, word_scores(wc, kind)))
        return CorpusScores("word", kind, word_scores(total_w, kind), total_w, per_pair)
    if level == "phrase":
        total_p = PhraseCounts()
        for pair in pairs:
            pc = phrase_counts(
                pair.candidate,
                pair.reference,
                pair.source,
                pair.target,
                kind=kind,
                exclude_identical=exclude_identical,
                boundary_rule=boundary_rule,
                max_length=max_length,
            )
            total_p = total_p + pc
            per_pair.append((pair.key, pc, phrase_scores(pc)))
        return CorpusScores("phrase", kind, phrase_scores(total_p), total_p, per_pair)
    raise InputError(f"level must be 'word' or 'phrase', got {level!r}")


def nan_if_undefined(value: float | None) -> float:
    """``None`` → NaN, for numpy plotting code; the JSON reports keep ``None``."""
    return float("nan") if value is None else float(value)


__all__ = [
    "ComparePair",
    "CorpusScores",
    "PhraseCounts",
    "Scores",
    "WordCounts",
    "corpus_scores",
    "lowest_pairwise_f1",
    "nan_if_undefined",
    "phrase_counts",
    "phrase_scores",
    "sum_phrase_counts",
    "sum_word_counts",
    "word_counts",
    "word_scores",
]
