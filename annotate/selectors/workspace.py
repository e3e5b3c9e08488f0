"""Reads for the annotator's workspace and queue: an annotator reaches only their own
assignments; the pair as the grid shows it; trial feedback. Nothing here writes."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import Count, F, OuterRef, QuerySet, Subquery

from annotate import roles
from annotate.exceptions import NotFound, PermissionDenied
from annotate.models import (
    TRIAL_SPLIT,
    Annotation,
    Assignment,
    AutoAlignment,
    Corpus,
    GoldAlignment,
    SentencePair,
)
from annotate.selectors.paging import IdsFirst
from annotate.selectors.pair_search import pair_search
from annotate.services.annotations import (
    LinkMap,
    annotation_links,
    links_list,
    reviewed_cells,
)
from scoring.alignment.links import POSSIBLE, SURE

User = AbstractBaseUser | AnonymousUser


def assignments_of(user: User) -> QuerySet[Assignment]:
    """The user's assignments; none while they do not hold the annotator role (it was taken
    from them: their work waits for an admin to hand it over or give the role back), and none
    an import is still writing (its staging corpus may yet be deleted, with their work)."""
    if not roles.has_role(user, roles.ANNOTATOR):
        return Assignment.objects.none()
    return (
        Assignment.objects.filter(annotator_id=user.pk, pair__corpus__importing=False)
        .select_related("pair", "pair__corpus")
        .order_by("pair__corpus__name", "pair__position")
    )


def assignment_of_user(*, user: User, assignment_id: int) -> Assignment:
    """The user's own assignment; another user's is reported as not found (no existence leak).
    A user without the annotator role opens, saves and submits none."""
    if not roles.has_role(user, roles.ANNOTATOR):
        raise PermissionDenied(
            "your account does not hold the annotator role (any more): a corpus admin gives it "
            "back on the Users page"
        )
    assignment = assignments_of(user).filter(pk=assignment_id).first()
    if assignment is None:
        raise NotFound(
            f"assignment {assignment_id} is not one of {user.get_username()}'s, who is signed "
            "in here (work can be handed over to another annotator); My queue lists yours"
        )
    return assignment


def queued_assignments_of(user: User) -> QuerySet[Assignment]:
    """The user's assignments in queue order, those of archived corpora left out: what the
    queue lists and what opens next. (An archived corpus's assignment still opens by its
    address, so nobody's open work is cut off.)"""
    return assignments_of(user).filter(pair__corpus__archived_at__isnull=True)


#: Rows of the queue per page: an annotator may hold thousands of assignments.
QUEUE_PAGE = 100


@dataclass
class Queue:
    """One page of an annotator's queue (in queue order, optionally of one status), the counts
    of the whole queue by status, where they stopped and what comes next."""

    assignments: list[Assignment]
    counts: dict[str, int] = field(default_factory=dict)
    continue_id: int | None = None
    next_id: int | None = None
    total: int = 0
    page: int = 1
    per_page: int = QUEUE_PAGE


@dataclass(frozen=True)
class QueueSummary:
    """The whole queue at a glance: counts by status, the pair worked on last
    (``continue_id``) and the one to open next (``next_id``)."""

    counts: dict[str, int]
    continue_id: int | None
    next_id: int | None


@dataclass(frozen=True)
class QueueTally:
    """How many of the user's queued assignments each corpus holds in each status, read in one
    grouped query: ``rows`` are (corpus id, corpus name, status, count), by corpus name."""

    rows: list[tuple[int, str, str, int]]
    #: The user's queued assignments (:func:`queued_assignments_of`), for the reads that follow.
    queued: QuerySet[Assignment]

    def counts(self) -> dict[str, int]:
        """The whole queue by status (every status, 0 when none)."""
        counts = {name: 0 for name in Assignment.Status.values}
        for _, _, status, count in self.rows:
            counts[status] += count
        return counts

    def corpora(self) -> list[tuple[int, str, int]]:
        """Id, name and how many of the user's pairs each corpus holds, by name."""
        held: dict[tuple[int, str], int] = {}
        for pk, name, _, count in self.rows:
            held[(pk, name)] = held.get((pk, name), 0) + count
        return [(pk, name, count) for (pk, name), count in held.items()]

    def least_sure_first(self) -> list[str]:
        """Names of the corpora with pairs of the user not yet submitted whose queue order is
        *least sure prefill first*: there the next pair is not the list's next row."""
        open_in = {
            pk for pk, _, status, count in self.rows if status != Assignment.Status.SUBMITTED
        }
        ordered = Corpus.objects.filter(pk__in=open_in, queue_order=Corpus.QueueOrder.LEAST_SURE)
        return sorted(ordered.values_list("name", flat=True))

    def per_corpus(self, *, status: str | None = None) -> list[tuple[int, int]]:
        """Corpus id and how many of the user's pairs of ``status`` (or any) it holds, in queue
        order, the corpora without any left out."""
        held: dict[int, int] = {}
        for pk, _, row_status, count in self.rows:
            if status is None or row_status == status:
                held[pk] = held.get(pk, 0) + count
        return [(pk, count) for pk, count in held.items() if count]


def queue_tally(user: User) -> QueueTally:
    """:class:`QueueTally` of the user's queue: one pass over their assignments, however many
    figures the page shows (counts by status, the corpora of the filter, the list's total)."""
    queued = queued_assignments_of(user)
    # Grouped by the corpus's id alone, and the few names read apart: grouping and sorting by
    # the name too costs SQLite a second temporary B-tree over the groups of every row.
    counted = list(
        queued.order_by().values_list("pair__corpus_id", "status").annotate(count=Count("*"))
    )
    names = dict(
        Corpus.objects.filter(pk__in={pk for pk, _, _ in counted}).values_list("pk", "name")
        if counted
        else ()
    )
    rows = sorted(
        # (a corpus deleted in between is left out)
        ((int(pk), names[pk], status, int(n)) for pk, status, n in counted if pk in names),
        key=lambda row: (row[1], row[2]),
    )
    return QueueTally(rows=rows, queued=queued)


def queue_summary(user: User, *, tally: QueueTally | None = None) -> QueueSummary:
    """Counts by status (from ``tally`` when the caller has read it), the pair worked on last
    (the in-progress one with the latest activity) and the next pair to open (that one, else
    the first not submitted in queue order, or the least sure one in a corpus ordered that
    way), in a few queries whatever the queue's length."""
    tally = tally or queue_tally(user)
    mine, counts = tally.queued, tally.counts()
    last = (
        mine.filter(status=Assignment.Status.IN_PROGRESS)
        .order_by(F("last_activity_at").desc(nulls_last=True), "-pk")
        .values_list("pk", flat=True)
        .first()
    )
    following = last
    if following is None:
        first = (
            mine.exclude(status=Assignment.Status.SUBMITTED)
            .values_list("pk", "pair__corpus_id", "pair__corpus__queue_order")
            .first()
        )
        if first is not None:
            following, corpus_id, order = first
            if order == Corpus.QueueOrder.LEAST_SURE:
                following = least_sure_open_assignment(user=user, corpus_id=corpus_id) or following
    return QueueSummary(counts=counts, continue_id=last, next_id=following)


def queue_listed(
    user: User, *, status: str | None = None, corpus: int | None = None, search: str = ""
) -> QuerySet[Assignment]:
    """The user's queue in queue order, only the columns a list shows: of one ``status``, of
    one ``corpus`` (by id), and with ``search`` in the pair's id or either text (ignoring
    case)."""
    return _listed(queued_assignments_of(user), status=status, corpus=corpus, search=search)


def _listed(
    listed: QuerySet[Assignment], *, status: str | None, corpus: int | None, search: str = ""
) -> QuerySet[Assignment]:
    if status:
        listed = listed.filter(status=status)
    if corpus is not None:
        listed = listed.filter(pair__corpus_id=corpus)
    if search:
        listed = listed.filter(pair_search(search, via="pair__"))
    return listed.only(
        "id",
        "status",
        "last_activity_at",
        "active_seconds",
        "pair__external_id",
        "pair__split",
        "pair__n_source",
        "pair__n_target",
        "pair__source_text",
        "pair__corpus__name",
    )


def queue_corpora(user: User) -> list[tuple[int, str, int]]:
    """The corpora of the user's queue (archived ones left out): id, name and how many of
    the user's pairs each holds, by name."""
    return queue_tally(user).corpora()


#: Rows into one corpus's part of the queue up to which a page is read by pair position, a
#: few rows of the pair table's ``(corpus, position)`` index and of the user's assignments
#: per row shown. Deeper, the index walk would pass more pairs than a sort of the user's
#: whole queue reads.
PAGE_BY_POSITION_UP_TO = 2000


class QueuePage:
    """The user's queue in queue order (of one ``status``, of one ``corpus``), sliced as a
    list is, and counted from a :class:`QueueTally`: a page reads only its own rows.

    Queue order is corpus name, then pair position (an annotator holds a pair once, so no two
    rows tie). Each corpus's part of a page is read by pair position, which PostgreSQL walks
    in the pair table's ``(corpus, position)`` index, keeping the user's pairs and stopping
    once the page is full; sorting the user's whole queue by name and position joins every
    one of their assignments to its pair first. A page deeper than
    :data:`PAGE_BY_POSITION_UP_TO` into a corpus is read that way, though, its ids first
    (:class:`IdsFirst`: the sort carries ids, names and positions, not the rows shown)."""

    def __init__(
        self, tally: QueueTally, *, status: str | None = None, corpus: int | None = None
    ) -> None:
        self.listed = _listed(tally.queued, status=status, corpus=corpus)
        self.parts = [
            (pk, count)
            for pk, count in tally.per_corpus(status=status)
            if corpus is None or pk == corpus
        ]

    def count(self) -> int:
        return sum(count for _, count in self.parts)

    def __len__(self) -> int:
        return self.count()

    def __getitem__(self, index: slice) -> list[Assignment]:
        if not isinstance(index, slice) or index.step not in (None, 1):
            raise TypeError("a queue page is read by a slice")
        start, stop, _ = index.indices(self.count())
        reads = []
        before = 0  # rows of the corpora before this one
        for pk, count in self.parts:
            low, high = max(start - before, 0), min(stop - before, count)
            if low < high:
                if high > PAGE_BY_POSITION_UP_TO:
                    return IdsFirst(self.listed.order_by(*QUEUE_ORDER))[start:stop]
                reads.append((pk, low, high))
            before += count
        rows: list[Assignment] = []
        for pk, low, high in reads:
            in_corpus = self.listed.filter(pair__corpus_id=pk)
            rows += in_corpus.order_by("pair__position", "pk")[low:high]
        return rows


#: The order of the queue (:func:`assignments_of`), with the tie-breaker the lists add.
QUEUE_ORDER = ("pair__corpus__name", "pair__position", "pk")


def queue_of(
    user: User,
    *,
    page: int = 1,
    status: str | None = None,
    corpus: int | None = None,
    search: str = "",
    per_page: int = QUEUE_PAGE,
) -> Queue:
    """The user's queue for the API: :func:`queue_summary` and one page of
    :func:`queue_listed` (without ``search``, a :class:`QueuePage`: counted from the tally
    the summary reads)."""
    tally = queue_tally(user)
    summary = queue_summary(user, tally=tally)
    listed: IdsFirst[Assignment] | QueuePage
    if search:
        found = _listed(tally.queued, status=status, corpus=corpus, search=search)
        # past the first page the search is evaluated once, for the count and the page
        listed = IdsFirst(found.order_by(*QUEUE_ORDER), whole=page > 1)
    else:
        listed = QueuePage(tally, status=status, corpus=corpus)
    total = listed.count()
    start = (page - 1) * per_page
    return Queue(
        assignments=list(listed[start : start + per_page]),
        counts=summary.counts,
        continue_id=summary.continue_id,
        next_id=summary.next_id,
        total=total,
        page=page,
        per_page=per_page,
    )


def _in_queue_order(
    queued: QuerySet[Assignment], *, of: Assignment, before: bool = False, wrap: bool = False
) -> list[QuerySet[Assignment]]:
    """The pieces of ``queued`` (one user's assignments in queue order: corpus name, then pair
    position) after ``of``, or before it, nearest first; with ``wrap``, then from the start of
    the queue up to ``of`` itself. The first row of the first non-empty piece is the neighbour.
    Each piece is read by position in one corpus, or by corpus name beyond it, so that finding
    a neighbour reads a few rows near ``of``, not every assignment of an annotator who holds
    tens of thousands."""
    corpus_id, name, position = of.pair.corpus_id, of.pair.corpus.name, of.pair.position
    here = queued.filter(pair__corpus_id=corpus_id)
    if before:
        return [
            here.filter(pair__position__lt=position).order_by("-pair__position"),
            queued.filter(pair__corpus__name__lt=name).order_by(
                "-pair__corpus__name", "-pair__position"
            ),
        ]
    pieces = [
        here.filter(pair__position__gt=position).order_by("pair__position"),
        queued.filter(pair__corpus__name__gt=name),
    ]
    if wrap:
        pieces += [
            queued.filter(pair__corpus__name__lt=name),
            here.filter(pair__position__lte=position).order_by("pair__position"),
        ]
    return pieces


def _first(pieces: list[QuerySet[Assignment]]) -> int | None:
    for piece in pieces:
        pk = piece.values_list("pk", flat=True).first()
        if pk is not None:
            return int(pk)
    return None


def neighbours(*, user: User, assignment: Assignment) -> tuple[int | None, int | None]:
    """Previous and next assignment of the same user in queue order (among the archived
    corpus's own, for an assignment of an archived corpus)."""
    queued = queued_assignments_of(user)
    if assignment.pair.corpus.archived_at is not None:
        queued = assignments_of(user).filter(pair__corpus_id=assignment.pair.corpus_id)
    previous = _first(_in_queue_order(queued, of=assignment, before=True))
    return previous, _first(_in_queue_order(queued, of=assignment))


def least_sure_open_assignment(
    *, user: User, corpus_id: int, exclude: int | None = None
) -> int | None:
    """The user's not-submitted assignment in the corpus whose newest prefill is least sure
    (most expected corrections; pairs without that estimate last, then corpus order)."""
    doubt = (
        AutoAlignment.objects.filter(pair=OuterRef("pair"))
        .order_by("-created_at", "-id")
        .values("expected_corrections")[:1]
    )
    open_ones = Assignment.objects.filter(annotator_id=user.pk, pair__corpus_id=corpus_id).exclude(
        status=Assignment.Status.SUBMITTED
    )
    if exclude is not None:
        open_ones = open_ones.exclude(pk=exclude)
    return (
        open_ones.annotate(doubt=Subquery(doubt))
        .order_by(F("doubt").desc(nulls_last=True), "pair__position")
        .values_list("pk", flat=True)
        .first()
    )


def next_open_assignment(*, user: User, after: Assignment) -> int | None:
    """The first not-submitted assignment after ``after`` in queue order, wrapping around; in a
    corpus whose queue order is *least sure first*, the least sure of the corpus' others."""
    corpus = Corpus.objects.only("queue_order").get(pk=after.pair.corpus_id)
    if corpus.queue_order == Corpus.QueueOrder.LEAST_SURE:
        pick = least_sure_open_assignment(user=user, corpus_id=corpus.pk, exclude=after.pk)
        if pick is not None:
            return pick
    open_ones = queued_assignments_of(user).exclude(status=Assignment.Status.SUBMITTED)
    if after.pair.corpus.archived_at is not None:  # not in the queue: its first open pair
        return _first([open_ones])
    return _first(_in_queue_order(open_ones, of=after, wrap=True))


def prefill_of(pair: SentencePair) -> dict[str, Any] | None:
    prefill = AutoAlignment.objects.filter(pair=pair).order_by("-created_at", "-id").first()
    if prefill is None:
        return None
    rows = prefill.links.order_by("i", "j").values_list("i", "j", "sure", "confidence")
    return {
        "aligner": prefill.aligner,
        "links": [[i, j, SURE if sure else POSSIBLE, conf] for i, j, sure, conf in rows],
    }


def pair_payload(pair: SentencePair) -> dict[str, Any]:
    return {
        "id": pair.pk,
        "corpus": pair.corpus.name,
        "external_id": pair.external_id,
        "subcorpus": pair.subcorpus,
        "split": pair.split,
        "source_tokens": list(pair.source_tokens),
        "target_tokens": list(pair.target_tokens),
        "source_text": pair.source_text,
        "target_text": pair.target_text,
    }


def gold_links(pair: SentencePair) -> LinkMap | None:
    gold = GoldAlignment.objects.filter(pair=pair).first()
    if gold is None:
        return None
    return {(i, j): sure for i, j, sure in gold.links.values_list("i", "j", "sure")}


def touched_cells(annotation: Annotation) -> list[list[int]]:
    """Cells the annotator has changed, or confirmed unchanged, since the prefill (from the
    event log; :func:`~annotate.services.annotations.reviewed_cells`), sorted."""
    return [[i, j] for i, j in sorted(reviewed_cells(annotation))]


def workspace_of(*, user: User, assignment: Assignment, annotation: Annotation) -> dict[str, Any]:
    previous, following = neighbours(user=user, assignment=assignment)
    return {
        "assignment": {
            "id": assignment.pk,
            "status": assignment.status,
            "active_seconds": round(assignment.active_seconds, 1),
            "previous_id": previous,
            "next_id": following,
        },
        "pair": pair_payload(assignment.pair),
        "prefill": prefill_of(assignment.pair),
        "annotation": {
            "version": annotation.version,
            "links": links_list(annotation_links(annotation)),
            "flags": list(annotation.flags),
            "comment": annotation.comment,
            "rating": annotation.rating,
            "touched": touched_cells(annotation),
        },
        "trial": assignment.pair.is_trial,
    }


def trial_feedback(*, assignment: Assignment) -> dict[str, Any]:
    """Word P/R/F1 of the submitted annotation against gold, plus the cell-by-cell diff."""
    from scoring.alignment.links import Alignment

    pair = assignment.pair
    if assignment.status != Assignment.Status.SUBMITTED:
        raise PermissionDenied("feedback is shown after the pair is submitted")
    gold = gold_links(pair)
    if pair.split != TRIAL_SPLIT or gold is None:
        raise NotFound("this pair is not a trial pair with a gold alignment")
    mine = annotation_links(Annotation.objects.get(assignment=assignment))

    def alignment(links: LinkMap) -> Alignment:
        return Alignment.from_links(
            pair.n_source,
            pair.n_target,
            [k for k, s in links.items() if s],
            [k for k, s in links.items() if not s],
        )

    scores = _word_scores(alignment(mine), alignment(gold), pair)
    return {
        "scores": scores,
        "gold": links_list(gold),
        "mine": links_list(mine),
    }


def _word_scores(candidate: Any, reference: Any, pair: SentencePair) -> dict[str, Any]:
    """Cohn et al. (2008) word P/R/F1 through :mod:`scoring.alignment.metrics`.

    Identical word pairs are kept: a trainee is scored on every link they set."""
    from scoring.alignment import metrics

    counts = metrics.word_counts(
        candidate,
        reference,
        list(pair.source_tokens),
        list(pair.target_tokens),
        exclude_identical=False,
    )
    scores = metrics.word_scores(counts)
    return {
        "precision": scores.precision,
        "recall": scores.recall,
        "f1": scores.f1,
        "aer": scores.aer,
    }
