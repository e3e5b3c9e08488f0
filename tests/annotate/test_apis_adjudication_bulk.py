"""The bulk accept through the API: *Accept where the annotators agree* and its undo, each an
operation of its own with the list's filters; every persona gets an explicit status.

Personas, after healthchecks' alice/bob/charlie: ``alice`` and ``bob`` annotate, ``carol``
adjudicates and started the bulk accept, ``dave`` is another adjudicator, ``admin``
administers, ``anon`` is logged out. Roles are global, not per corpus: an admin of the
workbench acts on every corpus.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
from rest_framework.test import APIClient

from annotate import roles
from annotate.jobs_runtime import job_run
from annotate.models import Corpus, GoldAlignment, Job, SentencePair
from annotate.selectors.adjudication import AdjudicationFilters
from annotate.services.adjudication_bulk import adjudication_accept_job_create
from annotate.services.corpora import corpus_archive, corpus_import_records, corpus_restore
from tests.annotate.factories import make_user
from tests.annotate.records import make_record

pytestmark = pytest.mark.django_db
PERSONAS = ("alice", "bob", "carol", "dave", "admin", "anon")
ACCEPT_URL = "/api/adjudication/accept-agreed/"


@dataclass
class World:
    clients: dict[str, APIClient]
    users: dict[str, Any]
    corpora: dict[str, Corpus]
    pairs: dict[str, SentencePair]


def _import(corpus: str, pairs: dict[str, tuple[str, dict[str, str]]]) -> None:
    """Pairs by name: their split and each annotator's submitted links."""
    records = [
        make_record(name, "a b c", "a b c", prefill=None, annotations=found, split=split)
        for name, (split, found) in pairs.items()
    ]
    corpus_import_records(corpus_name=corpus, records=records)


@pytest.fixture
def world() -> World:
    users = {
        "alice": make_user("alice", roles.ANNOTATOR),
        "bob": make_user("bob", roles.ANNOTATOR),
        "carol": make_user("carol", roles.ADJUDICATOR),
        "dave": make_user("dave", roles.ADJUDICATOR),
        "admin": make_user("admin", roles.ADMIN),
    }
    _import(
        "news",
        {
            "same": ("train", {"A": "0-0 1?1", "B": "0-0 1?1"}),
            "apart": ("train", {"A": "0-0", "B": "1-1"}),
            "held": ("test", {"A": "2-2", "B": "2-2"}),
        },
    )
    _import("other", {"elsewhere": ("train", {"A": "1-1", "B": "1-1"})})
    clients = {}
    for name, user in users.items():
        client = APIClient()
        client.force_authenticate(user)
        clients[name] = client
    clients["anon"] = APIClient()
    return World(
        clients=clients,
        users=users,
        corpora={corpus.name: corpus for corpus in Corpus.objects.all()},
        pairs={pair.external_id: pair for pair in SentencePair.objects.all()},
    )


def _carols_finished_accept(world: World) -> Job:
    job = adjudication_accept_job_create(filters=AdjudicationFilters(), owner=world.users["carol"])
    job_run(job_id=job.pk, worker="test")
    job.refresh_from_db()
    assert job.status == Job.Status.SUCCEEDED, job.error
    return job


# Adjudicators and admins start a bulk accept; annotators hold no right to gold.
ACCEPT = {"alice": 403, "bob": 403, "carol": 201, "dave": 201, "admin": 201, "anon": 401}
# The undo of carol's accept: hers, or an admin's (who sees every job); another adjudicator
# does not see her job at all.
UNDO = {"alice": 403, "bob": 403, "carol": 201, "dave": 404, "admin": 201, "anon": 401}


@pytest.mark.parametrize("persona", PERSONAS)
def test_a_bulk_accept_is_started_by_adjudicators_and_admins(world: World, persona: str) -> None:
    body = {"corpus": world.corpora["news"].pk}
    response = world.clients[persona].post(ACCEPT_URL, body, format="json")
    assert response.status_code == ACCEPT[persona], response.content
    started = Job.objects.filter(kind="adjudication_accept")
    assert started.exists() == (ACCEPT[persona] == 201)
    if ACCEPT[persona] == 201:
        job = started.get()
        assert response.json()["id"] == job.pk
        assert (job.owner.get_username(), job.corpus) == (persona, world.corpora["news"])
        expected = {"filters": {"corpus": job.corpus.pk}, "expected": 2, "owner": job.owner_id}
        assert job.parameters == expected


