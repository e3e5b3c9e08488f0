"""Evaluating aligners against gold alignments.

Every figure is labelled in :meth:`EvaluationReport.to_dict`:

``literature``
    The measure of the monolingual-alignment literature (jacana, Yao et al. 2013; Sultan et al.
    2014, 2015; Lan et al. 2021): gold = the gold *sure* links only; for each pair
    ``P_k = |A ∩ G| / |A|`` and ``R_k = |A ∩ G| / |G|``; precision and recall are the means
    over pairs, F1 the harmonic mean of the two means; identical-word links are included;
    exact match = % of pairs with ``A = G``. A pair with ``A = ∅`` has no ``P_k`` and one with
    ``G = ∅`` no ``R_k``: they are left out of that mean and counted in ``pairs_without_*``.
    Reported twice: ``A`` = every predicted link (sure or possible, what the annotator sees) and
    ``A`` = the predicted sure links only (for ``em``, the intersection, GIZA++'s setting).
``non_identical``
    The same per-pair counts restricted to links between words that differ ignoring case, summed
    over pairs before dividing (micro average: many pairs have no such gold link).
``och_ney`` / ``och_ney_non_identical``
    Och & Ney (2003) precision ``|A_S ∩ B_P| / |A_S|``, recall ``|A_P ∩ B_S| / |B_S|``, F1 and
    AER against the gold sure and possible links, counts summed over pairs
    (:mod:`scoring.alignment.metrics`), with identical links kept and left out (Cohn et al.
    2008, §3).
``phrases_sure`` / ``phrases_possible``
    Atomic phrase-pair precision/recall/F1 (Cohn et al. 2008, §3, their Table 5), identical
    phrase pairs left out, from the sure alignments and from ``P``
    (:mod:`scoring.alignment.metrics`).

Two stages, as everywhere in :mod:`scoring`: :func:`prediction_counts` gives per-pair integer
counts, :func:`aggregate` turns a list of them into scores.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from scoring.aligners.base import Aligner, AlignerOutput, TokenPair
from scoring.alignment.links import Alignment, Link
from scoring.alignment.majority import majority_alignment
from scoring.alignment.metrics import (
    PhraseCounts,
    WordCounts,
    phrase_counts,
    phrase_scores,
    sum_phrase_counts,
    sum_word_counts,
    word_counts,
    word_scores,
)
from scoring.corpus import PairRecord
from scoring.errors import InputError
from scoring.measures import f1

LITERATURE_LABEL = (
    "literature metric (jacana/Sultan/Lan): gold = sure links only; P and R per pair, averaged "
    "over pairs; F1 = harmonic mean of the two averages; identical links included"
)


@dataclass(frozen=True, slots=True)
class SetCounts:
    """``|A|``, ``|G|``, ``|A ∩ G|`` and whether ``A = G`` for one pair."""

    predicted: int
    gold: int
    correct: int
    exact: bool

    @classmethod
    def of(cls, predicted: frozenset[Link], gold: frozenset[Link]) -> SetCounts:
        return cls(len(predicted), len(gold), len(predicted & gold), predicted == gold)


@dataclass(frozen=True, slots=True)
class PredictionCounts:
    """All per-pair sufficient statistics of one prediction against one gold alignment."""

    literature_all: SetCounts
    literature_sure: SetCounts
    non_identical: SetCounts
    words: WordCounts
    words_non_identical: WordCounts
    phrases_sure: PhraseCounts | None
    phrases_possible: PhraseCounts | None


def _non_identical(
    links: frozenset[Link], source: Sequence[str], target: Sequence[str]
) -> frozenset[Link]:
    return frozenset((i, j) for i, j in links if source[i].lower() != target[j].lower())


def prediction_counts(
    source: Sequence[str],
    target: Sequence[str],
    predicted: Alignment,
    gold: Alignment,
    *,
    phrases: bool = True,
) -> PredictionCounts:
    """Per-pair counts of ``predicted`` against ``gold`` (see the module docstring)."""
    if predicted.shape != gold.shape or gold.shape != (len(source), len(target)):
        raise InputError(
            f"prediction {predicted.shape}, gold {gold.shape} and tokens "
            f"{(len(source), len(target))} disagree on the pair's size"
        )
    return PredictionCounts(
        literature_all=SetCounts.of(predicted.possible, gold.sure),
        literature_sure=SetCounts.of(predicted.sure, gold.sure),
        non_identical=SetCounts.of(
            _non_identical(predicted.possible, source, target),
            _non_identical(gold.sure, source, target),
        ),
        words=word_counts(predicted, gold, source, target, exclude_identical=False),
        words_non_identical=word_counts(predicted, gold, source, target, exclude_identical=True),
        phrases_sure=(
            phrase_counts(predicted, gold, source, target, kind="sure") if phrases else None
        ),
        phrases_possible=(
            phrase_counts(predicted, gold, source, target, kind="possible") if phrases else None
        ),
    )


def literature_scores(items: Sequence[SetCounts]) -> dict[str, Any]:
    """Per-pair precision and recall averaged over pairs; F1 of the averages; exact match."""
    precisions = [c.correct / c.predicted for c in items if c.predicted]
    recalls = [c.correct / c.gold for c in items if c.gold]
    p = float(np.mean(precisions)) if precisions else None
    r = float(np.mean(recalls)) if recalls else None
    return {
        "precision": p,
        "recall": r,
        "f1": f1(p, r),
        "exact_match": (100.0 * sum(c.exact for c in items) / len(items)) if items else None,
        "pairs": len(items),
        "pairs_without_predicted_links": sum(1 for c in items if not c.predicted),
        "pairs_without_gold_links": sum(1 for c in items if not c.gold),
    }


def micro_scores(items: Sequence[SetCounts]) -> dict[str, Any]:
    """Counts summed over pairs, then precision, recall, F1."""
    predicted = sum(c.predicted for c in items)
    gold = sum(c.gold for c in items)
    correct = sum(c.correct for c in items)
    p = correct / predicted if predicted else None
    r = correct / gold if gold else None
    # 2·TP / (|A| + |G|): the harmonic mean where both are defined, and 0 (not undefined) when
    # nothing was predicted but gold links exist.
    f1 = 2 * correct / (predicted + gold) if predicted + gold else None
    return {
        "precision": p,
        "recall": r,
        "f1": f1,
        "predicted_links": predicted,
        "gold_links": gold,
        "correct_links": correct,
    }


@dataclass(slots=True)
class EvaluationReport:
    """Scores of one aligner on one gold set, with labels; :meth:`to_dict` is the JSON."""

    aligner: str
    gold_name: str
    pairs: int
    scores: dict[str, Any]
    parameters: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "aligner": self.aligner,
            "gold": self.gold_name,
            "pairs": self.pairs,
            "parameters": self.parameters,
            **self.scores,
        }

    def summary(self) -> str:
        return format_summary(self.to_dict())


def format_summary(report: dict[str, Any]) -> str:
    """Readable lines of one :meth:`EvaluationReport.to_dict`."""
    lit = report["literature"]
    lit_s = report["literature_sure_only"]
    non = report["non_identical"]
    on = report["och_ney"]

    def pct(v: float | None) -> str:
        return "  n/a" if v is None else f"{100 * v:5.1f}"

    lines = [
        f"{report['aligner']} against {report['gold']} ({report['pairs']} pairs)",
        f"  literature metric, all predicted links:  P {pct(lit['precision'])}  "
        f"R {pct(lit['recall'])}  F1 {pct(lit['f1'])}  exact {lit['exact_match']:.1f}%",
        f"  literature metric, predicted sure only:  P {pct(lit_s['precision'])}  "
        f"R {pct(lit_s['recall'])}  F1 {pct(lit_s['f1'])}  exact {lit_s['exact_match']:.1f}%",
        f"  non-identical links (micro, gold sure):  P {pct(non['precision'])}  "
        f"R {pct(non['recall'])}  F1 {pct(non['f1'])}",
        f"  Och & Ney vs S and P (micro):            P {pct(on['precision'])}  "
        f"R {pct(on['recall'])}  F1 {pct(on['f1'])}  AER {pct(on['aer'])}",
    ]
    for key, label in (("phrases_sure", "Sure"), ("phrases_possible", "Poss")):
        ph = report.get(key)
        if ph is not None:
            lines.append(
                f"  atomic phrase pairs ({label}):{' ' * (15 - len(label))}"
                f"P {pct(ph['precision'])}  R {pct(ph['recall'])}  F1 {pct(ph['f1'])}"
            )
    return "\n".join(lines)


def aggregate(stats: Sequence[PredictionCounts]) -> dict[str, Any]:
    """Labelled corpus scores from per-pair statistics."""
    words = word_scores(sum_word_counts(s.words for s in stats)).to_dict()
    words_ni = word_scores(sum_word_counts(s.words_non_identical for s in stats)).to_dict()
    out: dict[str, Any] = {
        "literature": {
            "label": LITERATURE_LABEL + "; predicted = every link (sure or possible)",
            **literature_scores([s.literature_all for s in stats]),
        },
        "literature_sure_only": {
            "label": LITERATURE_LABEL + "; predicted = sure links only",
            **literature_scores([s.literature_sure for s in stats]),
        },
        "non_identical": {
            "label": "links between words that differ ignoring case only; gold = sure links; "
            "predicted = every link; counts summed over pairs",
            **micro_scores([s.non_identical for s in stats]),
        },
        "och_ney": {
            "label": "Och & Ney 2003: P = |A_S ∩ G_P|/|A_S|, R = |A_P ∩ G_S|/|G_S|, AER; "
            "counts summed over pairs; identical links included",
            **words,
        },
        "och_ney_non_identical": {
            "label": "as och_ney with identical links left out (Cohn et al. 2008, §3)",
            **words_ni,
        },
    }
    for key, kind in (("phrases_sure", "sure"), ("phrases_possible", "possible")):
        counts = [getattr(s, key) for s in stats]
        if counts and all(c is not None for c in counts):
            total = sum_phrase_counts(c for c in counts if c is not None)
            out[key] = {
                "label": f"atomic phrase pairs from the {kind} alignments (Cohn et al. 2008 "
                "§3, Table 5): P = |A_atom ∩ G_all|/|A_atom|, R = |A_all ∩ G_atom|/|G_atom|; "
                "identical phrase pairs left out; counts summed over pairs",
                **phrase_scores(total).to_dict(),
                "counts": asdict(total),
            }
    return out


def evaluate_predictions(
    pairs: Sequence[TokenPair],
    predicted: Sequence[Alignment],
    gold: Sequence[Alignment],
    *,
    aligner: str = "",
    gold_name: str = "",
    phrases: bool = True,
    parameters: dict[str, Any] | None = None,
) -> EvaluationReport:
    if not (len(pairs) == len(predicted) == len(gold)):
        raise InputError(
            f"{len(pairs)} pairs, {len(predicted)} predictions and {len(gold)} gold alignments"
        )
    if not pairs:
        raise InputError("nothing to evaluate: no pairs")
    stats = [
        prediction_counts(s, t, p, g, phrases=phrases)
        for (s, t), p, g in zip(pairs, predicted, gold, strict=True)
    ]
    return EvaluationReport(aligner, gold_name, len(pairs), aggregate(stats), parameters or {})


def fold_assignment(n: int, folds: int, seed: int) -> np.ndarray[Any, np.dtype[np.int64]]:
    """Fold number ``0..folds−1`` of each of ``n`` items: a seeded shuffle, sizes differing by
    at most one."""
    if folds < 2:
        raise InputError(f"cross-validation needs at least 2 folds, got {folds}")
    if folds > n:
        raise InputError(f"{folds} folds but only {n} pairs")
    order = np.random.default_rng(seed).permutation(n)
    out = np.empty(n, dtype=np.int64)
    out[order] = np.arange(n) % folds
    return out


def cross_validate(
    make: Callable[[], Aligner],
    pairs: Sequence[TokenPair],
    gold: Sequence[Alignment | None],
    *,
    folds: int,
    seed: int = 0,
    extra_pairs: Sequence[TokenPair] = (),
    extra_gold: Sequence[Alignment | None] | None = None,
) -> tuple[list[AlignerOutput], dict[str, Any]]:
    """Predictions for every pair from an aligner that saw no gold alignment of that pair's fold.

    Each fold's aligner trains on every pair plus ``extra_pairs`` (with ``extra_gold``), given
    the gold alignments of the other folds only; an aligner that does not use gold
    (``uses_gold`` false) learns the same thing in every fold, so it is trained once. Returns
    the predictions and a record of the folds (seed, sizes).
    """
    if len(gold) != len(pairs):
        raise InputError(f"{len(gold)} gold alignments for {len(pairs)} pairs")
    fold_of = fold_assignment(len(pairs), folds, seed)
    probe = make()
    if not probe.uses_gold:
        outputs = predict_all(probe, pairs, extra_pairs=extra_pairs)
    else:
        slots: list[AlignerOutput | None] = [None] * len(pairs)
        extra: list[Alignment | None] = (
            list(extra_gold) if extra_gold is not None else [None] * len(extra_pairs)
        )
        for fold in range(folds):
            aligner = make()
            fold_gold: list[Alignment | None] = [
                None if fold_of[k] == fold else gold[k] for k in range(len(pairs))
            ]
            aligner.fit(list(pairs) + list(extra_pairs), fold_gold + extra)
            for index in np.flatnonzero(fold_of == fold).tolist():
                s, t = pairs[index]
                slots[index] = aligner.align(s, t)
        outputs = [o for o in slots if o is not None]
    record = {
        "folds": folds,
        "seed": seed,
        "fold_sizes": np.bincount(fold_of, minlength=folds).tolist(),
        "retrained_per_fold": probe.uses_gold,
    }
    return outputs, record


def predict_all(
    aligner: Aligner,
    pairs: Sequence[TokenPair],
    *,
    extra_pairs: Sequence[TokenPair] = (),
    extra_gold: Sequence[Alignment | None] | None = None,
) -> list[AlignerOutput]:
    """Train (if the aligner learns and is not trained yet) on ``pairs`` + ``extra_pairs``, with
    gold only for the extra pairs, then align every pair of ``pairs``."""
    if not aligner.trained and (aligner.needs_training or aligner.uses_gold):
        train_pairs = list(pairs) + list(extra_pairs)
        if aligner.uses_gold:
            if extra_gold is None or not any(g is not None for g in extra_gold):
                raise InputError(
                    f"the '{aligner.name}' aligner learns from gold alignments: give training "
                    "files with gold alignments (--train) or cross-validate (--folds K)"
                )
            aligner.fit(train_pairs, [None] * len(pairs) + list(extra_gold))
        else:
            aligner.fit(train_pairs)
    return [aligner.align(s, t) for s, t in pairs]


def references(records: Sequence[PairRecord]) -> dict[str, list[Alignment]]:
    """The gold alignments to evaluate against, by name: ``gold`` (every record has a gold
    alignment), each annotator who annotated every record, and ``majority`` (the majority rule of
    :mod:`scoring.alignment.majority`) when there are three or more annotators."""
    out: dict[str, list[Alignment]] = {}
    if records and all(r.gold_alignment is not None for r in records):
        out["gold"] = [r.gold_alignment for r in records if r.gold_alignment is not None]
    names = sorted(set.intersection(*(set(r.annotations) for r in records))) if records else []
    for name in names:
        out[name] = [r.annotations[name].alignment for r in records]
    if len(names) >= 3:
        out["majority"] = [
            majority_alignment([r.annotations[n].alignment for n in names]) for r in records
        ]
    if not out:
        raise InputError(
            "the gold files hold no alignment to evaluate against (no gold alignment and no "
            "annotator who aligned every pair)"
        )
    return out


def training_gold(record: PairRecord) -> Alignment | None:
    """The alignment a supervised aligner learns from: the gold alignment, else the majority of
    the annotators' alignments (:mod:`scoring.alignment.majority`; one annotator's is their
    own), as the web app's retraining takes it; ``None`` for a pair nobody aligned."""
    if record.gold_alignment is not None:
        return record.gold_alignment
    alignments = [a.alignment for _, a in sorted(record.annotations.items())]
    return majority_alignment(alignments) if alignments else None


