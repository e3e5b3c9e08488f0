"""Page permission matrix (no browser): who gets which page."""

from __future__ import annotations

import re
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
    # Another annotator's is not found; without the annotator role none opens.
    expected = {"alice": 200, "bob": 404, "carol": 403, "admin": 403, "anon": 302}
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


ADMIN_PAGES = (
    "/corpora/",
    "/corpora/{corpus}/",
    "/corpora/{corpus}/pairs/",
    "/corpora/{corpus}/prefill/",
    "/corpora/{corpus}/assignments/",
    "/corpora/{corpus}/export/",
    "/corpora/{corpus}/agreement/",
    "/jobs/",
    "/users/",
)


@pytest.mark.parametrize("page", ADMIN_PAGES)
@pytest.mark.parametrize("persona", PERSONAS)
def test_the_corpus_admin_pages_are_for_admins(
    world: dict[str, Any], persona: str, page: str
) -> None:
    expected = {"alice": 403, "bob": 403, "carol": 403, "admin": 200, "anon": 302}
    url = page.format(corpus=world["pair"].corpus_id)
    assert _status(world, persona, url) == expected[persona]


@pytest.mark.parametrize(
    ("persona", "page"),
    [("admin", page) for page in (*ADMIN_PAGES, "/", "/adjudication/", "/guidelines/")]
    + [("alice", "/"), ("alice", "/work/{assignment}/"), ("carol", "/adjudicate/{pair}/")],
)
def test_no_page_gives_two_elements_one_id(world: dict[str, Any], persona: str, page: str) -> None:
    """A label's ``for``, ``aria-labelledby`` and the pages' scripts find the first element of
    an id; the prefill tab gave its aligner choice and the run form's aligner field one id."""
    url = page.format(
        corpus=world["pair"].corpus_id, pair=world["pair"].pk, assignment=world["assignment"].pk
    )
    html = world["clients"][persona].get(url).content.decode()
    ids = re.findall(r'\sid="([^"]+)"', html)
    assert [i for i in set(ids) if ids.count(i) > 1] == []


def test_a_corpus_page_of_a_missing_corpus_is_a_styled_404(world: dict[str, Any]) -> None:
    response = world["clients"]["admin"].get("/corpora/999999/")
    assert response.status_code == 404


@pytest.mark.parametrize("persona", PERSONAS)
def test_the_adjudication_list_is_for_adjudicators_and_admins(
    world: dict[str, Any], persona: str
) -> None:
    expected = {"alice": 403, "bob": 403, "carol": 200, "admin": 200, "anon": 302}
    assert _status(world, persona, "/adjudication/") == expected[persona]


def test_the_navigation_shows_admin_sections_to_admins_only(world: dict[str, Any]) -> None:
    admin_home = world["clients"]["admin"].get("/").content.decode()
    annotator_home = world["clients"]["alice"].get("/").content.decode()
    for link in ('href="/corpora/"', 'href="/jobs/"'):
        assert link in admin_home
        assert link not in annotator_home
    assert 'aria-current="page">My queue' in annotator_home


def test_an_unknown_address_gets_the_styled_404_page(world: dict[str, Any]) -> None:
    response = world["clients"]["alice"].get("/no/such/page/")
    assert response.status_code == 404
    assert b"This page does not exist" in response.content


def test_the_api_docs_load_their_assets_from_the_app_not_a_cdn(world: dict[str, Any]) -> None:
    html = world["clients"]["admin"].get("/api/docs/").content.decode()
    assert "drf_spectacular_sidecar/swagger-ui-dist/swagger-ui-bundle.js" in html
    assert "cdn" not in html.lower()
    assert '<a href="/">← Alignment workbench</a>' in html  # the way back


def _keymap(html: str) -> list[str]:
    """The key map dialog's entries, each as its keys' text, e.g. "Ctrl+Y / Ctrl+Shift+Z"."""
    dialog = html.split('<dialog id="keymap-dialog"', 1)[1].split("</dialog>", 1)[0]
    keys = re.findall(r"<span>(.*?)</span><span>", dialog)
    return [re.sub(r"<[^>]+>", "", entry) for entry in keys]


def test_both_grid_pages_list_redo_and_save_on_ctrl_y_and_ctrl_s(world: dict[str, Any]) -> None:
    workspace = _keymap(
        world["clients"]["alice"].get(f"/work/{world['assignment'].pk}/").content.decode()
    )
    adjudication = _keymap(
        world["clients"]["carol"].get(f"/adjudicate/{world['pair'].pk}/").content.decode()
    )
    for keys in (workspace, adjudication):
        assert "Ctrl+Y / Ctrl+Shift+Z" in keys  # keys.js: redo
        assert "Ctrl+S" in keys  # keys.js: actions.save, given by both pages
        assert "x / Delete / Backspace" in keys
    # g opens the guidelines on the workspace only; the adjudication page binds no g
    assert "g" in workspace
    assert "g" not in adjudication
