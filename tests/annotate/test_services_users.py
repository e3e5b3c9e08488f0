"""Users and roles: create or invite, change roles and state, set-password links."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.utils.http import int_to_base36

from annotate import roles
from annotate.exceptions import Conflict, DomainError
from annotate.selectors.users import role_names, users_listed
from annotate.services.users import user_create, user_password_link, user_update
from tests.annotate.factories import make_assignment, make_pair, make_user

pytestmark = pytest.mark.django_db


def _logs_in(username: str, password: str) -> bool:
    response = Client().post("/login/", {"username": username, "password": password})
    return response.status_code == 302


def test_a_user_created_with_a_password_logs_in_with_it_and_holds_the_roles_given() -> None:
    user = user_create(
        username="dora",
        email="dora@example.org",
        role_names=["adjudicator", "annotator"],
        password="a-long-secret-99",
    )
    assert role_names(user) == ["annotator", "adjudicator"]
    assert _logs_in("dora", "a-long-secret-99")


def test_an_invited_user_cannot_log_in_until_they_set_a_password_with_the_link() -> None:
    admin = make_user("admin", roles.ADMIN)
    user = user_create(username="dora", role_names=["annotator"])
    assert not user.has_usable_password()
    client = Client()
    page = client.get(user_password_link(user=user, actor=admin), follow=True)
    assert page.status_code == 200 and b"Set your password" in page.content
    form_url = page.redirect_chain[-1][0]
    done = client.post(
        form_url,
        {"new_password1": "a-long-secret-99", "new_password2": "a-long-secret-99"},
        follow=True,
    )
    assert b"Password set" in done.content
    assert _logs_in("dora", "a-long-secret-99")
    again = Client().get(form_url, follow=True)
    assert b"does not work any more" in again.content, "the link works once"


@pytest.mark.parametrize(
    ("fields", "message", "field"),
    [
        ({"username": ""}, "a username is required", "username"),
        ({"username": "two words"}, "Enter a valid username", "username"),
        ({"username": "ｄｏｒａ"}, "look-alike characters; write it as 'dora'", "username"),
        ({"username": "x" * 151}, "at most 150 characters; this one has 151", "username"),
        ({"username": "<b>dora</b>"}, "Enter a valid username", "username"),
        ({"username": "dora", "email": "not-mail"}, "is not an e-mail address", "email"),
        ({"username": "dora", "role_names": ["boss"]}, "unknown role 'boss'", "roles"),
        ({"username": "dora", "password": "short"}, "too short", "password"),
    ],
)
def test_bad_new_users_are_refused_naming_the_field_and_nothing_is_stored(
    fields: dict[str, object], message: str, field: str
) -> None:
    with pytest.raises(DomainError, match=message) as caught:
        user_create(**fields)  # type: ignore[arg-type]
    assert caught.value.extra["field"] == field
    assert not get_user_model().objects.exists()


def test_a_username_is_taken_whatever_its_case() -> None:
    make_user("Dora")
    with pytest.raises(Conflict, match="already a user 'dora'"):
        user_create(username="dora")
    with pytest.raises(Conflict, match=r"already a user 'DORA' \(written 'Dora'\)"):
        user_create(username=" DORA\n")


def test_roles_are_replaced_by_the_list_given_and_deactivation_keeps_the_work() -> None:
    admin = make_user("admin", roles.ADMIN)
    dora = make_user("dora", roles.ANNOTATOR)
    assignment = make_assignment(make_pair(), dora)
    user_update(user=dora, actor=admin, role_names=["adjudicator"])
    assert role_names(dora) == ["adjudicator"]
    user_update(user=dora, actor=admin, is_active=False)
    dora.refresh_from_db()
    assert not dora.is_active and role_names(dora) == [], "a deactivated user holds no role"
    assert dora.assignments.get() == assignment


def test_an_admin_cannot_lock_themselves_out() -> None:
    admin = make_user("admin", roles.ADMIN)
    with pytest.raises(Conflict, match="admin role from yourself"):
        user_update(user=admin, actor=admin, role_names=["annotator"])
    with pytest.raises(Conflict, match="cannot deactivate yourself"):
        user_update(user=admin, actor=admin, is_active=False)
    assert role_names(admin) == ["admin"]


def _sets_password(link: str, password: str) -> bool:
    client = Client()
    page = client.get(link, follow=True)
    if b"Set your password" not in page.content or b"does not work any more" in page.content:
        return False
    form_url = page.redirect_chain[-1][0]
    client.post(form_url, {"new_password1": password, "new_password2": password})
    return _logs_in("dora", password)


@pytest.mark.parametrize("change", [{"is_active": False}, {"role_names": ["annotator"]}])
def test_a_link_stops_working_once_its_issuer_is_deactivated_or_no_longer_an_admin(
    change: dict[str, object],
) -> None:
    root = make_user("root", roles.ADMIN)
    mallory = make_user("mallory", roles.ADMIN)
    dora = make_user("dora", roles.ANNOTATOR)
    kept = user_password_link(user=dora, actor=mallory)
    user_update(user=mallory, actor=root, **change)  # type: ignore[arg-type]
    assert not _sets_password(kept, "taken-over-99"), "a former admin's link still works"
    assert _sets_password(user_password_link(user=dora, actor=root), "a-long-secret-99")


def test_a_link_whose_issuer_is_rewritten_to_another_admin_does_not_work() -> None:
    root = make_user("root", roles.ADMIN)
    mallory = make_user("mallory", roles.ADMIN)
    dora = make_user("dora", roles.ANNOTATOR)
    link = user_password_link(user=dora, actor=mallory)
    uid, token = link.strip("/").split("/")[-2:]
    forged = f"/password/{uid}/{int_to_base36(root.pk)}-{token.partition('-')[2]}/"
    assert not _sets_password(forged, "taken-over-99")
    assert not _sets_password(f"/password/{uid}/{token.partition('-')[2]}/", "taken-over-99")


def test_a_link_sets_no_password_while_its_account_is_deactivated() -> None:
    """A link held when the account was deactivated (an invitation sent to the wrong person,
    a reset of someone who left) must not set a password that lets its holder in once the
    account is reactivated."""
    admin = make_user("admin", roles.ADMIN)
    dora = user_create(username="dora", role_names=["annotator"], password="dora-own-secret-99")
    link = user_password_link(user=dora, actor=admin)
    user_update(user=dora, actor=admin, is_active=False)
    client = Client()
    page = client.get(link, follow=True)
    assert b"does not work any more" in page.content
    form_url = page.redirect_chain[-1][0] if page.redirect_chain else link
    taken = {"new_password1": "taken-over-99", "new_password2": "taken-over-99"}
    client.post(form_url, taken)
    user_update(user=dora, actor=admin, is_active=True)
    assert not _logs_in("dora", "taken-over-99"), "the link's holder is let in"
    assert _logs_in("dora", "dora-own-secret-99")


def test_a_deactivated_user_gets_no_password_link() -> None:
    admin = make_user("admin", roles.ADMIN)
    dora = make_user("dora", roles.ANNOTATOR)
    dora = user_update(user=dora, actor=admin, is_active=False)
    with pytest.raises(Conflict, match="deactivated"):
        user_password_link(user=dora, actor=admin)


def test_the_list_gives_roles_workload_and_filters_by_role_and_name() -> None:
    admin = make_user("admin", roles.ADMIN)
    make_user("root", roles.ADMIN).__class__.objects.filter(username="root").update(
        is_superuser=True
    )
    dora = make_user("dora", roles.ANNOTATOR)
    make_user("carol", roles.ADJUDICATOR)
    make_assignment(make_pair(), dora)
    rows = {row["username"]: row for row in users_listed(viewer=admin)}
    assert rows["dora"]["roles"] == ["annotator"] and rows["dora"]["assigned"] == 1
    assert rows["root"]["roles"] == list(roles.ROLES), "a superuser holds every role"
    assert rows["dora"]["can_change"] and not rows["root"]["can_change"]
    by_role = users_listed(viewer=admin, role="annotator")
    assert [r["username"] for r in by_role] == ["dora", "root"]
    assert [r["username"] for r in users_listed(viewer=admin, search="CAR")] == ["carol"]
