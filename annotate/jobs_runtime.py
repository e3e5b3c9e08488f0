"""Background jobs at run time: each kind of job is a Celery task made by :func:`job_task`.

A service decorates its runner, ``runner(job, progress) -> result``, with
``@job_task(kind=...)``; the decorated name is then the kind's Celery task, named
``annotate.job.<kind>``. Life of a job::

    service: task.create(corpus=…, parameters=…)    (in the request's transaction)
        Job row, pending ──transaction.on_commit──▶ task.apply_async((job_id,))
    worker: the task, JobTask.execute(job_id):
        claim: UPDATE … SET status=running WHERE id=… AND kind=… AND status=pending
               (0 rows: cancelled, or another worker has it → nothing to do)
        Heartbeat thread: heartbeat_at = now() every HEARTBEAT_INTERVAL seconds
        runner(job, progress) → result    (computes outside any transaction; every progress
                                           report also finds out whether the job was cancelled)
        UPDATE … SET status=succeeded|failed WHERE id=… AND status=running

A transient database error puts the job back to pending and Celery retries the task after a
back-off, :data:`MAX_ATTEMPTS` runs in all; the soft time limit fails the job with the reason.
A runner that hands its work to a Celery canvas returns :data:`DEFERRED`: the job stays
running, marked ``deferred``, the canvas' tasks report with :func:`job_chunk_done` and its
callback finishes it.

When the broker cannot be reached the request still succeeds: the job stays pending with
:data:`UNSENT` as its message, and :func:`jobs_send_unsent` (called with the reaping) sends it,
with the task its kind names in the registry the decorator fills, once the broker answers. A
job sent long ago that no live worker has claimed is sent again (:func:`jobs_resend_lost`). A
job sent twice runs once: a worker claims it only while it is pending.

This module imports no service (the services import it), so nothing here can close an import
circle; the app's ``ready()`` imports the services, which fills the registry in every process.
"""

from __future__ import annotations

import errno
import logging
import socket
import threading
import time
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any, cast

from billiard.exceptions import WorkerLostError
from celery import Task, shared_task
from celery.exceptions import SoftTimeLimitExceeded
from celery.worker.request import Request
from django.conf import settings
from django.contrib.auth.models import User
from django.db import InterfaceError, OperationalError, connection, transaction
from django.db.models import F
from django.db.models.functions import Coalesce, Least
from django.utils import timezone
from kombu.exceptions import OperationalError as BrokerError

from annotate.exceptions import DomainError, without_server_paths
from annotate.models import Corpus, Job, WorkerHeartbeat
from scoring.errors import ScoringError

logger = logging.getLogger(__name__)

HEARTBEAT_INTERVAL = 5.0
PROGRESS_MIN_INTERVAL = 0.5
#: The message of a pending job the broker did not take.
UNSENT = "the job queue could not be reached; the job is sent when it answers again"
WAITING = "waiting for a worker"
#: The message of a job put back to pending by a worker that stopped while running it.
RELEASED = "the worker stopped while running the job; it waits for a worker to run it again"
#: The message of a job put back to pending after the pool process running it died.
LOST = "the worker process running the job died ({reason}); it waits to run again"
#: One quick retry: a request must not hang on a broker that is down.
RETRY_POLICY = {"max_retries": 1, "interval_start": 0.0, "interval_step": 0.5, "interval_max": 0.5}
# Errors worth another attempt: the database connection dropped, a deadlock or serialization
# failure, a lock timeout. Every other error fails the job at once.
TRANSIENT_ERRORS: tuple[type[BaseException], ...] = (OperationalError, InterfaceError)
MAX_ATTEMPTS = 3
RETRY_BACKOFF_SECONDS = 10.0

#: ``progress(percent, message)``: what a runner calls between steps of its work.
Progress = Callable[[float, str], None]


class Deferred:
    """Returned by a runner that handed its job to a Celery canvas; the canvas finishes it."""

    def __repr__(self) -> str:
        return "DEFERRED"


DEFERRED = Deferred()
Runner = Callable[[Job, Progress], "dict[str, Any] | Deferred"]


class UnknownJobKind(DomainError):
    code = "unknown_job_kind"


class JobCancelled(Exception):
    """Raised inside a runner when its job was cancelled or reaped meanwhile."""


