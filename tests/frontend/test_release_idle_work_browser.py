"""Releasing idle work from the assignments tab, in headless chromium: the form sits under the
hand-over in its card, fits a laptop's window, and its release (run in the request) hands the
idle pair to the other annotator and is listed with what it did. Screenshots to look at."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from annotate import roles
from annotate.models import Assignment, Corpus
from tests.annotate.factories import make_assignment, make_corpus, make_pair, make_user
from tests.frontend.conftest import SCREENSHOTS, SERVER_LOCK

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def corpus(eager_jobs: Any) -> Corpus:
    corpus = make_corpus("campaign")
    alice = make_user("alice", roles.ANNOTATOR, password="a-long-Password-1")
    make_user("bob", roles.ANNOTATOR, password="a-long-Password-1")
    for _ in range(3):
        make_assignment(make_pair(corpus), alice)
    idle = make_assignment(make_pair(corpus), alice)
    long_ago = timezone.now() - timedelta(days=4)
    Assignment.objects.filter(pk=idle.pk).update(
        status=Assignment.Status.IN_PROGRESS, started_at=long_ago, last_activity_at=long_ago
    )
    return corpus


def test_the_release_form_sits_under_the_hand_over_and_frees_the_idle_pair(
    page_for: Any, live_server: Any, corpus: Corpus
) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page = page_for(make_user("admin", roles.ADMIN), viewport=(1280, 800))
    page.goto(f"{live_server.url}/corpora/{corpus.pk}/assignments/")
    card = page.locator('section[data-fragment="handover"]')
    form = card.locator("#release-form")
    assert form.locator("#release-idle_hours").input_value() == "72"
    hand_over = card.locator("#handover-form").bounding_box()
    box = form.bounding_box()
    assert box["y"] >= hand_over["y"] + hand_over["height"], "below the hand-over form"
    button = form.locator("#release-submit").bounding_box()
    assert button["x"] + button["width"] <= box["x"] + box["width"]
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0
    card.screenshot(path=str(SCREENSHOTS / "assignments_release_card.png"))

    form.locator("#release-idle_hours").fill("0")
    form.locator("#release-submit").click()
    page.wait_for_load_state("networkidle")
    errors = page.locator("#release-errors")
    assert "Idle for at least (hours)" in errors.inner_text()
    card.screenshot(path=str(SCREENSHOTS / "assignments_release_refused.png"))

    form.locator("#release-idle_hours").fill("48")
    form.locator("#release-submit").click()
    page.wait_for_load_state("networkidle")
    done = page.locator("#work-table .release-done")
    assert done.inner_text().strip() == "Released 1 assignment."
    assert "idle ≥ 48 h" in page.locator("#work-table").inner_text()
    page.screenshot(path=str(SCREENSHOTS / "assignments_release_page.png"), full_page=True)
    assert page.js_errors == []
    with SERVER_LOCK:
        moved = Assignment.objects.get(status=Assignment.Status.IN_PROGRESS)
        assert moved.annotator.username == "bob"
