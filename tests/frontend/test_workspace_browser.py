"""The workspace in headless chromium: editing, undo, autosave, conflicts, offline, submit."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from annotate import roles
from annotate.models import Annotation, AnnotationEvent, Assignment
from annotate.services.annotations import annotation_links, annotation_save
from tests.annotate.factories import make_assignment, make_corpus, make_pair, make_user
from tests.frontend.conftest import SCREENSHOTS, SERVER_LOCK, stored_in_browser, watched_page

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

READY = "#workspace[data-ready=true]"


def open_workspace(page: Any, live_server: Any, assignment: Assignment) -> None:
    page.goto(f"{live_server.url}/work/{assignment.pk}/")
    page.wait_for_selector(READY)


def cell(page: Any, i: int, j: int) -> Any:
    return page.locator(f"#grid tbody tr:nth-child({i + 1}) td:nth-child({j + 2})")


def grid_links(page: Any) -> list[list[Any]]:
    return page.evaluate("window.__workspace.model.links()")


def wait_saved(page: Any, version: int) -> None:
    page.wait_for_function(
        "v => document.querySelector('#save-status').textContent === `Saved · v${v}`", arg=version
    )


def stored_links(assignment: Assignment) -> dict[tuple[int, int], bool]:
    with SERVER_LOCK:
        return annotation_links(Annotation.objects.get(assignment=assignment))


@pytest.fixture
def alice() -> Any:
    return make_user("alice", roles.ANNOTATOR)


def test_a_click_cycles_a_cell_through_sure_possible_and_empty(
    page_for: Any, live_server: Any, alice: Any
) -> None:
    assignment = make_assignment(make_pair(), alice)
    page = page_for(alice)
    open_workspace(page, live_server, assignment)
    target = cell(page, 0, 0)
    classes = []
    for _ in range(3):
        target.click()
        classes.append(target.get_attribute("class") or "")
    assert [c.split()[0] if c.split() and c.split()[0] in "sp" else "" for c in classes] == [
        "s",
        "p",
        "",
    ]
    assert page.js_errors == []


def test_a_dragged_block_and_a_keyboard_block_are_set_in_one_gesture(
    page_for: Any, live_server: Any, alice: Any
) -> None:
    assignment = make_assignment(make_pair(prefill=None), alice)
    page = page_for(alice)
    open_workspace(page, live_server, assignment)
    start = cell(page, 1, 1).bounding_box()
    end = cell(page, 2, 3).bounding_box()
    page.mouse.move(start["x"] + 5, start["y"] + 5)
    page.mouse.down()
    page.mouse.move(end["x"] + 5, end["y"] + 5, steps=4)
    page.mouse.up()
    page.keyboard.press("s")
    assert grid_links(page) == [[i, j, "S"] for i in (1, 2) for j in (1, 2, 3)]
    page.keyboard.press("Escape")
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Shift+ArrowDown")
    page.keyboard.press("Shift+ArrowRight")
    page.keyboard.press("p")
    assert [link for link in grid_links(page) if link[2] == "P"] == [
        [3, 3, "P"],
        [3, 4, "P"],
        [4, 3, "P"],
        [4, 4, "P"],
    ]
    assert "4×… " not in page.locator("#cursor-info").inner_text()
    assert page.js_errors == []


def test_undo_and_redo_restore_the_grid(page_for: Any, live_server: Any, alice: Any) -> None:
    assignment = make_assignment(make_pair(), alice)
    page = page_for(alice)
    open_workspace(page, live_server, assignment)
    before = grid_links(page)
    page.keyboard.press("s")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("p")
    after = grid_links(page)
    page.keyboard.press("Control+z")
    page.keyboard.press("Control+z")
    assert grid_links(page) == before
    page.keyboard.press("Control+Shift+Z")
    page.keyboard.press("Control+Shift+Z")
    assert grid_links(page) == after
    page.get_by_role("button", name="Undo", exact=True).click()
    assert grid_links(page) == [link for link in after if link[:2] != [0, 1]]


def test_a_pressed_grid_button_hands_the_keys_back_to_the_grid(
    page_for: Any, live_server: Any, alice: Any
) -> None:
    """After a click on Sure, Enter opens the submit dialog and an arrow moves the cursor: the
    button does not keep the focus to be pressed again."""
    assignment = make_assignment(make_pair(), alice)
    page = page_for(alice)
    open_workspace(page, live_server, assignment)
    page.get_by_role("button", name="Sure s", exact=True).click()
    assert page.evaluate("document.activeElement.id") == "grid-wrap"
    page.keyboard.press("ArrowRight")
    page.get_by_role("button", name="Possible p", exact=True).click()
    assert [link for link in grid_links(page) if link[:2] in ([0, 0], [0, 1])] == [
        [0, 0, "S"],
        [0, 1, "P"],
    ]
    page.keyboard.press("Enter")
    assert page.locator("#submit-dialog").is_visible()
    assert page.js_errors == []


@pytest.mark.parametrize(
    ("button", "dialog"),
    [
        ("Keys ?", "#keymap-dialog"),
        ("Guidelines g", "#guidelines-dialog"),
        ("Submit Enter", "#submit-dialog"),
    ],
)
def test_a_dialog_opened_from_the_toolbar_hands_the_keys_back_to_the_grid_once_closed(
    page_for: Any, live_server: Any, alice: Any, button: str, dialog: str
) -> None:
    """The browser gave the focus back to the clicked button: Space and Enter then pressed the
    button again (the key map opened once more) instead of cycling the cell or submitting."""
    assignment = make_assignment(make_pair(prefill=None), alice)
    page = page_for(alice)
    open_workspace(page, live_server, assignment)
    page.get_by_role("button", name=button, exact=True).click()
    page.wait_for_selector(f"{dialog}[open]")
    page.keyboard.press("Escape")
    assert page.locator(f"{dialog}[open]").count() == 0
    # the dialog's close event, which moves the focus, is a task queued after the key's: the
    # next key comes after it, but a read right after the press may come before
    expect(page.locator("#grid-wrap")).to_be_focused(timeout=2000)
    page.keyboard.press(" ")
    assert grid_links(page) == [[0, 0, "S"]]
    assert page.locator("dialog[open]").count() == 0
    page.keyboard.press("Enter")
    assert page.locator("#submit-dialog").is_visible()
    assert page.js_errors == []


def test_a_clicked_word_highlights_its_row_and_leaves_the_keys_on_the_grid(
    page_for: Any, live_server: Any, alice: Any
) -> None:
    assignment = make_assignment(make_pair(), alice)
    page = page_for(alice)
    open_workspace(page, live_server, assignment)
    page.locator("#grid th[data-row='1']").click()
    assert page.locator("#grid th[data-row='1'].pinned").count() == 1
    assert page.locator("#grid td.rowhl").count() > 0
    assert page.evaluate("document.activeElement.id") == "grid-wrap"
    page.keyboard.press("s")  # on the cursor's cell, as before the click
    assert [0, 0, "S"] in grid_links(page)
    page.locator("#grid th[data-row='1']").click()
    assert page.locator("#grid td.rowhl").count() == 0, "a second click stops it"
    page.keyboard.press("?")
    assert "click a word" in page.inner_text("#keymap-dialog")
    page.screenshot(path=str(SCREENSHOTS / "workspace_keymap.png"))
    assert page.js_errors == []


def test_an_autosaved_change_is_there_after_a_reload(
    page_for: Any, live_server: Any, alice: Any
) -> None:
    assignment = make_assignment(make_pair(), alice)
    page = page_for(alice)
    open_workspace(page, live_server, assignment)
    assert "pf" in (cell(page, 1, 1).get_attribute("class") or "").split()  # prefill shading
    cell(page, 0, 0).click()
    cell(page, 5, 6).click()
    cell(page, 5, 6).click()
    cell(page, 1, 1).click()  # the prefilled sure link becomes possible
    wait_saved(page, 2)
    assert stored_links(assignment) == {(0, 0): True, (1, 1): False, (3, 4): False, (5, 6): False}
    page.reload()
    page.wait_for_selector(READY)
    assert grid_links(page) == [[0, 0, "S"], [1, 1, "P"], [3, 4, "P"], [5, 6, "P"]]
    # Touched cells lose the prefill shading for good; untouched prefill keeps it.
    assert "pf" not in (cell(page, 1, 1).get_attribute("class") or "").split()
    assert "pf" in (cell(page, 3, 4).get_attribute("class") or "").split()
    assert AnnotationEvent.objects.filter(annotation__assignment=assignment).count() == 2
    assignment.refresh_from_db()
    assert assignment.status == Assignment.Status.IN_PROGRESS


def test_a_second_page_gets_a_conflict_and_keeps_both_versions(
    page_for: Any, live_server: Any, alice: Any
) -> None:
    assignment = make_assignment(make_pair(prefill=None), alice)
    first = page_for(alice)
    second = page_for(alice)
    open_workspace(first, live_server, assignment)
    open_workspace(second, live_server, assignment)
    cell(first, 0, 0).click()
    wait_saved(first, 2)
    cell(second, 2, 2).click()
    second.wait_for_selector("#conflict:not([hidden])")
    assert "server version 2" in second.locator("#conflict-text").inner_text()
    assert second.locator("#save-status").get_attribute("data-state") == "conflict"
    assert grid_links(second) == [[2, 2, "S"]]  # the second page's work is still on screen
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    second.screenshot(path=str(SCREENSHOTS / "conflict.png"))
    second.get_by_role("button", name=re.compile("Use theirs")).focus()
    second.keyboard.press("Enter")  # from the keyboard: the banner goes, the grid has the focus
    assert grid_links(second) == [[0, 0, "S"]]
    assert second.evaluate("document.activeElement.id") == "grid-wrap"
    second.keyboard.press("Control+z")  # and the discarded side comes back with undo
    assert grid_links(second) == [[2, 2, "S"]]
    wait_saved(second, 3)
    assert stored_links(assignment) == {(2, 2): True}
    assert second.js_errors == []


@pytest.mark.parametrize(("width", "height"), [(1280, 800), (1920, 1080)])
def test_two_tabs_in_conflict_merge_both_sides_changes_since_their_common_version(
    page_for: Any, live_server: Any, alice: Any, width: int, height: int
) -> None:
    assignment = make_assignment(make_pair(prefill=None), alice)
    first = page_for(alice, viewport=(width, height))
    second = page_for(alice, viewport=(width, height))
    open_workspace(first, live_server, assignment)
    open_workspace(second, live_server, assignment)
    second.context.set_offline(True)  # the second tab edits from version 1 while the first saves
    cell(second, 2, 2).click()  # only here: sure
    cell(second, 4, 4).click()
    cell(second, 4, 4).click()  # on both sides: possible here, sure there
    second.wait_for_selector("#save-status[data-state=offline]")
    cell(first, 0, 0).click()  # only there: sure
    cell(first, 4, 4).click()
    wait_saved(first, 2)
    second.context.set_offline(False)
    second.wait_for_selector("#conflict:not([hidden])", timeout=20_000)
    text = second.locator("#conflict-text").inner_text()
    assert "Merging keeps their 1 change and your 2 changes since version 1" in text
    assert "1 cell changed on both sides would keep yours" in text
    assert "drops their 2 changes" in second.locator("#conflict-mine").inner_text()
    second.screenshot(path=str(SCREENSHOTS / f"conflict_merge_{width}x{height}.png"))
    second.get_by_role("button", name="Merge both").click()
    assert grid_links(second) == [[0, 0, "S"], [2, 2, "S"], [4, 4, "P"]]
    note = second.locator("#merge-note-text").inner_text()
    assert "kept their 1 change and your 1 change" in note
    assert "1 cell changed on both sides kept yours (source word 5 × target word 5)" in note
    wait_saved(second, 3)
    assert stored_links(assignment) == {(0, 0): True, (2, 2): True, (4, 4): False}
    second.screenshot(path=str(SCREENSHOTS / f"conflict_merged_{width}x{height}.png"))
    second.keyboard.press("Control+z")  # the merge is one step: undo brings mine back
    assert grid_links(second) == [[2, 2, "S"], [4, 4, "P"]]
    assert first.js_errors == [] and second.js_errors == []


def test_a_tab_in_conflict_keeps_its_work_when_another_tab_of_the_browser_saves(
    page_for: Any, live_server: Any, alice: Any
) -> None:
    assignment = make_assignment(make_pair(prefill=None), alice)
    first = page_for(alice)
    second = watched_page(first.context)  # a second tab of the same browser: one storage
    open_workspace(first, live_server, assignment)
    open_workspace(second, live_server, assignment)
    cell(first, 0, 0).click()
    wait_saved(first, 2)
    cell(second, 2, 2).click()
    second.wait_for_selector("#conflict:not([hidden])")
    cell(first, 1, 1).click()  # the first tab goes on saving while the second waits
    wait_saved(first, 3)
    assert [r["links"] for r in stored_in_browser(first, f"paw:annotation:{assignment.pk}")] == [
        [[2, 2, "S"]]
    ]
    second.reload()  # or the tab crashes: its work is still in the browser
    second.wait_for_selector(READY)
    assert grid_links(second) == [[2, 2, "S"]]
    assert "server version 3" in second.locator("#conflict-text").inner_text()
    second.get_by_role("button", name="Merge both").click()
    assert second.evaluate("document.activeElement.id") == "grid-wrap"
    second.get_by_role("button", name="Dismiss").click()  # the note's button too
    assert second.evaluate("document.activeElement.id") == "grid-wrap"
    wait_saved(second, 4)
    assert stored_links(assignment) == {(0, 0): True, (1, 1): True, (2, 2): True}
    assert stored_in_browser(second, f"paw:annotation:{assignment.pk}") == []
    assert first.js_errors == [] and second.js_errors == []


def _status_colours(page: Any, state: str) -> list[str]:
    """The save indicator's background, text and dot colours, as they would be in ``state``."""
    return page.evaluate(
        """(state) => {
            const shown = document.getElementById("save-status");
            const probe = shown.cloneNode(false);
            probe.removeAttribute("id");
            probe.dataset.state = state;
            shown.after(probe);
            const box = getComputedStyle(probe);
            const colours = [box.backgroundColor, box.color,
                             getComputedStyle(probe, "::before").backgroundColor];
            probe.remove();
            return colours;
        }""",
        state,
    )


