"""Annotation writes: open from the prefill, versioned save, submit, active time.

Every change is one new ``version`` of the annotation and one row of the append-only
:class:`AnnotationEvent` log carrying the links it added (``[i, j, "S"|"P"]``, including links
whose sure flag changed) and removed (``[i, j]``). A save may also confirm prefilled links
without changing them (the annotator pressed *s* on a prefilled sure link): those cells are
listed under ``"reviewed"`` in the payload of the save's event, so that a checked prefill link
is told from one nobody has looked at (:func:`reviewed_cells`). Read-modify-write runs under
``select_for_update()`` so two concurrent saves of the same annotation are serialised and the
second one, still carrying the old version, gets a 409 with the server's state.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.db import transaction
from django.db.models import Max, Subquery
from django.utils import timezone

from annotate.exceptions import Conflict, DomainError
from annotate.models import (
    Annotation,
    AnnotationEvent,
    AnnotationLink,
    Assignment,
    AutoAlignment,
    AutoLink,
)
from annotate.services.disagreement import pair_disagreement_refresh
from annotate.services.links import links_delete, links_insert
from scoring.alignment.links import (
    Link,
    check_bounds,
    links_from_triples,
    links_to_triples,
)
from scoring.corpus import ANNOTATION_FLAGS
from scoring.errors import AlignmentError

if TYPE_CHECKING:
    from django.contrib.auth.models import User

# Gaps between two signs of activity longer than this are not counted as working time.
FLAGS = ANNOTATION_FLAGS
MAX_COMMENT = 5000
#: What a client may record about a save in the event log (its change list, session id), as JSON.
MAX_CLIENT_BYTES = 4096

LinkMap = dict[tuple[int, int], bool]
#: The most links one alignment (an annotation, a gold alignment, a prefill) may have: far more
#: than any real alignment (a 120 × 120 pair half linked has 7,200), few enough that saving,
#: opening or comparing one stays well within a second.
MAX_LINKS = 10_000


class InvalidLinks(DomainError):
    code = "invalid_links"


class StaleVersion(Conflict):
    code = "stale_version"


class AlreadySubmitted(Conflict):
    code = "already_submitted"


@dataclass(frozen=True)
class SaveResult:
    annotation: Annotation
    changed: bool
    status: str = Assignment.Status.IN_PROGRESS


def links_parse(raw: Sequence[Sequence[Any]], *, n_source: int, n_target: int) -> LinkMap:
    """``[[i, j, "S"|"P"], ...]`` → ``{(i, j): sure}``, checked against the pair's size and
    :data:`MAX_LINKS`."""
    links_count_check(len(raw))
    try:
        return links_from_triples(raw, n_source, n_target)
    except AlignmentError as error:
        raise InvalidLinks(str(error)) from None


def links_list(links: LinkMap) -> list[list[int | str]]:
    return links_to_triples(links)


def annotation_links(annotation: Annotation) -> LinkMap:
    return {(i, j): sure for i, j, sure in annotation.links.values_list("i", "j", "sure")}


def _diff(before: LinkMap, after: LinkMap) -> tuple[LinkMap, list[tuple[int, int]]]:
    added = {key: sure for key, sure in after.items() if before.get(key) != sure}
    removed = sorted(key for key in before if key not in after)
    return added, removed


def reviewed_cells(
    annotation: Annotation, links: Iterable[tuple[int, int]] | None = None
) -> set[tuple[int, int]]:
    """Cells the annotator has looked at, from the event log: every cell a save changed (added or
    removed) and every link a save confirmed unchanged (``payload["reviewed"]``); and, once the
    work was submitted or imported, every link it has (``links``, the current ones, read when
    not given): a submission accepts the links it holds, and a link changed after a reopening
    is a changed cell anyway. A prefilled link outside this set is still the unchecked
    prefill."""
    cells: set[tuple[int, int]] = set()
    events = AnnotationEvent.objects.filter(annotation=annotation)
    edits = events.filter(kind=AnnotationEvent.Kind.EDITED)
    for added, removed, payload in edits.values_list("added", "removed", "payload"):
        for link in (*added, *removed, *(payload or {}).get("reviewed", ())):
            cells.add((int(link[0]), int(link[1])))
    finished = (AnnotationEvent.Kind.SUBMITTED, AnnotationEvent.Kind.IMPORTED)
    if events.filter(kind__in=finished).exists():
        cells.update(annotation_links(annotation) if links is None else links)
    return cells


def _cells_list(cells: Iterable[tuple[int, int]]) -> list[list[int]]:
    return [[i, j] for i, j in sorted(cells)]


def activity_record(*, assignment: Assignment, now: datetime | None = None) -> Assignment:
    """Count the time since the last sign of activity unless the gap was idle.

    Signs of activity are page opens, saves, submits and the heartbeats a visible workspace tab
    sends while its annotator types, clicks or scrolls. A gap longer than
    ``settings.ACTIVE_TIME_IDLE_SECONDS`` (60 s by default) is a pause and counts nothing, so a
    tab left open, or the time between two sessions, never becomes work time.

    One person works on one pair at a time: time already counted on another of the annotator's
    assignments (a second window, or heartbeats sent to several pairs at once) is not counted
    again, so their active time never exceeds the wall-clock time.

    The caller holds the assignment row locked (or is inside the same transaction)."""
    now = now or timezone.now()
    last = assignment.last_activity_at
    idle = timedelta(seconds=settings.ACTIVE_TIME_IDLE_SECONDS)
    if last is not None and timedelta(0) < now - last <= idle:
        elsewhere = (
            Assignment.objects.filter(
                annotator_id=assignment.annotator_id, last_activity_at__gt=last
            )
            .exclude(pk=assignment.pk)
            .aggregate(latest=Max("last_activity_at"))["latest"]
        )
        since = last if elsewhere is None else max(last, elsewhere)
        if now > since:
            assignment.active_seconds += (now - since).total_seconds()
    if last is None or now > last:
        assignment.last_activity_at = now
    return assignment


def _locked_assignment(assignment_id: int) -> Assignment:
    return Assignment.objects.select_for_update().select_related("pair").get(pk=assignment_id)


def prefill_links(pair_id: int) -> LinkMap | None:
    """The links of the pair's newest prefill; ``None`` if it has none. One query when the
    prefill has links (every save asks)."""
    newest = (
        AutoAlignment.objects.filter(pair_id=pair_id).order_by("-created_at", "-id").values("id")
    )
    rows = AutoLink.objects.filter(alignment_id=Subquery(newest[:1])).values_list("i", "j", "sure")
    links = {(i, j): sure for i, j, sure in rows}
    if not links and not newest.exists():
        return None
    return links


def edits_from_prefill(links: Iterable[Link], prefill: Iterable[Link] | None) -> int | None:
    """Cells whose state in ``P`` (linked or not) differs between an alignment and its prefill:
    the edits of Cohn et al. (2008, §3); ``None`` without a prefill."""
    if prefill is None:
        return None
    return len(set(links) ^ set(prefill))


@transaction.atomic
def annotation_open(
    *, assignment: Assignment, actor: User, now: datetime | None = None
) -> Annotation:
    """The assignment's annotation, created from the newest prefill on first open."""
    now = now or timezone.now()
    locked = _locked_assignment(assignment.pk)
    annotation = Annotation.objects.filter(assignment=locked).first()
    if annotation is None:
        prefill = prefill_links(locked.pair_id)
        links = prefill or {}
        annotation = Annotation.objects.create(
            assignment=locked,
            version=1,
            link_count=len(links),
            prefill_edits=edits_from_prefill(links, prefill),
        )
        links_insert(
            model=AnnotationLink,
            parent_column="annotation_id",
            rows=((annotation.pk, i, j, sure) for (i, j), sure in sorted(links.items())),
        )
        AnnotationEvent.objects.create(
            annotation=annotation,
            version=1,
            kind=AnnotationEvent.Kind.CREATED,
            actor=actor,
            added=links_list(links),
            payload={"from": "prefill" if links else "empty"},
        )
    activity_record(assignment=locked, now=now)
    locked.save(update_fields=["last_activity_at", "active_seconds"])
    return annotation


