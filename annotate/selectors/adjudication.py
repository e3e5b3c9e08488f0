"""Reads for adjudication: pairs ready for it and one pair's annotations side by side.
Nothing here writes."""

from __future__ import annotations

from typing import Any

from django.db.models import Count, Exists, OuterRef, QuerySet, Subquery
from django.db.models.functions import Coalesce

from annotate.models import (
    Annotation,
    Assignment,
    GoldAlignment,
    SentencePair,
)
from annotate.selectors.workspace import pair_payload, prefill_of
from annotate.services.annotations import LinkMap, annotation_links, links_list

#: The gold source of an adjudicator's work (imports write "imported").
ADJUDICATED = "adjudicated"


def pairs_for_adjudication(
    *, min_annotations: int = 2, status: str | None = None
) -> QuerySet[SentencePair]:
    """Pairs with at least ``min_annotations`` submitted annotations, archived corpora left
    out: the ones still waiting for an adjudicator first, then in corpus order. ``status``:
    ``waiting`` (no gold, or only imported gold), ``adjudicated`` (an adjudicator saved the
    gold) or ``imported`` (gold from an import or a trial sample)."""
    # Counted per pair by a subquery, not by joining and grouping: grouping would make SQLite
    # sort every pair row by all its columns, token lists included.
    submitted = (
        Assignment.objects.filter(pair=OuterRef("pk"), status=Assignment.Status.SUBMITTED)
        .order_by()
        .values("pair")
        .annotate(count=Count("*"))
        .values("count")
    )
    pairs = SentencePair.objects.annotate(
        n_submitted=Coalesce(Subquery(submitted), 0),
        adjudicated=Exists(GoldAlignment.objects.filter(pair=OuterRef("pk"), source=ADJUDICATED)),
    ).filter(n_submitted__gte=min_annotations, corpus__archived_at__isnull=True)
    if status == "waiting":
        pairs = pairs.filter(adjudicated=False)
    elif status == "adjudicated":
        pairs = pairs.filter(adjudicated=True)
    elif status == "imported":
        pairs = pairs.filter(gold__isnull=False, adjudicated=False)
    # Only what the list shows: a pair row also holds its texts and token lists.
    return (
        pairs.select_related("corpus", "gold", "gold__adjudicator")
        .only(
            "id",
            "external_id",
            "position",
            "corpus__name",
            "gold__source",
            "gold__updated_at",
            "gold__adjudicator__username",
        )
        .order_by("adjudicated", "corpus__name", "position")
    )


def gold_state(gold: GoldAlignment, links: LinkMap | None = None) -> dict[str, Any]:
    """A gold alignment as clients see it: its links (``links`` when the caller has read them),
    version, who saved it and when, and its origin: an adjudicator or an import."""
    if links is None:
        links = {(i, j): sure for i, j, sure in gold.links.values_list("i", "j", "sure")}
    return {
        "links": links_list(links),
        "version": gold.version,
        "adjudicator": gold.adjudicator.get_username() if gold.adjudicator else None,
        "updated_at": gold.updated_at.isoformat(),
        "origin": gold.source,
    }


def adjudication_status(pair: SentencePair) -> str:
    """``adjudicated`` once an adjudicator saved the gold, else ``waiting``."""
    gold = getattr(pair, "gold", None)
    return "adjudicated" if gold is not None and gold.source == ADJUDICATED else "waiting"


def adjudication_of(pair: SentencePair) -> dict[str, Any]:
    """Every annotator's alignment, the prefill and the gold of a pair (with its version, which
    a save of the gold names)."""
    annotations = []
    for assignment in (
        Assignment.objects.filter(pair=pair)
        .select_related("annotator", "annotation")
        .order_by("annotator__username")
    ):
        annotation = Annotation.objects.filter(assignment=assignment).first()
        if annotation is None:
            continue
        annotations.append(
            {
                "annotator": assignment.annotator.get_username(),
                "status": assignment.status,
                "version": annotation.version,
                "links": links_list(annotation_links(annotation)),
                "flags": list(annotation.flags),
                "comment": annotation.comment,
                "rating": annotation.rating,
            }
        )
    gold = GoldAlignment.objects.select_related("adjudicator").filter(pair=pair).first()
    return {
        "pair": pair_payload(pair),
        "prefill": prefill_of(pair),
        "annotations": annotations,
        "gold": None if gold is None else gold_state(gold),
    }
