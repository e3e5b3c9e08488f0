"""One pair for its adjudicator through the API: every annotator's links, the majority the
scoring rule takes of the submitted ones with its ties, and the history of the gold."""

from __future__ import annotations

import itertools
import random
from typing import Any

import pytest
from rest_framework.test import APIClient

from annotate import roles
from annotate.models import GoldEvent, SentencePair
from annotate.selectors.adjudication import HISTORY_LIMIT, HISTORY_LINKS
from annotate.services.adjudication import gold_save
from annotate.services.corpora import corpus_import_records
from scoring.alignment.links import Alignment
from scoring.corpus import AnnotationRecord
from tests.annotate.factories import make_pair, make_user
from tests.annotate.records import make_record
from tests.scoring.alignment.majority_reference import reference_majority

pytestmark = pytest.mark.django_db
_corpora = itertools.count()


@pytest.fixture
def carol() -> APIClient:
    client = APIClient()
    client.force_authenticate(make_user("carol", roles.ADJUDICATOR))
    return client


def _pair_with(annotations: dict[str, tuple[str, str]], n: int = 3, m: int = 3) -> SentencePair:
    """A pair annotated by each name: (Pharaoh links, status)."""
    record = make_record("p", " ".join("abcdefgh"[:n]), " ".join("abcdefgh"[:m]), prefill=None)
    for name, (links, status) in annotations.items():
        record.annotations[name] = AnnotationRecord(
            alignment=Alignment.from_pharaoh(links, n, m), status=status
        )
    corpus_import_records(corpus_name=f"c{next(_corpora)}", records=[record])
    return SentencePair.objects.latest("pk")


def _detail(client: APIClient, pair: SentencePair) -> dict[str, Any]:
    response = client.get(f"/api/pairs/{pair.pk}/adjudication/")
    assert response.status_code == 200
    return dict(response.json())


def test_the_majority_counts_submitted_annotations_only_and_lists_its_ties(
    carol: APIClient,
) -> None:
    pair = _pair_with(
        {
            "A": ("0-0 1-1 2?2", "submitted"),
            "B": ("0-0 1?1", "submitted"),
            "C": ("0?0 2-2", "submitted"),
            "D": ("0-0 1-1 2-2", "submitted"),
            "E": ("0-1 1-0 2-1", "in_progress"),
        }
    )
    body = _detail(carol, pair)
    assert [(a["annotator"], a["counted"]) for a in body["annotations"]] == [
        ("A", True),
        ("B", True),
        ("C", True),
        ("D", True),
        ("E", False),
    ]
    majority = body["majority"]
    assert majority["annotators"] == ["A", "B", "C", "D"]
    # 0-0: four of four linked it, three sure. 1-1: three linked, two sure of four: a kind tie.
    # 2-2: three linked (A possible, C and D sure): two sure of four, a kind tie as well.
    assert majority["links"] == [[0, 0, "S"], [1, 1, "P"], [2, 2, "P"]]
    assert majority["kind_ties"] == [[1, 1], [2, 2]]
    assert majority["link_ties"] == []


def test_one_sure_in_three_linked_by_two_is_a_possible_link_on_the_page(carol: APIClient) -> None:
    pair = _pair_with(
        {"A": ("", "submitted"), "B": ("0?0", "submitted"), "C": ("0-0", "submitted")}
    )
    assert _detail(carol, pair)["majority"]["links"] == [[0, 0, "P"]]


def test_a_pair_without_submitted_work_has_no_majority(carol: APIClient) -> None:
    assert _detail(carol, make_pair(prefill=None))["majority"] is None


@pytest.mark.parametrize("seed", range(4))
def test_the_page_takes_the_scoring_rules_majority_of_two_to_five_annotators(
    carol: APIClient, seed: int
) -> None:
    rng = random.Random(seed)
    for _ in range(10):
        n, m, k = rng.randint(1, 5), rng.randint(1, 5), rng.randint(2, 5)
        found = {}
        for name in (f"r{x}" for x in range(k)):
            cells = [(i, j) for i in range(n) for j in range(m) if rng.random() < 0.5]
            found[name] = " ".join(f"{i}{rng.choice('-?')}{j}" for i, j in cells)
        pair = _pair_with({name: (links, "submitted") for name, links in found.items()}, n, m)
        sure, linked, link_ties, kind_ties = reference_majority(
            [Alignment.from_pharaoh(links, n, m) for links in found.values()]
        )
        majority = _detail(carol, pair)["majority"]
        assert {(i, j) for i, j, _ in majority["links"]} == linked
        assert {(i, j) for i, j, kind in majority["links"] if kind == "S"} == sure
        assert {tuple(cell) for cell in majority["link_ties"]} == link_ties
        assert {tuple(cell) for cell in majority["kind_ties"]} == kind_ties