class JobRetry(Exception):
    """A transient error stopped the job; it is pending again, to be run after ``countdown``."""

    def __init__(self, job_id: int, attempt: int, countdown: float, error: BaseException) -> None:
        super().__init__(f"job {job_id}: attempt {attempt} hit {type(error).__name__}: {error}")
        self.countdown = countdown


# --- the tasks ---------------------------------------------------------------------------------


class JobRequest(Request):  # type: ignore[misc]  # celery is untyped
    """A job task's message in the worker's main process, which learns when the pool process
    running the job died (killed by the kernel for memory, or by hand: ``WorkerLostError``).
    Celery puts the message back in the queue (``task_reject_on_worker_lost``), but the job is
    still "running" under a dead process, so the next one could not claim it and it would show
    "running" until the reaper found its heartbeat stale. It goes back to pending at once,
    to run again from the start; after :data:`MAX_ATTEMPTS` runs it fails with the reason."""

    def on_failure(
        self, exc_info: Any, send_failed_event: bool = True, return_ok: bool = False
    ) -> Any:
        exception = getattr(exc_info.exception, "exc", exc_info.exception)
        if isinstance(exception, WorkerLostError) and self.args:
            try:
                self.worker_lost(exception)
            except Exception:  # the database away: the reaper judges the job later
                logger.exception("could not record the loss of a task of job %s", self.args[0])
            finally:
                connection.close()
        return super().on_failure(
            exc_info, send_failed_event=send_failed_event, return_ok=return_ok
        )

    def worker_lost(self, error: BaseException) -> None:
        """Record that the pool process running this message died (the job's id is its first
        argument)."""
        job_lost(job_id=int(self.args[0]), worker=self.hostname, reason=worker_lost_reason(error))


def worker_lost_reason(error: BaseException) -> str:
    """``Worker exited prematurely: signal 9 (SIGKILL) Job: 3.`` → ``signal 9 (SIGKILL)``."""
    text = str(error).removeprefix("Worker exited prematurely: ")
    return text.split(" Job:", 1)[0].strip().rstrip(".") or type(error).__name__


class JobTask(Task):  # type: ignore[misc]  # celery is untyped
    """The Celery task of one kind of job (made by :func:`job_task`): takes a job id, claims
    the job and runs the kind's runner with a heartbeat and progress reports."""

    Request = JobRequest

    #: The ``Job.kind`` this task runs.
    kind: str = ""
    #: ``runner(job, progress)``: the service's function the task was made from.
    runner: Runner
    #: ``discard(job)``: removes what the runner left for a result that is not published, the
    #: job having ended (cancelled, reaped) after its last progress report; ``None``: nothing.
    discard: Callable[[Job], None] | None = None
    acks_late = True
    ignore_result = True

    def create(
        self,
        *,
        parameters: dict[str, Any] | None = None,
        owner: User | None = None,
        corpus: Corpus | None = None,
        seed: int | None = None,
    ) -> Job:
        """A pending job of this kind, sent to the workers once the transaction commits
        (:func:`job_create`)."""
        return job_create(task=self, parameters=parameters, owner=owner, corpus=corpus, seed=seed)

    def send(self, job_id: int) -> bool:
        """Hand the job to the broker now; if it cannot be reached, mark the job :data:`UNSENT`
        and return False."""
        try:
            self.apply_async((job_id,), retry=True, retry_policy=RETRY_POLICY)
        except (BrokerError, OSError) as error:
            logger.warning("job %s not sent, the broker is unreachable: %s", job_id, error)
            Job.objects.filter(pk=job_id, status=Job.Status.PENDING).update(message=UNSENT)
            return False
        except Exception:
            # The broker answered with an error of its own (RabbitMQ's ACCESS_REFUSED or
            # NOT_FOUND: a channel error, neither of the above). The job is already stored
            # (this runs once its transaction has committed): it waits to be sent again
            # like one the broker did not take, instead of a server error to the request
            # that created it and a job that waits with nothing to send it.
            logger.exception("job %s not sent, the broker refused it", job_id)
            Job.objects.filter(pk=job_id, status=Job.Status.PENDING).update(message=UNSENT)
            return False
        Job.objects.filter(pk=job_id, status=Job.Status.PENDING).update(sent_at=timezone.now())
        return True

    def execute(self, *, job_id: int, worker: str) -> str:
        """Claim the job and run it in this process; returns its status afterwards. Raises
        :class:`JobRetry` after a transient error (the Celery task retries)."""
        claimed = job_claim(job_id=job_id, worker=worker, kind=self.kind)
        if not claimed and job_take_over(job_id=job_id, worker=worker, kind=self.kind):
            claimed = True
            logger.warning("job %s taken over: the worker that was running it restarted", job_id)
        if not claimed:
            status = Job.objects.filter(pk=job_id).values_list("status", flat=True).first()
            logger.info("job %s not claimed (status %s)", job_id, status)
            return str(status)
        job = Job.objects.select_related("corpus", "owner").get(pk=job_id)
        try:
            progress = ThrottledProgress(job_id)
            with Heartbeat(job_id, progress=progress):
                result = self.runner(job, progress)
                if isinstance(result, Deferred):  # its last report says what the canvas does
                    progress.flush()
                    Job.objects.filter(pk=job_id, status=Job.Status.RUNNING).update(
                        deferred=True, heartbeat_at=timezone.now()
                    )
        except JobCancelled:
            return Job.objects.get(pk=job_id).status
        except (SystemExit, KeyboardInterrupt):
            job_release(job_id=job_id)
            raise
        except (DomainError, ScoringError) as error:
            job_fail(job_id=job_id, error=str(error))
            return Job.Status.FAILED
        except SoftTimeLimitExceeded:
            job_fail(job_id=job_id, error="the job exceeded its time limit and was stopped")
            return Job.Status.FAILED
        except TRANSIENT_ERRORS as error:
            return _after_transient_error(job_id, error)
        except Exception as error:
            interruption = signal_behind(error)
            if isinstance(interruption, SoftTimeLimitExceeded):
                job_fail(job_id=job_id, error="the job exceeded its time limit and was stopped")
                return Job.Status.FAILED
            if interruption is not None:  # the worker stops: as above, unless numba wrapped it
                job_release(job_id=job_id)
                raise interruption from error
            logger.exception("job %s (%s) crashed", job_id, self.kind)
            job_fail(job_id=job_id, error=internal_error_message(error))
            return Job.Status.FAILED
        if isinstance(result, Deferred):  # running, unless its canvas ended it already
            return str(Job.objects.filter(pk=job_id).values_list("status", flat=True).get())
        if job_finish(job_id=job_id, result=result):
            return Job.Status.SUCCEEDED
        if self.discard is not None:
            self.discard(job)
        return Job.objects.get(pk=job_id).status