@transaction.atomic
def annotation_save(
    *,
    assignment: Assignment,
    actor: User,
    base_version: int,
    links: LinkMap,
    reviewed: Iterable[tuple[int, int]] = (),
    client: dict[str, Any] | None = None,
    now: datetime | None = None,
) -> SaveResult:
    """Replace the annotation's links if ``base_version`` is current; else 409 with the state
    (its links and :func:`reviewed_cells`).

    ``reviewed`` names links the annotator confirmed without changing them; those among
    ``links`` not yet in :func:`reviewed_cells` are recorded with the save. Saving the state
    already stored is a no-op (no new version), so a retried request that already went through
    is harmless; so is a stale save of the stored links, whose confirmations are still kept
    (confirming only ever adds)."""
    now = now or timezone.now()
    if client and len(json.dumps(client)) > MAX_CLIENT_BYTES:
        raise DomainError(
            f"the client information of a save is limited to {MAX_CLIENT_BYTES} bytes of JSON",
            field="client",
        )
    locked = _locked_assignment(assignment.pk)
    if locked.status == Assignment.Status.SUBMITTED:
        raise AlreadySubmitted("this pair was submitted; reopen it to change the alignment")
    annotation = Annotation.objects.select_for_update().filter(assignment=locked).first()
    if annotation is None:
        raise Conflict("the annotation has not been opened yet")
    row_ids = {
        (i, j): (pk, sure)
        for pk, i, j, sure in annotation.links.values_list("pk", "i", "j", "sure")
    }
    current = {key: sure for key, (_, sure) in row_ids.items()}
    claimed = {(int(i), int(j)) for i, j in reviewed if (i, j) in links}
    known = reviewed_cells(annotation, current) if claimed else set()
    if base_version != annotation.version and current != links:
        raise StaleVersion(
            f"the pair was changed elsewhere (server version {annotation.version}, "
            f"yours was based on {base_version})",
            server={
                "version": annotation.version,
                "links": links_list(current),
                "touched": _cells_list(known if claimed else reviewed_cells(annotation, current)),
            },
        )
    _check_bounds(locked, links)
    added, removed = _diff(current, links)
    confirmed = claimed - known - set(added) - set(removed)
    if base_version != annotation.version and not confirmed:
        # The same change arrived twice (e.g. a retry after a lost reply).
        return SaveResult(annotation, False, locked.status)
    activity_record(assignment=locked, now=now)
    fields = ["last_activity_at", "active_seconds"]
    if locked.status == Assignment.Status.NEW:
        locked.status = Assignment.Status.IN_PROGRESS
        locked.started_at = now
        fields += ["status", "started_at"]
    locked.save(update_fields=fields)
    if not added and not removed and not confirmed:
        return SaveResult(annotation, False, locked.status)
    if confirmed:
        client = {**(client or {}), "reviewed": _cells_list(confirmed)}
    # Set-based: rows of removed links and of links whose flag changed go by primary key, the
    # new state of every added or changed link is inserted, both in bounded batches. The work
    # is proportional to the change, in a few statements whatever its size.
    stale = [row_ids[key][0] for key in removed] + [
        row_ids[key][0] for key in added if key in row_ids
    ]
    links_delete(model=AnnotationLink, ids=stale)
    links_insert(
        model=AnnotationLink,
        parent_column="annotation_id",
        rows=((annotation.pk, i, j, sure) for (i, j), sure in sorted(added.items())),
    )
    annotation.link_count = len(links)
    annotation.prefill_edits = edits_from_prefill(links, prefill_links(locked.pair_id))
    annotation_event_append(
        annotation=annotation,
        kind=AnnotationEvent.Kind.EDITED,
        actor=actor,
        added=links_list(added),
        removed=[[i, j] for i, j in removed],
        payload=client,
        also_save=["link_count", "prefill_edits"],
    )
    return SaveResult(annotation, True, locked.status)


