"""Writes on jobs from outside their run: cancelling one, and reaping those of dead workers.

How a job is created, claimed, run and finished is :mod:`annotate.jobs_runtime`; each kind's
Celery task lives with the service that owns it.

A worker that dies stops its job's heartbeat; :func:`jobs_reap_stale` (run periodically by
Celery beat, and by the web process through :func:`jobs_reap_if_due`) marks such jobs failed
with the reason, so no job stays "running" forever (a job whose tasks wait in the broker for a
worker to come back waits, as a queued job does); with it, jobs whose message the broker never
took or lost are sent (again).
"""

from __future__ import annotations

import logging
from collections.abc import Collection
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.utils import timezone

from annotate.jobs_runtime import jobs_resend_lost, jobs_send_unsent
from annotate.models import Job, JobChunk
from annotate.selectors.workers import any_worker_alive, queue_served_since

logger = logging.getLogger(__name__)


def job_cancel(*, job: Job) -> bool:
    """Cancel a pending or running job; a running runner stops at its next progress report."""
    return (
        Job.objects.filter(pk=job.pk, status__in=[Job.Status.PENDING, Job.Status.RUNNING]).update(
            status=Job.Status.CANCELLED, message="cancelled", finished_at=timezone.now()
        )
        == 1
    )


def jobs_reap_stale(*, now: Any = None) -> int:
    """Mark failed every running job whose heartbeat is older than the configured timeout.

    A deferred job (its work handed to a Celery canvas) beats only while one of its tasks
    computes; its tasks wait in the broker, in ``CHUNK_QUEUE``, as a queued job's message
    does, and like a queued job it is not failed for want of a worker: while no live worker
    takes from that queue (every worker stopped, as ``serve_demo`` stops them, or only the
    quick or users' own running) it waits, and says so (``worker_notice``). Once one does, it
    is judged by ``JOB_DEFERRED_TIMEOUT_SECONDS``, the bound on a task lost with its worker
    (its tasks may also queue behind hours of other jobs), counted from its last beat or from
    when those workers started, whichever is later: restarted after a stop longer than the
    heartbeat timeout, they take its tasks up where they were. A worker that died holding them
    fails it at once when its supervisor saw it end (:func:`jobs_fail_of_dead_worker`), and
    without one once its heartbeat is stale: the chunk it computed is still marked computing
    (:class:`~annotate.models.JobChunk`), and its message would wait for hours."""
    now = now or timezone.now()
    limit = now - timedelta(seconds=settings.JOB_HEARTBEAT_TIMEOUT_SECONDS)
    stale = Job.objects.filter(status=Job.Status.RUNNING, heartbeat_at__lt=limit)
    found = list(stale.only("pk", "worker", "heartbeat_at", "deferred"))
    # A computing chunk beats its job, so the chunk marked computing of a stale job died with
    # its worker; its message waits unacknowledged for hours (Redis: the visibility timeout).
    lost = _lost_chunks([job.pk for job in found if job.deferred])
    # The workers are looked for only when a deferred job is stale (one query a reap less).
    if any(job.deferred and job.pk not in lost for job in found):
        since = queue_served_since(settings.CHUNK_QUEUE, now=now)
        deferred_limit = now - timedelta(seconds=settings.JOB_DEFERRED_TIMEOUT_SECONDS)

        def spared(job: Job) -> bool:
            if job.pk in lost:
                return False
            if not job.deferred or since is None:
                return bool(job.deferred)
            return bool(max(job.heartbeat_at or since, since) >= deferred_limit)

        found = [job for job in found if not spared(job)]
    count = 0
    for job in found:
        worker = lost.get(job.pk, job.worker)
        what = "stopped while computing a chunk of it" if job.pk in lost else "stopped responding"
        count += Job.objects.filter(
            pk=job.pk, status=Job.Status.RUNNING, heartbeat_at__lt=limit
        ).update(
            status=Job.Status.FAILED,
            message="failed",
            error=(
                f"the worker {worker or '(unknown)'} {what}: no heartbeat since "
                f"{job.heartbeat_at:%Y-%m-%d %H:%M:%S} UTC "
                f"(timeout {settings.JOB_HEARTBEAT_TIMEOUT_SECONDS} s)"
                + ("; run it again" if job.pk in lost else "")
            ),
            finished_at=now,
        )
    # The marks of chunks whose job ended otherwise (a chord failed at a chunk's hard time
    # limit, a cancel while a worker was killed): nothing reads them any more.
    JobChunk.objects.exclude(job__status=Job.Status.RUNNING).delete()
    if count:
        logger.warning("marked %d job(s) failed after their worker stopped responding", count)
    return count


def _lost_chunks(job_ids: list[int]) -> dict[int, str]:
    """The jobs of ``job_ids`` (stale) with a chunk marked computing, each with the worker of
    one such chunk."""
    if not job_ids:
        return {}
    return dict(
        JobChunk.objects.filter(job_id__in=job_ids)
        .order_by("job_id", "-started_at")
        .values_list("job_id", "worker")
    )


def jobs_fail_of_dead_worker(*, hostnames: Collection[str], reason: str) -> int:
    """Mark failed at once every running job the workers ``hostnames`` claimed: whoever
    supervises them saw their main process end (``reason``, e.g. "killed by signal 9
    (SIGKILL)"), with its pool, so their jobs cannot finish, and waiting for their heartbeats
    to go stale would show them "running" for ``JOB_HEARTBEAT_TIMEOUT_SECONDS`` more. Deferred
    jobs too: the tasks of their canvas that the worker held died with it. Returns how many."""
    now = timezone.now()
    count = 0
    for hostname in sorted(set(hostnames)):
        count += Job.objects.filter(status=Job.Status.RUNNING, worker=hostname).update(
            status=Job.Status.FAILED,
            message="failed",
            error=f"the worker {hostname} ended ({reason}) while running the job; start it again",
            finished_at=now,
        )
    if count:
        logger.warning("marked %d job(s) of a dead worker failed (%s)", count, reason)
    return count


def jobs_reap_if_due() -> int:
    """:func:`jobs_reap_stale` (and a new try at sending jobs the broker did not take) at most
    once per ``JOB_REAP_INTERVAL_SECONDS`` across the web processes (a flag in the shared
    cache). The job pages call it, so a job whose workers all died is marked failed even when
    no worker (and no beat) is left to do it."""
    if not cache.add("jobs:reap-due", True, timeout=settings.JOB_REAP_INTERVAL_SECONDS):
        return 0
    return jobs_maintain()


def jobs_maintain() -> int:
    """What Celery beat runs every ``JOB_REAP_INTERVAL_SECONDS``: send the jobs the broker did
    not take, send again those sent long ago that no live worker claimed, and mark failed the
    running jobs of dead workers (returns how many)."""
    jobs_send_unsent()
    jobs_resend_lost(workers_alive=any_worker_alive)
    return jobs_reap_stale()
