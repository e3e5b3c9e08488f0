"""The adjudication page's "Back to waiting": an adjudicator who accepted the majority, waited
for the autosave and undid it (an empty gold, saved) sends the pair back to waiting; the page
then shows it as a pair never adjudicated, and another adjudicator's page that is behind is
told instead of removing gold it has not seen."""

from __future__ import annotations

from typing import Any

import pytest

from annotate import roles
from annotate.models import GoldAlignment, GoldEvent, PairDisagreement
from tests.annotate.factories import make_user
from tests.frontend.conftest import SCREENSHOTS, SERVER_LOCK
from tests.frontend.test_adjudication_browser import (
    GOLD_LINKS,
    THREE,
    _imported,
    _open,
    _saved,
    cell,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_an_undone_accept_goes_back_to_waiting_from_the_keyboard(
    page_for: Any, live_server: Any
) -> None:
    pair = _imported(THREE)
    page = page_for(make_user("carol", roles.ADJUDICATOR), viewport=(1280, 800))
    _open(page, f"{live_server.url}/adjudicate/{pair.pk}/")
    button = page.locator("#gold-clear")
    assert button.is_hidden()  # no gold: nothing to send back
    page.keyboard.press("Shift+A")
    _saved(page, 1)
    page.keyboard.press("Control+z")
    _saved(page, 2)  # the bug: an empty gold, and the pair counted as adjudicated
    assert button.is_visible()
    button.focus()
    page.keyboard.press("Enter")
    dialog = page.locator("#clear-dialog")
    dialog.wait_for(state="visible")
    assert "The gold (version 2, no link) is removed" in dialog.inner_text()
    assert page.evaluate("document.activeElement.id") == "clear-cancel"
    page.keyboard.press("Escape")  # cancelled: nothing happens
    dialog.wait_for(state="hidden")
    # the dialog's close event, a task after it hides, hands the focus back to the grid
    page.wait_for_function("() => document.activeElement?.id === 'grid-wrap'")
    with SERVER_LOCK:
        assert GoldAlignment.objects.get(pair=pair).version == 2
    button.focus()
    page.keyboard.press("Enter")
    dialog.wait_for(state="visible")
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / "adjudication_back_to_waiting_dialog.png"))
    page.keyboard.press("Shift+Tab")
    assert page.evaluate("document.activeElement.id") == "clear-confirm"
    page.keyboard.press("Enter")
    dialog.wait_for(state="hidden")
    page.wait_for_selector("#history li:has-text('v3 back to waiting · carol')")
    assert page.inner_text("#save-status") == "No gold yet"
    assert button.is_hidden()
    assert "waits for adjudication again" in page.inner_text("#adj-message")
    assert page.inner_text("#history-empty") == (
        "Waiting for adjudication again: the first change you make is saved as version 4."
    )
    assert page.evaluate("document.activeElement.id") == "grid-wrap"
    page.keyboard.press("Control+z")  # nothing left to undo: the removed gold stays removed
    assert page.evaluate(GOLD_LINKS) == []
    page.screenshot(path=str(SCREENSHOTS / "adjudication_back_to_waiting.png"))
    with SERVER_LOCK:
        assert not GoldAlignment.objects.filter(pair=pair).exists()
        assert PairDisagreement.objects.get(pair=pair).gold_source == ""
        assert GoldEvent.objects.filter(pair=pair).latest("version").kind == "cleared"
    page.goto(f"{live_server.url}/adjudication/")
    row = page.locator("tbody tr", has_text=pair.external_id)
    assert row.locator("a.btn").inner_text() == "Adjudicate"  # "Review" when adjudicated
    assert "adjudicated" not in row.inner_text()
    _open(page, f"{live_server.url}/adjudicate/{pair.pk}/")  # as a pair never adjudicated
    assert page.inner_text("#save-status") == "No gold yet" and button.is_hidden()
    page.keyboard.press("Shift+A")
    _saved(page, 4)  # adjudicated anew: the versions go on
    assert button.is_visible()
    assert page.js_errors == []


