"""The job life cycle: claim once, report progress, finish or fail, never stay "running"."""

from __future__ import annotations

from datetime import timedelta
from types import SimpleNamespace
from typing import Any

import pytest
from django.db import OperationalError
from django.utils import timezone

from annotate import job_chunks
from annotate import jobs_runtime as runtime
from annotate.models import Corpus, Job, JobChunk, WorkerHeartbeat
from annotate.services import jobs
from annotate.services.corpora import corpus_import_records
from annotate.services.stats import corpus_stats_run
from annotate.services.workers import worker_heartbeat_beat
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
        job = corpus_stats_run.create(corpus=corpus, seed=seed)
    assert len(callbacks) == 1, "the task is enqueued once, after commit"
    return job


def test_it_runs_corpus_statistics_to_completion(
    corpus_name: str, django_capture_on_commit_callbacks
) -> None:
    job = stats_job(corpus_name, django_capture_on_commit_callbacks)
    assert runtime.job_run(job_id=job.pk, worker="w1") == Job.Status.SUCCEEDED
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
    assert runtime.job_claim(job_id=job.pk, worker="w1")
    assert not runtime.job_claim(job_id=job.pk, worker="w2")
    assert runtime.job_run(job_id=job.pk, worker="w2") == Job.Status.RUNNING
    job.refresh_from_db()
    assert job.worker == "w1"


def test_an_unknown_kind_is_refused_naming_the_known_ones() -> None:
    with pytest.raises(runtime.UnknownJobKind, match="corpus_stats, export"):
        runtime.job_task_of("no_such_job")


def test_every_kind_of_job_is_a_celery_task_named_after_it() -> None:
    from config.celery import app

    assert set(runtime.job_kinds()) >= {"corpus_stats", "prefill", "agreement_report", "export"}
    for kind in runtime.job_kinds():
        task = runtime.job_task_of(kind)
        assert task.kind == kind
        assert task == app.tasks[f"annotate.job.{kind}"]
        assert task.acks_late and task.ignore_result


def test_the_apps_start_alone_registers_every_kind_the_code_defines() -> None:
    """A worker or web process knows every kind once Django is set up, before anything else
    imports a service (a kind whose module the app's ready() misses could not be re-sent)."""
    import json
    import re
    import subprocess
    import sys

    from tests.paths import ROOT

    defined = set()
    for path in (ROOT / "annotate").rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        for literal, constant in re.findall(r'@job_task\(kind=(?:"(\w+)"|([A-Z_]+)\b)', text):
            if constant:  # a module constant: NAME = "kind"
                literal = re.search(rf'^{constant} = "(\w+)"', text, re.MULTILINE).group(1)
            defined.add(literal)
    script = (
        "import django, json; django.setup(); "
        "from annotate.jobs_runtime import job_kinds; print(json.dumps(job_kinds()))"
    )
    out = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    assert set(json.loads(out.splitlines()[-1])) == defined
    assert {"corpus_stats", "prefill", "agreement_report", "export"} <= defined


def test_a_task_claims_only_jobs_of_its_own_kind(
    corpus_name: str, django_capture_on_commit_callbacks
) -> None:
    from annotate.services.exports import export_run

    job = stats_job(corpus_name, django_capture_on_commit_callbacks)
    assert export_run.execute(job_id=job.pk, worker="w") == Job.Status.PENDING
    assert corpus_stats_run.execute(job_id=job.pk, worker="w") == Job.Status.SUCCEEDED


def test_a_runner_error_marks_the_job_failed_with_its_message(
    monkeypatch: pytest.MonkeyPatch, corpus_name: str, django_capture_on_commit_callbacks
) -> None:
    def broken(job: Job, progress: Any) -> dict[str, Any]:
        progress(40, "half way")
        raise ZeroDivisionError("boom")

    monkeypatch.setattr(corpus_stats_run, "runner", broken)
    job = stats_job(corpus_name, django_capture_on_commit_callbacks)
    assert runtime.job_run(job_id=job.pk, worker="w1") == Job.Status.FAILED
    job.refresh_from_db()
    assert job.status == "failed" and job.finished_at is not None
    assert "ZeroDivisionError: boom" in job.error
    assert "Traceback" not in job.error