def test_the_history_lists_every_gold_change_newest_first(carol: APIClient) -> None:
    pair = make_pair(prefill=None, gold=[(0, 0, True)])
    dave = make_user("dave", roles.ADJUDICATOR)
    gold_save(pair=pair, links={(0, 0): True, (1, 1): False}, adjudicator=dave, base_version=1)
    gold_save(pair=pair, links={(1, 1): True}, adjudicator=dave, base_version=2)
    response = carol.get(f"/api/pairs/{pair.pk}/gold/events/")
    assert response.status_code == 200
    body = response.json()
    assert body["total"] == 3
    events = [
        (e["version"], e["kind"], e["actor"], e["set"], e["added"], e["cleared"], e["removed"])
        for e in body["events"]
    ]
    assert events == [
        (3, "adjudicated", "dave", 1, [[1, 1, "S"]], 1, [[0, 0]]),
        (2, "adjudicated", "dave", 1, [[1, 1, "P"]], 0, []),
        (1, "imported", None, 1, [[0, 0, "S"]], 0, []),
    ]
    assert all(e["created_at"] for e in body["events"])
    assert carol.get(f"/api/pairs/{make_pair().pk}/gold/events/").json() == {
        "total": 0,
        "events": [],
    }


def test_the_history_of_a_long_pair_lists_a_bounded_part_of_each_change(carol: APIClient) -> None:
    words = " ".join(f"w{k}" for k in range(40))
    pair = make_pair(source=words, target=words, prefill=None)
    dave = make_user("dave", roles.ADJUDICATOR)
    full = {(i, j): True for i in range(40) for j in range(40)}
    for version in range(HISTORY_LIMIT + 5):
        links = full if version % 2 == 0 else {}
        gold_save(pair=pair, links=links, adjudicator=dave, base_version=version)
    body = carol.get(f"/api/pairs/{pair.pk}/gold/events/").json()
    assert body["total"] == HISTORY_LIMIT + 5
    assert len(body["events"]) == HISTORY_LIMIT
    newest = body["events"][0]
    assert (newest["version"], newest["set"], len(newest["added"])) == (35, 1600, HISTORY_LINKS)
    assert (body["events"][1]["cleared"], len(body["events"][1]["removed"])) == (1600, 20)
    stored = GoldEvent.objects.get(pair=pair, version=35)
    assert newest["added"] == stored.added[:HISTORY_LINKS]
    stored = GoldEvent.objects.get(pair=pair, version=34)
    assert body["events"][1]["removed"] == stored.removed[:HISTORY_LINKS]


def _properties(node: dict[str, Any], components: dict[str, Any]) -> dict[str, Any]:
    """An object schema's properties, through ``$ref`` and ``allOf``."""
    while "$ref" in node or "allOf" in node:
        ref = node["$ref"] if "$ref" in node else node["allOf"][0]["$ref"]
        node = components[ref.rsplit("/", 1)[1]]
    return dict(node.get("properties", {}))


def test_the_schema_names_every_field_of_the_answer(carol: APIClient) -> None:
    import io

    import yaml
    from django.core.management import call_command

    pair = _pair_with({"A": ("0-0 1?1", "submitted"), "B": ("0-0", "in_progress")})
    eve = make_user("eve", roles.ADJUDICATOR)
    gold_save(pair=pair, links={(0, 0): True}, adjudicator=eve, base_version=0)
    out = io.StringIO()
    call_command("spectacular", stdout=out)
    schema = yaml.safe_load(out.getvalue())
    components = schema["components"]["schemas"]
    answer = schema["paths"]["/api/pairs/{pair_id}/adjudication/"]["get"]["responses"]["200"]
    top = _properties(answer["content"]["application/json"]["schema"], components)
    detail = _detail(carol, pair)
    assert set(detail) == set(top)
    for name in ("pair", "majority", "gold"):
        assert set(detail[name]) == set(_properties(top[name], components)), name
    annotation = _properties(top["annotations"]["items"], components)
    assert all(set(row) == set(annotation) for row in detail["annotations"])
