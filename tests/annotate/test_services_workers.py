"""Workers' heartbeats: written while a worker runs, removed when it stops, and read to tell
whether any worker is alive."""

from __future__ import annotations

import time
from datetime import timedelta
from typing import Any

import pytest
from django.db import OperationalError, connection
from django.utils import timezone

from annotate.models import Job, WorkerHeartbeat
from annotate.selectors.workers import (
    any_worker_alive,
    served_queues,
    this_broker,
    workers_alive,
)
from annotate.services.workers import (
    WorkerHeartbeatThread,
    worker_died,
    worker_heartbeat_beat,
    worker_heartbeat_clear,
    worker_heartbeats_forget,
)

pytestmark = [pytest.mark.django_db, pytest.mark.postgres]


def test_a_worker_counts_as_alive_from_its_heartbeat_until_it_goes_quiet(settings: Any) -> None:
    assert not any_worker_alive()
    started = timezone.now()
    worker_heartbeat_beat(hostname="celery@a", pid=11, started_at=started)
    beat_at = WorkerHeartbeat.objects.get(hostname="celery@a").beat_at
    assert any_worker_alive(now=beat_at + timedelta(seconds=settings.WORKER_ALIVE_SECONDS))
    assert not any_worker_alive(now=beat_at + timedelta(seconds=settings.WORKER_ALIVE_SECONDS + 1))


def test_each_worker_keeps_one_row_however_often_it_beats() -> None:
    started = timezone.now()
    for _ in range(3):
        worker_heartbeat_beat(hostname="celery@a", pid=11, started_at=started)
    worker_heartbeat_beat(hostname="celery@b", pid=12, started_at=started)
    assert sorted(workers_alive().values_list("hostname", "pid")) == [
        ("celery@a", 11),
        ("celery@b", 12),
    ]


def test_a_stopping_worker_removes_its_own_row_not_that_of_its_successor() -> None:
    started = timezone.now()
    worker_heartbeat_beat(hostname="celery@a", pid=11, started_at=started)
    worker_heartbeat_beat(hostname="celery@a", pid=12, started_at=started)  # restarted
    assert worker_heartbeat_clear(hostname="celery@a", pid=11) == 0
    assert any_worker_alive()
    assert worker_heartbeat_clear(pid=12) == 1
    assert not any_worker_alive()


def test_clearing_without_naming_a_worker_is_refused() -> None:
    with pytest.raises(ValueError, match="which worker"):
        worker_heartbeat_clear()


def test_rows_of_workers_gone_for_a_day_are_forgotten() -> None:
    now = timezone.now()
    worker_heartbeat_beat(hostname="celery@old", pid=1, started_at=now)
    worker_heartbeat_beat(hostname="celery@new", pid=2, started_at=now)
    WorkerHeartbeat.objects.filter(hostname="celery@old").update(
        beat_at=now - timedelta(days=1, seconds=1)
    )
    assert worker_heartbeats_forget(now=now) == 1
    assert list(WorkerHeartbeat.objects.values_list("hostname", flat=True)) == ["celery@new"]


@pytest.mark.django_db(transaction=True)  # the thread has its own connection
def test_the_heartbeat_thread_beats_until_stopped_then_removes_the_row(settings: Any) -> None:
    settings.WORKER_HEARTBEAT_SECONDS = 0.2
    thread = WorkerHeartbeatThread.start_for(
        hostname="celery@t", queues=["quick", "celery"], broker=this_broker()
    )
    try:
        assert WorkerHeartbeatThread.start_for(hostname="celery@t") is thread, "one per worker"
        deadline = time.monotonic() + 10
        beats: set[Any] = set()
        while len(beats) < 3 and time.monotonic() < deadline:
            try:
                beats |= set(WorkerHeartbeat.objects.values_list("beat_at", flat=True))
            except OperationalError:
                # The unit tests' in-memory SQLite shares one cache between connections,
                # where a read meeting the thread's write fails at once instead of waiting.
                assert connection.vendor == "sqlite"
            time.sleep(0.05)
        assert len(beats) >= 3, "the row is written again and again"
        assert any_worker_alive()
        assert served_queues() == {"celery", "quick"}, "with the queues it takes jobs from"
        assert WorkerHeartbeat.objects.get().broker == this_broker(), "and their broker"
    finally:
        WorkerHeartbeatThread.stop_for(hostname="celery@t")
    assert not thread.is_alive()
    assert not WorkerHeartbeat.objects.exists()
    assert not any_worker_alive()


def test_a_dead_workers_running_jobs_fail_at_once_and_no_other_job_changes() -> None:
    started = timezone.now()
    worker_heartbeat_beat(hostname="celery@a", pid=11, started_at=started)
    worker_heartbeat_beat(hostname="quick@a", pid=12, started_at=started)
    running = Job.objects.create(
        kind="export", status=Job.Status.RUNNING, worker="celery@a", heartbeat_at=started
    )
    deferred = Job.objects.create(
        kind="agreement",
        status=Job.Status.RUNNING,
        worker="celery@a",
        heartbeat_at=started,
        deferred=True,
    )
    other = Job.objects.create(
        kind="export", status=Job.Status.RUNNING, worker="quick@a", heartbeat_at=started
    )
    pending = Job.objects.create(kind="export", status=Job.Status.PENDING)

    assert worker_died(pid=11, reason="killed by signal 9 (SIGKILL)") == 2

    for job in (running, deferred):
        job.refresh_from_db()
        assert job.status == Job.Status.FAILED and job.finished_at is not None
        assert job.error == (
            "the worker celery@a ended (killed by signal 9 (SIGKILL)) while running the job; "
            "start it again"
        )
    other.refresh_from_db()
    pending.refresh_from_db()
    assert (other.status, pending.status) == (Job.Status.RUNNING, Job.Status.PENDING)
    assert list(workers_alive().values_list("hostname", flat=True)) == ["quick@a"]


def test_a_worker_dead_before_its_first_beat_fails_nothing() -> None:
    job = Job.objects.create(kind="export", status=Job.Status.RUNNING, worker="celery@a")
    assert worker_died(pid=11, reason="exited with status 1") == 0
    job.refresh_from_db()
    assert job.status == Job.Status.RUNNING
