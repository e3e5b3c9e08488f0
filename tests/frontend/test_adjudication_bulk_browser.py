"""In headless chromium: an adjudicator presses "Accept N agreed pairs" on the filtered
adjudication list, confirms the dialog that states the criterion and the count, and sees the
job's result arrive in the live section and the list's rows turn adjudicated; Undo sends them
back."""

from __future__ import annotations

from typing import Any

import pytest

from annotate import jobs_runtime as jobs
from annotate import roles
from annotate.models import GoldAlignment, GoldEvent, Job, SentencePair
from annotate.selectors.adjudication import AdjudicationFilters
from annotate.services.adjudication_bulk import adjudication_accept_job_create
from annotate.services.corpora import corpus_import_records
from tests.annotate.factories import make_user
from tests.annotate.records import make_record
from tests.frontend.conftest import SCREENSHOTS, SERVER_LOCK

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _world() -> None:
    records = [
        make_record(
            f"agreed-{k}",
            "the cat sat on the mat",
            "a cat sat on a mat",
            prefill=None,
            annotations={"A": "1-1 2-2 5?5", "B": "1-1 2-2 5?5"},
        )
        for k in range(3)
    ]
    records.append(
        make_record(
            "differs",
            "the cat sat on the mat",
            "a cat sat on a mat",
            prefill=None,
            annotations={"A": "1-1 2-2", "B": "1-1 2?2"},
        )
    )
    records.append(
        make_record(
            "elsewhere",
            "the cat sat on the mat",
            "a cat sat on a mat",
            prefill=None,
            annotations={"A": "1-1", "B": "1-1"},
            subcorpus="mtc",
        )
    )
    corpus_import_records(corpus_name="bulk", records=records)


def _run_last(kind: str) -> int:
    with SERVER_LOCK:
        job = Job.objects.filter(kind=kind).latest("pk")
        assert job.status == Job.Status.PENDING  # no worker here: run it as one would
        jobs.job_run(job_id=job.pk, worker="here")
        return job.pk


def test_the_button_accepts_the_agreed_pairs_of_the_filtered_list(
    page_for: Any, live_server: Any
) -> None:
    _world()
    page = page_for(make_user("carol", roles.ADJUDICATOR), viewport=(1280, 900))
    page.goto(f"{live_server.url}/adjudication/?subcorpus=news")
    button = page.locator("#bulk-submit")
    assert button.inner_text() == "Accept 3 agreed pairs"
    questions: list[str] = []

    def answer(dialog: Any) -> None:
        questions.append(dialog.message)
        dialog.accept()

    page.on("dialog", answer)
    button.focus()  # keyboard reachable
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert questions and questions[0].startswith("Accept the majority as the gold of 3 pairs")
    assert "every annotator made the same alignment" in questions[0]
    notice = page.locator(".messages [data-notice-job]")
    assert "Bulk accept" in notice.inner_text() and "queued" in notice.inner_text()
    assert page.url.endswith("/adjudication/?subcorpus=news")
    job = _run_last("adjudication_accept")
    result = page.locator(f"#bulk-jobs li[data-job='{job}'] .bulk-result")
    result.wait_for(timeout=15_000)
    assert result.inner_text() == "Accepted 3 of 3 pairs."
    page.wait_for_selector(f".messages li:text-is('Bulk accept #{job} succeeded.')")
    page.wait_for_selector("#adj-table .badge.adjudicated >> nth=2", timeout=15_000)
    assert page.locator("#bulk-none").is_visible()
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / "adjudication_bulk_accept.png"), full_page=True)
    with SERVER_LOCK:
        golds = GoldAlignment.objects.filter(source="adjudicated")
        assert sorted(golds.values_list("pair__external_id", flat=True)) == [
            "agreed-0",
            "agreed-1",
            "agreed-2",
        ]
        assert set(GoldEvent.objects.values_list("job_id", flat=True)) == {job}
        first = golds.order_by("pair_id").first().pair_id
    # the pair's own history names the job, and the gold is cleared there the normal way
    page.goto(f"{live_server.url}/adjudicate/{first}/?subcorpus=news")
    page.wait_for_selector(f"#history li:has-text('v1 carol (job #{job})')")
    page.go_back()
    # Undo, from the keyboard too
    page.locator(f"#bulk-undo-{job}").focus()
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert questions[-1].startswith(f"Send the pairs bulk accept #{job} accepted back")
    undo = _run_last("adjudication_accept_undo")
    page.locator(f"#bulk-jobs li[data-job='{undo}'] .bulk-result").wait_for(timeout=15_000)
    assert "Sent 3 of 3 golds back to waiting." in page.inner_text(f"li[data-job='{undo}']")
    with SERVER_LOCK:
        assert not GoldAlignment.objects.exists()
    assert page.js_errors == []


def test_a_page_open_during_a_bulk_accept_says_the_job_accepted_the_gold(
    page_for: Any, live_server: Any
) -> None:
    _world()
    carol = make_user("carol", roles.ADJUDICATOR)
    page = page_for(make_user("dave", roles.ADJUDICATOR), viewport=(1280, 900))
    with SERVER_LOCK:
        pair = SentencePair.objects.get(external_id="agreed-0")
    page.goto(f"{live_server.url}/adjudicate/{pair.pk}/")
    page.wait_for_selector("#adjudication[data-ready=true]")
    with SERVER_LOCK:
        # the bulk accept carol started, run as a worker would
        accept = adjudication_accept_job_create(filters=AdjudicationFilters(), owner=carol)
        jobs.job_run(job_id=accept.pk, worker="here")
    page.locator("#grid tbody tr:nth-child(1) td:nth-child(2)").click()  # dave edits version 0
    notice = page.locator("#conflict")
    notice.wait_for(state="visible")
    text = notice.inner_text()
    assert f"version 1 was accepted in bulk by carol (job #{accept.pk})" in text, text
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / "adjudication_bulk_conflict.png"), full_page=True)
    assert page.js_errors == []
