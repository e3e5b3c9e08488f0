"""The guidelines: rendered once when saved (CommonMark with tables, sanitised) and read back on
every view without rendering again; the default renders as it always did."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from rest_framework.test import APIClient

from annotate import roles
from annotate.exceptions import DomainError
from annotate.services import guidelines
from tests.annotate.factories import make_user


@pytest.fixture(autouse=True)
def var_dir(settings: Any, tmp_path: Path) -> Path:
    settings.VAR_DIR = tmp_path
    return tmp_path


@pytest.fixture
def renders(monkeypatch: Any) -> list[str]:
    """Every markdown text rendered from now on."""
    seen: list[str] = []
    real = guidelines.guidelines_render

    def counted(text: str) -> str:
        seen.append(text)
        return real(text)

    monkeypatch.setattr(guidelines, "guidelines_render", counted)
    return seen


def _squash(html: str) -> str:
    return re.sub(r"\s+", " ", html).strip()


def test_the_default_guidelines_render_their_heading_list_emphasis_and_keys() -> None:
    html = _squash(guidelines.guidelines_html())
    assert html.startswith("<h1>Aligning paraphrases</h1> <p>These are the defaults;")
    assert html.count("<li>") == 5
    assert "<strong>mean the same thing in this context</strong>" in html
    assert "key <kbd>s</kbd>) when" in html and "key <kbd>p</kbd>) when" in html
    assert "Callison-Burch &amp; Lapata" in html


def test_tables_render_and_scripts_do_not() -> None:
    html = guidelines.guidelines_render(
        "| cell | means |\n|---|:-:|\n| S | ~~sure~~ |\n\n<script>alert(1)</script>\n"
        '<img src=x onerror="alert(1)"> [link](javascript:alert(1))'
    )
    assert "<table>" in html and "<th>cell</th>" in html and "<s>sure</s>" in html
    assert "<script" not in html and "onerror" not in html and 'href="javascript' not in html


@pytest.mark.django_db
def test_a_save_renders_once_and_views_read_the_stored_html(
    renders: list[str], var_dir: Path
) -> None:
    admin, alice = make_user("root", roles.ADMIN), make_user("alice", roles.ANNOTATOR)
    client = APIClient()
    client.force_authenticate(admin)
    saved = client.put("/api/guidelines/", {"markdown": "# Rules\n\n| a | b |\n|---|---|\n"})
    assert saved.status_code == 200
    assert "<table>" in saved.json()["html"]
    assert renders == ["# Rules\n\n| a | b |\n|---|---|\n"]
    assert (var_dir / "guidelines.html").read_text().count("<h1>Rules</h1>") == 1
    client.force_authenticate(alice)
    for _ in range(3):
        assert "<h1>Rules</h1>" in client.get("/api/guidelines/").json()["html"]
    from django.test import Client

    page = Client()
    page.force_login(alice)
    assert b"<h1>Rules</h1>" in page.get("/guidelines/").content
    assert len(renders) == 1


def test_markdown_changed_behind_the_html_is_rendered_again_once(
    renders: list[str], var_dir: Path
) -> None:
    guidelines.guidelines_set(text="# One")
    (var_dir / "guidelines.md").write_text("# Two", encoding="utf-8")
    assert "<h1>Two</h1>" in guidelines.guidelines_html()
    assert "<h1>Two</h1>" in guidelines.guidelines_html()
    assert renders == ["# One", "# Two"]


def test_guidelines_longer_than_the_limit_are_refused_and_nothing_is_stored(
    var_dir: Path,
) -> None:
    with pytest.raises(DomainError, match="at most 15,000 are accepted") as caught:
        guidelines.guidelines_set(text="[" * (guidelines.MAX_LENGTH + 1))
    assert caught.value.extra == {"field": "markdown"}
    assert not (var_dir / "guidelines.md").exists()
    assert not (var_dir / "guidelines.html").exists()


@pytest.mark.parametrize("unit", ["[", "![", "*_", ">", "<ol><li>", "<b></i>", "`"])
def test_pathological_markdown_of_the_longest_length_renders(unit: str) -> None:
    """Python-Markdown took minutes on "[" * 20000; the bound on time is measured by
    benchmarks/bench_worst_requests.py, this checks the output stays sane."""
    text = unit * (guidelines.MAX_LENGTH // len(unit))
    html = guidelines.guidelines_render(text)
    assert html and "<script" not in html
