"""The corpus tabs with work in them (a prefill run, a plan, an agreement report, an export), in
headless chromium at a laptop's 1280×800 and on a large screen: nothing wider than the window,
no script error, Figure 4 drawn with three series that differ in colour, dash and marker, and a
screenshot of each to look at."""

from __future__ import annotations

from typing import Any

import pytest

from annotate import jobs_runtime as jobs
from annotate import roles
from annotate.models import Corpus, Job
from annotate.services.agreement import agreement_job_create
from annotate.services.assignments import PlanSelection, assignments_plan_job_create
from annotate.services.corpora import corpus_import_records
from annotate.services.exports import export_job_create
from annotate.services.prefill import prefill_job_create
from tests.annotate.agreement_data import agreement_records
from tests.annotate.factories import make_user
from tests.frontend.conftest import SCREENSHOTS

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

SIZES = {"laptop": (1280, 800), "large": (1920, 1080)}
TABS = {"overview": "", "prefill": "prefill/", "assignments": "assignments/"}
TABS |= {"agreement": "agreement/", "export": "export/"}


@pytest.fixture
def corpus(eager_jobs: Any, fast_passwords: None, settings: Any, tmp_path: Any) -> Corpus:
    settings.EXPORT_DIR = tmp_path / "exports"
    corpus_import_records(corpus_name="campaign", records=agreement_records(pairs=40))
    corpus = Corpus.objects.get(name="campaign")
    for name in ("alice", "bob"):
        make_user(name, roles.ANNOTATOR, password="a-long-Password-1")
    queued = [
        prefill_job_create(corpus=corpus, aligner="identity"),
        assignments_plan_job_create(
            corpus=corpus,
            annotators=["alice", "bob"],
            per_pair=2,
            seed=1,
            selection=PlanSelection(subcorpus="news", batch=10),
        ),
        agreement_job_create(corpus=corpus, annotators=["ann1", "ann2"], samples=20, seed=3),
        export_job_create(corpus=corpus, format_name="jsonl", which="all"),
    ]
    for job in queued:
        if Job.objects.get(pk=job.pk).status == Job.Status.PENDING:
            jobs.job_run(job_id=job.pk, worker="here")
    assert set(Job.objects.values_list("status", flat=True)) == {Job.Status.SUCCEEDED}
    return corpus


@pytest.mark.parametrize("size", SIZES)
def test_every_corpus_tab_with_work_in_it_fits_the_window(
    page_for: Any, live_server: Any, corpus: Corpus, size: str
) -> None:
    page = page_for(make_user("admin", roles.ADMIN), viewport=SIZES[size])
    for name, path in TABS.items():
        page.goto(f"{live_server.url}/corpora/{corpus.pk}/{path}")
        page.wait_for_load_state("networkidle")
        overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 0, f"{name} is {overflow}px wider than a {size} window"
        page.screenshot(path=str(SCREENSHOTS / f"tabs_{size}_{name}.png"), full_page=True)
    page.goto(f"{live_server.url}/corpora/{corpus.pk}/agreement/")
    figure = page.locator("#figure4")
    figure.scroll_into_view_if_needed()
    figure.screenshot(path=str(SCREENSHOTS / f"tabs_{size}_figure4.png"))
    assert page.js_errors == []


def test_figure_4_tells_its_series_apart_by_colour_dash_and_marker(
    page_for: Any, live_server: Any, corpus: Corpus
) -> None:
    page = page_for(make_user("admin", roles.ADMIN), viewport=(1280, 800))
    page.goto(f"{live_server.url}/corpora/{corpus.pk}/agreement/")
    series = page.locator("#figure4 svg [data-series]")
    assert series.count() == 3
    styles = page.evaluate(
        """() => [...document.querySelectorAll('#figure4 svg [data-series]')].map((g) => {
            const line = g.querySelector('polyline');
            const dot = g.querySelector('.dot');
            const style = getComputedStyle(line);
            const shape = dot.tagName + (dot.getAttribute('points') || '');
            return [style.stroke, style.strokeDasharray, shape];
        })"""
    )
    assert len({stroke for stroke, _, _ in styles}) == 3, styles
    assert len({dash for _, dash, _ in styles}) == 2, styles  # π̂0 dashed
    assert len({marker for _, _, marker in styles}) == 3, styles
    legend = page.inner_text("#figure4 .chart-legend")
    assert "π̂ observed" in legend and "π̂0 chance" in legend and "Ĉ chance-corrected" in legend
    assert page.locator("#figure4 svg text.axis-label").count() == 2
    assert page.js_errors == []
