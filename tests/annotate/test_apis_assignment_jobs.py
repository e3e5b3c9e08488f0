"""Planning, handing over and releasing assignments are jobs: the request checks its input
(400 naming what is wrong, nothing queued) and answers with the job; the job's result is the
report the service makes."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from annotate import jobs_runtime, roles
from annotate.models import Assignment, Job
from tests.annotate.factories import make_assignment, make_corpus, make_pair, make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin() -> APIClient:
    client = APIClient()
    client.force_authenticate(make_user("root", roles.ADMIN))
    return client


def _finished(response: Any) -> Job:
    assert response.status_code == 201, response.content
    job = Job.objects.get(pk=response.json()["id"])
    assert jobs_runtime.job_run(job_id=job.pk, worker="w") == Job.Status.SUCCEEDED, job.error
    job.refresh_from_db()
    return job


def test_a_plan_is_a_job_whose_result_is_the_plan(admin: APIClient) -> None:
    corpus = make_corpus()
    for _ in range(4):
        make_pair(corpus)
    for name in ("alice", "bob"):
        make_user(name, roles.ANNOTATOR)
    response = admin.post(
        f"/api/corpora/{corpus.pk}/assignments/",
        {"annotators": ["alice", "bob"], "per_pair": 1, "double_fraction": 0.5, "seed": 3},
        format="json",
    )
    assert not Assignment.objects.exists(), "the request only queues the job"
    job = _finished(response)
    assert (job.kind, job.seed, job.corpus_id) == ("assignments_plan", 3, corpus.pk)
    assert job.result["created"] == 6 and job.result["seed"] == 3
    assert job.result["doubled_pairs"] == 2
    assert Assignment.objects.count() == 6


def test_a_plan_of_a_selection_through_the_api_covers_only_those_pairs(admin: APIClient) -> None:
    corpus = make_corpus()
    pairs = [make_pair(corpus, split=("dev", "test")[k % 2]) for k in range(6)]
    make_user("alice", roles.ANNOTATOR)
    response = admin.post(
        f"/api/corpora/{corpus.pk}/assignments/",
        {"annotators": ["alice"], "split": "dev", "batch": 2, "seed": 1},
        format="json",
    )
    job = _finished(response)
    assert job.parameters["selection"] == {"split": "dev", "batch": 2}
    assert job.result["planned"] == 2 and job.result["selected"] == 3
    assert set(Assignment.objects.values_list("pair_id", flat=True)) == {
        pairs[0].pk,
        pairs[2].pk,
    }


def test_a_selection_no_pair_matches_is_refused_through_the_api(admin: APIClient) -> None:
    corpus = make_corpus()
    make_pair(corpus)
    make_user("alice", roles.ANNOTATOR)
    response = admin.post(
        f"/api/corpora/{corpus.pk}/assignments/",
        {"annotators": ["alice"], "min_length": 40},
        format="json",
    )
    assert response.status_code == 400
    assert response.json()["error"]["field"] == "min_length"
    assert not Job.objects.exists()


def test_a_plan_without_a_seed_records_the_one_drawn(admin: APIClient) -> None:
    corpus = make_corpus()
    make_pair(corpus)
    make_user("alice", roles.ANNOTATOR)
    response = admin.post(
        f"/api/corpora/{corpus.pk}/assignments/", {"annotators": ["alice"]}, format="json"
    )
    job = _finished(response)
    assert job.seed is not None and job.result["seed"] == job.seed


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"annotators": ["alice", "nobody"]}, "there is no user 'nobody'"),
        ({"annotators": ["carol"]}, "carol does not have the annotator role"),
        ({"annotators": ["alice"], "per_pair": 2}, "2 annotators per pair were asked for"),
    ],
)
def test_a_plan_with_bad_names_or_numbers_queues_nothing(
    admin: APIClient, body: dict[str, Any], message: str
) -> None:
    corpus = make_corpus()
    make_user("alice", roles.ANNOTATOR)
    make_user("carol", roles.ADJUDICATOR)
    response = admin.post(f"/api/corpora/{corpus.pk}/assignments/", body, format="json")
    assert response.status_code == 400
    assert message in response.json()["error"]["message"]
    assert not Job.objects.exists()


def test_a_hand_over_is_a_job_whose_result_counts_the_moves(admin: APIClient) -> None:
    corpus = make_corpus()
    leaving, other = make_user("alice", roles.ANNOTATOR), make_user("bob", roles.ANNOTATOR)
    for _ in range(3):
        make_assignment(make_pair(corpus), leaving)
    response = admin.post(
        f"/api/corpora/{corpus.pk}/assignments/hand-over/",
        {"annotator": "alice", "to": ["bob"]},
        format="json",
    )
    job = _finished(response)
    assert job.result == {"moved": 3, "stuck": 0, "kept": 0}
    assert Assignment.objects.filter(annotator=other).count() == 3


def test_a_hand_over_to_nobody_else_queues_nothing(admin: APIClient) -> None:
    corpus = make_corpus()
    make_user("alice", roles.ANNOTATOR)
    response = admin.post(
        f"/api/corpora/{corpus.pk}/assignments/hand-over/",
        {"annotator": "alice", "to": ["alice"]},
        format="json",
    )
    assert response.status_code == 400
    assert "other than the one handing over" in response.json()["error"]["message"]
    assert not Job.objects.exists()


def test_a_hand_over_naming_its_own_annotator_among_others_is_refused(admin: APIClient) -> None:
    corpus = make_corpus()
    alice = make_user("alice", roles.ANNOTATOR)
    make_user("bob", roles.ANNOTATOR)
    make_assignment(make_pair(corpus), alice)
    response = admin.post(
        f"/api/corpora/{corpus.pk}/assignments/hand-over/",
        {"annotator": "alice", "to": ["bob", "alice"]},
        format="json",
    )
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["field"] == "to"
    assert error["message"] == (
        "alice is handing over and cannot take their own work: choose annotators other than "
        "the one handing over; nothing was moved"
    )
    assert not Job.objects.exists()


def test_releasing_abandoned_work_is_a_job(admin: APIClient) -> None:
    alice, bob = make_user("alice", roles.ANNOTATOR), make_user("bob", roles.ANNOTATOR)
    assignment = make_assignment(make_pair(), alice)
    long_ago = timezone.now() - timedelta(days=3)
    Assignment.objects.filter(pk=assignment.pk).update(
        status=Assignment.Status.IN_PROGRESS, started_at=long_ago, last_activity_at=long_ago
    )
    job = _finished(admin.post("/api/assignments/release-abandoned/", {"idle_hours": 24}))
    assert job.result == {"released": 1, "stuck": 0}
    assignment.refresh_from_db()
    assert assignment.annotator == bob


def test_releasing_through_the_api_may_name_one_corpus_and_leaves_the_others_alone(
    admin: APIClient,
) -> None:
    here, elsewhere = make_corpus(), make_corpus()
    alice, bob = make_user("alice", roles.ANNOTATOR), make_user("bob", roles.ANNOTATOR)
    mine = make_assignment(make_pair(here), alice)
    theirs = make_assignment(make_pair(elsewhere), alice)
    long_ago = timezone.now() - timedelta(days=3)
    Assignment.objects.filter(pk__in=[mine.pk, theirs.pk]).update(
        status=Assignment.Status.IN_PROGRESS, started_at=long_ago, last_activity_at=long_ago
    )
    job = _finished(
        admin.post(
            "/api/assignments/release-abandoned/",
            {"idle_hours": 24, "corpus": here.pk},
            format="json",
        )
    )
    assert (job.corpus_id, job.result) == (here.pk, {"released": 1, "stuck": 0})
    mine.refresh_from_db()
    theirs.refresh_from_db()
    assert (mine.annotator, theirs.annotator) == (bob, alice)


@pytest.mark.parametrize(("corpus", "status"), [(999_999, 404), (0, 400), ("news", 400)])
def test_a_release_naming_a_corpus_that_is_not_there_queues_nothing(
    admin: APIClient, corpus: object, status: int
) -> None:
    response = admin.post(
        "/api/assignments/release-abandoned/",
        {"idle_hours": 24, "corpus": corpus},
        format="json",
    )
    assert response.status_code == status, response.content
    assert not Job.objects.exists()
