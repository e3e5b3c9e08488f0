"""Reads of jobs: what the jobs list and a job's page load."""

from __future__ import annotations

import json

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from annotate import roles
from annotate.models import Job
from annotate.selectors.jobs import job_visible, jobs_visible
from tests.annotate.factories import make_user

pytestmark = pytest.mark.django_db

# An agreement report's frozen input: one JSONL line per pair.
SNAPSHOT = [
    json.dumps({"id": f"p{k}", "source_tokens": ["a"], "target_tokens": ["b"]}) for k in range(50)
]


def _jobs() -> tuple[APIClient, Job, Job]:
    admin = make_user("admin", roles.ADMIN)
    done = Job.objects.create(
        kind="agreement_report",
        owner=admin,
        status=Job.Status.SUCCEEDED,
        result={"pairs": 50, "c_hat": 0.5},
        snapshot=SNAPSHOT,
    )
    waiting = Job.objects.create(kind="agreement_report", owner=admin, snapshot=SNAPSHOT)
    client = APIClient()
    client.force_authenticate(admin)
    return client, done, waiting


def test_the_jobs_list_reads_neither_snapshots_nor_results_yet_says_which_have_a_result() -> None:
    client, done, waiting = _jobs()
    listed = {job.pk: job for job in jobs_visible(done.owner)}  # type: ignore[arg-type]
    assert {"snapshot", "result"} <= listed[done.pk].get_deferred_fields()
    with CaptureQueriesContext(connection) as queries:
        rows = {row["id"]: row for row in client.get("/api/jobs/").json()}
    assert rows[done.pk]["has_result"] is True and rows[waiting.pk]["has_result"] is False
    # Neither column's values were fetched: no query names the snapshot, and the result is
    # only tested for NULL.
    sql = " ".join(query["sql"] for query in queries)
    assert '"snapshot"' not in sql
    assert sql.count('"result"') == sql.count('"result" IS NOT NULL')


def test_a_jobs_page_reads_neither_result_nor_snapshot_and_its_result_is_read_whole() -> None:
    client, done, _ = _jobs()
    job = job_visible(user=done.owner, job_id=done.pk)  # type: ignore[arg-type]
    assert job.get_deferred_fields() == {"snapshot", "result"}
    assert client.get(f"/api/jobs/{done.pk}/").json()["has_result"] is True
    assert client.get(f"/api/jobs/{done.pk}/result/").json() == {"pairs": 50, "c_hat": 0.5}


def test_listing_jobs_of_a_kind_no_job_has_names_the_kinds() -> None:
    client, done, _ = _jobs()
    response = client.get("/api/jobs/", {"kind": "score"})
    assert response.status_code == 400
    message = response.json()["error"]["message"]
    assert message.startswith("kind: unknown job kind 'score'; the kinds are ")
    assert "score_pairs" in message and "agreement_report" in message
    listed = client.get("/api/jobs/", {"kind": "agreement_report"}).json()
    assert done.pk in [row["id"] for row in listed]
