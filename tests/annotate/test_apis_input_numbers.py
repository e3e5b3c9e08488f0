"""Numbers out of range are a 400 naming the field, with nothing changed (a seed of -1 was a
server error)."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from annotate import roles
from annotate.exceptions import DomainError
from annotate.models import Assignment
from annotate.services.annotations import annotation_open
from annotate.services.assignments import MAX_SEED, assignments_plan
from tests.annotate.factories import make_assignment, make_pair, make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_client() -> APIClient:
    client = APIClient()
    client.force_authenticate(make_user("root", roles.ADMIN))
    return client


@pytest.mark.parametrize("seed", [-1, MAX_SEED + 1, 10**30, "1e400"])
def test_a_plan_with_a_seed_out_of_range_is_a_400_and_assigns_nothing(
    admin_client: APIClient, seed: Any
) -> None:
    pair = make_pair()
    make_user("alice", roles.ANNOTATOR)
    response = admin_client.post(
        f"/api/corpora/{pair.corpus_id}/assignments/",
        {"annotators": ["alice"], "seed": seed},
        format="json",
    )
    assert response.status_code == 400
    assert "seed" in response.json()["error"]["fields"]
    assert not Assignment.objects.exists()


@pytest.mark.parametrize("seed", [0, MAX_SEED])
def test_a_plan_takes_every_seed_in_range(admin_client: APIClient, seed: int) -> None:
    pair = make_pair()
    make_user("alice", roles.ANNOTATOR)
    response = admin_client.post(
        f"/api/corpora/{pair.corpus_id}/assignments/",
        {"annotators": ["alice"], "seed": seed},
        format="json",
    )
    assert response.status_code == 201
    assert response.json()["seed"] == seed


def test_the_plan_service_refuses_a_negative_seed_too() -> None:
    pair = make_pair()
    alice = make_user("alice", roles.ANNOTATOR)
    with pytest.raises(DomainError, match="the seed must be between 0 and"):
        assignments_plan(corpus=pair.corpus, annotators=[alice], seed=-1)


@pytest.mark.parametrize("per_pair", [0, -5, 11, 10**30])
def test_annotators_per_pair_out_of_range_is_a_400(admin_client: APIClient, per_pair: int) -> None:
    pair = make_pair()
    make_user("alice", roles.ANNOTATOR)
    response = admin_client.post(
        f"/api/corpora/{pair.corpus_id}/assignments/",
        {"annotators": ["alice"], "per_pair": per_pair},
        format="json",
    )
    assert response.status_code == 400
    assert "per_pair" in response.json()["error"]["fields"]


@pytest.mark.parametrize("rating", [-0.5, 5.5, 1e308])
def test_a_rating_outside_zero_to_five_is_a_400_naming_it(rating: float) -> None:
    alice = make_user("alice", roles.ANNOTATOR)
    assignment = make_assignment(make_pair(), alice)
    annotation_open(assignment=assignment, actor=alice)
    client = APIClient()
    client.force_authenticate(alice)
    response = client.post(
        f"/api/assignments/{assignment.pk}/submit/", {"version": 1, "rating": rating}, format="json"
    )
    assert response.status_code == 400
    assert "rating" in response.json()["error"]["fields"]
    assignment.refresh_from_db()
    assert assignment.status != Assignment.Status.SUBMITTED
