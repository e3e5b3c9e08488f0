"""An aligner or scorer option beyond its upper bound is a 400 naming the option, its value and
the allowed range, and nothing is queued: a request cannot hold a worker for hours."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from annotate import roles
from annotate.models import Corpus, Job, SentencePair
from tests.annotate.factories import make_corpus, make_learnable_pair, make_pair, make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_client() -> APIClient:
    client = APIClient()
    client.force_authenticate(make_user("root", roles.ADMIN))
    return client


@pytest.fixture
def corpus() -> Corpus:
    corpus = make_corpus("bounded")
    for index in range(4):
        make_pair(corpus, split="train", external_id=f"p{index}", gold=[(0, 0, True)])
    SentencePair.objects.filter(corpus=corpus).update(gold_score=3.0, gold_label=1)
    # scores that vary: a regression on one value is refused
    SentencePair.objects.filter(corpus=corpus, external_id="p0").update(gold_score=1.0)
    return corpus


@pytest.mark.parametrize(
    ("aligner", "option", "value", "allowed"),
    [
        ("supervised", "trees", 10**9, "in [1, 2000]"),
        ("supervised", "kind_trees", 2001, "in [1, 2000]"),
        ("supervised", "fine_tune_epochs", 11, "in [0, 10]"),
        ("supervised", "max_leaf_nodes", 10**6, "in [2, 512]"),
        ("em", "hmm_iterations", 101, "in [0, 100]"),
        ("em", "max_jump", 10**7, "in [1, 1000]"),
        ("lexical", "max_length", 1001, "in [1, 1000]"),
    ],
)
def test_a_prefill_option_above_its_bound_is_a_400_naming_it_and_queues_nothing(
    admin_client: APIClient,
    corpus: Corpus,
    aligner: str,
    option: str,
    value: int,
    allowed: str,
) -> None:
    body: dict[str, Any] = {"aligner": aligner, "options": {option: value}}
    if aligner == "supervised":  # retraining keeps the options too: not set either
        body["retrain_every"] = 5
    response = admin_client.post(f"/api/corpora/{corpus.pk}/prefill/", body, format="json")
    assert response.status_code == 400, response.content
    error = response.json()["error"]
    assert (error["code"], error["field"]) == ("invalid_option", option)
    assert (
        f"option {option!r} of aligner {aligner!r} must be {allowed}, got {value}"
        in (error["message"])
    )
    assert not Job.objects.exists()
    corpus.refresh_from_db()
    assert (corpus.prefill_aligner, corpus.prefill_options) == ("", {})


@pytest.mark.parametrize(
    ("kind", "options", "field", "message"),
    [
        ("perp", {"epochs": 10**9}, "epochs", "must be in [1, 5000], got 1000000000"),
        ("pfsm", {"max_iter": 3001}, "max_iter", "must be in [1, 3000], got 3001"),
        ("ppda", {"max_iter": 601}, "max_iter", "must be in [1, 600], got 601"),
        ("mt", {"folds": 21}, "folds", "must be in [2, 20], got 21"),
        ("mt", {"c_grid": [1e9]}, "c_grid", "each in (0, 1000], got [1000000000.0]"),
        ("mt", {"c_grid": list(range(1, 12))}, "c_grid", "takes at most 10 values, got 11"),
        (
            "mt",
            {"c_grid": list(range(1, 11)), "gamma_factors": list(range(1, 11)), "folds": 6},
            "c_grid",
            "would make 1,200 fits",
        ),
        ("combined", {"alpha_grid": [1e7], "learner": "ridge"}, "alpha_grid", "(0, 1000000]"),
    ],
)
def test_a_training_option_above_its_bound_is_a_400_naming_it_and_queues_nothing(
    admin_client: APIClient,
    corpus: Corpus,
    kind: str,
    options: dict[str, Any],
    field: str,
    message: str,
) -> None:
    response = admin_client.post(
        "/api/scorers/train/",
        {"kind": kind, "corpus": corpus.name, "train_split": "train", "options": options},
        format="json",
    )
    assert response.status_code == 400, response.content
    error = response.json()["error"]
    assert (error["code"], error["field"]) == ("invalid_option", field)
    assert message in error["message"]
    assert not Job.objects.exists()


def test_options_at_their_upper_bounds_are_queued(admin_client: APIClient, corpus: Corpus) -> None:
    make_learnable_pair(corpus)  # links enough for the supervised aligner's trees
    prefill = admin_client.post(
        f"/api/corpora/{corpus.pk}/prefill/",
        {"aligner": "supervised", "options": {"trees": 2000, "fine_tune_epochs": 10}},
        format="json",
    )
    assert prefill.status_code == 201, prefill.content
    training = admin_client.post(
        "/api/scorers/train/",
        {
            "kind": "perp",
            "corpus": corpus.name,
            "train_split": "train",
            "options": {"epochs": 5000},
        },
        format="json",
    )
    assert training.status_code == 201, training.content
    assert Job.objects.count() == 2