def evaluate_records(
    make: Callable[[], Aligner],
    records: Sequence[PairRecord],
    *,
    folds: int | None = None,
    seed: int = 0,
    train_records: Sequence[PairRecord] = (),
    extra_pairs: Sequence[TokenPair] = (),
    phrases: bool = True,
) -> dict[str, Any]:
    """Run one aligner on a gold corpus and score it against every reference (:func:`references`).

    Without ``folds`` the aligner trains once on every pair (its gold only from
    ``train_records``); with ``folds`` it is cross-validated (:func:`cross_validate`).
    ``extra_pairs`` are unlabelled pairs added to training. Returns a JSON-ready dict.
    """
    pairs: list[TokenPair] = [(r.source_tokens, r.target_tokens) for r in records]
    refs = references(records)
    train_pairs: list[TokenPair] = [(r.source_tokens, r.target_tokens) for r in train_records]
    train_pairs += list(extra_pairs)
    train_gold = [training_gold(r) for r in train_records] + [None] * len(extra_pairs)
    started = time.perf_counter()
    probe = make()
    cv: dict[str, Any] | None = None
    if folds:
        outputs, cv = cross_validate(
            make,
            pairs,
            [training_gold(r) for r in records],
            folds=folds,
            seed=seed,
            extra_pairs=train_pairs,
            extra_gold=train_gold,
        )
    else:
        outputs = predict_all(probe, pairs, extra_pairs=train_pairs, extra_gold=train_gold)
    seconds = time.perf_counter() - started
    predicted = [o.alignment for o in outputs]
    warnings = sorted({w for o in outputs for w in o.warnings})
    return {
        "aligner": probe.name,
        "options": probe.options.to_dict(),
        "pairs": len(pairs),
        "training": {
            "extra_pairs": len(train_pairs),
            "cross_validation": cv,
            "seconds_train_and_align": seconds,
        },
        "warnings": warnings,
        "references": {
            name: evaluate_predictions(
                pairs, predicted, gold, aligner=probe.name, gold_name=name, phrases=phrases
            ).to_dict()
            for name, gold in refs.items()
        },
    }
