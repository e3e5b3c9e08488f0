"""The workspace in headless chromium: the grid fills the window, a reload returns to where the
annotator was, and a checked prefill link looks (and is stored as) checked."""

from __future__ import annotations

from typing import Any

import pytest

from annotate import roles
from annotate.models import AnnotationEvent, Assignment
from tests.annotate.factories import make_assignment, make_corpus, make_pair, make_user
from tests.frontend.conftest import SCREENSHOTS, SERVER_LOCK

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

READY = "#workspace[data-ready=true]"
WINDOWS = [(1280, 800), (1920, 1080)]


def words(prefix: str, n: int) -> str:
    return " ".join(f"{prefix}{k}" for k in range(n))


def open_workspace(page: Any, live_server: Any, assignment: Assignment) -> None:
    page.goto(f"{live_server.url}/work/{assignment.pk}/")
    page.wait_for_selector(READY)


def cell(page: Any, i: int, j: int) -> Any:
    return page.locator(f"#grid tbody tr:nth-child({i + 1}) td:nth-child({j + 2})")


def classes(page: Any, i: int, j: int) -> list[str]:
    return (cell(page, i, j).get_attribute("class") or "").split()


def box(page: Any, selector: str) -> dict[str, float]:
    return page.locator(selector).first.evaluate(
        "e => { const r = e.getBoundingClientRect();"
        " return {top: r.top, bottom: r.bottom, left: r.left, right: r.right}; }"
    )


@pytest.fixture
def alice() -> Any:
    return make_user("alice", roles.ANNOTATOR)


@pytest.mark.parametrize(("width", "height"), WINDOWS)
def test_the_grid_fills_the_window_and_scrolls_inside_its_own_box(
    page_for: Any, live_server: Any, alice: Any, width: int, height: int
) -> None:
    pair = make_pair(source=words("src", 60), target=words("tgt", 70), prefill=None)
    assignment = make_assignment(pair, alice)
    page = page_for(alice, viewport=(width, height))
    open_workspace(page, live_server, assignment)
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"workspace_large_{width}x{height}.png"))
    page_height = page.evaluate("document.documentElement.scrollHeight")
    assert page_height <= height, "the page itself does not scroll: the grid does"
    wrap = box(page, "#grid-wrap")
    assert wrap["bottom"] <= height - 24, "the grid's box ends inside the window, above the info"
    assert wrap["bottom"] - wrap["top"] > height / 2, "the grid gets most of the height"
    workspace = box(page, "#workspace")
    assert workspace["right"] - workspace["left"] >= width - 64, "the page uses the width"
    # The last row scrolls into the grid's box, under the sticky column headers.
    page.locator("#grid-wrap").evaluate("w => { w.scrollTop = w.scrollHeight; }")
    last = box(page, "#grid tbody tr:last-child th")
    wrap = box(page, "#grid-wrap")
    assert wrap["top"] < last["top"] and last["bottom"] <= wrap["bottom"]
    head = box(page, "#grid thead th[data-col='0']")
    assert abs(head["top"] - wrap["top"]) <= 2, "the column headers stay at the top"
    page.screenshot(path=str(SCREENSHOTS / f"workspace_large_bottom_{width}x{height}.png"))
    assert page.js_errors == []


@pytest.mark.parametrize(("width", "height"), [(1024, 768), *WINDOWS])
def test_the_toolbar_is_one_row_and_the_save_indicator_stays_on_the_titles_row(
    page_for: Any, live_server: Any, alice: Any, width: int, height: int
) -> None:
    pair = make_pair(make_corpus("edinburgh-news"), external_id="news-A:2014-0123")
    assignment = make_assignment(pair, alice)
    page = page_for(alice, viewport=(width, height))
    open_workspace(page, live_server, assignment)
    page.screenshot(path=str(SCREENSHOTS / f"workspace_header_{width}x{height}.png"))
    first, submit = box(page, ".toolbar .btn"), box(page, "#submit-button")
    assert submit["top"] == pytest.approx(first["top"], abs=2), "Submit is on the toolbar's row"
    title, status = box(page, ".ws-head h1"), box(page, "#save-status")
    assert status["top"] < title["bottom"] and status["bottom"] > title["top"]
    assert page.js_errors == []


