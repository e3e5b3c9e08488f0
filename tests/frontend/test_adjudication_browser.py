"""Adjudication, the admin home page and workspace screenshots in headless chromium."""

from __future__ import annotations

from typing import Any

import pytest

from annotate import roles
from annotate.models import GoldAlignment, Job
from annotate.services.annotations import annotation_open, annotation_save, annotation_submit
from tests.annotate.factories import make_assignment, make_corpus, make_pair, make_user
from tests.frontend.conftest import SCREENSHOTS, SERVER_LOCK

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def cell(page: Any, i: int, j: int) -> Any:
    return page.locator(f"#grid tbody tr:nth-child({i + 1}) td:nth-child({j + 2})")


def _annotated(pair: Any, name: str, links: dict[tuple[int, int], bool]) -> None:
    assignment = make_assignment(pair, make_user(name, roles.ANNOTATOR))
    annotation_open(assignment=assignment, actor=assignment.annotator)
    annotation_save(assignment=assignment, actor=assignment.annotator, base_version=1, links=links)
    annotation_submit(assignment=assignment, actor=assignment.annotator, base_version=2)


def test_an_adjudicator_accepts_cells_and_saves_gold(page_for: Any, live_server: Any) -> None:
    pair = make_pair(prefill=None)
    _annotated(pair, "alice", {(0, 0): True, (1, 1): True, (2, 3): True})
    _annotated(pair, "bob", {(0, 0): True, (1, 1): False, (4, 4): True})
    carol = make_user("carol", roles.ADJUDICATOR)
    page = page_for(carol)
    page.goto(f"{live_server.url}/")
    page.get_by_role("link", name=pair.external_id).click()
    page.wait_for_selector("#adjudication[data-ready=true]")
    links = "window.__adjudication.model.links()"
    assert page.evaluate(links) == [[0, 0, "S"]]  # the unanimous cell starts accepted
    assert cell(page, 1, 1).get_attribute("data-agree") == "2"
    assert "agree-some" in (cell(page, 2, 3).get_attribute("class") or "")
    cell(page, 1, 1).click()  # a click cycles the gold cell: empty -> sure
    page.keyboard.press("x")
    page.keyboard.press("a")  # accept the majority for the cursor cell (two of two: sure)
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowDown")  # cursor on 2-3: one of two annotators, no majority
    page.keyboard.press("a")
    assert page.evaluate(links) == [[0, 0, "S"], [1, 1, "S"]]
    page.get_by_role("button", name="Save gold").click()
    page.wait_for_selector("#save-status:has-text('Gold saved')")
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / "adjudication.png"))
    with SERVER_LOCK:
        gold = GoldAlignment.objects.get(pair=pair)
        assert gold.adjudicator == carol
        assert sorted(gold.links.values_list("i", "j", "sure")) == [(0, 0, True), (1, 1, True)]
    page.get_by_role("button", name="Use bob's").click()
    page.keyboard.press("Control+s")
    page.wait_for_selector("#save-status:has-text('Gold saved')")
    with SERVER_LOCK:
        assert sorted(gold.links.values_list("i", "j", "sure")) == [
            (0, 0, True),
            (1, 1, False),
            (4, 4, True),
        ]
    assert page.js_errors == []


def test_two_pages_on_one_pair_the_second_save_gets_the_conflict_and_can_load_the_first(
    page_for: Any, live_server: Any
) -> None:
    pair = make_pair(prefill=None)
    _annotated(pair, "alice", {(0, 0): True, (1, 1): True})
    _annotated(pair, "bob", {(0, 0): True, (2, 2): False})
    carol = page_for(make_user("carol", roles.ADJUDICATOR))
    dave = page_for(make_user("dave", roles.ADJUDICATOR))
    for page in (carol, dave):
        page.goto(f"{live_server.url}/adjudicate/{pair.pk}/")
        page.wait_for_selector("#adjudication[data-ready=true]")
    carol.get_by_role("button", name="Use alice's").click()
    carol.get_by_role("button", name="Save gold").click()
    carol.wait_for_selector("#save-status:has-text('Gold saved')")
    dave.get_by_role("button", name="Use bob's").click()
    dave.get_by_role("button", name="Save gold").click()
    notice = dave.locator("#gold-conflict")
    notice.wait_for(state="visible")
    text = notice.inner_text()
    assert "version 1 was saved by carol" in text
    assert "2 sure and 0 possible links" in text and "Your gold is not saved" in text
    assert "Conflict" in dave.inner_text("#save-status")
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    dave.screenshot(path=str(SCREENSHOTS / "adjudication_conflict.png"))
    with SERVER_LOCK:
        gold = GoldAlignment.objects.get(pair=pair)
        assert (gold.version, gold.adjudicator.username) == (1, "carol")
        assert sorted(gold.links.values_list("i", "j", "sure")) == [(0, 0, True), (1, 1, True)]
    dave.get_by_role("button", name="Load their gold").click()
    assert dave.evaluate("window.__adjudication.model.links()") == [[0, 0, "S"], [1, 1, "S"]]
    assert notice.is_hidden()
    dave.keyboard.press("Control+z")  # undo brings dave's own back
    assert dave.evaluate("window.__adjudication.model.links()") == [[0, 0, "S"], [2, 2, "P"]]
    dave.get_by_role("button", name="Save gold").click()
    dave.wait_for_selector("#save-status:has-text('Gold saved')")
    with SERVER_LOCK:
        gold.refresh_from_db()
        assert (gold.version, gold.adjudicator.username) == (2, "dave")
    assert carol.js_errors == [] and dave.js_errors == []


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
    row.get_by_role("button", name="Recompute statistics").click()
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
