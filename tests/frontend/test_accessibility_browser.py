"""The grid editors for people who zoom and for Windows' high-contrast themes, in headless
chromium: at 200 % zoom the grid comes into the window and follows the cursor; in forced colours
a sure link, a possible link and an empty cell, and a layer's sure and possible marks, differ."""

from __future__ import annotations

from typing import Any

import pytest

from annotate import roles
from tests.annotate.factories import make_assignment, make_pair, make_user
from tests.frontend.test_adjudication_browser import THREE, _imported, _open, cell

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# A 1280×800 laptop at 200 % zoom: the page is laid out in 640×400 CSS pixels.
ZOOMED = (640, 400)


def words(prefix: str, n: int) -> str:
    return " ".join(f"{prefix}{k}" for k in range(n))


def in_window(page: Any, selector: str) -> bool:
    """Whether the element lies wholly in the window (to the pixel: layout is in fractions)."""
    return page.locator(selector).first.evaluate(
        "e => { const r = e.getBoundingClientRect();"
        " return r.top > -1 && r.bottom < innerHeight + 1 && r.left > -1"
        " && r.right < innerWidth + 1; }"
    )


def test_at_200_percent_zoom_the_workspace_grid_comes_into_the_window_and_follows_the_cursor(
    page_for: Any, live_server: Any
) -> None:
    alice = make_user("alice", roles.ANNOTATOR)
    pair = make_pair(source=words("src", 20), target=words("tgt", 20), prefill=None)
    assignment = make_assignment(pair, alice)
    page = page_for(alice, viewport=ZOOMED)
    page.goto(f"{live_server.url}/work/{assignment.pk}/")
    page.wait_for_selector("#workspace[data-ready=true]")
    # the grid has the keys; the arrow keys move its cursor, so they cannot scroll the page to it
    assert page.evaluate("document.activeElement.id") == "grid-wrap"
    assert in_window(page, "#grid-wrap")
    for key in ["ArrowDown"] * 15 + ["ArrowRight"] * 12:
        page.keyboard.press(key)
    assert "src15" in page.inner_text("#cursor-info")
    assert in_window(page, ".grid-cursor")
    page.keyboard.press("Control+Home")
    assert in_window(page, ".grid-cursor")


def test_at_200_percent_zoom_the_adjudication_grid_comes_into_the_window(
    page_for: Any, live_server: Any
) -> None:
    pair = _imported(THREE)
    page = page_for(make_user("carol", roles.ADJUDICATOR), viewport=ZOOMED)
    _open(page, f"{live_server.url}/adjudicate/{pair.pk}/")
    assert page.evaluate("document.activeElement.id") == "grid-wrap"
    assert in_window(page, "#grid-wrap")
    for key in ["ArrowDown"] * 4 + ["ArrowRight"] * 5:
        page.keyboard.press(key)
    assert in_window(page, ".grid-cursor")


def test_in_forced_colours_sure_possible_and_empty_cells_look_different(
    page_for: Any, live_server: Any
) -> None:
    alice = make_user("alice", roles.ANNOTATOR)
    assignment = make_assignment(make_pair(prefill=None), alice)
    page = page_for(alice)
    page.emulate_media(forced_colors="active")
    page.goto(f"{live_server.url}/work/{assignment.pk}/")
    page.wait_for_selector("#workspace[data-ready=true]")
    for key in ["ArrowDown", "ArrowRight", "s", "ArrowDown", "ArrowDown", "p", "Control+Home"]:
        page.keyboard.press(key)
    sure, possible, empty = (cell(page, 1, 1), cell(page, 3, 1), cell(page, 2, 1))
    assert "s" in sure.get_attribute("class").split()
    assert "p" in possible.get_attribute("class").split()
    drawn = [sure.screenshot(), possible.screenshot(), empty.screenshot()]
    assert len(set(drawn)) == 3


def test_in_forced_colours_a_layers_sure_mark_is_filled_and_its_possible_mark_hollow(
    page_for: Any, live_server: Any
) -> None:
    pair = _imported(THREE)
    page = page_for(make_user("carol", roles.ADJUDICATOR))
    page.emulate_media(forced_colors="active")
    _open(page, f"{live_server.url}/adjudicate/{pair.pk}/")
    # bob (layer 1) said possible on 0-3 and sure on 1-0
    possible = cell(page, 0, 3).locator(".mk.l1.p")
    sure = cell(page, 1, 0).locator(".mk.l1.s")
    assert possible.screenshot() != sure.screenshot()
