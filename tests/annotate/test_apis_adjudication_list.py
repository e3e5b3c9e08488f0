"""The adjudicator's list through the API: pairs with two or more submitted annotations, paged on
the server with a total, filtered, searched and sorted by disagreement; and the next waiting
pair in the list's order."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from annotate import roles
from annotate.models import Corpus, SentencePair
from annotate.services.adjudication import gold_save
from annotate.services.corpora import corpus_import_records
from scoring.alignment.links import Alignment
from scoring.alignment.metrics import lowest_pairwise_f1
from scoring.corpus import AnnotationRecord
from tests.annotate.factories import make_user
from tests.annotate.records import make_record

pytestmark = pytest.mark.django_db

SOURCE, TARGET = "a b c d", "a b c d"


def _import(corpus: str, rows: list[tuple[str, dict[str, str], dict[str, Any]]]) -> None:
    """``rows``: pair id, annotator → Pharaoh links (a name ending in ``~`` is in progress),
    record fields."""
    records = []
    for pair_id, work, extra in rows:
        record = make_record(pair_id, SOURCE, TARGET, prefill=None, **extra)
        for name, links in work.items():
            status = "in_progress" if name.endswith("~") else "submitted"
            record.annotations[name.rstrip("~")] = AnnotationRecord(
                alignment=Alignment.from_pharaoh(links, 4, 4), status=status
            )
        records.append(record)
    corpus_import_records(corpus_name=corpus, records=records)


@pytest.fixture
def carol() -> APIClient:
    client = APIClient()
    client.force_authenticate(make_user("carol", roles.ADJUDICATOR))
    return client


def _get(client: APIClient, query: str = "") -> dict[str, Any]:
    response = client.get(f"/api/adjudication/{query}")
    assert response.status_code == 200, response.content
    return dict(response.json())


def _ids(body: dict[str, Any]) -> list[str]:
    return [row["external_id"] for row in body["results"]]


def test_only_pairs_with_two_submitted_annotations_are_listed_with_their_gold(
    carol: APIClient,
) -> None:
    _import(
        "news",
        [
            ("one", {"A": "0-0", "B~": "0-0", "C~": "1-1"}, {}),
            ("done", {"A": "0-0", "B": "0-0"}, {}),
            ("three", {"A": "0-0", "B": "0-0 1-1", "C": "2-2", "D~": ""}, {}),
            ("none", {}, {}),
            ("imported", {"A": "0-0", "B": "1-1"}, {"gold": "0-0"}),
        ],
    )
    gold_save(
        pair=SentencePair.objects.get(external_id="done"),
        links={},
        adjudicator=make_user("dave", roles.ADJUDICATOR),
        base_version=0,
    )
    body = _get(carol)
    assert body["total"] == 3 and body["pages"] == 1
    rows = {row["external_id"]: row for row in body["results"]}
    assert _ids(body) == ["done", "three", "imported"]  # corpus order
    assert (rows["three"]["submitted"], rows["three"]["annotators"]) == (3, ["A", "B", "C"])
    assert (rows["done"]["status"], rows["done"]["adjudicator"]) == ("adjudicated", "dave")
    assert rows["imported"]["status"] == "waiting"
    assert rows["imported"]["gold_source"] == "imported"
    assert rows["three"]["gold_source"] is None and rows["three"]["corpus"] == "news"
    assert _ids(_get(carol, "?status=adjudicated")) == ["done"]
    assert _ids(_get(carol, "?status=imported")) == ["imported"]
    assert _ids(_get(carol, "?status=waiting")) == ["three", "imported"]


def test_the_list_pages_past_five_hundred_pairs_and_counts_them_all(carol: APIClient) -> None:
    _import("big", [(f"dev:{k}", {"A": "0-0", "B": "0-0"}, {}) for k in range(620)])
    first = _get(carol)
    assert (first["total"], first["pages"], first["per_page"]) == (620, 13, 50)
    assert _ids(first)[:2] == ["dev:0", "dev:1"]
    last = _get(carol, "?page=13")
    assert _ids(last) == [f"dev:{k}" for k in range(600, 620)]
    eleventh = _get(carol, "?page=11")
    assert _ids(eleventh)[0] == "dev:500"
    past = carol.get("/api/adjudication/?page=14")
    assert past.status_code == 400 and past.json()["error"]["field"] == "page"


def test_filters_by_corpus_sub_corpus_split_and_annotator_and_searches_ids_and_texts(
    carol: APIClient,
) -> None:
    _import(
        "news",
        [
            ("n1", {"A": "0-0", "B": "0-0"}, {"subcorpus": "mtc", "split": "dev"}),
            ("n2", {"A": "0-0", "C": "0-0"}, {"subcorpus": "leagues", "split": "test"}),
        ],
    )
    _import("novels", [("v1", {"B": "0-0", "C": "0-0"}, {"subcorpus": "mtc", "split": "dev"})])
    news = Corpus.objects.get(name="news").pk
    assert _ids(_get(carol, f"?corpus={news}")) == ["n1", "n2"]
    assert _ids(_get(carol, "?subcorpus=mtc")) == ["n1", "v1"]
    assert _ids(_get(carol, f"?subcorpus=mtc&corpus={news}")) == ["n1"]
    assert _ids(_get(carol, "?split=test")) == ["n2"]
    assert _ids(_get(carol, "?annotator=B")) == ["n1", "v1"]
    assert _ids(_get(carol, "?annotator=nobody")) == []
    assert _ids(_get(carol, "?q=V1")) == ["v1"]  # the pair id, ignoring case
    SentencePair.objects.filter(external_id="n2").update(target_text="the council met")
    assert _ids(_get(carol, "?q=Council")) == ["n2"]  # the text


def test_sorting_by_disagreement_puts_the_lowest_pairwise_f1_first(carol: APIClient) -> None:
    annotations = {
        "agree": {"A": "0-0 1-1", "B": "0-0 1?1", "C": "0-0 1-1"},
        "apart": {"A": "0-0", "B": "1-1 2-2", "C": "0-0"},
        "half": {"A": "0-0 1-1", "B": "0-0 2-2", "C": "0-0 1-1 2-2"},
    }
    _import("c", [(name, links, {}) for name, links in annotations.items()])
    body = _get(carol, "?sort=disagreement")
    assert _ids(body) == ["apart", "half", "agree"]
    for row in body["results"]:
        found = [Alignment.from_pharaoh(x, 4, 4) for x in annotations[row["external_id"]].values()]
        assert row["lowest_f1"] == pytest.approx(lowest_pairwise_f1(found))
    assert _ids(_get(carol, "?sort=id")) == ["agree", "apart", "half"]


def test_bad_filters_are_400s_naming_the_parameter(carol: APIClient) -> None:
    for query, name in (("?sort=random", "sort"), ("?status=done", "status"), ("?page=0", "page")):
        response = carol.get(f"/api/adjudication/{query}")
        assert response.status_code == 400 and name in response.json()["error"]["fields"], query


def test_listing_takes_the_same_number_of_queries_for_many_pairs(
    carol: APIClient, django_assert_max_num_queries: Any
) -> None:
    _import("c", [(f"p{k}", {"A": "0-0", "B": "1-1", "C": "0-0"}, {}) for k in range(60)])
    with django_assert_max_num_queries(6):  # roles, the annotator, count, ids, rows, names
        body = _get(carol, "?annotator=A&sort=disagreement&status=waiting")
    assert body["total"] == 60 and len(body["results"]) == 50


def test_the_next_waiting_pair_follows_the_lists_order_and_wraps_around(
    carol: APIClient,
) -> None:
    annotations = {
        "p0": {"A": "0-0", "B": "0-0"},  # F1 1
        "p1": {"A": "0-0", "B": "1-1"},  # F1 0
        "p2": {"A": "0-0 1-1", "B": "0-0"},  # F1 2/3
        "p3": {"A": "0-0", "B": "2-2"},  # F1 0, adjudicated below
    }
    _import("c", [(name, links, {}) for name, links in annotations.items()])
    pk = dict(SentencePair.objects.values_list("external_id", "pk"))
    judge = make_user("judge", roles.ADJUDICATOR)
    gold_save(
        pair=SentencePair.objects.get(pk=pk["p3"]), links={}, adjudicator=judge, base_version=0
    )

    def following(name: str, query: str = "") -> str | None:
        response = carol.get(f"/api/adjudication/next/?after={pk[name]}{query}")
        assert response.status_code == 200, response.content
        return response.json()["external_id"]

    assert [following(name) for name in ("p0", "p1", "p2", "p3")] == ["p1", "p2", "p0", "p0"]
    by_disagreement = "&sort=disagreement&status=adjudicated"  # the status filter is ignored
    assert following("p1", by_disagreement) == "p2"
    assert following("p2", by_disagreement) == "p0"
    assert following("p0", by_disagreement) == "p1"
    assert following("p3", by_disagreement) == "p2"  # F1 0 like p1, later in the corpus
    assert following("p0", "&q=p0") is None  # nothing else in that list waits
    assert carol.get("/api/adjudication/next/").status_code == 400
    assert carol.get("/api/adjudication/next/?after=999999").status_code == 404
