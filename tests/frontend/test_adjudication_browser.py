"""The adjudication page (layers, the server's majority, autosave with versions, conflicts, the
offline queue, the leave warning, the next waiting pair), the admin home page and workspace
screenshots in headless chromium."""

from __future__ import annotations

from typing import Any

import pytest

from annotate import roles
from annotate.models import Assignment, GoldAlignment, Job, SentencePair
from annotate.selectors.adjudication import adjudication_of
from annotate.services.annotations import annotation_reopen, annotation_save
from annotate.services.corpora import corpus_import_records
from scoring.alignment.links import Alignment
from scoring.corpus import AnnotationRecord
from tests.annotate.factories import make_assignment, make_corpus, make_pair, make_user
from tests.annotate.records import make_record
from tests.frontend.conftest import SCREENSHOTS, SERVER_LOCK, stored_in_browser, watched_page

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def cell(page: Any, i: int, j: int) -> Any:
    return page.locator(f"#grid tbody tr:nth-child({i + 1}) td:nth-child({j + 2})")


def _imported(annotations: dict[str, str], *, pair_id: str = "p", corpus: str = "news") -> Any:
    """A pair of 5 × 6 words annotated by each name (Pharaoh links; a name ending in ``~`` has
    not submitted)."""
    source, target = "the council approved new budget", "council members passed the new budget"
    record = make_record(pair_id, source, target, prefill=None)
    for name, links in annotations.items():
        record.annotations[name.rstrip("~")] = AnnotationRecord(
            alignment=Alignment.from_pharaoh(links, 5, 6),
            status="in_progress" if name.endswith("~") else "submitted",
        )
    corpus_import_records(corpus_name=corpus, records=[record])
    return SentencePair.objects.get(corpus__name=corpus, external_id=pair_id)


THREE = {
    "alice": "0-3 1-0 2-2 3-4 4-5",
    "bob": "0?3 1-0 2-2 4-5 3-1",
    "cleo": "1-0 2?2 3-4 4-5 0-1",
    "dan~": "0-0",
}
GOLD_LINKS = "window.__adjudication.model.links()"


def _open(page: Any, url: str) -> None:
    page.goto(url)
    page.wait_for_selector("#adjudication[data-ready=true]")


def _saved(page: Any, version: int) -> None:
    page.wait_for_selector(f"#save-status:has-text('Gold saved · v{version}')")


def _said(page: Any, text: str) -> None:
    """The page's message says ``text`` (accepting a majority asks the server first)."""
    page.wait_for_function(
        "text => document.getElementById('adj-message').textContent === text", arg=text
    )


def test_the_page_shows_each_annotators_layer_and_accepts_the_servers_majority(
    page_for: Any, live_server: Any
) -> None:
    pair = _imported(THREE)
    page = page_for(make_user("carol", roles.ADJUDICATOR), viewport=(1280, 800))
    _open(page, f"{live_server.url}/adjudicate/{pair.pk}/")
    assert page.inner_text("#save-status") == "No gold yet"
    # who linked what: alice sure, bob possible and cleo nothing on 0-3
    assert cell(page, 0, 3).locator(".mk.l0.s").count() == 1
    assert cell(page, 0, 3).locator(".mk.l1.p").count() == 1
    assert cell(page, 0, 3).locator(".mk").count() == 2
    assert cell(page, 0, 0).locator(".mk.l3.s").count() == 1  # dan's, shown but not counted
    assert "not in the majority" in page.inner_text("#layers")
    assert "maj-p" in (cell(page, 0, 3).get_attribute("class") or "")  # 2 of 3, one sure
    assert "maj-s" in (cell(page, 1, 0).get_attribute("class") or "")
    page.keyboard.press("1")  # alice's layer off
    assert cell(page, 0, 3).locator(".mk.l0").is_hidden()
    assert not page.locator("#layer-0").is_checked()
    page.keyboard.press("1")
    assert cell(page, 0, 3).locator(".mk.l0").is_visible()
    page.keyboard.press("Shift+A")
    _said(page, "Majority accepted for the whole pair: 5 links set, 0 removed.")
    with SERVER_LOCK:
        expected = adjudication_of(pair)["majority"]["links"]
    assert page.evaluate(GOLD_LINKS) == expected
    _saved(page, 1)
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / "adjudication_1280x800.png"))
    with SERVER_LOCK:
        gold = GoldAlignment.objects.get(pair=pair)
        assert gold.links.count() == 5 and gold.adjudicator.username == "carol"
    cell(page, 1, 0).click()  # sure -> possible
    _saved(page, 2)
    page.keyboard.press("Control+z")  # undo brings it back, and saves that
    _saved(page, 3)
    page.reload()
    page.wait_for_selector("#adjudication[data-ready=true]")
    assert page.evaluate(GOLD_LINKS) == expected
    page.wait_for_selector("#history li")  # the history loads after the grid is ready
    history = page.locator("#history li")
    assert history.count() == 3
    assert history.first.inner_text().startswith("v3 carol")
    assert "set council–council (S)" in history.first.inner_text()
    assert page.js_errors == []


