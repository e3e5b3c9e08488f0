"""Reads of trained similarity scorers and of what a corpus offers to train them on. Nothing
here writes."""

from __future__ import annotations

from typing import Any

from django.db.models import Count, QuerySet

from annotate.models import Assignment, Corpus, ScorerModel, SentencePair


def scorer_models() -> QuerySet[ScorerModel]:
    """Trained scorers, newest first."""
    return ScorerModel.objects.select_related("corpus").order_by("-created_at", "-id")


def scorer_training_targets(corpus: Corpus) -> list[dict[str, Any]]:
    """Per split of ``corpus`` (sorted, ``""`` for pairs without one): its pairs and how many
    of them have each training target: a gold score, a gold label, a 0–5 rating in a submitted
    annotation. Two grouped counts, over the pairs' split index and the assignments."""
    rows = {
        row["split"]: {**row, "rating": 0}
        for row in SentencePair.objects.filter(corpus=corpus)
        .order_by()
        .values("split")
        .annotate(pairs=Count("id"), gold_score=Count("gold_score"), gold_label=Count("gold_label"))
    }
    rated = (
        Assignment.objects.filter(
            pair__corpus=corpus,
            status=Assignment.Status.SUBMITTED,
            annotation__rating__isnull=False,
        )
        .order_by()
        .values("pair__split")
        .annotate(pairs=Count("pair", distinct=True))
    )
    for row in rated:
        rows[row["pair__split"]]["rating"] = row["pairs"]
    return [rows[split] for split in sorted(rows)]
