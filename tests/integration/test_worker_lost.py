"""A pool process killed under its job (the kernel's out-of-memory killer, a ``kill -9``): the
worker's main process puts the job back to pending at once and the job runs again, instead of
showing "running" until the reaper finds its heartbeat stale."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest

from annotate.jobs_runtime import LOST
from annotate.models import Corpus, Job
from annotate.services.corpora import corpus_import_records
from annotate.services.jobs import job_cancel
from annotate.services.prefill import prefill_job_create, prefill_run
from tests.annotate.agreement_data import agreement_records
from tests.integration.conftest import (
    EMBEDDED,
    broker_connection,
    broker_urls,
    embedded_broker_url,
    wait_until,
)

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def _busiest_child(worker_pid: int) -> int:
    """The worker's child that has used the most CPU: the pool process computing the job
    (beat, the other child, sleeps)."""
    children = Path(f"/proc/{worker_pid}/task/{worker_pid}/children").read_text().split()

    def cpu(pid: str) -> int:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return int(fields[11]) + int(fields[12])  # utime + stime

    return int(max(children, key=cpu))


@pytest.mark.parametrize("broker", [broker_urls()[0], EMBEDDED])
def test_a_job_whose_pool_process_was_killed_goes_back_to_pending_and_runs_again(
    start_worker, broker, tmp_path, django_capture_on_commit_callbacks
) -> None:
    # EM of 200 iterations over 6,000 short pairs: several seconds on an idle machine
    corpus_import_records(corpus_name="lost", records=agreement_records(pairs=6000))
    corpus = Corpus.objects.get(name="lost")
    # the reaper is far away: whatever marks the job, it is not the stale heartbeat
    worker = start_worker(broker, JOB_HEARTBEAT_TIMEOUT_SECONDS="3600")
    with django_capture_on_commit_callbacks(execute=broker != EMBEDDED):
        job = prefill_job_create(
            corpus=corpus, aligner="em", options={"model1_iterations": 100, "hmm_iterations": 100}
        )
    if broker == EMBEDDED:  # this process publishes to the suite's broker: send it there
        with broker_connection(embedded_broker_url(tmp_path)) as connection:
            prefill_run.apply_async((job.pk,), connection=connection)

    def running() -> bool:
        job.refresh_from_db()
        return job.status == Job.Status.RUNNING

    wait_until(running, 120, f"prefill job {job.pk} to start", worker)
    time.sleep(1)  # into the EM iterations, well before their end
    pool = _busiest_child(worker.pid)
    os.kill(pool, signal.SIGKILL)
    killed = time.monotonic()
    seen: set[str] = set()

    def back_to_pending_or_running_again() -> bool:
        job.refresh_from_db()
        seen.add(job.message)
        return job.attempts == 2 or job.is_finished

    wait_until(back_to_pending_or_running_again, 30, "the job to run again", worker)
    print(f"job {job.pk} ran again {time.monotonic() - killed:.1f} s after its process died")
    assert job.status in (Job.Status.RUNNING, Job.Status.SUCCEEDED), job.error
    assert job.attempts == 2
    assert LOST.format(reason="signal 9 (SIGKILL)") in seen or job.status == Job.Status.RUNNING
    # the worker itself lived on: on the embedded broker, putting the message back in the
    # queue from the pool's result thread once broke the session its main thread polls with
    assert worker.poll() is None, Path(worker.log_path).read_text()[-3000:]
    assert "Unrecoverable error" not in Path(worker.log_path).read_text()
    job_cancel(job=job)