def test_the_no_gold_hint_goes_once_gold_is_saved_even_when_the_first_history_answers_late(
    page_for: Any, live_server: Any
) -> None:
    pair = _imported(THREE)
    page = page_for(make_user("carol", roles.ADJUDICATOR), viewport=(1280, 800))
    held: list[tuple[Any, Any]] = []

    def hold_the_first(route: Any) -> None:
        if held:
            route.continue_()
        else:  # the page's first history request: answered only at the end, as a slow one
            held.append((route, route.fetch()))

    page.route("**/gold/events/", hold_the_first)
    _open(page, f"{live_server.url}/adjudicate/{pair.pk}/")
    page.keyboard.press("Shift+A")
    _saved(page, 1)
    page.wait_for_selector("#history li:has-text('v1 carol')")
    assert page.locator("#history-empty").count() == 0
    route, stale = held[0]
    assert stale.json()["events"] == []
    route.fulfill(response=stale)  # the answer from before the save arrives last
    page.wait_for_timeout(300)
    assert "No gold yet" not in page.inner_text("#history")
    assert page.inner_text("#history li").startswith("v1 carol")
    page.locator(".adj-side").screenshot(path=str(SCREENSHOTS / "adjudication_first_gold.png"))
    assert page.js_errors == []


def test_accepting_a_block_leaves_its_ties_for_the_adjudicator_and_says_so(
    page_for: Any, live_server: Any
) -> None:
    pair = _imported({"alice": "0-0 1-1 2-2", "bob": "0-0 1?1 3-3"})
    page = page_for(make_user("carol", roles.ADJUDICATOR), viewport=(1920, 1080))
    _open(page, f"{live_server.url}/adjudicate/{pair.pk}/")
    assert "tie-link" in (cell(page, 2, 2).get_attribute("class") or "")
    assert "tie-kind" in (cell(page, 1, 1).get_attribute("class") or "")
    for key in ("Shift+ArrowDown", "Shift+ArrowDown", "Shift+ArrowRight", "Shift+ArrowRight"):
        page.keyboard.press(key)  # the block 0-0 … 2-2
    page.keyboard.press("a")
    _said(page, "Majority accepted in the block: 2 links set, 0 removed, 2 ties left for you.")
    assert page.evaluate(GOLD_LINKS) == [[0, 0, "S"], [1, 1, "P"]]
    assert "tie" in page.inner_text("#cursor-info")
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / "adjudication_1920x1080.png"))
    _saved(page, 1)
    assert page.js_errors == []


TIES = {"alice": "0-0 1-1 2-2", "bob": "0-0 1?1 3-3"}  # ties: 1-1 on sure, 2-2 and 3-3 linked


def _info(page: Any, start: str) -> None:
    """The grid's live region (the cursor line) starts with ``start``."""
    page.wait_for_function(
        "s => document.getElementById('cursor-info').textContent.startsWith(s)", arg=start
    )


def test_the_ties_left_after_an_accept_count_down_as_the_adjudicator_decides_them(
    page_for: Any, live_server: Any
) -> None:
    pair = _imported(TIES)
    page = page_for(make_user("carol", roles.ADJUDICATOR), viewport=(1280, 800))
    _open(page, f"{live_server.url}/adjudicate/{pair.pk}/")
    page.keyboard.press("Shift+A")
    summary = "Majority accepted for the whole pair: 2 links set, 0 removed"
    _said(page, f"{summary}, 3 ties left for you.")
    cell(page, 1, 1).click()  # possible -> empty: decided
    _said(page, f"{summary}, 2 ties left for you.")
    cell(page, 2, 2).click()  # empty -> sure: decided
    _said(page, f"{summary}, 1 tie left for you.")
    page.keyboard.press("Control+z")  # undone: undecided again
    _said(page, f"{summary}, 2 ties left for you.")
    page.keyboard.press("Control+Shift+z")
    _said(page, f"{summary}, 1 tie left for you.")
    cell(page, 3, 3).click()  # move there; then x keeps it empty, and that is a decision too
    page.keyboard.press("x")
    _said(page, f"{summary}, all 3 ties decided by you.")
    assert "decided by you" in page.inner_text("#cursor-info")
    page.keyboard.press("Shift+A")  # accepting again keeps every decision (1-1 stays empty)
    already = "The gold already follows the majority for the whole pair"
    _said(page, f"{already}, all 3 ties decided by you.")
    assert [1, 1, "P"] not in page.evaluate(GOLD_LINKS)
    page.screenshot(path=str(SCREENSHOTS / "adjudication_ties_decided.png"))
    assert page.js_errors == []


def test_d_takes_the_cursor_to_the_next_undecided_tie_and_says_when_none_is_left(
    page_for: Any, live_server: Any
) -> None:
    pair = _imported(TIES)
    page = page_for(make_user("carol", roles.ADJUDICATOR), viewport=(1280, 800))
    _open(page, f"{live_server.url}/adjudicate/{pair.pk}/")
    cursor = "[window.__adjudication.model.cursor.i, window.__adjudication.model.cursor.j]"
    page.keyboard.press("d")
    assert page.evaluate(cursor) == [1, 1]
    _info(page, "Tie 1 of 3 undecided. Source word 2")
    page.keyboard.press("s")  # decided
    page.keyboard.press("d")
    assert page.evaluate(cursor) == [2, 2]
    _info(page, "Tie 1 of 2 undecided.")
    page.keyboard.press("d")
    assert page.evaluate(cursor) == [3, 3]
    page.keyboard.press("d")  # round the grid
    assert page.evaluate(cursor) == [2, 2]
    page.keyboard.press("Shift+D")  # back, round the grid the other way
    assert page.evaluate(cursor) == [3, 3]
    page.keyboard.press("t")  # transposed, reading order follows the rows as shown
    page.keyboard.press("Shift+D")
    assert page.evaluate(cursor) == [2, 2]
    page.keyboard.press("x")
    page.keyboard.press("d")
    assert page.evaluate(cursor) == [3, 3]
    _info(page, "Tie 1 of 1 undecided.")
    page.keyboard.press("p")
    page.keyboard.press("d")
    assert page.evaluate(cursor) == [3, 3]  # it stays where it is
    _info(page, "No undecided tie: every tie of this pair is decided (3).")
    page.keyboard.press("?")
    assert "the next / previous tie still to decide" in page.inner_text("#keymap-dialog")
    assert page.js_errors == []


