"""Sessions end after SESSION_IDLE_SECONDS without a request and SESSION_MAX_AGE_SECONDS after
the login; the time of last use is written at most once a minute."""

from __future__ import annotations

import time
from typing import Any

import pytest
from django.contrib.sessions.models import Session
from django.test import Client, override_settings

from annotate import roles
from annotate.middleware import SEEN, STARTED
from tests.annotate.factories import make_user

pytestmark = pytest.mark.django_db

IDLE = 3600
MAX_AGE = 10 * 3600


@pytest.fixture(autouse=True)
def _limits() -> Any:
    with override_settings(SESSION_IDLE_SECONDS=IDLE, SESSION_MAX_AGE_SECONDS=MAX_AGE):
        yield


@pytest.fixture
def client() -> Client:
    client = Client()
    client.force_login(make_user("alice", roles.ANNOTATOR))
    return client


def _shift(client: Client, **ago: int) -> None:
    """Move the session's times into the past: ``seen=...`` / ``started=...`` seconds ago."""
    session = client.session
    now = int(time.time())
    if "seen" in ago:
        session[SEEN] = now - ago["seen"]
    if "started" in ago:
        session[STARTED] = now - ago["started"]
    session.save()


def _row(client: Client) -> tuple[str, Any]:
    row = Session.objects.get(session_key=client.session.session_key)
    return row.session_data, row.expire_date


def test_a_login_starts_both_clocks(client: Client) -> None:
    session = client.session
    assert abs(session[STARTED] - time.time()) < 5 and session[SEEN] == session[STARTED]


def test_a_session_idle_for_longer_than_the_limit_is_logged_out(client: Client) -> None:
    _shift(client, seen=IDLE + 61)
    response = client.get("/")
    assert response.status_code == 302 and response["Location"].startswith("/login/")
    assert not Session.objects.exists(), "the session is gone, not just unused"


def test_an_idle_session_no_longer_works_for_the_api_either(client: Client) -> None:
    _shift(client, seen=IDLE + 61)
    assert client.get("/api/me/").status_code == 401


def test_a_session_used_within_the_limit_goes_on(client: Client) -> None:
    _shift(client, seen=IDLE - 10)
    assert client.get("/").status_code == 200
    assert client.get("/api/me/").status_code == 200


def test_the_time_of_last_use_is_written_at_most_once_a_minute(client: Client) -> None:
    _shift(client, seen=30)
    before = _row(client)
    for _ in range(5):
        assert client.get("/api/me/").status_code == 200
    assert _row(client) == before, "no session write within the minute"
    _shift(client, seen=61)
    before = _row(client)
    assert client.get("/api/me/").status_code == 200
    _, expires = _row(client)
    assert expires > before[1]
    assert abs(client.session[SEEN] - time.time()) < 5


def test_a_busy_session_ends_at_its_maximum_age(client: Client) -> None:
    _shift(client, seen=5, started=MAX_AGE + 1)
    assert client.get("/").status_code == 302


def test_logging_in_again_restarts_the_maximum_age(client: Client) -> None:
    _shift(client, started=MAX_AGE - 60)
    user = make_user("bob", roles.ANNOTATOR)
    client.force_login(user)
    assert abs(client.session[STARTED] - time.time()) < 5
