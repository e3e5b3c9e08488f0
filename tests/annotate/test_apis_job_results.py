"""A finished job's result through the API: JSON, and an agreement report as CSV."""

from __future__ import annotations

import csv
import io
import json

import pytest
from rest_framework.test import APIClient

from annotate import roles
from annotate.models import Job
from scoring.alignment.agreement import AgreementParams
from scoring.alignment.reports import build_report
from tests.annotate.agreement_data import agreement_records
from tests.annotate.factories import make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def report_job() -> Job:
    report = build_report(agreement_records(8), ["ann1", "ann2"], params=AgreementParams(samples=5))
    return Job.objects.create(
        kind="agreement_report",
        status=Job.Status.SUCCEEDED,
        owner=make_user("root", roles.ADMIN),
        result=json.loads(json.dumps(report.to_dict())),
    )


def _client(job: Job) -> APIClient:
    client = APIClient()
    client.force_authenticate(job.owner)
    return client


def test_format_csv_downloads_the_agreement_report_as_csv(report_job: Job) -> None:
    response = _client(report_job).get(f"/api/jobs/{report_job.pk}/result/?format=csv")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/csv")
    assert response["Content-Disposition"] == (
        f'attachment; filename="agreement_report-{report_job.pk}.csv"'
    )
    rows = list(csv.DictReader(io.StringIO(response.content.decode("utf-8"))))
    assert {row["table"] for row in rows} >= {"table3", "table4", "figure4", "table5"}
    assert {row["candidate"] for row in rows if row["table"] == "table3"} == {"ann1"}


def test_an_accept_header_of_text_csv_gets_the_csv_too(report_job: Job) -> None:
    response = _client(report_job).get(f"/api/jobs/{report_job.pk}/result/", HTTP_ACCEPT="text/csv")
    assert response.status_code == 200
    assert response.content.startswith(b"table,candidate,reference,group,column,measure,value")


def test_without_a_format_the_result_is_json(report_job: Job) -> None:
    response = _client(report_job).get(f"/api/jobs/{report_job.pk}/result/")
    assert response["Content-Type"] == "application/json"
    assert response.json()["annotators"] == ["ann1", "ann2"]


def test_csv_of_a_stored_report_that_does_not_read_is_a_json_400_naming_the_field(
    report_job: Job,
) -> None:
    result = dict(report_job.result)
    result["table5"] = [{"annotator": "ann1"}]
    Job.objects.filter(pk=report_job.pk).update(result=result)
    response = _client(report_job).get(f"/api/jobs/{report_job.pk}/result/?format=csv")
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "invalid_input" and error["field"] == "table5[0].candidate"


def test_csv_of_a_job_that_is_not_a_report_is_a_json_400(report_job: Job) -> None:
    other = Job.objects.create(
        kind="corpus_stats", status=Job.Status.SUCCEEDED, owner=report_job.owner, result={"a": 1}
    )
    response = _client(report_job).get(f"/api/jobs/{other.pk}/result/?format=csv")
    assert response.status_code == 400
    assert response["Content-Type"] == "application/json"
    assert response.json()["error"]["message"] == "only agreement reports have a CSV form"


def test_csv_of_a_job_without_a_result_is_a_json_404(report_job: Job) -> None:
    running = Job.objects.create(kind="agreement_report", owner=report_job.owner)
    response = _client(report_job).get(f"/api/jobs/{running.pk}/result/?format=csv")
    assert response.status_code == 404
    assert "has no result" in response.json()["error"]["message"]


def test_an_unknown_format_is_a_404_in_the_api_s_error_shape(report_job: Job) -> None:
    response = _client(report_job).get(f"/api/jobs/{report_job.pk}/result/?format=xlsx")
    assert response.status_code == 404
    assert response.json() == {"error": {"code": "not_found", "message": "Not found."}}


def test_a_job_without_a_corpus_is_described_with_nulls_the_schema_allows() -> None:
    owner = make_user("alice", roles.ANNOTATOR)
    job = Job.objects.create(kind="score_pairs", owner=owner, parameters={"pairs": 1})
    client = APIClient()
    client.force_authenticate(owner)
    body = client.get(f"/api/jobs/{job.pk}/").json()
    assert (body["corpus"], body["corpus_id"]) == (None, None)
    admin = APIClient()
    admin.force_authenticate(make_user("root", roles.ADMIN))
    schema = admin.get("/api/schema/?format=json").json()
    fields = schema["components"]["schemas"]["JobOutput"]["properties"]
    assert fields["corpus"]["nullable"] and fields["corpus_id"]["nullable"]


def test_an_admin_demoted_since_reads_what_their_agreement_job_was_asked_not_what_it_fitted(
    report_job: Job,
) -> None:
    """The job adds to its parameters the chance model it chose from how the annotations
    started and each annotator's fitted edit model: part of the report, which a demoted admin
    no longer reads (its result is a 403), so the job's own listing leaves them out too."""
    requested = {"annotators": ["ann1", "ann2"], "samples": 5, "chance_model": "auto"}
    report_job.parameters = {
        **requested,
        "chance_model": "prefill",
        "chance_model_requested": "auto",
        "chance_model_reason": "every annotated pair has a prefill, and every annotation "
        "started from it",
        "edit_models": {"ann1": {"possible": [0.0625, 0.0, 6]}},
    }
    report_job.save(update_fields=["parameters"])
    client = _client(report_job)
    assert client.get(f"/api/jobs/{report_job.pk}/").json()["parameters"] == report_job.parameters
    report_job.owner.groups.set([roles.role_group(roles.ANNOTATOR)])
    assert client.get(f"/api/jobs/{report_job.pk}/result/").status_code == 403
    detail = client.get(f"/api/jobs/{report_job.pk}/")
    assert detail.status_code == 200, "the job itself stays listed"
    assert detail.json()["parameters"] == requested
    (listed,) = client.get("/api/jobs/").json()
    assert listed["parameters"] == requested