def test_a_page_behind_another_adjudicators_save_is_told_and_removes_nothing(
    page_for: Any, live_server: Any
) -> None:
    pair = _imported({"alice": "0-0 1-1", "bob": "0-0 2?2"})
    carol = page_for(make_user("carol", roles.ADJUDICATOR))
    dave = page_for(make_user("dave", roles.ADJUDICATOR))
    _open(carol, f"{live_server.url}/adjudicate/{pair.pk}/")
    carol.keyboard.press("Shift+A")
    _saved(carol, 1)
    _open(dave, f"{live_server.url}/adjudicate/{pair.pk}/")
    cell(carol, 3, 3).click()
    _saved(carol, 2)
    dave.locator("#gold-clear").click()  # dave still shows version 1
    dave.locator("#clear-confirm").click()
    error = dave.locator("#clear-error")
    error.wait_for(state="visible")
    assert "version 2 was saved by carol" in error.inner_text()
    assert "Nothing was removed" in error.inner_text()
    assert dave.locator("#clear-reload").is_visible()
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    dave.screenshot(path=str(SCREENSHOTS / "adjudication_back_to_waiting_stale.png"))
    with SERVER_LOCK:
        assert GoldAlignment.objects.get(pair=pair).version == 2
    dave.locator("#clear-reload").click()
    dave.wait_for_selector("#adjudication[data-ready=true]")
    _saved(dave, 2)
    carol.locator("#gold-clear").click()  # carol sends it back; dave's page still shows v2
    carol.locator("#clear-confirm").click()
    carol.wait_for_selector("#history li:has-text('v3 back to waiting')")
    cell(dave, 1, 1).click()  # dave's edit meets the removal: the banner says so
    banner = dave.locator("#conflict")
    banner.wait_for(state="visible")
    assert "The gold was removed elsewhere: carol sent the pair back to waiting" in (
        banner.inner_text()
    )
    dave.screenshot(path=str(SCREENSHOTS / "adjudication_conflict_with_a_clear.png"))
    dave.get_by_role("button", name="Leave it waiting").click()
    assert dave.evaluate(GOLD_LINKS) == []
    assert dave.inner_text("#save-status") == "No gold yet"
    assert dave.locator("#gold-clear").is_hidden()
    with SERVER_LOCK:
        assert not GoldAlignment.objects.filter(pair=pair).exists()
    assert carol.js_errors == [] and dave.js_errors == []


def test_a_page_behind_a_clear_is_told_whatever_its_edit_and_starts_a_new_gold_only_when_asked(
    page_for: Any, live_server: Any
) -> None:
    """The stale edits that were merged on the spot as a new gold: one on an empty gold, one
    replacing every link of the gold, and one from a page opened before the first gold (it
    named version 0, which was "no gold" before and after the clear)."""
    pair = _imported({"alice": "0-0 1-1", "bob": "0-0 2?2"})
    carol = page_for(make_user("carol", roles.ADJUDICATOR))
    dave = page_for(make_user("dave", roles.ADJUDICATOR))
    erin = page_for(make_user("erin", roles.ADJUDICATOR), viewport=(1024, 768))
    _open(erin, f"{live_server.url}/adjudicate/{pair.pk}/")  # no gold yet: version 0
    _open(carol, f"{live_server.url}/adjudicate/{pair.pk}/")
    cell(carol, 3, 3).click()
    _saved(carol, 1)
    carol.keyboard.press("Control+z")
    _saved(carol, 2)  # an empty gold
    _open(dave, f"{live_server.url}/adjudicate/{pair.pk}/")
    _saved(dave, 2)
    carol.locator("#gold-clear").click()
    carol.locator("#clear-confirm").click()
    carol.wait_for_selector("#history li:has-text('v3 back to waiting')")

    for page in (dave, erin):
        cell(page, 1, 1).click()
        banner = page.locator("#conflict")
        banner.wait_for(state="visible")
        text = banner.inner_text()
        assert "carol sent the pair back to waiting" in text and "(version 3)" in text
        assert "your 1 link is not saved" in text
        assert page.locator("#conflict-merge").is_hidden()
        assert page.inner_text("#save-status") == "Conflict · choose above"
        assert page.locator("#gold-clear").is_hidden()
        with SERVER_LOCK:
            assert not GoldAlignment.objects.filter(pair=pair).exists()
            assert GoldEvent.objects.filter(pair=pair).count() == 3
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    dave.screenshot(path=str(SCREENSHOTS / "adjudication_conflict_with_a_clear_1400.png"))
    erin.screenshot(path=str(SCREENSHOTS / "adjudication_conflict_with_a_clear_1024.png"))

    erin.get_by_role("button", name="Leave it waiting (discards mine)").click()
    assert erin.evaluate(GOLD_LINKS) == []
    assert erin.inner_text("#save-status") == "No gold yet"
    erin.keyboard.press("Control+z")  # mine is not brought back as a new gold
    erin.wait_for_timeout(1500)
    assert erin.evaluate(GOLD_LINKS) == []
    with SERVER_LOCK:
        assert not GoldAlignment.objects.filter(pair=pair).exists()

    dave.get_by_role("button", name="Start a new gold from mine").click()
    _saved(dave, 4)
    assert dave.locator("#gold-clear").is_visible()
    with SERVER_LOCK:
        gold = GoldAlignment.objects.get(pair=pair)
        assert gold.adjudicator.username == "dave"
        assert list(gold.links.values_list("i", "j", "sure")) == [(1, 1, True)]
        kinds = list(GoldEvent.objects.filter(pair=pair).values_list("version", "kind"))
        assert kinds[-2:] == [(3, "cleared"), (4, "adjudicated")]
    assert carol.js_errors == [] and dave.js_errors == [] and erin.js_errors == []
