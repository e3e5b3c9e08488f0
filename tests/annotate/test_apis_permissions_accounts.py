"""Permission matrix of the user endpoints by the rank of the account acted on:
nobody acts on an account more privileged than their own. Only a superuser changes a superuser
or a staff account; an admin changes admins and annotators as before; a refused change changes
nothing. (Who may call these endpoints at all is in ``test_apis_permissions_admin``.)"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from rest_framework.test import APIClient

from annotate import roles
from tests.annotate.factories import make_user

pytestmark = pytest.mark.django_db

PASSWORD = "a-long-Password-1"
ACTORS = ("admin", "staff_admin", "root")
TARGETS = ("root2", "staff", "admin2", "annotator")

# actor -> target -> status, for every operation below
EXPECTED = {
    "admin": {"root2": 403, "staff": 403, "admin2": 200, "annotator": 200},
    "staff_admin": {"root2": 403, "staff": 403, "admin2": 200, "annotator": 200},
    "root": {"root2": 200, "staff": 200, "admin2": 200, "annotator": 200},
}


@pytest.fixture(autouse=True)
def _fast_passwords(settings: Any) -> None:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def people() -> dict[str, Any]:
    model = get_user_model()
    people = {
        "admin": make_user("admin", roles.ADMIN),
        "staff_admin": make_user("staff_admin", roles.ADMIN),
        "root": model.objects.create_superuser("root", password=PASSWORD),
        "root2": model.objects.create_superuser("root2", password=PASSWORD),
        "staff": make_user("staff", roles.ANNOTATOR, password=PASSWORD),
        "admin2": make_user("admin2", roles.ADMIN, password=PASSWORD),
        "annotator": make_user("annotator", roles.ANNOTATOR, password=PASSWORD),
    }
    model.objects.filter(username__in=["staff", "staff_admin"]).update(is_staff=True)
    return {name: model.objects.get(pk=user.pk) for name, user in people.items()}


def _client(user: Any) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


# (name, call, success status); a call takes (client, target id)
Operation = tuple[str, Callable[[APIClient, int], Any], int]
OPERATIONS: list[Operation] = [
    ("deactivate", lambda c, i: c.patch(f"/api/users/{i}/", {"is_active": False}, "json"), 200),
    ("change roles", lambda c, i: c.patch(f"/api/users/{i}/", {"roles": ["admin"]}, "json"), 200),
    (
        "change e-mail",
        lambda c, i: c.patch(f"/api/users/{i}/", {"email": "x@example.org"}, "json"),
        200,
    ),
    ("password link", lambda c, i: c.post(f"/api/users/{i}/password-link/"), 201),
]


@pytest.mark.parametrize("actor", ACTORS)
@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("operation", OPERATIONS, ids=[op[0] for op in OPERATIONS])
def test_each_actor_gets_its_status_for_each_rank_of_account(
    people: dict[str, Any], actor: str, target: str, operation: Operation
) -> None:
    _, call, success = operation
    expected = EXPECTED[actor][target]
    before = get_user_model().objects.filter(pk=people[target].pk).values().get()
    before_groups = set(people[target].groups.values_list("name", flat=True))
    response = call(_client(people[actor]), people[target].pk)
    assert response.status_code == (success if expected == 200 else expected), response.content
    if expected == 403:
        assert response.json()["error"]["code"] == "permission_denied"
        after = get_user_model().objects.filter(pk=people[target].pk).values().get()
        assert after == before, "a refused change changes nothing"
        assert set(people[target].groups.values_list("name", flat=True)) == before_groups


def test_an_admin_cannot_take_over_a_superuser_through_a_password_link(
    people: dict[str, Any],
) -> None:
    response = _client(people["admin"]).post(f"/api/users/{people['root2'].pk}/password-link/")
    assert response.status_code == 403
    assert "only a superuser" in response.json()["error"]["message"]
    assert "path" not in response.json()
    login = Client().post("/login/", {"username": "root2", "password": PASSWORD})
    assert login.status_code == 302, "the superuser's password still works"


def test_a_staff_admin_changes_their_own_e_mail(people: dict[str, Any]) -> None:
    me = people["staff_admin"]
    response = _client(me).patch(f"/api/users/{me.pk}/", {"email": "me@example.org"}, "json")
    assert response.status_code == 200


def test_the_list_tells_which_accounts_the_caller_may_change(people: dict[str, Any]) -> None:
    def can_change(actor: str) -> dict[str, bool]:
        rows = _client(people[actor]).get("/api/users/").json()
        return {row["username"]: row["can_change"] for row in rows}

    as_admin = can_change("admin")
    assert not as_admin["root2"] and not as_admin["staff"] and not as_admin["staff_admin"]
    assert as_admin["admin2"] and as_admin["annotator"] and as_admin["admin"]
    assert all(can_change("root").values())


def test_in_the_django_admin_staff_cannot_change_a_superuser_or_grant_privileges(
    people: dict[str, Any],
) -> None:
    from django.contrib.auth.models import Permission

    staff = people["staff"]
    staff.user_permissions.add(
        *Permission.objects.filter(codename__in=["change_user", "view_user", "delete_user"])
    )
    client = Client()
    client.force_login(staff)
    root2 = people["root2"]
    form = {"username": "root2", "is_active": "", "date_joined_0": "2026-01-01"}
    assert client.post(f"/admin/auth/user/{root2.pk}/change/", form).status_code == 403
    assert client.get(f"/admin/auth/user/{root2.pk}/password/").status_code == 403
    assert client.post(f"/admin/auth/user/{root2.pk}/delete/", {"post": "yes"}).status_code == 403
    root2.refresh_from_db()
    assert root2.is_active
    own = client.get(f"/admin/auth/user/{staff.pk}/change/").content.decode()
    assert 'name="is_superuser"' not in own and 'name="user_permissions"' not in own
    assert 'name="groups"' not in own


def test_in_the_django_admin_only_a_superuser_adds_renames_or_deletes_a_group(
    people: dict[str, Any],
) -> None:
    """The roles are the groups of those names: staff given Django's group permissions made
    every annotator an admin by renaming the annotator group ``admin`` (the admin group
    renamed first), or took the role from every admin by deleting its group."""
    from django.contrib.auth.models import Group, Permission

    staff = people["staff"]
    staff.user_permissions.add(
        *Permission.objects.filter(
            codename__in=["add_group", "change_group", "delete_group", "view_group"]
        )
    )
    client = Client()
    client.force_login(staff)
    admin_group = roles.role_group(roles.ADMIN)
    url = f"/admin/auth/group/{admin_group.pk}"
    groups = set(Group.objects.values_list("name", flat=True))
    assert client.post(f"{url}/change/", {"name": "admin-old"}).status_code == 403
    assert client.post(f"{url}/delete/", {"post": "yes"}).status_code == 403
    assert client.post("/admin/auth/group/add/", {"name": "anyone"}).status_code == 403
    assert client.get("/admin/auth/group/").status_code == 200, "staff still see the groups"
    assert set(Group.objects.values_list("name", flat=True)) == groups
    assert groups >= {roles.ADMIN, roles.ANNOTATOR} and roles.has_role(people["admin"], roles.ADMIN)
    root = Client()
    root.force_login(people["root"])
    renamed = root.post(f"{url}/change/", {"name": "admin"})
    assert renamed.status_code == 302, "a superuser changes groups"
