"""Page permission matrix (no browser): who gets which page."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from annotate import roles
from tests.annotate.factories import make_assignment, make_pair, make_user

pytestmark = pytest.mark.django_db
PERSONAS = ("alice", "bob", "carol", "admin", "anon")


@pytest.fixture
def world() -> dict[str, Any]:
    users = {
        "alice": make_user("alice", roles.ANNOTATOR),
        "bob": make_user("bob", roles.ANNOTATOR),
        "carol": make_user("carol", roles.ADJUDICATOR),
        "admin": make_user("admin", roles.ADMIN),
    }
    pair = make_pair()
    assignment = make_assignment(pair, users["alice"])
    clients = {}
    for name, user in users.items():
        clients[name] = Client()
        clients[name].force_login(user)
    clients["anon"] = Client()
    return {"clients": clients, "assignment": assignment, "pair": pair}


def _status(world: dict[str, Any], persona: str, url: str) -> int:
    return int(world["clients"][persona].get(url).status_code)


@pytest.mark.parametrize("persona", PERSONAS)
def test_the_home_page_needs_a_login(world: dict[str, Any], persona: str) -> None:
    expected = {"alice": 200, "bob": 200, "carol": 200, "admin": 200, "anon": 302}
    assert _status(world, persona, "/") == expected[persona]


@pytest.mark.parametrize("persona", PERSONAS)
def test_only_the_owner_opens_the_workspace_page(world: dict[str, Any], persona: str) -> None:
    expected = {"alice": 200, "bob": 404, "carol": 404, "admin": 404, "anon": 302}
    url = f"/work/{world['assignment'].pk}/"
    assert _status(world, persona, url) == expected[persona]


@pytest.mark.parametrize("persona", PERSONAS)
def test_the_adjudication_page_is_for_adjudicators_and_admins(
    world: dict[str, Any], persona: str
) -> None:
    expected = {"alice": 403, "bob": 403, "carol": 200, "admin": 200, "anon": 302}
    url = f"/adjudicate/{world['pair'].pk}/"
    assert _status(world, persona, url) == expected[persona]


@pytest.mark.parametrize("persona", PERSONAS)
def test_the_guidelines_page_needs_a_login(world: dict[str, Any], persona: str) -> None:
    expected = {"alice": 200, "bob": 200, "carol": 200, "admin": 200, "anon": 302}
    assert _status(world, persona, "/guidelines/") == expected[persona]


def test_the_login_page_renders_and_anonymous_users_are_sent_to_it(world: dict[str, Any]) -> None:
    response = world["clients"]["anon"].get("/")
    assert response["Location"] == "/login/?next=/"
    page = world["clients"]["anon"].get("/login/")
    assert page.status_code == 200 and b'name="username"' in page.content


def test_only_admins_see_the_guidelines_editor(world: dict[str, Any]) -> None:
    assert b"guidelines-form" in world["clients"]["admin"].get("/guidelines/").content
    assert b"guidelines-form" not in world["clients"]["alice"].get("/guidelines/").content
