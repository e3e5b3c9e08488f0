from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from annotate import roles
from annotate.models import AnnotationEvent, Assignment, GoldAlignment, Job
from tests.annotate.factories import (
    make_assignment,
    make_corpus,
    make_learnable_pair,
    make_pair,
    make_user,
)

pytestmark = pytest.mark.django_db


def _client(user: object) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def test_a_stale_save_answers_409_with_the_server_state() -> None:
    assignment = make_assignment()
    client = _client(assignment.annotator)
    opened = client.post(f"/api/assignments/{assignment.pk}/open/").json()
    assert opened["annotation"]["version"] == 1
    assert opened["annotation"]["links"] == [[1, 1, "S"], [3, 4, "P"]]
    url = f"/api/assignments/{assignment.pk}/annotation/"
    first = client.put(url, {"version": 1, "links": [[0, 0, "S"]]}, format="json")
    assert first.status_code == 200 and first.json()["version"] == 2
    stale = client.put(url, {"version": 1, "links": [[2, 2, "P"]]}, format="json")
    assert stale.status_code == 409
    error = stale.json()["error"]
    assert error["code"] == "stale_version"
    assert error["server"] == {
        "version": 2,
        "links": [[0, 0, "S"]],
        "touched": [[0, 0], [1, 1], [3, 4]],
    }


def test_a_save_names_checked_prefill_links_that_the_next_open_lists_as_touched() -> None:
    assignment = make_assignment()
    client = _client(assignment.annotator)
    opened = client.post(f"/api/assignments/{assignment.pk}/open/").json()
    assert opened["annotation"]["touched"] == []
    url = f"/api/assignments/{assignment.pk}/annotation/"
    body = {"version": 1, "links": opened["annotation"]["links"], "reviewed": [[1, 1]]}
    saved = client.put(url, body, format="json")
    assert saved.status_code == 200 and saved.json()["version"] == 2
    reopened = client.post(f"/api/assignments/{assignment.pk}/open/").json()
    assert reopened["annotation"]["touched"] == [[1, 1]]
    assert reopened["annotation"]["links"] == opened["annotation"]["links"]


@pytest.mark.parametrize("reviewed", [[[1]], [[1, 2, 3]], [[-1, 0]], "1-1", [[0, 0]] * 10_001])
def test_a_malformed_reviewed_list_is_a_400(reviewed: object) -> None:
    assignment = make_assignment()
    client = _client(assignment.annotator)
    client.post(f"/api/assignments/{assignment.pk}/open/")
    response = client.put(
        f"/api/assignments/{assignment.pk}/annotation/",
        {"version": 1, "links": [], "reviewed": reviewed},
        format="json",
    )
    assert response.status_code == 400
    assert "reviewed" in str(response.json())
    assert AnnotationEvent.objects.count() == 1


def test_a_save_with_a_link_outside_the_pair_is_a_400_naming_the_link() -> None:
    assignment = make_assignment()
    client = _client(assignment.annotator)
    client.post(f"/api/assignments/{assignment.pk}/open/")
    response = client.put(
        f"/api/assignments/{assignment.pk}/annotation/",
        {"version": 1, "links": [[0, 99, "S"]]},
        format="json",
    )
    assert response.status_code == 400
    assert "0-99 is outside the 6×7 sentence pair" in response.json()["error"]["message"]
    assert AnnotationEvent.objects.count() == 1


def test_submitting_returns_the_next_open_pair_in_the_queue() -> None:
    alice = make_user("alice", roles.ANNOTATOR)
    corpus = make_corpus()
    first, second = (make_assignment(make_pair(corpus), alice) for _ in range(2))
    client = _client(alice)
    client.post(f"/api/assignments/{first.pk}/open/")
    response = client.post(
        f"/api/assignments/{first.pk}/submit/",
        {"version": 1, "flags": ["not_paraphrase"], "comment": "", "rating": 2},
        format="json",
    )
    assert response.status_code == 200
    assert response.json() == {"version": 2, "next_id": second.pk, "trial": False}
    queue = client.get("/api/queue/").json()
    assert queue["counts"] == {"new": 1, "in_progress": 0, "submitted": 1}
    assert queue["next_id"] == second.pk


