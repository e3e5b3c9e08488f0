"""Whether any Celery worker is alive, from the heartbeats the workers write
(:mod:`annotate.services.workers`), and what the pages say to a user whose job waits while
none is."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings
from django.db.models import QuerySet
from django.utils import timezone

from annotate.models import Job, WorkerHeartbeat
from annotate.selectors.jobs import User, jobs_visible

NO_WORKER_NOTICE = (
    "No worker is running, so queued jobs wait. Start one with: make worker "
    "(on a production install: celery -A config worker --beat)."
)


def workers_alive(*, now: datetime | None = None) -> QuerySet[WorkerHeartbeat]:
    """The workers heard from within the last ``WORKER_ALIVE_SECONDS``, newest first."""
    limit = (now or timezone.now()) - timedelta(seconds=settings.WORKER_ALIVE_SECONDS)
    return WorkerHeartbeat.objects.filter(beat_at__gte=limit)


def any_worker_alive(*, now: datetime | None = None) -> bool:
    return workers_alive(now=now).exists()


def waiting_job_notice(*, user: User) -> str:
    """:data:`NO_WORKER_NOTICE` when ``user`` can see a queued job and no worker is alive to
    take it; otherwise an empty string."""
    if not jobs_visible(user).filter(status=Job.Status.PENDING).exists():
        return ""
    return "" if any_worker_alive() else NO_WORKER_NOTICE