def test_a_tab_whose_pair_was_submitted_in_another_turns_read_only_and_keeps_its_change(
    page_for: Any, live_server: Any, alice: Any
) -> None:
    corpus = make_corpus()
    assignment = make_assignment(make_pair(corpus, prefill=None), alice)
    make_assignment(make_pair(corpus), alice)
    first = page_for(alice)
    second = watched_page(first.context)
    open_workspace(first, live_server, assignment)
    open_workspace(second, live_server, assignment)
    cell(first, 0, 0).click()
    wait_saved(first, 2)
    first.keyboard.press("Enter")
    first.locator("#submit-confirm").click()
    first.wait_for_url(lambda url: f"/work/{assignment.pk}/" not in url)
    cell(second, 2, 2).click()  # refused: the pair is submitted
    second.wait_for_selector("#save-status[data-state=error]")
    # a refused save does not look like a saved one (it had the saved state's colours)
    assert "Not saved" in second.locator("#save-status").inner_text()
    error, saved = _status_colours(second, "error"), _status_colours(second, "saved")
    assert error[:2] == _status_colours(second, "conflict")[:2]  # the conflict's red box
    assert all(mine != theirs for mine, theirs in zip(error, saved, strict=True))
    assert second.locator("#reopen").is_visible()  # read-only, with the way back
    assert "kept in this browser" in second.locator("#readonly-text").inner_text()
    second.reload()
    second.wait_for_selector(READY)
    assert second.locator("#conflict").is_hidden()  # nothing to choose on a submitted pair
    assert "kept in this browser" in second.locator("#readonly-text").inner_text()
    second.locator("#reopen").click()
    second.wait_for_selector("#conflict:not([hidden])")
    second.get_by_role("button", name="Merge both").click()
    second.wait_for_selector("#save-status[data-state=saved]")
    assert stored_links(assignment) == {(0, 0): True, (2, 2): True}
    assert first.js_errors == [] and second.js_errors == []


