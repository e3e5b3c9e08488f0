"""The one seam between the services and Celery.

The services never import :mod:`annotate.tasks` (the tasks import the services, which is the
direction a call goes); they call this module, which imports the tasks only when work is handed
over. Nothing is sent before the database transaction that created the work commits, so a worker
never looks for a row it cannot see yet.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from celery import chord
from django.db import transaction


def enqueue_job(job_id: int) -> None:
    """Run the job's runner on a worker once the current transaction commits."""
    from annotate import tasks

    transaction.on_commit(lambda: tasks.run_job.delay(job_id))


def enqueue_agreement_chunks(
    *, job_id: int, chunks: Sequence[list[int]], models: dict[str, Any], share: float
) -> None:
    """The agreement job's Monte Carlo: one task per chunk of pairs, then one that builds the
    report from their statistics, or one that fails the job if a chunk fails."""
    from annotate import tasks

    header = [tasks.agreement_chunk.s(job_id, chunk, models, share) for chunk in chunks]
    body = tasks.agreement_finish.s(job_id, models).on_error(tasks.agreement_failed.s(job_id))
    chord(header)(body)