def signal_behind(error: BaseException) -> BaseException | None:
    """The exception a signal raised (the worker's warm shutdown: ``SystemExit``; Ctrl-C:
    ``KeyboardInterrupt``; the soft time limit: ``SoftTimeLimitExceeded``) behind ``error``,
    if ``error`` was raised because of it; else ``None``. A signal that lands while numba's
    compiled code runs comes out of it as a ``SystemError`` ("returned a result with an
    exception set") caused by the signal's exception, which would otherwise pass for a crash
    of the job."""
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        if isinstance(current, SystemExit | KeyboardInterrupt | SoftTimeLimitExceeded):
            return current
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return None


def _task_body(task: JobTask, job_id: int) -> str:
    """What a worker runs for a job message; Celery's Django fix-up closes stale database
    connections around it."""
    worker = task.request.hostname or socket.gethostname()
    try:
        return task.execute(job_id=job_id, worker=worker)
    except JobRetry as retry:  # bounded by the job's attempts (MAX_ATTEMPTS)
        raise task.retry(countdown=retry.countdown, max_retries=None) from retry


_TASKS: dict[str, JobTask] = {}


def job_queue(kind: str) -> str:
    """The Celery queue the jobs of ``kind`` are sent to: the quick lane for jobs of seconds
    (never queued behind hours of prefill), the users' lane for the jobs any signed-in user may
    queue (never in the slots of the admins' jobs), the default queue for the rest."""
    if kind in settings.QUICK_JOB_KINDS:
        return str(settings.QUICK_QUEUE)
    if kind in settings.USER_JOB_KINDS:
        return str(settings.USER_QUEUE)
    return str(settings.CELERY_TASK_DEFAULT_QUEUE)


