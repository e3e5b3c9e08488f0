"""Who annotates which pair: K per pair, a doubly annotated fraction, balanced loads,
reassignment, and abandoned pairs returned to the pool.

An assignment always belongs to an annotator (the schema has no unassigned state), so "returned
to the pool" means handed to the least-loaded other annotator; the partial annotation travels
with it and the hand-over is written to the event log, so no work is lost.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, replace
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

import numpy as np
from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.db.models import Count, Max, Min, Q, QuerySet
from django.db.models.functions import Least
from django.utils import timezone

from annotate import roles
from annotate.exceptions import Conflict, DomainError, quoted
from annotate.jobs_runtime import job_task
from annotate.models import Annotation, AnnotationEvent, Assignment, Corpus, Job, SentencePair
from annotate.selectors.assignments import imported_accounts
from annotate.services.annotations import annotation_event_append
from annotate.services.corpora import corpus_in_use_check
from annotate.services.planner_stats import tables_analyze

if TYPE_CHECKING:
    from django.contrib.auth.models import User


#: The largest seed of a plan: the seeds drawn when none is given are 32-bit.
MAX_SEED = 2**32 - 1
#: The longest idle time before an in-progress assignment counts as abandoned (a year).
MAX_IDLE_HOURS = 24.0 * 365


@dataclass(frozen=True)
class PlanSelection:
    """Which pairs of a corpus a plan covers: a sub-corpus, a split, a range of lengths (tokens
    of the shorter sentence, both ends included) and at most ``batch`` of them, the first in
    corpus order that still need annotators. ``None`` leaves a criterion out."""

    subcorpus: str | None = None
    split: str | None = None
    min_length: int | None = None
    max_length: int | None = None
    batch: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return {key: value for key, value in asdict(self).items() if value is not None}

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None) -> PlanSelection:
        return cls(**(data or {}))

    def describe(self) -> str:
        """``sub-corpus news · split dev · length 5–20 · a batch of 100 pairs``; ``every pair``
        without criteria."""
        parts = []
        if self.subcorpus is not None:
            parts.append(f"sub-corpus {self.subcorpus or '(none)'}")
        if self.split is not None:
            parts.append(f"split {self.split or '(none)'}")
        if self.min_length is not None and self.max_length is not None:
            parts.append(f"length {self.min_length}–{self.max_length}")
        elif self.min_length is not None:
            parts.append(f"length ≥ {self.min_length}")
        elif self.max_length is not None:
            parts.append(f"length ≤ {self.max_length}")
        if self.batch is not None:
            parts.append(f"a batch of {self.batch:,} pairs")
        return " · ".join(parts) or "every pair"

    def check(self) -> None:
        """Raise :class:`DomainError` naming the field of a criterion that cannot hold."""
        for name in ("min_length", "max_length", "batch"):
            value = getattr(self, name)
            if value is not None and value < (1 if name == "batch" else 0):
                least = 1 if name == "batch" else 0
                raise DomainError(f"{name} must be at least {least}, got {value}", field=name)
        if (
            self.min_length is not None
            and self.max_length is not None
            and self.min_length > self.max_length
        ):
            raise DomainError(
                f"the shortest length ({self.min_length}) is above the longest ({self.max_length})",
                field="max_length",
            )

    def pairs(self, corpus: Corpus) -> QuerySet[SentencePair]:
        """The corpus's pairs this selection takes (before the batch), in corpus order."""
        pairs = SentencePair.objects.filter(corpus=corpus)
        if self.subcorpus is not None:
            pairs = pairs.filter(subcorpus=self.subcorpus)
        if self.split is not None:
            pairs = pairs.filter(split=self.split)
        if self.min_length is not None or self.max_length is not None:
            pairs = pairs.annotate(shorter=Least("n_source", "n_target"))
            if self.min_length is not None:
                pairs = pairs.filter(shorter__gte=self.min_length)
            if self.max_length is not None:
                pairs = pairs.filter(shorter__lte=self.max_length)
        return pairs.order_by("position")


