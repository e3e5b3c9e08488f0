"""The workspace in headless chromium: the keys of a pair too long to cross with the arrows,
and work kept while signed out sent once the annotator is back."""

from __future__ import annotations

from typing import Any

import pytest

from annotate import roles
from annotate.models import Annotation, Assignment
from annotate.services.annotations import annotation_links
from tests.annotate.factories import make_assignment, make_pair, make_user
from tests.frontend.conftest import SERVER_LOCK, stored_in_browser

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

READY = "#workspace[data-ready=true]"


def words(prefix: str, n: int) -> str:
    return " ".join(f"{prefix}{k}" for k in range(n))


def cursor(page: Any) -> tuple[int, int]:
    at = page.evaluate("window.__workspace.model.cursor")
    return at["i"], at["j"]


def cursor_cell_in_view(page: Any) -> bool:
    return page.evaluate(
        """() => {
            const { model, view } = window.__workspace;
            const td = view.cellEls[model.cursor.i * model.m + model.cursor.j];
            const cell = td.getBoundingClientRect();
            const box = view.wrap.getBoundingClientRect();
            return cell.left >= box.left && cell.right <= box.right
                && cell.top >= box.top && cell.bottom <= box.bottom;
        }"""
    )


@pytest.fixture
def alice() -> Any:
    return make_user("alice", roles.ANNOTATOR)


def test_home_end_and_the_page_keys_jump_across_a_long_pair_and_shift_selects(
    page_for: Any, live_server: Any, alice: Any
) -> None:
    pair = make_pair(source=words("s", 60), target=words("t", 62), prefill=None)
    assignment = make_assignment(pair, alice)
    page = page_for(alice, viewport=(1280, 800))
    page.goto(f"{live_server.url}/work/{assignment.pk}/")
    page.wait_for_selector(READY)
    assert not page.evaluate("window.__workspace.view.transposed")

    page.keyboard.press("End")
    assert cursor(page) == (0, 61)
    assert cursor_cell_in_view(page)
    page.keyboard.press("Control+End")
    assert cursor(page) == (59, 61)
    assert cursor_cell_in_view(page)
    page.keyboard.press("Control+Home")
    assert cursor(page) == (0, 0)
    page.keyboard.press("PageDown")
    below = cursor(page)
    assert below[1] == 0 and below[0] > 5  # a box's height of rows, not one
    assert cursor_cell_in_view(page)
    page.keyboard.press("PageUp")
    assert cursor(page) == (0, 0)

    # Shift with a jump key selects, as with the arrows: s then sets the whole row.
    page.keyboard.press("Shift+End")
    page.keyboard.press("s")
    assert page.evaluate("window.__workspace.model.links().length") == 62
    assert page.js_errors == []


def test_a_change_kept_while_signed_out_is_sent_as_soon_as_the_annotator_comes_back_to_the_tab(
    page_for: Any, live_server: Any, alice: Any
) -> None:
    assignment = make_assignment(make_pair(prefill=None), alice)
    page = page_for(alice)
    page.goto(f"{live_server.url}/work/{assignment.pk}/")
    page.wait_for_selector(READY)
    cookies = page.context.cookies()
    page.context.clear_cookies()  # the session ends (expired, logged out elsewhere)
    page.keyboard.press("s")
    page.wait_for_selector("#save-status[data-state=offline]")
    # Retried with back-off: by now the next try is seconds away.
    page.wait_for_function("() => window.__workspace.queue.retryMs >= 8000", timeout=15_000)
    page.context.add_cookies(cookies)  # signed in again, in another tab
    page.evaluate("() => window.dispatchEvent(new Event('focus'))")  # back to this one
    page.wait_for_selector("#save-status[data-state=saved]", timeout=2_000)
    with SERVER_LOCK:
        assert annotation_links(Annotation.objects.get(assignment=assignment)) == {(0, 0): True}
    assert page.js_errors == []


def test_the_grid_is_announced_as_an_application_that_takes_its_own_keys(
    page_for: Any, live_server: Any, alice: Any
) -> None:
    # A screen reader in browse mode would take s, p, x, n and b as its own quick keys (next
    # separator, paragraph, check box...); an application gets every key, as the grid needs.
    assignment = make_assignment(make_pair(prefill=None), alice)
    page = page_for(alice)
    page.goto(f"{live_server.url}/work/{assignment.pk}/")
    page.wait_for_selector(READY)
    grid = page.get_by_role("application", name="Alignment grid")
    assert grid.count() == 1
    assert grid.evaluate("e => e === document.activeElement")
    page.keyboard.press("ArrowRight")
    assert grid.get_attribute("aria-describedby") == "cursor-info"
    said = page.locator("#cursor-info").inner_text()
    assert said.startswith("Source word 1 “the” × target word 2")