def test_trial_feedback_scores_the_submission_against_gold() -> None:
    gold = [(0, 1, True), (1, 1, True), (3, 4, False)]
    assignment = make_assignment(make_pair(split="trial", gold=gold))
    client = _client(assignment.annotator)
    client.post(f"/api/assignments/{assignment.pk}/open/")  # prefill: 1-1 sure, 3?4
    early = client.get(f"/api/assignments/{assignment.pk}/feedback/")
    assert early.status_code == 403
    client.post(f"/api/assignments/{assignment.pk}/submit/", {"version": 1}, format="json")
    feedback = client.get(f"/api/assignments/{assignment.pk}/feedback/").json()
    # A_S = {1-1} ⊆ B_P → P = 1; A_P = {1-1, 3-4}, B_S = {0-1, 1-1} → R = 1/2; F1 = 2/3.
    assert feedback["scores"]["precision"] == pytest.approx(1.0)
    assert feedback["scores"]["recall"] == pytest.approx(0.5)
    assert feedback["scores"]["f1"] == pytest.approx(2 / 3)
    assert feedback["gold"] == [[0, 1, "S"], [1, 1, "S"], [3, 4, "P"]]


def test_an_adjudicator_saves_gold_that_replaces_the_previous_one() -> None:
    carol = make_user("carol", roles.ADJUDICATOR)
    pair = make_pair(gold=[(0, 0, True)])
    client = _client(carol)
    response = client.put(
        f"/api/pairs/{pair.pk}/gold/",
        {"version": 1, "links": [[1, 1, "S"], [2, 3, "P"]]},
        format="json",
    )
    assert response.status_code == 200
    gold = GoldAlignment.objects.get(pair=pair)
    assert gold.source == "adjudicated" and gold.adjudicator == carol
    assert sorted(gold.links.values_list("i", "j", "sure")) == [(1, 1, True), (2, 3, False)]


def test_the_overlay_lists_every_annotators_alignment() -> None:
    pair = make_pair()
    for name in ("alice", "bob"):
        assignment = make_assignment(pair, make_user(name, roles.ANNOTATOR))
        _client(assignment.annotator).post(f"/api/assignments/{assignment.pk}/open/")
    body = _client(make_user("carol", roles.ADJUDICATOR)).get(f"/api/pairs/{pair.pk}/adjudication/")
    annotators = [a["annotator"] for a in body.json()["annotations"]]
    assert annotators == ["alice", "bob"]
    assert body.json()["prefill"]["links"] == [[1, 1, "S", 0.5], [3, 4, "P", 0.5]]


def test_an_admin_queues_a_statistics_job_for_a_corpus() -> None:
    admin = make_user("admin", roles.ADMIN)
    corpus = make_corpus()
    response = _client(admin).post(f"/api/corpora/{corpus.pk}/stats/")
    assert response.status_code == 201
    job = Job.objects.get(pk=response.json()["id"])
    assert (job.kind, job.corpus, job.owner, job.status) == (
        "corpus_stats",
        corpus,
        admin,
        "pending",
    )


