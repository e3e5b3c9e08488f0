"""In headless chromium: when a job a page follows ends, the parts of the page that depend on it
are fetched again (the agreement report, the prefill's figures, the assignment forms, the model
to score with) unless the user has started editing them, and the "queued" message about the job
says how it ended."""

from __future__ import annotations

from typing import Any

import pytest

from annotate import jobs_runtime as jobs
from annotate import roles
from annotate.models import Corpus, Job, ScorerModel
from annotate.services.corpora import corpus_import_records
from tests.annotate.agreement_data import agreement_records
from tests.annotate.factories import make_user
from tests.frontend.conftest import SCREENSHOTS, SERVER_LOCK

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def corpus() -> Corpus:
    corpus_import_records(corpus_name="live", records=agreement_records(pairs=12))
    return Corpus.objects.get(name="live")


@pytest.fixture
def admin() -> Any:
    return make_user("admin", roles.ADMIN)


def _queue(page: Any, submit: str) -> int:
    """Post a page's form; the job it queued stays pending (no worker runs here)."""
    with page.expect_navigation():
        page.click(submit)
    notice = page.locator(".messages [data-notice-job]")
    assert "queued" in notice.inner_text()
    job = int(notice.get_attribute("data-notice-job"))
    with SERVER_LOCK:
        assert Job.objects.get(pk=job).status == Job.Status.PENDING
    return job


def _run(request: pytest.FixtureRequest, job: int) -> None:
    """Run a queued job here, as a worker would, its chunks inline."""
    request.getfixturevalue("eager_jobs")
    with SERVER_LOCK:
        jobs.job_run(job_id=job, worker="here")
        assert Job.objects.get(pk=job).status == Job.Status.SUCCEEDED


def _ended(page: Any, text: str) -> None:
    page.wait_for_selector(f".messages li:text-is('{text}')", timeout=15_000)
    assert page.locator(".messages [data-notice-job]").count() == 0


def test_a_finished_report_appears_below_and_its_message_says_it_succeeded(
    page_for: Any, live_server: Any, admin: Any, corpus: Corpus, request: pytest.FixtureRequest
) -> None:
    page = page_for(admin, viewport=(1280, 800))
    page.goto(f"{live_server.url}/corpora/{corpus.pk}/agreement/")
    page.fill("#run-samples", "20")
    job = _queue(page, "#run-submit")
    assert page.locator("#report").count() == 0
    page.wait_for_selector(f"#reports-table tr[data-job='{job}'][data-job-status=pending]")
    _run(request, job)
    page.wait_for_selector(f"#report-title:text-is('Report #{job}')", timeout=15_000)
    _ended(page, f"Report #{job} succeeded.")
    assert page.locator("#figure4 svg [data-series]").count() == 3
    page.screenshot(path=str(SCREENSHOTS / "live_report_finished.png"), full_page=True)
    assert page.js_errors == []


def test_a_finished_prefill_updates_the_figures_above_its_runs(
    page_for: Any, live_server: Any, admin: Any, request: pytest.FixtureRequest
) -> None:
    records = agreement_records(pairs=6)
    for record in records:
        record.prefill = None
    with SERVER_LOCK:
        corpus_import_records(corpus_name="bare", records=records)
        corpus = Corpus.objects.get(name="bare")
    page = page_for(admin, viewport=(1280, 800))
    page.goto(f"{live_server.url}/corpora/{corpus.pk}/prefill/?aligner=identity")
    prefilled = page.locator("#prefill-tiles .count").first
    assert " ".join(prefilled.inner_text().split()) == "0 of 6 pairs prefilled"
    job = _queue(page, "#prefill-submit")
    _run(request, job)
    page.wait_for_selector("#prefill-tiles .count:first-child b:text-is('6')", timeout=15_000)
    assert " ".join(prefilled.inner_text().split()) == "6 of 6 pairs prefilled"
    _ended(page, f"Prefill #{job} succeeded.")
    page.screenshot(path=str(SCREENSHOTS / "live_prefill_finished.png"), full_page=True)
    assert page.js_errors == []