def test_a_tab_behind_another_loads_the_current_version_from_the_submit_dialog(
    page_for: Any, live_server: Any, alice: Any
) -> None:
    corpus = make_corpus()
    assignment = make_assignment(make_pair(corpus, prefill=None), alice)
    following = make_assignment(make_pair(corpus), alice)
    ahead, behind = page_for(alice), page_for(alice)
    open_workspace(ahead, live_server, assignment)
    open_workspace(behind, live_server, assignment)
    cell(ahead, 1, 1).click()
    wait_saved(ahead, 2)
    behind.keyboard.press("Enter")
    behind.locator("#submit-confirm").click()
    behind.wait_for_selector("#submit-error:not([hidden])")
    assert "changed elsewhere" in behind.locator("#submit-error").inner_text()
    behind.get_by_role("button", name="Load the current version").click()
    behind.wait_for_selector(READY)
    assert [1, 1, "S"] in grid_links(behind)
    behind.keyboard.press("Enter")
    behind.locator("#submit-confirm").click()
    behind.wait_for_url(f"**/work/{following.pk}/")
    with SERVER_LOCK:
        assignment.refresh_from_db()
    assert assignment.status == Assignment.Status.SUBMITTED
    assert stored_links(assignment) == {(1, 1): True}
    assert ahead.js_errors == [] and behind.js_errors == []