def test_a_cell_edited_while_the_accept_asks_the_server_keeps_that_later_edit(
    page_for: Any, live_server: Any
) -> None:
    """Accepting the majority (or using a layer) first asks the server for the annotators'
    work; a key pressed meanwhile changed the grid, and the accept arriving after it then
    overwrote that later edit, as if it had been pressed first."""
    pair = _imported(THREE)
    page = page_for(make_user("carol", roles.ADJUDICATOR), viewport=(1280, 800))
    held: list[Any] = []

    def hold_the_refresh(route: Any) -> None:
        if route.request.method == "GET" and not held:
            held.append(route)  # the accept's question, answered once the key below is in
        else:
            route.continue_()

    _open(page, f"{live_server.url}/adjudicate/{pair.pk}/")
    page.route("**/api/pairs/*/adjudication/", hold_the_refresh)
    page.keyboard.press("Shift+A")
    page.wait_for_timeout(200)  # the accept's request goes out
    assert len(held) == 1
    page.keyboard.press("s")  # the cursor's cell, 0-0: no majority link there
    held[0].continue_()
    page.wait_for_selector("#adj-message:has-text('Majority accepted for the whole pair')")
    with SERVER_LOCK:
        majority = adjudication_of(pair)["majority"]["links"]
    assert page.evaluate(GOLD_LINKS) == sorted([[0, 0, "S"], *majority])
    assert "keeps its change" in page.inner_text("#adj-message")
    _saved(page, 1)
    page.keyboard.press("x")  # the copy of a layer keeps a later edit the same way
    _saved(page, 2)
    held.clear()  # the next question is held too
    page.locator("#layers button[data-use='1']").click()  # bob's layer
    page.wait_for_timeout(200)
    assert len(held) == 1
    page.locator("#grid-wrap").focus()
    page.keyboard.press("p")  # 0-0 again
    held[0].continue_()
    page.wait_for_selector("#adj-message:has-text('copied into the gold')")
    with SERVER_LOCK:
        bob = adjudication_of(pair)["annotations"][1]
    assert bob["annotator"] == "bob"
    assert page.evaluate(GOLD_LINKS) == sorted([[0, 0, "P"], *bob["links"]])
    assert page.js_errors == []


def test_the_majority_accepted_and_a_layer_used_are_the_annotators_work_as_it_is_now(
    page_for: Any, live_server: Any
) -> None:
    """An annotator reopened (or changed and submitted again) while the page was open: the
    majority it had loaded was accepted as the gold, and a layer it showed was copied, though
    that work was no longer the annotator's."""
    pair = _imported(THREE)
    page = page_for(make_user("carol", roles.ADJUDICATOR))
    _open(page, f"{live_server.url}/adjudicate/{pair.pk}/")
    with SERVER_LOCK:
        cleo = Assignment.objects.get(pair=pair, annotator__username="cleo")
        annotation_reopen(assignment=cleo, actor=cleo.annotator)
        now = adjudication_of(pair)["majority"]
    assert now["annotators"] == ["alice", "bob"]
    page.keyboard.press("Shift+A")
    _said(
        page,
        "The annotators' work changed since this page was loaded (cleo): the layers and the "
        "majority now show it as it is. Nothing was accepted: look at it, then accept it again.",
    )
    assert page.evaluate(GOLD_LINKS) == []
    assert "majority of the 2 submitted annotations" in page.inner_text("#majority-note")
    assert "not submitted, not in the majority" in page.locator("#layers li").nth(2).inner_text()
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / "adjudication_work_changed.png"))
    page.keyboard.press("Shift+A")  # looked at: accepted as it is now
    page.wait_for_selector("#adj-message:has-text('Majority accepted for the whole pair')")
    assert page.evaluate(GOLD_LINKS) == now["links"]
    _saved(page, 1)
    with SERVER_LOCK:
        bob = Assignment.objects.get(pair=pair, annotator__username="bob")
        annotation_reopen(assignment=bob, actor=bob.annotator)
        version = bob.annotation.version  # read after the reopen
        annotation_save(assignment=bob, actor=bob.annotator, base_version=version, links={})
    page.locator("#layers button[data-use='1']").click()  # bob's layer, as the page shows it
    page.wait_for_selector("#adj-message:has-text('Nothing was copied')")
    assert page.evaluate(GOLD_LINKS) == now["links"]
    page.locator("#layers button[data-use='1']").click()  # bob's work now: no link
    _said(page, "bob's alignment copied into the gold (undo brings the previous back).")
    assert page.evaluate(GOLD_LINKS) == []
    assert page.js_errors == []