def test_a_job_whose_worker_stopped_is_marked_failed_with_the_reason(
    corpus_name: str, django_capture_on_commit_callbacks, settings
) -> None:
    settings.JOB_HEARTBEAT_TIMEOUT_SECONDS = 60
    job = stats_job(corpus_name, django_capture_on_commit_callbacks)
    runtime.job_claim(job_id=job.pk, worker="dead-worker")
    fresh = stats_job(corpus_name, django_capture_on_commit_callbacks, seed=1)  # not a repeat
    runtime.job_claim(job_id=fresh.pk, worker="live-worker")
    Job.objects.filter(pk=job.pk).update(heartbeat_at=timezone.now() - timedelta(seconds=61))

    assert jobs.jobs_reap_stale() == 1
    job.refresh_from_db()
    fresh.refresh_from_db()
    assert job.status == "failed"
    assert "dead-worker stopped responding" in job.error
    assert fresh.status == "running"


def test_a_job_handed_to_its_canvas_is_marked_deferred_and_stays_running(
    monkeypatch: pytest.MonkeyPatch, corpus_name: str, django_capture_on_commit_callbacks
) -> None:
    monkeypatch.setattr(corpus_stats_run, "runner", lambda job, progress: runtime.DEFERRED)
    job = stats_job(corpus_name, django_capture_on_commit_callbacks)
    assert runtime.job_run(job_id=job.pk, worker="w") == Job.Status.RUNNING
    job.refresh_from_db()
    assert job.status == "running" and job.deferred


def test_a_deferred_job_waiting_in_the_queue_is_not_reaped_while_a_worker_lives(
    corpus_name: str, django_capture_on_commit_callbacks, settings
) -> None:
    """An agreement report whose chunks are done waits for its chord's callback, queued behind
    other jobs' work: no task of it beats, yet nothing is wrong while a worker will take it."""
    settings.JOB_HEARTBEAT_TIMEOUT_SECONDS = 60
    settings.JOB_DEFERRED_TIMEOUT_SECONDS = 3600
    job = stats_job(corpus_name, django_capture_on_commit_callbacks)
    runtime.job_claim(job_id=job.pk, worker="w1@host")
    now = timezone.now()
    Job.objects.filter(pk=job.pk).update(deferred=True, heartbeat_at=now - timedelta(minutes=10))
    WorkerHeartbeat.objects.create(hostname="w1@host", pid=1, started_at=now, beat_at=now)

    assert jobs.jobs_reap_stale(now=now) == 0
    assert Job.objects.get(pk=job.pk).status == "running"
    WorkerHeartbeat.objects.update(beat_at=now + timedelta(hours=2))  # alive all along
    assert jobs.jobs_reap_stale(now=now + timedelta(hours=2)) == 1, "past the deferred bound"
    assert Job.objects.get(pk=job.pk).status == "failed"


def test_a_deferred_job_waits_while_no_worker_takes_its_tasks_queue(
    corpus_name: str, django_capture_on_commit_callbacks, settings
) -> None:
    """Every worker stopped (``serve_demo`` stopped with Ctrl-C for longer than the heartbeat
    timeout, then started again: its web server reaps before the workers are up), only the
    users' own running, or one of the default and quick queues only (``-Q celery,quick``): the
    report's chunks and callback wait in the broker, in ``CHUNK_QUEUE``, as a queued job's
    message does, so the job waits as a queued job does instead of failing."""
    settings.JOB_HEARTBEAT_TIMEOUT_SECONDS = 60
    settings.JOB_DEFERRED_TIMEOUT_SECONDS = 3600
    job = stats_job(corpus_name, django_capture_on_commit_callbacks)
    runtime.job_claim(job_id=job.pk, worker="main@host")
    now = timezone.now()
    Job.objects.filter(pk=job.pk).update(deferred=True, heartbeat_at=now - timedelta(minutes=10))
    assert jobs.jobs_reap_stale(now=now) == 0, "no worker at all"
    worker_heartbeat_beat(hostname="users@host", pid=1, started_at=now, queues=["users"])
    worker_heartbeat_beat(hostname="main@host", pid=2, started_at=now, queues=["celery", "quick"])
    assert jobs.jobs_reap_stale(now=now) == 0, "no worker of the chunks' queue"
    WorkerHeartbeat.objects.update(beat_at=now + timedelta(hours=3))
    assert jobs.jobs_reap_stale(now=now + timedelta(hours=3)) == 0, "however long"
    assert Job.objects.get(pk=job.pk).status == "running"