def test_long_sentences_take_three_lines_and_show_the_cursors_words(
    page_for: Any, live_server: Any, alice: Any
) -> None:
    """Sentences of 130 words wrapped to a dozen lines each and left the grid a third of the
    window: each now scrolls in a box of three lines, and the words of the cursor's cell are
    scrolled into view as it moves."""
    pair = make_pair(source=words("source", 130), target=words("target", 125), prefill=None)
    assignment = make_assignment(pair, alice)
    page = page_for(alice, viewport=(1280, 800))
    open_workspace(page, live_server, assignment)
    for line in ("#src-sentence", "#tgt-sentence"):
        sentence = box(page, line)
        assert sentence["bottom"] - sentence["top"] < 100, line
    wrap = box(page, "#grid-wrap")
    assert wrap["bottom"] - wrap["top"] > 400, "the grid gets most of the height"
    page.evaluate("window.__workspace.model.moveTo(128, 123)")
    page.locator("#grid-wrap").press("ArrowRight")
    for line, word in (("#src-sentence", 128), ("#tgt-sentence", 124)):
        sentence = box(page, line)
        shown = box(page, f"{line} .tok[data-index='{word}']")
        assert sentence["top"] <= shown["top"] and shown["bottom"] <= sentence["bottom"], line
    page.screenshot(path=str(SCREENSHOTS / "workspace_long_sentences.png"))
    assert page.js_errors == []


@pytest.mark.parametrize(("width", "height"), WINDOWS)
def test_a_reload_returns_to_the_cell_and_scroll_where_the_annotator_was(
    page_for: Any, live_server: Any, alice: Any, width: int, height: int
) -> None:
    pair = make_pair(source=words("src", 60), target=words("tgt", 90), prefill=None)
    assignment = make_assignment(pair, alice)
    page = page_for(alice, viewport=(width, height))
    open_workspace(page, live_server, assignment)
    page.keyboard.press("+")  # a zoom the reload keeps, so the scroll means the same place
    for _ in range(47):
        page.keyboard.press("ArrowDown")
    for _ in range(81):
        page.keyboard.press("ArrowRight")
    place = "[window.__workspace.model.cursor, document.getElementById('grid-wrap').scrollTop,"
    place += " document.getElementById('grid-wrap').scrollLeft, window.__workspace.view.zoom]"
    cursor, top, left, zoom = page.evaluate(place)
    assert cursor == {"i": 47, "j": 81} and top > 0 and left > 0
    page.reload()
    page.wait_for_selector(READY)
    assert page.evaluate(place) == [cursor, top, left, zoom]
    assert "cur" in classes(page, 47, 81)
    target = box(page, "#grid td.cur")
    wrap = box(page, "#grid-wrap")
    assert wrap["top"] < target["top"] < wrap["bottom"] and target["right"] <= wrap["right"]
    assert page.locator("#cursor-info").inner_text().startswith("Source word 48 ")
    page.screenshot(path=str(SCREENSHOTS / f"workspace_reloaded_{width}x{height}.png"))
    other = page.context.new_page()  # another tab starts at the first cell
    open_workspace(other, live_server, assignment)
    assert other.evaluate("window.__workspace.model.cursor") == {"i": 0, "j": 0}
    assert page.js_errors == []


