"""Every page, as the user it is for, at a laptop's 1280×800 and on a large screen: it renders
its heading with no script error, no Content-Security-Policy violation and nothing wider than
the window. Screenshots of each go to ``var/screenshots/`` to be looked at."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import override_settings

from annotate import roles
from annotate.models import Assignment, Corpus, ScorerModel
from annotate.services.corpora import corpus_import_records
from annotate.services.users import user_password_link
from tests.annotate.factories import make_user
from tests.annotate.records import make_record
from tests.frontend.conftest import SCREENSHOTS, watched_context, watched_page

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
    ScorerModel.objects.create(  # listed, and offered by the form that scores a pair
        kind="pfsm",
        name="pfsm-gallery-train",
        corpus=Corpus.objects.get(name="gallery"),
        training={"train_split": "train", "target": "gold_score", "pairs": 8},
        evaluation={"train": {"pearson": 0.61234}, "test": {"pearson": None}},
    )
    alice_work = Assignment.objects.filter(annotator__username="alice").first()
    return {
        "corpus": Corpus.objects.get(name="gallery"),
        "admin": make_user("admin", roles.ADMIN),
        "carol": make_user("carol", roles.ADJUDICATOR),
        "alice": alice_work.annotator,
        "root": get_user_model().objects.create_superuser("root", password="a-long-Password-1"),
        "assignment": alice_work,
    }


def _pages(world: dict[str, Any]) -> list[tuple[str, str, str]]:
    """(screenshot name, user, path)"""
    corpus = world["corpus"].pk
    tabs = ("", "pairs/", "prefill/", "assignments/", "agreement/", "export/")
    names = ("overview", "pairs", "prefill", "assignments", "agreement", "export")
    return [
        ("home_annotator", "alice", "/"),
        ("guidelines", "alice", "/guidelines/"),
        ("password_change", "alice", "/account/password/"),
        ("guidelines_admin", "admin", "/guidelines/"),
        ("scorers", "alice", "/scorers/"),
        ("scorers_admin", "admin", "/scorers/"),
        ("forbidden", "alice", "/corpora/"),
        ("not_found", "alice", "/no/such/page/"),
        ("adjudication_list", "carol", "/adjudication/"),
        ("home_adjudicator", "carol", "/"),
        ("home_admin", "admin", "/"),
        ("corpus_list", "admin", "/corpora/"),
        ("corpus_list_archived", "admin", "/corpora/?show=archived"),
        ("corpus_delete", "admin", f"/corpora/{corpus}/delete/"),
        *[
            (f"corpus_{n}", "admin", f"/corpora/{corpus}/{t}")
            for n, t in zip(names, tabs, strict=True)
        ],
        ("jobs", "admin", "/jobs/"),
        ("users", "admin", "/users/"),
        ("workspace", "alice", f"/work/{world['assignment'].pk}/"),
        ("adjudicate", "carol", f"/adjudicate/{world['assignment'].pair_id}/"),
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
        assert page.csp_violations == [], path
        page.screenshot(path=str(SCREENSHOTS / f"gallery_{size}_{name}.png"), full_page=True)
    for user, page in pages.items():
        assert page.js_errors == [], (user, page.js_errors)


def test_the_django_admin_the_api_pages_and_the_account_pages_keep_to_the_policy(
    page_for: Any, browser: Any, live_server: Any, world: dict[str, Any]
) -> None:
    """The pages that are not ours alone: the Django admin, the API docs (Swagger UI, with its
    own allowance for data: images) and the browsable API; and the pages of a stranger: the
    login page, its lockout and the set-password page."""
    root = page_for(world["root"])
    alice_id = world["alice"].pk
    for name, path, ready in [
        ("admin_index", "/admin/", "#site-name"),
        ("admin_users", "/admin/auth/user/", "#result_list"),
        ("admin_user", f"/admin/auth/user/{alice_id}/change/", "#user_form"),
        ("admin_jobs", "/admin/annotate/job/", "#changelist"),
        ("api_docs", "/api/docs/", ".swagger-ui .info"),
        ("browsable_api", "/api/queue/", ".response-info"),
    ]:
        root.goto(f"{live_server.url}{path}")
        root.wait_for_selector(ready)
        root.wait_for_load_state("networkidle")
        assert root.csp_violations == [], path
        root.screenshot(path=str(SCREENSHOTS / f"gallery_laptop_{name}.png"), full_page=True)
    assert root.js_errors == []

    context = watched_context(browser, viewport={"width": 1280, "height": 800})
    try:
        page = watched_page(context)
        link = user_password_link(user=world["alice"], actor=world["root"])
        page.goto(f"{live_server.url}{link}")
        page.wait_for_selector("#id_new_password1")
        page.screenshot(path=str(SCREENSHOTS / "gallery_laptop_password_set.png"))
        with override_settings(LOGIN_MAX_FAILURES=1):
            page.goto(f"{live_server.url}/login/")
            for _ in range(2):
                page.fill("#id_username", "nobody")
                page.fill("#id_password", "wrong-password")
                page.click("button[type=submit]")
                page.wait_for_load_state("networkidle")
        assert "Too many failed logins" in page.content()
        page.screenshot(path=str(SCREENSHOTS / "gallery_laptop_lockout.png"))
        assert page.js_errors == []
        assert context.csp_violations == []
    finally:
        context.close()


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


def test_an_admins_navigation_keeps_to_one_line_at_1024_pixels(
    page_for: Any, live_server: Any, world: dict[str, Any]
) -> None:
    """Every link of the admin's header in one row, the account beside them: at 1024px the
    last link ("API") wrapped alone onto a second line."""
    page = page_for(world["admin"], viewport=(1024, 768))
    page.goto(f"{live_server.url}/scorers/")
    page.wait_for_load_state("networkidle")
    tops = page.evaluate(
        "() => [...document.querySelectorAll('.topbar .mainnav a')]"
        ".map(e => Math.round(e.getBoundingClientRect().top))"
    )
    assert len(tops) == 8 and len(set(tops)) == 1, repr(tops)
    header = page.evaluate("() => document.querySelector('.topbar').getBoundingClientRect().height")
    assert header < 60, header


def test_the_phrase_table_choices_are_not_cut_at_1024_pixels(
    page_for: Any, live_server: Any, world: dict[str, Any]
) -> None:
    """The export's phrase-pair fields had a third of a narrow card each: the select showed
    "sure and possibl"."""
    page = page_for(world["admin"], viewport=(1024, 768))
    page.goto(f"{live_server.url}/corpora/{world['corpus'].pk}/export/")
    page.check("input[name=format][value=phrases]")
    select = page.locator("#export-use")
    needed = page.evaluate(
        """(select) => {
            const probe = document.createElement('span');
            probe.style.font = getComputedStyle(select).font;
            probe.textContent = select.options[select.selectedIndex].text;
            document.body.append(probe);
            const width = probe.getBoundingClientRect().width;
            probe.remove();
            return width;
        }""",
        select.element_handle(),
    )
    assert select.bounding_box()["width"] > needed + 24, (select.bounding_box(), needed)
