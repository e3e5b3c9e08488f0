"""Reads of trained similarity scorers. Nothing here writes."""

from __future__ import annotations

from django.db.models import QuerySet

from annotate.models import (
    ScorerModel,
)


def scorer_models() -> QuerySet[ScorerModel]:
    """Trained scorers, newest first."""
    return ScorerModel.objects.select_related("corpus").order_by("-created_at", "-id")
