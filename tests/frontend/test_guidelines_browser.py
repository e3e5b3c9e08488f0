"""Guidelines holding a markdown table read as a table (ruled cells, room around the text) on
the guidelines page and in the workspace's guidelines dialog, where a table wider than the
dialog scrolls inside it. In headless chromium."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from annotate import roles
from annotate.services import guidelines
from tests.annotate.factories import make_assignment, make_corpus, make_pair, make_user

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WIDE = " | ".join(f"column{k}" for k in range(30))
TABLE = (
    "# Rules\n\n| words | link |\n|---|---|\n"
    "| passed ↔ approved | sure |\n| the ↔ a | possible |\n\n"
    f"| {WIDE} |\n|{'---|' * 30}\n| {WIDE} |\n"
)


@pytest.fixture(autouse=True)
def var_dir(settings: Any, tmp_path: Path) -> Path:
    settings.VAR_DIR = tmp_path
    return tmp_path


def cell_style(page: Any, selector: str) -> dict[str, float]:
    return page.eval_on_selector(
        selector,
        """cell => { const s = getComputedStyle(cell);
            return { border: parseFloat(s.borderTopWidth),
                     padding: parseFloat(s.paddingLeft) }; }""",
    )


def test_a_guidelines_table_has_ruled_cells_on_the_page_and_in_the_workspace_dialog(
    page_for: Any, live_server: Any
) -> None:
    guidelines.guidelines_set(text=TABLE)
    alice = make_user("alice", roles.ANNOTATOR)
    assignment = make_assignment(make_pair(make_corpus("c")), alice)
    page = page_for(alice, viewport=(1366, 900))

    page.goto(f"{live_server.url}/guidelines/")
    for selector in ("#guidelines-html td", "#guidelines-html th"):
        style = cell_style(page, selector)
        assert style["border"] >= 1 and style["padding"] >= 4, (selector, style)

    page.goto(f"{live_server.url}/work/{assignment.pk}/")
    page.wait_for_selector("#grid td")
    page.keyboard.press("g")
    page.wait_for_selector("#guidelines-dialog-body table")
    style = cell_style(page, "#guidelines-dialog-body td")
    assert style["border"] >= 1 and style["padding"] >= 4, style
    # the wide table scrolls inside itself: the dialog keeps its width
    dialog = page.eval_on_selector(
        "#guidelines-dialog", "d => ({ scroll: d.scrollWidth, client: d.clientWidth })"
    )
    assert dialog["scroll"] <= dialog["client"], dialog
    assert page.js_errors == []
