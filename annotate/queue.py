"""The one seam between the services and Celery: work is handed over by task *name*.

The services never import :mod:`annotate.tasks` (the tasks import the services, which is the
direction a call goes), and nothing is sent before the database transaction that created the
work commits, so a worker never looks for a row it cannot see yet.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from celery import chord, signature
from django.db import transaction

RUN_JOB = "annotate.run_job"
AGREEMENT_CHUNK = "annotate.agreement_chunk"
AGREEMENT_FINISH = "annotate.agreement_finish"
AGREEMENT_FAILED = "annotate.agreement_failed"


def enqueue_job(job_id: int) -> None:
    """Run the job's runner on a worker once the current transaction commits."""
    transaction.on_commit(lambda: signature(RUN_JOB, args=(job_id,)).delay())


def enqueue_agreement_chunks(
    *, job_id: int, chunks: Sequence[list[int]], models: dict[str, Any], share: float
) -> None:
    """The agreement job's Monte Carlo: one task per chunk of pairs, then one that builds the
    report from their statistics, or one that fails the job if a chunk fails."""
    header = [signature(AGREEMENT_CHUNK, args=(job_id, chunk, models, share)) for chunk in chunks]
    body = signature(AGREEMENT_FINISH, args=(job_id, models)).on_error(
        signature(AGREEMENT_FAILED, args=(job_id,))
    )
    chord(header)(body)