def test_an_admin_queues_a_prefill_and_sets_automatic_retraining() -> None:
    admin = make_user("admin", roles.ADMIN)
    corpus = make_corpus()
    make_learnable_pair(corpus)  # finished work to learn from
    url = f"/api/corpora/{corpus.pk}/prefill/"
    response = _client(admin).post(url, {"aligner": "supervised", "retrain_every": 40})
    assert response.status_code == 201
    job = Job.objects.get(pk=response.json()["id"])
    assert (job.kind, job.owner, job.parameters["aligner"]) == ("prefill", admin, "supervised")
    listed = _client(admin).get("/api/corpora/").json()[0]
    assert (listed["prefill_aligner"], listed["prefill_retrain_every"]) == ("supervised", 40)
    refused = _client(admin).post(url, {"aligner": "lexical", "retrain_every": 0})
    assert refused.status_code == 409, "a second prefill waits for the first one"
    assert refused.json()["error"]["code"] == "prefill_busy"
    assert f"prefill #{job.pk} (supervised) is still pending" in str(refused.json())
    corpus.refresh_from_db()
    assert corpus.prefill_aligner == "supervised", "a refused request changes no setting"
    Job.objects.filter(pk=job.pk).update(status=Job.Status.SUCCEEDED)
    _client(admin).post(url, {"aligner": "lexical", "retrain_every": 0})
    corpus.refresh_from_db()
    assert corpus.prefill_aligner == ""


def test_a_prefill_that_cannot_retrain_is_a_400_and_queues_nothing() -> None:
    admin = make_user("admin", roles.ADMIN)
    corpus = make_corpus()
    url = f"/api/corpora/{corpus.pk}/prefill/"
    response = _client(admin).post(url, {"aligner": "em", "retrain_every": 10})
    assert response.status_code == 400
    assert "does not learn from annotations" in response.json()["error"]["message"]
    unknown = _client(admin).post(url, {"aligner": "giza"})
    assert unknown.status_code == 400 and "aligner" in str(unknown.json())
    assert not Job.objects.exists()


def test_a_huge_retrain_interval_is_a_400_not_a_database_error() -> None:
    admin = make_user("admin", roles.ADMIN)
    corpus = make_corpus()
    url = f"/api/corpora/{corpus.pk}/prefill/"
    response = _client(admin).post(url, {"aligner": "supervised", "retrain_every": 2**31})
    assert response.status_code == 400
    assert "retrain_every" in response.json()["error"]["fields"]
    assert not Job.objects.exists()


def test_the_prefill_service_refuses_a_huge_retrain_interval_too() -> None:
    from annotate.services import prefill

    corpus = make_corpus()
    with pytest.raises(prefill.PrefillError, match="between 1 and 1,000,000"):
        prefill.corpus_prefill_configure(corpus=corpus, aligner="supervised", retrain_every=2**31)
    corpus.refresh_from_db()
    assert corpus.prefill_aligner == ""


def test_an_admin_queues_a_prefill_with_aligner_options_that_the_corpus_list_shows() -> None:
    admin = make_user("admin", roles.ADMIN)
    corpus = make_corpus()
    make_learnable_pair(corpus)  # finished work to learn from
    response = _client(admin).post(
        f"/api/corpora/{corpus.pk}/prefill/",
        {"aligner": "supervised", "retrain_every": 40, "options": {"fine_tune_epochs": 5}},
        format="json",
    )
    assert response.status_code == 201
    job = Job.objects.get(pk=response.json()["id"])
    assert job.parameters["options"] == {"fine_tune_epochs": 5}
    listed = _client(admin).get("/api/corpora/").json()[0]
    assert listed["prefill_options"] == {"fine_tune_epochs": 5}


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"colour": 1}, "unknown option 'colour'"),
        ({"fine_tune_epochs": "many"}, "option 'fine_tune_epochs' of aligner 'supervised'"),
        ({"ppdb": "/etc/passwd"}, "PPDB_PATH"),
    ],
)
def test_bad_prefill_options_are_a_400_naming_the_option_and_queue_nothing(
    options: dict[str, object], message: str
) -> None:
    admin = make_user("admin", roles.ADMIN)
    corpus = make_corpus()
    response = _client(admin).post(
        f"/api/corpora/{corpus.pk}/prefill/",
        {"aligner": "supervised", "retrain_every": 10, "options": options},
        format="json",
    )
    assert response.status_code == 400
    assert message in response.json()["error"]["message"]
    assert not Job.objects.exists()
    corpus.refresh_from_db()
    assert (corpus.prefill_aligner, corpus.prefill_options) == ("", {})


