"""In headless chromium: a page with a queued job says that no worker is running while none is,
stops saying it when a worker reports, and says it again within 10 s of the worker going quiet
(the pages refresh their live parts)."""

from __future__ import annotations

import time
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from annotate import roles
from annotate.models import Corpus, Job, WorkerHeartbeat
from annotate.services.workers import worker_heartbeat_beat
from tests.annotate.factories import make_user
from tests.frontend.conftest import SCREENSHOTS, SERVER_LOCK

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

NOTICE = "#worker-notice"


def _beat() -> None:
    with SERVER_LOCK:
        worker_heartbeat_beat(hostname="celery@test", pid=1, started_at=timezone.now())


@pytest.mark.parametrize("url", ["/jobs/", "/"])
def test_the_page_says_no_worker_runs_until_one_reports_and_again_soon_after_it_dies(
    page_for: Any, live_server: Any, settings: Any, url: str
) -> None:
    with SERVER_LOCK:
        admin = make_user("admin", roles.ADMIN)
        corpus = Corpus.objects.create(name="notice")
        Job.objects.create(kind="corpus_stats", owner=admin, corpus=corpus)
    page = page_for(admin)
    page.goto(live_server.url + url)
    notice = page.locator(NOTICE)
    notice.wait_for(state="visible")
    assert "No worker is running" in notice.inner_text()
    assert "make worker" in notice.inner_text()
    page.wait_for_selector("tr[data-job] .badge.pending")
    if url == "/jobs/":
        page.screenshot(path=str(SCREENSHOTS / "jobs_no_worker.png"))

    _beat()  # a worker starts
    notice.wait_for(state="hidden", timeout=10_000)

    # The worker is killed: no clean stop removes its row, its heartbeat only grows old.
    with SERVER_LOCK:
        WorkerHeartbeat.objects.update(
            beat_at=timezone.now() - timedelta(seconds=settings.WORKER_ALIVE_SECONDS - 1)
        )
    gone = time.monotonic()  # the heartbeat turns stale 1 s from now
    notice.wait_for(state="visible", timeout=15_000)
    assert time.monotonic() - gone < 10
    assert page.js_errors == []


def test_a_tabs_job_list_says_it_over_the_job_it_started(page_for: Any, live_server: Any) -> None:
    with SERVER_LOCK:
        admin = make_user("admin", roles.ADMIN)
        corpus = Corpus.objects.create(name="panel")
    page = page_for(admin)
    page.goto(f"{live_server.url}/corpora/{corpus.pk}/export/")
    with page.expect_navigation():
        page.click("#export-submit")
    page.wait_for_selector("#exports-table tr[data-job] .badge.pending")
    panel_notice = page.locator("[data-fragment=exports] #worker-notice")
    panel_notice.wait_for(state="visible")
    assert "No worker is running" in panel_notice.inner_text()
    page.screenshot(path=str(SCREENSHOTS / "export_no_worker.png"))
    _beat()
    panel_notice.wait_for(state="hidden", timeout=10_000)
    assert page.js_errors == []