def test_a_deferred_job_is_judged_from_when_its_tasks_workers_started_again(
    corpus_name: str, django_capture_on_commit_callbacks, settings
) -> None:
    """The workers were stopped for longer than the deferred bound (overnight): started again,
    they take the report's chunks from the queue, and the job fails only if no chunk of it
    beats within the bound from their start (its tasks were lost with a worker)."""
    settings.JOB_HEARTBEAT_TIMEOUT_SECONDS = 60
    settings.JOB_DEFERRED_TIMEOUT_SECONDS = 3600
    job = stats_job(corpus_name, django_capture_on_commit_callbacks)
    runtime.job_claim(job_id=job.pk, worker="main@host")
    now = timezone.now()
    Job.objects.filter(pk=job.pk).update(deferred=True, heartbeat_at=now - timedelta(hours=10))
    queues = [settings.CHUNK_QUEUE, "celery"]
    worker_heartbeat_beat(hostname="main@host", pid=1, started_at=now, queues=queues)
    assert jobs.jobs_reap_stale(now=now) == 0
    assert Job.objects.get(pk=job.pk).status == "running"

    later = now + timedelta(seconds=3601)
    WorkerHeartbeat.objects.update(beat_at=later)  # the same worker, alive all along
    assert jobs.jobs_reap_stale(now=later) == 1, "past the deferred bound from its start"
    assert "main@host stopped responding" in Job.objects.get(pk=job.pk).error


def test_a_deferred_job_a_worker_alive_all_along_never_took_up_is_reaped_at_the_bound(
    corpus_name: str, django_capture_on_commit_callbacks, settings
) -> None:
    """Another worker of the chunks' queue has been alive since before the job's last beat:
    the bound counts from that beat, however recently the others started."""
    settings.JOB_HEARTBEAT_TIMEOUT_SECONDS = 60
    settings.JOB_DEFERRED_TIMEOUT_SECONDS = 3600
    job = stats_job(corpus_name, django_capture_on_commit_callbacks)
    runtime.job_claim(job_id=job.pk, worker="main@host")
    now = timezone.now()
    Job.objects.filter(pk=job.pk).update(deferred=True, heartbeat_at=now - timedelta(hours=2))
    queues = [settings.CHUNK_QUEUE]
    long_ago = now - timedelta(days=2)
    worker_heartbeat_beat(hostname="other@host", pid=1, started_at=long_ago, queues=queues)
    worker_heartbeat_beat(hostname="main@host", pid=2, started_at=now, queues=queues)
    assert jobs.jobs_reap_stale(now=now) == 1


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

    monkeypatch.setattr(corpus_stats_run, "runner", slow)
    job = stats_job(corpus_name, django_capture_on_commit_callbacks)
    assert runtime.job_run(job_id=job.pk, worker="w") == Job.Status.CANCELLED
    assert seen == [10]


def test_a_report_held_back_raises_once_a_heartbeat_found_the_job_cancelled(
    corpus_name: str, django_capture_on_commit_callbacks
) -> None:
    """A runner reporting often has most reports held back (one write per half second); the
    heartbeat that finds the job cancelled makes the next one stop it all the same."""
    job = stats_job(corpus_name, django_capture_on_commit_callbacks)
    runtime.job_claim(job_id=job.pk, worker="w")
    progress = runtime.ThrottledProgress(job.pk)
    progress(10, "written")
    jobs.job_cancel(job=job)
    progress.beat()
    with pytest.raises(runtime.JobCancelled):
        progress(11, "held back, but the job is cancelled")