@pytest.mark.parametrize("persona", PERSONAS)
def test_a_bulk_accept_is_undone_by_its_adjudicator_or_an_admin(world: World, persona: str) -> None:
    accept = _carols_finished_accept(world)
    url = f"{ACCEPT_URL}{accept.pk}/undo/"
    response = world.clients[persona].post(url, format="json")
    assert response.status_code == UNDO[persona], response.content
    undo = Job.objects.filter(kind="adjudication_accept_undo")
    assert undo.exists() == (UNDO[persona] == 201)
    if UNDO[persona] == 201:
        assert undo.get().parameters == {"job": accept.pk}


# Carol's bulk accept as a job: she and the admins read it, its result and cancel it; nobody
# else finds it (an annotator neither: the jobs API answers every signed-in user, by owner).
HER_JOB = {"alice": 404, "bob": 404, "carol": 200, "dave": 404, "admin": 200, "anon": 401}


@pytest.mark.parametrize("persona", PERSONAS)
def test_a_bulk_accept_job_is_read_and_cancelled_by_its_adjudicator_or_an_admin(
    world: World, persona: str
) -> None:
    finished = _carols_finished_accept(world)
    client = world.clients[persona]
    assert client.get(f"/api/jobs/{finished.pk}/").status_code == HER_JOB[persona]
    assert client.get(f"/api/jobs/{finished.pk}/result/").status_code == HER_JOB[persona]
    listed = client.get("/api/jobs/?kind=adjudication_accept")
    if persona != "anon":
        ids = [job["id"] for job in listed.json()]
        assert ids == ([finished.pk] if HER_JOB[persona] == 200 else [])
    _import("news", {"again": ("train", {"A": "2-2", "B": "2-2"})})
    queued = adjudication_accept_job_create(
        filters=AdjudicationFilters(), owner=world.users["carol"]
    )
    response = client.post(f"/api/jobs/{queued.pk}/cancel/")
    assert response.status_code == HER_JOB[persona], response.content
    queued.refresh_from_db()
    assert (queued.status == Job.Status.CANCELLED) == (HER_JOB[persona] == 200)


def test_the_accept_takes_the_lists_filters_and_saves_only_agreed_pairs_of_them(
    world: World,
) -> None:
    body = {"corpus": world.corpora["news"].pk, "split": "train", "q": "same"}
    response = world.clients["carol"].post(ACCEPT_URL, body, format="json")
    assert response.status_code == 201, response.content
    job = Job.objects.get(pk=response.json()["id"])
    assert job.parameters["filters"] == {
        "corpus": world.corpora["news"].pk,
        "split": "train",
        "search": "same",
    }
    job_run(job_id=job.pk, worker="test")
    job.refresh_from_db()
    assert (job.result["matched"], job.result["accepted"]) == (1, 1)
    gold = set(GoldAlignment.objects.values_list("pair__external_id", flat=True))
    assert gold == {"same"}, "not the disagreeing, the other split's or the other corpus's"


def test_the_undo_sends_back_to_waiting_what_the_accept_wrote_once(world: World) -> None:
    accept = _carols_finished_accept(world)
    assert GoldAlignment.objects.count() == 3
    url = f"{ACCEPT_URL}{accept.pk}/undo/"
    response = world.clients["carol"].post(url)
    assert response.status_code == 201
    job_run(job_id=response.json()["id"], worker="test")
    assert not GoldAlignment.objects.exists()
    again = world.clients["carol"].post(url)
    assert again.status_code == 409
    assert f"was undone by #{response.json()['id']} already" in again.json()["error"]["message"]


def test_the_undo_of_an_accept_with_golds_in_a_corpus_archived_since_is_refused(
    world: World,
) -> None:
    """The undo cleared the golds of an archived corpus, whose pairs leave the adjudication
    list: they could be neither seen nor accepted again there. Archiving keeps a corpus's work
    as it is, so the undo is refused as every other change to it is, and done once restored."""
    accept = _carols_finished_accept(world)  # of every corpus: news and other
    corpus_archive(corpus=world.corpora["other"])
    url = f"{ACCEPT_URL}{accept.pk}/undo/"
    response = world.clients["carol"].post(url)
    assert response.status_code == 409, response.content
    error = response.json()["error"]
    assert error["code"] == "corpus_archived"
    assert "archived corpus \u201cother\u201d: restore it" in error["message"]
    assert not Job.objects.filter(kind="adjudication_accept_undo").exists()
    assert GoldAlignment.objects.count() == 3
    corpus_restore(corpus=world.corpora["other"])
    response = world.clients["carol"].post(url)
    assert response.status_code == 201, response.content
    job_run(job_id=response.json()["id"], worker="test")
    assert not GoldAlignment.objects.exists()


