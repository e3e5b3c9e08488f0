"""On a wide screen (1920 px) the pages built around a table give it the screen's width instead
of holding it to a 1400 px column with a fifth of the screen empty; at 1366 px nothing scrolls
sideways. In headless chromium."""

from __future__ import annotations

from typing import Any

import pytest

from annotate import roles
from annotate.models import Job
from tests.annotate.factories import make_corpus, make_pair, make_user

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.mark.parametrize("width", [1920, 1366])
def test_the_jobs_table_takes_the_width_of_a_wide_screen(
    page_for: Any, live_server: Any, width: int
) -> None:
    corpus = make_corpus("wide")
    make_pair(corpus)
    Job.objects.create(
        kind="corpus_import",
        corpus=corpus,
        status=Job.Status.FAILED,
        error="data.jsonl:1: field '(json)': not valid JSON (column 1): Expecting value",
        parameters={"corpus": "wide", "format": "jsonl", "upload": "386a9f2b88dd467ab7d3d6"},
    )
    page = page_for(make_user("admin", roles.ADMIN), viewport=(width, 900))
    page.goto(f"{live_server.url}/jobs/")
    table = page.eval_on_selector("#jobs-table", "t => t.getBoundingClientRect().width")
    sideways = page.evaluate("document.documentElement.scrollWidth")
    assert sideways <= width
    if width == 1920:
        assert table >= 0.85 * width, table
    else:
        assert table >= 0.9 * (width - 48), table
