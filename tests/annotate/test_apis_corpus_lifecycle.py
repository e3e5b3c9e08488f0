"""The API of archiving, restoring and deleting corpora, and of the queue's corpus filter and
search: what each answers and what it refuses."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from annotate import roles
from annotate.models import Assignment, Corpus, Job
from tests.annotate.factories import make_assignment, make_corpus, make_pair, make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin() -> APIClient:
    client = APIClient()
    client.force_authenticate(make_user("admin", roles.ADMIN))
    return client


def test_the_list_leaves_archived_corpora_out_unless_asked_for_them(admin: APIClient) -> None:
    make_corpus("live")
    old = make_corpus("old")
    answer = admin.post(f"/api/corpora/{old.pk}/archive/").json()
    assert answer["changed"] is True and answer["archived_at"] is not None
    assert admin.post(f"/api/corpora/{old.pk}/archive/").json()["changed"] is False
    assert [c["name"] for c in admin.get("/api/corpora/").json()] == ["live"]
    archived = admin.get("/api/corpora/?archived=true").json()
    assert [c["name"] for c in archived] == ["old"] and archived[0]["archived_at"]
    restored = admin.post(f"/api/corpora/{old.pk}/restore/").json()
    assert restored == {"id": old.pk, "name": "old", "archived_at": None, "changed": True}
    assert [c["name"] for c in admin.get("/api/corpora/").json()] == ["live", "old"]


def test_the_deletion_is_described_then_confirmed_by_name(admin: APIClient) -> None:
    corpus = make_corpus("gone")
    make_assignment(make_pair(corpus, gold=[(0, 0, True)]))
    described = admin.get(f"/api/corpora/{corpus.pk}/delete/").json()
    assert described["pairs"] == 1 and described["assignments"] == 1
    assert described["gold_alignments"] == 1 and described["has_work"] is True

    wrong = admin.post(f"/api/corpora/{corpus.pk}/delete/", {"confirm": "Gone"}, format="json")
    assert wrong.status_code == 400
    assert wrong.json()["error"]["field"] == "confirm"
    missing = admin.post(f"/api/corpora/{corpus.pk}/delete/", {}, format="json")
    assert missing.status_code == 400 and "confirm" in missing.json()["error"]["fields"]

    changes = described["saved_changes"]
    stale = {"confirm": "gone", "assignments": 0, "gold_alignments": 1, "annotations": 0}
    stale["saved_changes"] = changes
    grown = admin.post(f"/api/corpora/{corpus.pk}/delete/", stale, format="json")
    assert grown.status_code == 409
    assert grown.json()["error"]["current"] == {
        "annotations": 0,
        "gold_alignments": 1,
        "assignments": 1,
        "saved_changes": changes,
    }
    assert Corpus.objects.get(pk=corpus.pk).archived_at is None

    body = {**stale, "assignments": 1}
    started = admin.post(f"/api/corpora/{corpus.pk}/delete/", body, format="json")
    assert started.status_code == 201
    assert started.json()["kind"] == "corpus_delete"
    assert Job.objects.get(pk=started.json()["id"]).parameters["corpus"] == "gone"
    again = admin.post(f"/api/corpora/{corpus.pk}/delete/", body, format="json")
    assert again.status_code == 200 and again.json()["id"] == started.json()["id"]


def test_a_missing_corpus_is_a_404_for_each_operation(admin: APIClient) -> None:
    for path in ("archive/", "restore/", "delete/"):
        assert admin.post(f"/api/corpora/999999/{path}", {"confirm": "x"}).status_code == 404


def _queue(user: Any, query: str) -> Any:
    client = APIClient()
    client.force_authenticate(user)
    return client.get(f"/api/queue/{query}").json()


def test_the_queue_filters_by_corpus_and_searches_ids_and_texts() -> None:
    alice = make_user("alice", roles.ANNOTATOR)
    news, novels = make_corpus("news"), make_corpus("novels")
    make_assignment(
        make_pair(news, "the senate voted", "senators voted", external_id="n1", prefill=None), alice
    )
    make_assignment(
        make_pair(news, "a dog barked", "the dog barks", external_id="n2", prefill=None), alice
    )
    make_assignment(
        make_pair(novels, "a dog slept", "the dog sleeps", external_id="v1", prefill=None), alice
    )
    by_corpus = _queue(alice, f"?corpus={news.pk}")
    assert [a["external_id"] for a in by_corpus["assignments"]] == ["n1", "n2"]
    assert by_corpus["total"] == 2 and by_corpus["counts"]["new"] == 3
    assert [a["external_id"] for a in _queue(alice, "?q=DOG")["assignments"]] == ["n2", "v1"]
    assert [a["external_id"] for a in _queue(alice, "?q=v1")["assignments"]] == ["v1"]
    both = _queue(alice, f"?q=dog&corpus={novels.pk}")
    assert both["total"] == 1
    Assignment.objects.filter(pair__external_id="v1").update(status=Assignment.Status.SUBMITTED)
    assert _queue(alice, "?q=dog&status=submitted")["total"] == 1


def test_the_pair_list_pages_fifty_at_a_time_and_says_so(admin: APIClient) -> None:
    corpus = make_corpus("paged")
    for k in range(51):
        make_pair(corpus, f"a b {k}", "a c", external_id=f"p{k:02d}", prefill=None)
    first = admin.get(f"/api/corpora/{corpus.pk}/pairs/").json()
    assert {key: first[key] for key in ("total", "page", "pages", "per_page")} == {
        "total": 51,
        "page": 1,
        "pages": 2,
        "per_page": 50,
    }
    assert len(first["results"]) == 50 and first["results"][0]["external_id"] == "p00"
    second = admin.get(f"/api/corpora/{corpus.pk}/pairs/", {"page": 2}).json()
    assert [row["external_id"] for row in second["results"]] == ["p50"]
