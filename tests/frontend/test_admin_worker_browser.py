"""The corpus admin's jobs from the browser on real services: PostgreSQL, a real broker and a
Celery worker process (run by ``make test-integration``). Prefill, agreement report and export
each go from the button through the broker to the worker, with the page's list of jobs
following the job to its end."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from annotate import roles
from annotate.models import Corpus, Job
from annotate.services.corpora import corpus_import_records
from tests.annotate.agreement_data import agreement_records
from tests.annotate.factories import make_user
from tests.frontend.conftest import SCREENSHOTS
from tests.integration.conftest import broker_urls, start_worker  # noqa: F401

pytestmark = [pytest.mark.integration, pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_prefill_agreement_and_export_run_on_a_real_worker(
    page_for: Any,
    live_server: Any,
    start_worker: Any,  # noqa: F811
    settings: Any,
    tmp_path: Path,
) -> None:
    settings.EXPORT_DIR = tmp_path / "var" / "exports"  # where the worker writes (its VAR_DIR)
    records = agreement_records(pairs=30)
    for record in records:
        record.prefill = None  # imported annotations only: the prefill comes from the page
    corpus_import_records(corpus_name="itest", records=records)
    corpus = Corpus.objects.get(name="itest")
    worker = start_worker(broker_urls()[0])
    page = page_for(make_user("admin", roles.ADMIN), viewport=(1280, 800))
    page.set_default_timeout(120_000)

    page.goto(f"{live_server.url}/corpora/{corpus.pk}/prefill/?aligner=em")
    with page.expect_navigation():
        page.click("#prefill-submit")
    # the runs' list refreshes itself until the worker is done
    page.wait_for_selector("#runs-table tbody tr .badge.succeeded")

    page.goto(f"{live_server.url}/corpora/{corpus.pk}/agreement/")
    page.fill("#run-samples", "50")
    page.select_option("#run-chance_model", "prefill")
    with page.expect_navigation():
        page.click("#run-submit")
    page.wait_for_selector("#reports-table .badge.succeeded, #reports-table .badge.failed")
    report = Job.objects.filter(kind="agreement_report").get()
    assert report.status == "succeeded", (report.error, Path(worker.log_path).read_text()[-3000:])
    page.click(f"#reports-table a[href='?report={report.pk}']")
    page.wait_for_selector("#table4 table.paper")
    # the prefill came after the imported annotations: the model was asked for, with a warning
    assert "made without the prefill" in page.inner_text("#chance-reason")
    page.screenshot(path=str(SCREENSHOTS / "admin_agreement_real_worker.png"), full_page=True)

    page.goto(f"{live_server.url}/corpora/{corpus.pk}/export/")
    page.check("input[name=format][value=phrases]")
    with page.expect_navigation():
        page.click("#export-submit")
    link = page.locator("#exports-table tbody tr").first.locator("a[download]")
    link.wait_for()
    with page.expect_download() as download:
        link.click()
    saved = tmp_path / "phrases.tsv"
    download.value.save_as(saved)
    assert saved.read_text(encoding="utf-8").startswith("source\ttarget\tatomic")

    jobs = Job.objects.filter(corpus=corpus).order_by("pk")
    assert [(j.kind, j.status) for j in jobs] == [
        ("prefill", "succeeded"),
        ("agreement_report", "succeeded"),
        ("export", "succeeded"),
    ]
    assert all(j.worker.startswith("itest0@") for j in jobs), [j.worker for j in jobs]
    assert jobs[1].result["signature"]["chance_model"] == "prefill"
    assert worker.poll() is None
    assert page.js_errors == []
