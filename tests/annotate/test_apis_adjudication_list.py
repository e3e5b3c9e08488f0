"""The adjudicator's list: pairs with two or more submitted annotations, waiting ones first."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from annotate import roles
from annotate.models import Assignment, Corpus, GoldAlignment, SentencePair
from tests.annotate.factories import make_assignment, make_corpus, make_pair, make_user

pytestmark = pytest.mark.django_db


def _pair(corpus: Corpus, name: str, submitted: int, started: int = 0) -> SentencePair:
    pair = make_pair(corpus, external_id=name)
    for k in range(submitted + started):
        assignment = make_assignment(pair, make_user(f"{name}-a{k}", roles.ANNOTATOR))
        status = Assignment.Status.SUBMITTED if k < submitted else Assignment.Status.IN_PROGRESS
        Assignment.objects.filter(pk=assignment.pk).update(status=status)
    return pair


def _list(user: Any, query: str = "") -> list[dict[str, Any]]:
    client = APIClient()
    client.force_authenticate(user)
    response = client.get(f"/api/adjudication/{query}")
    assert response.status_code == 200
    return list(response.json())


def test_it_lists_pairs_with_two_submitted_annotations_waiting_ones_first() -> None:
    carol = make_user("carol", roles.ADJUDICATOR)
    corpus = make_corpus("news")
    _pair(corpus, "one", submitted=1, started=2)  # three annotators, one of them done
    done = _pair(corpus, "done", submitted=2)
    _pair(corpus, "three", submitted=3, started=1)
    _pair(corpus, "none", submitted=0)
    imported = _pair(corpus, "imported", submitted=2)
    GoldAlignment.objects.create(pair=done, source="adjudicated", adjudicator=carol)
    GoldAlignment.objects.create(pair=imported, source="imported")

    rows = _list(carol)

    assert [(row["external_id"], row["n_submitted"], row["status"]) for row in rows] == [
        ("three", 3, "waiting"),
        ("imported", 2, "waiting"),
        ("done", 2, "adjudicated"),
    ]
    by_id = {row["external_id"]: row for row in rows}
    assert by_id["done"]["adjudicator"] == "carol" and by_id["done"]["gold_source"] == "adjudicated"
    assert by_id["imported"]["gold_source"] == "imported" and by_id["imported"]["has_gold"]
    assert not by_id["three"]["has_gold"] and by_id["three"]["corpus"] == "news"
    assert [row["external_id"] for row in _list(carol, "?status=adjudicated")] == ["done"]
    assert [row["external_id"] for row in _list(carol, "?status=imported")] == ["imported"]
    assert [row["external_id"] for row in _list(carol, "?status=waiting")] == ["three", "imported"]


def test_listing_takes_the_same_number_of_queries_for_many_pairs(
    django_assert_max_num_queries: Any,
) -> None:
    carol = make_user("carol", roles.ADJUDICATOR)
    corpus = make_corpus()
    annotators = [make_user(f"annotator{k}", roles.ANNOTATOR) for k in range(2)]
    for index in range(30):
        pair = make_pair(corpus, external_id=f"p{index}")
        for annotator in annotators:
            make_assignment(pair, annotator)
        if index % 3 == 0:
            GoldAlignment.objects.create(pair=pair, source="adjudicated", adjudicator=carol)
    Assignment.objects.update(status=Assignment.Status.SUBMITTED)
    client = APIClient()
    client.force_authenticate(carol)
    with django_assert_max_num_queries(3):  # the user's roles, then one for the list
        response = client.get("/api/adjudication/")
    assert len(response.json()) == 30
