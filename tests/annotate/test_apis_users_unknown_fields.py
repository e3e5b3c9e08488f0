"""The user endpoints refuse fields they do not know: a PATCH of ``is_superuser``, ``is_staff``,
``username`` or ``password`` answered 200 and changed nothing, as if it had been done."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient

from annotate import roles
from tests.annotate.factories import make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_api() -> APIClient:
    client = APIClient()
    client.force_authenticate(make_user("ada", roles.ADMIN))
    return client


@pytest.mark.parametrize(
    "body",
    [
        {"is_superuser": True},
        {"is_staff": True, "roles": ["admin"]},
        {"username": "root"},
        {"password": "x"},
        {"groups": [1], "user_permissions": [1]},
    ],
)
def test_a_patch_with_an_unknown_field_is_a_400_naming_it_and_changes_nothing(
    admin_api: APIClient, body: dict[str, Any]
) -> None:
    target = make_user("bea", roles.ANNOTATOR)
    before = get_user_model().objects.values().get(pk=target.pk)
    response = admin_api.patch(f"/api/users/{target.pk}/", body, format="json")
    assert response.status_code == 400, response.content
    message = str(response.json())
    unknown = sorted(set(body) - {"roles"})
    assert all(name in message for name in unknown) and "the fields are" in message
    assert get_user_model().objects.values().get(pk=target.pk) == before
    assert list(target.groups.values_list("name", flat=True)) == [roles.ANNOTATOR]


def test_creating_a_user_with_an_unknown_field_is_a_400_and_creates_nothing(
    admin_api: APIClient,
) -> None:
    body = {"username": "carl", "roles": ["admin"], "is_superuser": True}
    response = admin_api.post("/api/users/create/", body, format="json")
    assert response.status_code == 400
    assert "is_superuser" in str(response.json())
    assert not get_user_model().objects.filter(username="carl").exists()


def test_known_fields_still_work(admin_api: APIClient) -> None:
    target = make_user("bea", roles.ANNOTATOR)
    response = admin_api.patch(
        f"/api/users/{target.pk}/", {"roles": ["adjudicator"], "email": "b@example.org"}
    )
    assert response.status_code == 200
    assert response.json()["roles"] == ["adjudicator"]
    response = admin_api.post("/api/users/create/", {"username": "carl", "roles": ["annotator"]})
    assert response.status_code == 201
