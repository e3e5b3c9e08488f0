"""Shared API fields: lists are measured before their items are validated; paged lists link
their next and previous pages."""

from __future__ import annotations

import pytest
from rest_framework import serializers
from rest_framework.test import APIClient

from annotate import roles
from annotate.apis.common import MAX_LINKS, BoundedListField
from annotate.services.annotations import annotation_open
from tests.annotate.factories import make_assignment, make_corpus, make_pair, make_user


class _Exploding(serializers.CharField):
    def run_validation(self, data: object = serializers.empty) -> object:
        raise AssertionError("an item was validated")


def test_a_list_over_its_length_is_refused_before_any_item_is_validated() -> None:
    field = BoundedListField(child=_Exploding(), max_length=3)
    with pytest.raises(serializers.ValidationError, match="no more than 3 elements"):
        field.run_validation(["a"] * 4)


@pytest.mark.django_db
def test_a_save_with_more_links_than_the_largest_grid_has_cells_is_a_400() -> None:
    alice = make_user("alice", roles.ANNOTATOR)
    assignment = make_assignment(make_pair(), alice)
    annotation_open(assignment=assignment, actor=alice)
    client = APIClient()
    client.force_authenticate(alice)
    body = {"version": 1, "links": [[0, 0, "S"]] * (MAX_LINKS + 1)}
    response = client.put(f"/api/assignments/{assignment.pk}/annotation/", body, format="json")
    assert response.status_code == 400
    assert "links" in response.json()["error"]["fields"]


@pytest.mark.django_db
def test_every_refusal_has_the_one_error_shape() -> None:
    """A serializer's, an authentication's and a permission's refusal answer as the domain's
    errors do: ``{"error": {"code", "message", ...}}``."""
    alice = make_user("alice", roles.ANNOTATOR)
    assignment = make_assignment(make_pair(), alice)
    annotation_open(assignment=assignment, actor=alice)
    address = f"/api/assignments/{assignment.pk}/annotation/"
    anonymous = APIClient().get(address)
    assert anonymous.status_code in (401, 403)
    assert anonymous.json() == {
        "error": {
            "code": "not_authenticated",
            "message": "Authentication credentials were not provided.",
        }
    }
    client = APIClient()
    client.force_authenticate(alice)
    refused = client.put(address, {"version": "one", "links": []}, format="json")
    assert refused.status_code == 400
    assert refused.json() == {
        "error": {
            "code": "invalid",
            "message": "version: A valid integer is required.",
            "field": "version",
            "fields": {"version": ["A valid integer is required."]},
        }
    }
    forbidden = client.get("/api/users/")
    assert forbidden.status_code == 403
    assert set(forbidden.json()) == {"error"}
    assert forbidden.json()["error"]["code"] == "permission_denied"


@pytest.mark.django_db
def test_a_page_links_its_next_and_previous_pages_absolutely_keeping_the_query() -> None:
    corpus = make_corpus()
    for _ in range(5):
        make_pair(corpus, split="dev")
    client = APIClient()
    client.force_authenticate(make_user("ada", roles.ADMIN))
    url = f"/api/corpora/{corpus.pk}/pairs/"
    first = client.get(url, {"split": "dev", "sort": "-id", "per_page": 2}).json()
    assert (first["pages"], first["previous"], len(first["results"])) == (3, None, 2)
    assert first["next"] == f"http://testserver{url}?split=dev&sort=-id&per_page=2&page=2"
    second = client.get(first["next"]).json()
    assert second["page"] == 2 and second["previous"].endswith("&page=1")
    assert {row["id"] for row in second["results"]}.isdisjoint(r["id"] for r in first["results"])
    last = client.get(second["next"]).json()
    assert (last["page"], last["next"], len(last["results"])) == (3, None, 1)
    beyond = client.get(url, {"page": 9, "per_page": 2})
    assert beyond.status_code == 400 and beyond.json()["error"]["field"] == "page"
