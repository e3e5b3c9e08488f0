"""Whether any Celery worker is alive, and which queues the live ones take jobs from, from the
heartbeats the workers write (:mod:`annotate.services.workers`); and what the pages say to a
user whose job waits while no worker, or none of its queue, is.

A worker whose broker address differs from this site's ``CELERY_BROKER_URL`` may be on
another broker (another Redis database, say), where it never gets this site's jobs, or on the
same one under another name (a host name against an address). The notices tell the user about
it instead of counting it as a worker that runs their jobs; the reaper and the resending count
it as alive, so that they never fail or resend the jobs such a worker runs."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db.models import Q, QuerySet
from django.utils import timezone
from kombu.utils.url import maybe_sanitize_url

from annotate.jobs_runtime import job_queue
from annotate.models import Job, WorkerHeartbeat
from annotate.selectors.jobs import User, jobs_visible

NO_WORKER_NOTICE = (
    "No worker is running, so queued jobs wait. Start one with: make worker "
    "(on a production install: celery -A config worker --beat)."
)


def unserved_queue_notice(queues: Iterable[str]) -> str:
    """What a user is told while workers run but none takes jobs from ``queues`` (each
    worker started with ``-Q`` naming others, or ``-X`` leaving these out). The command names
    the worker (``-n``): beside a worker started without a name on the same machine, a second
    one without would share its name, and so its heartbeat row, each overwriting the other's
    queues."""
    names = sorted(set(queues))
    plural = "s" if len(names) > 1 else ""
    return (
        f"No running worker takes jobs from the {', '.join(names)} queue{plural}, so the jobs "
        f"queued there wait. Start one with: celery -A config worker -Q {','.join(names)} "
        f"-n {'-'.join(names)}@%h "
        "(a worker started without -Q or -X takes jobs from every queue)."
    )


def other_broker_note(hostnames: Iterable[str]) -> str:
    """What the notices add while live workers report another broker address than this
    site's."""
    return (
        " Running with another broker address than this site's CELERY_BROKER_URL: "
        f"{', '.join(sorted(hostnames))}; if it is another broker, they never get this site's "
        "jobs."
    )


def broker_label(url: str) -> str:
    """``url`` with its password masked, as :attr:`WorkerHeartbeat.broker` holds it."""
    return str(maybe_sanitize_url(url))


def this_broker() -> str:
    """The broker this process sends jobs to, as the heartbeats name the workers' own."""
    return broker_label(settings.CELERY_BROKER_URL)


@dataclass(frozen=True)
class LiveWorkers:
    """What the heartbeats of the live workers say, read in one query (:func:`live_workers`)."""

    #: The queues the live workers of this site's broker take jobs from; ``None`` while none
    #: of them is alive.
    served: frozenset[str] | None
    #: The live workers of another broker: they run, but never get this site's jobs.
    elsewhere: tuple[str, ...] = ()


def _heard_since(now: datetime | None) -> datetime:
    return (now or timezone.now()) - timedelta(seconds=settings.WORKER_ALIVE_SECONDS)


def workers_alive(*, now: datetime | None = None) -> QuerySet[WorkerHeartbeat]:
    """The workers heard from within the last ``WORKER_ALIVE_SECONDS``, newest first, whatever
    broker address they report (module docstring)."""
    return WorkerHeartbeat.objects.filter(beat_at__gte=_heard_since(now))


def any_worker_alive(*, now: datetime | None = None) -> bool:
    return workers_alive(now=now).exists()


def _queues_of(field: str) -> Iterable[str]:
    """The queues a heartbeat's ``queues`` field names; every queue when it names none."""
    return [name for name in field.split(",") if name] if field else settings.CELERY_TASK_QUEUES


def live_workers(*, now: datetime | None = None) -> LiveWorkers:
    """The queues the live workers of this site's broker take jobs from (a worker whose queues
    are not known serves every queue), and the live workers of another broker."""
    ours = ("", this_broker())
    served: set[str] = set()
    elsewhere = []
    any_ours = False
    for hostname, queues, broker in workers_alive(now=now).values_list(
        "hostname", "queues", "broker"
    ):
        if broker not in ours:
            elsewhere.append(hostname)
            continue
        any_ours = True
        served.update(_queues_of(queues))
    return LiveWorkers(
        served=frozenset(served) if any_ours else None, elsewhere=tuple(sorted(elsewhere))
    )


def served_queues(*, now: datetime | None = None) -> frozenset[str] | None:
    """The queues some live worker takes jobs from, whatever broker address it reports;
    ``None`` while no worker is alive."""
    rows = list(workers_alive(now=now).values_list("queues", flat=True))
    if not rows:
        return None
    return frozenset(name for queues in rows for name in _queues_of(queues))


def queue_served_since(queue: str, *, now: datetime | None = None) -> datetime | None:
    """When the live workers taking from ``queue`` started (the earliest of them), whatever
    broker address they report (what the reaper asks); ``None`` while none does."""
    starts = [
        started_at
        for queues, started_at in workers_alive(now=now).values_list("queues", "started_at")
        if queue in _queues_of(queues)
    ]
    return min(starts, default=None)


def _waiting_notice(queues: set[str], workers: LiveWorkers) -> str:
    """What jobs queued to ``queues`` wait for, given :func:`live_workers`: no worker at all,
    none of some of those queues, or (an empty string) nothing but a free worker."""
    if workers.served is None:
        notice = NO_WORKER_NOTICE
    else:
        unserved = queues - workers.served
        if not unserved:
            return ""
        notice = unserved_queue_notice(unserved)
    return notice + (other_broker_note(workers.elsewhere) if workers.elsewhere else "")


def job_worker_notice(*, kind: str, workers: LiveWorkers, deferred: bool = False) -> str | None:
    """:func:`_waiting_notice` of one queued job of ``kind``, or of a ``deferred`` one, whose
    tasks wait in ``CHUNK_QUEUE``; ``None`` when it waits for a free worker only."""
    queue = settings.CHUNK_QUEUE if deferred else job_queue(kind)
    return _waiting_notice({queue}, workers) or None


def waiting_job_notice(*, user: User) -> str:
    """What the queued jobs ``user`` can see, and the running ones whose tasks wait in the
    chunks' queue (deferred), wait for, when it is a worker nobody started (none at all, or
    none of their queues); otherwise an empty string."""
    waiting = jobs_visible(user).filter(
        Q(status=Job.Status.PENDING) | Q(status=Job.Status.RUNNING, deferred=True)
    )
    rows = set(waiting.values_list("kind", "status"))
    if not rows:
        return ""
    queues = {
        job_queue(kind) if status == Job.Status.PENDING else settings.CHUNK_QUEUE
        for kind, status in rows
    }
    return _waiting_notice(queues, live_workers())


def busy_queues(*, now: datetime | None = None) -> dict[str, int]:
    """How many jobs run now in each queue that a live worker serves: what a job queued there
    waits for while its workers are alive but busy (with no worker, the notices say so
    instead). A running agreement report waits for its chunks and holds no worker's slot."""
    served = served_queues(now=now)
    if not served:
        return {}
    counts: dict[str, int] = {}
    running = Job.objects.filter(status=Job.Status.RUNNING, deferred=False)
    for kind in running.values_list("kind", flat=True):
        queue = job_queue(kind)
        if queue in served:
            counts[queue] = counts.get(queue, 0) + 1
    return counts
