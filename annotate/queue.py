"""The one seam between the services and Celery.

The services never import :mod:`annotate.tasks` (the tasks import the services, which is the
direction a call goes); they call this module, and the tasks module hands this module the tasks
it sends when it is imported (:func:`tasks_connect`; the app's ``ready()`` imports it). Nothing
is sent before the database transaction that created the work commits, so a worker never looks
for a row it cannot see yet.

When the broker cannot be reached the request still succeeds: the job stays pending with
:data:`UNSENT` as its message, and :func:`jobs_send_unsent` (called with the reaping, by Celery
beat and by the web process when jobs are read) sends it once the broker answers again. A job
sent twice runs once: a worker claims it only while it is pending.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import accumulate
from typing import Any

from celery import Task, chord
from django.db import transaction
from kombu.exceptions import OperationalError

from annotate.models import Job

logger = logging.getLogger(__name__)

UNSENT = "the job queue could not be reached; the job is sent when it answers again"
#: One quick retry: a request must not hang on a broker that is down.
RETRY_POLICY = {"max_retries": 1, "interval_start": 0.0, "interval_step": 0.5, "interval_max": 0.5}


@dataclass(frozen=True)
class Tasks:
    """The Celery tasks this module sends."""

    run_job: Task
    agreement_chunk: Task
    agreement_finish: Task
    agreement_failed: Task


_connected: list[Tasks] = []


def tasks_connect(tasks: Tasks) -> None:
    """Called by :mod:`annotate.tasks` on import: the tasks to send from now on."""
    _connected[:] = [tasks]


def _tasks() -> Tasks:
    if not _connected:
        raise RuntimeError("annotate.tasks is not imported: the app's ready() imports it")
    return _connected[0]


def _send(job_id: int) -> bool:
    try:
        _tasks().run_job.apply_async((job_id,), retry=True, retry_policy=RETRY_POLICY)
    except (OperationalError, OSError) as error:
        logger.warning("job %s not sent, the broker is unreachable: %s", job_id, error)
        Job.objects.filter(pk=job_id, status=Job.Status.PENDING).update(message=UNSENT)
        return False
    return True


def enqueue_job(job_id: int) -> None:
    """Run the job's runner on a worker once the current transaction commits."""
    transaction.on_commit(lambda: _send(job_id))


def jobs_send_unsent() -> int:
    """Send the pending jobs the broker could not take; returns how many went."""
    sent = 0
    for job_id in Job.objects.filter(status=Job.Status.PENDING, message=UNSENT).values_list(
        "pk", flat=True
    ):
        if not _send(job_id):
            break  # still down: the rest waits for the next call
        Job.objects.filter(pk=job_id, status=Job.Status.PENDING, message=UNSENT).update(
            message="waiting for a worker"
        )
        sent += 1
    return sent


def enqueue_agreement_chunks(
    *, job_id: int, chunks: Sequence[list[int]], models: dict[str, Any], share: float
) -> None:
    """The agreement job's Monte Carlo: one task per chunk of pairs, then one that builds the
    report from their statistics, or one that fails the job if a chunk fails. The chunks cut
    the job's snapshot in order; each task is told the line its pairs start at."""
    tasks = _tasks()
    starts = list(accumulate((len(chunk) for chunk in chunks), initial=0))[:-1]
    header = [
        tasks.agreement_chunk.s(job_id, chunk, models, share, start)
        for chunk, start in zip(chunks, starts, strict=True)
    ]
    body = tasks.agreement_finish.s(job_id, models).on_error(tasks.agreement_failed.s(job_id))
    chord(header)(body)