def _lengths_hint(corpus: Corpus, selection: PlanSelection) -> str:
    """What to do about a length range no pair matches: the lengths the selection's other
    criteria leave (``: the shorter sentences of its pairs are 3–41 tokens long; choose
    lengths within them``), or nothing when they leave no pair."""
    others = replace(selection, min_length=None, max_length=None, batch=None)
    lengths = (
        others.pairs(corpus)
        .annotate(shorter=Least("n_source", "n_target"))
        .aggregate(low=Min("shorter"), high=Max("shorter"))
    )
    if lengths["low"] is None:
        return ""
    scope = (
        "its pairs" if others.describe() == "every pair" else f"its pairs of {others.describe()}"
    )
    return (
        f": the shorter sentences of {scope} are {lengths['low']}–{lengths['high']} tokens "
        "long; choose lengths within them"
    )


@dataclass
class PlanReport:
    """What a plan did: ``created`` assignments over ``planned`` pairs (``doubled_pairs`` of
    them with two or more), of the ``selected`` pairs the selection matched, ``covered`` of
    which already had enough of the chosen annotators; each chosen annotator's open work in
    this corpus afterwards (``load``)."""

    created: int = 0
    seed: int = 0
    doubled_pairs: int = 0
    load: dict[str, int] = field(default_factory=dict)
    selected: int = 0
    covered: int = 0
    planned: int = 0
    selection: str = "every pair"


def _open_load(annotator_ids: Sequence[int], corpus: Corpus | int | None = None) -> dict[int, int]:
    """Not-yet-submitted assignments per annotator (the work still in front of them), in
    ``corpus`` (a corpus or its id) only when one is given."""
    rows = Assignment.objects.filter(annotator_id__in=annotator_ids).exclude(
        status=Assignment.Status.SUBMITTED
    )
    if corpus is not None:
        rows = rows.filter(pair__corpus=corpus)
    counts = rows.values("annotator_id").annotate(n=Count("id"))
    load = {pk: 0 for pk in annotator_ids}
    load.update({row["annotator_id"]: row["n"] for row in counts})
    return load


def _plan_check(
    annotators: Sequence[User], per_pair: int, double_fraction: float, seed: int | None
) -> None:
    if not annotators:
        raise DomainError("choose at least one annotator", field="annotators")
    if per_pair < 1:
        raise DomainError(
            f"annotators per pair must be at least 1, got {per_pair}", field="per_pair"
        )
    if not 0.0 <= double_fraction <= 1.0:
        raise DomainError(
            f"the doubly annotated fraction must be in [0, 1], got {double_fraction}",
            field="double_fraction",
        )
    if per_pair > len(annotators):
        raise DomainError(
            f"{per_pair} annotators per pair were asked for but only {len(annotators)} chosen: "
            f"choose {per_pair - len(annotators)} more, or lower K to {len(annotators)}",
            field="annotators",
        )
    if double_fraction > 0 and len(annotators) < 2:
        raise DomainError(
            "a doubly annotated share needs 2 annotators but only 1 chosen: choose another, "
            "or set the share to 0",
            field="annotators",
        )
    if seed is not None and not 0 <= seed <= MAX_SEED:
        raise DomainError(f"the seed must be between 0 and {MAX_SEED}, got {seed}", field="seed")