def test_zooming_and_transposing_keep_the_cursors_cell_in_view(
    page_for: Any, live_server: Any, alice: Any
) -> None:
    """On a pair of 150 words a side, +, - and t left the cursor's cell far outside the grid's
    box: the annotator lost their place until the next arrow key scrolled back to it."""
    pair = make_pair(source=words("src", 150), target=words("tgt", 160), prefill=None)
    assignment = make_assignment(pair, alice)
    page = page_for(alice, viewport=(1024, 768))
    open_workspace(page, live_server, assignment)
    page.evaluate("window.__workspace.model.moveTo(90, 110)")

    def in_view() -> bool:
        cursor, wrap = box(page, ".grid-cursor"), box(page, "#grid-wrap")
        head = box(page, "#grid thead th[data-col='0']")
        row_head = box(page, "#grid tbody th")
        return (
            head["bottom"] - 1 <= cursor["top"]
            and cursor["bottom"] <= wrap["bottom"]
            and row_head["right"] - 1 <= cursor["left"]
            and cursor["right"] <= wrap["right"]
        )

    assert in_view()
    for key in ("+", "+", "-", "t", "-", "t"):
        page.keyboard.press(key)
        assert in_view(), f"after {key}"
    assert "hl" in (page.locator("#grid th[data-row='90']").get_attribute("class") or "")
    assert page.evaluate("window.__workspace.model.cursor") == {"i": 90, "j": 110}
    assert page.js_errors == []


def test_a_notice_opening_above_the_grid_keeps_the_cursors_cell_in_view(
    page_for: Any, live_server: Any, alice: Any
) -> None:
    """The grid's box shrinks when a notice opens above it (here: `n` while the server cannot
    be reached). The cursor on the last row was left below the box's new bottom, so the cell
    just set to sure and the cursor could not be seen until an arrow key scrolled back."""
    pair = make_pair(source=words("src", 90), target=words("tgt", 88), prefill=None)
    assignment = make_assignment(pair, alice)
    page = page_for(alice, viewport=(1366, 800))
    open_workspace(page, live_server, assignment)
    page.keyboard.press("Control+End")

    def cursor_in_view() -> bool:
        cursor, wrap = box(page, ".grid-cursor"), box(page, "#grid-wrap")
        return wrap["top"] <= cursor["top"] and cursor["bottom"] <= wrap["bottom"]

    assert cursor_in_view()
    page.route("**/annotation/", lambda route: route.abort("internetdisconnected"))
    page.keyboard.press("s")
    page.wait_for_selector("#save-status[data-state=offline]")
    page.keyboard.press("n")  # refused: the notice says the change is not saved yet
    page.wait_for_selector("#ws-message:not([hidden])")
    page.wait_for_function(
        "() => { const c = document.querySelector('.grid-cursor').getBoundingClientRect();"
        " const w = document.getElementById('grid-wrap').getBoundingClientRect();"
        " return c.bottom <= w.bottom; }",
        timeout=2000,
    )
    assert cursor_in_view()
    # A cursor the annotator scrolled away from is not scrolled back to by the next notice.
    page.evaluate("document.getElementById('ws-message').hidden = true")
    page.locator("#grid-wrap").evaluate("w => { w.scrollTop = 0; }")
    page.evaluate("document.getElementById('ws-message').hidden = false")
    page.wait_for_timeout(200)
    assert page.locator("#grid-wrap").evaluate("w => w.scrollTop") == 0
    page.unroute("**/annotation/")
    assert page.js_errors == []


def test_a_long_sentence_against_a_short_one_runs_along_the_wider_side(
    page_for: Any, live_server: Any, alice: Any
) -> None:
    # An RTE-2 pair: a 38-word text against an 11-word hypothesis does not fit the height
    # with the text on the rows; with the hypothesis on the rows it fits whole.
    pair = make_pair(source=words("text", 38), target=words("hyp", 11), prefill=None)
    assignment = make_assignment(pair, alice)
    page = page_for(alice, viewport=(1280, 800))
    open_workspace(page, live_server, assignment)
    assert page.evaluate("window.__workspace.view.transposed") is True
    assert page.locator("#grid tbody tr").count() == 11
    wrap = page.locator("#grid-wrap").evaluate(
        "w => [w.scrollHeight <= w.clientHeight, w.scrollWidth <= w.clientWidth]"
    )
    assert wrap == [True, True], "the whole grid is in view"
    page.screenshot(path=str(SCREENSHOTS / "workspace_long_short_1280x800.png"))
    page.keyboard.press("t")  # the annotator's choice wins, and a reload keeps it
    page.reload()
    page.wait_for_selector(READY)
    assert page.evaluate("window.__workspace.view.transposed") is False
    assert page.locator("#grid tbody tr").count() == 38
    small = make_assignment(make_pair(), alice)  # a grid that fits keeps the source on the rows
    open_workspace(page, live_server, small)
    assert page.evaluate("window.__workspace.view.transposed") is False
    assert page.js_errors == []


