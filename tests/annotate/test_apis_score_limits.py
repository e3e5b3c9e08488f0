"""Scoring through the API is bounded: sentences have the import's token limit, a request scores
what its scorer kind scores well within a second, and more is a ``score_pairs`` job."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient

from annotate import jobs_runtime, roles
from annotate.models import Corpus, Job, ScorerModel
from annotate.services.scorers import (
    MAX_SENTENCE_CHARS,
    MAX_SYNC_PAIRS,
    SYNC_LIMITS,
    scorer_score_texts,
    scorer_train,
)
from scoring.formats import MAX_TOKENS
from tests.annotate.test_services_scorers import corpus  # noqa: F401 - a fixture

pytestmark = pytest.mark.django_db
EVERY_USER = {"annotator": 201, "adjudicator": 201, "admin": 201, "anon": 401}


@pytest.fixture
def model(corpus: Corpus) -> ScorerModel:  # noqa: F811 - the imported fixture
    return scorer_train(
        corpus=corpus,
        kind="pfsm",
        train_split="train",
        test_split=None,
        options={"cutoff": 0},
        name="m",
    )


def _client(persona: str = "annotator") -> APIClient:
    client = APIClient()
    if persona != "anon":
        user = get_user_model().objects.create(username=persona)
        user.groups.add(roles.role_group(persona))
        client.force_authenticate(user)
    return client


def _words(count: int) -> str:
    return " ".join(f"w{k % 7}" for k in range(count))


@pytest.mark.parametrize("reference", ["²", "9" * 30])
def test_a_model_named_by_no_id_or_name_is_a_404(model: ScorerModel, reference: str) -> None:
    body = {"model": reference, "pairs": [["a b", "a c"]]}
    client = _client()
    for url in ("/api/score", "/api/score/jobs/"):
        response = client.post(url, body, format="json")
        assert response.status_code == 404
        assert response.json()["error"]["message"] == f"no scorer model {reference!r}"


def test_a_sentence_over_the_imports_token_limit_is_a_400_naming_the_pair(
    model: ScorerModel,
) -> None:
    body = {"model": "m", "pairs": [["a b", "c d"], ["a b", _words(MAX_TOKENS + 1)]]}
    response = _client().post("/api/score", body, format="json")
    assert response.status_code == 400
    message = response.json()["error"]["message"]
    assert message == f"pair 1, sentence 2 has {MAX_TOKENS + 1} tokens; at most 250 are accepted"


def test_a_sentence_over_the_character_limit_is_a_400(model: ScorerModel) -> None:
    body = {"model": "m", "pairs": [["a", "x" * (MAX_SENTENCE_CHARS + 1)]]}
    response = _client().post("/api/score", body, format="json")
    assert response.status_code == 400
    assert "pairs" in response.json()["error"]["fields"]


def test_more_pairs_than_a_request_scores_are_a_400_that_names_the_job(model: ScorerModel) -> None:
    body = {"model": "m", "pairs": [["a man", "a person"]] * (MAX_SYNC_PAIRS + 1)}
    response = _client().post("/api/score", body, format="json")
    assert response.status_code == 400
    assert "POST /api/score/jobs/" in str(response.json())
    limit = SYNC_LIMITS["pfsm"]
    body = {"model": "m", "pairs": [["a man", "a person"]] * (limit.pairs + 1)}
    response = _client("admin").post("/api/score", body, format="json")
    assert response.status_code == 400
    assert response.json()["error"]["message"].startswith(
        f"{limit.pairs + 1} pairs: the pfsm scorer scores at most {limit.pairs} in a request"
    )


def test_a_pair_too_large_for_a_request_is_a_400_that_names_the_job(model: ScorerModel) -> None:
    side = int(SYNC_LIMITS["pfsm"].pair_cells ** 0.5) + 1
    body = {"model": "m", "pairs": [[_words(side), _words(side)]]}
    response = _client().post("/api/score", body, format="json")
    assert response.status_code == 400
    message = response.json()["error"]["message"]
    assert f"pair 0 is {side} × {side} tokens" in message and "/api/score/jobs/" in message


def test_too_many_cells_together_are_a_400_that_names_the_job(model: ScorerModel) -> None:
    limit = SYNC_LIMITS["pfsm"]
    side = int(limit.pair_cells**0.5)
    count = limit.cells // (side * side) + 1
    assert count <= limit.pairs
    body = {"model": "m", "pairs": [[_words(side), _words(side)]] * count}
    response = _client().post("/api/score", body, format="json")
    assert response.status_code == 400
    assert "cells (source × target tokens) together" in response.json()["error"]["message"]


@pytest.mark.parametrize("persona", list(EVERY_USER))
def test_a_score_job_is_queued_by_every_user(model: ScorerModel, persona: str) -> None:
    body = {"model": "m", "pairs": [["a man", "a person"]]}
    assert (
        _client(persona).post("/api/score/jobs/", body, format="json").status_code
        == (EVERY_USER[persona])
    )


def test_a_score_job_scores_what_a_request_may_not_and_agrees_with_a_request(
    model: ScorerModel,
) -> None:
    big = [_words(MAX_TOKENS), _words(MAX_TOKENS - 3)]
    small = ["A man plays a guitar.", "A man is playing guitar."]
    client = _client()
    assert client.post("/api/score", {"model": "m", "pairs": [big]}, format="json").status_code == (
        400
    )
    response = client.post("/api/score/jobs/", {"model": "m", "pairs": [small, big]}, format="json")
    assert response.status_code == 201
    job = Job.objects.get(pk=response.json()["id"])
    assert job.kind == "score_pairs" and job.owner.username == "annotator"
    assert job.parameters["pairs"] == 2 and "sha256" in job.parameters
    assert "w0" not in str(response.json()), "the pairs stay out of the job's description"
    again = client.post("/api/score/jobs/", {"model": "m", "pairs": [small, big]}, format="json")
    assert again.status_code == 200 and again.json()["id"] == job.pk  # the same queued job
    assert jobs_runtime.job_run(job_id=job.pk, worker="w") == Job.Status.SUCCEEDED
    result = client.get(f"/api/jobs/{job.pk}/result/").json()
    assert result["model"] == "m" and len(result["scores"]) == 2
    assert result["scores"][0] == pytest.approx(scorer_score_texts(model=model, pairs=[small])[0])


def test_a_score_job_with_a_sentence_of_too_many_words_is_refused_and_nothing_is_queued(
    model: ScorerModel,
) -> None:
    body = {"model": "m", "pairs": [["a", "b"], ["a", _words(MAX_TOKENS + 5)]]}
    response = _client().post("/api/score/jobs/", body, format="json")
    assert response.status_code == 400
    assert response.json()["error"] == {
        "code": "invalid",
        "message": (
            f"pair 1, sentence 2 has {MAX_TOKENS + 5} words; at most {MAX_TOKENS} tokens are "
            "accepted"
        ),
        "field": "pairs",
    }
    assert not Job.objects.exists()


def test_a_score_job_with_a_sentence_its_punctuation_takes_over_the_limit_fails_naming_the_pair(
    model: ScorerModel,
) -> None:
    """Words end with a comma: few enough words, twice as many tokens, found when the job
    tokenizes them."""
    sentence = " ".join(f"w{k}," for k in range(MAX_TOKENS // 2 + 5))
    body = {"model": "m", "pairs": [["a", "b"], ["a", sentence]]}
    response = _client().post("/api/score/jobs/", body, format="json")
    job_id: Any = response.json()["id"]
    assert jobs_runtime.job_run(job_id=job_id, worker="w") == Job.Status.FAILED
    tokens = 2 * (MAX_TOKENS // 2 + 5)
    assert Job.objects.get(pk=job_id).error == (
        f"pair 1, sentence 2 has {tokens} tokens; at most {MAX_TOKENS} are accepted"
    )


@pytest.mark.parametrize(
    ("pairs", "message"),
    [
        ([["a b", "a c"], ["a", 2]], 'pairs[1][1]: Expected a string but got type "int".'),
        ([["a b", True]], 'pairs[0][1]: Expected a string but got type "bool".'),
        (
            [["a b", "a c"], ["", " "]],
            "pairs[1][0]: This field may not be blank.; pairs[1][1]: This field may not be blank.",
        ),
        ([["a b", "a c"], "a b"], 'pairs[1]: Expected a list of items but got type "str".'),
        ([["a b"]], "pairs[0]: Ensure this field has at least 2 elements."),
    ],
)
def test_a_malformed_pair_is_refused_naming_the_pair_and_the_sentence(
    model: ScorerModel, pairs: list[Any], message: str
) -> None:
    client = _client()
    for url in ("/api/score", "/api/score/jobs/"):
        response = client.post(url, {"model": "m", "pairs": pairs}, format="json")
        assert response.status_code == 400
        assert response.json()["error"]["message"] == message
    assert not Job.objects.exists()


def test_more_characters_than_a_request_tokenizes_are_a_400_before_tokenizing(
    model: ScorerModel, monkeypatch: Any
) -> None:
    from annotate.services import scorers

    monkeypatch.setattr(scorers, "tokenize", lambda text: pytest.fail("tokenized"))
    sentence = "x" * MAX_SENTENCE_CHARS
    count = scorers.MAX_SYNC_CHARS // (2 * MAX_SENTENCE_CHARS) + 1
    body = {"model": "m", "pairs": [[sentence, sentence]] * count}
    response = _client().post("/api/score", body, format="json")
    assert response.status_code == 400
    assert "characters together" in response.json()["error"]["message"]


@pytest.mark.parametrize("persona", ["annotator", "adjudicator", "admin"])
def test_a_user_with_a_score_job_open_gets_409_for_another_and_nothing_is_queued(
    model: ScorerModel, persona: str
) -> None:
    client = _client(persona)
    first = {"model": "m", "pairs": [["a man", "a person"]]}
    second = {"model": "m", "pairs": [["a dog", "a cat"]]}
    job_id = client.post("/api/score/jobs/", first, format="json").json()["id"]
    refused = client.post("/api/score/jobs/", second, format="json")
    assert refused.status_code == 409
    assert f"your score job {job_id} is pending" in refused.json()["error"]["message"]
    assert Job.objects.filter(kind="score_pairs").count() == 1
    again = client.post("/api/score/jobs/", first, format="json")
    assert again.status_code == 200 and again.json()["id"] == job_id  # the same request again
    assert jobs_runtime.job_run(job_id=job_id, worker="w") == Job.Status.SUCCEEDED
    assert client.post("/api/score/jobs/", second, format="json").status_code == 201


def test_a_cancelled_score_job_leaves_room_for_the_next_and_others_jobs_do_not_count(
    model: ScorerModel,
) -> None:
    alice, bob = _client("annotator"), _client("adjudicator")
    job_id = alice.post(
        "/api/score/jobs/", {"model": "m", "pairs": [["a", "b"]]}, format="json"
    ).json()["id"]
    assert (
        bob.post(
            "/api/score/jobs/", {"model": "m", "pairs": [["c", "d"]]}, format="json"
        ).status_code
        == 201
    )
    assert alice.post(f"/api/jobs/{job_id}/cancel/").status_code == 200
    assert (
        alice.post(
            "/api/score/jobs/", {"model": "m", "pairs": [["e", "f"]]}, format="json"
        ).status_code
        == 201
    )


def test_a_score_job_cancelled_as_it_finishes_is_cancelled_whole_and_one_finished_keeps_its_scores(
    model: ScorerModel, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The cancel wins cleanly, as for every kind of job (the result is written with the job's
    success, in one statement that a cancel precedes or finds done): accepted after the last
    pair was scored, the job is cancelled with no result; once it has succeeded, a cancel is a
    409 and its scores stay."""
    from annotate.services import scorers

    alice = _client()
    scores = scorers._scores
    pairs = {"model": "m", "pairs": [["a b", "a c"]]}
    job_id = alice.post("/api/score/jobs/", pairs, format="json").json()["id"]

    def scored_then_cancelled(*args: Any) -> Any:
        done = scores(*args)
        assert alice.post(f"/api/jobs/{job_id}/cancel/").status_code == 200
        return done

    monkeypatch.setattr(scorers, "_scores", scored_then_cancelled)
    assert jobs_runtime.job_run(job_id=job_id, worker="w") == Job.Status.CANCELLED
    job = Job.objects.get(pk=job_id)
    assert job.status == "cancelled" and job.result is None
    assert alice.get(f"/api/jobs/{job_id}/result/").status_code != 200

    monkeypatch.setattr(scorers, "_scores", scores)
    job_id = alice.post("/api/score/jobs/", pairs, format="json").json()["id"]
    assert jobs_runtime.job_run(job_id=job_id, worker="w") == Job.Status.SUCCEEDED
    assert alice.post(f"/api/jobs/{job_id}/cancel/").status_code == 409
    assert len(alice.get(f"/api/jobs/{job_id}/result/").json()["scores"]) == 1


