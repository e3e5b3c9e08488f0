"""Celery tasks: thin interfaces that take ids and call one service (house style §7)."""

from __future__ import annotations

import socket

from celery import shared_task

from annotate.services.jobs import job_run, jobs_reap_stale


@shared_task(name="annotate.run_job", bind=True, acks_late=True, ignore_result=True)
def run_job(self, job_id: int) -> str:  # type: ignore[no-untyped-def]
    worker = self.request.hostname or socket.gethostname()
    return job_run(job_id=job_id, worker=worker)


@shared_task(name="annotate.reap_stale_jobs", ignore_result=True)
def reap_stale_jobs() -> int:
    return jobs_reap_stale()
