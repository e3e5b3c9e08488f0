"""Bulk accept: the majority of every pair of an adjudication list whose annotators agree
completely, written as its gold by a background job, and the undo of such a job.

The criterion is unanimity (``PairDisagreement.unanimous``: every submitted annotation is the
same alignment, sure and possible alike), not "a majority without a tie": with three annotators
the majority never ties, yet two against one is a disagreement an adjudicator should look at.
A unanimous pair's majority (:func:`scoring.alignment.majority.majority_vote`) is that shared
alignment. A pair with any gold (an adjudicator's, an import's, a trial key) is never touched.

Each gold goes through :func:`~annotate.services.adjudication.gold_save`, as an adjudicator's
*accept majority* does, on the gold version read with the pair's annotations, and names the job
in its history event. The pairs are read a chunk at a time outside any transaction, their
majorities computed, and written :data:`WRITE_BATCH` at a time in short transactions; on SQLite
each is followed by a pause as long as it held the write lock, so that annotators' saves get the
lock within a fraction of a second while the job runs (:func:`_yield_lock`). A pair whose gold
someone saved meanwhile (the save is stale: 409 for a person, a skip here), or whose submitted
annotations changed since they were read, is skipped and counted with its reason.
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from django.contrib.auth import get_user_model
from django.db import connection, transaction
from django.db.models import F, Max, Q

from annotate import roles
from annotate.conversions import alignment_from_tuples
from annotate.exceptions import Conflict, DomainError, quoted
from annotate.jobs_runtime import job_task
from annotate.models import (
    AnnotationLink,
    Assignment,
    Corpus,
    GoldAlignment,
    GoldEvent,
    Job,
    SentencePair,
)
from annotate.selectors.adjudication import (
    AdjudicationFilters,
    pairs_agreed_waiting,
)
from annotate.services.adjudication import NO_GOLD, StaleGold, gold_clear, gold_save
from annotate.services.annotations import LinkMap
from annotate.services.corpora import CorpusArchived
from scoring.alignment.majority import majority_vote

if TYPE_CHECKING:
    from django.contrib.auth.models import User

ACCEPT_KIND = "adjudication_accept"
UNDO_KIND = "adjudication_accept_undo"
#: Pairs read (annotations, links, gold versions) per round of queries, outside transactions.
READ_CHUNK = 500
#: Golds written per transaction at most, and the time it may hold SQLite's write lock before
#: it commits what it has (a busy machine that deschedules the worker makes ten saves slow).
WRITE_BATCH = 10
WRITE_SECONDS = 0.05
#: Why a pair was skipped, as the result names it.
ADJUDICATED_MEANWHILE = "adjudicated_meanwhile"
CHANGED_MEANWHILE = "annotations_changed"
CHANGED_SINCE = "gold_changed_since"
#: An undo leaves the golds of an archived corpus as they are (its work is kept as it was).
CORPUS_ARCHIVED = "corpus_archived"
#: Submitted annotations of a pair as ``(annotation id, version)``, sorted: what its majority
#: was computed from.
Signature = tuple[tuple[int, int], ...]


@dataclass(frozen=True)
class AgreedPair:
    """A pair whose annotators agree, with what its gold is written from."""

    pair: SentencePair
    links: LinkMap
    #: The gold version the save names: its last gold change (NO_GOLD for none).
    version: int
    signature: Signature


@transaction.atomic
def adjudication_accept_job_create(*, filters: AdjudicationFilters, owner: User) -> Job:
    """Queue the bulk accept of the pairs of the list ``filters`` describe whose annotators
    agree and that have no gold (:func:`~annotate.selectors.adjudication.pairs_agreed_waiting`);
    :class:`DomainError` when there is none, and :class:`Conflict` while another bulk accept
    or undo of ``owner`` (a second tab's press), or of the same corpus, is queued or running,
    with nothing queued."""
    corpus = Corpus.objects.filter(pk=filters.corpus).first() if filters.corpus else None
    _refuse_while_active(owner, corpus)
    expected = pairs_agreed_waiting(filters).count()
    if expected == 0:
        raise DomainError(
            "no pair of this list has annotators who agree completely and no gold yet; "
            "nothing to accept"
        )
    parameters = {
        "filters": _filters_dict(filters),
        "expected": expected,
        # Another adjudicator's identical job is not reused: its golds are saved in its owner's
        # name, and only its owner (or an admin) sees and undoes it.
        "owner": owner.pk,
    }
    return adjudication_accept_run.create(corpus=corpus, owner=owner, parameters=parameters)


def _refuse_while_active(owner: User, corpus: Corpus | None) -> None:
    """:class:`Conflict` while a bulk accept or undo of ``owner``, or of ``corpus`` (``None``:
    a list of every corpus, which any other overlaps), is queued or running.

    The owner's row and the corpus's (or every corpus's, in id order) stay locked until the
    caller's transaction ends, so of two presses at one moment the second waits for the first
    job to be stored and is refused; without the lock both found no job (PostgreSQL) and both
    queued one. On SQLite every write transaction already runs alone."""
    get_user_model().objects.select_for_update().filter(pk=owner.pk).first()
    corpora = Corpus.objects.select_for_update().order_by("pk")
    list((corpora if corpus is None else corpora.filter(pk=corpus.pk)).values_list("pk"))
    overlapping = Q()
    if corpus is not None:
        overlapping = Q(owner=owner) | Q(corpus=corpus) | Q(corpus__isnull=True)
    active = (
        Job.objects.filter(
            overlapping,
            kind__in=[ACCEPT_KIND, UNDO_KIND],
            status__in=[Job.Status.PENDING, Job.Status.RUNNING],
        )
        .select_related("owner", "corpus")
        .order_by("pk")
        .first()
    )
    if active is None:
        return
    what = "accept" if active.kind == ACCEPT_KIND else "undo"
    if active.owner_id == owner.pk:
        raise Conflict(
            f"your bulk {what} #{active.pk} is still {active.status}; start another once it "
            "has ended"
        )
    who = active.owner.get_username() if active.owner else "another adjudicator"
    of = f"corpus {quoted(active.corpus.name)}" if active.corpus else "every corpus"
    raise Conflict(
        f"{who}'s bulk {what} #{active.pk} of {of} is still {active.status}; a corpus takes one "
        "bulk accept or undo at a time: start yours once it has ended"
    )


def _require_adjudicator(owner: User) -> None:
    """The golds a job saves are saved in its owner's name: only while they may adjudicate
    (the role, or admin, and an active account), checked when it runs."""
    if not (roles.has_role(owner, roles.ADJUDICATOR) or roles.has_role(owner, roles.ADMIN)):
        raise DomainError(
            f"{owner.get_username()} is no longer an active adjudicator; nothing was saved"
        )


def _filters_dict(filters: AdjudicationFilters) -> dict[str, Any]:
    """The filters a job keeps: the ones set (order does not change which pairs match)."""
    values = asdict(filters)
    values.pop("sort")
    return {key: value for key, value in values.items() if value not in (None, "")}


@job_task(kind=ACCEPT_KIND, soft_time_limit=3600, time_limit=3660)
def adjudication_accept_run(job: Job, progress: Callable[[float, str], None]) -> dict[str, Any]:
    """Job runner of ``adjudication_accept``."""
    if job.owner is None:
        raise DomainError("the adjudicator who started this bulk accept no longer exists")
    _require_adjudicator(job.owner)
    filters = AdjudicationFilters(**job.parameters.get("filters", {}))
    return adjudication_accept(
        filters=filters, adjudicator=job.owner, job_id=job.pk, progress=progress
    )


def adjudication_accept(
    *,
    filters: AdjudicationFilters,
    adjudicator: User,
    job_id: int | None = None,
    progress: Callable[[float, str], None] | None = None,
) -> dict[str, Any]:
    """Accept the majority of every pair :func:`pairs_agreed_waiting` finds now as its gold,
    saved by ``adjudicator`` (for the job ``job_id``); returns how many pairs matched, were
    accepted and were skipped, by reason. Not one transaction: each batch commits on its own,
    so a stopped job keeps the golds it wrote (each undone by clearing it)."""
    ids = list(pairs_agreed_waiting(filters).order_by("pair_id").values_list("pair_id", flat=True))
    counts = {"accepted": 0, ADJUDICATED_MEANWHILE: 0, CHANGED_MEANWHILE: 0}
    longest = 0.0
    for start in range(0, len(ids), READ_CHUNK):
        chunk = ids[start : start + READ_CHUNK]
        agreed = agreed_pairs(chunk)
        counts[CHANGED_MEANWHILE] += len(chunk) - len(agreed)
        at = 0
        while at < len(agreed):
            began = time.monotonic()
            outcomes = _accept_batch(agreed[at : at + WRITE_BATCH], adjudicator, job_id)
            longest = max(longest, _yield_lock(time.monotonic() - began))
            for outcome in outcomes:
                counts[outcome] += 1
            at += len(outcomes)
            if progress is not None:
                done = start + at + len(chunk) - len(agreed)
                progress(
                    100 * done / len(ids),
                    f"{done:,} of {len(ids):,} pairs: {counts['accepted']:,} accepted",
                )
    return {
        "matched": len(ids),
        "accepted": counts["accepted"],
        "skipped": {
            ADJUDICATED_MEANWHILE: counts[ADJUDICATED_MEANWHILE],
            CHANGED_MEANWHILE: counts[CHANGED_MEANWHILE],
        },
        "longest_write_ms": round(1000 * longest, 1),
    }


@transaction.atomic
def _accept_batch(batch: list[AgreedPair], adjudicator: User, job_id: int | None) -> list[str]:
    """Save the gold of the first pairs of ``batch`` in one transaction, until it has held the
    write lock for :data:`WRITE_SECONDS`; the outcome of each pair it took (one at least)."""
    began = time.monotonic()
    now = _signatures([agreed.pair.pk for agreed in batch])
    outcomes: list[str] = []
    for agreed in batch:
        if outcomes and time.monotonic() - began > WRITE_SECONDS:
            break
        if now.get(agreed.pair.pk, ()) != agreed.signature:
            outcomes.append(CHANGED_MEANWHILE)
            continue
        try:
            result = gold_save(
                pair=agreed.pair,
                links=agreed.links,
                adjudicator=adjudicator,
                base_version=agreed.version,
                job_id=job_id,
            )
        except StaleGold:  # someone saved (or imported) a gold since the pair was read
            outcomes.append(ADJUDICATED_MEANWHILE)
            continue
        outcomes.append("accepted" if result.changed else ADJUDICATED_MEANWHILE)
    return outcomes


def _yield_lock(held: float) -> float:
    """On SQLite, leave the write lock free for as long as the last batch held it before the
    next batch takes it again: a writer that commits and begins again at once starves the
    others (an annotator's save polls for the lock at intervals of up to 100 ms, and waited
    up to 19 s behind batches written back to back). PostgreSQL locks rows, not the database:
    no pause. Returns ``held``."""
    if connection.vendor == "sqlite":
        time.sleep(held)
    return held


def _signatures(pair_ids: list[int]) -> dict[int, Signature]:
    found: dict[int, list[tuple[int, int]]] = defaultdict(list)
    for pair_id, annotation_id, version in Assignment.objects.filter(
        pair_id__in=pair_ids, status=Assignment.Status.SUBMITTED, annotation__isnull=False
    ).values_list("pair_id", "annotation__id", "annotation__version"):
        found[pair_id].append((annotation_id, version))
    return {pair_id: tuple(sorted(rows)) for pair_id, rows in found.items()}


def agreed_pairs(pair_ids: list[int]) -> list[AgreedPair]:
    """The pairs of ``pair_ids`` whose two or more submitted annotations are one alignment
    (by the majority rule's count), with that alignment, their gold version and the
    annotations it was read from; five queries whatever their number."""
    signatures = _signatures(pair_ids)
    annotation_ids = [a for rows in signatures.values() for a, _ in rows]
    links: dict[int, list[tuple[int, int, bool]]] = defaultdict(list)
    for annotation_id, i, j, sure in AnnotationLink.objects.filter(
        annotation_id__in=annotation_ids
    ).values_list("annotation_id", "i", "j", "sure"):
        links[annotation_id].append((i, j, sure))
    versions = dict(
        GoldEvent.objects.filter(pair_id__in=pair_ids)
        .values("pair_id")
        .annotate(last=Max("version"))
        .values_list("pair_id", "last")
    )
    agreed = []
    for pair in SentencePair.objects.filter(pk__in=pair_ids).only("id", "n_source", "n_target"):
        signature = signatures.get(pair.pk, ())
        if len(signature) < 2:
            continue
        vote = majority_vote(
            [
                alignment_from_tuples(pair.n_source, pair.n_target, links[annotation_id])
                for annotation_id, _ in signature
            ]
        )
        if not vote.unanimous:
            continue
        agreed.append(
            AgreedPair(
                pair=pair,
                links=vote.alignment.link_map(),
                version=versions.get(pair.pk, NO_GOLD),
                signature=signature,
            )
        )
    return sorted(agreed, key=lambda found: found.pair.pk)


# --- undo -------------------------------------------------------------------------------------


@transaction.atomic
def adjudication_accept_undo_job_create(*, job: Job, owner: User) -> Job:
    """Queue the undo of the bulk accept ``job``: each gold it wrote that nobody changed since
    goes back to waiting. :class:`Conflict` while the job still runs, or once an undo of it
    is queued, running or done (another tab's, an admin's), and :class:`CorpusArchived` while
    a corpus of its golds is archived, with nothing queued."""
    if job.kind != ACCEPT_KIND:
        raise DomainError(f"job {job.pk} is not a bulk accept")
    if job.status in (Job.Status.PENDING, Job.Status.RUNNING):
        raise Conflict(f"bulk accept #{job.pk} is still {job.status}; undo it once it has ended")
    _refuse_while_active(owner, job.corpus)
    earlier = accepts_undone([job.pk]).get(job.pk)
    if earlier is not None:
        if earlier.status == Job.Status.SUCCEEDED:
            raise Conflict(f"bulk accept #{job.pk} was undone by #{earlier.pk} already")
        raise Conflict(f"bulk accept #{job.pk} has an undo #{earlier.pk} {earlier.status}")
    _refuse_in_archived_corpora(job.pk)
    return adjudication_accept_undo_run.create(
        corpus=job.corpus, owner=owner, parameters={"job": job.pk}
    )


def accepts_undone(accept_ids: Iterable[int]) -> dict[int, Job]:
    """The undo of each bulk accept of ``accept_ids`` that has one queued, running or done,
    the first by id. An undo that failed or was cancelled does not count, nor one that kept
    golds because their corpus was archived while it ran: the accept is undone again (the
    corpus restored) to clear them."""
    found: dict[int, Job] = {}
    for undo in Job.objects.filter(
        kind=UNDO_KIND,
        parameters__job__in=list(accept_ids),
        status__in=[Job.Status.PENDING, Job.Status.RUNNING, Job.Status.SUCCEEDED],
    ).order_by("pk"):
        skipped = (undo.result or {}).get("skipped", {})
        if undo.status == Job.Status.SUCCEEDED and skipped.get(CORPUS_ARCHIVED):
            continue
        found.setdefault(int(undo.parameters["job"]), undo)
    return found


def _refuse_in_archived_corpora(accept_job_id: int) -> None:
    """:class:`CorpusArchived` (409, ``corpus_archived``) when a gold the bulk accept
    ``accept_job_id`` wrote, and that is still as it wrote it, is in an archived corpus: an
    archived corpus keeps its work as it is, and its pairs leave the adjudication list, so a
    gold sent back to waiting there could be neither seen nor accepted again until restored."""
    archived = sorted(
        set(
            GoldEvent.objects.filter(
                job_id=accept_job_id,
                kind=GoldEvent.Kind.ADJUDICATED,
                pair__gold__version=F("version"),
                pair__corpus__archived_at__isnull=False,
            ).values_list("pair__corpus__name", flat=True)
        )
    )
    if archived:
        which = ", ".join(quoted(name) for name in archived)
        corpora = "corpus" if len(archived) == 1 else "corpora"
        raise CorpusArchived(
            f"bulk accept #{accept_job_id} wrote golds in the archived {corpora} {which}: "
            "restore it before undoing the bulk accept",
            field="corpus",
        )


@job_task(kind=UNDO_KIND, soft_time_limit=3600, time_limit=3660)
def adjudication_accept_undo_run(
    job: Job, progress: Callable[[float, str], None]
) -> dict[str, Any]:
    """Job runner of ``adjudication_accept_undo``: refused (nothing cleared) when a corpus
    of the golds was archived since it was queued."""
    if job.owner is None:
        raise DomainError("the adjudicator who started this undo no longer exists")
    _require_adjudicator(job.owner)
    _refuse_in_archived_corpora(int(job.parameters["job"]))
    return adjudication_accept_undo(
        accept_job_id=int(job.parameters["job"]),
        actor=job.owner,
        job_id=job.pk,
        progress=progress,
    )


def adjudication_accept_undo(
    *,
    accept_job_id: int,
    actor: User,
    job_id: int | None = None,
    progress: Callable[[float, str], None] | None = None,
) -> dict[str, Any]:
    """Send back to waiting each pair whose gold is still the one the bulk accept
    ``accept_job_id`` wrote (its version unchanged since), as *Back to waiting* does, logged
    for ``actor`` and the job ``job_id``; a gold changed since, or of a corpus archived while
    it runs, is kept and counted."""
    written = list(
        GoldEvent.objects.filter(job_id=accept_job_id, kind=GoldEvent.Kind.ADJUDICATED)
        .order_by("pair_id")
        .values_list("pair_id", "version")
    )
    counts = {"cleared": 0, CHANGED_SINCE: 0, CORPUS_ARCHIVED: 0}
    for at in range(0, len(written), WRITE_BATCH):
        began = time.monotonic()
        for outcome in _undo_batch(written[at : at + WRITE_BATCH], actor, job_id):
            counts[outcome] += 1
        _yield_lock(time.monotonic() - began)
        if progress is not None:
            done = min(at + WRITE_BATCH, len(written))
            progress(100 * done / len(written), f"{done:,} of {len(written):,} golds")
    return {
        "job": accept_job_id,
        "written": len(written),
        "cleared": counts["cleared"],
        "skipped": {
            CHANGED_SINCE: counts[CHANGED_SINCE],
            CORPUS_ARCHIVED: counts[CORPUS_ARCHIVED],
        },
    }


@transaction.atomic
def _undo_batch(batch: list[tuple[int, int]], actor: User, job_id: int | None) -> Iterable[str]:
    pair_ids = [pair_id for pair_id, _ in batch]
    current = dict(
        GoldAlignment.objects.filter(pair_id__in=pair_ids).values_list("pair_id", "version")
    )
    pairs = SentencePair.objects.in_bulk(pair_ids)
    # Locked until the batch commits: an archive of one of them waits for it, or comes first
    # and is seen here.
    archived = {
        pk
        for pk, archived_at in Corpus.objects.select_for_update()
        .filter(pk__in={pair.corpus_id for pair in pairs.values()})
        .order_by("pk")
        .values_list("pk", "archived_at")
        if archived_at is not None
    }
    outcomes = []
    for pair_id, version in batch:
        if current.get(pair_id) != version:  # changed, cleared or saved again since
            outcomes.append(CHANGED_SINCE)
            continue
        if pairs[pair_id].corpus_id in archived:
            outcomes.append(CORPUS_ARCHIVED)
            continue
        try:
            result = gold_clear(
                pair=pairs[pair_id], actor=actor, base_version=version, job_id=job_id
            )
        except Conflict:  # changed since (StaleGold), or a trial pair's key
            outcomes.append(CHANGED_SINCE)
            continue
        outcomes.append("cleared" if result.changed else CHANGED_SINCE)
    return outcomes
