"""The forms that queue background jobs share the API's per-user job rate (``API_RATE_JOBS``):
over it a form answers the 429 page with ``Retry-After`` and queues nothing. Before, the pages
queued without any limit (an admin posted 40 agreement reports in a row from the page after
the API had refused the 31st)."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from rest_framework.test import APIClient

from annotate import roles, throttles
from annotate.models import Job
from tests.annotate.factories import make_corpus, make_pair, make_user

pytestmark = pytest.mark.django_db

#: Every page form that queues a job, and a body for it (valid or not: over the rate, none is
#: read).
FORMS = {
    "stats/": {},
    "prefill/run/": {"aligner": "identity"},
    "assignments/plan/": {"annotators": ["alice"], "per_pair": 1, "double_percent": 0},
    "assignments/hand-over/": {"annotator": "alice", "to": ["bob"]},
    "assignments/release/": {"idle_hours": 72},
    "agreement/run/": {"annotators": ["alice", "bob"], "samples": 5, "seed": 0},
    "export/run/": {"format": "jsonl", "which": "all"},
    "delete/": {"confirm": "wrong name"},
    "/corpora/import/": {"corpus": "x", "format": "jsonl"},
    "/scorers/train/": {"kind": "perp"},
}


@pytest.fixture(autouse=True)
def three_jobs_a_minute(monkeypatch: Any) -> None:
    monkeypatch.setattr(
        throttles.SimpleRateThrottle,
        "THROTTLE_RATES",
        {"user": "1000/min", "anon": "1000/min", "address": "1000/min", "jobs": "3/min"},
    )


@pytest.fixture
def corpus() -> Any:
    corpus = make_corpus("rated")
    make_pair(corpus)
    return corpus


def _address(corpus: Any, form: str) -> str:
    return form if form.startswith("/") else f"/corpora/{corpus.pk}/{form}"


@pytest.mark.parametrize("form", list(FORMS))
def test_a_page_form_over_the_job_rate_is_a_429_and_queues_nothing(corpus: Any, form: str) -> None:
    admin = make_user("admin", roles.ADMIN)
    client = Client()
    client.force_login(admin)
    address = _address(corpus, form)
    api = APIClient()
    api.force_authenticate(admin)
    for _ in range(3):  # the budget spent on accepted starts
        assert api.post(f"/api/corpora/{corpus.pk}/stats/", {}, format="json").status_code < 400
    jobs = Job.objects.count()
    response = client.post(address, FORMS[form], HTTP_REFERER="http://testserver/corpora/")
    assert response.status_code == 429
    assert int(response["Retry-After"]) > 0
    page = response.content.decode()
    assert "Too many jobs started" in page and 'href="http://testserver/corpora/"' in page
    assert Job.objects.count() == jobs
    other = Client()
    other.force_login(make_user("other", roles.ADMIN))
    assert other.post(address, FORMS[form]).status_code != 429, "the rate is per user"


def test_the_pages_and_the_api_share_one_job_budget(corpus: Any) -> None:
    admin = make_user("admin", roles.ADMIN)
    api = APIClient()
    api.force_authenticate(admin)
    page = Client()
    page.force_login(admin)
    assert api.post(f"/api/corpora/{corpus.pk}/stats/", {}, format="json").status_code in (200, 201)
    assert page.post(f"/corpora/{corpus.pk}/stats/").status_code == 302
    assert api.post(f"/api/corpora/{corpus.pk}/stats/", {}, format="json").status_code in (200, 201)
    assert page.post(f"/corpora/{corpus.pk}/stats/").status_code == 429
    assert api.post(f"/api/corpora/{corpus.pk}/stats/", {}, format="json").status_code == 429


def test_posts_refused_for_the_role_are_not_counted(corpus: Any) -> None:
    annotator = make_user("alice", roles.ANNOTATOR)
    client = Client()
    client.force_login(annotator)
    for _ in range(5):
        assert client.post(f"/corpora/{corpus.pk}/stats/").status_code == 403
    api = APIClient()
    api.force_authenticate(annotator)
    assert api.post("/api/score/jobs/", {}, format="json").status_code != 429


def test_posts_refused_for_their_input_are_not_counted(corpus: Any) -> None:
    """Only accepted starts spend the budget: a form sent back with an error (a wrong name
    to confirm a deletion, a plan for nobody) queued nothing."""
    client = Client()
    client.force_login(make_user("admin", roles.ADMIN))
    for _ in range(5):
        assert client.post(f"/corpora/{corpus.pk}/delete/", {"confirm": "wrong"}).status_code == 400
        assert client.post(f"/corpora/{corpus.pk}/assignments/plan/", {}).status_code == 400
    statuses = [client.post(f"/corpora/{corpus.pk}/stats/").status_code for _ in range(4)]
    assert statuses == [302, 302, 302, 429]


@pytest.mark.parametrize(
    "refused",
    [
        ("/adjudication/accept-agreed/", {"list_query": ""}),  # nothing to accept
        ("/adjudication/accept-agreed/", {"list_query": "corpus=999999"}),  # no such corpus
        ("/adjudication/accept-agreed/{job}/undo/", {}),  # still running
        ("/scorers/train/", {"corpus": "999999"}),  # no such corpus
    ],
)
def test_forms_refused_with_a_message_are_not_counted(corpus: Any, refused: Any) -> None:
    """A refusal sent back to the page with its message (a redirect, not a 4xx) queued nothing
    either, and spends nothing."""
    admin = make_user("admin", roles.ADMIN)
    running = Job.objects.create(kind="adjudication_accept", owner=admin, status="running")
    client = Client()
    client.force_login(admin)
    address, body = refused
    for _ in range(5):
        assert client.post(address.format(job=running.pk), body).status_code == 302
    assert Job.objects.count() == 1
    statuses = [client.post(f"/corpora/{corpus.pk}/stats/").status_code for _ in range(4)]
    assert statuses == [302, 302, 302, 429]