def test_a_runner_that_hands_its_job_to_a_canvas_leaves_its_last_report_shown(
    monkeypatch: pytest.MonkeyPatch, corpus_name: str, django_capture_on_commit_callbacks
) -> None:
    """An agreement report's "Monte Carlo in N chunks" comes a moment after "fitting edit
    models": held back, it must still be written, or the first message shows for minutes."""

    def deferring(job: Job, progress: Any) -> Any:
        progress(2, "fitting")
        progress(5, "handed to the canvas")
        return runtime.DEFERRED

    monkeypatch.setattr(corpus_stats_run, "runner", deferring)
    job = stats_job(corpus_name, django_capture_on_commit_callbacks)
    assert runtime.job_run(job_id=job.pk, worker="w") == Job.Status.RUNNING
    job.refresh_from_db()
    assert (job.progress, job.message) == (5, "handed to the canvas")


def test_a_canvas_task_s_progress_raises_once_its_job_is_cancelled(
    monkeypatch: pytest.MonkeyPatch, corpus_name: str, django_capture_on_commit_callbacks
) -> None:
    job = stats_job(corpus_name, django_capture_on_commit_callbacks)
    runtime.job_claim(job_id=job.pk, worker="w")
    monkeypatch.setattr(job_chunks, "PROGRESS_MIN_INTERVAL", 0.0)
    progress = job_chunks.CanvasProgress(job.pk)
    progress("monte_carlo", 1, 10)
    jobs.job_cancel(job=job)
    with pytest.raises(runtime.JobCancelled):
        progress("monte_carlo", 1, 10)
    assert Job.objects.get(pk=job.pk).progress == 0, "a canvas task's progress writes nothing"


@pytest.mark.parametrize("stop", [SystemExit, KeyboardInterrupt])
def test_a_job_whose_worker_stops_mid_run_goes_back_to_pending(
    monkeypatch: pytest.MonkeyPatch,
    corpus_name: str,
    django_capture_on_commit_callbacks,
    stop: type[BaseException],
) -> None:
    """A SIGTERM reaching a pool process raises SystemExit in its task: Celery puts the
    message back in the queue, and the job must be claimable by the worker that takes it."""

    def stopped(job: Job, progress: Any) -> dict[str, Any]:
        progress(40, "halfway")
        raise stop()

    monkeypatch.setattr(corpus_stats_run, "runner", stopped)
    job = stats_job(corpus_name, django_capture_on_commit_callbacks)
    with pytest.raises(stop):
        runtime.job_run(job_id=job.pk, worker="w1")
    job.refresh_from_db()
    assert (job.status, job.progress, job.message) == ("pending", 0, runtime.RELEASED)
    assert job.sent_at is not None

    monkeypatch.undo()
    assert runtime.job_run(job_id=job.pk, worker="w2") == Job.Status.SUCCEEDED
    job.refresh_from_db()
    assert (job.worker, job.attempts) == ("w2", 2)


@pytest.mark.django_db(transaction=True)  # the heartbeat thread has its own connection
def test_the_heartbeat_advances_while_a_job_computes(monkeypatch: pytest.MonkeyPatch) -> None:
    beats: list[Any] = []

    def waiting(job: Job, progress: Any) -> dict[str, Any]:
        import time

        first = Job.objects.get(pk=job.pk).heartbeat_at
        time.sleep(0.35)
        beats.extend([first, Job.objects.get(pk=job.pk).heartbeat_at])
        return {}

    monkeypatch.setattr(corpus_stats_run, "runner", waiting)
    monkeypatch.setattr(runtime, "HEARTBEAT_INTERVAL", 0.1)
    job = Job.objects.create(kind="corpus_stats")
    assert runtime.job_run(job_id=job.pk, worker="w") == Job.Status.SUCCEEDED
    assert beats[1] > beats[0]


def flaky_stats(monkeypatch: pytest.MonkeyPatch, failures: int) -> list[int]:
    """corpus_stats whose first `failures` runs lose the database connection."""
    run = corpus_stats_run.runner
    calls: list[int] = []

    def runner(job: Job, progress: Any) -> dict[str, Any]:
        calls.append(job.pk)
        if len(calls) <= failures:
            raise OperationalError("server closed the connection unexpectedly")
        return run(job, progress)

    monkeypatch.setattr(corpus_stats_run, "runner", runner)
    return calls


