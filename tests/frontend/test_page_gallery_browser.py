"""Every page, as the user it is for, at a laptop's 1280×800 and on a large screen: it renders
its heading with no script error and nothing wider than the window. Screenshots of each go to
``var/screenshots/`` to be looked at."""

from __future__ import annotations

from typing import Any

import pytest

from annotate import roles
from annotate.models import Assignment, Corpus
from annotate.services.corpora import corpus_import_records
from tests.annotate.factories import make_user
from tests.annotate.records import make_record
from tests.frontend.conftest import SCREENSHOTS

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

SIZES = {"laptop": (1280, 800), "large": (1920, 1080)}


@pytest.fixture
def world() -> dict[str, Any]:
    records = [
        make_record(
            f"p{k}",
            annotations={"alice": "1-1 3-4 4-5", "bob": "1-1 4-5 5-6"},
            subcorpus=("news", "novels")[k % 2],
        )
        for k in range(8)
    ]
    corpus_import_records(corpus_name="gallery", records=records)  # creates alice and bob
    return {
        "corpus": Corpus.objects.get(name="gallery"),
        "admin": make_user("admin", roles.ADMIN),
        "carol": make_user("carol", roles.ADJUDICATOR),
        "alice": Assignment.objects.filter(annotator__username="alice").first().annotator,
    }


def _pages(world: dict[str, Any]) -> list[tuple[str, str, str]]:
    """(screenshot name, user, path)"""
    corpus = world["corpus"].pk
    tabs = ("", "pairs/", "prefill/", "assignments/", "agreement/", "export/")
    names = ("overview", "pairs", "prefill", "assignments", "agreement", "export")
    return [
        ("home_annotator", "alice", "/"),
        ("guidelines", "alice", "/guidelines/"),
        ("scorers", "alice", "/scorers/"),
        ("forbidden", "alice", "/corpora/"),
        ("not_found", "alice", "/no/such/page/"),
        ("adjudication_list", "carol", "/adjudication/"),
        ("corpus_list", "admin", "/corpora/"),
        *[
            (f"corpus_{n}", "admin", f"/corpora/{corpus}/{t}")
            for n, t in zip(names, tabs, strict=True)
        ],
        ("jobs", "admin", "/jobs/"),
        ("users", "admin", "/users/"),
    ]


@pytest.mark.parametrize("size", SIZES)
def test_every_page_renders_without_errors_or_overflow(
    page_for: Any, live_server: Any, world: dict[str, Any], size: str
) -> None:
    pages = {}
    for name, user, path in _pages(world):
        if user not in pages:
            pages[user] = page_for(world[user], viewport=SIZES[size])
        page = pages[user]
        page.goto(f"{live_server.url}{path}")
        page.wait_for_load_state("networkidle")
        assert page.locator("h1").count() >= 1, f"{path} has no heading"
        overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 0, f"{path} is {overflow}px wider than a {size} window"
        page.screenshot(path=str(SCREENSHOTS / f"gallery_{size}_{name}.png"), full_page=True)
    for user, page in pages.items():
        assert page.js_errors == [], (user, page.js_errors)


def test_the_login_page_renders_for_strangers(browser: Any, live_server: Any) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    try:
        page = context.new_page()
        page.goto(f"{live_server.url}/corpora/")
        page.wait_for_selector("#id_username")
        assert "/login/" in page.url
        page.screenshot(path=str(SCREENSHOTS / "gallery_laptop_login.png"))
    finally:
        context.close()