def test_a_finished_plan_brings_its_people_to_the_hand_over_form_and_leaves_an_edited_form(
    page_for: Any, live_server: Any, admin: Any, corpus: Corpus, request: pytest.FixtureRequest
) -> None:
    with SERVER_LOCK:
        for name in ("alice", "bob"):
            make_user(name, roles.ANNOTATOR, password="a-long-Password-1")
    page = page_for(admin, viewport=(1280, 800))
    page.goto(f"{live_server.url}/corpora/{corpus.pk}/assignments/")
    assert page.locator("#handover-from option[value=alice]").count() == 0  # no work yet
    page.fill("#plan-per_pair", "2")
    job = _queue(page, "#plan-submit")
    page.fill("#plan-seed", "12345")  # the user starts on the next plan
    _run(request, job)
    page.wait_for_selector("#handover-from option[value=alice]", state="attached", timeout=15_000)
    _ended(page, f"Plan #{job} succeeded.")
    assert "alice (12 open)" in page.inner_text("#handover-from")
    assert page.input_value("#plan-seed") == "12345", "an edited form is not replaced"
    page.screenshot(path=str(SCREENSHOTS / "live_plan_finished.png"), full_page=True)
    assert page.js_errors == []


def test_a_finished_training_offers_its_model_to_score_with(
    page_for: Any, live_server: Any, admin: Any, corpus: Corpus
) -> None:
    with SERVER_LOCK:
        job = Job.objects.create(kind="train_scorer", corpus=corpus, owner=admin)
    page = page_for(admin, viewport=(1280, 800))
    page.goto(f"{live_server.url}/scorers/")
    page.wait_for_selector(f"#training-table tr[data-job='{job.pk}'][data-job-status=pending]")
    assert page.locator("#score-form").count() == 0  # no model yet
    with SERVER_LOCK:
        ScorerModel.objects.create(kind="perp", name="fresh", corpus=corpus, job=job)
        Job.objects.filter(pk=job.pk).update(
            status=Job.Status.SUCCEEDED, progress=100, result={"name": "fresh"}
        )
    page.wait_for_selector(
        "#score-form select option[value=fresh]", state="attached", timeout=15_000
    )
    assert "fresh" in page.inner_text("#scorer-table")
    assert page.js_errors == []


def test_a_queued_training_is_cancelled_from_its_row_on_the_scorers_page(
    page_for: Any, live_server: Any, admin: Any, corpus: Corpus
) -> None:
    with SERVER_LOCK:
        job = Job.objects.create(kind="train_scorer", corpus=corpus, owner=admin)
    page = page_for(admin, viewport=(1280, 800))
    page.goto(f"{live_server.url}/scorers/")
    row = page.locator(f"#training-table tr[data-job='{job.pk}']")
    page.once("dialog", lambda dialog: dialog.accept())  # "Cancel job #…?"
    row.locator("button", has_text="Cancel").click()
    page.wait_for_selector(f"#training-table tr[data-job='{job.pk}'][data-job-status=cancelled]")
    assert page.url.startswith(f"{live_server.url}/scorers/"), "back on the page it was pressed on"
    assert f"Job #{job.pk} cancelled." in page.inner_text("body")
    assert page.locator(f"#training-table tr[data-job='{job.pk}'] button").count() == 0
    page.screenshot(path=str(SCREENSHOTS / "scorers_training_cancelled.png"), full_page=True)
    with SERVER_LOCK:
        assert Job.objects.get(pk=job.pk).status == Job.Status.CANCELLED
    assert page.js_errors == []


def test_a_message_about_a_job_that_ended_before_the_page_loaded_says_so_at_once(
    page_for: Any, live_server: Any, admin: Any, corpus: Corpus, eager_jobs: Any
) -> None:
    page = page_for(admin, viewport=(1280, 800))
    page.goto(f"{live_server.url}/corpora/{corpus.pk}/export/")
    with page.expect_navigation():
        page.click("#export-submit")  # built inside the request
    with SERVER_LOCK:
        job = Job.objects.get(kind="export")
        assert job.status == Job.Status.SUCCEEDED
    assert page.inner_text(".messages") == f"Export #{job.pk} succeeded."
    assert page.js_errors == []


def test_a_tab_answering_a_refused_form_still_follows_its_jobs(
    page_for: Any, live_server: Any, admin: Any, corpus: Corpus, request: pytest.FixtureRequest
) -> None:
    page = page_for(admin, viewport=(1280, 800))
    page.goto(f"{live_server.url}/corpora/{corpus.pk}/agreement/")
    page.fill("#run-samples", "20")
    job = _queue(page, "#run-submit")
    page.fill("#run-samples", "0")
    with page.expect_navigation():
        page.click("#run-submit")
    # The form again, with its error, shown at the tab's address (posted to .../run/).
    assert page.evaluate("() => location.pathname").endswith("/agreement/")
    assert "greater than or equal to 1" in page.inner_text("#run-errors")
    _run(request, job)
    page.wait_for_selector(
        f"#reports-table tr[data-job='{job}'][data-job-status=succeeded]", timeout=15_000
    )
    page.wait_for_selector(f"#report-title:text-is('Report #{job}')", timeout=15_000)
    assert page.js_errors == []