def test_a_transient_database_error_puts_the_job_back_for_a_later_attempt(
    monkeypatch: pytest.MonkeyPatch, corpus_name: str, django_capture_on_commit_callbacks
) -> None:
    calls = flaky_stats(monkeypatch, failures=1)
    job = stats_job(corpus_name, django_capture_on_commit_callbacks)
    with pytest.raises(runtime.JobRetry) as retry:
        runtime.job_run(job_id=job.pk, worker="w1")
    assert retry.value.countdown == runtime.RETRY_BACKOFF_SECONDS
    job.refresh_from_db()
    assert (job.status, job.attempts) == ("pending", 1)
    assert "retrying" in job.message
    assert job.sent_at is not None, "Celery's retry is on its way: the job is not a lost one"
    assert runtime.jobs_resend_lost(workers_alive=_alive) == 0
    assert runtime.job_run(job_id=job.pk, worker="w1") == Job.Status.SUCCEEDED
    job.refresh_from_db()
    assert (job.status, job.attempts, len(calls)) == ("succeeded", 2, 2)
    assert job.result["pairs"] == 2


def test_retries_are_bounded_and_the_last_error_is_reported(
    monkeypatch: pytest.MonkeyPatch, corpus_name: str, django_capture_on_commit_callbacks
) -> None:
    flaky_stats(monkeypatch, failures=99)
    job = stats_job(corpus_name, django_capture_on_commit_callbacks)
    countdowns = []
    for _ in range(runtime.MAX_ATTEMPTS - 1):
        with pytest.raises(runtime.JobRetry) as retry:
            runtime.job_run(job_id=job.pk, worker="w1")
        countdowns.append(retry.value.countdown)
    assert countdowns == [10.0, 20.0], "the wait doubles"
    assert runtime.job_run(job_id=job.pk, worker="w1") == Job.Status.FAILED
    job.refresh_from_db()
    assert job.attempts == runtime.MAX_ATTEMPTS
    assert job.error == (
        "the database failed 3 times; last error: OperationalError: server closed the "
        "connection unexpectedly"
    )


def test_the_task_retries_through_celery_until_the_job_succeeds(
    monkeypatch: pytest.MonkeyPatch, corpus_name: str, django_capture_on_commit_callbacks
) -> None:
    monkeypatch.setattr(runtime, "RETRY_BACKOFF_SECONDS", 0.0)
    calls = flaky_stats(monkeypatch, failures=2)
    job = stats_job(corpus_name, django_capture_on_commit_callbacks)
    corpus_stats_run.apply(args=[job.pk])  # eager: Celery re-runs the task on retry
    job.refresh_from_db()
    assert (job.status, job.attempts, len(calls)) == ("succeeded", 3, 3)


def test_the_same_request_while_the_first_is_queued_or_running_returns_the_first(
    corpus_name: str, django_capture_on_commit_callbacks
) -> None:
    first = stats_job(corpus_name, django_capture_on_commit_callbacks)
    assert first.reused is False
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        again = corpus_stats_run.create(corpus=first.corpus)
    assert again.pk == first.pk and again.reused is True
    assert callbacks == [], "nothing is queued twice"
    runtime.job_claim(job_id=first.pk, worker="w")
    assert corpus_stats_run.create(corpus=first.corpus).pk == first.pk
    other = corpus_stats_run.create(corpus=first.corpus, parameters={"x": 1})
    assert other.pk != first.pk, "different parameters are a different job"
    Job.objects.filter(pk=first.pk).update(status=Job.Status.SUCCEEDED)
    assert corpus_stats_run.create(corpus=first.corpus).pk != first.pk


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
    runtime.job_claim(job_id=job.pk, worker="dead-worker")
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

    from annotate import roles
    from annotate.models import Corpus
    from tests.annotate.factories import make_user

    def down(*args, **kwargs):
        raise OperationalError("[Errno 111] Connection refused")

    monkeypatch.setattr(corpus_stats_run, "apply_async", down)
    client = APIClient()
    client.force_authenticate(make_user("admin", roles.ADMIN))
    corpus = Corpus.objects.get(name=corpus_name)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(f"/api/corpora/{corpus.pk}/stats/")
    assert response.status_code == 201, "the request succeeds while the broker is down"
    job = Job.objects.get(pk=response.json()["id"])
    assert job.status == "pending" and job.message == runtime.UNSENT
    assert runtime.jobs_send_unsent() == 0, "still down: nothing goes"

    sent = []
    monkeypatch.setattr(corpus_stats_run, "apply_async", lambda args, **kwargs: sent.append(args))
    assert runtime.jobs_send_unsent() == 1
    assert sent == [(job.pk,)]
    job.refresh_from_db()
    assert job.message == "waiting for a worker"
    assert runtime.jobs_send_unsent() == 0, "sent once"


