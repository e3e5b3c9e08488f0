"""The corpus admin's jobs from the browser on real services: PostgreSQL, a real broker and a
Celery worker process (run by ``make test-integration``). Prefill, agreement report and export
each go from the button through the broker to the worker, with the page's progress bar
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

    page.goto(f"{live_server.url}/corpora/{corpus.pk}/prefill/")
    page.wait_for_selector("#prefill-options .field", state="attached")
    page.select_option("#prefill-aligner", "em")
    page.click("#prefill-submit")
    page.wait_for_selector("#prefill-job .badge.succeeded")
    assert page.get_attribute("#prefill-job [role=progressbar]", "aria-valuenow") == "100"

    page.goto(f"{live_server.url}/corpora/{corpus.pk}/agreement/")
    page.wait_for_selector("#run-annotators input")
    page.fill("#run-samples", "50")
    page.select_option("#run-chance", "prefill")
    page.click("#run-submit")
    page.wait_for_selector("#run-job .badge.succeeded, #run-job .badge.failed")
    report = Job.objects.filter(kind="agreement_report").get()
    assert report.status == "succeeded", (report.error, Path(worker.log_path).read_text()[-3000:])
    page.wait_for_selector("#table4 table.paper")
    page.screenshot(path=str(SCREENSHOTS / "admin_agreement_real_worker.png"), full_page=True)

    page.goto(f"{live_server.url}/corpora/{corpus.pk}/export/")
    page.wait_for_selector("#export-formats input")
    page.check("input[name=format][value=phrases]")
    page.click("#export-submit")
    page.wait_for_selector("#export-ready a")
    with page.expect_download() as download:
        page.click("#export-ready a")
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
