"""Credentials end with what they were for: a new password (by any path) replaces the API
token; a deactivation replaces the token and ends every session, so reactivating the account
revives neither."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from annotate import roles
from annotate.services.users import user_password_link, user_update
from tests.annotate.factories import make_user

pytestmark = pytest.mark.django_db

OLD = "an-old-Password-1"
NEW = "a-new-Password-22"


@pytest.fixture(autouse=True)
def _fast_passwords(settings: Any) -> None:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def dora() -> Any:
    return make_user("dora", roles.ANNOTATOR, password=OLD)


@pytest.fixture
def admin() -> Any:
    return make_user("admin", roles.ADMIN)


def _token_works(key: str) -> bool:
    return APIClient(HTTP_AUTHORIZATION=f"Token {key}").get("/api/me/").status_code == 200


def _session_works(client: Client) -> bool:
    return client.get("/").status_code == 200


def _logged_in(username: str, password: str) -> Client:
    client = Client()
    assert client.post("/login/", {"username": username, "password": password}).status_code == 302
    return client


def test_setting_a_password_through_the_link_replaces_the_token(dora: Any, admin: Any) -> None:
    old = Token.objects.create(user=dora).key
    assert _token_works(old)
    client = Client()
    page = client.get(user_password_link(user=dora, actor=admin), follow=True)
    form_url = page.redirect_chain[-1][0]
    done = client.post(form_url, {"new_password1": NEW, "new_password2": NEW}, follow=True)
    assert b"Password set" in done.content
    assert not _token_works(old)
    new = Token.objects.get(user=dora).key
    assert new != old and _token_works(new)


def test_a_superuser_setting_a_password_in_the_django_admin_replaces_the_token(
    dora: Any,
) -> None:
    old = Token.objects.create(user=dora).key
    root = get_user_model().objects.create_superuser("root", password=OLD)
    client = Client()
    client.force_login(root)
    response = client.post(
        f"/admin/auth/user/{dora.pk}/password/",
        {"password1": NEW, "password2": NEW, "usable_password": "true"},
    )
    assert response.status_code == 302, response.content[:500]
    assert not _token_works(old)


def test_changing_ones_own_password_replaces_the_token_and_keeps_this_session(dora: Any) -> None:
    get_user_model().objects.filter(pk=dora.pk).update(is_staff=True)
    old = Token.objects.create(user=dora).key
    client = _logged_in("dora", OLD)
    other = _logged_in("dora", OLD)
    response = client.post(
        "/admin/password_change/",
        {"old_password": OLD, "new_password1": NEW, "new_password2": NEW},
    )
    assert response.status_code == 302, response.content[:500]
    assert not _token_works(old)
    assert _session_works(client), "the session the change was made in goes on"
    assert not _session_works(other), "every other session ends with the old password"


def test_a_password_changed_in_code_replaces_the_token(dora: Any) -> None:
    old = Token.objects.create(user=dora).key
    dora.set_password(NEW)
    dora.save()
    assert not _token_works(old)


def test_saves_that_change_neither_password_nor_state_keep_the_token(dora: Any, admin: Any) -> None:
    old = Token.objects.create(user=dora).key
    _logged_in("dora", OLD)  # writes last_login
    user_update(user=dora, actor=admin, email="dora@example.org", role_names=["adjudicator"])
    dora.refresh_from_db()
    dora.first_name = "Dora"
    dora.save()
    assert Token.objects.get(user=dora).key == old


def test_deactivating_ends_sessions_and_tokens_and_reactivating_revives_neither(
    dora: Any, admin: Any
) -> None:
    old = Token.objects.create(user=dora).key
    session = _logged_in("dora", OLD)
    bystander = make_user("erin", roles.ANNOTATOR, password=OLD)
    theirs = _logged_in("erin", OLD)
    api = APIClient()
    api.force_authenticate(admin)
    assert api.patch(f"/api/users/{dora.pk}/", {"is_active": False}, "json").status_code == 200
    assert api.patch(f"/api/users/{dora.pk}/", {"is_active": True}, "json").status_code == 200
    assert session.get("/").status_code == 302, "the old session is gone: back to the login"
    assert not _token_works(old)
    assert _session_works(theirs), "other users' sessions stay"
    assert bystander.is_active
    assert _session_works(_logged_in("dora", OLD)), "the reactivated user logs in again"


def test_deactivating_in_the_django_admin_ends_the_sessions(dora: Any) -> None:
    session = _logged_in("dora", OLD)
    root = get_user_model().objects.create_superuser("root", password=OLD)
    admin_client = Client()
    admin_client.force_login(root)
    page = admin_client.get(f"/admin/auth/user/{dora.pk}/change/")
    form = page.context["adminform"].form
    data = {k: v for k, v in form.initial.items() if v is not None and k != "password"}
    data.update(is_active="", date_joined_0="2026-01-01", date_joined_1="00:00:00")
    data["groups"] = [g.pk for g in dora.groups.all()]
    data.pop("user_permissions", None)
    data.pop("last_login", None)
    response = admin_client.post(f"/admin/auth/user/{dora.pk}/change/", data)
    assert response.status_code == 302, response.content[:2000]
    get_user_model().objects.filter(pk=dora.pk).update(is_active=True)
    assert session.get("/").status_code == 302
