"""A job whose pool process died: back to pending to run again, failed after the last try."""

from __future__ import annotations

import pytest

from annotate import jobs_runtime as runtime
from annotate.models import Corpus, Job
from annotate.services.corpora import corpus_import_records
from tests.annotate.records import make_record

pytestmark = [pytest.mark.django_db, pytest.mark.postgres]


@pytest.fixture
def job() -> Job:
    corpus_import_records(corpus_name="c", records=[make_record("a"), make_record("b")])
    job = Job.objects.create(kind="corpus_stats", corpus=Corpus.objects.get(name="c"))
    assert runtime.job_claim(job_id=job.pk, worker="celery@a")
    return job


def test_a_job_whose_process_died_waits_to_run_again_and_then_runs(job: Job) -> None:
    assert runtime.job_lost(job_id=job.pk, worker="celery@a", reason="signal 9 (SIGKILL)") == (
        Job.Status.PENDING
    )
    job.refresh_from_db()
    assert (job.status, job.progress) == (Job.Status.PENDING, 0)
    assert job.message == (
        "the worker process running the job died (signal 9 (SIGKILL)); it waits to run again"
    )
    assert runtime.job_run(job_id=job.pk, worker="celery@a") == Job.Status.SUCCEEDED
    job.refresh_from_db()
    assert job.attempts == 2


def test_a_job_that_kills_its_process_each_time_fails_after_the_last_try(job: Job) -> None:
    for _ in range(runtime.MAX_ATTEMPTS - 1):
        runtime.job_lost(job_id=job.pk, worker="celery@a", reason="signal 9 (SIGKILL)")
        assert runtime.job_claim(job_id=job.pk, worker="celery@a")
    assert runtime.job_lost(job_id=job.pk, worker="celery@a", reason="signal 9 (SIGKILL)") == (
        Job.Status.FAILED
    )
    job.refresh_from_db()
    assert job.error == (
        f"the worker process running the job died {runtime.MAX_ATTEMPTS} times (last: signal 9 "
        "(SIGKILL)); it may need more memory than the worker has"
    )


@pytest.mark.parametrize("status", [Job.Status.CANCELLED, Job.Status.SUCCEEDED])
def test_a_job_no_longer_running_is_left_as_it_is(job: Job, status: str) -> None:
    Job.objects.filter(pk=job.pk).update(status=status)
    assert runtime.job_lost(job_id=job.pk, worker="celery@a", reason="signal 9") == status


def test_a_job_another_worker_runs_is_left_as_it_is(job: Job) -> None:
    assert runtime.job_lost(job_id=job.pk, worker="celery@b", reason="signal 9") == (
        Job.Status.RUNNING
    )


def test_the_reason_is_read_from_celerys_worker_lost_error() -> None:
    from billiard.exceptions import WorkerLostError

    error = WorkerLostError("Worker exited prematurely: signal 9 (SIGKILL) Job: 3.")
    assert runtime.worker_lost_reason(error) == "signal 9 (SIGKILL)"
    assert runtime.worker_lost_reason(WorkerLostError("")) == "WorkerLostError"


def test_job_tasks_use_the_request_that_notices_a_dead_pool_process() -> None:
    assert runtime.job_task_of("corpus_stats").Request is runtime.JobRequest


def _numba_wrapped(cause: BaseException) -> SystemError:
    """What numba's compiled code raises when a signal's exception comes up through it."""
    try:
        raise SystemError(
            "CPUDispatcher(<function posteriors>) returned a result with an exception set"
        ) from cause
    except SystemError as error:
        return error


def test_a_warm_shutdown_inside_numba_code_puts_the_job_back_not_fails_it(
    job: Job, monkeypatch: pytest.MonkeyPatch
) -> None:
    Job.objects.filter(pk=job.pk).update(status=Job.Status.PENDING)
    task = runtime.job_task_of("corpus_stats")

    def runner(job: Job, progress: runtime.Progress) -> dict[str, int]:
        raise _numba_wrapped(SystemExit(-241))

    monkeypatch.setattr(task, "runner", runner)
    with pytest.raises(SystemExit):
        task.execute(job_id=job.pk, worker="celery@a")
    job.refresh_from_db()
    assert (job.status, job.message) == (Job.Status.PENDING, runtime.RELEASED)


def test_the_soft_time_limit_inside_numba_code_fails_the_job_with_that_reason(
    job: Job, monkeypatch: pytest.MonkeyPatch
) -> None:
    from celery.exceptions import SoftTimeLimitExceeded

    Job.objects.filter(pk=job.pk).update(status=Job.Status.PENDING)
    task = runtime.job_task_of("corpus_stats")

    def runner(job: Job, progress: runtime.Progress) -> dict[str, int]:
        raise _numba_wrapped(SoftTimeLimitExceeded())

    monkeypatch.setattr(task, "runner", runner)
    assert task.execute(job_id=job.pk, worker="celery@a") == Job.Status.FAILED
    job.refresh_from_db()
    assert job.error == "the job exceeded its time limit and was stopped"


def test_an_agreement_chunk_stopped_inside_numba_code_goes_back_to_the_queue(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from annotate.services import agreement

    def statistics(**kwargs: object) -> None:
        raise _numba_wrapped(SystemExit(-241))

    monkeypatch.setattr(agreement, "agreement_chunk_statistics", statistics)
    with pytest.raises(SystemExit):
        agreement.agreement_chunk.run(1, [1], {}, 1.0)


def test_a_plain_error_is_not_taken_for_a_signal() -> None:
    assert runtime.signal_behind(_numba_wrapped(ValueError("x"))) is None
    assert runtime.signal_behind(ValueError("x")) is None


def _worker_started(hostname: str, at: object) -> None:
    from annotate.services.workers import worker_heartbeat_beat

    worker_heartbeat_beat(hostname=hostname, pid=7, started_at=at)


def test_a_job_left_running_by_a_worker_that_restarted_runs_again_from_its_message(
    job: Job,
) -> None:
    from datetime import timedelta

    job.refresh_from_db()
    _worker_started("celery@a", job.started_at + timedelta(seconds=30))  # after the claim
    assert runtime.job_run(job_id=job.pk, worker="celery@a") == Job.Status.SUCCEEDED
    job.refresh_from_db()
    assert job.attempts == 2


def test_a_job_its_worker_still_runs_is_not_taken_over(job: Job) -> None:
    from datetime import timedelta

    job.refresh_from_db()
    _worker_started("celery@a", job.started_at - timedelta(seconds=30))  # before the claim
    assert runtime.job_run(job_id=job.pk, worker="celery@a") == Job.Status.RUNNING
    job.refresh_from_db()
    assert job.attempts == 1


def test_a_deferred_job_is_not_taken_over(job: Job) -> None:
    from datetime import timedelta

    Job.objects.filter(pk=job.pk).update(deferred=True)
    job.refresh_from_db()
    _worker_started("celery@a", job.started_at + timedelta(seconds=30))
    assert runtime.job_run(job_id=job.pk, worker="celery@a") == Job.Status.RUNNING