def test_a_job_the_broker_refuses_waits_to_be_sent_again_and_the_request_succeeds(
    corpus_name: str, django_capture_on_commit_callbacks, monkeypatch
) -> None:
    """RabbitMQ answering with a channel error (its user's permissions gone, say): not a
    connection error, yet the job is stored and must not be a server error nor wait unsent."""
    from amqp.exceptions import AccessRefused
    from rest_framework.test import APIClient

    from annotate import roles
    from annotate.models import Corpus
    from tests.annotate.factories import make_user

    def refused(*args, **kwargs):
        raise AccessRefused("Basic.publish: (403) ACCESS_REFUSED - access to exchange refused")

    monkeypatch.setattr(corpus_stats_run, "apply_async", refused)
    client = APIClient()
    client.force_authenticate(make_user("admin", roles.ADMIN))
    corpus = Corpus.objects.get(name=corpus_name)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(f"/api/corpora/{corpus.pk}/stats/")
    assert response.status_code == 201
    job = Job.objects.get(pk=response.json()["id"])
    assert job.status == "pending" and job.message == runtime.UNSENT
    monkeypatch.setattr(corpus_stats_run, "apply_async", lambda args, **kwargs: None)
    assert runtime.jobs_send_unsent() == 1


def test_an_unsent_job_of_a_kind_no_task_runs_fails_with_the_reason(
    corpus_name: str, django_capture_on_commit_callbacks
) -> None:
    job = stats_job(corpus_name, django_capture_on_commit_callbacks)
    Job.objects.filter(pk=job.pk).update(kind="retired_kind", message=runtime.UNSENT)
    assert runtime.jobs_send_unsent() == 0
    job.refresh_from_db()
    assert job.status == "failed"
    assert job.error.startswith("unknown job kind 'retired_kind'; known kinds: ")


def _alive() -> bool:
    return True


def _gone() -> bool:
    return False