def job_task(
    *, kind: str, discard: Callable[[Job], None] | None = None, **options: Any
) -> Callable[[Runner], JobTask]:
    """Make ``runner(job, progress)`` the Celery task of jobs of ``kind`` (``annotate.job.<kind>``)
    and register it under ``kind``; ``discard`` is its :attr:`JobTask.discard`. ``options`` are
    Celery task options (time limits, say) on top of :class:`JobTask`'s."""

    def decorate(runner: Runner) -> JobTask:
        if kind in _TASKS:
            raise RuntimeError(f"two runners for the job kind {kind!r}")

        def body(task: JobTask, job_id: int) -> str:
            return _task_body(task, job_id)

        body.__name__, body.__qualname__ = runner.__name__, runner.__qualname__
        body.__module__, body.__doc__ = runner.__module__, runner.__doc__
        options.setdefault("queue", job_queue(kind))
        task = shared_task(
            name=f"annotate.job.{kind}",
            base=JobTask,
            bind=True,
            kind=kind,
            runner=staticmethod(runner),
            discard=None if discard is None else staticmethod(discard),
            **options,
        )(body)
        _TASKS[kind] = cast(JobTask, task)
        return _TASKS[kind]

    return decorate


def job_kinds() -> tuple[str, ...]:
    """Every kind of job, sorted."""
    return tuple(sorted(_TASKS))


def job_task_of(kind: str) -> JobTask:
    """The task of a kind of job; :class:`UnknownJobKind` (naming the kinds) if there is none."""
    try:
        return _TASKS[kind]
    except KeyError:
        raise UnknownJobKind(
            f"unknown job kind {kind!r}; known kinds: {', '.join(job_kinds())}"
        ) from None


def job_run(*, job_id: int, worker: str) -> str:
    """Run a job in this process with the task of its kind, as a worker would (tests, tools)."""
    kind = Job.objects.filter(pk=job_id).values_list("kind", flat=True).get()
    return job_task_of(kind).execute(job_id=job_id, worker=worker)


# --- creating and sending ----------------------------------------------------------------------


def job_create(
    *,
    task: JobTask,
    parameters: dict[str, Any] | None = None,
    owner: User | None = None,
    corpus: Corpus | None = None,
    seed: int | None = None,
) -> Job:
    """Create a pending job of the task's kind and send it once the surrounding transaction
    commits.

    The same request twice (kind, corpus, parameters and seed) while the first is still queued
    or running returns the first job, marked ``job.reused = True``, instead of queueing the
    work again: a double click, a retried request or a script in a loop costs one job."""
    parameters = parameters or {}
    with transaction.atomic():
        active = Job.objects.select_for_update().filter(
            kind=task.kind,
            corpus=corpus,
            seed=seed,
            status__in=[Job.Status.PENDING, Job.Status.RUNNING],
        )
        for existing in active.order_by("pk"):
            if existing.parameters == parameters:
                existing.reused = True
                return existing
        job = Job.objects.create(
            kind=task.kind,
            parameters=parameters,
            owner=owner,
            corpus=corpus,
            seed=seed,
            message=WAITING,
        )
        job.reused = False
        job_id = job.pk
        transaction.on_commit(lambda: task.send(job_id))
    return job


def jobs_send_unsent() -> int:
    """Send the pending jobs the broker could not take; returns how many went. A job of a kind
    no task runs any more fails with that reason."""
    unsent = Job.objects.filter(status=Job.Status.PENDING, message=UNSENT)
    sent = _send_each(list(unsent.order_by("pk").values_list("pk", "kind")))
    Job.objects.filter(pk__in=sent, status=Job.Status.PENDING, message=UNSENT).update(
        message=WAITING
    )
    return len(sent)


def _send_each(jobs: list[tuple[int, str]]) -> list[int]:
    """Send each ``(job id, kind)`` with its kind's task, in order, until the broker is away
    (the rest waits for the next call); a job of a kind no task runs any more fails with that
    reason. Returns the ids sent."""
    sent = []
    for job_id, kind in jobs:
        try:
            task = job_task_of(kind)
        except UnknownJobKind as error:
            job_fail(job_id=job_id, error=str(error))
            continue
        if not task.send(job_id):
            break
        sent.append(job_id)
    return sent


def jobs_resend_lost(*, workers_alive: Callable[[], bool], now: Any = None) -> int:
    """Send again the pending jobs whose message went out more than ``JOB_RESEND_SECONDS`` ago
    and that no worker claimed although one is alive (``workers_alive()``, asked only when
    such jobs exist): the broker lost the message (restarted without persistence), or no
    worker understood it (it named a task an upgrade renamed). Jobs waiting behind a long
    queue are sent again too, which is harmless: a job runs once, whichever of its messages a
    worker takes first. Returns how many went."""
    if settings.JOB_RESEND_SECONDS <= 0:
        return 0
    limit = (now or timezone.now()) - timedelta(seconds=settings.JOB_RESEND_SECONDS)
    lost = Job.objects.annotate(last_sent=Coalesce("sent_at", "created_at")).filter(
        status=Job.Status.PENDING, last_sent__lt=limit
    )
    found = list(lost.exclude(message=UNSENT).order_by("pk").values_list("pk", "kind"))
    if not found or not workers_alive():
        return 0
    sent = len(_send_each(found))
    if sent:
        logger.warning("sent %d pending job(s) again: unclaimed long after they were sent", sent)
    return sent