def test_a_score_job_of_long_pairs_reports_and_can_stop_after_each_one(
    model: ScorerModel,
) -> None:
    from annotate.services import scorers

    long_pair = [_words(60), _words(60)]  # 3,600 cells: more than a chunk's
    short_pair = ["a man", "a person"]
    tokens = scorers.scorer_text_pairs([long_pair, long_pair, *[short_pair] * 30, long_pair])
    reports: list[str] = []
    scores = scorers._scores(
        model, tokens, progress=lambda percent, message: reports.append(message)
    )
    assert len(scores) == len(tokens)
    assert reports == [
        "scored 1 of 33",
        "scored 2 of 33",
        "scored 22 of 33",  # short pairs go twenty at a time
        "scored 32 of 33",
        "scored 33 of 33",
    ]


def test_a_score_job_past_its_time_stops_between_chunks_and_says_how_far_it_got(
    model: ScorerModel, settings: Any, monkeypatch: Any
) -> None:
    from annotate.services import scorers

    settings.SCORE_JOB_MAX_SECONDS = 600
    clock = iter([0.0, 100.0, 700.0])  # the start; after one chunk; after two
    monkeypatch.setattr(scorers, "monotonic", lambda: next(clock))
    pairs = [["a man", "a person"]] * 45  # three chunks of twenty pairs at most
    client = _client()
    response = client.post("/api/score/jobs/", {"model": "m", "pairs": pairs}, format="json")
    job_id: Any = response.json()["id"]
    assert jobs_runtime.job_run(job_id=job_id, worker="w") == Job.Status.FAILED
    job = Job.objects.get(pk=job_id)
    assert job.error == (
        "scored 40 of 45 pairs in 10 minutes, the longest a score job may run (users' score "
        "jobs run one at a time): split the pairs into jobs of about 40 or fewer"
    )
    assert job.result is None
    again = client.post("/api/score/jobs/", {"model": "m", "pairs": pairs[:40]}, format="json")
    assert again.status_code == 201, "the user may queue the next at once"


