"""Archiving, restoring and deleting a corpus in headless chromium, as an admin does it: the
confirmation dialogs accepted, the name typed, the deletion's job followed on the list."""

from __future__ import annotations

from typing import Any

import pytest

from annotate import roles
from annotate.models import Corpus
from annotate.services.corpora import corpus_import_records
from tests.annotate.factories import make_user
from tests.annotate.records import make_record
from tests.frontend.conftest import SCREENSHOTS, SERVER_LOCK

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_corpus_is_archived_restored_and_deleted_from_the_corpora_page(
    page_for: Any, live_server: Any, eager_jobs: Any
) -> None:
    with SERVER_LOCK:
        records = [make_record(f"p{k}", annotations={"alice": "1-1 3-4"}) for k in range(3)]
        corpus_import_records(corpus_name="old news", records=records)
        corpus = Corpus.objects.get(name="old news")
        admin = make_user("admin", roles.ADMIN)
    page = page_for(admin, viewport=(1280, 800))
    page.goto(f"{live_server.url}/corpora/")
    row = page.locator(f"#corpora-table tr[data-corpus='{corpus.pk}']")
    page.once("dialog", lambda dialog: dialog.accept())  # "Archive old news? …"
    row.get_by_role("button", name="Archive").click()
    page.wait_for_selector("text=Archived “old news”")
    assert row.count() == 0

    page.select_option("#id_show", "archived")  # the filter submits itself
    page.wait_for_url("**show=archived*")
    row.get_by_role("button", name="Restore").click()
    page.wait_for_selector("text=Restored “old news”")

    page.goto(f"{live_server.url}/corpora/")
    row.get_by_role("link", name="Delete…").click()
    page.wait_for_selector("#deletion-contents")
    assert page.inner_text("#deletion-contents tr[data-count='annotations'] td.num") == "3"
    page.fill("#id_confirm", "old")
    page.click("#delete-submit")
    page.wait_for_selector("text=type the corpus name")
    page.screenshot(path=str(SCREENSHOTS / "corpus_delete_refused.png"))
    page.fill("#id_confirm", "old news")
    page.click("#delete-submit")
    page.wait_for_selector("#import-jobs li .success:has-text('Deleted old news.')")
    page.screenshot(path=str(SCREENSHOTS / "corpus_deleted.png"))
    with SERVER_LOCK:
        assert not Corpus.objects.filter(pk=corpus.pk).exists()
    assert page.js_errors == []


def test_a_corpus_row_shows_its_actions_on_a_laptop_screen_without_scrolling_the_table(
    page_for: Any, live_server: Any
) -> None:
    with SERVER_LOCK:
        corpus_import_records(corpus_name="sample", records=[make_record("p1")])
        Corpus.objects.filter(name="sample").update(
            description="Sample paraphrase pairs written for the project (news, mtc, novels).",
            prefill_aligner="supervised",
            prefill_retrain_every=50,
        )
        admin = make_user("admin", roles.ADMIN)
    page = page_for(admin, viewport=(1280, 800))
    page.goto(f"{live_server.url}/corpora/")
    hidden = page.locator("#corpora-table").evaluate(
        "table => { const wrap = table.closest('.table-wrap');"
        " return wrap.scrollWidth - wrap.clientWidth; }"
    )
    assert hidden <= 0, f"the corpora table is {hidden}px wider than its box"
    delete = page.get_by_role("link", name="Delete…")
    assert delete.bounding_box()["x"] + delete.bounding_box()["width"] <= 1280
    page.screenshot(path=str(SCREENSHOTS / "corpus_list_laptop.png"))
    assert page.js_errors == []


def test_a_corpus_name_without_spaces_wraps_instead_of_widening_its_pages(
    page_for: Any, live_server: Any
) -> None:
    name = "x" * 100  # the longest name a corpus may have, with nowhere to break
    with SERVER_LOCK:
        corpus_import_records(corpus_name=name, records=[make_record("p1")])
        corpus = Corpus.objects.get(name=name)
        admin = make_user("admin", roles.ADMIN)
    page = page_for(admin, viewport=(1280, 800))
    for path in ("/corpora/", f"/corpora/{corpus.pk}/", f"/corpora/{corpus.pk}/delete/"):
        page.goto(f"{live_server.url}{path}")
        overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 0, f"{path} is {overflow}px wider than the window"
        hidden = page.evaluate(
            "Math.max(0, ...[...document.querySelectorAll('.table-wrap')]"
            ".map(wrap => wrap.scrollWidth - wrap.clientWidth))"
        )
        assert hidden <= 0, f"a table of {path} is {hidden}px wider than its box"
    page.screenshot(path=str(SCREENSHOTS / "corpus_delete_long_name.png"))
    assert page.js_errors == []
