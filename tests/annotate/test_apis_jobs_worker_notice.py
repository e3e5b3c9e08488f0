"""A queued job while no worker is alive: the jobs API and the pages that list jobs say that
no worker is running and how to start one, instead of leaving the job "waiting" silently."""

from __future__ import annotations

from datetime import timedelta
from html import escape
from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from rest_framework.test import APIClient

from annotate import roles
from annotate.models import Job, WorkerHeartbeat
from annotate.selectors.workers import (
    NO_WORKER_NOTICE,
    any_worker_alive,
    broker_label,
    other_broker_note,
    served_queues,
    unserved_queue_notice,
    waiting_job_notice,
)
from annotate.services.workers import worker_heartbeat_beat
from tests.annotate.factories import make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin() -> Any:
    return make_user("admin", roles.ADMIN)


def _api(user: Any) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def _notices(user: Any) -> dict[str, str | None]:
    return {row["status"]: row["worker_notice"] for row in _api(user).get("/api/jobs/").json()}


def _jobs(owner: Any) -> dict[str, Job]:
    return {
        status: Job.objects.create(kind="corpus_stats", owner=owner, status=status)
        for status in ("pending", "running", "succeeded")
    }


def test_a_queued_job_says_that_no_worker_is_running_and_how_to_start_one(admin: Any) -> None:
    jobs = _jobs(admin)
    assert _notices(admin) == {"pending": NO_WORKER_NOTICE, "running": None, "succeeded": None}
    assert "make worker" in NO_WORKER_NOTICE
    assert "celery -A config worker --beat" in NO_WORKER_NOTICE
    detail = _api(admin).get(f"/api/jobs/{jobs['pending'].pk}/").json()
    assert detail["worker_notice"] == NO_WORKER_NOTICE
    assert detail["status"] == "pending" and detail["message"] == ""


def test_a_queued_job_has_no_notice_while_a_worker_is_alive(admin: Any) -> None:
    _jobs(admin)
    worker_heartbeat_beat(hostname="celery@a", pid=1, started_at=timezone.now())
    assert _notices(admin) == {"pending": None, "running": None, "succeeded": None}


def test_the_notice_returns_once_the_last_heartbeat_is_older_than_the_window(
    admin: Any, settings: Any
) -> None:
    _jobs(admin)
    worker_heartbeat_beat(hostname="celery@a", pid=1, started_at=timezone.now())
    quiet_since = timezone.now() - timedelta(seconds=settings.WORKER_ALIVE_SECONDS + 1)
    WorkerHeartbeat.objects.update(beat_at=quiet_since)  # killed: no clean stop
    assert _notices(admin)["pending"] == NO_WORKER_NOTICE


def test_the_job_started_answer_carries_the_notice_too(admin: Any, settings: Any) -> None:
    from annotate.models import Corpus

    corpus = Corpus.objects.create(name="c")
    response = _api(admin).post(f"/api/corpora/{corpus.pk}/stats/")
    assert response.status_code == 201
    assert response.json()["worker_notice"] == NO_WORKER_NOTICE


def test_the_list_looks_for_workers_once_however_many_jobs_wait(admin: Any) -> None:
    for _ in range(5):
        Job.objects.create(kind="corpus_stats", owner=admin)
    with CaptureQueriesContext(connection) as queries:
        rows = _api(admin).get("/api/jobs/").json()
    assert [row["worker_notice"] for row in rows] == [NO_WORKER_NOTICE] * 5
    assert sum("annotate_workerheartbeat" in query["sql"] for query in queries) == 1


def _page(user: Any, url: str) -> str:
    client = Client()
    client.force_login(user)
    response = client.get(url)
    assert response.status_code == 200
    return response.content.decode()


NOTICE_SHOWN = f'id="worker-notice" role="status">{NO_WORKER_NOTICE}</p>'