def test_an_undo_queued_before_its_corpus_was_archived_clears_nothing(world: World) -> None:
    accept = _carols_finished_accept(world)
    response = world.clients["carol"].post(f"{ACCEPT_URL}{accept.pk}/undo/")
    assert response.status_code == 201
    corpus_archive(corpus=world.corpora["news"])
    assert job_run(job_id=response.json()["id"], worker="test") == Job.Status.FAILED
    undo = Job.objects.get(pk=response.json()["id"])
    assert "archived corpus \u201cnews\u201d: restore it" in undo.error
    assert GoldAlignment.objects.count() == 3


def test_another_adjudicators_same_accept_while_one_is_queued_is_refused_not_given_hers(
    world: World,
) -> None:
    """Dave was answered with carol's queued job, the same request (200, "reused"): the golds
    were saved in her name, and he could neither read nor undo the job. A corpus takes one bulk
    accept at a time, so he is told whose job is pending; the job's parameters name its owner,
    so no identical request of someone else's can be handed it."""
    body = {"corpus": world.corpora["news"].pk}
    carols = world.clients["carol"].post(ACCEPT_URL, body, format="json")
    daves = world.clients["dave"].post(ACCEPT_URL, body, format="json")
    assert (carols.status_code, daves.status_code) == (201, 409), daves.content
    assert f"carol's bulk accept #{carols.json()['id']} of corpus “news”" in str(daves.json())
    assert Job.objects.get().parameters["owner"] == world.users["carol"].pk
    job_run(job_id=carols.json()["id"], worker="test")
    assert world.clients["dave"].get(f"/api/jobs/{carols.json()['id']}/").status_code == 404
    assert set(GoldAlignment.objects.values_list("adjudicator__username", flat=True)) == {"carol"}


@pytest.mark.parametrize(
    ("body", "field", "message"),
    [
        ({"corpus": "news"}, "corpus", "valid integer"),
        ({"status": "lost"}, "status", "not a valid choice"),
        ({"subcorpora": "mtc"}, "subcorpora", "unknown field"),
        ({"sort": "id"}, "sort", "unknown field"),
    ],
)
def test_a_filter_the_list_does_not_have_is_refused_rather_than_widening_the_accept(
    world: World, body: dict[str, Any], field: str, message: str
) -> None:
    response = world.clients["carol"].post(ACCEPT_URL, body, format="json")
    assert response.status_code == 400, response.content
    error = response.json()["error"]
    assert field in error["fields"] and message in str(error["fields"][field])
    assert not Job.objects.exists()


def test_nothing_to_accept_is_a_400_and_a_second_start_while_one_runs_a_409(world: World) -> None:
    empty = world.clients["carol"].post(ACCEPT_URL, {"q": "apart"}, format="json")
    assert empty.status_code == 400
    assert "nothing to accept" in empty.json()["error"]["message"]
    first = world.clients["carol"].post(ACCEPT_URL, {}, format="json")
    assert first.status_code == 201
    second = world.clients["carol"].post(ACCEPT_URL, {"q": "same"}, format="json")
    assert second.status_code == 409
    assert f"your bulk accept #{first.json()['id']} is still pending" in str(second.json())
    undo_too_soon = world.clients["carol"].post(f"{ACCEPT_URL}{first.json()['id']}/undo/")
    assert undo_too_soon.status_code == 409
    assert Job.objects.count() == 1


def test_the_undo_of_a_job_that_is_no_bulk_accept_is_refused(world: World) -> None:
    other = Job.objects.create(
        kind="corpus_stats", owner=world.users["carol"], status=Job.Status.SUCCEEDED
    )
    response = world.clients["carol"].post(f"{ACCEPT_URL}{other.pk}/undo/")
    assert response.status_code == 400
    assert f"job {other.pk} is not a bulk accept" in response.json()["error"]["message"]


def test_both_operations_are_in_the_openapi_schema(world: World) -> None:
    schema = world.clients["carol"].get("/api/schema/", format="json").content.decode()
    assert "/api/adjudication/accept-agreed/" in schema
    assert "/api/adjudication/accept-agreed/{job_id}/undo/" in schema
    assert "AdjudicationAcceptAgreedApiInput" in schema
