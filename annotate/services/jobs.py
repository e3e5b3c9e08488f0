"""Background jobs: creation, claiming, progress, heartbeat, completion and reaping.

Life of a job::

    job_create() ──on commit──▶ Celery task run_job(id) ──▶ job_run():
        claim: UPDATE … SET status=running WHERE id=… AND status=pending   (0 rows → not ours)
        heartbeat thread: heartbeat_at = now() every HEARTBEAT_INTERVAL seconds
        runner(job, progress) → result dict           (computes outside any transaction)
        UPDATE … SET status=succeeded|failed WHERE id=… AND status=running

A worker that dies stops the heartbeat; :func:`jobs_reap_stale` (run periodically by Celery beat)
marks such jobs failed with the reason, so no job stays "running" forever.

A long job may split its work over several workers: its runner dispatches a Celery chord of
chunk tasks and returns :data:`DEFERRED`. The job then stays running; each chunk reports with
:func:`job_chunk_done` (progress and heartbeat), the chord's callback stores the result with
:func:`job_finish`, and its error callback fails the job.
"""

from __future__ import annotations

import importlib
import logging
import threading
import time
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.contrib.auth.models import User
from django.core.cache import cache
from django.db import InterfaceError, OperationalError, connection, transaction
from django.db.models import F
from django.db.models.functions import Least
from django.utils import timezone

from annotate.exceptions import DomainError, without_server_paths
from annotate.models import Corpus, Job
from annotate.queue import enqueue_job, jobs_send_unsent
from scoring.errors import ScoringError

logger = logging.getLogger(__name__)

HEARTBEAT_INTERVAL = 5.0
PROGRESS_MIN_INTERVAL = 0.5

# kind -> "module.function" taking (job, progress) and returning a JSON-able result.
JOB_KINDS: dict[str, str] = {
    "corpus_stats": "annotate.services.stats.corpus_stats_run",
    "prefill": "annotate.services.prefill.prefill_run",
    "agreement_report": "annotate.services.agreement.agreement_run",
    "train_scorer": "annotate.services.scorers.train_scorer_run",
    "export": "annotate.services.exports.export_run",
    "score_pairs": "annotate.services.scorers.score_pairs_run",
    "assignments_plan": "annotate.services.assignments.assignments_plan_run",
    "assignments_hand_over": "annotate.services.assignments.assignments_hand_over_run",
    "assignments_release": "annotate.services.assignments.assignments_release_run",
    "corpus_import": "annotate.services.uploads.corpus_import_run",
    "corpus_delete": "annotate.services.corpora.corpus_delete_run",
}

Progress = Callable[[float, str], None]


class _Deferred:
    """Returned by a runner that handed its job to a chord; the chord's callback finishes it."""

    def __repr__(self) -> str:
        return "DEFERRED"


DEFERRED = _Deferred()
Runner = Callable[[Job, Progress], "dict[str, Any] | _Deferred"]


class UnknownJobKind(DomainError):
    code = "unknown_job_kind"


class JobCancelled(Exception):
    """Raised inside a runner when its job was cancelled or reaped meanwhile."""


# Errors worth another attempt: the database connection dropped, a deadlock or serialization
# failure, a lock timeout. Every other error fails the job at once.
TRANSIENT_ERRORS: tuple[type[BaseException], ...] = (OperationalError, InterfaceError)
MAX_ATTEMPTS = 3
RETRY_BACKOFF_SECONDS = 10.0


class JobRetry(Exception):
    """A transient error stopped the job; it is pending again, to be run after ``countdown``."""

    def __init__(self, job_id: int, attempt: int, countdown: float, error: BaseException) -> None:
        super().__init__(f"job {job_id}: attempt {attempt} hit {type(error).__name__}: {error}")
        self.countdown = countdown


def _runner(kind: str) -> Runner:
    try:
        dotted = JOB_KINDS[kind]
    except KeyError:
        raise UnknownJobKind(
            f"unknown job kind {kind!r}; known kinds: {', '.join(sorted(JOB_KINDS))}"
        ) from None
    module, _, name = dotted.rpartition(".")
    runner: Runner = getattr(importlib.import_module(module), name)
    return runner


