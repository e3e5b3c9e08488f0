"""Gold alignments written by adjudicators, versioned like annotations.

Every change is one new ``version`` of the pair's gold alignment and one row of the append-only
:class:`GoldEvent` log with the links it set (``[i, j, "S"|"P"]``, including links whose sure flag
changed) and cleared (``[i, j]``). A save names the version it was made on (0 when the pair had
no gold yet); the read-modify-write runs under ``select_for_update()``, so of two adjudicators
who loaded the same version the second gets a 409 with the gold the first saved, and nothing
changes.

A clear (:func:`gold_clear`) sends the pair back to "waiting for adjudication": its gold alignment
row goes, so every reader (the list, the page, exports, statistics, prefill training) sees no
gold, and the log, which belongs to the pair, gets a ``cleared`` event of the next version with
the links it removed. The pair's gold version goes on through it: a pair waiting again is at the
version of its ``cleared`` event, and the save that starts its next gold names that version, as
a page that saw the clear does. A page from before it (or one opened before the gold it cleared
was saved) names an older version and gets a 409 naming the clear, so a stale edit never makes
a new gold unasked.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from django.db import transaction
from django.db.models import Max

from annotate.exceptions import Conflict
from annotate.models import TRIAL_SPLIT, GoldAlignment, GoldEvent, GoldLink, SentencePair
from annotate.selectors.adjudication import (
    ADJUDICATED,
    gold_state,
    gold_waiting_state,
    last_gold_event,
)
from annotate.services.annotations import InvalidLinks, LinkMap, links_count_check, links_list
from annotate.services.disagreement import pair_disagreement_gold
from annotate.services.links import links_delete, links_insert
from scoring.alignment.links import check_bounds
from scoring.errors import AlignmentError

if TYPE_CHECKING:
    from django.contrib.auth.models import User

#: The version a save names when the pair has no gold alignment yet.
NO_GOLD = 0


class StaleGold(Conflict):
    code = "stale_version"


@dataclass(frozen=True)
class GoldSaveResult:
    gold: GoldAlignment
    changed: bool


@transaction.atomic
def gold_save(
    *,
    pair: SentencePair,
    links: LinkMap,
    adjudicator: User,
    base_version: int | None,
    job_id: int | None = None,
) -> GoldSaveResult:
    """Make ``links`` the pair's gold alignment if ``base_version`` is its current version
    (``0`` or ``None``: the pair never had gold; for a pair sent back to waiting, the version of
    that ``cleared`` event); else :class:`StaleGold` (409) carrying the current gold, or the
    clear, with nothing changed.

    Saving the gold already stored is a no-op (no new version), so a retried request that
    already went through is harmless. ``job_id``: the job saving it for ``adjudicator`` (a
    bulk accept), recorded with the change."""
    links_count_check(len(links))
    try:
        check_bounds(links, pair.n_source, pair.n_target)
    except AlignmentError as error:
        raise InvalidLinks(str(error)) from None
    base = NO_GOLD if base_version is None else base_version
    locked = SentencePair.objects.select_for_update().get(pk=pair.pk)
    gold = (
        GoldAlignment.objects.select_for_update(of=("self",))
        .select_related("adjudicator")
        .filter(pair=locked)
        .first()
    )
    row_ids = (
        {(i, j): (pk, sure) for pk, i, j, sure in gold.links.values_list("pk", "i", "j", "sure")}
        if gold is not None
        else {}
    )
    current = {key: sure for key, (_, sure) in row_ids.items()}
    current_version = _last_version(locked) if gold is None else gold.version
    if base != current_version:
        if gold is not None and current == links:  # the same save arrived twice
            return GoldSaveResult(gold, False)
        raise _stale(gold, current, base, pair=locked)
    if gold is not None and current == links and gold.source == ADJUDICATED:
        return GoldSaveResult(gold, False)
    added = {key: sure for key, sure in links.items() if current.get(key) != sure}
    removed = sorted(key for key in current if key not in links)
    if gold is None or gold.source != ADJUDICATED:
        pair_disagreement_gold(pair_id=locked.pk, source=ADJUDICATED)
    if gold is None:
        gold = GoldAlignment.objects.create(
            # one past its last event (read above): a save after a clear never reuses a version
            pair=locked,
            adjudicator=adjudicator,
            source=ADJUDICATED,
            version=current_version + 1,
        )
    else:
        gold.adjudicator = adjudicator
        gold.source = ADJUDICATED
        gold.version += 1
        gold.save(update_fields=["adjudicator", "source", "version", "updated_at"])
        links_delete(
            model=GoldLink,
            ids=[row_ids[key][0] for key in removed]
            + [row_ids[key][0] for key in added if key in row_ids],
        )
    links_insert(
        model=GoldLink,
        parent_column="gold_id",
        rows=((gold.pk, i, j, sure) for (i, j), sure in sorted(added.items())),
    )
    GoldEvent.objects.create(
        pair=locked,
        version=gold.version,
        kind=GoldEvent.Kind.ADJUDICATED,
        actor=adjudicator,
        job_id=job_id,
        added=links_list(added),
        removed=[[i, j] for i, j in removed],
    )
    return GoldSaveResult(gold, True)


@dataclass(frozen=True)
class GoldClearResult:
    changed: bool
    #: The version of the ``cleared`` event (the pair's last event when nothing changed; 0
    #: for a pair that never had gold).
    version: int


@transaction.atomic
def gold_clear(
    *, pair: SentencePair, actor: User, base_version: int, job_id: int | None = None
) -> GoldClearResult:
    """Send the pair back to "waiting for adjudication": remove its gold alignment and links
    (every reader then sees none) if ``base_version`` is its current version, and log a
    ``cleared`` event of the next version with the links it removed; else :class:`StaleGold`
    (409) carrying the current gold, with nothing changed.

    A pair without gold already waits: nothing changes, so a retried request that already went
    through is harmless. The next save of the pair's gold names version 0 (no gold).
    ``job_id``: the job clearing it for ``actor`` (an undo of a bulk accept), recorded."""
    locked = SentencePair.objects.select_for_update().get(pk=pair.pk)
    gold = (
        GoldAlignment.objects.select_for_update(of=("self",))
        .select_related("adjudicator")
        .filter(pair=locked)
        .first()
    )
    if gold is None:
        return GoldClearResult(changed=False, version=_last_version(locked))
    if locked.split == TRIAL_SPLIT:
        raise Conflict(
            "a trial pair's gold is the key its annotators' feedback is scored against; it does "
            "not wait for adjudication (correct the gold instead)"
        )
    current = {(i, j): sure for i, j, sure in gold.links.values_list("i", "j", "sure")}
    if base_version != gold.version:
        raise _stale(gold, current, base_version, pair=locked)
    pair_disagreement_gold(pair_id=locked.pk, source="")
    GoldLink.objects.filter(gold=gold).delete()
    GoldAlignment.objects.filter(pk=gold.pk).delete()
    event = GoldEvent.objects.create(
        pair=locked,
        version=gold.version + 1,
        kind=GoldEvent.Kind.CLEARED,
        actor=actor,
        job_id=job_id,
        removed=[[i, j] for i, j in sorted(current)],
    )
    return GoldClearResult(changed=True, version=event.version)


def _last_version(pair: SentencePair) -> int:
    """The version of the pair's last gold change (:data:`NO_GOLD` for none): without a gold
    alignment, the version a save of its next gold names."""
    last = GoldEvent.objects.filter(pair=pair).aggregate(last=Max("version"))["last"]
    return last or NO_GOLD


def _stale(
    gold: GoldAlignment | None, current: LinkMap, base: int, *, pair: SentencePair
) -> StaleGold:
    if gold is None:
        last = last_gold_event(pair)
        if last is None:
            return StaleGold(
                f"this pair has no gold alignment (yours was based on version {base}); save "
                f"on version {NO_GOLD} to start one",
                server={
                    "links": [],
                    "version": NO_GOLD,
                    "adjudicator": None,
                    "updated_at": None,
                    "origin": None,
                    "job": None,
                },
            )
        waiting = gold_waiting_state(last)
        by = f"by {waiting['adjudicator'] or 'an adjudicator'}"
        if waiting["job"] is not None:
            by = f"in bulk {by} (job #{waiting['job']})"
        return StaleGold(
            f"its gold alignment was sent back to waiting {by} at "
            f"{last.created_at:%Y-%m-%d %H:%M:%S} UTC (version {last.version}); yours was based "
            f"on version {base}. Nothing was saved: to start a new gold from yours, save it on "
            f"version {last.version}",
            server=waiting,
        )
    server = gold_state(gold, current)
    who = gold.adjudicator.get_username() if gold.adjudicator else "an import"
    # a bulk accept saves in its adjudicator's name: say so, not that they edited this pair
    how = "saved" if server["job"] is None else "accepted in bulk"
    job = "" if server["job"] is None else f" (job #{server['job']})"
    return StaleGold(
        f"the gold alignment was changed elsewhere: version {gold.version} was {how} by "
        f"{who}{job} at {gold.updated_at:%Y-%m-%d %H:%M:%S} UTC; yours was based on version "
        f"{base}",
        server=server,
    )