@transaction.atomic
def assignments_plan(
    *,
    corpus: Corpus,
    annotators: Sequence[User],
    per_pair: int = 1,
    double_fraction: float = 0.0,
    seed: int | None = None,
    selection: PlanSelection | None = None,
) -> PlanReport:
    """Give ``per_pair`` of ``annotators`` to the pairs of ``selection`` that have fewer than
    that many of them, and to a random ``double_fraction`` of those pairs at least two.

    Only the chosen annotators count towards a pair's quota: the work of others (imported
    annotators, people not in this plan) neither fills it nor blocks it. The pairs are taken in
    corpus order, at most ``selection.batch`` of them. Each pair goes to the chosen annotators
    with the least open work in this corpus (ties broken by a seeded shuffle).

    Plans and hand-overs of one corpus run one at a time (its row is locked): of two started
    at one moment, the second reads what the first assigned and adds only what is still
    missing. Should another change add one of the planned assignments meanwhile (a release of
    idle work, an import), the plan is a :class:`Conflict` that changes nothing, never a
    database error."""
    selection = selection or PlanSelection()
    _plan_check(annotators, per_pair, double_fraction, seed)
    selection.check()
    for user in annotators:
        if not roles.has_role(user, roles.ANNOTATOR):
            raise DomainError(
                f"{user.get_username()} does not have the annotator role", field="annotators"
            )
    Corpus.objects.select_for_update().filter(pk=corpus.pk).first()
    seed = int(np.random.SeedSequence().generate_state(1)[0]) if seed is None else seed
    rng = np.random.default_rng(seed)
    ids = [user.pk for user in annotators]
    have: dict[int, set[int]] = {}
    for pair_id, annotator_id in Assignment.objects.filter(
        pair__corpus=corpus, annotator_id__in=ids
    ).values_list("pair_id", "annotator_id"):
        have.setdefault(pair_id, set()).add(annotator_id)
    selected = list(selection.pairs(corpus).values_list("id", flat=True))
    needing = [pk for pk in selected if len(have.get(pk, ())) < per_pair]
    batch = needing if selection.batch is None else needing[: selection.batch]
    doubled: set[int] = set()
    if double_fraction > 0 and per_pair < 2 and batch:  # K ≥ 2 doubles every pair already
        count = round(double_fraction * len(batch))
        doubled = {int(k) for k in rng.choice(len(batch), size=count, replace=False)}
    load = _open_load(ids, corpus)
    new_rows = []
    for index, pair_id in enumerate(batch):
        quota = max(per_pair, 2) if index in doubled else per_pair
        held = have.get(pair_id, set())
        order = [ids[k] for k in rng.permutation(len(ids))]
        candidates = sorted((pk for pk in order if pk not in held), key=lambda pk: load[pk])
        for annotator_id in candidates[: max(0, quota - len(held))]:
            new_rows.append(Assignment(pair_id=pair_id, annotator_id=annotator_id))
            load[annotator_id] += 1
    try:
        with transaction.atomic():
            Assignment.objects.bulk_create(new_rows)
    except IntegrityError:
        raise Conflict(
            f"the assignments of corpus {quoted(corpus.name)} changed while this plan was made "
            "(idle work released, an import); nothing was planned: run the plan again"
        ) from None
    # Once the plan commits (this function's transaction): see planner_stats.
    tables_analyze({Assignment: len(new_rows)})
    names = dict(get_user_model().objects.filter(pk__in=ids).values_list("pk", "username"))
    return PlanReport(
        created=len(new_rows),
        seed=seed,
        doubled_pairs=len(doubled),
        load={names[pk]: n for pk, n in sorted(load.items(), key=lambda item: names[item[0]])},
        selected=len(selected),
        covered=len(selected) - len(needing),
        planned=len(batch),
        selection=selection.describe(),
    )


def _hand_over(assignment: Assignment, to: User, actor: User | None, reason: str) -> Assignment:
    previous = assignment.annotator
    assignment.annotator = to
    # The new holder's clock starts now: releasing abandoned work reads an in-progress pair
    # with no activity as idle since it was assigned (else released work would move again at
    # once: its started_at is the previous holder's).
    assignment.assigned_at = timezone.now()
    if assignment.status == Assignment.Status.IN_PROGRESS:
        assignment.last_activity_at = None
    assignment.save(update_fields=["annotator", "assigned_at", "last_activity_at"])
    annotation = Annotation.objects.select_for_update().filter(assignment=assignment).first()
    if annotation is not None:
        annotation_event_append(
            annotation=annotation,
            kind=AnnotationEvent.Kind.REOPENED,
            actor=actor,
            payload={
                "reassigned_from": previous.get_username(),
                "reassigned_to": to.get_username(),
                "reason": reason,
            },
        )
    return assignment


def _hand_over_many(
    moves: Sequence[tuple[Assignment, User]], actor: User | None, reason: str
) -> None:
    """:func:`_hand_over` of many assignments in a few statements: one update per new holder
    and status, one read of their annotations; only an assignment with saved work logs its
    event one by one. A hand-over of 700 pairs made 1,400 statements (two and a half minutes
    of a busy worker's quick lane, which promises seconds)."""
    now = timezone.now()
    by_target: dict[tuple[int, bool], list[int]] = {}
    for assignment, to in moves:
        started = assignment.status == Assignment.Status.IN_PROGRESS
        by_target.setdefault((to.pk, started), []).append(assignment.pk)
    for (to_id, started), ids in by_target.items():
        fields: dict[str, Any] = {"annotator_id": to_id, "assigned_at": now}
        if started:  # the new holder's clock starts now (see _hand_over)
            fields["last_activity_at"] = None
        for start in range(0, len(ids), HAND_OVER_BATCH):
            Assignment.objects.filter(pk__in=ids[start : start + HAND_OVER_BATCH]).update(**fields)
    moving = {assignment.pk: (assignment, to) for assignment, to in moves}
    ids = list(moving)
    for start in range(0, len(ids), HAND_OVER_BATCH):
        annotations = Annotation.objects.select_for_update().filter(
            assignment_id__in=ids[start : start + HAND_OVER_BATCH]
        )
        for annotation in annotations.order_by("pk"):
            assignment, to = moving[annotation.assignment_id]
            annotation_event_append(
                annotation=annotation,
                kind=AnnotationEvent.Kind.REOPENED,
                actor=actor,
                payload={
                    "reassigned_from": assignment.annotator.get_username(),
                    "reassigned_to": to.get_username(),
                    "reason": reason,
                },
            )


