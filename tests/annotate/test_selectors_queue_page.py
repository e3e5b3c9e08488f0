"""A page of the queue in queue order is read corpus by corpus by pair position and counted
from the one grouped query of the queue's figures: the same rows as the whole queue sorted
and sliced, of any status and corpus, across corpora and deep into one."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from annotate import roles
from annotate.models import Assignment, SentencePair
from annotate.selectors import workspace
from annotate.selectors.workspace import QUEUE_ORDER, QueuePage, queue_listed, queue_tally
from tests.annotate.factories import make_corpus, make_user

pytestmark = pytest.mark.django_db

STATUSES = ("new", "submitted", "new", "in_progress", "new")


def _queue(user: Any) -> None:
    """Three corpora of 7, 0 and 9 of the user's pairs, named out of creation order, with
    pairs of the corpus not assigned to them and positions out of id order."""
    other = make_user("other", roles.ANNOTATOR)
    for name, size in (("zeta", 7), ("alpha", 9), ("mid", 0)):
        corpus = make_corpus(name)
        pairs = SentencePair.objects.bulk_create(
            SentencePair(
                corpus=corpus,
                external_id=f"{name}-{k}",
                source_text="a b",
                target_text="a b",
                source_tokens=["a", "b"],
                target_tokens=["a", "b"],
                n_source=2,
                n_target=2,
                position=(k * 7) % (2 * size + 1),
            )
            for k in range(2 * size + 1)
        )
        Assignment.objects.bulk_create(
            Assignment(pair=pair, annotator=user if k % 2 else other, status=STATUSES[k % 5])
            for k, pair in enumerate(pairs)
        )


@pytest.mark.parametrize("deep_from", [workspace.PAGE_BY_POSITION_UP_TO, 3])
def test_every_slice_of_a_queue_page_is_the_sorted_queue_sliced(
    monkeypatch: pytest.MonkeyPatch, deep_from: int
) -> None:
    monkeypatch.setattr(workspace, "PAGE_BY_POSITION_UP_TO", deep_from)
    alice = make_user("alice", roles.ANNOTATOR)
    _queue(alice)
    tally = queue_tally(alice)
    corpora = {name: pk for pk, name, _ in tally.corpora()}
    assert list(corpora) == ["alpha", "zeta"]
    for status in (None, "new", "in_progress", "submitted"):
        for corpus in (None, *corpora.values()):
            page = QueuePage(tally, status=status, corpus=corpus)
            expected = list(
                queue_listed(alice, status=status, corpus=corpus)
                .order_by(*QUEUE_ORDER)
                .values_list("pk", flat=True)
            )
            assert page.count() == len(expected)
            for start in range(len(expected) + 1):
                for stop in range(start, len(expected) + 2):
                    assert [a.pk for a in page[start:stop]] == expected[start:stop]


def test_the_home_page_counts_the_queue_in_one_grouped_query() -> None:
    alice = make_user("alice", roles.ANNOTATOR)
    _queue(alice)
    client = Client()
    client.force_login(alice)
    with CaptureQueriesContext(connection) as queries:
        response = client.get("/?page=2")
    assert response.status_code == 200
    counts = [
        query["sql"]
        for query in queries.captured_queries
        if "COUNT(" in query["sql"] and "annotate_assignment" in query["sql"]
    ]
    assert len(counts) == 1, counts
