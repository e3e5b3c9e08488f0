"""The paged API lists: ``page`` and ``per_page`` checked (400 naming the parameter), a page
past the last refused, ``per_page`` honoured up to its maximum."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from annotate import roles
from annotate.apis.common import MAX_PER_PAGE
from annotate.models import Corpus
from tests.annotate.factories import make_assignment, make_corpus, make_pair, make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin() -> APIClient:
    client = APIClient()
    client.force_authenticate(make_user("admin", roles.ADMIN, roles.ANNOTATOR))
    return client


@pytest.fixture
def corpus() -> Corpus:
    corpus = make_corpus("paged")
    for k in range(7):
        make_pair(corpus, f"a b {k}", "a c", external_id=f"p{k:02d}", prefill=None)
    return corpus


def _field(response: object) -> str:
    assert response.status_code == 400, response.content  # type: ignore[attr-defined]
    error = response.json()["error"]  # type: ignore[attr-defined]
    return error.get("field") or ",".join(error["fields"])


@pytest.mark.parametrize("page", ["0", "-1", "abc", "1.5", "99999999999999999999"])
def test_a_bad_page_is_refused_naming_it(admin: APIClient, corpus: Corpus, page: str) -> None:
    assert _field(admin.get(f"/api/corpora/{corpus.pk}/pairs/", {"page": page})) == "page"
    assert _field(admin.get("/api/adjudication/", {"page": page})) == "page"
    assert _field(admin.get("/api/queue/", {"page": page})) == "page"


@pytest.mark.parametrize("per_page", ["0", "-3", "x", str(MAX_PER_PAGE + 1)])
def test_a_bad_per_page_is_refused_naming_it(
    admin: APIClient, corpus: Corpus, per_page: str
) -> None:
    path = f"/api/corpora/{corpus.pk}/pairs/"
    assert _field(admin.get(path, {"per_page": per_page})) == "per_page"
    assert _field(admin.get("/api/adjudication/", {"per_page": per_page})) == "per_page"
    assert _field(admin.get("/api/queue/", {"per_page": per_page})) == "per_page"


def test_per_page_is_honoured_and_kept_in_the_next_link(admin: APIClient, corpus: Corpus) -> None:
    path = f"/api/corpora/{corpus.pk}/pairs/"
    first = admin.get(path, {"per_page": 3}).json()
    assert (first["per_page"], first["pages"], first["total"]) == (3, 3, 7)
    assert [row["external_id"] for row in first["results"]] == ["p00", "p01", "p02"]
    assert "per_page=3" in first["next"] and "page=2" in first["next"]
    last = admin.get(path, {"per_page": 3, "page": 3}).json()
    assert [row["external_id"] for row in last["results"]] == ["p06"]
    assert admin.get(path, {"per_page": MAX_PER_PAGE}).json()["per_page"] == MAX_PER_PAGE


def test_a_page_past_the_last_is_refused_naming_the_last(admin: APIClient, corpus: Corpus) -> None:
    path = f"/api/corpora/{corpus.pk}/pairs/"
    answer = admin.get(path, {"per_page": 3, "page": 4})
    assert _field(answer) == "page"
    assert "last page is 3" in answer.json()["error"]["message"]
    assert admin.get("/api/adjudication/", {"page": 1}).status_code == 200  # empty: one page
    assert _field(admin.get("/api/adjudication/", {"page": 2})) == "page"


def test_the_queue_honours_per_page(admin: APIClient, corpus: Corpus) -> None:
    user = admin.handler._force_user  # type: ignore[attr-defined]
    for pair in corpus.pairs.all():
        make_assignment(pair, user)
    queue = admin.get("/api/queue/", {"per_page": 2, "page": 4}).json()
    assert (queue["per_page"], queue["page"], queue["total"]) == (2, 4, 7)
    assert len(queue["assignments"]) == 1
    assert _field(admin.get("/api/queue/", {"per_page": 2, "page": 5})) == "page"
