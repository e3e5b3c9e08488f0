"""The agreement report's Tables 3 and 4, side by side, in headless chromium at a laptop's
1280×800 and on a large screen: a corpus of three sub-corpora (as the sample corpus has) shows
every column, the overall one included, without scrolling inside the table."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from annotate import jobs_runtime as jobs
from annotate import roles
from annotate.models import Corpus, Job
from annotate.services.agreement import agreement_job_create
from annotate.services.corpora import corpus_import_records
from tests.annotate.agreement_data import agreement_records
from tests.annotate.factories import make_user
from tests.frontend.conftest import SCREENSHOTS

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

SIZES = {"laptop": (1280, 800), "large": (1920, 1080)}
SUBCORPORA = ("mtc", "news", "novels")


@pytest.fixture
def report(eager_jobs: Any, fast_passwords: None) -> Job:
    records = [
        dataclasses.replace(record, subcorpus=SUBCORPORA[index % 3])
        for index, record in enumerate(agreement_records(pairs=30))
    ]
    corpus_import_records(corpus_name="three", records=records)
    corpus = Corpus.objects.get(name="three")
    job = agreement_job_create(corpus=corpus, annotators=["ann1", "ann2"], samples=20, seed=3)
    if Job.objects.get(pk=job.pk).status == Job.Status.PENDING:
        jobs.job_run(job_id=job.pk, worker="here")
    return Job.objects.get(pk=job.pk)


@pytest.mark.parametrize("size", SIZES)
def test_tables_3_and_4_show_every_sub_corpus_and_the_overall_column_without_scrolling(
    page_for: Any, live_server: Any, report: Job, size: str
) -> None:
    assert report.status == Job.Status.SUCCEEDED
    page = page_for(make_user("admin", roles.ADMIN), viewport=SIZES[size])
    page.goto(f"{live_server.url}/corpora/{report.corpus_id}/agreement/?report={report.pk}")
    for card in ("#table3", "#table4"):
        heads = page.locator(f"{card} thead th").all_inner_texts()
        assert [head.split(" ")[0] for head in heads[1:]] == [*SUBCORPORA, "Overall"]
        hidden = page.evaluate(
            "(card) => { const box = document.querySelector(`${card} .table-scroll`);"
            " return box.scrollWidth - box.clientWidth; }",
            card,
        )
        assert hidden <= 0, f"{card} hides {hidden}px of its columns in a {size} window"
    page.locator("#table3").screenshot(path=str(SCREENSHOTS / f"agreement_tables_{size}.png"))
    assert page.js_errors == []
