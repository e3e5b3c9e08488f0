"""Permission matrix of every API endpoint: each persona gets an explicit status.

Personas, after healthchecks' alice/bob/charlie: ``alice`` owns the assignment, ``bob`` is
another annotator, ``carol`` adjudicates, ``admin`` administers, ``anon`` is logged out.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
from django.test import override_settings
from rest_framework.test import APIClient

from annotate import roles
from annotate.models import Assignment, GoldAlignment, Job
from annotate.services.annotations import annotation_open, annotation_submit
from tests.annotate.factories import make_assignment, make_pair, make_user

pytestmark = pytest.mark.django_db
PERSONAS = ("alice", "bob", "carol", "admin", "anon")


@dataclass
class World:
    clients: dict[str, APIClient]
    assignment: Assignment
    submitted: Assignment
    trial: Assignment
    alice_job: Job
    admin_job: Job


@pytest.fixture
def world(tmp_path: Any) -> World:
    alice = make_user("alice", roles.ANNOTATOR)
    bob = make_user("bob", roles.ANNOTATOR)
    carol = make_user("carol", roles.ADJUDICATOR)
    admin = make_user("admin", roles.ADMIN)
    pair = make_pair()
    assignment = make_assignment(pair, alice)
    make_assignment(pair, bob)
    annotation_open(assignment=assignment, actor=alice)
    submitted = make_assignment(make_pair(pair.corpus), alice)
    annotation_open(assignment=submitted, actor=alice)
    annotation_submit(assignment=submitted, actor=alice, base_version=1)
    trial = make_assignment(make_pair(pair.corpus, split="trial", gold=[(1, 1, True)]), alice)
    annotation_open(assignment=trial, actor=alice)
    annotation_submit(assignment=trial, actor=alice, base_version=1)
    clients = {}
    for name, user in (("alice", alice), ("bob", bob), ("carol", carol), ("admin", admin)):
        client = APIClient()
        client.force_authenticate(user)
        clients[name] = client
    clients["anon"] = APIClient()
    return World(
        clients=clients,
        assignment=assignment,
        submitted=submitted,
        trial=trial,
        alice_job=Job.objects.create(kind="corpus_stats", owner=alice, corpus=pair.corpus),
        admin_job=Job.objects.create(kind="corpus_stats", owner=admin, corpus=pair.corpus),
    )


def _call(world: World, persona: str, method: str, url: str, body: Any = None) -> int:
    client = world.clients[persona]
    response = getattr(client, method)(url, body, format="json")
    return int(response.status_code)


def _expect(persona: str, table: dict[str, int]) -> int:
    return table[persona]


# Another annotator's assignment is not found; a user without the annotator role opens none.
OWN_ONLY = {"alice": 200, "bob": 404, "carol": 403, "admin": 403, "anon": 401}
EVERY_USER = {"alice": 200, "bob": 200, "carol": 200, "admin": 200, "anon": 401}
ADMIN_ONLY = {"alice": 403, "bob": 403, "carol": 403, "admin": 200, "anon": 401}
ADJUDICATORS = {"alice": 403, "bob": 403, "carol": 200, "admin": 200, "anon": 401}


@pytest.mark.parametrize("persona", PERSONAS)
def test_me_answers_every_logged_in_user(world: World, persona: str) -> None:
    assert _call(world, persona, "get", "/api/me/") == EVERY_USER[persona]


@pytest.mark.parametrize("persona", PERSONAS)
def test_the_queue_answers_every_logged_in_user(world: World, persona: str) -> None:
    assert _call(world, persona, "get", "/api/queue/") == EVERY_USER[persona]


@pytest.mark.parametrize("persona", PERSONAS)
def test_only_the_owner_opens_an_assignment(world: World, persona: str) -> None:
    url = f"/api/assignments/{world.assignment.pk}/open/"
    assert _call(world, persona, "post", url) == OWN_ONLY[persona]


@pytest.mark.parametrize("persona", PERSONAS)
def test_only_the_owner_saves_an_annotation(world: World, persona: str) -> None:
    url = f"/api/assignments/{world.assignment.pk}/annotation/"
    body = {"version": 1, "links": [[0, 0, "S"]]}
    assert _call(world, persona, "put", url, body) == OWN_ONLY[persona]


@pytest.mark.parametrize("persona", PERSONAS)
def test_only_the_owner_submits(world: World, persona: str) -> None:
    url = f"/api/assignments/{world.assignment.pk}/submit/"
    assert _call(world, persona, "post", url, {"version": 1}) == OWN_ONLY[persona]


@pytest.mark.parametrize("persona", PERSONAS)
def test_only_the_owner_reopens(world: World, persona: str) -> None:
    url = f"/api/assignments/{world.submitted.pk}/reopen/"
    assert _call(world, persona, "post", url) == OWN_ONLY[persona]


@pytest.mark.parametrize("persona", PERSONAS)
def test_only_the_owner_sends_heartbeats(world: World, persona: str) -> None:
    url = f"/api/assignments/{world.assignment.pk}/heartbeat/"
    assert _call(world, persona, "post", url) == OWN_ONLY[persona]


@pytest.mark.parametrize("persona", PERSONAS)
def test_only_the_owner_reads_trial_feedback(world: World, persona: str) -> None:
    url = f"/api/assignments/{world.trial.pk}/feedback/"
    assert _call(world, persona, "get", url) == OWN_ONLY[persona]


@pytest.mark.parametrize("persona", PERSONAS)
def test_only_admins_reassign(world: World, persona: str) -> None:
    make_user("dave", roles.ANNOTATOR)
    url = f"/api/assignments/{world.assignment.pk}/reassign/"
    assert _call(world, persona, "post", url, {"annotator": "dave"}) == ADMIN_ONLY[persona]


@pytest.mark.parametrize("persona", PERSONAS)
def test_only_admins_release_abandoned_pairs(world: World, persona: str) -> None:
    url = "/api/assignments/release-abandoned/"
    expected = {**ADMIN_ONLY, "admin": 201}  # a job
    assert _call(world, persona, "post", url, {"idle_hours": 24}) == expected[persona]


@pytest.mark.parametrize("persona", PERSONAS)
def test_only_admins_plan_assignments(world: World, persona: str) -> None:
    url = f"/api/corpora/{world.assignment.pair.corpus_id}/assignments/"
    expected = {**ADMIN_ONLY, "admin": 201}[persona]
    assert _call(world, persona, "post", url, {"annotators": ["alice", "bob"]}) == expected


@pytest.mark.parametrize("persona", PERSONAS)
def test_corpora_are_listed_for_admins_and_adjudicators(world: World, persona: str) -> None:
    assert _call(world, persona, "get", "/api/corpora/") == ADJUDICATORS[persona]


@pytest.mark.parametrize("persona", PERSONAS)
def test_only_admins_queue_a_statistics_job(world: World, persona: str) -> None:
    url = f"/api/corpora/{world.assignment.pair.corpus_id}/stats/"
    expected = {**ADMIN_ONLY, "admin": 201}[persona]
    assert _call(world, persona, "post", url) == expected


@pytest.mark.parametrize("persona", PERSONAS)
def test_only_admins_queue_a_prefill_job(world: World, persona: str) -> None:
    url = f"/api/corpora/{world.assignment.pair.corpus_id}/prefill/"
    expected = {**ADMIN_ONLY, "admin": 201}[persona]
    assert _call(world, persona, "post", url, {"aligner": "identity"}) == expected


@pytest.mark.parametrize("persona", PERSONAS)
def test_the_job_list_answers_every_logged_in_user(world: World, persona: str) -> None:
    assert _call(world, persona, "get", "/api/jobs/") == EVERY_USER[persona]


@pytest.mark.parametrize("persona", PERSONAS)
def test_a_job_is_read_by_its_owner_and_admins(world: World, persona: str) -> None:
    url = f"/api/jobs/{world.alice_job.pk}/"
    expected = {"alice": 200, "bob": 404, "carol": 404, "admin": 200, "anon": 401}
    assert _call(world, persona, "get", url) == expected[persona]


@pytest.mark.parametrize("persona", PERSONAS)
def test_adjudication_list_is_for_adjudicators_and_admins(world: World, persona: str) -> None:
    assert _call(world, persona, "get", "/api/adjudication/") == ADJUDICATORS[persona]


@pytest.mark.parametrize("persona", PERSONAS)
def test_a_pair_overlay_is_for_adjudicators_and_admins(world: World, persona: str) -> None:
    url = f"/api/pairs/{world.assignment.pair_id}/adjudication/"
    assert _call(world, persona, "get", url) == ADJUDICATORS[persona]


@pytest.mark.parametrize("persona", PERSONAS)
def test_gold_is_saved_by_adjudicators_and_admins(world: World, persona: str) -> None:
    url = f"/api/pairs/{world.assignment.pair_id}/gold/"
    body = {"version": 0, "links": [[0, 0, "S"]]}
    assert _call(world, persona, "put", url, body) == ADJUDICATORS[persona]


@pytest.mark.parametrize("persona", PERSONAS)
def test_gold_is_sent_back_to_waiting_by_adjudicators_and_admins(
    world: World, persona: str
) -> None:
    pair = make_pair(world.assignment.pair.corpus, gold=[(1, 1, True)])
    url = f"/api/pairs/{pair.pk}/gold/clear/"
    assert _call(world, persona, "post", url, {"version": 1}) == ADJUDICATORS[persona]
    cleared = not GoldAlignment.objects.filter(pair=pair).exists()
    assert cleared == (ADJUDICATORS[persona] == 200)


@pytest.mark.parametrize("persona", PERSONAS)
def test_a_trial_pairs_gold_is_sent_back_to_waiting_by_nobody(world: World, persona: str) -> None:
    url = f"/api/pairs/{world.trial.pair_id}/gold/clear/"
    expected = 409 if ADJUDICATORS[persona] == 200 else ADJUDICATORS[persona]
    assert _call(world, persona, "post", url, {"version": 1}) == expected
    assert GoldAlignment.objects.filter(pair_id=world.trial.pair_id).exists()


@pytest.mark.parametrize("persona", PERSONAS)
def test_the_next_waiting_pair_is_for_adjudicators_and_admins(world: World, persona: str) -> None:
    url = f"/api/adjudication/next/?after={world.assignment.pair_id}&sort=disagreement"
    assert _call(world, persona, "get", url) == ADJUDICATORS[persona]


@pytest.mark.parametrize("persona", PERSONAS)
def test_the_gold_history_is_for_adjudicators_and_admins(world: World, persona: str) -> None:
    url = f"/api/pairs/{world.trial.pair_id}/gold/events/"
    assert _call(world, persona, "get", url) == ADJUDICATORS[persona]


@pytest.mark.parametrize("persona", PERSONAS)
def test_guidelines_are_read_by_every_logged_in_user(world: World, persona: str) -> None:
    assert _call(world, persona, "get", "/api/guidelines/") == EVERY_USER[persona]


@pytest.mark.parametrize("persona", PERSONAS)
def test_guidelines_are_set_only_by_admins(world: World, persona: str, tmp_path: Any) -> None:
    with override_settings(VAR_DIR=tmp_path):
        status = _call(world, persona, "put", "/api/guidelines/", {"markdown": "# Rules"})
    assert status == ADMIN_ONLY[persona]


@pytest.mark.parametrize("persona", PERSONAS)
def test_the_openapi_schema_is_complete_for_users_and_closed_to_strangers(
    world: World, persona: str
) -> None:
    response = world.clients[persona].get("/api/schema/", format="json")
    assert response.status_code == EVERY_USER[persona]
    if persona == "anon":
        return
    body = response.content.decode()
    assert "/api/assignments/{assignment_id}/annotation/" in body
    assert "AnnotationSaveApiInput" in body


def test_an_annotator_whose_role_was_taken_away_opens_saves_and_submits_nothing(
    world: World,
) -> None:
    from django.contrib.auth import get_user_model
    from django.test import Client

    alice = get_user_model().objects.get(username="alice")
    alice.groups.remove(roles.role_group(roles.ANNOTATOR))
    base = f"/api/assignments/{world.assignment.pk}"
    assert _call(world, "alice", "post", f"{base}/open/") == 403
    assert _call(world, "alice", "put", f"{base}/annotation/", {"version": 1, "links": []}) == 403
    assert _call(world, "alice", "post", f"{base}/submit/", {"version": 1}) == 403
    refused = world.clients["alice"].post(f"{base}/open/")
    assert "does not hold the annotator role" in refused.json()["error"]["message"]
    assert world.clients["alice"].get("/api/queue/").json()["total"] == 0
    page = Client()
    page.force_login(alice)
    response = page.get(f"/work/{world.assignment.pk}/")
    assert response.status_code == 403
    assert "does not hold the annotator role" in response.content.decode()
    alice.groups.add(roles.role_group(roles.ANNOTATOR))  # given back: her work is there again
    assert _call(world, "alice", "post", f"{base}/open/") == 200


def test_another_annotators_assignment_is_not_found_naming_who_is_signed_in(world: World) -> None:
    """A tab of alice's whose browser is now signed in as bob is told why its save fails."""
    response = world.clients["bob"].post(f"/api/assignments/{world.assignment.pk}/open/")
    assert response.status_code == 404
    assert response.json()["error"]["message"].startswith(
        f"assignment {world.assignment.pk} is not one of bob's, who is signed in here"
    )
