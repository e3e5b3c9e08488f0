"""The Celery application: workers yield the CPU to the web processes and poll the embedded
broker often while they have work, seldom while idle."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any
from unittest.mock import patch

import pytest
from celery.signals import task_received
from celery.worker import state as worker_state
from django.conf import settings
from kombu import Connection
from kombu.transport import sqlalchemy as kombu_sqlalchemy
from sqlalchemy.orm import Query

from config.celery import BrokerPolling, _nice_autogroup
from config.embedded import EmbeddedChannel, EmbeddedTransport
from tests.paths import ROOT

SCRIPT = """
import os
import django
django.setup()
from config.celery import _yield_to_the_web
_yield_to_the_web()
_yield_to_the_web()  # a second signal must not lower it further
print(os.getpriority(os.PRIO_PROCESS, 0))
"""


@pytest.mark.parametrize(("setting", "target"), [(None, 10), ("4", 4), ("0", 0)])
def test_a_worker_lowers_its_priority_to_the_configured_niceness(
    setting: str | None, target: int
) -> None:
    # Never raised: a worker started niced already stays as it is.
    expected = max(target, os.getpriority(os.PRIO_PROCESS, 0))
    env = {k: v for k, v in os.environ.items() if k != "WORKER_NICE"}
    if setting is not None:
        env["WORKER_NICE"] = setting
    result = subprocess.run(
        [sys.executable, "-c", SCRIPT],
        cwd=ROOT,
        env={**env, "DJANGO_SETTINGS_MODULE": "config.settings"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert int(result.stdout.split()[-1]) == expected


AUTOGROUP_SCRIPT = """
import django
django.setup()
from config.celery import _yield_to_the_web
_yield_to_the_web()
print(open("/proc/self/autogroup").read().rsplit("nice", 1)[1].strip())
"""


def _autogroup_nice_after_worker_init(*, own_session: bool) -> int:
    result = subprocess.run(
        [sys.executable, "-c", AUTOGROUP_SCRIPT],
        cwd=ROOT,
        env={**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings", "WORKER_NICE": "10"},
        capture_output=True,
        text=True,
        timeout=60,
        start_new_session=own_session,
    )
    assert result.returncode == 0, result.stderr
    return int(result.stdout.split()[-1])


@pytest.mark.skipif(not Path("/proc/self/autogroup").exists(), reason="no autogroup scheduling")
def test_a_worker_in_a_session_of_its_own_nices_the_session_too() -> None:
    # Autogroup scheduling shares the CPU between sessions first; the process nice alone would
    # leave such a worker a whole core beside the web server's session.
    assert _autogroup_nice_after_worker_init(own_session=True) == 10


@pytest.mark.skipif(not Path("/proc/self/autogroup").exists(), reason="no autogroup scheduling")
def test_a_worker_sharing_a_session_leaves_the_session_alone() -> None:
    # Started beside the web server (``make demo``) or from a shell: niceing the session would
    # slow them as well.
    if not Path(f"/proc/{os.getsid(0)}").exists():
        pytest.skip("the leader of this test run's session has gone: the session counts as own")
    before = int(Path("/proc/self/autogroup").read_text().rsplit("nice", 1)[1])
    assert _autogroup_nice_after_worker_init(own_session=False) == before


@pytest.mark.parametrize(
    ("content", "written"),
    [("/autogroup-7 nice 0\n", "10\n"), ("/autogroup-7 nice 15\n", None), ("garbage", None)],
)
def test_the_session_nice_is_raised_never_lowered(
    tmp_path: Path, content: str, written: str | None
) -> None:
    path = tmp_path / "autogroup"
    path.write_text(content)
    _nice_autogroup(10, path)
    assert path.read_text() == (content if written is None else written)


def test_a_kernel_without_autogroups_is_no_error(tmp_path: Path) -> None:
    _nice_autogroup(10, tmp_path / "missing")


class _Timer:
    """The worker's timer, recording what is scheduled on it."""

    def __init__(self) -> None:
        self.scheduled: list[tuple[float, Any]] = []

    def call_repeatedly(self, seconds: float, fun: Any, args: tuple[Any, ...] = ()) -> Any:
        self.scheduled.append((seconds, fun))
        return SimpleNamespace(cancel=lambda: self.scheduled.clear())


class _Request:
    """Stands for a task the worker holds (its state keeps weak references)."""


