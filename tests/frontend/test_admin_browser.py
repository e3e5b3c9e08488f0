"""The corpus admin's pages in headless chromium, as an admin uses them: a bad upload, the
RTE-2 alignments (three annotators, no prefill), an agreement report read from the page and
checked against the command line's numbers, a disagreement opened, a queued job cancelled."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command

from annotate import roles
from annotate.models import Corpus, Job, SentencePair
from tests.annotate.factories import make_user
from tests.frontend.conftest import SCREENSHOTS, SERVER_LOCK

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]
SAMPLES, SEED = 20, 5


@pytest.fixture
def admin() -> Any:
    return make_user("admin", roles.ADMIN)


def _upload(page: Any, live_server: Any, corpus: str, fmt: str, files: list[Path]) -> Any:
    """Post the import form; the job runs in the request (eager jobs) and the page it leads
    back to shows how the import ended, under the form. Returns that job's entry."""
    page.goto(f"{live_server.url}/corpora/")
    page.fill("#id_corpus", corpus)
    page.select_option("#id_format", fmt)
    page.set_input_files("#id_files", [str(f) for f in files])
    # the import runs inside the request here (eager jobs), which takes a while
    with page.expect_navigation(url=f"{live_server.url}/corpora/", timeout=120_000):
        page.click("#upload-submit", no_wait_after=True)
    entry = page.locator("#import-jobs li").first
    entry.locator(".success, .errors").wait_for(timeout=120_000)
    return entry


def test_a_bad_upload_shows_the_file_and_field_and_stores_nothing(
    page_for: Any, live_server: Any, admin: Any, shared_data: Path, eager_jobs: Any
) -> None:
    page = page_for(admin, viewport=(1280, 800))
    entry = _upload(
        page, live_server, "broken", "rte2", [shared_data / "msrp" / "msr_paraphrase_test.txt"]
    )
    error = entry.locator(".errors")
    assert error.is_visible()
    text = error.inner_text()
    assert "msr_paraphrase_test.txt" in text and "file name" in text
    assert "/tmp/" not in text  # the file as the user named it, not where the server put it
    page.screenshot(path=str(SCREENSHOTS / "admin_upload_error.png"))
    with SERVER_LOCK:
        assert not Corpus.objects.filter(name="broken").exists()
        assert SentencePair.objects.count() == 0
    assert page.js_errors == []


def test_rte2_upload_agreement_report_disagreement_and_cancel(
    page_for: Any, live_server: Any, admin: Any, shared_data: Path, eager_jobs: Any, tmp_path: Path
) -> None:
    page = page_for(admin, viewport=(1280, 800))
    files = sorted((shared_data / "rte2-alignments").glob("RTE2_dev_*.align.txt"))
    entry = _upload(page, live_server, "RTE-2 dev", "rte2", files)
    assert "Imported 800 pairs into RTE-2 dev" in entry.inner_text()
    assert page.locator("#corpora-table tr", has_text="RTE-2 dev").count() == 1
    page.screenshot(path=str(SCREENSHOTS / "admin_corpora.png"))
    with SERVER_LOCK:
        corpus = Corpus.objects.get(name="RTE-2 dev")

    page.goto(f"{live_server.url}/corpora/{corpus.pk}/")
    assert "800" in page.inner_text("#tiles")
    assert page.locator("#length-chart svg rect.bar").count() > 0
    page.screenshot(path=str(SCREENSHOTS / "admin_corpus_overview.png"), full_page=True)

    page.goto(f"{live_server.url}/corpora/{corpus.pk}/pairs/?q=FMLN")
    page.wait_for_selector("#pairs-table tbody tr")
    assert "FMLN" in page.inner_text("#pairs-table tbody")
    page.screenshot(path=str(SCREENSHOTS / "admin_corpus_pairs.png"))

    page.goto(f"{live_server.url}/corpora/{corpus.pk}/agreement/")
    assert page.locator("#run-annotators input:checked").count() == 3  # A, B and C
    page.fill("#run-samples", str(SAMPLES))
    page.fill("#run-seed", str(SEED))
    page.set_default_timeout(300_000)  # the job runs inside the request here
    with page.expect_navigation():
        page.click("#run-submit")
    page.set_default_timeout(10_000)
    page.wait_for_selector("#reports-table .badge.succeeded")
    page.wait_for_selector("#table3 table.paper")
    page.wait_for_selector("#figure4 svg polyline")
    reason = page.inner_text("#chance-reason")
    assert "no annotated pair has a prefill" in reason  # the RTE-2 files carry none
    page.screenshot(path=str(SCREENSHOTS / "admin_agreement_report.png"), full_page=True)

    output = tmp_path / "report.json"
    call_command(
        "agreement_report",
        corpus="RTE-2 dev",
        annotators=["A", "B", "C"],
        samples=SAMPLES,
        seed=SEED,
        output=output,
    )
    expected = json.loads(output.read_text())
    overall = expected["annotator_pairs"][0]["table3"]["overall"]
    table3 = page.inner_text("#table3")
    assert f"{100 * overall['poss']['f1']:.1f}%" in table3
    assert f"{overall['c_hat']['poss']['c_hat']:.3f}" in table3
    used = overall["c_hat"]["poss"]["pairs_used"]
    assert f"over {used:,} of {overall['pairs']:,} pairs" in table3
    kappa = expected["standard"]["overall"]["fleiss_kappa"]["value"]
    standard = page.inner_text("#standard")
    assert f"{kappa:.3f}" in standard and "Fleiss" in standard
    assert f"{expected['standard']['overall']['n_items']:,}" in standard
    assert "95% CI" in standard

    page.click("#disagreements a")
    page.wait_for_selector("#grid td.ov")  # the annotators' layers over the gold
    assert page.locator("#grid td.ov").count() > 0
    page.screenshot(path=str(SCREENSHOTS / "admin_disagreement.png"))

    with SERVER_LOCK:  # a job waiting for a worker (the broker holds it)
        from config.celery import app

        app.conf.task_always_eager = False
        from annotate.services.agreement import agreement_job_create

        queued = agreement_job_create(corpus=corpus, annotators=["A", "B"], samples=10)
    page.goto(f"{live_server.url}/jobs/")
    row = page.locator(f"tr[data-job='{queued.pk}']")
    page.once("dialog", lambda dialog: dialog.accept())  # "Cancel job #…?"
    row.locator("button", has_text="Cancel").click()
    page.wait_for_selector(f"tr[data-job='{queued.pk}'] .badge.cancelled")
    page.screenshot(path=str(SCREENSHOTS / "admin_jobs.png"))
    with SERVER_LOCK:
        assert Job.objects.get(pk=queued.pk).status == Job.Status.CANCELLED
    assert page.js_errors == []