def annotation_event_append(
    *,
    annotation: Annotation,
    kind: str,
    actor: User | None,
    added: list[list[int | str]] | None = None,
    removed: list[list[int]] | None = None,
    payload: dict[str, Any] | None = None,
    also_save: Sequence[str] = (),
) -> AnnotationEvent:
    """Bump the annotation's version and append the event of that version to the log.

    ``also_save`` names fields of ``annotation`` changed by the caller, saved in the same write.
    The caller holds the row lock (``select_for_update``)."""
    annotation.version += 1
    annotation.save(update_fields=[*also_save, "version", "updated_at"])
    return AnnotationEvent.objects.create(
        annotation=annotation,
        version=annotation.version,
        kind=kind,
        actor=actor,
        added=added or [],
        removed=removed or [],
        payload=payload or {},
    )


def links_count_check(count: int, what: str = "the alignment") -> None:
    """:class:`InvalidLinks` when an alignment has more than :data:`MAX_LINKS` links."""
    if count > MAX_LINKS:
        raise InvalidLinks(
            f"{what} has {count:,} links; an alignment has at most {MAX_LINKS:,}", field="links"
        )


def _check_bounds(assignment: Assignment, links: LinkMap) -> None:
    links_count_check(len(links))
    try:
        check_bounds(links, assignment.pair.n_source, assignment.pair.n_target)
    except AlignmentError as error:
        raise InvalidLinks(str(error)) from None


