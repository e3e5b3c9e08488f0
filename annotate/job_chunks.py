"""The tasks a deferred job hands its work to (an agreement report's Monte Carlo chunks, a
prefill's aligning chunks): their marks while they compute, their request in the worker's main
process, their shares of the job's progress and their outcome.

A runner that returns :data:`annotate.jobs_runtime.DEFERRED` sends a Celery chord of chunk
tasks; each task runs its work with :func:`chunk_outcome` inside :class:`ChunkComputing` (and
the job's :class:`~annotate.jobs_runtime.Heartbeat`), reports its share with
:func:`~annotate.jobs_runtime.job_chunk_done`, and the chord's callback finishes the job.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping
from datetime import timedelta
from typing import Any, TypeVar

from django.db import transaction
from django.utils import timezone

from annotate.jobs_runtime import (
    PROGRESS_MIN_INTERVAL,
    JobCancelled,
    JobRequest,
    internal_error_message,
    job_check_running,
    job_fail,
    signal_behind,
)
from annotate.models import Job, JobChunk

logger = logging.getLogger(__name__)

T = TypeVar("T")


class ChunkComputing:
    """Marks a task of a deferred job's canvas as computing (a :class:`JobChunk` row) for as
    long as it runs, and beats the job's heartbeat as it starts: the job's last beat may be
    older than the reaper's timeout when its chunk waited in the queue, and the row with a
    stale heartbeat is what the reaper takes for a chunk whose worker died. The row goes when
    the task ends, by an exception too (a cancel, the worker's warm shutdown); only a process
    killed outright leaves it (:class:`ChunkRequest` removes that of a pool process the
    worker saw die)."""

    def __init__(self, job_id: int, key: int, worker: str = "") -> None:
        self._job_id = job_id
        self._key = key
        self._worker = worker

    def __enter__(self) -> ChunkComputing:
        now = timezone.now()
        with transaction.atomic():
            JobChunk.objects.update_or_create(
                job_id=self._job_id,
                key=self._key,
                defaults={"worker": self._worker[:255], "started_at": now},
            )
            Job.objects.filter(pk=self._job_id, status=Job.Status.RUNNING).update(heartbeat_at=now)
        return self

    def __exit__(self, *exc: object) -> None:
        chunk_forget(job_id=self._job_id, key=self._key)


def chunk_forget(*, job_id: int, key: int) -> None:
    """Remove the mark of a chunk that stopped computing (:class:`ChunkComputing`)."""
    JobChunk.objects.filter(job_id=job_id, key=key).delete()


class ChunkRequest(JobRequest):
    """A chunk's message in the worker's main process: when the pool process computing it
    died (``WorkerLostError``), Celery puts the message back in the queue
    (``task_reject_on_worker_lost``), so the chunk waits to run again, as a queued one does,
    and its mark goes; left, it would have the reaper fail the job once its heartbeat went
    stale. The job itself runs on. The task's first two arguments are the job's id and the
    chunk's pair ids."""

    def worker_lost(self, error: BaseException) -> None:
        if len(self.args) >= 2 and self.args[1]:
            chunk_forget(job_id=int(self.args[0]), key=int(self.args[1][0]))


def chunk_shares(chunks: int, percent: int) -> list[int]:
    """Each chunk's whole percents of ``percent``, added to the job's progress as it ends
    (:func:`job_chunk_done`): the k-th has ``⌊percent·(k+1)/n⌋ − ⌊percent·k/n⌋``, so that they
    add up to ``percent`` and the progress grows with the chunks done, in whatever order they
    end, even when there are more chunks than percents (a report on 10,000 pairs has 200
    chunks of 50)."""
    return [percent * (k + 1) // chunks - percent * k // chunks for k in range(chunks)]


class CanvasProgress:
    """The ``progress`` of a task of a job's canvas (an agreement chunk): the job's percent is
    the sum of its tasks' shares, added as each ends (:func:`job_chunk_done`), so this writes
    nothing; like :class:`ThrottledProgress` it raises :class:`JobCancelled` once the job is not
    running, reading its status at most every :data:`PROGRESS_MIN_INTERVAL` seconds. Takes any
    arguments, as the callbacks of :mod:`scoring` differ in theirs."""

    def __init__(self, job_id: int) -> None:
        self._job_id = job_id
        self._last = time.monotonic()

    def __call__(self, *report: object) -> None:
        now = time.monotonic()
        if now - self._last < PROGRESS_MIN_INTERVAL:
            return
        self._last = now
        job_check_running(job_id=self._job_id)


def chunk_outcome(*, kind: str, job_id: int, compute: Callable[[], T]) -> T | None:
    """What a chunk task returns: ``compute()``'s result, or ``None`` once its job was
    cancelled or reaped. Stopping is a result, not an error: a chunk that raised would fail the
    chord, which Celery logs as an error (``chord_unlock``, or the result backend's chord
    counter), while ``None`` lets the chord end normally and its callback find the job ended.
    The worker's own stop (a signal numba wrapped in its error) is raised as itself, so the
    chunk goes back to the queue."""
    try:
        return compute()
    except JobCancelled:
        logger.info("%s job %s is no longer running; its chunk stopped", kind, job_id)
        return None
    except Exception as error:
        interruption = signal_behind(error)
        if isinstance(interruption, SystemExit | KeyboardInterrupt):
            raise interruption from error
        raise


def chunks_finish(*, kind: str, job_id: int, finish: Callable[[], object]) -> None:
    """Run a chord's callback, ``finish()``; should it raise, the job fails with the reason
    rather than staying running with every chunk done."""
    try:
        finish()
    except Exception as error:
        logger.exception("finishing %s job %s failed", kind, job_id)
        job_fail(job_id=job_id, error=internal_error_message(error))


def chunks_failed(*, kind: str, job_id: int, error: BaseException, work: str) -> None:
    """A chord's error callback: a chunk of ``work`` failed, so the job fails with the chunk's
    reason. A job no longer running (cancelled, or reaped) is left as it is, and nothing is
    logged as an error (its chunks return ``None`` rather than fail, :func:`chunk_outcome`)."""
    if isinstance(error, JobCancelled):
        return
    if job_fail(job_id=job_id, error=f"a chunk of the {work} failed: {error}"):
        logger.error("a chunk of %s job %s failed: %r", kind, job_id, error)
    else:
        logger.info("%s job %s had ended when a chunk stopped: %r", kind, job_id, error)


#: The chords' callbacks, whose first argument is their job's id.
CHORD_CALLBACKS = ("annotate.agreement_finish", "annotate.prefill_finish")
#: How long after its job ended a chord still waits for its chunks (seconds): those queued at
#: the end run, return ``None`` and let the callback record what the job did.
CHORD_ABANDON_SECONDS = 600


def chord_abandoned(callback: Mapping[str, Any], *, now: Any = None) -> bool:
    """Whether the chord whose callback is ``callback`` (a signature, as Celery's
    ``chord_unlock`` gets it) waits for nothing any more: its job is gone, or ended more than
    :data:`CHORD_ABANDON_SECONDS` ago. Without results backends that tell a chord's end
    themselves (the embedded defaults' SQLite file), Celery polls for it by a task that sends
    itself again every ``CELERY_RESULT_CHORD_RETRY_INTERVAL`` (0.25 s) with no limit, until
    every chunk has a result; the chunks a killed worker had taken never get one (the embedded
    broker never hands their messages out again), and its job, failed as a dead worker's, went
    on costing the worker a task and the broker's file a message of kilobytes four times a
    second, for ever."""
    if callback.get("task") not in CHORD_CALLBACKS:
        return False
    args = callback.get("args") or ()
    if not args:
        return False
    job = Job.objects.filter(pk=args[0]).values("status", "finished_at").first()
    if job is None:
        return True
    if job["status"] in (Job.Status.PENDING, Job.Status.RUNNING) or job["finished_at"] is None:
        return False
    limit = (now or timezone.now()) - timedelta(seconds=CHORD_ABANDON_SECONDS)
    return bool(job["finished_at"] < limit)
