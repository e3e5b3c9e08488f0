"""End to end on real services: job enqueued → worker process runs it → result in the ORM."""

from __future__ import annotations

import os
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.utils import timezone

from annotate.jobs_runtime import job_claim
from annotate.models import Corpus, Job
from annotate.services.corpora import corpus_import_records
from annotate.services.stats import corpus_stats_run
from tests.annotate.records import make_record
from tests.integration.conftest import (
    EMBEDDED,
    broker_connection,
    broker_urls,
    embedded_broker_url,
    wait_until,
)

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


@pytest.mark.parametrize("broker_url", broker_urls())
def test_a_worker_process_runs_a_job_and_its_result_is_stored(
    start_worker, broker_url, tmp_path
) -> None:
    corpus_import_records(
        corpus_name="itest",
        records=[make_record(f"p{i}", annotations={"a": "1-1", "b": "1-1"}) for i in range(25)],
    )
    worker = start_worker(broker_url)
    corpus = Corpus.objects.get(name="itest")
    if broker_url == os.environ["CELERY_BROKER_URL"]:
        job = corpus_stats_run.create(corpus=corpus)
    else:  # this process' producer is configured for the first broker: publish explicitly
        job = Job.objects.create(kind="corpus_stats", corpus=corpus)
        url = embedded_broker_url(tmp_path) if broker_url == EMBEDDED else broker_url
        with broker_connection(url) as connection:
            corpus_stats_run.apply_async((job.pk,), connection=connection)

    def finished() -> bool:
        job.refresh_from_db()
        return job.is_finished

    wait_until(finished, 90, f"job {job.pk} on {broker_url.split(':')[0]}", worker)
    print(f"job {job.pk} on {broker_url.split('@')[-1]}: {job.status} by {job.worker}")
    assert job.status == Job.Status.SUCCEEDED, job.error
    assert job.worker.startswith("itest0@")
    assert job.result["pairs"] == 25
    assert job.result["multiply_annotated_pairs"] == 25
    assert Corpus.objects.get(name="itest").stats["pairs"] == 25


def test_the_workers_beat_marks_a_job_of_a_dead_worker_failed(start_worker) -> None:
    corpus_import_records(corpus_name="itest", records=[make_record("p")])
    corpus = Corpus.objects.get(name="itest")
    job = Job.objects.create(kind="corpus_stats", corpus=corpus)
    job_claim(job_id=job.pk, worker="worker-that-died")
    Job.objects.filter(pk=job.pk).update(heartbeat_at=timezone.now() - timedelta(seconds=30))

    worker = start_worker(
        broker_urls()[0], JOB_HEARTBEAT_TIMEOUT_SECONDS="5", JOB_REAP_INTERVAL_SECONDS="1"
    )

    def failed() -> bool:
        job.refresh_from_db()
        return job.status == Job.Status.FAILED

    wait_until(failed, 60, "the beat to reap the dead worker's job", worker)
    print(f"job {job.pk}: {job.error}")
    assert "worker-that-died stopped responding" in job.error


def test_the_corpus_stats_command_waits_for_the_worker(start_worker, capsys) -> None:
    corpus_import_records(corpus_name="itest", records=[make_record("p")])
    start_worker(broker_urls()[0])
    call_command("corpus_stats", "--corpus", "itest", "--wait", "90")
    out = capsys.readouterr().out
    assert '"pairs": 1' in out