#: Assignments a statement of :func:`_hand_over_many` names at most.
HAND_OVER_BATCH = 1000


@transaction.atomic
def assignment_reassign(*, assignment: Assignment, to: User, actor: User | None) -> Assignment:
    """Give an unsubmitted assignment (with any partial work) to another annotator."""
    locked = (
        Assignment.objects.select_for_update().select_related("annotator").get(pk=assignment.pk)
    )
    if locked.status == Assignment.Status.SUBMITTED:
        raise Conflict("a submitted assignment cannot be reassigned")
    if not roles.has_role(to, roles.ANNOTATOR):
        raise DomainError(f"{to.get_username()} does not have the annotator role")
    if locked.annotator_id == to.pk:
        return locked
    if Assignment.objects.filter(pair_id=locked.pair_id, annotator_id=to.pk).exists():
        raise Conflict(f"{to.get_username()} already has this pair")
    return _hand_over(locked, to, actor, "reassigned")


@transaction.atomic
def assignments_release_abandoned(
    *,
    idle: timedelta,
    corpus_id: int | None = None,
    actor: User | None = None,
    now: datetime | None = None,
) -> dict[str, int]:
    """Hand every in-progress assignment untouched for ``idle`` (of corpus ``corpus_id``, or of
    every corpus) to the least-loaded annotator who does not already have the pair, never to an
    account an import made (nobody signs in as it: the work would wait there for ever). The
    load is open work in that corpus when one is given, else in all. Saved work moves with its
    pair and the hand-over is logged. Returns counts of released and stuck assignments."""
    now = now or timezone.now()
    limit = now - idle
    stale_rows = (
        Assignment.objects.select_for_update()
        .select_related("annotator")
        .filter(status=Assignment.Status.IN_PROGRESS)
        .filter(
            Q(last_activity_at__lt=limit)
            | Q(last_activity_at__isnull=True, started_at__lt=limit, assigned_at__lt=limit)
        )
        .filter(pair__corpus__archived_at__isnull=True)  # no new work in an archived corpus
    )
    if corpus_id is not None:
        stale_rows = stale_rows.filter(pair__corpus_id=corpus_id)
    stale = list(stale_rows.order_by("pk"))
    group = roles.role_group(roles.ANNOTATOR)
    people = list(get_user_model().objects.filter(groups=group, is_active=True).order_by("pk"))
    imported = imported_accounts(user.get_username() for user in people)
    pool = [user for user in people if user.get_username() not in imported]
    load = _open_load([user.pk for user in pool], corpus_id)
    released = stuck = 0
    for assignment in stale:
        taken = set(
            Assignment.objects.filter(pair_id=assignment.pair_id).values_list(
                "annotator_id", flat=True
            )
        )
        candidates = sorted((u for u in pool if u.pk not in taken), key=lambda u: load[u.pk])
        if not candidates:
            stuck += 1
            continue
        target = candidates[0]
        previous_id = assignment.annotator_id
        _hand_over(assignment, target, actor, f"abandoned for more than {idle}")
        load[target.pk] += 1
        if previous_id in load:
            load[previous_id] -= 1
        released += 1
    return {"released": released, "stuck": stuck}