# --- the job row while it runs -----------------------------------------------------------------


def job_claim(*, job_id: int, worker: str, kind: str | None = None) -> bool:
    """Atomically move a pending job (of ``kind``, if given) to running; False if it was not
    pending."""
    now = timezone.now()
    jobs = Job.objects.filter(pk=job_id, status=Job.Status.PENDING)
    if kind is not None:
        jobs = jobs.filter(kind=kind)
    claimed = jobs.update(
        status=Job.Status.RUNNING,
        started_at=now,
        heartbeat_at=now,
        worker=worker[:200],
        attempts=F("attempts") + 1,
        message="started",
    )
    return claimed == 1


def job_take_over(*, job_id: int, worker: str, kind: str | None = None) -> bool:
    """Claim a job left "running" by a worker process that is gone: the worker named in the
    job has started again since it claimed the job (a worker name is one process at a time),
    and the job's message came back to the queue (restored when that worker stopped, or sent
    again). Without this the message would be dropped as a job another worker runs, and the
    job would show "running" until the reaper failed it. A deferred job is left alone: its
    canvas, not its first message, finishes it. False if the job is not such a job, or has
    been run :data:`MAX_ATTEMPTS` times."""
    row = (
        Job.objects.filter(pk=job_id, status=Job.Status.RUNNING, deferred=False)
        .values("worker", "started_at", "attempts", "kind")
        .first()
    )
    if row is None or row["started_at"] is None or (kind is not None and row["kind"] != kind):
        return False
    restarted = WorkerHeartbeat.objects.filter(
        hostname=row["worker"], started_at__gt=row["started_at"]
    ).exists()
    if not restarted or row["attempts"] >= MAX_ATTEMPTS:
        return False
    now = timezone.now()
    taken = Job.objects.filter(
        pk=job_id, status=Job.Status.RUNNING, started_at=row["started_at"]
    ).update(
        started_at=now,
        heartbeat_at=now,
        progress=0,
        worker=worker[:200],
        attempts=F("attempts") + 1,
        message="started again: the worker that was running it stopped",
    )
    return taken == 1


def _percent(percent: float) -> int:
    return max(0, min(100, int(percent)))


def job_progress(*, job_id: int, percent: float, message: str) -> None:
    """Record progress; raises :class:`JobCancelled` if the job is no longer running."""
    updated = Job.objects.filter(pk=job_id, status=Job.Status.RUNNING).update(
        progress=_percent(percent),
        message=message[:500],
        heartbeat_at=timezone.now(),
    )
    if updated == 0:
        raise JobCancelled(f"job {job_id} is no longer running")


def job_check_running(*, job_id: int) -> None:
    """Raise :class:`JobCancelled` if the job is no longer running (cancelled or reaped); a
    read, for the tasks of a job's canvas, which report no progress of their own."""
    if not Job.objects.filter(pk=job_id, status=Job.Status.RUNNING).exists():
        raise JobCancelled(f"job {job_id} is no longer running")


def job_chunk_done(*, job_id: int, share: float, message: str) -> None:
    """A task of a job's canvas finished its part: add its share of progress (kept below 100
    until the callback finishes the job) and beat the heart. Raises :class:`JobCancelled` if the
    job was cancelled or reaped meanwhile, so the remaining tasks stop early."""
    updated = Job.objects.filter(pk=job_id, status=Job.Status.RUNNING).update(
        progress=Least(F("progress") + max(0, round(share)), 99),
        message=message[:500],
        heartbeat_at=timezone.now(),
    )
    if updated == 0:
        raise JobCancelled(f"job {job_id} is no longer running")


