"""The grid pages (the workspace, the adjudication page) need JavaScript: without it they say so
and where to go, and never claim that anything is saved; when the pair cannot be loaded the
save indicator says so too. In headless chromium."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from annotate import roles
from tests.annotate.factories import make_assignment, make_corpus, make_pair, make_user

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def page_without_javascript(
    browser: Any, live_server: Any, fast_passwords: None
) -> Iterator[Callable[[Any], Any]]:
    """``page_without_javascript(user)`` → a page logged in as ``user`` whose scripts never run."""
    from django.conf import settings
    from django.test import Client

    contexts = []

    def make(user: Any) -> Any:
        client = Client()
        client.force_login(user)
        context = browser.new_context(
            java_script_enabled=False, viewport={"width": 1366, "height": 900}
        )
        context.add_cookies(
            [
                {
                    "name": settings.SESSION_COOKIE_NAME,
                    "value": client.cookies[settings.SESSION_COOKIE_NAME].value,
                    "url": live_server.url,
                }
            ]
        )
        contexts.append(context)
        page = context.new_page()
        page.set_default_timeout(10_000)
        return page

    yield make
    for context in contexts:
        context.close()


def test_the_workspace_without_javascript_says_it_needs_it_and_claims_nothing_saved(
    page_without_javascript: Any, live_server: Any
) -> None:
    alice = make_user("alice", roles.ANNOTATOR)
    assignment = make_assignment(make_pair(make_corpus("c")), alice)
    page = page_without_javascript(alice)
    page.goto(f"{live_server.url}/work/{assignment.pk}/")
    notice = page.locator("#needs-javascript")
    assert notice.is_visible()
    assert "turn JavaScript on" in notice.inner_text()
    notice.locator("a").click()
    page.wait_for_url(f"{live_server.url}/")
    page.go_back()
    assert "Saved" not in page.inner_text("#save-status")


def test_the_adjudication_page_without_javascript_says_it_needs_it_and_links_the_list(
    page_without_javascript: Any, live_server: Any
) -> None:
    pair = make_pair(make_corpus("c"))
    carol = make_user("carol", roles.ADJUDICATOR)
    page = page_without_javascript(carol)
    page.goto(f"{live_server.url}/adjudicate/{pair.pk}/")
    notice = page.locator("#needs-javascript")
    assert notice.is_visible()
    assert "turn JavaScript on" in notice.inner_text()
    notice.locator("a").click()
    page.wait_for_url(f"{live_server.url}/adjudication/**")
    assert page.locator("h1").inner_text() == "Adjudication"


def test_the_notice_is_not_shown_where_javascript_runs(page_for: Any, live_server: Any) -> None:
    alice = make_user("alice", roles.ANNOTATOR)
    assignment = make_assignment(make_pair(make_corpus("c")), alice)
    page = page_for(alice)
    page.goto(f"{live_server.url}/work/{assignment.pk}/")
    page.wait_for_selector("#grid td")
    assert not page.locator("#needs-javascript").is_visible()
    assert page.inner_text("#save-status").startswith("Saved")


@pytest.mark.parametrize("where", ["workspace", "adjudication"])
def test_a_pair_that_cannot_be_loaded_is_not_shown_as_saved(
    page_for: Any, live_server: Any, where: str
) -> None:
    alice = make_user("alice", roles.ANNOTATOR, roles.ADJUDICATOR)
    pair = make_pair(make_corpus("c"))
    assignment = make_assignment(pair, alice)
    page = page_for(alice)
    page.route("**/api/**", lambda route: route.abort())
    url = f"/work/{assignment.pk}/" if where == "workspace" else f"/adjudicate/{pair.pk}/"
    page.goto(f"{live_server.url}{url}")
    page.wait_for_selector("[role=alert]")
    assert page.inner_text("#save-status") == "Not loaded"
