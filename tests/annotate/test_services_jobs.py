"""The job life cycle: claim once, report progress, finish or fail, never stay "running"."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.db import OperationalError
from django.utils import timezone

from annotate.models import Job
from annotate.services import jobs
from annotate.services.corpora import corpus_import_records
from tests.annotate.records import make_record

pytestmark = [pytest.mark.django_db, pytest.mark.postgres]


@pytest.fixture
def corpus_name() -> str:
    corpus_import_records(
        corpus_name="c",
        records=[
            make_record("a", annotations={"ann1": "1-1", "ann2": "1-1 0?0"}),
            make_record("b", subcorpus="mtc", split="test"),
        ],
    )
    return "c"


def stats_job(corpus_name: str, capture, seed: int | None = None) -> Job:
    from annotate.models import Corpus

    with capture(execute=False) as callbacks:
        corpus = Corpus.objects.get(name=corpus_name)
        job = jobs.job_create(kind="corpus_stats", corpus=corpus, seed=seed)
    assert len(callbacks) == 1, "the task is enqueued once, after commit"
    return job


def test_it_runs_corpus_statistics_to_completion(
    corpus_name: str, django_capture_on_commit_callbacks
) -> None:
    job = stats_job(corpus_name, django_capture_on_commit_callbacks)
    assert jobs.job_run(job_id=job.pk, worker="w1") == Job.Status.SUCCEEDED
    job.refresh_from_db()
    assert (job.status, job.progress, job.worker, job.attempts) == ("succeeded", 100, "w1", 1)
    assert job.result["pairs"] == 2
    assert job.result["subcorpora"]["news"]["pairs"] == 1
    assert job.result["subcorpora"]["mtc"]["splits"] == {"test": 1}
    assert job.result["multiply_annotated_pairs"] == 1
    assert job.result["annotation_links"] == {"sure": 2, "possible_only": 1}
    assert job.corpus.stats == job.result


def test_a_job_is_claimed_only_once(corpus_name: str, django_capture_on_commit_callbacks) -> None:
    job = stats_job(corpus_name, django_capture_on_commit_callbacks)
    assert jobs.job_claim(job_id=job.pk, worker="w1")
    assert not jobs.job_claim(job_id=job.pk, worker="w2")
    assert jobs.job_run(job_id=job.pk, worker="w2") == Job.Status.RUNNING
    job.refresh_from_db()
    assert job.worker == "w1"


def test_an_unknown_kind_is_refused_before_anything_is_stored() -> None:
    with pytest.raises(jobs.UnknownJobKind, match="corpus_stats"):
        jobs.job_create(kind="no_such_job")
    assert not Job.objects.exists()


def test_a_runner_error_marks_the_job_failed_with_its_message(
    monkeypatch: pytest.MonkeyPatch, corpus_name: str, django_capture_on_commit_callbacks
) -> None:
    def broken(job: Job, progress: Any) -> dict[str, Any]:
        progress(40, "half way")
        raise ZeroDivisionError("boom")

    monkeypatch.setattr("annotate.services.stats.corpus_stats_run", broken)
    job = stats_job(corpus_name, django_capture_on_commit_callbacks)
    assert jobs.job_run(job_id=job.pk, worker="w1") == Job.Status.FAILED
    job.refresh_from_db()
    assert job.status == "failed" and job.finished_at is not None
    assert "ZeroDivisionError: boom" in job.error
    assert "Traceback" not in job.error


def test_a_job_whose_worker_stopped_is_marked_failed_with_the_reason(
    corpus_name: str, django_capture_on_commit_callbacks, settings
) -> None:
    settings.JOB_HEARTBEAT_TIMEOUT_SECONDS = 60
    job = stats_job(corpus_name, django_capture_on_commit_callbacks)
    jobs.job_claim(job_id=job.pk, worker="dead-worker")
    fresh = stats_job(corpus_name, django_capture_on_commit_callbacks, seed=1)  # not a repeat
    jobs.job_claim(job_id=fresh.pk, worker="live-worker")
    Job.objects.filter(pk=job.pk).update(heartbeat_at=timezone.now() - timedelta(seconds=61))

    assert jobs.jobs_reap_stale() == 1
    job.refresh_from_db()
    fresh.refresh_from_db()
    assert job.status == "failed"
    assert "dead-worker stopped responding" in job.error
    assert fresh.status == "running"


def test_a_cancelled_job_stops_at_its_next_progress_report(
    monkeypatch: pytest.MonkeyPatch, corpus_name: str, django_capture_on_commit_callbacks
) -> None:
    seen: list[float] = []

    def slow(job: Job, progress: Any) -> dict[str, Any]:
        progress(10, "first")
        seen.append(10)
        jobs.job_cancel(job=job)
        progress(100, "second")
        seen.append(100)
        return {}

    monkeypatch.setattr("annotate.services.stats.corpus_stats_run", slow)
    job = stats_job(corpus_name, django_capture_on_commit_callbacks)
    assert jobs.job_run(job_id=job.pk, worker="w") == Job.Status.CANCELLED
    assert seen == [10]


@pytest.mark.django_db(transaction=True)  # the heartbeat thread has its own connection
def test_the_heartbeat_advances_while_a_job_computes(monkeypatch: pytest.MonkeyPatch) -> None:
    beats: list[Any] = []

    def waiting(job: Job, progress: Any) -> dict[str, Any]:
        import time

        first = Job.objects.get(pk=job.pk).heartbeat_at
        time.sleep(0.35)
        beats.extend([first, Job.objects.get(pk=job.pk).heartbeat_at])
        return {}

    monkeypatch.setattr("annotate.services.stats.corpus_stats_run", waiting)
    monkeypatch.setattr(jobs, "HEARTBEAT_INTERVAL", 0.1)
    job = Job.objects.create(kind="corpus_stats")
    assert jobs.job_run(job_id=job.pk, worker="w") == Job.Status.SUCCEEDED
    assert beats[1] > beats[0]


def flaky_stats(monkeypatch: pytest.MonkeyPatch, failures: int) -> list[int]:
    """corpus_stats whose first `failures` runs lose the database connection."""
    from annotate.services.stats import corpus_stats_run

    calls: list[int] = []

    def runner(job: Job, progress: Any) -> dict[str, Any]:
        calls.append(job.pk)
        if len(calls) <= failures:
            raise OperationalError("server closed the connection unexpectedly")
        return corpus_stats_run(job, progress)

    monkeypatch.setattr("annotate.services.stats.corpus_stats_run", runner)
    return calls


def test_a_transient_database_error_puts_the_job_back_for_a_later_attempt(
    monkeypatch: pytest.MonkeyPatch, corpus_name: str, django_capture_on_commit_callbacks
) -> None:
    calls = flaky_stats(monkeypatch, failures=1)
    job = stats_job(corpus_name, django_capture_on_commit_callbacks)
    with pytest.raises(jobs.JobRetry) as retry:
        jobs.job_run(job_id=job.pk, worker="w1")
    assert retry.value.countdown == jobs.RETRY_BACKOFF_SECONDS
    job.refresh_from_db()
    assert (job.status, job.attempts) == ("pending", 1)
    assert "retrying" in job.message
    assert jobs.job_run(job_id=job.pk, worker="w1") == Job.Status.SUCCEEDED
    job.refresh_from_db()
    assert (job.status, job.attempts, len(calls)) == ("succeeded", 2, 2)
    assert job.result["pairs"] == 2


def test_retries_are_bounded_and_the_last_error_is_reported(
    monkeypatch: pytest.MonkeyPatch, corpus_name: str, django_capture_on_commit_callbacks
) -> None:
    flaky_stats(monkeypatch, failures=99)
    job = stats_job(corpus_name, django_capture_on_commit_callbacks)
    countdowns = []
    for _ in range(jobs.MAX_ATTEMPTS - 1):
        with pytest.raises(jobs.JobRetry) as retry:
            jobs.job_run(job_id=job.pk, worker="w1")
        countdowns.append(retry.value.countdown)
    assert countdowns == [10.0, 20.0], "the wait doubles"
    assert jobs.job_run(job_id=job.pk, worker="w1") == Job.Status.FAILED
    job.refresh_from_db()
    assert job.attempts == jobs.MAX_ATTEMPTS
    assert job.error == (
        "the database failed 3 times; last error: OperationalError: server closed the "
        "connection unexpectedly"
    )


def test_the_task_retries_through_celery_until_the_job_succeeds(
    monkeypatch: pytest.MonkeyPatch, corpus_name: str, django_capture_on_commit_callbacks
) -> None:
    from annotate.tasks import run_job

    monkeypatch.setattr(jobs, "RETRY_BACKOFF_SECONDS", 0.0)
    calls = flaky_stats(monkeypatch, failures=2)
    job = stats_job(corpus_name, django_capture_on_commit_callbacks)
    run_job.apply(args=[job.pk])  # eager: Celery re-runs the task on retry
    job.refresh_from_db()
    assert (job.status, job.attempts, len(calls)) == ("succeeded", 3, 3)


def test_the_same_request_while_the_first_is_queued_or_running_returns_the_first(
    corpus_name: str, django_capture_on_commit_callbacks
) -> None:
    first = stats_job(corpus_name, django_capture_on_commit_callbacks)
    assert first.reused is False
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        again = jobs.job_create(kind="corpus_stats", corpus=first.corpus)
    assert again.pk == first.pk and again.reused is True
    assert callbacks == [], "nothing is queued twice"
    jobs.job_claim(job_id=first.pk, worker="w")
    assert jobs.job_create(kind="corpus_stats", corpus=first.corpus).pk == first.pk
    other = jobs.job_create(kind="corpus_stats", corpus=first.corpus, parameters={"x": 1})
    assert other.pk != first.pk, "different parameters are a different job"
    Job.objects.filter(pk=first.pk).update(status=Job.Status.SUCCEEDED)
    assert jobs.job_create(kind="corpus_stats", corpus=first.corpus).pk != first.pk


def test_reading_the_jobs_marks_those_of_dead_workers_failed_without_any_worker(
    corpus_name: str, django_capture_on_commit_callbacks, settings
) -> None:
    from django.core.cache import cache
    from rest_framework.test import APIClient

    from annotate import roles
    from tests.annotate.factories import make_user

    cache.delete("jobs:reap-due")
    settings.JOB_HEARTBEAT_TIMEOUT_SECONDS = 60
    job = stats_job(corpus_name, django_capture_on_commit_callbacks)
    jobs.job_claim(job_id=job.pk, worker="dead-worker")
    Job.objects.filter(pk=job.pk).update(heartbeat_at=timezone.now() - timedelta(seconds=61))
    client = APIClient()
    client.force_authenticate(make_user("admin", roles.ADMIN))
    body = client.get(f"/api/jobs/{job.pk}/").json()
    assert body["status"] == "failed" and "dead-worker stopped responding" in body["error"]


def test_a_job_queued_while_the_broker_is_down_waits_and_goes_when_it_answers(
    corpus_name: str, django_capture_on_commit_callbacks, monkeypatch
) -> None:
    from kombu.exceptions import OperationalError
    from rest_framework.test import APIClient

    from annotate import queue, roles, tasks
    from annotate.models import Corpus
    from tests.annotate.factories import make_user

    def down(*args, **kwargs):
        raise OperationalError("[Errno 111] Connection refused")

    monkeypatch.setattr(tasks.run_job, "apply_async", down)
    client = APIClient()
    client.force_authenticate(make_user("admin", roles.ADMIN))
    corpus = Corpus.objects.get(name=corpus_name)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(f"/api/corpora/{corpus.pk}/stats/")
    assert response.status_code == 201, "the request succeeds while the broker is down"
    job = Job.objects.get(pk=response.json()["id"])
    assert job.status == "pending" and job.message == queue.UNSENT
    assert queue.jobs_send_unsent() == 0, "still down: nothing goes"

    sent = []
    monkeypatch.setattr(tasks.run_job, "apply_async", lambda args, **kwargs: sent.append(args))
    assert queue.jobs_send_unsent() == 1
    assert sent == [(job.pk,)]
    job.refresh_from_db()
    assert job.message == "waiting for a worker"
    assert queue.jobs_send_unsent() == 0, "sent once"
