"""Who opens the corpus tabs and who posts their forms: admins only; anyone else signed in gets
the 403 page, and nothing is queued; a stranger is sent to the login page."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from annotate import roles
from annotate.models import Job
from tests.annotate.factories import make_corpus, make_pair, make_user

pytestmark = pytest.mark.django_db

PAGES = ("", "prefill/", "assignments/", "agreement/", "export/")
ACTIONS = {
    "prefill/run/": {"aligner": "identity"},
    "prefill/retraining-off/": {},
    "prefill/queue-order/": {"order": "least_sure"},
    "assignments/plan/": {"annotators": ["alice"], "per_pair": 1, "double_percent": 0},
    "assignments/hand-over/": {"annotator": "alice", "to": ["bob"]},
    "assignments/release/": {"idle_hours": 72},
    "agreement/run/": {"annotators": ["alice", "bob"], "samples": 5, "seed": 0},
    "export/run/": {"format": "jsonl", "which": "all", "use": "possible", "max_length": 7},
}
EXPECTED = {roles.ANNOTATOR: 403, roles.ADJUDICATOR: 403, roles.ADMIN: 200}


@pytest.fixture
def corpus() -> Any:
    corpus = make_corpus("tabs")
    make_pair(corpus)
    return corpus


def _client(role: str | None) -> Client:
    client = Client()
    if role is not None:
        client.force_login(make_user(f"someone-{role}", role))
    return client


@pytest.mark.parametrize("role", list(EXPECTED))
@pytest.mark.parametrize("tab", PAGES)
def test_each_tab_opens_for_admins_only(corpus: Any, role: str, tab: str) -> None:
    response = _client(role).get(f"/corpora/{corpus.pk}/{tab}")
    assert response.status_code == EXPECTED[role]
    if response.status_code == 403:
        assert b"This page is for corpus admins." in response.content


@pytest.mark.parametrize("tab", PAGES)
def test_a_stranger_is_sent_to_the_login_page(corpus: Any, tab: str) -> None:
    response = Client().get(f"/corpora/{corpus.pk}/{tab}")
    assert response.status_code == 302
    assert response["Location"].startswith("/login/?next=")


@pytest.mark.parametrize("tab", PAGES)
def test_a_corpus_that_does_not_exist_is_a_404(tab: str) -> None:
    assert _client(roles.ADMIN).get(f"/corpora/999999/{tab}").status_code == 404


@pytest.mark.parametrize("role", [roles.ANNOTATOR, roles.ADJUDICATOR, None])
@pytest.mark.parametrize("action", list(ACTIONS))
def test_only_admins_post_the_tabs_forms_and_others_queue_nothing(
    corpus: Any, role: str | None, action: str
) -> None:
    make_user("alice", roles.ANNOTATOR)
    make_user("bob", roles.ANNOTATOR)
    response = _client(role).post(f"/corpora/{corpus.pk}/{action}", ACTIONS[action])
    assert response.status_code == (302 if role is None else 403)
    assert not Job.objects.exists()
    corpus.refresh_from_db()
    assert corpus.queue_order == "position", "nor do they change the queue order"


@pytest.mark.parametrize("action", list(ACTIONS))
def test_the_forms_answer_only_posts(corpus: Any, action: str) -> None:
    assert _client(roles.ADMIN).get(f"/corpora/{corpus.pk}/{action}").status_code == 405