def test_two_adjudicators_on_one_pair_the_second_gets_the_conflict_banner_and_chooses(
    page_for: Any, live_server: Any
) -> None:
    pair = _imported({"alice": "0-0 1-1", "bob": "0-0 2?2"})
    carol = page_for(make_user("carol", roles.ADJUDICATOR))
    dave = page_for(make_user("dave", roles.ADJUDICATOR))
    for page in (carol, dave):
        _open(page, f"{live_server.url}/adjudicate/{pair.pk}/")
    carol.keyboard.press("Shift+A")
    _saved(carol, 1)
    cell(dave, 2, 2).click()  # empty -> sure, on top of version 0
    notice = dave.locator("#conflict")
    notice.wait_for(state="visible")
    text = notice.inner_text()
    assert "version 1 was saved by carol" in text and "Nothing is lost until you choose" in text
    assert "Merging keeps their 1 change and your 1 change since version 0" in text
    assert "Conflict" in dave.inner_text("#save-status")
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    dave.screenshot(path=str(SCREENSHOTS / "adjudication_conflict.png"))
    with SERVER_LOCK:
        gold = GoldAlignment.objects.get(pair=pair)
        assert (gold.version, gold.adjudicator.username) == (1, "carol")
        assert sorted(gold.links.values_list("i", "j", "sure")) == [(0, 0, True)]
    dave.get_by_role("button", name="Use theirs").focus()
    dave.keyboard.press("Enter")  # from the keyboard: the focus goes back to the grid
    assert dave.evaluate(GOLD_LINKS) == [[0, 0, "S"]]
    assert notice.is_hidden()
    assert dave.evaluate("document.activeElement.id") == "grid-wrap"
    dave.keyboard.press("Control+z")  # undo brings dave's own back, saved on version 1
    assert dave.evaluate(GOLD_LINKS) == [[2, 2, "S"]]
    _saved(dave, 2)
    cell(carol, 3, 3).click()  # carol, still on version 1, adds a link: the merge keeps both
    notice = carol.locator("#conflict")
    notice.wait_for(state="visible")
    carol.get_by_role("button", name="Merge both").click()
    assert carol.evaluate(GOLD_LINKS) == [[2, 2, "S"], [3, 3, "S"]]
    assert "Merged with version 2" in carol.inner_text("#merge-note")
    _saved(carol, 3)
    with SERVER_LOCK:
        gold.refresh_from_db()
        assert (gold.version, gold.adjudicator.username) == (3, "carol")
        assert sorted(gold.links.values_list("i", "j", "sure")) == [(2, 2, True), (3, 3, True)]
    assert carol.js_errors == [] and dave.js_errors == []


def test_n_and_b_in_a_conflict_take_the_focus_to_the_banners_first_choice(
    page_for: Any, live_server: Any
) -> None:
    """As in the workspace: `n` (or `b`) waits for the conflict to be settled and puts the focus
    on the banner's first choice, so that Enter takes it. The focus stayed on the grid, the
    choices nine and more Shift+Tabs away."""
    _imported({"alice": "0-0", "bob": "1-1"}, pair_id="first")
    pair = _imported({"alice": "0-0 1-1", "bob": "0-0 2?2"}, pair_id="second")
    carol = page_for(make_user("carol", roles.ADJUDICATOR))
    dave = page_for(make_user("dave", roles.ADJUDICATOR))
    for page in (carol, dave):
        _open(page, f"{live_server.url}/adjudicate/{pair.pk}/?sort=id")
    carol.keyboard.press("Shift+A")
    _saved(carol, 1)
    dave.keyboard.press("ArrowDown")
    dave.keyboard.press("ArrowDown")
    dave.keyboard.press("ArrowRight")
    dave.keyboard.press("s")  # on top of version 0: the conflict banner
    dave.locator("#conflict").wait_for(state="visible")
    for key in ("n", "b"):
        dave.locator("#grid-wrap").focus()
        dave.keyboard.press(key)
        dave.wait_for_function("document.activeElement.id === 'conflict-merge'", timeout=3000)
        assert "not saved yet" in dave.inner_text("#adj-message")
        assert "/adjudicate/" in dave.url and f"/{pair.pk}/" in dave.url  # it stayed
    dave.keyboard.press("Enter")  # Merge both
    _saved(dave, 2)
    with SERVER_LOCK:
        gold = GoldAlignment.objects.get(pair=pair)
        assert sorted(gold.links.values_list("i", "j")) == [(0, 0), (2, 1)]
    assert carol.js_errors == [] and dave.js_errors == []


def test_offline_gold_waits_in_the_browser_and_only_unsaved_work_warns_on_leaving(
    page_for: Any, live_server: Any
) -> None:
    pair = _imported({"alice": "0-0", "bob": "0-0"})
    page = page_for(make_user("carol", roles.ADJUDICATOR))
    _open(page, f"{live_server.url}/adjudicate/{pair.pk}/")
    dialogs: list[str] = []

    def leave(dialog: Any) -> None:
        dialogs.append(dialog.type)
        dialog.dismiss()  # stay on the page

    page.on("dialog", leave)
    page.route("**/gold/", lambda route: route.abort("internetdisconnected"))
    cell(page, 3, 3).click()
    page.wait_for_selector("#save-status[data-state=offline]")
    (stored,) = stored_in_browser(page, f"paw:gold:{pair.pk}")
    assert stored["links"] == [[3, 3, "S"]] and stored["base"] == 0
    page.evaluate("location.href = '/adjudication/'")
    page.wait_for_timeout(300)
    assert dialogs == ["beforeunload"]
    assert page.url.endswith(f"/adjudicate/{pair.pk}/")
    page.unroute("**/gold/")
    page.evaluate("window.dispatchEvent(new Event('online'))")
    _saved(page, 1)
    assert stored_in_browser(page, f"paw:gold:{pair.pk}") == []
    page.goto(f"{live_server.url}/adjudication/")  # nothing unsaved: no question asked
    assert dialogs == ["beforeunload"]
    assert page.js_errors == []