@pytest.fixture
def sent(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """The messages the stats task hands to the broker (none really goes)."""
    messages: list[Any] = []
    monkeypatch.setattr(
        corpus_stats_run, "apply_async", lambda args, **kwargs: messages.append(args)
    )
    return messages


def sent_stats_job(corpus_name: str, capture) -> Job:
    with capture(execute=True):
        job = corpus_stats_run.create(corpus=Corpus.objects.get(name=corpus_name))
    job.refresh_from_db()
    return job


def test_a_job_whose_message_was_lost_is_sent_again_while_a_worker_is_alive(
    corpus_name: str, django_capture_on_commit_callbacks, sent, settings
) -> None:
    settings.JOB_RESEND_SECONDS = 600
    job = sent_stats_job(corpus_name, django_capture_on_commit_callbacks)
    assert sent == [(job.pk,)] and job.sent_at is not None
    later = job.sent_at + timedelta(seconds=601)
    assert runtime.jobs_resend_lost(workers_alive=_alive, now=job.sent_at) == 0, "too early"
    assert runtime.jobs_resend_lost(workers_alive=_gone, now=later) == 0, "nobody to take it"
    assert runtime.jobs_resend_lost(workers_alive=_alive, now=later) == 1
    assert sent == [(job.pk,), (job.pk,)]
    job.refresh_from_db()
    assert job.sent_at > later - timedelta(seconds=601), "the clock starts again"

    # the two messages run the job once
    assert corpus_stats_run.execute(job_id=job.pk, worker="w1") == "succeeded"
    assert corpus_stats_run.execute(job_id=job.pk, worker="w2") == "succeeded"
    assert Job.objects.get(pk=job.pk).worker == "w1"
    assert runtime.jobs_resend_lost(workers_alive=_alive, now=later + timedelta(days=1)) == 0


def test_a_job_sent_before_the_sending_time_was_recorded_counts_from_its_creation(
    corpus_name: str, django_capture_on_commit_callbacks, sent, settings
) -> None:
    settings.JOB_RESEND_SECONDS = 600
    job = sent_stats_job(corpus_name, django_capture_on_commit_callbacks)
    Job.objects.filter(pk=job.pk).update(sent_at=None)
    assert runtime.jobs_resend_lost(workers_alive=_alive) == 0
    later = job.created_at + timedelta(seconds=601)
    assert runtime.jobs_resend_lost(workers_alive=_alive, now=later) == 1
    settings.JOB_RESEND_SECONDS = 0
    assert runtime.jobs_resend_lost(workers_alive=_alive, now=later + timedelta(days=1)) == 0


def test_beat_sends_lost_jobs_only_while_a_worker_is_alive(
    corpus_name: str, django_capture_on_commit_callbacks, sent, settings
) -> None:
    settings.JOB_RESEND_SECONDS = 1
    job = sent_stats_job(corpus_name, django_capture_on_commit_callbacks)
    Job.objects.filter(pk=job.pk).update(sent_at=timezone.now() - timedelta(seconds=5))
    jobs.jobs_maintain()
    assert len(sent) == 1, "no worker alive: the message is not repeated"
    now = timezone.now()
    WorkerHeartbeat.objects.create(hostname="w1@host", pid=1, started_at=now, beat_at=now)
    jobs.jobs_maintain()
    assert len(sent) == 2


@pytest.mark.django_db(transaction=True)  # the heartbeat thread has its own connection
def test_a_report_held_back_shows_at_the_next_heartbeat_while_the_job_computes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A step reported right after another (within the throttle's interval) and followed by a
    long computation without reports, such as compiling numba kernels, is shown meanwhile."""
    shown: list[tuple[int, str]] = []

    def compiling(job: Job, progress: Any) -> dict[str, Any]:
        import time

        progress(1, "reading the pairs")
        progress(2, "compiling the kernels")  # too soon after the first: held back
        time.sleep(0.4)
        shown.append(Job.objects.values_list("progress", "message").get(pk=job.pk))
        return {}

    monkeypatch.setattr(corpus_stats_run, "runner", compiling)
    monkeypatch.setattr(runtime, "HEARTBEAT_INTERVAL", 0.1)
    job = Job.objects.create(kind="corpus_stats")
    assert runtime.job_run(job_id=job.pk, worker="w") == Job.Status.SUCCEEDED
    assert shown == [(2, "compiling the kernels")]


@pytest.mark.django_db(transaction=True)
def test_a_held_report_never_overwrites_a_later_one(monkeypatch: pytest.MonkeyPatch) -> None:
    job = Job.objects.create(kind="corpus_stats", status=Job.Status.RUNNING)
    progress = runtime.ThrottledProgress(job.pk)
    progress(1, "first")
    progress(2, "held back")
    monkeypatch.setattr(runtime, "PROGRESS_MIN_INTERVAL", 0.0)
    progress(3, "later")
    progress.beat()
    assert Job.objects.values_list("progress", "message").get(pk=job.pk) == (3, "later")


def test_a_deferred_job_whose_chunk_died_with_its_worker_is_failed_at_the_heartbeat_timeout(
    corpus_name: str, django_capture_on_commit_callbacks, settings
) -> None:
    """``kill -9`` of a worker's main process (or a machine lost) while a chunk computes: no
    supervisor sees it, and on Redis the chunk's message waits unacknowledged for the
    visibility timeout, hours, while other live workers serve the chunks' queue. The chunk
    is still marked computing, so the job fails once its heartbeat is stale, saying so,
    instead of showing "running" until the deferred bound."""
    settings.JOB_HEARTBEAT_TIMEOUT_SECONDS = 60
    settings.JOB_DEFERRED_TIMEOUT_SECONDS = 3600
    job = stats_job(corpus_name, django_capture_on_commit_callbacks)
    runtime.job_claim(job_id=job.pk, worker="main@host")
    Job.objects.filter(pk=job.pk).update(deferred=True)
    with job_chunks.ChunkComputing(job.pk, 7, "chunks@host"):
        pass
    assert not JobChunk.objects.exists(), "a chunk that ends is no longer marked"
    job_chunks.ChunkComputing(job.pk, 7, "chunks@host").__enter__()  # killed: never exits
    now = timezone.now()
    worker_heartbeat_beat(hostname="main@host", pid=1, started_at=now, queues=["chunks"])

    assert jobs.jobs_reap_stale(now=now) == 0, "the chunk's start beat the job"
    later = now + timedelta(seconds=61)
    WorkerHeartbeat.objects.update(beat_at=later)  # another worker of the queue, alive
    assert jobs.jobs_reap_stale(now=later) == 1
    failed = Job.objects.get(pk=job.pk)
    assert failed.status == "failed"
    assert "chunks@host stopped while computing a chunk" in failed.error
    assert not JobChunk.objects.exists()


def test_the_marks_of_chunks_of_jobs_that_ended_otherwise_go_at_the_next_reap(
    corpus_name: str, django_capture_on_commit_callbacks
) -> None:
    job = stats_job(corpus_name, django_capture_on_commit_callbacks)
    runtime.job_claim(job_id=job.pk, worker="main@host")
    job_chunks.ChunkComputing(job.pk, 7, "chunks@host").__enter__()  # killed: never exits
    jobs.jobs_reap_stale()
    assert JobChunk.objects.count() == 1, "its job still runs"
    jobs.job_cancel(job=job)
    jobs.jobs_reap_stale()
    assert not JobChunk.objects.exists()


def test_a_chunk_whose_pool_process_died_is_no_longer_marked_and_waits_to_run_again(
    corpus_name: str, django_capture_on_commit_callbacks, settings, monkeypatch
) -> None:
    """The worker's main process saw the pool process die and put the chunk's message back
    in the queue: the job waits for it as for any queued chunk."""
    from billiard.einfo import ExceptionInfo
    from billiard.exceptions import WorkerLostError

    from annotate.services.agreement import agreement_chunk

    assert agreement_chunk.Request is job_chunks.ChunkRequest
    settings.JOB_HEARTBEAT_TIMEOUT_SECONDS = 60
    settings.JOB_DEFERRED_TIMEOUT_SECONDS = 3600
    job = stats_job(corpus_name, django_capture_on_commit_callbacks)
    runtime.job_claim(job_id=job.pk, worker="main@host")
    Job.objects.filter(pk=job.pk).update(deferred=True)
    job_chunks.ChunkComputing(job.pk, 7, "main@host").__enter__()
    request = job_chunks.ChunkRequest.__new__(job_chunks.ChunkRequest)
    request._args = [job.pk, [7, 8], {}, 1.0]  # what the chunk's message carries
    try:
        raise WorkerLostError("Worker exited prematurely: signal 9 (SIGKILL) Job: 3.")
    except WorkerLostError:
        info = ExceptionInfo()
    monkeypatch.setattr(runtime.Request, "on_failure", lambda self, *args, **kwargs: None)
    # The worker's main process closes its connection afterwards; here that would close the
    # test's transaction (PostgreSQL: "the connection is closed").
    monkeypatch.setattr(runtime, "connection", SimpleNamespace(close=lambda: None))
    request.on_failure(info)
    assert not JobChunk.objects.exists()
    later = timezone.now() + timedelta(seconds=61)
    worker_heartbeat_beat(hostname="main@host", pid=1, started_at=later, queues=["chunks"])
    assert jobs.jobs_reap_stale(now=later) == 0
    assert Job.objects.get(pk=job.pk).status == "running"