def job_release(*, job_id: int) -> bool:
    """Put a running job back to pending: its worker is stopping (a SIGTERM reached the pool
    process running it), and Celery puts the task's message back in the queue
    (``acks_late`` with ``task_reject_on_worker_lost``), so the next worker runs the job from
    the start. Left running, that worker could not claim it, and the reaper would fail it as
    a job of a dead worker. False if the job was no longer running."""
    return (
        Job.objects.filter(pk=job_id, status=Job.Status.RUNNING).update(
            status=Job.Status.PENDING,
            progress=0,
            message=RELEASED,
            sent_at=timezone.now(),  # the message is back in the queue: not a lost one
        )
        == 1
    )


def job_lost(*, job_id: int, worker: str, reason: str) -> str:
    """The pool process of ``worker`` running the job died (``reason``) and Celery put its
    message back in the queue (:class:`JobRequest`): the job goes back to pending, to run again
    from the start, or fails once it has been run :data:`MAX_ATTEMPTS` times (a job that kills
    its process each time, by running out of memory, say). Returns the job's status after."""
    running = Job.objects.filter(pk=job_id, status=Job.Status.RUNNING, worker=worker[:200])
    attempts = running.values_list("attempts", flat=True).first()
    if attempts is None:  # not running here: finished, cancelled, or another worker's
        pass
    elif attempts >= MAX_ATTEMPTS:
        job_fail(
            job_id=job_id,
            error=f"the worker process running the job died {attempts} times (last: {reason}); "
            "it may need more memory than the worker has",
        )
    else:
        running.update(
            status=Job.Status.PENDING,
            progress=0,
            message=LOST.format(reason=reason)[:500],
            sent_at=timezone.now(),  # the message is back in the queue: not a lost one
        )
    return str(Job.objects.filter(pk=job_id).values_list("status", flat=True).first())


def job_finish(*, job_id: int, result: dict[str, Any]) -> bool:
    return (
        Job.objects.filter(pk=job_id, status=Job.Status.RUNNING).update(
            status=Job.Status.SUCCEEDED,
            progress=100,
            message="done",
            result=result,
            finished_at=timezone.now(),
        )
        == 1
    )


def job_fail(*, job_id: int, error: str) -> bool:
    """Mark the job failed with ``error``, the reason its owner reads (server paths cut out)."""
    return (
        Job.objects.filter(pk=job_id, status__in=[Job.Status.RUNNING, Job.Status.PENDING]).update(
            status=Job.Status.FAILED,
            message="failed",
            error=without_server_paths(error),
            finished_at=timezone.now(),
        )
        == 1
    )


class Heartbeat:
    """Writes ``heartbeat_at`` from a side thread while a runner (or a task of its canvas)
    computes; with the runner's ``progress``, also the last report it held back (so a report
    followed by a long step without reports shows within one beat)."""

    def __init__(
        self,
        job_id: int,
        interval: float | None = None,
        *,
        progress: ThrottledProgress | None = None,
    ) -> None:
        self._job_id = job_id
        self._progress = progress
        self._interval = HEARTBEAT_INTERVAL if interval is None else interval
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name=f"job-{job_id}-heartbeat")

    def __enter__(self) -> Heartbeat:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def _loop(self) -> None:
        try:
            while not self._stop.wait(self._interval):
                if self._progress is not None:
                    self._progress.beat()
                else:
                    Job.objects.filter(pk=self._job_id, status=Job.Status.RUNNING).update(
                        heartbeat_at=timezone.now()
                    )
        except Exception:  # a failed heartbeat must not kill the job; the reaper will judge
            logger.exception("heartbeat of job %s failed", self._job_id)
        finally:
            connection.close()