@pytest.mark.parametrize("url", ["/jobs/", "/"])
def test_the_jobs_and_home_pages_say_it_while_a_job_waits_for_no_worker(
    admin: Any, url: str
) -> None:
    Job.objects.create(kind="corpus_stats", owner=admin)
    assert NOTICE_SHOWN in _page(admin, url)


@pytest.mark.parametrize("url", ["/jobs/", "/"])
def test_the_pages_keep_the_notice_hidden_with_a_worker_or_without_a_waiting_job(
    admin: Any, url: str
) -> None:
    Job.objects.create(kind="corpus_stats", owner=admin, status=Job.Status.SUCCEEDED)
    html = _page(admin, url)
    assert 'id="worker-notice" role="status" hidden></p>' in html  # for the script to fill
    Job.objects.create(kind="corpus_stats", owner=admin)
    worker_heartbeat_beat(hostname="celery@a", pid=1, started_at=timezone.now())
    assert NO_WORKER_NOTICE not in _page(admin, url)


def test_an_annotator_home_page_says_nothing_of_jobs(admin: Any) -> None:
    Job.objects.create(kind="corpus_stats", owner=admin)
    annotator = make_user("ann", roles.ANNOTATOR)
    assert "worker-notice" not in _page(annotator, "/")


def test_a_job_whose_queue_no_live_worker_serves_says_which_queue_and_how_to_serve_it(
    admin: Any,
) -> None:
    score = Job.objects.create(kind="score_pairs", owner=admin)
    stats = Job.objects.create(kind="corpus_stats", owner=admin)
    # The main worker leaves the users' lane out (-X users) and nobody started its own.
    worker_heartbeat_beat(
        hostname="main@a", pid=1, started_at=timezone.now(), queues=["celery", "quick"]
    )
    notices = {row["id"]: row["worker_notice"] for row in _api(admin).get("/api/jobs/").json()}
    assert notices[stats.pk] is None, "its queue is served: it waits for a free worker only"
    assert notices[score.pk] == unserved_queue_notice(["users"])
    assert "from the users queue" in notices[score.pk]
    assert "celery -A config worker -Q users -n users@%h " in notices[score.pk]
    assert _api(admin).get(f"/api/jobs/{score.pk}/").json()["worker_notice"] == notices[score.pk]
    assert unserved_queue_notice(["users"]) in _page(admin, "/jobs/")


def test_a_worker_of_the_missing_queue_or_of_unknown_queues_ends_the_notice(admin: Any) -> None:
    Job.objects.create(kind="score_pairs", owner=admin)
    now = timezone.now()
    worker_heartbeat_beat(hostname="main@a", pid=1, started_at=now, queues=["celery", "quick"])
    assert "users queue" in _page(admin, "/jobs/")
    worker_heartbeat_beat(hostname="users@a", pid=2, started_at=now, queues=["users"])
    assert _notices(admin)["pending"] is None
    assert "worker-notice" in (html := _page(admin, "/jobs/")) and "users queue" not in html
    WorkerHeartbeat.objects.filter(hostname="users@a").delete()
    worker_heartbeat_beat(hostname="old@a", pid=3, started_at=now)  # queues not reported
    assert _notices(admin)["pending"] is None, "a worker of unknown queues may take it"


def test_the_page_names_every_queue_its_waiting_jobs_lack(admin: Any) -> None:
    Job.objects.create(kind="score_pairs", owner=admin)
    Job.objects.create(kind="corpus_stats", owner=admin)
    worker_heartbeat_beat(hostname="main@a", pid=1, started_at=timezone.now(), queues=["celery"])
    notice = waiting_job_notice(user=admin)
    assert notice == unserved_queue_notice(["quick", "users"])
    assert "from the quick, users queues" in notice and "-Q quick,users -n quick-users@%h" in notice