def test_a_checked_prefill_link_looks_checked_and_stays_so_after_a_reload(
    page_for: Any, live_server: Any, alice: Any
) -> None:
    prefill = ((1, 1, True), (3, 4, False), (2, 2, True), (5, 6, False))
    assignment = make_assignment(make_pair(prefill=prefill), alice)
    page = page_for(alice, viewport=(1280, 800))
    open_workspace(page, live_server, assignment)
    assert "pf" in classes(page, 1, 1) and "pf" in classes(page, 3, 4)
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowRight")
    assert "not yet checked" in page.locator("#cursor-info").inner_text()
    unchecked = cell(page, 1, 1).evaluate(
        "td => { const s = getComputedStyle(td, '::after');"
        " return [s.opacity, s.outlineStyle, s.backgroundColor]; }"
    )
    page.keyboard.press("s")  # the prefilled sure link, confirmed as it is
    assert classes(page, 1, 1) == ["s", "cur"]
    checked = cell(page, 1, 1).evaluate(
        "td => { const s = getComputedStyle(td, '::after');"
        " return [s.opacity, s.outlineStyle, s.backgroundColor]; }"
    )
    # Another shade and another border, in the same colour: it survives greyscale.
    assert float(unchecked[0]) <= 0.7 and checked[0] == "1"
    assert (unchecked[1], checked[1]) == ("dotted", "none")
    assert unchecked[2] == checked[2]
    assert "(prefill, checked)" in page.locator("#cursor-info").inner_text()
    assert page.evaluate("window.__workspace.model.canUndo()") is False, "nothing changed"
    page.wait_for_function(
        "v => document.querySelector('#save-status').textContent === `Saved · v${v}`", arg=2
    )
    with SERVER_LOCK:
        event = AnnotationEvent.objects.get(annotation__assignment=assignment, version=2)
    assert (event.added, event.removed, event.payload["reviewed"]) == ([], [], [[1, 1]])
    # Left: 1-1 and 3?4 checked; 2-2 and 5?6 still the unchecked prefill (see the screenshot).
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("p")  # and the prefilled possible link 3?4
    page.keyboard.press("ArrowRight")
    for _ in range(3):
        page.keyboard.press("+")
    page.mouse.move(0, 0)
    page.screenshot(path=str(SCREENSHOTS / "workspace_checked_prefill.png"), clip=grid_clip(page))
    page.reload()
    page.wait_for_selector(READY)
    assert "pf" not in classes(page, 1, 1) and "s" in classes(page, 1, 1)
    assert "pf" not in classes(page, 3, 4)
    assert "pf" in classes(page, 2, 2), "the link nobody checked is still the prefill"
    assert page.js_errors == []


def grid_clip(page: Any) -> dict[str, float]:
    wrap = page.locator("#grid-wrap").bounding_box()
    return {"x": wrap["x"], "y": wrap["y"], "width": wrap["width"], "height": wrap["height"]}


@pytest.mark.parametrize(("n", "m"), [(15, 14), (60, 70)])
def test_the_trial_feedback_opens_under_the_grid_without_taking_its_height(
    page_for: Any, live_server: Any, alice: Any, n: int, m: int
) -> None:
    pair = make_pair(
        source=words("src", n), target=words("tgt", m), split="trial", gold=[(0, 0, True)]
    )
    assignment = make_assignment(pair, alice)
    page = page_for(alice, viewport=(1280, 800))
    open_workspace(page, live_server, assignment)
    grid = page.locator("#grid-wrap")
    fitted = grid.evaluate("e => e.getBoundingClientRect().height")
    page.keyboard.press("Enter")
    page.locator("#submit-confirm").click()
    page.wait_for_selector("#feedback:not([hidden])")
    shown = grid.evaluate(
        "e => ({height: e.getBoundingClientRect().height, hidden: e.scrollHeight - e.clientHeight})"
    )
    assert shown["height"] >= fitted - 1, "the grid keeps the height it was fitted to"
    if n == 15:
        assert shown["hidden"] <= 1, "every row of a small grid stays in view, no inner scroll"
    feedback = box(page, "#feedback")
    assert feedback["bottom"] <= 800 + 1, "the page scrolls the feedback into view"
    page.screenshot(path=str(SCREENSHOTS / f"trial_feedback_{n}x{m}.png"))

    page.reload()
    page.wait_for_selector(READY)
    page.click("#show-feedback")
    page.wait_for_selector("#feedback:not([hidden])")
    assert grid.evaluate("e => e.getBoundingClientRect().height") >= fitted - 1
    assert page.js_errors == []