def test_overwriting_with_mine_after_a_conflict_says_what_it_drops_as_the_grid_changes(
    page_for: Any, live_server: Any, alice: Any
) -> None:
    assignment = make_assignment(make_pair(prefill=None), alice)
    first = page_for(alice)
    second = page_for(alice)
    open_workspace(first, live_server, assignment)
    open_workspace(second, live_server, assignment)
    cell(first, 0, 0).click()
    wait_saved(first, 2)
    cell(second, 2, 2).click()
    second.wait_for_selector("#conflict:not([hidden])")
    mine = second.locator("#conflict-mine")
    assert mine.inner_text() == "Overwrite theirs with mine (drops their 1 change)"
    cell(second, 0, 0).click()  # their change made here too: the banner counts it at once
    assert mine.inner_text() == "Overwrite theirs with mine"
    text = second.locator("#conflict-text").inner_text()
    assert "their 0 changes and your 1 change since" in text
    mine.click()
    wait_saved(second, 3)
    assert stored_links(assignment) == {(0, 0): True, (2, 2): True}


def test_offline_edits_are_kept_and_sent_when_the_network_returns(
    page_for: Any, live_server: Any, alice: Any
) -> None:
    assignment = make_assignment(make_pair(prefill=None), alice)
    page = page_for(alice)
    open_workspace(page, live_server, assignment)
    page.context.set_offline(True)
    for i, j in ((0, 0), (1, 1), (2, 2)):
        cell(page, i, j).click()
    page.wait_for_selector("#save-status[data-state=offline]")
    (stored,) = stored_in_browser(page, f"paw:annotation:{assignment.pk}")
    assert stored["links"] == [[0, 0, "S"], [1, 1, "S"], [2, 2, "S"]]
    cell(page, 1, 1).click()  # one more change while offline
    page.context.set_offline(False)
    page.wait_for_selector("#save-status[data-state=saved]", timeout=20_000)
    assert stored_links(assignment) == {(0, 0): True, (1, 1): False, (2, 2): True}
    page.reload()
    page.wait_for_selector(READY)
    assert grid_links(page) == [[0, 0, "S"], [1, 1, "P"], [2, 2, "S"]]


def test_the_save_indicator_is_silent_to_screen_readers_but_for_trouble_and_its_end(
    page_for: Any, live_server: Any, alice: Any
) -> None:
    """Every edit saves within a second: the indicator is seen, not announced over the cursor
    description; a separate polite live region says going offline and the Saved that ends it."""
    assignment = make_assignment(make_pair(prefill=None), alice)
    page = page_for(alice)
    open_workspace(page, live_server, assignment)
    indicator, announcer = page.locator("#save-status"), page.locator("#save-announce")
    assert indicator.get_attribute("aria-live") is None
    assert indicator.get_attribute("role") is None
    assert (announcer.get_attribute("role"), announcer.get_attribute("aria-live")) == (
        "status",
        "polite",
    )
    cell(page, 0, 0).click()
    wait_saved(page, 2)
    assert announcer.text_content() == ""
    page.context.set_offline(True)
    cell(page, 1, 1).click()
    page.wait_for_selector("#save-status[data-state=offline]")
    assert "cannot be reached" in announcer.text_content()
    assert indicator.text_content() == "Offline · retrying"  # the visible words are unchanged
    page.context.set_offline(False)
    page.wait_for_selector("#save-status[data-state=saved]", timeout=20_000)
    assert announcer.text_content() == "Saved"
    assert page.js_errors == []


def test_work_left_in_the_browser_is_sent_on_the_next_visit(
    page_for: Any, live_server: Any, alice: Any
) -> None:
    assignment = make_assignment(make_pair(prefill=None), alice)
    page = page_for(alice)
    open_workspace(page, live_server, assignment)
    page.context.set_offline(True)
    cell(page, 3, 3).click()
    page.wait_for_selector("#save-status[data-state=offline]")
    context = page.context
    page.close()  # the tab is closed while offline, before any retry
    assert stored_links(assignment) == {}
    context.set_offline(False)
    page = context.new_page()
    open_workspace(page, live_server, assignment)
    wait_saved(page, 2)
    assert stored_links(assignment) == {(3, 3): True}


def test_a_copy_left_by_a_save_that_went_through_gives_way_to_a_newer_version_without_a_banner(
    page_for: Any, live_server: Any, alice: Any
) -> None:
    """A tab left the pair (the queue, a closed tab) as its save of (0, 0) went through: the
    answer never came, so its copy stayed in the browser. The pair was then changed in another
    tab. Opening it again showed the conflict banner ("their 1 change and your 0 changes"), a
    grid without the other tab's change, and nothing saved until a choice (Overwrite would
    drop that change): the copy holds nothing the server lacks, so the page opens as saved."""
    assignment = make_assignment(make_pair(prefill=None), alice)
    page = page_for(alice)
    open_workspace(page, live_server, assignment)

    def answer_lost(route: Any) -> None:
        if route.request.method == "PUT":
            route.fetch()  # the server saves version 2
            route.abort()  # and the page never hears of it
        else:
            route.continue_()

    page.route("**/annotation/", answer_lost)
    cell(page, 0, 0).click()
    page.wait_for_selector("#save-status[data-state=offline]")
    context = page.context
    page.close()
    key = f"paw:annotation:{assignment.pk}"
    with SERVER_LOCK:
        assert stored_links(assignment) == {(0, 0): True}
        annotation_save(  # the other tab's change: version 3
            assignment=assignment,
            actor=alice,
            base_version=2,
            links={(0, 0): True, (2, 2): True},
        )
    page = watched_page(context)
    page.goto(live_server.url + "/")  # the queue, where the annotator opens the pair again
    assert [copy["links"] for copy in stored_in_browser(page, key)] == [[[0, 0, "S"]]]
    open_workspace(page, live_server, assignment)
    assert page.locator("#conflict").is_hidden()
    assert grid_links(page) == [[0, 0, "S"], [2, 2, "S"]]
    assert page.inner_text("#save-status") == "Saved · v3"
    assert stored_in_browser(page, key) == []
    assert stored_links(assignment) == {(0, 0): True, (2, 2): True}
    assert page.js_errors == []


