"""A worker whose whole process group gets SIGTERM (``systemctl stop`` under systemd's default
``KillMode=control-group``, a supervisor signalling the group) stops promptly, and the task its
pool process was running goes back to the queue."""

from __future__ import annotations

import io
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest
from django.conf import settings

from annotate.models import Corpus, Job
from annotate.services.agreement import agreement_job_create, agreement_run
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

#: How long the worker may take to stop after the signal (seconds): an idle one takes a few.
STOP_SECONDS = 30


def _queued(url: str) -> int:
    """How many messages wait in the chunks' queue on the broker at ``url``."""
    with broker_connection(url) as connection:
        queue = settings.CHUNK_QUEUE
        return connection.default_channel.queue_declare(queue, passive=True).message_count


@pytest.mark.parametrize("broker", [broker_urls()[0], EMBEDDED])
def test_sigterm_to_the_workers_group_stops_it_and_requeues_the_running_chunks(
    start_worker, broker, tmp_path, django_capture_on_commit_callbacks
) -> None:
    corpus_import_records(corpus_name="agr", records=agreement_records(pairs=40))
    corpus = Corpus.objects.get(name="agr")
    url = embedded_broker_url(tmp_path) if broker == EMBEDDED else broker
    # As deployed: two pool processes, each computing a chunk of many samples for half a
    # minute or more, in numba code whose threads could take billiard's own SIGTERM.
    worker = start_worker(broker, concurrency=2)
    with django_capture_on_commit_callbacks(execute=broker != EMBEDDED):
        job = agreement_job_create(
            corpus=corpus, annotators=["ann1", "ann2"], samples=100_000, seed=5, chunk_pairs=20
        )
    if broker == EMBEDDED:  # this process publishes to the suite's broker: send it there
        with broker_connection(url) as connection:
            agreement_run.apply_async((job.pk,), connection=connection)

    def chunks_running() -> bool:
        return Path(worker.log_path).read_text().count("annotate.agreement_chunk[") >= 2

    wait_until(chunks_running, 120, f"the chunks of agreement job {job.pk}", worker)
    time.sleep(3)  # into the Monte Carlo, which takes half a minute or more

    os.killpg(worker.pid, signal.SIGTERM)
    signalled = time.monotonic()
    try:
        worker.wait(timeout=STOP_SECONDS)
    except subprocess.TimeoutExpired:
        log = Path(worker.log_path).read_text()[-3000:]
        pytest.fail(f"the worker still runs {STOP_SECONDS} s after SIGTERM to its group\n{log}")
    print(f"worker stopped {time.monotonic() - signalled:.1f} s after SIGTERM to its group")
    assert worker.returncode == 0

    job.refresh_from_db()
    assert job.status == Job.Status.RUNNING, job.error  # its chord waits for the chunk
    assert _queued(url) >= 2  # the chunks, back in the queue for the next worker


def test_serve_demos_stop_gives_a_busy_embedded_worker_time_to_put_its_jobs_back(
    start_worker, tmp_path, django_capture_on_commit_callbacks
) -> None:
    """Ctrl-C under ``make demo`` with a report's chunks running past the grace period: the
    supervisor's SIGTERM to the worker's group stops the chunks, and the worker, given
    ``RELEASE_SECONDS``, puts them and the messages it had taken back in the embedded queue
    and exits. Killed before (billiard alone waits 5 s for the results of the pool processes
    it has lost), it would take those messages with it, and the report would fail as a dead
    worker's job instead of going on at the next start."""
    from annotate.management.commands.serve_demo import WorkerSupervisor

    corpus_import_records(corpus_name="agr", records=agreement_records(pairs=40))
    corpus = Corpus.objects.get(name="agr")
    url = embedded_broker_url(tmp_path)
    worker = start_worker(EMBEDDED, concurrency=2)
    with django_capture_on_commit_callbacks(execute=False):
        job = agreement_job_create(
            corpus=corpus, annotators=["ann1", "ann2"], samples=100_000, seed=5, chunk_pairs=20
        )
    with broker_connection(url) as connection:
        agreement_run.apply_async((job.pk,), connection=connection)

    def chunks_running() -> bool:
        return Path(worker.log_path).read_text().count("annotate.agreement_chunk[") >= 2

    wait_until(chunks_running, 120, f"the chunks of agreement job {job.pk}", worker)
    time.sleep(3)

    dead: list[tuple[int, int]] = []
    supervisor = WorkerSupervisor(
        lambda: worker, io.StringIO(), on_death=lambda *death: dead.append(death)
    )
    supervisor.start()
    supervisor.stop(time.monotonic())  # the grace period is over: SIGTERM to the group
    log = Path(worker.log_path).read_text()[-3000:]
    assert dead == [], f"the worker was killed before it had put its jobs back\n{log}"
    assert worker.returncode == 0, log
    job.refresh_from_db()
    assert job.status == Job.Status.RUNNING, job.error
    assert _queued(url) >= 2
