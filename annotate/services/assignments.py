"""Who annotates which pair: K per pair, a doubly annotated fraction, balanced loads,
reassignment, and abandoned pairs returned to the pool.

An assignment always belongs to an annotator (the schema has no unassigned state), so "returned
to the pool" means handed to the least-loaded other annotator; the partial annotation travels
with it and the hand-over is written to the event log, so no work is lost.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

import numpy as np
from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Count, Q
from django.utils import timezone

from annotate import roles
from annotate.exceptions import Conflict, DomainError
from annotate.jobs_runtime import job_task
from annotate.models import Annotation, AnnotationEvent, Assignment, Corpus, Job, SentencePair
from annotate.services.annotations import annotation_event_append

if TYPE_CHECKING:
    from django.contrib.auth.models import User


#: The largest seed of a plan: the seeds drawn when none is given are 32-bit.
MAX_SEED = 2**32 - 1
#: The longest idle time before an in-progress assignment counts as abandoned (a year).
MAX_IDLE_HOURS = 24.0 * 365


@dataclass
class PlanReport:
    created: int = 0
    seed: int = 0
    doubled_pairs: int = 0
    load: dict[str, int] = field(default_factory=dict)


def _open_load(annotator_ids: Sequence[int]) -> dict[int, int]:
    """Not-yet-submitted assignments per annotator (the work still in front of them)."""
    rows = (
        Assignment.objects.filter(annotator_id__in=annotator_ids)
        .exclude(status=Assignment.Status.SUBMITTED)
        .values("annotator_id")
        .annotate(n=Count("id"))
    )
    load = {pk: 0 for pk in annotator_ids}
    load.update({row["annotator_id"]: row["n"] for row in rows})
    return load


@transaction.atomic
def assignments_plan(
    *,
    corpus: Corpus,
    annotators: Sequence[User],
    per_pair: int = 1,
    double_fraction: float = 0.0,
    seed: int | None = None,
) -> PlanReport:
    """Give every pair of the corpus ``per_pair`` annotators, and a random ``double_fraction``
    of pairs at least two, always choosing the least-loaded annotators (ties broken by a seeded
    shuffle). Existing assignments count towards a pair's quota and towards loads."""
    if not annotators:
        raise DomainError("choose at least one annotator")
    if per_pair < 1:
        raise DomainError(f"annotators per pair must be at least 1, got {per_pair}")
    if not 0.0 <= double_fraction <= 1.0:
        raise DomainError(f"the doubly annotated fraction must be in [0, 1], got {double_fraction}")
    want_max = max(per_pair, 2 if double_fraction > 0 else 1)
    if want_max > len(annotators):
        raise DomainError(
            f"{want_max} annotators per pair were asked for but only {len(annotators)} chosen"
        )
    for user in annotators:
        if not roles.has_role(user, roles.ANNOTATOR):
            raise DomainError(f"{user.get_username()} does not have the annotator role")
    if seed is not None and not 0 <= seed <= MAX_SEED:
        raise DomainError(f"the seed must be between 0 and {MAX_SEED}, got {seed}", field="seed")
    seed = int(np.random.SeedSequence().generate_state(1)[0]) if seed is None else seed
    rng = np.random.default_rng(seed)
    pairs = list(SentencePair.objects.filter(corpus=corpus).order_by("position"))
    doubled = set()
    if double_fraction > 0 and pairs:
        count = round(double_fraction * len(pairs))
        doubled = {int(k) for k in rng.choice(len(pairs), size=count, replace=False)}
    ids = [user.pk for user in annotators]
    load = _open_load(ids)
    existing: dict[int, set[int]] = {}
    for pair_id, annotator_id in Assignment.objects.filter(pair__corpus=corpus).values_list(
        "pair_id", "annotator_id"
    ):
        existing.setdefault(pair_id, set()).add(annotator_id)
    new_rows = []
    for index, pair in enumerate(pairs):
        quota = max(per_pair, 2) if index in doubled else per_pair
        have = existing.get(pair.pk, set())
        order = [ids[k] for k in rng.permutation(len(ids))]
        candidates = sorted((pk for pk in order if pk not in have), key=lambda pk: load[pk])
        for annotator_id in candidates[: max(0, quota - len(have))]:
            new_rows.append(Assignment(pair=pair, annotator_id=annotator_id))
            load[annotator_id] += 1
    Assignment.objects.bulk_create(new_rows)
    names = dict(get_user_model().objects.filter(pk__in=ids).values_list("pk", "username"))
    return PlanReport(
        created=len(new_rows),
        seed=seed,
        doubled_pairs=len(doubled),
        load={names[pk]: n for pk, n in sorted(load.items())},
    )