def job_create(
    *,
    kind: str,
    parameters: dict[str, Any] | None = None,
    owner: User | None = None,
    corpus: Corpus | None = None,
    seed: int | None = None,
) -> Job:
    """Create a pending job and enqueue it once the surrounding transaction commits.

    The same request twice (kind, corpus, parameters and seed) while the first is still queued
    or running returns the first job, marked ``job.reused = True``, instead of queueing the
    work again: a double click, a retried request or a script in a loop costs one job."""
    _runner(kind)  # fail now, not in the worker, on an unknown kind
    parameters = parameters or {}
    with transaction.atomic():
        active = Job.objects.select_for_update().filter(
            kind=kind, corpus=corpus, seed=seed, status__in=[Job.Status.PENDING, Job.Status.RUNNING]
        )
        for existing in active.order_by("pk"):
            if existing.parameters == parameters:
                existing.reused = True
                return existing
        job = Job.objects.create(
            kind=kind,
            parameters=parameters,
            owner=owner,
            corpus=corpus,
            seed=seed,
            message="waiting for a worker",
        )
        job.reused = False
        enqueue_job(job.pk)
    return job


def job_claim(*, job_id: int, worker: str) -> bool:
    """Atomically move a pending job to running; False if it was not pending."""
    now = timezone.now()
    claimed = Job.objects.filter(pk=job_id, status=Job.Status.PENDING).update(
        status=Job.Status.RUNNING,
        started_at=now,
        heartbeat_at=now,
        worker=worker[:200],
        attempts=F("attempts") + 1,
        message="started",
    )
    return claimed == 1


def job_progress(*, job_id: int, percent: float, message: str) -> None:
    """Record progress; raises :class:`JobCancelled` if the job is no longer running."""
    updated = Job.objects.filter(pk=job_id, status=Job.Status.RUNNING).update(
        progress=max(0, min(100, int(percent))),
        message=message[:500],
        heartbeat_at=timezone.now(),
    )
    if updated == 0:
        raise JobCancelled(f"job {job_id} is no longer running")


def job_chunk_done(*, job_id: int, share: float, message: str) -> None:
    """A chunk of a chord finished: add its share of progress (kept below 100 until the
    callback finishes the job) and beat the heart. Raises :class:`JobCancelled` if the job was
    cancelled or reaped meanwhile, so the remaining chunks stop early."""
    updated = Job.objects.filter(pk=job_id, status=Job.Status.RUNNING).update(
        progress=Least(F("progress") + max(0, round(share)), 99),
        message=message[:500],
        heartbeat_at=timezone.now(),
    )
    if updated == 0:
        raise JobCancelled(f"job {job_id} is no longer running")


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


def job_cancel(*, job: Job) -> bool:
    """Cancel a pending or running job; a running runner stops at its next progress report."""
    return (
        Job.objects.filter(pk=job.pk, status__in=[Job.Status.PENDING, Job.Status.RUNNING]).update(
            status=Job.Status.CANCELLED, message="cancelled", finished_at=timezone.now()
        )
        == 1
    )


def jobs_reap_stale(*, now: Any = None) -> int:
    """Mark failed every running job whose heartbeat is older than the configured timeout."""
    now = now or timezone.now()
    limit = now - timedelta(seconds=settings.JOB_HEARTBEAT_TIMEOUT_SECONDS)
    stale = Job.objects.filter(status=Job.Status.RUNNING, heartbeat_at__lt=limit)
    count = 0
    for job in stale.only("pk", "worker", "heartbeat_at"):
        count += Job.objects.filter(pk=job.pk, status=Job.Status.RUNNING).update(
            status=Job.Status.FAILED,
            message="failed",
            error=(
                f"the worker {job.worker or '(unknown)'} stopped responding: no heartbeat since "
                f"{job.heartbeat_at:%Y-%m-%d %H:%M:%S} UTC "
                f"(timeout {settings.JOB_HEARTBEAT_TIMEOUT_SECONDS} s)"
            ),
            finished_at=now,
        )
    if count:
        logger.warning("marked %d job(s) failed after their worker stopped responding", count)
    return count


