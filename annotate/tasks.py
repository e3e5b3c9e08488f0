"""Periodic Celery tasks (Celery beat): reaping, retraining, cleaning. Each kind of job is a
task of its own, defined with the service that runs it (:mod:`annotate.jobs_runtime`)."""

from __future__ import annotations

from celery import shared_task

from annotate.services.corpora import corpus_imports_abandoned_clean
from annotate.services.exports import exports_clean
from annotate.services.jobs import jobs_maintain
from annotate.services.prefill import prefills_retrain_due
from annotate.services.prefill_chunks import feature_store_prune, prefill_models_clean
from annotate.services.uploads import uploads_clean


@shared_task(name="annotate.reap_stale_jobs", ignore_result=True)
def reap_stale_jobs() -> int:
    """Fail the jobs of dead workers, and remove the trained models of prefill jobs no longer
    running: a prefill failed here ran no callback to remove its model, and the hourly export
    clean-up would leave it there up to an hour."""
    reaped = jobs_maintain()
    prefill_models_clean()
    return reaped


@shared_task(name="annotate.retrain_prefills", ignore_result=True)
def retrain_prefills() -> list[int]:
    return [job.pk for job in prefills_retrain_due()]


@shared_task(name="annotate.clean_exports", ignore_result=True)
def clean_exports() -> int:
    """Export files and uploads no job took, older than ``EXPORT_KEEP_DAYS``, the staging
    corpora of imports that died, the trained models of prefill jobs that died, and the
    feature store's least recently used files past its bound."""
    return (
        exports_clean()
        + uploads_clean()
        + corpus_imports_abandoned_clean()
        + prefill_models_clean()
        + feature_store_prune()
    )