def _hand_over(assignment: Assignment, to: User, actor: User | None, reason: str) -> Assignment:
    previous = assignment.annotator
    assignment.annotator = to
    if assignment.status == Assignment.Status.IN_PROGRESS:
        assignment.last_activity_at = None
    assignment.save(update_fields=["annotator", "last_activity_at"])
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
    actor: User | None = None,
    now: datetime | None = None,
) -> dict[str, int]:
    """Hand every in-progress assignment untouched for ``idle`` to the least-loaded annotator
    who does not already have the pair. Returns counts of released and stuck assignments."""
    now = now or timezone.now()
    limit = now - idle
    stale = list(
        Assignment.objects.select_for_update()
        .select_related("annotator")
        .filter(status=Assignment.Status.IN_PROGRESS)
        .filter(
            Q(last_activity_at__lt=limit) | Q(last_activity_at__isnull=True, started_at__lt=limit)
        )
        .order_by("pk")
    )
    group = roles.role_group(roles.ANNOTATOR)
    pool = list(get_user_model().objects.filter(groups=group, is_active=True).order_by("pk"))
    load = _open_load([user.pk for user in pool])
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
    and stuck assignments."""
    targets = [user for user in to if user.pk != from_user.pk]
    if not targets:
        raise DomainError("choose at least one annotator other than the one handing over")
    for user in targets:
        if not roles.has_role(user, roles.ANNOTATOR):
            raise DomainError(f"{user.get_username()} does not have the annotator role")
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
    load = _open_load([user.pk for user in targets])
    moved = stuck = 0
    for assignment in moving:
        candidates = [u for u in targets if u.pk not in taken.get(assignment.pair_id, set())]
        if not candidates:
            stuck += 1
            continue
        target = min(candidates, key=lambda u: (load[u.pk], u.pk))
        _hand_over(assignment, target, actor, f"handed over from {from_user.get_username()}")
        taken[assignment.pair_id].add(target.pk)
        load[target.pk] += 1
        moved += 1
    return {"moved": moved, "stuck": stuck}


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
    owner: User | None = None,
) -> Job:
    """Queue :func:`assignments_plan` as an ``assignments_plan`` job; bad input queues nothing.
    A missing seed is drawn now, so the job records the one it uses."""
    people = annotators_named(annotators)
    if per_pair < 1:
        raise DomainError(f"annotators per pair must be at least 1, got {per_pair}")
    want_max = max(per_pair, 2 if double_fraction > 0 else 1)
    if want_max > len(people):
        raise DomainError(
            f"{want_max} annotators per pair were asked for but only {len(people)} chosen"
        )
    if not 0.0 <= double_fraction <= 1.0:
        raise DomainError(f"the doubly annotated fraction must be in [0, 1], got {double_fraction}")
    if seed is not None and not 0 <= seed <= MAX_SEED:
        raise DomainError(f"the seed must be between 0 and {MAX_SEED}, got {seed}", field="seed")
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
        },
    )


@job_task(kind="assignments_plan")
def assignments_plan_run(job: Job, progress: Callable[[float, str], None]) -> dict[str, Any]:
    """Job runner of ``assignments_plan``."""
    if job.corpus is None:
        raise DomainError("an assignments_plan job needs a corpus")
    report = assignments_plan(
        corpus=job.corpus,
        annotators=annotators_named(job.parameters["annotators"]),
        per_pair=int(job.parameters["per_pair"]),
        double_fraction=float(job.parameters["double_fraction"]),
        seed=job.seed,
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
    leaving = get_user_model().objects.filter(username=annotator).first()
    if leaving is None:
        raise DomainError(f"there is no user {annotator!r}")
    targets = [user for user in annotators_named(to) if user.pk != leaving.pk]
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


@job_task(kind="assignments_hand_over")
def assignments_hand_over_run(job: Job, progress: Callable[[float, str], None]) -> dict[str, Any]:
    """Job runner of ``assignments_hand_over``."""
    if job.corpus is None:
        raise DomainError("an assignments_hand_over job needs a corpus")
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


def assignments_release_job_create(*, idle_hours: float, owner: User | None = None) -> Job:
    """Queue :func:`assignments_release_abandoned` as an ``assignments_release`` job."""
    if not 0 <= idle_hours <= MAX_IDLE_HOURS:
        raise DomainError(
            f"idle_hours must be between 0 and {MAX_IDLE_HOURS:g}, got {idle_hours}",
            field="idle_hours",
        )
    return assignments_release_run.create(owner=owner, parameters={"idle_hours": idle_hours})


@job_task(kind="assignments_release")
def assignments_release_run(job: Job, progress: Callable[[float, str], None]) -> dict[str, Any]:
    """Job runner of ``assignments_release``."""
    return assignments_release_abandoned(
        idle=timedelta(hours=float(job.parameters["idle_hours"])), actor=job.owner
    )