def test_a_reload_while_a_save_is_on_its_way_is_no_conflict(
    page_for: Any, live_server: Any, alice: Any
) -> None:
    # The save of (0, 0) reaches the server but its answer never comes back; (1, 1) is set
    # meanwhile and the page reloads. The server's version 2 holds only this tab's own change:
    # the page saves the rest without a banner saying the pair was changed elsewhere.
    assignment = make_assignment(make_pair(prefill=None), alice)
    page = page_for(alice)
    open_workspace(page, live_server, assignment)
    held: list[Any] = []

    def answer_lost(route: Any) -> None:
        if route.request.method == "PUT" and not held:
            route.fetch()  # the server saves version 2
            held.append(route)  # and the page never hears of it
        else:
            route.continue_()

    page.route("**/annotation/", answer_lost)
    cell(page, 0, 0).click()
    page.wait_for_selector("#save-status[data-state=saving]")
    assert stored_links(assignment) == {(0, 0): True}
    cell(page, 1, 1).click()
    page.evaluate("window.__workspace.handOverNow()")
    page.reload()  # the first save's answer is still awaited
    page.wait_for_selector(READY)
    wait_saved(page, 3)
    assert page.locator("#conflict").is_hidden()
    assert stored_links(assignment) == {(0, 0): True, (1, 1): True}
    assert grid_links(page) == [[0, 0, "S"], [1, 1, "S"]]
    assert page.js_errors == []


def test_leaving_while_the_changes_cannot_be_sent_warns_and_leaving_while_saving_does_not(
    page_for: Any, live_server: Any, alice: Any
) -> None:
    """Offline, a link of the top bar (or closing the tab) left the pair without a word: the
    change waited in this browser alone until the pair was opened here again, as the adjudication
    page warns. A change merely on its way is sent as the page goes, without a question."""
    assignment = make_assignment(make_pair(prefill=None), alice)
    page = page_for(alice)
    open_workspace(page, live_server, assignment)
    dialogs: list[str] = []

    def leave(dialog: Any) -> None:
        dialogs.append(dialog.type)
        dialog.dismiss()  # stay on the page

    page.on("dialog", leave)
    page.route("**/annotation/", lambda route: route.abort("internetdisconnected"))
    page.keyboard.press("s")
    page.wait_for_selector("#save-status[data-state=offline]")
    page.evaluate("location.href = '/'")
    page.wait_for_timeout(300)
    assert dialogs == ["beforeunload"]
    assert page.url.endswith(f"/work/{assignment.pk}/")
    page.unroute("**/annotation/")
    page.evaluate("window.dispatchEvent(new Event('online'))")
    wait_saved(page, 2)
    page.keyboard.press("ArrowRight")
    page.keyboard.press("s")  # and at once to the queue: the save goes with the page
    page.get_by_role("link", name="My queue").click()
    page.wait_for_url(f"{live_server.url}/")
    assert dialogs == ["beforeunload"]
    page.wait_for_timeout(500)
    assert stored_links(assignment) == {(0, 0): True, (0, 1): True}
    assert page.js_errors == []


def test_a_change_made_after_logging_out_in_another_tab_is_saved_once_logged_in_again(
    page_for: Any, live_server: Any, alice: Any
) -> None:
    assignment = make_assignment(make_pair(prefill=None), alice)
    page = page_for(alice)
    open_workspace(page, live_server, assignment)
    grid_at = page.locator("#grid-wrap").bounding_box()
    cookies = page.context.cookies()
    page.context.clear_cookies()  # the session ends (logged out elsewhere, expired)
    cell(page, 0, 0).click()
    page.wait_for_selector("#save-status[data-state=offline]")
    assert "Signed out" in page.locator("#save-status").inner_text()
    assert "sign in again in another tab" in page.locator("#save-status").get_attribute("title")
    # the longer status leaves the grid where it was: a click aimed at a cell lands on it
    assert page.locator("#grid-wrap").bounding_box() == grid_at
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / "signed_out.png"))
    (stored,) = stored_in_browser(page, f"paw:annotation:{assignment.pk}")
    assert stored["links"] == [[0, 0, "S"]]
    page.keyboard.press("Enter")  # submit: the dialog says why it cannot yet
    page.locator("#submit-confirm").click()
    page.locator("#submit-error").wait_for(state="visible")
    assert "you are signed out" in page.locator("#submit-error").inner_text()
    page.keyboard.press("Escape")
    page.context.add_cookies(cookies)  # signed in again
    page.keyboard.press("Control+s")
    wait_saved(page, 2)
    assert stored_links(assignment) == {(0, 0): True}


def test_the_next_pair_waits_while_the_changes_cannot_be_saved(
    page_for: Any, live_server: Any, alice: Any
) -> None:
    corpus = make_corpus()
    first = make_assignment(make_pair(corpus, prefill=None), alice)
    second = make_assignment(make_pair(corpus), alice)
    page = page_for(alice)
    open_workspace(page, live_server, first)
    page.context.set_offline(True)
    page.keyboard.press("s")
    page.wait_for_selector("#save-status[data-state=offline]")
    page.keyboard.press("n")  # offline the next pair cannot load: the page stays, and says why
    message = page.locator("#ws-message")
    message.wait_for(state="visible")
    assert "not saved yet" in message.inner_text()
    assert page.url.endswith(f"/work/{first.pk}/")
    assert grid_links(page) == [[0, 0, "S"]]
    page.context.set_offline(False)
    page.wait_for_selector("#save-status[data-state=saved]", timeout=20_000)
    assert message.is_hidden()
    page.keyboard.press("n")
    page.wait_for_url(f"**/work/{second.pk}/")
    assert stored_links(first) == {(0, 0): True}
    assert page.js_errors == []


def test_the_next_pair_opens_after_a_save_that_was_refused(
    page_for: Any, live_server: Any, alice: Any
) -> None:
    corpus = make_corpus()
    first = make_assignment(make_pair(corpus, prefill=None), alice)
    second = make_assignment(make_pair(corpus), alice)
    page = page_for(alice)
    open_workspace(page, live_server, first)
    refusal = '{"error": {"code": "submitted", "message": "this pair was submitted"}}'
    page.route(
        "**/annotation/",
        lambda route: route.fulfill(status=409, content_type="application/json", body=refusal),
    )
    page.keyboard.press("s")
    page.wait_for_selector("#save-status[data-state=error]")
    page.keyboard.press("n")  # retrying cannot help: no dead end, the next pair opens
    page.wait_for_url(f"**/work/{second.pk}/")
    page.wait_for_selector(READY)