def test_a_worker_on_the_embedded_broker_polls_fast_while_busy_and_slowly_when_idle(
    tmp_path: Path,
) -> None:
    connection = Connection(f"sqla+sqlite:///{tmp_path / 'broker.sqlite3'}")
    consumer = SimpleNamespace(connection=connection, timer=_Timer())
    step = BrokerPolling(consumer)
    step.start(consumer)
    transport = connection.transport
    try:
        # Just started: work may be waiting.
        assert transport.polling_interval == settings.BROKER_POLLING_INTERVAL == 0.1
        assert [seconds for seconds, _ in consumer.timer.scheduled] == [0.5]

        step._busy_at -= settings.BROKER_BUSY_SECONDS + 1  # nothing to do for a while
        step.adjust()
        assert transport.polling_interval == settings.BROKER_IDLE_POLLING_INTERVAL == 1.0

        # A message arrives: the next is looked for soon, before the next check.
        task_received.send(sender=None, request=None)
        assert transport.polling_interval == 0.1

        step._busy_at -= settings.BROKER_BUSY_SECONDS + 1
        request = _Request()
        worker_state.reserved_requests.add(request)  # a long task: still busy
        try:
            step.adjust()
        finally:
            worker_state.reserved_requests.discard(request)
        assert transport.polling_interval == 0.1
    finally:
        step.stop(consumer)
    assert consumer.timer.scheduled == []
    transport.polling_interval = 1.0
    task_received.send(sender=None, request=None)
    assert transport.polling_interval == 1.0, "a stopped step listens no more"


def test_a_worker_on_a_pushing_broker_is_left_alone() -> None:
    connection = Connection("redis://127.0.0.1:6379/0")
    consumer = SimpleNamespace(connection=connection, timer=_Timer())
    before = connection.transport.polling_interval
    BrokerPolling(consumer).start(consumer)
    assert connection.transport.polling_interval == before
    assert consumer.timer.scheduled == []


def test_a_queue_another_process_created_meanwhile_is_taken_not_inserted_twice(
    tmp_path: Path,
) -> None:
    # Two processes publishing to a new queue at once: both look, find no row, and insert it;
    # kombu's lock is per process. Here the other process's row lands between the look and the
    # insert, which then breaks the queue name's uniqueness.
    broker = tmp_path / "broker.sqlite3"
    connection = Connection(f"sqla+sqlite:///{broker}")
    assert isinstance(connection.transport, EmbeddedTransport)
    channel = connection.default_channel
    channel._get_or_create("warm-up")  # the tables exist
    with sqlite3.connect(broker) as other:
        other.execute("INSERT INTO kombu_queue (name) VALUES ('jobs')")
    first, looks = Query.first, []

    def missed_twice(query: Query) -> Any:  # kombu looks twice before inserting
        looks.append(query)
        return None if len(looks) <= 2 else first(query)

    with patch.object(Query, "first", missed_twice):
        queue = channel._get_or_create("jobs")
    assert queue.name == "jobs"
    channel._put("jobs", {"body": "a job"})  # the publish goes on
    with sqlite3.connect(broker) as other:
        rows = other.execute("SELECT COUNT(*) FROM kombu_queue WHERE name = 'jobs'").fetchone()
        assert rows == (1,)
        assert other.execute("SELECT COUNT(*) FROM kombu_message").fetchone() == (1,)
    connection.release()


def test_a_process_that_finds_a_fresh_broker_files_tables_being_created_still_publishes(
    tmp_path: Path,
) -> None:
    # Processes opening a fresh broker file at once (a web process and a worker starting
    # together): both find no tables and both create them; the loser's CREATE TABLE fails with
    # "already exists". Here another process made them between this one's look and its create.
    broker = tmp_path / "broker.sqlite3"
    first = Connection(f"sqla+sqlite:///{broker}")
    first.default_channel._put("jobs", {"body": "the other process's job"})  # tables made
    first.release()
    create_all, creates = kombu_sqlalchemy.metadata.create_all, []

    def lost_the_race(bind: Any, **options: Any) -> None:
        creates.append(bind)
        create_all(bind, checkfirst=len(creates) > 1)  # the first looked before they existed

    connection = Connection(f"sqla+sqlite:///{broker}")
    with (
        patch.dict(EmbeddedChannel._engines, clear=True),
        patch.object(kombu_sqlalchemy.metadata, "create_all", lost_the_race),
    ):
        connection.default_channel._put("jobs", {"body": "a job"})
    assert len(creates) == 2
    with sqlite3.connect(broker) as other:
        assert other.execute("SELECT COUNT(*) FROM kombu_message").fetchone() == (2,)
    connection.release()


