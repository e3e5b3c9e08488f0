"""The agreement job's chord on real workers gives the numbers of a single process."""

from __future__ import annotations

import pytest

from annotate.models import Corpus, Job
from annotate.services.agreement import (
    agreement_compute,
    agreement_job_create,
    agreement_params,
    agreement_run,
)
from annotate.services.corpora import corpus_import_records
from tests.annotate.agreement_data import agreement_records
from tests.integration.conftest import (
    EMBEDDED,
    broker_connection,
    broker_urls,
    embedded_broker_url,
    wait_until,
)

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


# The suite's broker (its chord results in Redis), and the embedded defaults: the SQLAlchemy
# transport and Celery's database result backend, both SQLite files.
@pytest.mark.parametrize("broker", [broker_urls()[0], EMBEDDED])
def test_two_workers_split_the_monte_carlo_and_agree_with_one_process(
    start_worker, broker, tmp_path, django_capture_on_commit_callbacks
) -> None:
    corpus_import_records(corpus_name="agr", records=agreement_records(pairs=40))
    corpus = Corpus.objects.get(name="agr")
    first = start_worker(broker)
    start_worker(broker)
    with django_capture_on_commit_callbacks(execute=broker != EMBEDDED):
        job = agreement_job_create(
            corpus=corpus, annotators=["ann1", "ann2"], samples=200, seed=5, chunk_pairs=7
        )
    if broker == EMBEDDED:  # this process publishes to the suite's broker: send it there
        with broker_connection(embedded_broker_url(tmp_path)) as connection:
            agreement_run.apply_async((job.pk,), connection=connection)

    def finished() -> bool:
        job.refresh_from_db()
        return job.is_finished

    wait_until(finished, 180, f"agreement job {job.pk}", first)
    assert job.status == Job.Status.SUCCEEDED, job.error
    assert job.result["chunks"] == 6
    print(f"agreement job {job.pk}: {job.result['chunks']} chunks, {job.message}")

    local = agreement_compute(
        corpus=corpus,
        annotators=["ann1", "ann2"],
        params=agreement_params({"samples": 200}, 5),
    )
    assert job.result["annotator_pairs"] == local["annotator_pairs"]
    assert job.result["table5"] == local["table5"]
    c_hat = job.result["annotator_pairs"][0]["table4"]["overall"]["c_hat"]["poss"]
    assert c_hat["c_hat"] is not None and 0 < c_hat["pi0_hat"] < 1


@pytest.mark.parametrize("broker", [broker_urls()[0], EMBEDDED])
def test_a_cancel_frees_the_worker_from_a_long_monte_carlo_at_once(
    start_worker, broker, tmp_path, django_capture_on_commit_callbacks
) -> None:
    """A worker with one slot runs a chunk of J = 100,000 (tens of seconds); cancelled a
    moment into it, the chunk stops, and a job queued after the cancel runs at once. The
    chord ends without an error in the worker's log."""
    import time
    from pathlib import Path

    from annotate.services.jobs import job_cancel
    from annotate.services.stats import corpus_stats_run

    corpus_import_records(corpus_name="agr", records=agreement_records(pairs=40))
    corpus = Corpus.objects.get(name="agr")
    # Not niced: on a loaded machine a niced worker's wall-clock times say little.
    worker = start_worker(broker, WORKER_NICE="0")

    def queue(create, task) -> Job:
        with django_capture_on_commit_callbacks(execute=broker != EMBEDDED):
            job = create()
        if broker == EMBEDDED:
            with broker_connection(embedded_broker_url(tmp_path)) as connection:
                task.apply_async((job.pk,), connection=connection)
        return job

    report = queue(
        lambda: agreement_job_create(
            corpus=corpus, annotators=["ann1", "ann2"], samples=100_000, seed=5, chunk_pairs=40
        ),
        agreement_run,
    )

    def chunk_sent() -> bool:  # the runner stores the edit models, then sends the chord
        report.refresh_from_db()
        return "edit_models" in report.parameters

    wait_until(chunk_sent, 120, f"the chunk of agreement job {report.pk}", worker)
    time.sleep(3)  # well into the chunk
    assert job_cancel(job=report)
    cancelled_at = time.monotonic()
    stats = queue(lambda: corpus_stats_run.create(corpus=corpus), corpus_stats_run)

    def stats_finished() -> bool:
        stats.refresh_from_db()
        return stats.is_finished

    wait_until(stats_finished, 60, f"the statistics job {stats.pk}", worker)
    waited = time.monotonic() - cancelled_at
    assert stats.status == Job.Status.SUCCEEDED, stats.error
    assert waited < 8, f"the next job waited {waited:.1f} s for the cancelled chunk"
    report.refresh_from_db()
    assert report.status == Job.Status.CANCELLED and report.result is None

    log = Path(worker.log_path)
    wait_until(lambda: "had ended" in log.read_text(), 30, "the chord's callback", worker)
    errors = [line for line in log.read_text().splitlines() if "ERROR" in line]
    assert errors == []
