"""A long list's page is read by its ids first (the sort carries no texts), then its rows: the
same rows as the queryset sliced, of the pair list (with and without a search, every order) and
of an annotator's queue deep into a corpus; a search past the first page is evaluated once."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from annotate import roles
from annotate.models import Assignment, SentencePair
from annotate.selectors import workspace
from annotate.selectors.corpora import PAIR_SORTS, corpus_pairs_filtered, corpus_pairs_page
from annotate.selectors.paging import IdsFirst
from annotate.selectors.workspace import QUEUE_ORDER, QueuePage, queue_listed, queue_tally
from tests.annotate.factories import make_corpus, make_user

pytestmark = pytest.mark.django_db

WORDS = ("council", "budget", "police", "minister", "debate")


def _corpus(size: int = 23) -> Any:
    corpus = make_corpus("paged")
    SentencePair.objects.bulk_create(
        SentencePair(
            corpus=corpus,
            external_id=f"p{k}",
            subcorpus=("news", "mtc")[k % 2],
            source_text=f"{WORDS[k % 5]} x {k}",
            target_text=f"y {WORDS[(k * 3) % 5]}",
            source_tokens=[WORDS[k % 5], "x", str(k)],
            target_tokens=["y", WORDS[(k * 3) % 5]] + ["z"] * (k % 4),
            n_source=3,
            n_target=2 + k % 4,
            position=(k * 7) % size,
        )
        for k in range(size)
    )
    return corpus


@pytest.mark.parametrize("whole", [False, True])
@pytest.mark.parametrize("search", ["", "council", "COUNCIL", "p1", "nothing"])
def test_every_slice_is_the_queryset_sliced(whole: bool, search: str) -> None:
    corpus = _corpus()
    for sort in PAIR_SORTS:
        pairs = corpus_pairs_filtered(corpus, search=search, sort=sort)
        expected = list(pairs.values_list("pk", flat=True))
        listed = IdsFirst(pairs, whole=whole)
        assert listed.count() == len(expected) == len(listed)
        for start in range(0, len(expected) + 1, 3):
            for stop in (start, start + 1, start + 5, len(expected) + 2):
                assert [p.pk for p in listed[start:stop]] == expected[start:stop]
                assert listed.ids(slice(start, stop)) == expected[start:stop]


@pytest.mark.parametrize("page", [1, 2, 4])
def test_the_apis_page_of_a_search_is_the_same_and_deep_ones_search_once(page: int) -> None:
    corpus = _corpus()
    pairs = corpus_pairs_filtered(corpus, search="council", sort="-length")
    expected = list(pairs.values_list("pk", flat=True))
    with CaptureQueriesContext(connection) as queries:
        rows, total = corpus_pairs_page(
            corpus, page=page, per_page=2, search="council", sort="-length"
        )
    assert total == len(expected)
    assert [row.pk for row in rows] == expected[(page - 1) * 2 : page * 2]
    searches = [q["sql"] for q in queries.captured_queries if "COUNCIL" in q["sql"].upper()]
    # the first page counts apart and reads its page; a deeper one evaluates the search once
    assert len(searches) == (2 if page == 1 else 1), searches


def test_the_pair_lists_deep_page_sorts_ids_not_texts() -> None:
    corpus = _corpus()
    client = Client()
    client.force_login(make_user("root", roles.ADMIN))
    with CaptureQueriesContext(connection) as queries:
        response = client.get(f"/corpora/{corpus.pk}/pairs/?sort=-length&page=1")
    assert response.status_code == 200
    sorted_reads = [q["sql"] for q in queries.captured_queries if "ORDER BY" in q["sql"]]
    sorted_pairs = [sql for sql in sorted_reads if "annotate_sentencepair" in sql.split("FROM")[1]]
    assert sorted_pairs
    assert all("source_text" not in sql.split("FROM")[0] for sql in sorted_pairs), sorted_pairs
    shown = [pair.pk for pair in response.context["table"].rows]
    expected = corpus_pairs_filtered(corpus, sort="-length").order_by("-shorter", "-position", "pk")
    assert shown == list(expected.values_list("pk", flat=True)[:50])


def test_a_queue_page_deep_into_a_corpus_sorts_ids_not_texts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(workspace, "PAGE_BY_POSITION_UP_TO", 3)
    alice = make_user("alice", roles.ANNOTATOR)
    corpus = _corpus()
    Assignment.objects.bulk_create(
        Assignment(pair=pair, annotator=alice, status=("new", "submitted")[k % 2])
        for k, pair in enumerate(SentencePair.objects.filter(corpus=corpus))
    )
    expected = list(queue_listed(alice).order_by(*QUEUE_ORDER).values_list("pk", flat=True))
    with CaptureQueriesContext(connection) as queries:
        rows = QueuePage(queue_tally(alice))[5:15]
    assert [a.pk for a in rows] == expected[5:15]
    offset = [q["sql"] for q in queries.captured_queries if "OFFSET" in q["sql"]]
    assert len(offset) == 1 and "source_text" not in offset[0].split("FROM")[0], offset
