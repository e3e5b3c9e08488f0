"""Gold alignments written by adjudicators."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.db import transaction

from annotate.models import GoldAlignment, GoldLink, SentencePair
from annotate.services.annotations import InvalidLinks, LinkMap
from annotate.services.links import links_insert
from scoring.alignment.links import check_bounds
from scoring.errors import AlignmentError

if TYPE_CHECKING:
    from django.contrib.auth.models import User


@transaction.atomic
def gold_save(*, pair: SentencePair, links: LinkMap, adjudicator: User) -> GoldAlignment:
    """Replace the pair's gold alignment with ``links`` (validated against the pair's size)."""
    try:
        check_bounds(links, pair.n_source, pair.n_target)
    except AlignmentError as error:
        raise InvalidLinks(str(error)) from None
    locked = SentencePair.objects.select_for_update().get(pk=pair.pk)
    gold, _ = GoldAlignment.objects.get_or_create(
        pair=locked, defaults={"adjudicator": adjudicator, "source": "adjudicated"}
    )
    gold.adjudicator = adjudicator
    gold.source = "adjudicated"
    gold.save(update_fields=["adjudicator", "source", "updated_at"])
    gold.links.all().delete()
    links_insert(
        model=GoldLink,
        parent_column="gold_id",
        rows=((gold.pk, i, j, sure) for (i, j), sure in sorted(links.items())),
    )
    return gold
