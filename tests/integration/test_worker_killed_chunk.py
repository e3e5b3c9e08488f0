"""A worker killed outright (``kill -9`` of its process group, a machine lost) while its pool
process computes an agreement report's chunk: no supervisor sees it, and the chunk's message
stays unacknowledged on the broker (on Redis for the visibility timeout, hours). The chunk is
still marked computing, so the reaper fails the report once its heartbeat is stale, instead
of showing it "running" for hours."""

from __future__ import annotations

import os
import signal
import time
from datetime import timedelta
from pathlib import Path

import pytest
from django.utils import timezone

from annotate.models import Corpus, Job, JobChunk
from annotate.services.agreement import agreement_job_create, agreement_run
from annotate.services.corpora import corpus_import_records
from annotate.services.jobs import jobs_reap_stale
from tests.annotate.agreement_data import agreement_records
from tests.integration.conftest import (
    EMBEDDED,
    broker_connection,
    broker_urls,
    embedded_broker_url,
    wait_until,
)

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


@pytest.mark.parametrize("broker", broker_urls())
def test_a_report_whose_chunk_died_with_its_worker_fails_at_the_heartbeat_timeout(
    start_worker, broker, tmp_path, settings, django_capture_on_commit_callbacks
) -> None:
    corpus_import_records(corpus_name="agr", records=agreement_records(pairs=40))
    corpus = Corpus.objects.get(name="agr")
    worker = start_worker(broker, JOB_HEARTBEAT_TIMEOUT_SECONDS="3600")
    suite = broker_urls()[0]
    with django_capture_on_commit_callbacks(execute=broker == suite):
        job = agreement_job_create(
            corpus=corpus, annotators=["ann1", "ann2"], samples=100_000, seed=5, chunk_pairs=20
        )
    if broker != suite:  # this process publishes to the suite's broker: send it to the worker's
        url = embedded_broker_url(tmp_path) if broker == EMBEDDED else broker
        with broker_connection(url) as connection:
            agreement_run.apply_async((job.pk,), connection=connection)

    def chunk_computing() -> bool:
        return JobChunk.objects.filter(job_id=job.pk).exists()

    wait_until(chunk_computing, 120, f"a chunk of agreement job {job.pk}", worker)
    time.sleep(2)  # into the Monte Carlo, which takes half a minute or more
    os.killpg(worker.pid, signal.SIGKILL)
    worker.wait(timeout=30)
    print(Path(worker.log_path).read_text()[-1500:])

    settings.JOB_HEARTBEAT_TIMEOUT_SECONDS = 60
    assert jobs_reap_stale() == 0, "its heartbeat is fresh"
    assert jobs_reap_stale(now=timezone.now() + timedelta(seconds=61)) == 1
    job.refresh_from_db()
    assert job.status == Job.Status.FAILED
    assert "stopped while computing a chunk of it" in job.error
    assert not JobChunk.objects.filter(job_id=job.pk).exists()