def test_a_worker_of_another_broker_is_named_not_taken_for_one_that_runs_the_jobs(
    admin: Any, settings: Any
) -> None:
    settings.CELERY_BROKER_URL = "redis://:secret@broker:6379/8"
    score = Job.objects.create(kind="score_pairs", owner=admin)
    now = timezone.now()
    # A users' worker started with the Redis database of another install: it beats, but its
    # messages come from a queue this site never sends to.
    worker_heartbeat_beat(
        hostname="users@b",
        pid=1,
        started_at=now,
        queues=["users"],
        broker=broker_label("redis://:secret@broker:6379/9"),
    )
    assert WorkerHeartbeat.objects.get().broker == "redis://:**@broker:6379/9"
    # The same broker may be written another way (a host name against its address): the
    # reaper and the resending count the worker as alive, so as never to fail its jobs.
    assert any_worker_alive() and served_queues() == {"users"}
    notice = _notices(admin)["pending"]
    assert notice == NO_WORKER_NOTICE + other_broker_note(["users@b"])
    assert "another broker address than this site's CELERY_BROKER_URL: users@b;" in notice
    assert "secret" not in notice and "broker:6379" not in notice
    worker_heartbeat_beat(
        hostname="main@a",
        pid=2,
        started_at=now,
        queues=["celery", "quick"],
        broker=broker_label(settings.CELERY_BROKER_URL),
    )
    expected = unserved_queue_notice(["users"]) + other_broker_note(["users@b"])
    assert _api(admin).get(f"/api/jobs/{score.pk}/").json()["worker_notice"] == expected
    assert waiting_job_notice(user=admin) == expected
    assert escape(expected) in _page(admin, "/jobs/")
    worker_heartbeat_beat(
        hostname="users@a",
        pid=3,
        started_at=now,
        queues=["users"],
        broker=broker_label("redis://:other-password@broker:6379/8"),
    )
    assert _notices(admin)["pending"] is None, "the same broker, whatever its password"
    assert waiting_job_notice(user=admin) == ""


def test_a_worker_that_does_not_say_its_broker_counts_as_one_of_this_site(admin: Any) -> None:
    Job.objects.create(kind="corpus_stats", owner=admin)
    worker_heartbeat_beat(hostname="old@a", pid=1, started_at=timezone.now())
    assert WorkerHeartbeat.objects.get().broker == ""
    assert any_worker_alive()
    assert _notices(admin)["pending"] is None


def test_a_report_whose_chunks_wait_for_a_worker_of_their_queue_says_so(
    admin: Any, settings: Any
) -> None:
    """An agreement report handed to its chunks (running, deferred) waits for the workers of
    the chunks' queue as a queued job waits for those of its own: the reaper leaves it running,
    so its row and the pages say what it waits for."""
    report = Job.objects.create(
        kind="agreement_report", owner=admin, status="running", deferred=True
    )
    other = Job.objects.create(kind="corpus_stats", owner=admin, status="running")
    rows = {row["id"]: row["worker_notice"] for row in _api(admin).get("/api/jobs/").json()}
    assert rows == {report.pk: NO_WORKER_NOTICE, other.pk: None}, "its worker runs the other"
    detail = _api(admin).get(f"/api/jobs/{report.pk}/").json()
    assert detail["worker_notice"] == NO_WORKER_NOTICE
    assert waiting_job_notice(user=admin) == NO_WORKER_NOTICE
    assert "worker-notice" in _page(admin, "/jobs/")
    now = timezone.now()
    worker_heartbeat_beat(hostname="main@a", pid=1, started_at=now, queues=["celery", "quick"])
    expected = unserved_queue_notice([settings.CHUNK_QUEUE])
    assert _api(admin).get(f"/api/jobs/{report.pk}/").json()["worker_notice"] == expected
    assert waiting_job_notice(user=admin) == expected
    worker_heartbeat_beat(hostname="chunks@a", pid=2, started_at=now, queues=[settings.CHUNK_QUEUE])
    assert _api(admin).get(f"/api/jobs/{report.pk}/").json()["worker_notice"] is None
    assert waiting_job_notice(user=admin) == ""
