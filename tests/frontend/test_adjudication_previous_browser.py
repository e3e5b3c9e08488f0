"""In headless chromium: `b` (or the toolbar's link, reached with Tab) opens the pair before
this one in the adjudication list it was opened from, after the gold is saved."""

from __future__ import annotations

from typing import Any

import pytest

from annotate import roles
from annotate.models import GoldLink
from tests.annotate.factories import make_user
from tests.frontend.conftest import SERVER_LOCK
from tests.frontend.test_adjudication_browser import _imported, _open, _saved, cell

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_b_opens_the_previous_pair_of_the_list_once_the_gold_is_saved(
    page_for: Any, live_server: Any
) -> None:
    first = _imported({"alice": "0-0", "bob": "1-1"}, pair_id="first")
    second = _imported({"alice": "0-0", "bob": "0-0"}, pair_id="second", corpus="other")
    page = page_for(make_user("carol", roles.ADJUDICATOR))
    _open(page, f"{live_server.url}/adjudicate/{second.pk}/?sort=-id")
    assert page.locator("#open-previous").is_disabled()  # the first of the list, reversed
    _open(page, f"{live_server.url}/adjudicate/{second.pk}/?sort=id")
    cell(page, 3, 3).click()
    page.keyboard.press("b")  # the edit is sent before the page goes
    page.wait_for_url(f"**/adjudicate/{first.pk}/?sort=id")
    page.wait_for_selector("#adjudication[data-ready=true]")
    with SERVER_LOCK:
        assert GoldLink.objects.filter(gold__pair=second).count() == 1
    # keyboard reachable: Tab to the link, Enter
    _open(page, f"{live_server.url}/adjudicate/{second.pk}/?sort=id")
    _saved(page, 1)
    link = page.locator("#open-previous")
    for _ in range(30):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.id") == "open-previous":
            break
    assert page.evaluate("document.activeElement.id") == "open-previous"
    assert link.get_attribute("aria-keyshortcuts") == "b"
    page.keyboard.press("Enter")
    page.wait_for_url(f"**/adjudicate/{first.pk}/?sort=id")
    assert page.js_errors == []


def test_previous_and_next_stay_side_by_side_at_1024_px(page_for: Any, live_server: Any) -> None:
    """The toolbar wraps at 1024 px: the two list moves wrap together, not Previous at the end
    of one line and Next at the start of the next."""
    _imported({"alice": "0-0", "bob": "1-1"}, pair_id="first")
    second = _imported({"alice": "0-0", "bob": "0-0"}, pair_id="second")
    page = page_for(make_user("carol", roles.ADJUDICATOR))
    page.set_viewport_size({"width": 1024, "height": 800})
    _open(page, f"{live_server.url}/adjudicate/{second.pk}/?sort=id")
    previous = page.locator("#open-previous").bounding_box()
    following = page.locator("[data-action=next]").bounding_box()
    assert previous is not None and following is not None
    assert abs(previous["y"] - following["y"]) < 2, (previous, following)
    assert previous["x"] < following["x"]


def test_b_right_after_n_returns_to_the_pair_just_adjudicated_in_a_list_of_waiting_pairs(
    page_for: Any, live_server: Any
) -> None:
    """In the list of waiting pairs, the pair just adjudicated leaves the list: `b` on the pair
    `n` opened went to the waiting pair before it (or nowhere, for the first), not back to the
    pair just done, as the workspace's `b` after a submit does."""
    first = _imported({"alice": "0-0", "bob": "1-1"}, pair_id="first")
    second = _imported({"alice": "0-0", "bob": "0-0"}, pair_id="second")
    third = _imported({"alice": "2-2", "bob": "2-2"}, pair_id="third")
    page = page_for(make_user("carol", roles.ADJUDICATOR))
    _open(page, f"{live_server.url}/adjudicate/{second.pk}/?status=waiting&sort=id")
    page.keyboard.press("Shift+A")
    _saved(page, 1)
    page.keyboard.press("n")
    page.wait_for_url(f"**/adjudicate/{third.pk}/?status=waiting&sort=id")
    page.wait_for_selector("#adjudication[data-ready=true]")
    assert page.locator("#open-previous").is_enabled()
    page.keyboard.press("b")  # back to the pair just adjudicated, not to `first`
    page.wait_for_url(f"**/adjudicate/{second.pk}/?status=waiting&sort=id")
    page.wait_for_selector("#adjudication[data-ready=true]")
    _saved(page, 1)
    # There, b follows the list again: the waiting pair before it.
    page.keyboard.press("b")
    page.wait_for_url(f"**/adjudicate/{first.pk}/?status=waiting&sort=id")
    page.wait_for_selector("#adjudication[data-ready=true]")
    # A pair opened another way than by n has no way back but the list's.
    _open(page, f"{live_server.url}/adjudicate/{third.pk}/?status=waiting&sort=id")
    page.keyboard.press("b")
    page.wait_for_url(f"**/adjudicate/{first.pk}/?status=waiting&sort=id")
    assert page.js_errors == []
