"""The jobs page, rendered on the server: filters, sort, pages, the live fragment, cancelling."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone

from annotate import roles
from annotate.jobs_runtime import WAITING
from annotate.models import Job, WorkerHeartbeat
from annotate.services.workers import worker_heartbeat_beat
from frontend.pages.jobs import Parameter, job_parameters
from tests.annotate.factories import make_corpus, make_user

pytestmark = pytest.mark.django_db


def _job(**fields: Any) -> Job:
    fields.setdefault("kind", "corpus_stats")
    fields.setdefault("status", Job.Status.SUCCEEDED)
    return Job.objects.create(**fields)


def _job_rows(html: str) -> list[int]:
    return [int(found) for found in re.findall(r'data-job="(\d+)"', html)]


def test_it_lists_jobs_newest_first_with_their_parameters(admin_client: Client) -> None:
    corpus = make_corpus("rte")
    old = _job(corpus=corpus, parameters={"aligner": "em"}, seed=7)
    new = _job(kind="export", parameters={"format": "pharaoh"})
    html = admin_client.get("/jobs/").content.decode()
    assert _job_rows(html) == [new.pk, old.pk]
    assert re.search(r'data-parameter="aligner"><span class="muted">aligner:</span> em<', html)
    assert re.search(r'data-parameter="seed"><span class="muted">seed:</span> 7<', html)
    assert f'href="/corpora/{corpus.pk}/"' in html


def test_the_kind_and_status_filters_narrow_the_list_on_the_server(admin_client: Client) -> None:
    stats = _job(kind="corpus_stats", status=Job.Status.FAILED, error="no pairs")
    _job(kind="export")
    _job(kind="corpus_stats", status=Job.Status.SUCCEEDED)
    html = admin_client.get("/jobs/?kind=corpus_stats&status=failed").content.decode()
    assert _job_rows(html) == [stats.pk]
    assert "no pairs" in html


def test_filters_that_match_no_job_say_so_and_offer_to_clear_them(admin_client: Client) -> None:
    _job(kind="export")
    html = admin_client.get("/jobs/?kind=corpus_stats&status=failed").content.decode()
    assert _job_rows(html) == []
    assert "No job matches" in html and "Change or clear the filters." in html
    assert "Jobs appear here when" not in html  # there are jobs: the filters hide them
    assert re.search(r'<a class="btn" href="/jobs/">Clear</a>', html)
    unfiltered = admin_client.get("/jobs/").content.decode()
    assert ">Clear</a>" not in unfiltered


def test_no_job_at_all_says_when_jobs_appear(admin_client: Client) -> None:
    html = admin_client.get("/jobs/").content.decode()
    assert "No job yet" in html and "Jobs appear here when" in html


def test_a_column_sorts_both_ways_and_an_unknown_sort_falls_back(admin_client: Client) -> None:
    export = _job(kind="export")
    stats = _job(kind="corpus_stats")
    by_kind = admin_client.get("/jobs/?sort=kind").content.decode()
    by_kind_reversed = admin_client.get("/jobs/?sort=-kind").content.decode()
    assert _job_rows(by_kind) == [stats.pk, export.pk]
    assert _job_rows(by_kind_reversed) == [export.pk, stats.pk]
    fallback = admin_client.get("/jobs/?sort=parameters")
    assert fallback.status_code == 200
    assert _job_rows(fallback.content.decode()) == [stats.pk, export.pk]


def test_it_pages_fifty_rows_at_a_time_with_a_total(admin_client: Client) -> None:
    jobs = [_job() for _ in range(53)]
    first = admin_client.get("/jobs/").content.decode()
    second = admin_client.get("/jobs/?page=2").content.decode()
    assert len(_job_rows(first)) == 50
    assert _job_rows(second) == [job.pk for job in jobs[:3]][::-1]
    assert "51–53 of 53 jobs" in second
    assert 'rel="prev" href="?page=1"' in second


def test_the_live_fragment_is_the_table_alone_and_live_while_a_job_runs(
    admin_client: Client,
) -> None:
    running = _job(status=Job.Status.RUNNING, progress=40, message="Monte Carlo")
    html = admin_client.get("/jobs/?fragment=jobs").content.decode()
    assert html.lstrip().startswith('<section data-fragment="jobs" data-live')
    assert "<html" not in html
    assert _job_rows(html) == [running.pk]
    assert "Monte Carlo" in html
    Job.objects.filter(pk=running.pk).update(status=Job.Status.SUCCEEDED)
    html = admin_client.get("/jobs/?fragment=jobs").content.decode()
    assert "data-live" not in html


def test_an_admin_cancels_a_running_job_and_goes_back_to_the_list(admin_client: Client) -> None:
    job = _job(status=Job.Status.RUNNING)
    response = admin_client.post(f"/jobs/{job.pk}/cancel/", {"next": "/jobs/?status=running"})
    assert response.status_code == 302
    assert response["Location"] == "/jobs/?status=running"
    job.refresh_from_db()
    assert job.status == Job.Status.CANCELLED
    assert f"Job #{job.pk} cancelled." in admin_client.get("/jobs/").content.decode()


@pytest.mark.parametrize("elsewhere", ["²", "-1", "job-list", "jobs/", "x\x00y"])
def test_a_next_that_is_no_absolute_path_goes_back_to_the_list(
    admin_client: Client, elsewhere: str
) -> None:
    # redirect() reads a text without a slash or a dot as a view's name: these were 500s
    job = _job(status=Job.Status.RUNNING)
    response = admin_client.post(f"/jobs/{job.pk}/cancel/", {"next": elsewhere})
    assert (response.status_code, response["Location"]) == (302, "/jobs/")
    job.refresh_from_db()
    assert job.status == Job.Status.CANCELLED


def test_cancelling_a_finished_job_says_why_and_changes_nothing(admin_client: Client) -> None:
    job = _job(status=Job.Status.SUCCEEDED)
    elsewhere = {"next": "https://evil.example/"}
    page = admin_client.post(f"/jobs/{job.pk}/cancel/", elsewhere, follow=True)
    assert page.redirect_chain == [("/jobs/", 302)]
    assert "is succeeded; only a queued or running job can stop" in page.content.decode()
    job.refresh_from_db()
    assert job.status == Job.Status.SUCCEEDED


@pytest.mark.parametrize(
    ("role", "expected"), [(roles.ANNOTATOR, 403), (roles.ADJUDICATOR, 403), (roles.ADMIN, 302)]
)
def test_only_admins_cancel_from_the_page(role: str, expected: int) -> None:
    job = _job(status=Job.Status.RUNNING)
    client = Client()
    client.force_login(make_user("someone", role))
    assert client.post(f"/jobs/{job.pk}/cancel/").status_code == expected
    assert Client().post(f"/jobs/{job.pk}/cancel/").status_code == 302  # to the login page
    job.refresh_from_db()
    assert job.status == (Job.Status.CANCELLED if role == roles.ADMIN else Job.Status.RUNNING)


def test_each_finished_job_links_to_what_it_made(admin_client: Client) -> None:
    corpus = make_corpus("rte")
    report = _job(kind="agreement_report", corpus=corpus, result={"overall": {}})
    export = _job(kind="export", corpus=corpus, result={"file": "x.jsonl"})
    stats = _job(kind="corpus_stats", corpus=corpus, result={"pairs": 3})
    html = admin_client.get("/jobs/").content.decode()
    assert f'href="/corpora/{corpus.pk}/agreement/?report={report.pk}">open report' in html
    assert f'href="/api/jobs/{export.pk}/download/" download>download file' in html
    assert f'href="/api/jobs/{stats.pk}/result/">JSON' in html


# in the order PostgreSQL's jsonb gives them back (shortest key first); shown by name
EDIT_MODELS = {
    "bob": {"possible": [0.04824858079081039, -0.0011662270105410328, 33]},
    "alice": {"possible": [0.05810365156333794, -0.0015353875024009115, 33]},
}


def test_parameters_read_as_key_and_value_with_floats_rounded_and_nested_values_summarised() -> (
    None
):
    job = Job(
        kind="agreement_report",
        parameters={
            "samples": 1000,
            "annotators": ["alice", "bob"],
            "subcorpora": [],
            "exact": True,
            "rate": 0.123456789,
            "edit_models": EDIT_MODELS,
            "reason": "every annotated pair has a prefill, and every annotation started from it",
        },
        seed=3,
    )
    shown = {item.name: item for item in job_parameters(job)}
    # by name whatever order the database gives an object's keys (jsonb: shortest first)
    assert list(shown) == [
        "annotators",
        "edit_models",
        "exact",
        "rate",
        "reason",
        "samples",
        "seed",
    ]
    assert shown["annotators"] == Parameter("annotators", "alice, bob")
    assert shown["samples"].text == "1000" and shown["exact"].text == "yes"
    assert shown["rate"].text == "0.1235"
    models = shown["edit_models"]
    assert models.text == "alice, bob: …"
    assert models.full == (
        "alice: {possible: [0.0581, -0.001535, 33]}\nbob: {possible: [0.04825, -0.001166, 33]}"
    )
    assert shown["reason"].text.endswith("…") and len(shown["reason"].text) <= 48
    assert shown["reason"].full.endswith("started from it")
    assert shown["seed"].text == "3"


def test_a_long_list_is_summarised_by_its_first_items_and_its_length() -> None:
    names = [f"annotator{k}" for k in range(30)]
    (item,) = job_parameters(Job(kind="assignments_plan", parameters={"annotators": names}))
    assert item.text.startswith("annotator0, annotator1") and item.text.endswith("(30 in all)")
    assert item.full == ", ".join(names)


def test_the_page_shows_a_summarised_parameter_with_its_whole_value_folded_in(
    admin_client: Client,
) -> None:
    _job(kind="agreement_report", parameters={"samples": 1000, "edit_models": EDIT_MODELS})
    html = admin_client.get("/jobs/").content.decode()
    cell = html.split('data-parameter="edit_models"')[1].split("</li>")[0]
    assert "<details>" in cell and "alice, bob: …" in cell
    assert 'title="alice: {possible: [0.0581, -0.001535, 33]}\nbob:' in cell
    assert "0.05810365156333794" not in html


def test_a_queued_job_says_how_many_jobs_of_its_queue_run_ahead_of_it(
    admin_client: Client,
) -> None:
    """Workers alive but busy: the queued job waits for the running jobs of its own queue,
    and jobs of another queue, or an agreement report waiting for its chunks, hold none of
    its workers."""
    worker_heartbeat_beat(
        hostname="w@host", pid=1, started_at=timezone.now(), queues=["celery", "quick"]
    )
    _job(kind="prefill", status=Job.Status.RUNNING)
    _job(kind="export", status=Job.Status.RUNNING)
    _job(kind="assignments_plan", status=Job.Status.RUNNING)  # the quick queue
    _job(kind="agreement", status=Job.Status.RUNNING, deferred=True)
    waiting = _job(kind="train_scorer", status=Job.Status.PENDING, message=WAITING)
    quick = _job(kind="corpus_stats", status=Job.Status.PENDING, message=WAITING)
    html = admin_client.get("/jobs/").content.decode()

    def status(job: Job) -> str:
        row = html.split(f'data-job="{job.pk}"', 1)[1].split("</tr>", 1)[0]
        return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", row))

    assert "waiting for a worker: 2 jobs of its queue are running" in status(waiting)
    assert "waiting for a worker: 1 job of its queue is running" in status(quick)
    WorkerHeartbeat.objects.all().delete()  # no worker: the page's notice says so instead
    html = admin_client.get("/jobs/").content.decode()
    assert "of its queue" not in status(waiting) and "No worker is running" in html
