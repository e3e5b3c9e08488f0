"""The Assignments tab's edit rate in headless chromium: a figure where an annotator submitted
pairs with a prefill, a dash that says why where there is none (never the word "undefined")."""

from __future__ import annotations

from typing import Any

import pytest

from annotate import roles
from annotate.services import annotations
from tests.annotate.factories import make_assignment, make_corpus, make_pair, make_user
from tests.frontend.conftest import SCREENSHOTS, SERVER_LOCK

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def submitted(pair: Any, user: Any, links: annotations.LinkMap) -> None:
    assignment = make_assignment(pair, user)
    annotations.annotation_open(assignment=assignment, actor=user)
    annotations.annotation_save(assignment=assignment, actor=user, base_version=1, links=links)
    annotations.annotation_submit(
        assignment=assignment, actor=user, base_version=2, flags=[], comment="", rating=None
    )


@pytest.mark.parametrize(("width", "height"), [(1280, 800), (1920, 1080)])
def test_the_edit_rate_is_a_figure_or_a_dash_with_its_reason(
    page_for: Any, live_server: Any, width: int, height: int
) -> None:
    with SERVER_LOCK:
        corpus = make_corpus()
        alice = make_user("alice", roles.ANNOTATOR)
        bob = make_user("bob", roles.ANNOTATOR)
        # alice changes 2 of the 6 × 7 = 42 cells of a prefilled pair (1-1 sure, 3?4 possible)
        submitted(
            make_pair(corpus), alice, {(1, 1): True, (3, 4): False, (0, 0): True, (5, 6): True}
        )
        submitted(make_pair(corpus, prefill=None), bob, {(0, 0): True})  # no prefill at all
        admin = make_user("admin", roles.ADMIN)
    page = page_for(admin, viewport=(width, height))
    page.goto(f"{live_server.url}/corpora/{corpus.pk}/assignments/")
    page.wait_for_selector("#annotators-table tr[data-annotator='bob']")
    alice_rate = page.locator("#annotators-table tr[data-annotator='alice'] td").last
    bob_rate = page.locator("#annotators-table tr[data-annotator='bob'] td").last
    assert alice_rate.inner_text() == "4.76%"  # 2 / 42
    assert "over 1 submitted pairs with a prefill" in alice_rate.get_attribute("title")
    assert bob_rate.inner_text().startswith("—")
    assert "none of this annotator's submitted pairs has a prefill" in bob_rate.get_attribute(
        "title"
    )
    assert "undefined" not in page.inner_text("#annotators-table").lower()
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.locator("#annotators-table").screenshot(
        path=str(SCREENSHOTS / f"admin_edit_rate_{width}x{height}.png")
    )
    assert page.js_errors == []