def test_a_next_refused_for_unsaved_gold_stops_saying_so_once_the_gold_is_saved(
    page_for: Any, live_server: Any
) -> None:
    pair = _imported({"alice": "0-0", "bob": "0-0"})
    page = page_for(make_user("carol", roles.ADJUDICATOR))
    _open(page, f"{live_server.url}/adjudicate/{pair.pk}/")
    page.route("**/gold/", lambda route: route.abort("internetdisconnected"))
    cell(page, 3, 3).click()
    page.wait_for_selector("#save-status[data-state=offline]")
    page.keyboard.press("n")
    page.wait_for_selector("#adj-message:has-text('not saved yet')")
    page.unroute("**/gold/")
    page.evaluate("window.dispatchEvent(new Event('online'))")
    _saved(page, 1)
    page.wait_for_selector("#adj-message", state="hidden")
    assert page.url.endswith(f"/adjudicate/{pair.pk}/")
    assert page.js_errors == []


def test_gold_left_in_the_browser_on_an_older_version_opens_in_the_conflict_banner(
    page_for: Any, live_server: Any
) -> None:
    pair = _imported({"alice": "0-0", "bob": "0-0"})
    carol = page_for(make_user("carol", roles.ADJUDICATOR))
    dave = page_for(make_user("dave", roles.ADJUDICATOR))
    _open(carol, f"{live_server.url}/adjudicate/{pair.pk}/")
    carol.context.set_offline(True)
    cell(carol, 3, 3).click()
    carol.wait_for_selector("#save-status[data-state=offline]")
    _open(dave, f"{live_server.url}/adjudicate/{pair.pk}/")
    dave.keyboard.press("Shift+A")
    _saved(dave, 1)
    context = carol.context
    carol.close()  # closed before the network came back: the gold waits in the browser
    context.set_offline(False)
    carol = watched_page(context)
    _open(carol, f"{live_server.url}/adjudicate/{pair.pk}/")
    carol.locator("#conflict").wait_for(state="visible")
    assert carol.evaluate(GOLD_LINKS) == [[3, 3, "S"]]
    carol.wait_for_selector("#history li:has-text('v1 dave')")
    assert carol.js_errors == []


def test_gold_left_in_the_browser_that_the_server_already_holds_opens_as_saved(
    page_for: Any, live_server: Any
) -> None:
    """Carol's save went through but its answer was lost, and she left: her copy stayed in the
    browser. Dave changed the gold since. Carol's page opened in the conflict banner although
    the server held all of her work; it now opens on Dave's version, as saved."""
    pair = _imported({"alice": "0-0", "bob": "0-0"})
    carol = page_for(make_user("carol", roles.ADJUDICATOR))
    dave = page_for(make_user("dave", roles.ADJUDICATOR))
    _open(carol, f"{live_server.url}/adjudicate/{pair.pk}/")

    def answer_lost(route: Any) -> None:
        if route.request.method == "PUT":
            route.fetch()  # the server saves version 1
            route.abort()  # and the page never hears of it
        else:
            route.continue_()

    carol.route("**/gold/", answer_lost)
    cell(carol, 3, 3).click()
    carol.wait_for_selector("#save-status[data-state=offline]")
    context = carol.context
    carol.close()
    _open(dave, f"{live_server.url}/adjudicate/{pair.pk}/")
    assert dave.evaluate(GOLD_LINKS) == [[3, 3, "S"]]
    cell(dave, 1, 1).click()
    _saved(dave, 2)
    carol = watched_page(context)
    _open(carol, f"{live_server.url}/adjudicate/{pair.pk}/")
    _saved(carol, 2)
    assert carol.locator("#conflict").is_hidden()
    assert carol.evaluate(GOLD_LINKS) == [[1, 1, "S"], [3, 3, "S"]]
    assert stored_in_browser(carol, f"paw:gold:{pair.pk}") == []
    assert carol.js_errors == []


def test_the_grid_keys_still_work_after_a_layer_box_is_clicked(
    page_for: Any, live_server: Any
) -> None:
    pair = _imported(THREE)
    page = page_for(make_user("carol", roles.ADJUDICATOR), viewport=(1280, 800))
    _open(page, f"{live_server.url}/adjudicate/{pair.pk}/")
    page.locator("#layer-0").click()  # alice's layer off with the mouse; the box keeps focus
    assert not page.locator("#layer-0").is_checked()
    page.keyboard.press("ArrowRight")
    assert page.evaluate("window.__adjudication.model.cursor") == {"i": 0, "j": 1}
    page.keyboard.press("2")  # bob's layer off from the keyboard
    assert not page.locator("#layer-1").is_checked()
    page.locator("#layer-0").focus()
    page.keyboard.press(" ")  # Space on a focused box still ticks it
    assert page.locator("#layer-0").is_checked()
    assert page.js_errors == []


