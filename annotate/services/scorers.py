"""Train the similarity scorers on a corpus and use them.

Training data are a split's pairs with a target: the gold score (regression), the gold label
(classification) or the mean of the annotators' 0–5 similarity ratings (regression). The trained
model is stored in a :class:`~annotate.models.ScorerModel` row with its evaluation on the train
and test splits.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Avg, OuterRef, Subquery
from django.utils import timezone

from annotate.exceptions import DomainError, NotFound
from annotate.models import Assignment, Corpus, Job, ScorerModel, SentencePair
from scoring.errors import ScoringError
from scoring.scorers.base import TokenPair, evaluate, get_scorer, scorer_from_dict, scorer_kinds
from scoring.text import tokenize

TARGETS = ("gold_score", "gold_label", "rating")
MAX_SCORE_PAIRS = 1000


class ScorerTrainingError(DomainError):
    code = "scorer_training_failed"


def task_of(target: str) -> str:
    return "classification" if target == "gold_label" else "regression"


def training_data(corpus: Corpus, split: str, target: str) -> tuple[list[TokenPair], list[float]]:
    """The split's pairs that have the target, in corpus order."""
    if target not in TARGETS:
        raise ScorerTrainingError(f"target must be one of {', '.join(TARGETS)}, got {target!r}")
    pairs = SentencePair.objects.filter(corpus=corpus, split=split).order_by("position")
    if target == "rating":
        # The mean rating per pair by a subquery: grouping pair rows would make SQLite sort
        # every row by all its columns, token lists included.
        ratings = (
            Assignment.objects.filter(
                pair=OuterRef("pk"),
                status=Assignment.Status.SUBMITTED,
                annotation__rating__isnull=False,
            )
            .order_by()
            .values("pair")
            .annotate(mean=Avg("annotation__rating"))
            .values("mean")
        )
        rows: Any = (
            pairs.annotate(value=Subquery(ratings))
            .filter(value__isnull=False)
            .values_list("source_tokens", "target_tokens", "value")
        )
    else:
        rows = pairs.filter(**{f"{target}__isnull": False}).values_list(
            "source_tokens", "target_tokens", target
        )
    data = [((list(s), list(t)), float(v)) for s, t, v in rows]
    if not data:
        raise ScorerTrainingError(
            f"corpus {corpus.name!r} has no pairs in split {split!r} with a {target}"
        )
    return [pair for pair, _ in data], [value for _, value in data]


def scorer_train(
    *,
    corpus: Corpus,
    kind: str,
    train_split: str,
    test_split: str | None,
    target: str = "gold_score",
    options: dict[str, Any] | None = None,
    name: str | None = None,
    job: Job | None = None,
    progress: Callable[[float, str], None] | None = None,
) -> ScorerModel:
    """Train a scorer on a split, evaluate it on both splits, store it. Computes outside any
    transaction; the row is written at the end."""
    if kind not in scorer_kinds():
        raise ScorerTrainingError(f"unknown scorer {kind!r}; known: {', '.join(scorer_kinds())}")
    task = task_of(target)
    options = dict(options or {})
    if kind == "combined" and settings.PPDB_PATH:
        options.setdefault("ppdb", settings.PPDB_PATH)  # the aligner features' PPDB matches
    train_pairs, train_y = training_data(corpus, train_split, target)
    test = training_data(corpus, test_split, target) if test_split else None
    try:
        scorer = get_scorer(kind, task, **options)
        if progress is not None:
            progress(5, f"training {kind} on {len(train_pairs)} pairs")
        scorer.fit(train_pairs, train_y)
        if progress is not None:
            progress(85, "evaluating")
        evaluation: dict[str, Any] = {
            "train": {"split": train_split, **evaluate(task, train_y, scorer.predict(train_pairs))}
        }
        if test is not None:
            evaluation["test"] = {
                "split": test_split,
                **evaluate(task, test[1], scorer.predict(test[0])),
            }
        model_dict = scorer.to_dict()
    except ScoringError as error:
        raise ScorerTrainingError(str(error)) from error
    with transaction.atomic():
        return ScorerModel.objects.create(
            kind=kind,
            name=name or f"{kind}-{corpus.name}-{train_split}-{timezone.now():%Y%m%d-%H%M%S}",
            corpus=corpus,
            training={
                "train_split": train_split,
                "test_split": test_split,
                "target": target,
                "task": task,
                "pairs": len(train_pairs),
            },
            parameters=options,
            weights=model_dict,
            evaluation=evaluation,
            job=job,
        )


def train_scorer_run(job: Job, progress: Callable[[float, str], None]) -> dict[str, Any]:
    """Job runner of ``train_scorer``."""
    if job.corpus is None:
        raise ScorerTrainingError("a train_scorer job needs a corpus")
    p = job.parameters
    model = scorer_train(
        corpus=job.corpus,
        kind=str(p["kind"]),
        train_split=str(p["train_split"]),
        test_split=p.get("test_split"),
        target=str(p.get("target", "gold_score")),
        options=dict(p.get("options") or {}),
        name=p.get("name"),
        job=job,
        progress=progress,
    )
    return scorer_model_summary(model)


def scorer_model_summary(model: ScorerModel) -> dict[str, Any]:
    return {
        "model": model.pk,
        "name": model.name,
        "kind": model.kind,
        "corpus": model.corpus.name if model.corpus else None,
        "training": model.training,
        "parameters": model.parameters,
        "evaluation": model.evaluation,
    }


def scorer_score_texts(*, model: ScorerModel, pairs: Sequence[tuple[str, str]]) -> list[float]:
    """Score raw sentence pairs (tokenized Penn-Treebank style) with a stored model."""
    if not pairs:
        raise DomainError("give at least one pair")
    if len(pairs) > MAX_SCORE_PAIRS:
        raise DomainError(f"at most {MAX_SCORE_PAIRS} pairs per request, got {len(pairs)}")
    tokens = []
    for index, (first, second) in enumerate(pairs):
        a, b = tokenize(first), tokenize(second)
        if not a or not b:
            raise DomainError(f"pair {index}: a sentence is empty")
        tokens.append((a, b))
    try:
        scorer = scorer_from_dict(model.weights)
        return [float(v) for v in scorer.predict(tokens)]
    except ScoringError as error:
        raise DomainError(str(error)) from error


def scorer_model_get(reference: str | int) -> ScorerModel:
    model = (
        ScorerModel.objects.filter(pk=reference).first()
        if str(reference).isdigit()
        else ScorerModel.objects.filter(name=reference).first()
    )
    if model is None:
        raise NotFound(f"no scorer model {reference!r}")
    return model