def test_an_annotator_sees_only_their_own_jobs() -> None:
    alice = make_user("alice", roles.ANNOTATOR)
    own = Job.objects.create(kind="corpus_stats", owner=alice)
    Job.objects.create(kind="corpus_stats", owner=make_user("admin", roles.ADMIN))
    ids = [job["id"] for job in _client(alice).get("/api/jobs/").json()]
    assert ids == [own.pk]


def test_the_job_list_walks_back_to_older_jobs_with_before() -> None:
    admin = make_user("admin", roles.ADMIN)
    made = [Job.objects.create(kind="corpus_stats", owner=admin).pk for _ in range(103)]
    newest = [job["id"] for job in _client(admin).get("/api/jobs/").json()]
    assert newest == made[::-1][:100]
    older = _client(admin).get(f"/api/jobs/?before={newest[-1]}").json()
    assert [job["id"] for job in older] == made[2::-1]


def test_reassigning_moves_partial_work_and_logs_it() -> None:
    assignment = make_assignment()
    _client(assignment.annotator).post(f"/api/assignments/{assignment.pk}/open/")
    make_user("dave", roles.ANNOTATOR)
    admin = _client(make_user("admin", roles.ADMIN))
    response = admin.post(
        f"/api/assignments/{assignment.pk}/reassign/", {"annotator": "dave"}, format="json"
    )
    assert response.status_code == 200
    assignment.refresh_from_db()
    assert assignment.annotator.username == "dave"
    event = AnnotationEvent.objects.filter(annotation__assignment=assignment).last()
    assert event is not None and event.payload["reassigned_to"] == "dave"
    assert Assignment.objects.count() == 1


def test_admins_set_guidelines_that_are_rendered_without_script(tmp_path: object) -> None:
    from django.test import override_settings

    admin = _client(make_user("admin", roles.ADMIN))
    text = "# Rules\n\nAlign **phrases**.<script>alert(1)</script>"
    with override_settings(VAR_DIR=tmp_path):
        saved = admin.put("/api/guidelines/", {"markdown": text}, format="json")
        read = _client(make_user("alice", roles.ANNOTATOR)).get("/api/guidelines/").json()
    assert saved.status_code == 200
    assert read["markdown"] == text
    assert "<h1>Rules</h1>" in read["html"] and "<strong>phrases</strong>" in read["html"]
    assert "<script" not in read["html"]


def test_the_queue_continues_with_the_pair_worked_on_last() -> None:
    alice = make_user("alice", roles.ANNOTATOR)
    corpus = make_corpus()
    first, second, _third = (make_assignment(make_pair(corpus), alice) for _ in range(3))
    client = _client(alice)
    for assignment in (second, first):
        client.post(f"/api/assignments/{assignment.pk}/open/")
        client.put(
            f"/api/assignments/{assignment.pk}/annotation/",
            {"version": 1, "links": []},
            format="json",
        )
    queue = client.get("/api/queue/").json()
    assert queue["continue_id"] == first.pk
    assert queue["counts"] == {"new": 1, "in_progress": 2, "submitted": 0}


def test_opening_again_lists_the_cells_the_annotator_already_changed() -> None:
    assignment = make_assignment()
    client = _client(assignment.annotator)
    client.post(f"/api/assignments/{assignment.pk}/open/")
    client.put(
        f"/api/assignments/{assignment.pk}/annotation/",
        {"version": 1, "links": [[1, 1, "P"], [3, 4, "P"], [5, 5, "S"]]},
        format="json",
    )
    reopened = client.post(f"/api/assignments/{assignment.pk}/open/").json()
    assert reopened["annotation"]["touched"] == [[1, 1], [5, 5]]