def test_n_opens_the_next_waiting_pair_of_the_lists_order(page_for: Any, live_server: Any) -> None:
    agree = _imported({"alice": "0-0 1-1", "bob": "0-0 1-1"}, pair_id="agree")
    apart = _imported({"alice": "0-0", "bob": "1-1"}, pair_id="apart", corpus="other")
    half = _imported({"alice": "0-0 1-1", "bob": "0-0"}, pair_id="half", corpus="third")
    page = page_for(make_user("carol", roles.ADJUDICATOR))
    page.goto(f"{live_server.url}/adjudication/?sort=disagreement")
    page.keyboard.press("n")  # from the list: its first waiting pair
    page.wait_for_url(f"**/adjudicate/{apart.pk}/?sort=disagreement")
    _open(page, f"{live_server.url}/adjudicate/{apart.pk}/?sort=disagreement&page=3")
    page.keyboard.press("n")
    page.wait_for_url(f"**/adjudicate/{half.pk}/?sort=disagreement")
    page.wait_for_selector("#adjudication[data-ready=true]")
    page.keyboard.press("n")
    page.wait_for_url(f"**/adjudicate/{agree.pk}/?sort=disagreement")
    page.wait_for_selector("#adjudication[data-ready=true]")
    back = page.get_by_role("link", name="← Adjudication list")
    assert back.get_attribute("href") == "/adjudication/?sort=disagreement"
    assert page.js_errors == []


def test_the_list_pages_sorts_by_disagreement_and_opens_a_pair_with_its_order(
    page_for: Any, live_server: Any
) -> None:
    records = []
    for k in range(130):
        record = make_record(
            f"dev:{k}", "the council approved new budget", "council passed it", prefill=None
        )
        links = {"A": "1-0 2-1", "B": "1-0 2-1" if k % 7 else "0-0", "C": "1-0"}
        for name, pharaoh in links.items():
            record.annotations[name] = AnnotationRecord(
                alignment=Alignment.from_pharaoh(pharaoh, 5, 3)
            )
        records.append(record)
    corpus_import_records(corpus_name="rte", records=records, subcorpus="dev")
    for size in ((1280, 800), (1920, 1080)):
        page = page_for(make_user(f"carol{size[0]}", roles.ADJUDICATOR), viewport=size)
        page.goto(f"{live_server.url}/adjudication/")
        assert "1–50 of 130 pairs · page 1 of 3" in page.locator(".pager").first.inner_text()
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENSHOTS / f"adjudication_list_{size[0]}x{size[1]}.png"))
    page.get_by_role("link", name="Lowest F1").click()
    page.wait_for_url("**/adjudication/?sort=disagreement")
    first = page.locator("#adj-table tbody tr").first
    assert first.locator("td").nth(3).inner_text() == "0.00"  # dev:0, where B linked 0-0
    page.get_by_label("Status").select_option("waiting")
    page.wait_for_url("**/adjudication/?*status=waiting*")
    page.get_by_role("link", name="Next →").first.click()
    assert "51–100 of 130 pairs" in page.locator(".pager").first.inner_text()
    page.get_by_role("link", name="Last page").first.click()
    assert "101–130 of 130 pairs" in page.locator(".pager").first.inner_text()
    jump = page.locator(".pager-jump").first
    jump.get_by_label("Page").fill("2")
    jump.get_by_role("button", name="Go").click()
    page.wait_for_url("**page=2*")
    assert "51–100 of 130 pairs" in page.locator(".pager").first.inner_text()
    assert "sort=disagreement" in page.url and "status=waiting" in page.url
    page.screenshot(path=str(SCREENSHOTS / "adjudication_list_page_2.png"))
    page.locator("#adj-table tbody tr").first.get_by_role("link", name="Adjudicate").click()
    page.wait_for_selector("#adjudication[data-ready=true]")
    assert "sort=disagreement" in page.url and "status=waiting" in page.url
    assert page.js_errors == []


def test_the_lists_buttons_stay_in_view_at_1024_px_beside_an_adjudicated_row(
    page_for: Any, live_server: Any
) -> None:
    long = " ".join(["the council approved the new budget for the coming year"] * 4)
    record = make_record("rte2-dev:long-pair-id", long, long, prefill=None, subcorpus="news")
    for name in ("annotator-a", "annotator-b", "annotator-c"):
        record.annotations[name] = AnnotationRecord(alignment=Alignment.from_pharaoh("0-0", 40, 40))
    corpus_import_records(corpus_name="a-corpus-with-a-long-name", records=[record])
    pair = SentencePair.objects.get()
    page = page_for(make_user("carol", roles.ADJUDICATOR), viewport=(1024, 700))
    _open(page, f"{live_server.url}/adjudicate/{pair.pk}/")
    page.keyboard.press("Shift+A")
    _saved(page, 1)
    page.goto(f"{live_server.url}/adjudication/")
    wrap = page.locator(".table-wrap").first
    assert wrap.evaluate("(e) => e.scrollWidth <= e.clientWidth")  # it scrolled by 28 px or more
    review = page.get_by_role("link", name="Review")
    box, room = review.bounding_box(), wrap.bounding_box()
    assert box is not None and room is not None
    assert box["x"] + box["width"] <= room["x"] + room["width"]
    assert page.js_errors == []


