"""The N key of the annotator's queue, in headless chromium: the page shows it as a capital N,
and both n and Shift+N open the next pair."""

from __future__ import annotations

from typing import Any

import pytest

from annotate import roles
from tests.annotate.factories import make_assignment, make_user

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.mark.parametrize("key", ["n", "Shift+N"])
def test_the_key_shown_as_N_opens_the_next_pair_of_the_queue(
    page_for: Any, live_server: Any, key: str
) -> None:
    alice = make_user("alice", roles.ANNOTATOR)
    assignment = make_assignment(annotator=alice)
    page = page_for(alice)
    page.goto(f"{live_server.url}/")
    assert page.inner_text("#open-next kbd") == "N"
    with page.expect_navigation():
        page.keyboard.press(key)
    assert page.url == f"{live_server.url}/work/{assignment.pk}/"
    assert page.js_errors == []
