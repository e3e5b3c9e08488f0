"""The annotator's queue: counts of the whole queue, one page of it, where to continue."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from annotate import roles
from annotate.models import Assignment, AutoAlignment, Corpus, SentencePair
from annotate.selectors.workspace import QUEUE_PAGE, next_open_assignment
from tests.annotate.factories import make_corpus, make_user

pytestmark = pytest.mark.django_db


def _queue_of(user: Any, pairs: int) -> list[Assignment]:
    """``pairs`` assignments of ``user`` in one corpus, created in bulk, in queue order."""
    corpus = make_corpus("big")
    rows = SentencePair.objects.bulk_create(
        SentencePair(
            corpus=corpus,
            external_id=f"p{k:04d}",
            source_text="a b",
            target_text="a b",
            source_tokens=["a", "b"],
            target_tokens=["a", "b"],
            n_source=2,
            n_target=2,
            position=k,
        )
        for k in range(pairs)
    )
    return Assignment.objects.bulk_create(Assignment(pair=pair, annotator=user) for pair in rows)


def _get(user: Any, query: str = "") -> Any:
    client = APIClient()
    client.force_authenticate(user)
    return client.get(f"/api/queue/{query}")


def test_a_long_queue_comes_a_page_at_a_time_with_counts_of_all_of_it() -> None:
    alice = make_user("alice", roles.ANNOTATOR)
    queue = _queue_of(alice, 2 * QUEUE_PAGE + 30)
    Assignment.objects.filter(pk__in=[a.pk for a in queue[:5]]).update(
        status=Assignment.Status.SUBMITTED
    )
    first = _get(alice).json()
    assert first["counts"] == {"new": 2 * QUEUE_PAGE + 25, "in_progress": 0, "submitted": 5}
    assert first["total"] == 2 * QUEUE_PAGE + 30 and first["per_page"] == QUEUE_PAGE
    assert [a["external_id"] for a in first["assignments"]] == [
        f"p{k:04d}" for k in range(QUEUE_PAGE)
    ]
    assert first["next_id"] == queue[5].pk  # the first pair not submitted
    last = _get(alice, "?page=3").json()
    assert [a["external_id"] for a in last["assignments"]] == [
        f"p{k:04d}" for k in range(2 * QUEUE_PAGE, 2 * QUEUE_PAGE + 30)
    ]
    past = _get(alice, "?page=4")
    assert past.status_code == 400 and past.json()["error"]["field"] == "page"


def test_the_queue_lists_one_status_when_asked() -> None:
    alice = make_user("alice", roles.ANNOTATOR)
    queue = _queue_of(alice, 12)
    Assignment.objects.filter(pk__in=[queue[3].pk, queue[7].pk]).update(
        status=Assignment.Status.SUBMITTED
    )
    body = _get(alice, "?status=submitted").json()
    assert [a["id"] for a in body["assignments"]] == [queue[3].pk, queue[7].pk]
    assert body["total"] == 2 and body["counts"]["new"] == 10


def test_a_bad_page_or_status_is_a_400_naming_the_field() -> None:
    alice = make_user("alice", roles.ANNOTATOR)
    for query, field in (("?page=0", "page"), ("?status=lost", "status")):
        response = _get(alice, query)
        assert response.status_code == 400 and field in response.json()["error"]["fields"]


def test_reading_a_long_queue_takes_a_few_queries_whatever_its_length(
    django_assert_max_num_queries: Any,
) -> None:
    alice = make_user("alice", roles.ANNOTATOR)
    _queue_of(alice, 3 * QUEUE_PAGE)
    client = APIClient()
    client.force_authenticate(alice)
    with django_assert_max_num_queries(6):
        response = client.get("/api/queue/?page=2")
    assert len(response.json()["assignments"]) == QUEUE_PAGE


def _prefill(assignment: Assignment, expected: float | None) -> None:
    AutoAlignment.objects.create(
        pair=assignment.pair, aligner="supervised", expected_corrections=expected
    )


def test_in_corpus_order_the_next_pair_is_the_first_not_submitted_whatever_the_prefill() -> None:
    alice = make_user("alice", roles.ANNOTATOR)
    queue = _queue_of(alice, 4)
    for assignment, doubt in zip(queue, (1.0, 0.5, 6.0, 2.0), strict=True):
        _prefill(assignment, doubt)
    assert _get(alice).json()["next_id"] == queue[0].pk
    assert next_open_assignment(user=alice, after=queue[0]) == queue[1].pk


def test_least_sure_first_opens_the_planned_pair_whose_prefill_is_least_sure() -> None:
    alice = make_user("alice", roles.ANNOTATOR)
    queue = _queue_of(alice, 5)
    Corpus.objects.filter(name="big").update(queue_order=Corpus.QueueOrder.LEAST_SURE)
    for assignment, doubt in zip(queue, (1.0, 0.5, 6.0, 2.0, None), strict=True):
        _prefill(assignment, doubt)
    _prefill(queue[3], 9.0)  # retrained since: the newest prefill counts
    assert _get(alice).json()["next_id"] == queue[3].pk
    queue[3].status = Assignment.Status.SUBMITTED
    queue[3].save(update_fields=["status"])
    assert _get(alice).json()["next_id"] == queue[2].pk
    # after submitting a pair: the least sure of the others not submitted
    assert next_open_assignment(user=alice, after=queue[2]) == queue[0].pk
    Assignment.objects.filter(pk__in=[a.pk for a in queue[:4]]).update(
        status=Assignment.Status.SUBMITTED
    )
    assert next_open_assignment(user=alice, after=queue[0]) == queue[4].pk  # no estimate: last