def test_undo_on_a_submitted_pair_changes_nothing_the_server_would_refuse(
    page_for: Any, live_server: Any, alice: Any
) -> None:
    # A trial pair stays on its page once submitted (its feedback shows), undo history and all.
    pair = make_pair(split="trial", prefill=None, gold=[(0, 0, True)])
    assignment = make_assignment(pair, alice)
    page = page_for(alice)
    page.goto(f"{live_server.url}/work/{assignment.pk}/")
    page.wait_for_selector(READY)
    page.keyboard.press("s")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("s")
    page.keyboard.press("Control+z")  # something to redo too
    page.keyboard.press("Enter")
    page.locator("#submit-confirm").click()
    page.wait_for_selector("#feedback:not([hidden])")
    page.locator("#grid-wrap").focus()
    for key in ["Control+z", "Control+y", "Control+z"]:
        page.keyboard.press(key)
    page.wait_for_timeout(1500)  # past the save queue's debounce
    assert page.evaluate("window.__workspace.model.links()") == [[0, 0, "S"]]
    assert page.locator("#save-status").get_attribute("data-state") == "saved"
    assert stored_in_browser(page, f"paw:annotation:{assignment.pk}") == []
    with SERVER_LOCK:
        assert annotation_links(Annotation.objects.get(assignment=assignment)) == {(0, 0): True}
    assert page.js_errors == []


def test_an_edit_key_on_a_submitted_pair_points_to_reopen_and_enter_then_reopens_it(
    page_for: Any, live_server: Any, alice: Any
) -> None:
    assignment = make_assignment(make_pair(prefill=None), alice)
    with SERVER_LOCK:
        Assignment.objects.filter(pk=assignment.pk).update(status=Assignment.Status.SUBMITTED)
    page = page_for(alice)
    page.goto(f"{live_server.url}/work/{assignment.pk}/")
    page.wait_for_selector(READY)
    page.keyboard.press("ArrowRight")  # moving is no edit: the keys stay on the grid
    assert page.evaluate("document.activeElement.id") == "grid-wrap"
    page.keyboard.press("s")
    assert page.evaluate("document.activeElement.id") == "reopen"
    assert page.locator("#reopen").evaluate("b => b.matches(':focus-visible')")
    page.keyboard.press("Enter")  # reopens: the page comes back editable
    page.wait_for_selector("#readonly", state="hidden")
    page.wait_for_selector(READY)
    page.keyboard.press("s")
    page.wait_for_selector("#save-status:has-text('Saved · v3')")  # v2 was the reopening
    with SERVER_LOCK:
        assert annotation_links(Annotation.objects.get(assignment=assignment)) == {(0, 1): True}
    assert page.js_errors == []


def test_enter_in_a_conflict_points_to_the_banners_choice_and_a_second_enter_takes_it(
    page_for: Any, live_server: Any, alice: Any
) -> None:
    assignment = make_assignment(make_pair(prefill=None), alice)
    first = page_for(alice)
    second = page_for(alice)
    for page in (first, second):
        page.goto(f"{live_server.url}/work/{assignment.pk}/")
        page.wait_for_selector(READY)
    second.context.set_offline(True)  # the second tab edits from version 1 while the first saves
    second.keyboard.press("s")
    second.wait_for_selector("#save-status[data-state=offline]")
    first.keyboard.press("ArrowRight")
    first.keyboard.press("s")
    first.wait_for_selector("#save-status:has-text('Saved · v2')")
    second.context.set_offline(False)
    second.wait_for_selector("#conflict:not([hidden])", timeout=20_000)
    assert second.evaluate("document.activeElement.id") == "grid-wrap"  # typing goes on
    second.keyboard.press("Enter")  # submit waits for the choice: the focus goes to it
    assert second.evaluate("document.activeElement.id") == "conflict-merge"
    assert not second.locator("#submit-dialog").is_visible()
    second.keyboard.press("Enter")
    second.wait_for_selector("#merge-note:not([hidden])")
    assert second.evaluate("window.__workspace.model.links()") == [[0, 0, "S"], [0, 1, "S"]]
    assert second.evaluate("document.activeElement.id") == "grid-wrap"
    second.wait_for_selector("#save-status:has-text('Saved · v3')")
    assert first.js_errors == [] and second.js_errors == []