def test_submitting_moves_to_the_next_pair(page_for: Any, live_server: Any, alice: Any) -> None:
    corpus = make_corpus()
    first = make_assignment(make_pair(corpus), alice)
    second = make_assignment(make_pair(corpus), alice)
    page = page_for(alice)
    open_workspace(page, live_server, first)
    page.keyboard.press("s")
    page.keyboard.press("Enter")
    page.locator("#submit-dialog input[value=bad_tokenization]").check()
    page.locator("#submit-rating").fill("4.5")
    page.locator("#submit-comment").fill("split hyphen")
    page.locator("#submit-confirm").click()
    page.wait_for_url(f"**/work/{second.pk}/")
    page.wait_for_selector(READY)
    first.refresh_from_db()
    annotation = Annotation.objects.get(assignment=first)
    assert first.status == Assignment.Status.SUBMITTED
    assert (annotation.flags, annotation.rating, annotation.comment) == (
        ["bad_tokenization"],
        4.5,
        "split hyphen",
    )
    assert annotation_links(annotation)[(0, 0)] is True


def test_b_right_after_a_submit_returns_to_the_pair_just_submitted(
    page_for: Any, live_server: Any, alice: Any
) -> None:
    """A submit skips the submitted pairs after it: b there goes back to the pair handed in,
    as a browser's back would, not to the pair before the new one in queue order; from that
    pair b follows the queue again."""
    corpus = make_corpus()
    first, done, third = (make_assignment(make_pair(corpus), alice) for _ in range(3))
    Assignment.objects.filter(pk=done.pk).update(status=Assignment.Status.SUBMITTED)
    page = page_for(alice)
    open_workspace(page, live_server, first)
    page.keyboard.press("s")
    page.keyboard.press("Enter")
    page.locator("#submit-confirm").click()
    page.wait_for_url(f"**/work/{third.pk}/")
    page.wait_for_selector(READY)
    page.reload()  # a reload of the new pair keeps the way back
    page.wait_for_selector(READY)
    page.keyboard.press("b")
    page.wait_for_url(f"**/work/{first.pk}/")
    page.wait_for_selector(READY)
    page.keyboard.press("n")
    page.wait_for_url(f"**/work/{done.pk}/")
    page.wait_for_selector(READY)
    page.keyboard.press("n")
    page.wait_for_url(f"**/work/{third.pk}/")
    page.wait_for_selector(READY)
    page.keyboard.press("b")  # opened by n, not by a submit: the pair before it in the queue
    page.wait_for_url(f"**/work/{done.pk}/")
    assert page.js_errors == []


def test_the_key_map_says_where_b_goes_after_a_submit(
    page_for: Any, live_server: Any, alice: Any
) -> None:
    assignment = make_assignment(make_pair(), alice)
    page = page_for(alice)
    open_workspace(page, live_server, assignment)
    page.keyboard.press("?")
    keymap = page.locator("#keymap-dialog").inner_text()
    assert "right after a submit, the pair just submitted" in keymap


def test_a_double_click_on_submit_sends_one_submission(
    page_for: Any, live_server: Any, alice: Any
) -> None:
    corpus = make_corpus()
    first = make_assignment(make_pair(corpus), alice)
    second = make_assignment(make_pair(corpus), alice)
    page = page_for(alice)
    sent: list[str] = []
    page.on("request", lambda r: sent.append(r.url) if r.url.endswith("/submit/") else None)
    open_workspace(page, live_server, first)
    page.keyboard.press("s")
    page.keyboard.press("Enter")
    page.locator("#submit-confirm").dblclick()
    page.wait_for_url(f"**/work/{second.pk}/")
    page.wait_for_selector(READY)
    assert len(sent) == 1
    assert page.js_errors == [], "no refused second submission"


def test_a_reopened_pair_submitted_again_keeps_its_flags_rating_and_comment(
    page_for: Any, live_server: Any, alice: Any
) -> None:
    assignment = make_assignment(make_pair(prefill=None), alice)
    page = page_for(alice)
    open_workspace(page, live_server, assignment)
    with SERVER_LOCK:
        Annotation.objects.filter(assignment=assignment).update(
            flags=["not_paraphrase"], rating=1.5, comment="loose"
        )
        Assignment.objects.filter(pk=assignment.pk).update(status=Assignment.Status.SUBMITTED)
    page.reload()
    page.wait_for_selector(READY)
    with page.expect_navigation():  # reopened, the page loads again
        page.locator("#reopen").click()
    page.wait_for_selector(READY)
    page.wait_for_selector("#readonly", state="hidden")
    page.keyboard.press("Enter")
    assert page.locator("#submit-dialog input[value=not_paraphrase]").is_checked()
    assert not page.locator("#submit-dialog input[value=bad_tokenization]").is_checked()
    assert page.locator("#submit-rating").input_value() == "1.5"
    assert page.locator("#submit-comment").input_value() == "loose"
    page.locator("#submit-confirm").click()
    page.wait_for_url(f"{live_server.url}/")
    annotation = Annotation.objects.get(assignment=assignment)
    assert (annotation.flags, annotation.rating, annotation.comment) == (
        ["not_paraphrase"],
        1.5,
        "loose",
    )
    assert page.js_errors == []


