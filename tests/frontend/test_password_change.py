"""A logged-in user changes their own password: the old one first, the new one twice; the
session goes on, other sessions end; a wrong old password changes nothing."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from annotate import roles
from tests.annotate.factories import make_user

pytestmark = pytest.mark.django_db
OLD = "a-long-Password-1"
NEW = "another-long-Password-2"


@pytest.fixture(autouse=True)
def _fast_passwords(settings: Any) -> None:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def alice() -> Any:
    return make_user("alice", roles.ANNOTATOR, password=OLD)


def _logged_in(user: Any, password: str) -> Client:
    client = Client()
    response = client.post("/login/", {"username": user.username, "password": password})
    assert response.status_code == 302
    return client


def test_every_page_links_to_the_password_page(alice: Any) -> None:
    page = _logged_in(alice, OLD).get("/")
    assert b'href="/account/password/"' in page.content


def test_the_password_page_asks_for_the_old_password_and_the_new_one_twice(alice: Any) -> None:
    page = _logged_in(alice, OLD).get("/account/password/")
    assert page.status_code == 200
    for name in (b'name="old_password"', b'name="new_password1"', b'name="new_password2"'):
        assert name in page.content


def test_a_new_password_replaces_the_old_and_the_session_goes_on(alice: Any) -> None:
    client = _logged_in(alice, OLD)
    other = _logged_in(alice, OLD)
    response = client.post(
        "/account/password/",
        {"old_password": OLD, "new_password1": NEW, "new_password2": NEW},
    )
    assert response.status_code == 302 and response["Location"] == "/account/password/done/"
    assert client.get("/").status_code == 200, "still logged in here"
    assert other.get("/")["Location"].startswith("/login/"), "the other session ended"
    alice.refresh_from_db()
    assert alice.check_password(NEW) and not alice.check_password(OLD)


def test_a_wrong_old_password_is_named_and_changes_nothing(alice: Any) -> None:
    client = _logged_in(alice, OLD)
    response = client.post(
        "/account/password/",
        {"old_password": "not-it", "new_password1": NEW, "new_password2": NEW},
    )
    assert response.status_code == 200
    assert b"Your old password was entered incorrectly" in response.content
    alice.refresh_from_db()
    assert alice.check_password(OLD)


def test_someone_not_logged_in_is_sent_to_the_login_page() -> None:
    response = Client().get("/account/password/")
    assert response.status_code == 302 and response["Location"].startswith("/login/")


def _wrong_old(client: Client) -> Any:
    return client.post(
        "/account/password/",
        {"old_password": "not-it", "new_password1": NEW, "new_password2": NEW},
    )


def test_wrong_old_passwords_count_toward_the_login_lockout(alice: Any, settings: Any) -> None:
    """A session alone (left open, or taken) must not be a way to guess the password without
    the login's limit: the old password's checks are counted as login tries."""
    settings.LOGIN_MAX_FAILURES = 3
    client = _logged_in(alice, OLD)
    for _ in range(3):
        assert _wrong_old(client).status_code == 200
    refused = client.post(
        "/account/password/",
        {"old_password": OLD, "new_password1": NEW, "new_password2": NEW},
    )
    assert refused.status_code == 429 and int(refused["Retry-After"]) > 0
    assert b"Too many wrong passwords" in refused.content
    alice.refresh_from_db()
    assert alice.check_password(OLD), "the right old password, once locked, changes nothing"
    login = Client().post("/login/", {"username": "alice", "password": OLD})
    assert login.status_code == 429, "and the login from this address is locked as well"


def test_a_right_old_password_clears_the_count(alice: Any, settings: Any) -> None:
    settings.LOGIN_MAX_FAILURES = 3
    client = _logged_in(alice, OLD)
    for _ in range(2):
        _wrong_old(client)
    response = client.post(
        "/account/password/",
        {"old_password": OLD, "new_password1": NEW, "new_password2": NEW},
    )
    assert response.status_code == 302
    for _ in range(2):
        assert _wrong_old(client).status_code == 200
