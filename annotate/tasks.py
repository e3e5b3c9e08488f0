"""Celery tasks: thin interfaces that take ids and call one service."""

from __future__ import annotations

import logging
import socket
from typing import Any

from celery import shared_task

from annotate import queue
from annotate.services.agreement import agreement_chunk_statistics, agreement_finish_report
from annotate.services.exports import exports_clean
from annotate.services.jobs import (
    JobCancelled,
    JobRetry,
    internal_error_message,
    job_fail,
    job_run,
    jobs_reap_stale,
)
from annotate.services.prefill import prefills_retrain_due
from annotate.services.uploads import uploads_clean

logger = logging.getLogger(__name__)


@shared_task(name="annotate.run_job", bind=True, acks_late=True, ignore_result=True)
def run_job(self: Any, job_id: int) -> str:
    worker = self.request.hostname or socket.gethostname()
    try:
        return job_run(job_id=job_id, worker=worker)
    except JobRetry as retry:  # bounded by the job's attempts (jobs.MAX_ATTEMPTS)
        raise self.retry(countdown=retry.countdown, max_retries=None) from retry


@shared_task(name="annotate.reap_stale_jobs", ignore_result=True)
def reap_stale_jobs() -> int:
    queue.jobs_send_unsent()
    return jobs_reap_stale()


@shared_task(name="annotate.retrain_prefills", ignore_result=True)
def retrain_prefills() -> list[int]:
    return [job.pk for job in prefills_retrain_due()]


@shared_task(name="annotate.clean_exports", ignore_result=True)
def clean_exports() -> int:
    """Export files and uploads no job took, older than ``EXPORT_KEEP_DAYS``."""
    return exports_clean() + uploads_clean()


# --- the agreement job's chord -----------------------------------------------------------------


@shared_task(name="annotate.agreement_chunk", acks_late=True)
def agreement_chunk(
    job_id: int,
    pair_ids: list[int],
    models: dict[str, Any],
    share: float,
    start: int | None = None,
) -> list[dict[str, Any]]:
    return agreement_chunk_statistics(
        job_id=job_id, pair_ids=pair_ids, models_json=models, share=share, start=start
    )


@shared_task(name="annotate.agreement_finish", acks_late=True, ignore_result=True)
def agreement_finish(
    chunk_results: list[list[dict[str, Any]]], job_id: int, models: dict[str, Any]
) -> None:
    try:
        agreement_finish_report(job_id=job_id, chunk_results=chunk_results, models_json=models)
    except Exception as error:
        logger.exception("finishing agreement job %s failed", job_id)
        job_fail(job_id=job_id, error=internal_error_message(error))


@shared_task(name="annotate.agreement_failed", ignore_result=True)
def agreement_failed(request: Any, exc: BaseException, traceback: Any, job_id: int) -> None:
    """Error callback of the chord: a chunk failed, so the job fails with the chunk's reason."""
    if isinstance(exc, JobCancelled):
        return
    logger.error("a chunk of agreement job %s failed: %r", job_id, exc)
    job_fail(job_id=job_id, error=f"a chunk of the Monte Carlo failed: {exc}")


queue.tasks_connect(
    queue.Tasks(
        run_job=run_job,
        agreement_chunk=agreement_chunk,
        agreement_finish=agreement_finish,
        agreement_failed=agreement_failed,
    )
)