class ThrottledProgress:
    """The ``progress`` a runner gets: writes at most every :data:`PROGRESS_MIN_INTERVAL`
    seconds (and always at 100 %), raising :class:`JobCancelled` once the job is not running.

    A report it holds back is written by the next :meth:`beat` of the job's
    :class:`Heartbeat` unless a later report came first: a runner that reports a step and then
    computes for minutes without reporting shows that step, not the one before it."""

    def __init__(self, job_id: int) -> None:
        self._job_id = job_id
        self._last = 0.0
        # Serializes the runner's writes and the heartbeat thread's, so that a held report
        # never overwrites a later one.
        self._lock = threading.Lock()
        self._held: tuple[float, str] | None = None
        # Set by a beat that found the job no longer running: the next report raises even if
        # it would have been held back.
        self._ended = False

    def __call__(self, percent: float, message: str) -> None:
        with self._lock:
            if self._ended:
                raise JobCancelled(f"job {self._job_id} is no longer running")
            now = time.monotonic()
            if now - self._last < PROGRESS_MIN_INTERVAL and percent < 100:
                self._held = (percent, message)
                return
            self._last, self._held = now, None
            job_progress(job_id=self._job_id, percent=percent, message=message)

    def flush(self) -> None:
        """Write the report held back, if there is one."""
        with self._lock:
            if self._held is not None:
                percent, message = self._held
                self._held, self._last = None, time.monotonic()
                job_progress(job_id=self._job_id, percent=percent, message=message)

    def beat(self) -> None:
        """Write the heartbeat, with the report held back if there is one."""
        with self._lock:
            fields: dict[str, Any] = {"heartbeat_at": timezone.now()}
            if self._held is not None:
                percent, message = self._held
                fields.update(progress=_percent(percent), message=message[:500])
                self._held, self._last = None, time.monotonic()
            running = Job.objects.filter(pk=self._job_id, status=Job.Status.RUNNING)
            self._ended = running.update(**fields) == 0


def _after_transient_error(job_id: int, error: BaseException) -> str:
    """Put the job back to pending and raise :class:`JobRetry`, or fail it after the last try.

    The connection that failed is dropped if it is unusable, so the next query opens a fresh
    one. If the database is still away, this raises and the reaper fails the job once its
    heartbeat is stale.
    """
    if not connection.in_atomic_block:
        connection.close_if_unusable_or_obsolete()
    attempts = Job.objects.filter(pk=job_id).values_list("attempts", flat=True).first() or 0
    message = f"{type(error).__name__}: {error}".strip()[:300]
    if attempts >= MAX_ATTEMPTS:
        logger.warning("job %s failed after %d attempts: %s", job_id, attempts, message)
        job_fail(
            job_id=job_id,
            error=f"the database failed {attempts} times; last error: {message}",
        )
        return Job.Status.FAILED
    requeued = Job.objects.filter(pk=job_id, status=Job.Status.RUNNING).update(
        status=Job.Status.PENDING,
        progress=0,
        message=f"attempt {attempts} of {MAX_ATTEMPTS} hit a database error; retrying",
        sent_at=timezone.now(),  # Celery's retry is its message: not a lost one
    )
    if not requeued:  # cancelled or reaped meanwhile
        return str(Job.objects.filter(pk=job_id).values_list("status", flat=True).first())
    countdown = RETRY_BACKOFF_SECONDS * 2 ** (attempts - 1)
    logger.warning("job %s: %s; retrying in %.0f s", job_id, message, countdown)
    raise JobRetry(job_id, attempts, countdown, error)


#: File system errors that are the server's disk, not a fault of the job: what to do about each.
DISK_ERRORS = {
    errno.ENOSPC: "the server's disk for job files is full",
    errno.EDQUOT: "the server's disk quota for job files is used up",
    errno.EROFS: "the server may not write its job files",
    errno.EACCES: "the server may not write its job files",
    errno.EPERM: "the server may not write its job files",
}


def _job_file(filename: Any) -> bool:
    """Whether a failed file is one of the server's job files (under ``VAR_DIR``,
    ``EXPORT_DIR`` or ``UPLOAD_DIR``), or unnamed, as a write to an open file fails: a resource
    elsewhere that could not be read (a PPDB table, the encoder's weights) is no job file."""
    if not filename:
        return True
    path = Path(str(filename)).resolve()
    roots = (settings.VAR_DIR, settings.EXPORT_DIR, settings.UPLOAD_DIR)
    return any(path.is_relative_to(Path(root).resolve()) for root in roots)


def internal_error_message(error: BaseException) -> str:
    """What users read of an unexpected error; the traceback goes to the worker log. A file
    system error says what went wrong with which file, without the file's folder; one of the
    server's disk (full, read-only: :data:`DISK_ERRORS`) says so and what to do, not
    "internal error", which reads as a fault of the program."""
    detail = str(error)
    if isinstance(error, OSError) and error.strerror:
        name = Path(str(error.filename)).name if error.filename else ""
        detail = f"{error.strerror}: {name}" if name else error.strerror
        if error.errno in DISK_ERRORS and _job_file(error.filename):
            return (
                f"{DISK_ERRORS[error.errno]} ({detail}): an administrator must make room or "
                "give write access there (EXPORT_DIR, or VAR_DIR), then start the job again"
            )
    return f"internal error ({type(error).__name__}: {detail}); see the worker log"
