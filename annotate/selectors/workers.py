"""Whether any Celery worker is alive, and which queues the live ones take jobs from, from the
heartbeats the workers write (:mod:`annotate.services.workers`); and what the pages say to a
user whose job waits while no worker, or none of its queue, is."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timedelta

from django.conf import settings
from django.db.models import QuerySet
from django.utils import timezone

from annotate.jobs_runtime import job_queue
from annotate.models import Job, WorkerHeartbeat
from annotate.selectors.jobs import User, jobs_visible

NO_WORKER_NOTICE = (
    "No worker is running, so queued jobs wait. Start one with: make worker "
    "(on a production install: celery -A config worker --beat)."
)


def unserved_queue_notice(queues: Iterable[str]) -> str:
    """What a user is told while workers run but none takes jobs from ``queues`` (each
    worker started with ``-Q`` naming others, or ``-X`` leaving these out)."""
    names = sorted(set(queues))
    plural = "s" if len(names) > 1 else ""
    return (
        f"No running worker takes jobs from the {', '.join(names)} queue{plural}, so the jobs "
        f"queued there wait. Start one with: celery -A config worker -Q {','.join(names)} "
        "(a worker started without -Q or -X takes jobs from every queue)."
    )


def workers_alive(*, now: datetime | None = None) -> QuerySet[WorkerHeartbeat]:
    """The workers heard from within the last ``WORKER_ALIVE_SECONDS``, newest first."""
    limit = (now or timezone.now()) - timedelta(seconds=settings.WORKER_ALIVE_SECONDS)
    return WorkerHeartbeat.objects.filter(beat_at__gte=limit)


def any_worker_alive(*, now: datetime | None = None) -> bool:
    return workers_alive(now=now).exists()


def served_queues(*, now: datetime | None = None) -> frozenset[str] | None:
    """The queues some live worker takes jobs from, in one query; ``None`` while no worker is
    alive. A worker whose queues are not known serves every queue."""
    rows = list(workers_alive(now=now).values_list("queues", flat=True))
    if not rows:
        return None
    if any(not queues for queues in rows):
        return frozenset(settings.CELERY_TASK_QUEUES)
    return frozenset(name for queues in rows for name in queues.split(",") if name)


def job_worker_notice(*, kind: str, served: frozenset[str] | None) -> str | None:
    """What a queued job of ``kind`` waits for, given :func:`served_queues`: no worker at all,
    no worker of its queue, or (``None``) nothing but a free worker."""
    if served is None:
        return NO_WORKER_NOTICE
    queue = job_queue(kind)
    return None if queue in served else unserved_queue_notice([queue])


def waiting_job_notice(*, user: User) -> str:
    """What the queued jobs ``user`` can see wait for, when it is a worker nobody started (none
    at all, or none of their queues); otherwise an empty string."""
    kinds = set(jobs_visible(user).filter(status=Job.Status.PENDING).values_list("kind", flat=True))
    if not kinds:
        return ""
    served = served_queues()
    if served is None:
        return NO_WORKER_NOTICE
    unserved = {job_queue(kind) for kind in kinds} - served
    return unserved_queue_notice(unserved) if unserved else ""