def test_quick_jobs_and_users_jobs_go_to_their_own_queues_and_the_others_to_the_default() -> None:
    import annotate.tasks  # noqa: F401  (every job kind's task registered)
    from annotate.jobs_runtime import job_kinds, job_task_of
    from config.celery import app

    def queue(kind: str) -> str:
        task = job_task_of(kind)
        return str(app.amqp.router.route(task._get_exec_options(), task.name)["queue"].name)

    routed = {kind: queue(kind) for kind in job_kinds()}
    expected = {
        kind: settings.QUICK_QUEUE
        if kind in settings.QUICK_JOB_KINDS
        else settings.USER_QUEUE
        if kind in settings.USER_JOB_KINDS
        else "celery"
        for kind in job_kinds()
    }
    assert routed == expected
    assert routed["score_pairs"] == settings.USER_QUEUE, "any signed-in user queues score jobs"
    assert set(settings.QUICK_JOB_KINDS) | set(settings.USER_JOB_KINDS) <= set(job_kinds())
    assert not set(settings.QUICK_JOB_KINDS) & set(settings.USER_JOB_KINDS)


def test_the_reaper_runs_in_the_quick_lane() -> None:
    """Beat's reaping is seconds of work: in the default queue it would wait behind every
    queued export and prefill, leaving the jobs of dead workers "running" meanwhile."""
    entry = settings.CELERY_BEAT_SCHEDULE["reap-stale-jobs"]
    assert entry["options"]["queue"] == settings.QUICK_QUEUE


def test_a_pool_process_grown_past_the_memory_bound_is_replaced_after_its_task() -> None:
    """A supervised prefill left its pool process at 1.4 GB idle, for as long as the worker
    ran; Celery replaces a pool process past ``worker_max_memory_per_child`` KiB after a task."""
    from config.celery import app

    assert settings.WORKER_MAX_MEMORY_MB == 2048
    assert app.conf.worker_max_memory_per_child == 2048 * 1024


def test_a_plain_worker_serves_every_queue() -> None:
    """``make worker`` (no -Q) takes from the default, the chunks', the quick and the users'
    queues, so a deployment of one worker runs every job."""
    from config.celery import app

    assert set(app.amqp.queues) == {
        "celery",
        settings.CHUNK_QUEUE,
        settings.QUICK_QUEUE,
        settings.USER_QUEUE,
    }


def test_every_job_starting_endpoint_a_non_admin_may_call_queues_a_users_lane_job() -> None:
    """``USER_JOB_KINDS`` is every kind any signed-in user can queue: each job-starting API
    view is for admins alone, but the score jobs' (a new one open to users must put its kind
    in the users' lane) and the adjudicators' bulk accept and its undo, jobs of seconds in the
    quick lane."""
    from django.urls import URLPattern, URLResolver, get_resolver

    from annotate import permissions, throttles
    from annotate.apis.adjudication import AdjudicationAcceptAgreedApi, AdjudicationAcceptUndoApi
    from annotate.apis.scorers import ScoreJobApi

    def views(patterns: list[Any]) -> list[Any]:
        found = []
        for pattern in patterns:
            if isinstance(pattern, URLResolver):
                found += views(pattern.url_patterns)
            elif isinstance(pattern, URLPattern):
                found.append(getattr(pattern.callback, "view_class", None))
        return found

    starting = {
        view
        for view in views(get_resolver().url_patterns)
        if view is not None and getattr(view, "throttle_classes", None) == throttles.JOB_STARTING
    }
    open_to_users = {view for view in starting if view.permission_classes != permissions.ADMINS}
    adjudicators = {v for v in open_to_users if v.permission_classes == permissions.ADJUDICATORS}
    assert len(starting) > 5
    assert open_to_users - adjudicators == {ScoreJobApi}
    assert settings.USER_JOB_KINDS == ("score_pairs",)
    assert adjudicators == {AdjudicationAcceptAgreedApi, AdjudicationAcceptUndoApi}
    assert {"adjudication_accept", "adjudication_accept_undo"} <= set(settings.QUICK_JOB_KINDS)