def test_a_trial_pair_shows_feedback_against_gold_after_submitting(
    page_for: Any, live_server: Any, alice: Any
) -> None:
    pair = make_pair(split="trial", gold=[(0, 1, True), (1, 1, True), (3, 4, False)])
    assignment = make_assignment(pair, alice)
    page = page_for(alice)
    open_workspace(page, live_server, assignment)
    assert "pf" in (cell(page, 1, 1).get_attribute("class") or "").split()  # prefill, unchecked
    page.get_by_role("button", name=re.compile("^Submit")).click()
    page.locator("#submit-confirm").click()
    page.wait_for_selector("#feedback:not([hidden])")
    # submitted: its links are accepted (drawn checked, as after a reload), and nothing is saved
    assert "pf" not in (cell(page, 1, 1).get_attribute("class") or "").split()
    scores = page.locator("#feedback-scores").inner_text()
    assert "Precision 100.0%" in scores and "Recall 50.0%" in scores and "F1 66.7%" in scores
    assert "fb-miss" in (cell(page, 0, 1).get_attribute("class") or "")
    assert "fb-ok" in (cell(page, 1, 1).get_attribute("class") or "")
    assert page.locator("#reopen").is_hidden(), "a submitted trial pair is final"
    assert "final" in page.inner_text("#readonly-text")
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / "trial_feedback.png"))
    page.wait_for_timeout(1500)  # past the save queue's debounce: no save of a submitted pair
    assert page.locator("#save-status").get_attribute("data-state") == "saved"
    assert page.js_errors == []


def test_the_home_page_shows_my_queue_and_n_opens_the_next_pair(
    page_for: Any, live_server: Any, alice: Any
) -> None:
    corpus = make_corpus()
    first = make_assignment(make_pair(corpus), alice)
    make_assignment(make_pair(corpus), alice)
    page = page_for(alice)
    page.goto(live_server.url + "/")
    page.wait_for_selector("#queue-counts .count")
    assert page.locator("[data-status=new] b").inner_text() == "2"
    page.keyboard.press("n")
    page.wait_for_url(f"**/work/{first.pk}/")


def test_a_long_queue_pages_and_filters_by_status(
    page_for: Any, live_server: Any, alice: Any
) -> None:
    corpus = make_corpus()
    assignments = [make_assignment(make_pair(corpus, prefill=None), alice) for _ in range(130)]
    Assignment.objects.filter(pk__in=[a.pk for a in assignments[100:103]]).update(
        status=Assignment.Status.SUBMITTED
    )
    page = page_for(alice)
    page.goto(live_server.url + "/")
    page.wait_for_selector("#queue-counts .count")
    assert page.locator("[data-status=new] b").inner_text() == "127"
    assert page.locator("#queue-table tbody tr").count() == 50
    assert "1–50 of 130 pairs · page 1 of 3" in page.inner_text(".pager")
    page.get_by_role("link", name="Next →").click()
    page.wait_for_selector(".pager:has-text('page 2 of 3')")
    assert page.locator("#queue-table tbody tr").count() == 50
    assert "page=2" in page.url
    page.select_option("#id_status", "submitted")  # the filter form submits itself
    page.wait_for_url("**/?*status=submitted*")
    rows = page.locator("#queue-table tbody tr")
    assert rows.count() == 3 and "Submitted" in rows.first.inner_text()
    assert "1–3 of 3 pairs" in page.inner_text(".pager")
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / "home_queue_filtered.png"), full_page=True)
    # the last, new pair: no other id of the queue has its id in it
    wanted = assignments[-1].pair.external_id
    page.fill("#id_q", wanted)
    page.press("#id_q", "Enter")
    page.wait_for_url(f"**q={wanted}*")
    assert wanted not in page.inner_text("#queue")
    page.select_option("#id_status", "")
    page.wait_for_selector(f"#queue-table a:text-is('{wanted}')")
    page.screenshot(path=str(SCREENSHOTS / "home_queue_long.png"))


def test_the_queue_fits_1024_px_with_its_pair_ids_and_statuses_on_one_line(
    page_for: Any, live_server: Any, alice: Any
) -> None:
    """At 1024 px the sentence column kept its 22rem: the table scrolled sideways, the last
    worked time was cut off, and "In progress" and "news-001" broke over two lines."""
    corpus = make_corpus("edinburgh-news")
    sentence = "The city council approved the new budget on Tuesday after a three-hour debate ."
    worked = make_assignment(make_pair(corpus, sentence, sentence, external_id="news-001"), alice)
    make_assignment(make_pair(corpus, sentence, sentence, external_id="news-002"), alice)
    Assignment.objects.filter(pk=worked.pk).update(
        status=Assignment.Status.IN_PROGRESS, active_seconds=146, last_activity_at=timezone.now()
    )
    page = page_for(alice, viewport=(1024, 768))
    page.goto(live_server.url + "/")
    page.wait_for_selector("#queue-table")
    page.screenshot(path=str(SCREENSHOTS / "home_queue_1024.png"))
    wrap = page.locator("#queue .table-wrap")
    assert wrap.evaluate("(e) => e.scrollWidth <= e.clientWidth"), "no sideways scroll"
    row = page.locator(f"#queue-table tr[data-assignment='{worked.pk}']")
    line = row.locator("td").first.evaluate("(e) => parseFloat(getComputedStyle(e).lineHeight)")
    for part in ("a", ".badge"):
        height = row.locator(part).first.evaluate("(e) => e.getBoundingClientRect().height")
        assert height < 1.5 * line, f"{part} on one line"
    assert page.js_errors == []


def test_logging_in_through_the_form_reaches_the_home_page(
    browser: Any, live_server: Any, fast_passwords: None
) -> None:
    make_user("alice", roles.ANNOTATOR, password="correct horse battery")
    page = browser.new_page()
    try:
        page.goto(live_server.url + "/")
        page.wait_for_url("**/login/?next=/")
        page.fill("#id_username", "alice")
        page.fill("#id_password", "correct horse battery")
        page.get_by_role("button", name="Log in").click()
        page.wait_for_selector("h1:has-text('Hello, alice')")
        page.get_by_role("button", name="Log out").click()
        page.wait_for_url("**/login/")
    finally:
        page.close()