def test_at_1024_px_the_panel_stays_beside_the_grid_and_the_grid_keeps_its_rows(
    page_for: Any, live_server: Any
) -> None:
    words = [f"w{k}" for k in range(20)]
    record = make_record("p", " ".join(words), " ".join(reversed(words)), prefill=None)
    for name, links in (("A", "0-19 1-18 2-17"), ("B", "0-19 1-18"), ("C", "0-19")):
        record.annotations[name] = AnnotationRecord(alignment=Alignment.from_pharaoh(links, 20, 20))
    corpus_import_records(corpus_name="news", records=[record])
    page = page_for(make_user("carol", roles.ADJUDICATOR), viewport=(1024, 768))
    _open(page, f"{live_server.url}/adjudicate/{SentencePair.objects.get().pk}/")
    page.screenshot(path=str(SCREENSHOTS / "adjudication_1024x768.png"))
    grid, side = page.locator("#grid-wrap").bounding_box(), page.locator(".adj-side").bounding_box()
    assert grid is not None and side is not None
    assert side["x"] >= grid["x"] + grid["width"], "the panel is beside the grid, not below it"
    assert grid["height"] > 768 / 2, "the grid gets most of the height (it had three rows)"
    assert page.evaluate("document.documentElement.scrollHeight") <= 768
    assert page.js_errors == []


@pytest.mark.parametrize("viewport", [(1280, 800), (1920, 1080)])
def test_a_long_pair_shows_five_annotators_layers_and_is_screenshotted(
    page_for: Any, live_server: Any, viewport: tuple[int, int]
) -> None:
    size = 40
    record = make_record(
        "long",
        " ".join(f"w{k}" for k in range(size)),
        " ".join(f"v{k}" for k in range(size)),
        prefill=None,
    )
    marks = 0
    for a in range(5):
        cells = {(k, max(0, min(size - 1, k + (a % 3) - 1))) for k in range(size)}
        marks += len(cells)
        pharaoh = " ".join(f"{i}{'-' if (i + a) % 4 else '?'}{j}" for i, j in sorted(cells))
        record.annotations[f"annotator{a}"] = AnnotationRecord(
            alignment=Alignment.from_pharaoh(pharaoh, size, size)
        )
    corpus_import_records(corpus_name="long", records=[record])
    pair = SentencePair.objects.get(external_id="long")
    page = page_for(make_user("carol", roles.ADJUDICATOR), viewport=viewport)
    _open(page, f"{live_server.url}/adjudicate/{pair.pk}/")
    assert page.locator("#grid .mk").count() == marks
    assert page.locator("#layers li").count() == 5
    assert page.locator("#grid td.maj-s, #grid td.maj-p").count() > 0
    page.keyboard.press("Shift+A")
    page.wait_for_selector("#adj-message:has-text('Majority accepted for the whole pair')")
    _saved(page, 1)
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    name = f"adjudication_40x40_{viewport[0]}x{viewport[1]}.png"
    page.screenshot(path=str(SCREENSHOTS / name))
    print(f"first render {page.evaluate('window.__adjudication.firstRenderMs'):.1f} ms")
    assert page.js_errors == []


def test_an_annotator_cannot_open_the_adjudication_page(page_for: Any, live_server: Any) -> None:
    pair = make_pair()
    page = page_for(make_user("alice", roles.ANNOTATOR))
    response = page.goto(f"{live_server.url}/adjudicate/{pair.pk}/")
    assert response is not None and response.status == 403


def test_an_admin_recomputes_statistics_from_the_home_page(page_for: Any, live_server: Any) -> None:
    corpus = make_corpus("news")
    make_pair(corpus)
    page = page_for(make_user("root", roles.ADMIN))
    page.goto(f"{live_server.url}/")
    row = page.locator("#corpora-table tr[data-corpus=news]")
    row.get_by_role("button", name="Compute statistics").click()
    page.wait_for_selector("#jobs-table tr[data-job] .badge")
    with SERVER_LOCK:
        job = Job.objects.get()
    assert (job.kind, job.corpus_id, job.status) == ("corpus_stats", corpus.pk, "pending")
    assert page.locator(f"#jobs-table tr[data-job='{job.pk}']").inner_text().count("pending") == 1
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / "home_admin.png"))


@pytest.mark.parametrize("size", [20, 80])
def test_the_workspace_renders_large_grids_and_is_screenshotted(
    page_for: Any, live_server: Any, size: int
) -> None:
    words = [f"w{k}" for k in range(size)]
    others = [f"word{k}" for k in range(size)]
    prefill = [(k, k, k % 3 != 0) for k in range(size)]
    pair = make_pair(source=" ".join(words), target=" ".join(others), prefill=prefill)
    alice = make_user("alice", roles.ANNOTATOR)
    assignment = make_assignment(pair, alice)
    page = page_for(alice, viewport=(1400, 1000))
    page.goto(f"{live_server.url}/work/{assignment.pk}/")
    page.wait_for_selector("#workspace[data-ready=true]")
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Shift+ArrowRight")
    page.keyboard.press("Shift+ArrowRight")
    page.keyboard.press("p")
    page.evaluate("window.scrollTo(0, 0)")
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"workspace_{size}x{size}.png"), full_page=False)
    render_ms = page.evaluate("window.__workspace.view.render()")
    toggle_ms = page.evaluate(
        """() => { const m = window.__workspace.model; const times = [];
                   const wrap = document.getElementById("grid-wrap");
                   for (let k = 0; k < 40; k++) {
                     const t0 = performance.now(); m.cycle(k % 20, (k * 7) % 20);
                     void wrap.offsetHeight; times.push(performance.now() - t0); }
                   times.sort((a, b) => a - b); return times[times.length >> 1]; }"""
    )
    assert page.locator("#grid tbody td").count() == size * size
    # Sticky headers: after scrolling the grid, the header row is still at the grid's top.
    page.evaluate("document.getElementById('grid-wrap').scrollTop = 400")
    header_top = page.evaluate(
        "document.querySelector('#grid thead th:nth-child(2)').getBoundingClientRect().top"
        " - document.getElementById('grid-wrap').getBoundingClientRect().top"
    )
    assert abs(header_top) <= 2
    print(f"{size}x{size}: render {render_ms:.1f} ms, toggle {toggle_ms:.2f} ms")
    assert page.js_errors == []


