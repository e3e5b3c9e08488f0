"""The agreement report's Download CSV link, clicked in headless chromium: the file downloads
and parses as the report's CSV (``?format=csv`` was taken by DRF's format choice: 404)."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

import pytest

from annotate import roles
from annotate.models import Corpus, Job
from annotate.services.corpora import corpus_import_records
from scoring.alignment.agreement import AgreementParams
from scoring.alignment.reports import build_report
from tests.annotate.agreement_data import agreement_records
from tests.annotate.factories import make_user
from tests.frontend.conftest import SCREENSHOTS

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_download_csv_saves_the_report_as_csv(page_for: Any, live_server: Any) -> None:
    records = agreement_records(8)
    corpus_import_records(corpus_name="agree", records=records)
    corpus = Corpus.objects.get(name="agree")
    report = build_report(records, ["ann1", "ann2"], params=AgreementParams(samples=5, seed=2))
    admin = make_user("root", roles.ADMIN)
    job = Job.objects.create(
        kind="agreement_report",
        status=Job.Status.SUCCEEDED,
        corpus=corpus,
        owner=admin,
        seed=2,
        parameters={"annotators": ["ann1", "ann2"], "samples": 5},
        result=json.loads(json.dumps(report.to_dict())),
    )
    page = page_for(admin)
    page.goto(f"{live_server.url}/corpora/{corpus.pk}/agreement/?report={job.pk}")
    link = page.get_by_role("link", name="Download CSV")
    link.wait_for()
    with page.expect_download() as caught:
        link.click()
    download = caught.value
    assert download.suggested_filename == f"agreement_report-{job.pk}.csv"
    text = Path(download.path()).read_text(encoding="utf-8")
    rows = list(csv.DictReader(io.StringIO(text)))
    assert {row["table"] for row in rows} >= {"table3", "table4", "figure4", "table5"}
    assert {(row["candidate"], row["reference"]) for row in rows if row["table"] == "table3"} == {
        ("ann1", "ann2")
    }
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / "agreement_download.png"))
    assert page.js_errors == []
