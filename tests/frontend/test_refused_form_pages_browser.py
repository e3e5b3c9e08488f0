"""A tab answering a refused form (the form again, with its errors, at the address it was posted
to, which takes posts only): every link and form of the page still opens the tab, in headless
chromium."""

from __future__ import annotations

from typing import Any

import pytest

from annotate import roles
from annotate.models import Job
from tests.annotate.factories import make_corpus, make_pair, make_user

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_sort_link_on_the_page_refusing_a_second_prefill_opens_the_prefill_tab(
    page_for: Any, live_server: Any
) -> None:
    corpus = make_corpus("busy")
    make_pair(corpus)
    Job.objects.create(
        kind="prefill",
        corpus=corpus,
        status=Job.Status.RUNNING,
        progress=10,
        parameters={"aligner": "em", "trigger": "request", "options": {}},
    )
    page = page_for(make_user("admin", roles.ADMIN))
    tab = f"{live_server.url}/corpora/{corpus.pk}/prefill/"
    page.goto(f"{tab}?aligner=identity")
    page.click("#prefill-submit")
    page.wait_for_selector("#prefill-errors")
    assert "still running" in page.inner_text("#prefill-errors")
    page.wait_for_function(f"() => location.pathname === '/corpora/{corpus.pk}/prefill/'")
    with page.expect_navigation() as navigation:
        page.click("[data-fragment='runs'] th a.sort >> text=Status")
    assert navigation.value.status == 200
    assert page.url.startswith(f"{tab}?") and "sort=" in page.url
    assert page.js_errors == []