def test_the_jobs_table_shows_its_cancel_buttons_and_errors_on_a_laptop_screen(
    page_for: Any, live_server: Any, admin: Any
) -> None:
    with SERVER_LOCK:
        corpus = Corpus.objects.create(name="sample")
        options = {"annotators": ["alice", "bob"], "samples": 100000, "chunks": 4}
        Job.objects.create(
            kind="agreement_report",
            corpus=corpus,
            owner=admin,
            status=Job.Status.RUNNING,
            parameters=options,
            message="fitting edit models on 5 pairs (prefill chance model)",
        )
        Job.objects.create(
            kind="train_scorer",
            corpus=corpus,
            owner=admin,
            status=Job.Status.FAILED,
            parameters={"kind": "pfsm", "train_split": "nosuch", "target": "gold_score"},
            error="corpus “sample” has no pairs in split 'nosuch' with a gold score",
        )
    page = page_for(admin, viewport=(1280, 800))
    page.goto(f"{live_server.url}/jobs/")
    hidden = page.locator("#jobs-table").evaluate(
        "table => { const wrap = table.closest('.table-wrap');"
        " return wrap.scrollWidth - wrap.clientWidth; }"
    )
    assert hidden <= 0, f"the jobs table is {hidden}px wider than its box"
    cancel = page.get_by_role("button", name="Cancel").bounding_box()
    assert cancel["x"] + cancel["width"] <= 1280
    page.screenshot(path=str(SCREENSHOTS / "jobs_laptop.png"))
    assert page.js_errors == []


def test_the_home_page_s_recent_jobs_show_a_long_error_whole_on_a_laptop_screen(
    page_for: Any, live_server: Any, admin: Any
) -> None:
    errors = [
        "pairs_with_a_very_long_file_name_without_any_spaces_in_it_at_all_2026_11_27.jsonl "
        "could not be read",
        'pairs.jsonl, line 17, field "annotations": annotator name "someone_rather_long" '
        'differs from the existing user "Someone_Rather_Long" only in case or look-alike '
        "characters; write that name to attribute the work to them (nothing was imported)",
    ]
    with SERVER_LOCK:
        for error in errors:
            Job.objects.create(
                kind="corpus_import", owner=admin, status=Job.Status.FAILED, error=error
            )
    page = page_for(admin, viewport=(1280, 800))
    page.goto(f"{live_server.url}/")
    shown = page.locator("#jobs-table .errors-inline")
    assert sorted(shown.all_inner_texts()) == sorted(errors)  # whole, not cut
    for k in range(shown.count()):
        cell = shown.nth(k).locator("xpath=ancestor::td")
        hidden = cell.evaluate("td => td.scrollWidth - td.clientWidth")
        assert hidden <= 0, f"error {k} runs {hidden}px past its cell"
        box = shown.nth(k).bounding_box()
        assert box["x"] + box["width"] <= 1280
    wrap = page.locator("#jobs-table").evaluate(
        "table => { const wrap = table.closest('.table-wrap');"
        " return wrap.scrollWidth - wrap.clientWidth; }"
    )
    assert wrap <= 0
    page.locator("#jobs-title").scroll_into_view_if_needed()
    page.screenshot(path=str(SCREENSHOTS / "home_jobs_long_errors.png"))
    assert page.js_errors == []