def test_the_transposed_grid_edits_the_same_links(
    page_for: Any, live_server: Any, alice: Any
) -> None:
    assignment = make_assignment(make_pair(prefill=None), alice)  # 6 source × 7 target words
    page = page_for(alice)
    open_workspace(page, live_server, assignment)
    page.keyboard.press("t")
    assert page.locator("#grid thead th").count() == 1 + 6
    assert page.locator("#grid tbody tr").count() == 7
    cell(page, 2, 1).click()  # display row 2 = target 2, column 1 = source 1
    assert grid_links(page) == [[1, 2, "S"]]
    page.keyboard.press("ArrowDown")  # down moves along the target side when transposed
    page.keyboard.press("s")
    assert grid_links(page) == [[1, 2, "S"], [1, 3, "S"]]
    page.keyboard.press("t")
    assert "s" in (cell(page, 1, 3).get_attribute("class") or "").split()


def test_the_key_map_opens_with_a_question_mark(
    page_for: Any, live_server: Any, alice: Any
) -> None:
    assignment = make_assignment(make_pair(), alice)
    page = page_for(alice)
    open_workspace(page, live_server, assignment)
    page.keyboard.press("?")
    dialog = page.locator("#keymap-dialog")
    assert dialog.is_visible()
    assert "redo" in dialog.inner_text()
    page.keyboard.press("Escape")
    assert not dialog.is_visible()
    page.keyboard.press("g")
    page.wait_for_selector("#guidelines-dialog-body h1")


def test_a_submitted_pair_looks_read_only_and_ignores_edits(
    page_for: Any, live_server: Any, alice: Any
) -> None:
    assignment = make_assignment(make_pair(prefill=None), alice)
    with SERVER_LOCK:
        Assignment.objects.filter(pk=assignment.pk).update(status=Assignment.Status.SUBMITTED)
    page = page_for(alice)
    page.set_viewport_size({"width": 1280, "height": 800})
    open_workspace(page, live_server, assignment)
    assert page.locator("#readonly").is_visible()
    assert "readonly" in (page.locator("#workspace").get_attribute("class") or "")
    assert page.locator("#grid-wrap").get_attribute("aria-readonly") == "true"
    assert not page.locator("[data-action=sure]").is_visible()  # editing tools are hidden
    cell(page, 0, 0).click()
    page.keyboard.press("s")
    assert grid_links(page) == []
    assert page.locator("#grid td").first.evaluate("td => getComputedStyle(td).cursor") == (
        "not-allowed"
    )
    page.screenshot(path=str(SCREENSHOTS / "workspace_read_only.png"))
    assert page.js_errors == []


def test_reopening_a_pair_another_tab_reopened_opens_it_for_editing(
    page_for: Any, live_server: Any, alice: Any
) -> None:
    assignment = make_assignment(make_pair(prefill=None), alice)
    with SERVER_LOCK:
        Assignment.objects.filter(pk=assignment.pk).update(status=Assignment.Status.SUBMITTED)
    first = page_for(alice)
    second = watched_page(first.context)
    open_workspace(first, live_server, assignment)
    open_workspace(second, live_server, assignment)
    second.locator("#reopen").click()
    second.wait_for_selector("#readonly", state="hidden")
    first.locator("#reopen").click()  # refused (409: not submitted any more), yet it is open
    first.wait_for_selector("#readonly", state="hidden")
    cell(first, 0, 0).click()
    first.wait_for_selector("#save-status[data-state=saved]:has-text('v3')")
    assert stored_links(assignment) == {(0, 0): True}
    assert first.js_errors == [] and second.js_errors == []


def test_the_guidelines_say_so_when_they_cannot_be_loaded(
    page_for: Any, live_server: Any, alice: Any
) -> None:
    assignment = make_assignment(make_pair(), alice)
    page = page_for(alice)
    open_workspace(page, live_server, assignment)
    page.context.set_offline(True)
    page.keyboard.press("g")
    page.wait_for_selector("#guidelines-dialog-body:has-text('could not be loaded')")
    page.keyboard.press("Escape")
    page.context.set_offline(False)
    page.keyboard.press("g")
    page.wait_for_selector("#guidelines-dialog-body h1")
    assert page.js_errors == []


def test_positions_are_shown_one_based_and_the_toolbar_fits_one_line(
    page_for: Any, live_server: Any, alice: Any
) -> None:
    assignment = make_assignment(make_pair(), alice)
    page = page_for(alice)
    page.set_viewport_size({"width": 1280, "height": 800})
    open_workspace(page, live_server, assignment)
    assert page.locator("#cursor-info").inner_text().startswith("Source word 1 ")
    assert (
        page.locator("#grid thead th[data-col='0']")
        .get_attribute("title")
        .startswith("target word 1:")
    )
    tops = page.locator(".toolbar > .btn").evaluate_all(
        "buttons => buttons.map(b => Math.round(b.getBoundingClientRect().top))"
    )
    assert len(set(tops)) == 1, f"toolbar wraps onto {len(set(tops))} lines at 1280×800"
    page.screenshot(path=str(SCREENSHOTS / "workspace.png"))
    assert page.js_errors == []


def test_the_submit_dialog_says_how_many_prefill_links_are_not_yet_checked(
    page_for: Any, live_server: Any, alice: Any
) -> None:
    """Enter, Enter submits: the dialog warns when that hands in prefill nobody looked at."""
    assignment = make_assignment(make_pair(), alice)  # two prefill links
    page = page_for(alice)
    open_workspace(page, live_server, assignment)
    page.focus("#grid-wrap")
    page.keyboard.press("Enter")
    warning = page.locator("#submit-unchecked")
    assert warning.is_visible()
    assert warning.inner_text() == (
        "2 of the 2 links are the automatic prefill, not yet checked: submitting keeps them "
        "as yours."
    )
    page.keyboard.press("Escape")
    cell(page, 1, 1).click()  # the sure prefill link, now possible: checked
    page.focus("#grid-wrap")
    page.keyboard.press("Enter")
    assert warning.inner_text().startswith("1 of the 2 links")
    page.keyboard.press("Escape")
    for key in ["ArrowDown"] * 2 + ["ArrowRight"] * 3:  # from the clicked cell to (3, 4)
        page.keyboard.press(key)
    page.keyboard.press("p")  # confirms the possible prefill link there
    page.keyboard.press("Enter")
    assert not warning.is_visible()
    assert page.js_errors == []