def jobs_reap_if_due() -> int:
    """:func:`jobs_reap_stale` (and a new try at sending jobs the broker did not take) at most
    once per ``JOB_REAP_INTERVAL_SECONDS`` across the web processes (a flag in the shared
    cache). The job pages call it, so a job whose workers all died is marked failed even when
    no worker (and no beat) is left to do it."""
    if not cache.add("jobs:reap-due", True, timeout=settings.JOB_REAP_INTERVAL_SECONDS):
        return 0
    jobs_send_unsent()
    return jobs_reap_stale()


class Heartbeat:
    """Writes ``heartbeat_at`` from a side thread while a runner (or a chunk of one) computes."""

    def __init__(self, job_id: int, interval: float | None = None) -> None:
        self._job_id = job_id
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
                Job.objects.filter(pk=self._job_id, status=Job.Status.RUNNING).update(
                    heartbeat_at=timezone.now()
                )
        except Exception:  # a failed heartbeat must not kill the job; the reaper will judge
            logger.exception("heartbeat of job %s failed", self._job_id)
        finally:
            connection.close()


class _ThrottledProgress:
    def __init__(self, job_id: int) -> None:
        self._job_id = job_id
        self._last = 0.0

    def __call__(self, percent: float, message: str) -> None:
        now = time.monotonic()
        if now - self._last >= PROGRESS_MIN_INTERVAL or percent >= 100:
            self._last = now
            job_progress(job_id=self._job_id, percent=percent, message=message)


def job_run(*, job_id: int, worker: str) -> str:
    """Claim and run one job; returns its final status. Called by the Celery task (Celery's
    Django fix-up closes stale database connections around each task)."""
    if not job_claim(job_id=job_id, worker=worker):
        status = Job.objects.filter(pk=job_id).values_list("status", flat=True).first()
        logger.info("job %s not claimed (status %s)", job_id, status)
        return str(status)
    job = Job.objects.get(pk=job_id)
    try:
        runner = _runner(job.kind)
        with Heartbeat(job_id):
            result = runner(job, _ThrottledProgress(job_id))
    except JobCancelled:
        return Job.objects.get(pk=job_id).status
    except (DomainError, ScoringError) as error:
        job_fail(job_id=job_id, error=str(error))
        return Job.Status.FAILED
    except SoftTimeLimitExceeded:
        job_fail(job_id=job_id, error="the job exceeded its time limit and was stopped")
        return Job.Status.FAILED
    except TRANSIENT_ERRORS as error:
        return _job_after_transient_error(job_id, error)
    except Exception as error:
        logger.exception("job %s (%s) crashed", job_id, job.kind)
        job_fail(job_id=job_id, error=internal_error_message(error))
        return Job.Status.FAILED
    if isinstance(result, _Deferred):
        return Job.Status.RUNNING
    if job_finish(job_id=job_id, result=result):
        return Job.Status.SUCCEEDED
    return Job.objects.get(pk=job_id).status


def _job_after_transient_error(job_id: int, error: BaseException) -> str:
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
    )
    if not requeued:  # cancelled or reaped meanwhile
        return str(Job.objects.filter(pk=job_id).values_list("status", flat=True).first())
    countdown = RETRY_BACKOFF_SECONDS * 2 ** (attempts - 1)
    logger.warning("job %s: %s; retrying in %.0f s", job_id, message, countdown)
    raise JobRetry(job_id, attempts, countdown, error)


def internal_error_message(error: BaseException) -> str:
    """What users read of an unexpected error; the traceback goes to the worker log. A file
    system error says what went wrong with which file, without the file's folder."""
    detail = str(error)
    if isinstance(error, OSError) and error.strerror:
        name = Path(str(error.filename)).name if error.filename else ""
        detail = f"{error.strerror}: {name}" if name else error.strerror
    return f"internal error ({type(error).__name__}: {detail}); see the worker log"
