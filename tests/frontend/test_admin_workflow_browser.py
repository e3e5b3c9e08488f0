"""The rest of the corpus admin's work in headless chromium: prefill an imported annotated
corpus, plan and hand over assignments, invite a user who sets a password and logs in, and
export a corpus that re-imports identically."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page

from annotate import roles
from annotate.models import Assignment, AutoAlignment, Corpus
from annotate.services.corpora import corpus_import_records
from tests.annotate.factories import make_assignment, make_user
from tests.annotate.records import make_record
from tests.frontend.conftest import SCREENSHOTS, SERVER_LOCK

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def corpus() -> Corpus:
    """Pairs with imported annotations of two annotators and no prefill."""
    records = [
        make_record(
            f"p{k}",
            "the cat sat on the mat",
            "a cat was sitting on the mat",
            prefill=None,
            annotations={"A": "1-1 3-4 4-5 5-6", "B": "1-1 4-5"},
            subcorpus="news" if k % 2 else "novels",
        )
        for k in range(6)
    ]
    corpus_import_records(corpus_name="imported", records=records)
    return Corpus.objects.get(name="imported")


@pytest.fixture
def admin() -> Any:
    return make_user("admin", roles.ADMIN)


def test_prefill_runs_on_an_imported_annotated_corpus(
    page_for: Any, live_server: Any, admin: Any, corpus: Corpus, eager_jobs: Any
) -> None:
    page = page_for(admin, viewport=(1280, 800))
    page.goto(f"{live_server.url}/corpora/{corpus.pk}/prefill/")
    page.screenshot(path=str(SCREENSHOTS / "admin_prefill.png"), full_page=True)
    with page.expect_navigation():  # choosing an aligner shows its options
        page.select_option("#choose-aligner", "identity")
    assert page.input_value("#prefill-form input[name=aligner]") == "identity"
    with page.expect_navigation():
        page.click("#prefill-submit")
    row = page.locator("#runs-table tbody tr").first
    assert "identity" in row.inner_text() and "succeeded" in row.inner_text()
    assert "6" in row.inner_text()
    assert "6" in page.inner_text("#prefill-tiles")
    # run inside the request: the message says how it ended, not that it is queued
    assert page.inner_text(".messages") == f"Prefill #{row.get_attribute('data-job')} succeeded."
    page.screenshot(path=str(SCREENSHOTS / "admin_prefill_done.png"), full_page=True)
    with SERVER_LOCK:
        assert AutoAlignment.objects.filter(pair__corpus=corpus).count() == 6
        kept = Assignment.objects.get(annotator__username="B", pair__external_id="p0")
        assert set(kept.annotation.links.values_list("i", "j")) == {(1, 1), (4, 5)}
    assert page.js_errors == []


def test_plan_assignments_read_progress_and_hand_over(
    page_for: Any, live_server: Any, admin: Any, corpus: Corpus, eager_jobs: Any
) -> None:
    with SERVER_LOCK:
        alice = make_user("alice", roles.ANNOTATOR, password="a-long-Password-1")
        make_user("bob", roles.ANNOTATOR, password="a-long-Password-1")
        Assignment.objects.filter(annotator__username="B").delete()
    page = page_for(admin, viewport=(1280, 800))
    page.goto(f"{live_server.url}/corpora/{corpus.pk}/assignments/")
    ticked = page.locator("#plan-annotators input:checked")
    assert [ticked.nth(k).get_attribute("value") for k in range(ticked.count())] == [
        "alice",
        "bob",
    ], "A and B, made by the import, are not ticked"
    page.fill("#plan-per_pair", "1")
    page.fill("#plan-double_percent", "50")
    page.fill("#plan-seed", "3")
    with page.expect_navigation():
        page.click("#plan-submit")
    # K counts alice and bob only: every pair gets one of them, half of the pairs both
    assert "Created 9 assignments on 6 pairs" in page.inner_text("#work-table")
    assert "Open work in this corpus now: alice" in page.inner_text("#work-table")
    assert "100.0%" in page.inner_text("#tiles")
    page.wait_for_selector("#annotators-table tr[data-annotator='alice']")
    page.screenshot(path=str(SCREENSHOTS / "admin_assignments.png"), full_page=True)
    assert page.locator("#plan-annotators input[value='A']:checked").count() == 0

    page.select_option("#handover-from", "alice")
    page.check("#handover-to input[value='bob']")
    page.once("dialog", lambda dialog: dialog.accept())  # "Move this annotator's open pairs…?"
    with page.expect_navigation():
        page.click("#handover-submit")
    assert "Moved" in page.inner_text("#work-table")
    with SERVER_LOCK:
        kept = Assignment.objects.filter(pair__corpus=corpus, annotator=alice)
        assert not kept.exclude(pair__assignments__annotator__username="bob").exists(), (
            "alice keeps only pairs bob already has"
        )
    assert page.js_errors == []


def test_a_hand_over_to_nobody_asks_nothing_and_shows_what_is_missing(
    page_for: Any, live_server: Any, admin: Any, corpus: Corpus
) -> None:
    with SERVER_LOCK:
        alice = make_user("alice", roles.ANNOTATOR, password="a-long-Password-1")
        make_user("bob", roles.ANNOTATOR, password="a-long-Password-1")
        for pair in corpus.pairs.all()[:2]:
            make_assignment(pair, alice)
    page = page_for(admin, viewport=(1280, 800))
    asked: list[str] = []
    page.on("dialog", lambda dialog: (asked.append(dialog.message), dialog.dismiss()))
    page.goto(f"{live_server.url}/corpora/{corpus.pk}/assignments/")
    page.select_option("#handover-from", "alice")
    assert page.locator("#handover-to input:checked").count() == 0
    with page.expect_response(lambda r: r.request.method == "POST") as posted:
        page.click("#handover-submit")
    assert asked == [], "nobody ticked: nothing to confirm"
    assert posted.value.status == 400  # the server says what is missing
    errors = page.locator("#handover-errors")
    assert "To" in errors.inner_text() and "required" in errors.inner_text()
    page.locator("#handover-form").screenshot(path=str(SCREENSHOTS / "handover_to_nobody.png"))

    page.check("#handover-to input[value='bob']")
    page.click("#handover-submit")  # the dialog is dismissed: nothing is posted
    assert asked == ["Move this annotator's open pairs to the people ticked?"]
    with SERVER_LOCK:
        assert Assignment.objects.filter(annotator=alice).count() == 2
    assert page.js_errors == []


def test_an_invited_user_sets_a_password_and_logs_in(
    page_for: Any, live_server: Any, admin: Any, browser: Browser
) -> None:
    page = page_for(admin, viewport=(1280, 800))
    page.goto(f"{live_server.url}/users/")
    page.wait_for_selector("#users-table tbody tr")
    page.fill("#id_username", "dora")
    page.click("#user-submit")
    page.wait_for_selector("#invite .link-field")
    link = page.input_value("#invite .link-field")
    dora = page.locator("#users-table tr:has([data-user='dora'])")
    dora.locator(".badge.no-password").wait_for()
    page.screenshot(path=str(SCREENSHOTS / "admin_users.png"), full_page=True)

    context = browser.new_context(viewport={"width": 1280, "height": 800})
    try:
        invited: Page = context.new_page()
        invited.goto(link)
        invited.wait_for_selector("#id_new_password1")
        invited.screenshot(path=str(SCREENSHOTS / "password_set.png"))
        invited.fill("#id_new_password1", "a-long-secret-99")
        invited.fill("#id_new_password2", "a-long-secret-99")
        invited.click("button[type=submit]")
        invited.wait_for_selector("text=Password set")
        invited.goto(f"{live_server.url}/login/")
        invited.fill("#id_username", "dora")
        invited.fill("#id_password", "a-long-secret-99")
        invited.click("button[type=submit]")
        invited.wait_for_url(f"{live_server.url}/")
        assert "dora" in invited.inner_text(".whoami")
    finally:
        context.close()
    page.reload()
    dora.locator(".badge.active").wait_for()
    page.once("dialog", lambda dialog: dialog.accept())  # "Deactivate dora? …"
    dora.locator("button", has_text="Deactivate").click()
    dora.locator(".badge.deactivated").wait_for()
    assert "dora is deactivated" in page.inner_text(".messages")
    # a role given with one click on the row's checkbox (the form submits itself)
    dora.locator("input[value='adjudicator']").check()
    page.wait_for_selector("text=Roles of dora: annotator, adjudicator.")
    assert dora.locator("input[value='adjudicator']").is_checked()
    assert page.js_errors == []


def test_export_downloads_and_re_imports_identically(
    page_for: Any, live_server: Any, admin: Any, corpus: Corpus, eager_jobs: Any, tmp_path: Path
) -> None:
    page = page_for(admin, viewport=(1280, 800))

    def export(corpus_id: int, name: str) -> Path:
        page.goto(f"{live_server.url}/corpora/{corpus_id}/export/")
        page.check("input[name=format][value=jsonl]")
        with page.expect_navigation(timeout=120_000):
            page.click("#export-submit")
        link = page.locator("#exports-table tbody tr").first.locator("a[download]")
        with page.expect_download() as download:
            link.click()
        target = tmp_path / name
        download.value.save_as(target)
        return target

    first = export(corpus.pk, "first.jsonl")
    page.screenshot(path=str(SCREENSHOTS / "admin_export.png"), full_page=True)
    page.goto(f"{live_server.url}/corpora/")
    page.fill("#id_corpus", "round trip")
    page.select_option("#id_format", "jsonl")
    page.set_input_files("#id_files", [str(first)])
    page.click("#upload-submit")
    page.wait_for_selector("#import-jobs li .success", timeout=60_000)
    with SERVER_LOCK:
        copy = Corpus.objects.get(name="round trip")
    second = export(copy.pk, "second.jsonl")
    assert second.read_bytes() == first.read_bytes()
    assert page.js_errors == []
