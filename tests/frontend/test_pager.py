"""The pager of the server-rendered tables writes its counts as every other count is written."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from django.core.paginator import Paginator
from django.template.loader import render_to_string
from django.test import RequestFactory

from frontend.tables import Column, table_page


def test_the_pager_groups_thousands() -> None:
    page = Paginator(range(16_019), 50).page(321)
    table = SimpleNamespace(page=page, total=16_019, noun="pairs", path="/p/", kept_fields=[])
    html = render_to_string("frontend/_pager.html", {"table": table})
    assert "16,001–16,019 of 16,019 pairs · page 321 of 321" in html


@pytest.mark.parametrize(
    ("asked", "shown"),
    [
        ("2", 2),
        ("0", 1),
        ("-1", 1),
        ("-999", 1),
        ("abc", 1),
        ("1.5", 1),
        ("", 1),
        (None, 1),
        ("٣", 1),
        ("4", 3),
        ("9" * 40, 3),
        ("9" * 5000, 3),
    ],
)
def test_a_page_out_of_range_shows_the_first_or_the_last(asked: str | None, shown: int) -> None:
    query = {} if asked is None else {"page": asked}
    request = RequestFactory().get("/p/", query)
    table = table_page(request, list(range(120)), [Column("N", "{{ row }}")], per_page=50)
    assert table.page.number == shown