@transaction.atomic
def assignments_hand_over(
    *,
    corpus: Corpus,
    from_user: User,
    to: Sequence[User],
    include_started: bool = False,
    actor: User | None = None,
) -> dict[str, int]:
    """Share ``from_user``'s open assignments in ``corpus`` among ``to``, least-loaded first,
    never to someone who already has the pair: to rebalance, or when an annotator leaves.

    Only assignments with no saved work (status new) move unless ``include_started`` (then
    partial work travels with its pair and the hand-over is logged). Returns counts of moved
    and stuck assignments, and of those ``kept`` for their saved work (none when
    ``include_started``), so a hand-over that moved nothing says why."""
    _refuse_hand_over_to_self(from_user.get_username(), [user.get_username() for user in to])
    targets = list(to)
    if not targets:
        raise DomainError("choose at least one annotator other than the one handing over")
    for user in targets:
        if not roles.has_role(user, roles.ANNOTATOR):
            raise DomainError(f"{user.get_username()} does not have the annotator role")
    Corpus.objects.select_for_update().filter(pk=corpus.pk).first()  # after a running plan
    statuses = [Assignment.Status.NEW]
    if include_started:
        statuses.append(Assignment.Status.IN_PROGRESS)
    moving = list(
        Assignment.objects.select_for_update()
        .select_related("annotator")
        .filter(pair__corpus=corpus, annotator=from_user, status__in=statuses)
        .order_by("pair__position")
    )
    taken: dict[int, set[int]] = {}
    for pair_id, annotator_id in Assignment.objects.filter(
        pair_id__in=[a.pair_id for a in moving]
    ).values_list("pair_id", "annotator_id"):
        taken.setdefault(pair_id, set()).add(annotator_id)
    load = _open_load([user.pk for user in targets], corpus)
    moves: list[tuple[Assignment, User]] = []
    stuck = 0
    for assignment in moving:
        candidates = [u for u in targets if u.pk not in taken.get(assignment.pair_id, set())]
        if not candidates:
            stuck += 1
            continue
        target = min(candidates, key=lambda u: (load[u.pk], u.pk))
        moves.append((assignment, target))
        taken[assignment.pair_id].add(target.pk)
        load[target.pk] += 1
    _hand_over_many(moves, actor, f"handed over from {from_user.get_username()}")
    moved = len(moves)
    kept = (
        0
        if include_started
        else Assignment.objects.filter(
            pair__corpus=corpus, annotator=from_user, status=Assignment.Status.IN_PROGRESS
        ).count()
    )
    return {"moved": moved, "stuck": stuck, "kept": kept}


# --- as background jobs ------------------------------------------------------------------------
# Planning, handing over and releasing touch every pair or assignment of a corpus (one query per
# moved assignment): seconds at 10,000 pairs, minutes at 100,000. The API queues them as jobs;
# the request only checks the names and numbers.


def annotators_named(names: Sequence[str]) -> list[User]:
    """The active annotators called ``names``, in that order, in two queries; an unknown name or
    one without the annotator role is an error naming it."""
    unique = list(dict.fromkeys(names))
    found = {
        user.get_username(): user for user in get_user_model().objects.filter(username__in=unique)
    }
    for name in unique:
        if name not in found:
            raise DomainError(f"there is no user {name!r}")
    group = roles.role_group(roles.ANNOTATOR)
    members = set(
        get_user_model()
        .objects.filter(username__in=unique, is_active=True)
        .filter(Q(groups=group) | Q(is_superuser=True))
        .values_list("username", flat=True)
    )
    for name in unique:
        if name not in members:
            raise DomainError(f"{name} does not have the annotator role")
    return [found[name] for name in unique]


def assignments_plan_job_create(
    *,
    corpus: Corpus,
    annotators: Sequence[str],
    per_pair: int = 1,
    double_fraction: float = 0.0,
    seed: int | None = None,
    selection: PlanSelection | None = None,
    owner: User | None = None,
) -> Job:
    """Queue :func:`assignments_plan` as an ``assignments_plan`` job; bad input queues nothing,
    and neither does a selection no pair of the corpus matches. A missing seed is drawn now, so
    the job records the one it uses."""
    corpus_in_use_check(corpus, doing="planning assignments")
    selection = selection or PlanSelection()
    people = annotators_named(annotators)
    _plan_check(people, per_pair, double_fraction, seed)
    selection.check()
    if (
        selection.subcorpus is not None
        and not corpus.pairs.filter(subcorpus=selection.subcorpus).exists()
    ):
        raise DomainError(
            f"corpus {quoted(corpus.name)} has no sub-corpus {selection.subcorpus!r}",
            field="subcorpus",
        )
    if selection.split is not None and not corpus.pairs.filter(split=selection.split).exists():
        raise DomainError(
            f"corpus {quoted(corpus.name)} has no split {selection.split!r}", field="split"
        )
    if not selection.pairs(corpus).exists():
        raise DomainError(
            f"no pair of corpus {quoted(corpus.name)} matches the selection "
            f"({selection.describe()}){_lengths_hint(corpus, selection)}",
            field="max_length" if selection.max_length is not None else "min_length",
        )
    if seed is None:
        seed = int(np.random.SeedSequence().generate_state(1)[0])
    return assignments_plan_run.create(
        corpus=corpus,
        seed=seed,
        owner=owner,
        parameters={
            "annotators": [user.get_username() for user in people],
            "per_pair": per_pair,
            "double_fraction": double_fraction,
            "selection": selection.to_dict(),
        },
    )