def test_a_pair_with_imported_gold_and_no_annotation_opens_from_the_pairs_tab(
    page_for: Any, live_server: Any
) -> None:
    record = make_record(
        "g1", "the council approved new budget", "council passed it", prefill="1-0"
    )
    record.gold_alignment = Alignment.from_pharaoh("1-0 2-1 4?2", 5, 3)
    corpus_import_records(corpus_name="golden", records=[record])
    pair = SentencePair.objects.get(external_id="g1")
    page = page_for(make_user("ada", roles.ADMIN))
    page.goto(f"{live_server.url}/corpora/{pair.corpus_id}/pairs/")
    page.get_by_role("link", name="g1").click()
    page.wait_for_selector("#adjudication[data-ready=true]")
    assert sorted(page.evaluate(GOLD_LINKS)) == [[1, 0, "S"], [2, 1, "S"], [4, 2, "P"]]
    assert "No annotation of this pair is submitted yet" in page.inner_text("body")
    page.screenshot(path=str(SCREENSHOTS / "adjudicate_imported_gold.png"))
    assert page.js_errors == []


def test_the_prefill_is_a_layer_shown_when_nobody_annotated_and_usable_as_the_gold(
    page_for: Any, live_server: Any
) -> None:
    record = make_record(
        "bare", "the council approved new budget", "council passed it", prefill="1-0 2?1"
    )
    corpus_import_records(corpus_name="bare", records=[record])
    annotated = _imported({"alice": "0-3 1-0", "bob": "1-0"}, corpus="done")
    with SERVER_LOCK:
        annotated.prefills.create(aligner="identity").links.create(i=0, j=0, sure=True)
    bare = SentencePair.objects.get(external_id="bare")
    page = page_for(make_user("carol", roles.ADJUDICATOR))
    _open(page, f"{live_server.url}/adjudicate/{bare.pk}/")
    legend = page.inner_text("#layers")
    assert "prefill (" in legend and "automatic, not in the majority" in legend
    assert page.locator("#layer-0").is_checked()
    assert cell(page, 1, 0).locator(".mk.l0.s").is_visible()
    assert cell(page, 2, 1).locator(".mk.l0.p").is_visible()
    assert page.inner_text("#save-status") == "No gold yet"  # looking changes nothing
    page.screenshot(path=str(SCREENSHOTS / "adjudicate_prefill_layer.png"))
    page.get_by_role("button", name="Use prefill").click()
    page.wait_for_selector("#adj-message:has-text('copied into the gold')")
    assert sorted(page.evaluate(GOLD_LINKS)) == [[1, 0, "S"], [2, 1, "P"]]
    _saved(page, 1)
    # beside the annotators' work the prefill starts hidden, one key away
    _open(page, f"{live_server.url}/adjudicate/{annotated.pk}/")
    assert not page.locator("#layer-2").is_checked()
    assert cell(page, 0, 0).locator(".mk.l2").is_hidden()
    page.keyboard.press("3")
    assert cell(page, 0, 0).locator(".mk.l2").is_visible()
    assert page.js_errors == []


def test_gold_kept_while_signed_out_is_saved_as_soon_as_the_adjudicator_comes_back_to_the_tab(
    page_for: Any, live_server: Any
) -> None:
    pair = _imported({"alice": "0-0", "bob": "0-0"})
    page = page_for(make_user("carol", roles.ADJUDICATOR))
    _open(page, f"{live_server.url}/adjudicate/{pair.pk}/")
    cookies = page.context.cookies()
    page.context.clear_cookies()  # the session ends
    cell(page, 3, 3).click()
    page.wait_for_selector("#save-status[data-state=offline]")
    # Retried with back-off: by now the next try is seconds away.
    page.wait_for_function("() => window.__adjudication.queue.retryMs >= 8000", timeout=15_000)
    page.context.add_cookies(cookies)  # signed in again, in another tab
    page.evaluate("() => window.dispatchEvent(new Event('focus'))")  # back to this one
    page.wait_for_selector("#save-status:has-text('Gold saved · v1')", timeout=2_000)
    assert page.js_errors == []


def test_the_gold_grid_is_announced_as_an_application_that_takes_its_own_keys(
    page_for: Any, live_server: Any
) -> None:
    pair = _imported({"alice": "0-0", "bob": "0-0"})
    page = page_for(make_user("carol", roles.ADJUDICATOR))
    _open(page, f"{live_server.url}/adjudicate/{pair.pk}/")
    grid = page.get_by_role("application", name="Gold alignment grid")
    assert grid.count() == 1
    assert grid.get_attribute("aria-describedby") == "cursor-info"