def test_the_cursor_is_one_box_over_the_grid_and_a_move_restyles_no_cell_geometry(
    page_for: Any, live_server: Any, alice: Any
) -> None:
    # An arrow key must not make the browser lay out and repaint a 150×140 table (21,000
    # cells): the cursor is drawn by one box moved over its cell, and the cells it leaves and
    # enters keep their geometry and paint (static position, no outline).
    pair = make_pair(source=words("src", 30), target=words("tgt", 25), prefill=((1, 1, True),))
    assignment = make_assignment(pair, alice)
    page = page_for(alice, viewport=(1280, 800))
    open_workspace(page, live_server, assignment)
    cursor_cell = (
        "() => { const { model, view } = window.__workspace;"
        " const td = view.cellEls[model.cursor.i * model.m + model.cursor.j];"
        " const s = getComputedStyle(td); const r = td.getBoundingClientRect();"
        " const b = document.querySelector('#grid-wrap > .grid-cursor').getBoundingClientRect();"
        " const w = document.getElementById('grid-wrap').getBoundingClientRect();"
        " return { position: s.position, outline: s.outlineStyle,"
        " inside: r.top >= w.top && r.bottom <= w.bottom && r.left >= w.left && r.right <= w.right,"
        " box: [b.left - r.left, b.top - r.top, b.width - r.width, b.height - r.height] }; }"
    )
    steps = [[], ["ArrowDown"], ["ArrowRight"], ["ArrowDown"] * 28, ["ArrowRight"] * 20]
    for keys in [*steps, ["+"], ["t"], ["-", "-"]]:
        for key in keys:
            page.keyboard.press(key)
        seen = page.evaluate(cursor_cell)
        assert seen["inside"] or "ArrowDown" not in keys, keys  # an arrow scrolls to it
        assert seen["outline"] == "none", keys
        assert all(abs(x) <= 1 for x in seen["box"]), (keys, seen)  # offsets are whole px
    page.keyboard.press("t")
    page.evaluate("window.__workspace.model.moveTo(2, 3)")
    assert page.evaluate(cursor_cell)["position"] == "static"  # an empty cell is not positioned
    outline = page.locator("#grid-wrap > .grid-cursor").evaluate(
        "b => getComputedStyle(b).outlineStyle"
    )
    assert outline == "solid"
    assert page.js_errors == []


@pytest.mark.parametrize(("width", "height"), [(1024, 768), *WINDOWS])
def test_the_grid_stays_put_when_the_first_edit_turns_the_pair_in_progress(
    page_for: Any, live_server: Any, alice: Any, width: int, height: int
) -> None:
    """The status badge changes from "new" to "in progress" on the first save: the header must
    not grow a line then, or the annotator's next click lands on the row above."""
    pair = make_pair(make_corpus("sample"), external_id="mtc-008")
    assignment = make_assignment(pair, alice)
    page = page_for(alice, viewport=(width, height))
    open_workspace(page, live_server, assignment)
    before = box(page, "#grid")
    cell(page, 2, 2).click()
    page.wait_for_selector("#assignment-status.in_progress")
    page.wait_for_selector("#save-status[data-state=saved]")
    after = box(page, "#grid")
    assert after["top"] == pytest.approx(before["top"], abs=1)
    assert page.js_errors == []