@job_task(kind="assignments_plan")
def assignments_plan_run(job: Job, progress: Callable[[float, str], None]) -> dict[str, Any]:
    """Job runner of ``assignments_plan``."""
    if job.corpus is None:
        raise DomainError("an assignments_plan job needs a corpus")
    corpus_in_use_check(job.corpus, doing="planning assignments")  # archived since queued
    report = assignments_plan(
        corpus=job.corpus,
        annotators=annotators_named(job.parameters["annotators"]),
        per_pair=int(job.parameters["per_pair"]),
        double_fraction=float(job.parameters["double_fraction"]),
        seed=job.seed,
        selection=PlanSelection.from_dict(job.parameters.get("selection")),
    )
    return asdict(report)


def assignments_hand_over_job_create(
    *,
    corpus: Corpus,
    annotator: str,
    to: Sequence[str],
    include_started: bool = False,
    owner: User | None = None,
) -> Job:
    """Queue :func:`assignments_hand_over` as an ``assignments_hand_over`` job."""
    corpus_in_use_check(corpus, doing="handing over its assignments")
    leaving = get_user_model().objects.filter(username=annotator).first()
    if leaving is None:
        raise DomainError(f"there is no user {annotator!r}")
    _refuse_hand_over_to_self(annotator, to)
    targets = annotators_named(to)
    if not targets:
        raise DomainError("choose at least one annotator other than the one handing over")
    return assignments_hand_over_run.create(
        corpus=corpus,
        owner=owner,
        parameters={
            "annotator": annotator,
            "to": [user.get_username() for user in targets],
            "include_started": include_started,
        },
    )


def _refuse_hand_over_to_self(annotator: str, to: Sequence[str]) -> None:
    """A hand-over naming its own annotator among those who take the work is a mistake to
    name, not a name to drop: the rest would get the work silently."""
    if annotator in to:
        raise DomainError(
            f"{annotator} is handing over and cannot take their own work: choose annotators "
            "other than the one handing over; nothing was moved",
            field="to",
        )


@job_task(kind="assignments_hand_over")
def assignments_hand_over_run(job: Job, progress: Callable[[float, str], None]) -> dict[str, Any]:
    """Job runner of ``assignments_hand_over``."""
    if job.corpus is None:
        raise DomainError("an assignments_hand_over job needs a corpus")
    corpus_in_use_check(job.corpus, doing="handing over its assignments")
    leaving = get_user_model().objects.filter(username=job.parameters["annotator"]).first()
    if leaving is None:
        raise DomainError(f"there is no user {job.parameters['annotator']!r}")
    return assignments_hand_over(
        corpus=job.corpus,
        from_user=leaving,
        to=annotators_named(job.parameters["to"]),
        include_started=bool(job.parameters["include_started"]),
        actor=job.owner,
    )


def assignments_release_job_create(
    *, idle_hours: float, corpus: Corpus | None = None, owner: User | None = None
) -> Job:
    """Queue :func:`assignments_release_abandoned` as an ``assignments_release`` job, of
    ``corpus`` only when one is given (the job records it)."""
    if not 0 <= idle_hours <= MAX_IDLE_HOURS:
        raise DomainError(
            f"idle_hours must be between 0 and {MAX_IDLE_HOURS:g}, got {idle_hours}",
            field="idle_hours",
        )
    if corpus is not None:
        corpus_in_use_check(corpus, doing="releasing its assignments")
    return assignments_release_run.create(
        corpus=corpus, owner=owner, parameters={"idle_hours": idle_hours}
    )


@job_task(kind="assignments_release")
def assignments_release_run(job: Job, progress: Callable[[float, str], None]) -> dict[str, Any]:
    """Job runner of ``assignments_release``: the job's corpus only when it has one."""
    return assignments_release_abandoned(
        idle=timedelta(hours=float(job.parameters["idle_hours"])),
        corpus_id=job.corpus_id,
        actor=job.owner,
    )
