"""The pager of the server-rendered tables writes its counts as every other count is written."""

from __future__ import annotations

from types import SimpleNamespace

from django.core.paginator import Paginator
from django.template.loader import render_to_string


def test_the_pager_groups_thousands() -> None:
    page = Paginator(range(16_019), 50).page(321)
    table = SimpleNamespace(page=page, total=16_019, noun="pairs", path="/p/", kept_fields=[])
    html = render_to_string("frontend/_pager.html", {"table": table})
    assert "16,001–16,019 of 16,019 pairs · page 321 of 321" in html