@transaction.atomic
def annotation_submit(
    *,
    assignment: Assignment,
    actor: User,
    base_version: int,
    flags: Sequence[str] = (),
    comment: str = "",
    rating: float | None = None,
    now: datetime | None = None,
) -> Annotation:
    """Mark the assignment submitted with optional flags, comment and 0–5 rating."""
    now = now or timezone.now()
    unknown = sorted(set(flags) - set(FLAGS))
    if unknown:
        raise DomainError(f"unknown flag(s) {', '.join(unknown)}; known: {', '.join(FLAGS)}")
    if rating is not None and not (0.0 <= rating <= 5.0):
        raise DomainError(f"the rating must be between 0 and 5, got {rating}")
    if len(comment) > MAX_COMMENT:
        raise DomainError(f"the comment is longer than {MAX_COMMENT} characters")
    locked = _locked_assignment(assignment.pk)
    if locked.status == Assignment.Status.SUBMITTED:
        raise AlreadySubmitted("this pair was already submitted")
    annotation = Annotation.objects.select_for_update().filter(assignment=locked).first()
    if annotation is None:
        raise Conflict("the annotation has not been opened yet")
    if base_version != annotation.version:
        raise StaleVersion(
            f"the pair was changed elsewhere (server version {annotation.version}, "
            f"yours was based on {base_version}); review it before submitting",
            server={
                "version": annotation.version,
                "links": links_list(annotation_links(annotation)),
            },
        )
    annotation.flags = sorted(set(flags))
    annotation.comment = comment
    annotation.rating = rating
    annotation_event_append(
        annotation=annotation,
        kind=AnnotationEvent.Kind.SUBMITTED,
        actor=actor,
        payload={"flags": annotation.flags, "comment": comment, "rating": rating},
        also_save=("flags", "comment", "rating"),
    )
    activity_record(assignment=locked, now=now)
    locked.status = Assignment.Status.SUBMITTED
    locked.submitted_at = now
    locked.started_at = locked.started_at or now
    locked.save(
        update_fields=["status", "submitted_at", "started_at", "last_activity_at", "active_seconds"]
    )
    pair_disagreement_refresh(pair_ids=[locked.pair_id])
    return annotation


@transaction.atomic
def annotation_reopen(
    *, assignment: Assignment, actor: User, now: datetime | None = None
) -> Annotation:
    """Move a submitted assignment back to in progress so it can be edited again.

    A submitted trial pair is final: its feedback shows the gold alignment, which a reopened
    pair could copy into a new submission."""
    now = now or timezone.now()
    locked = _locked_assignment(assignment.pk)
    if locked.status != Assignment.Status.SUBMITTED:
        raise Conflict("only a submitted pair can be reopened")
    if locked.pair.is_trial:
        raise Conflict("a trial pair is final once submitted: its feedback shows the gold")
    annotation = Annotation.objects.select_for_update().get(assignment=locked)
    annotation_event_append(annotation=annotation, kind=AnnotationEvent.Kind.REOPENED, actor=actor)
    locked.status = Assignment.Status.IN_PROGRESS
    locked.submitted_at = None
    activity_record(assignment=locked, now=now)
    locked.save(update_fields=["status", "submitted_at", "last_activity_at", "active_seconds"])
    pair_disagreement_refresh(pair_ids=[locked.pair_id])
    return annotation


@transaction.atomic
def activity_heartbeat(*, assignment: Assignment, now: datetime | None = None) -> Assignment:
    """A sign of activity without an edit (the page sends one while the user works)."""
    locked = _locked_assignment(assignment.pk)
    activity_record(assignment=locked, now=now)
    locked.save(update_fields=["last_activity_at", "active_seconds"])
    return locked