def test_two_users_scoring_the_same_pairs_get_a_job_each_and_read_their_own_scores(
    model: ScorerModel,
) -> None:
    body = {"model": "m", "pairs": [["a man", "a person"]]}
    alice, bob = _client("annotator"), _client("adjudicator")
    first = alice.post("/api/score/jobs/", body, format="json")
    second = bob.post("/api/score/jobs/", body, format="json")
    assert (first.status_code, second.status_code) == (201, 201)
    assert second.json()["id"] != first.json()["id"] and second.json()["owner"] == "adjudicator"
    job_id = second.json()["id"]
    assert jobs_runtime.job_run(job_id=job_id, worker="w") == Job.Status.SUCCEEDED
    assert len(bob.get(f"/api/jobs/{job_id}/result/").json()["scores"]) == 1


def test_scoring_inside_requests_has_one_rate_per_user_for_the_api_and_the_page(
    model: ScorerModel, monkeypatch: Any
) -> None:
    from django.test import Client

    from annotate import throttles

    rates = {"user": "100/min", "anon": "100/min", "address": "100/min", "jobs": "100/min"}
    monkeypatch.setattr(throttles.SimpleRateThrottle, "THROTTLE_RATES", {**rates, "score": "3/min"})
    client = _client()
    body = {"model": "m", "pairs": [["a man", "a person"]]}
    statuses = [client.post("/api/score", body, format="json").status_code for _ in range(2)]
    page = Client()
    page.force_login(get_user_model().objects.get(username="annotator"))
    asked = {"model": "m", "first": "a man", "second": "a person"}
    assert page.get("/scorers/", asked).status_code == 200, "the third, from the page"
    refused = page.get("/scorers/", asked)
    assert statuses == [200, 200] and refused.status_code == 429
    assert int(refused["Retry-After"]) > 0
    assert "as many pairs as a user may in a minute" in refused.content.decode()
    assert "similarity " not in refused.content.decode(), "nothing scored"
    assert client.post("/api/score", body, format="json").status_code == 429
    assert page.get("/scorers/").status_code == 200, "the page itself is not counted"
    other = _client("admin")
    assert other.post("/api/score", body, format="json").status_code == 200, "per user"
