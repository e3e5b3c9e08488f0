"""Shared API fields: lists are measured before their items are validated."""

from __future__ import annotations

import pytest
from rest_framework import serializers
from rest_framework.test import APIClient

from annotate import roles
from annotate.apis.common import MAX_LINKS, BoundedListField
from annotate.services.annotations import annotation_open
from tests.annotate.factories import make_assignment, make_pair, make_user


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
