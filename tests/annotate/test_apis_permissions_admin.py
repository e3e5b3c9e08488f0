"""Permission matrix of the corpus admin's endpoints: each persona gets an
explicit status. Personas and their world come from :mod:`test_apis_permissions`."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from annotate import jobs_runtime, roles
from annotate.models import Job
from annotate.services.exports import export_job_create
from tests.annotate.factories import make_corpus, make_pair, make_user
from tests.annotate.test_apis_permissions import PERSONAS, World, world  # noqa: F401

pytestmark = pytest.mark.django_db

ADMIN = {"alice": 403, "bob": 403, "carol": 403, "anon": 401}


def _corpus(w: World) -> int:
    return int(w.assignment.pair.corpus_id)


def _upload(w: World) -> dict[str, Any]:
    line = '{"id": "u1", "source_tokens": ["a", "b"], '
    line += '"target_tokens": ["a", "b"]}\n'
    return {
        "corpus": "uploaded",
        "format": "jsonl",
        "files": [SimpleUploadedFile("one.jsonl", line.encode())],
    }


def _upload_onto(w: World) -> dict[str, Any]:
    """Another annotator's work on the world's pair, added to it."""
    pair = w.assignment.pair
    line = {
        "id": pair.external_id,
        "source_tokens": pair.source_tokens,
        "target_tokens": pair.target_tokens,
        "annotations": {"dora": {"sure": [[0, 0]], "possible": [], "status": "submitted"}},
    }
    return {
        "corpus": pair.corpus.name,
        "format": "jsonl",
        "onto_existing": "true",
        "files": [SimpleUploadedFile("round.jsonl", (json.dumps(line) + "\n").encode())],
    }


def _export_job(w: World) -> Job:
    job = export_job_create(
        corpus=w.assignment.pair.corpus,
        owner=w.alice_job.owner,
        format_name="jsonl",
        which="all",
    )
    jobs_runtime.job_run(job_id=job.pk, worker="test")
    return job


def _spare_corpus(w: World) -> int:
    """A corpus with a pair and no job, which an admin may delete."""
    return int(make_pair(make_corpus("spare")).corpus_id)


# (name, method, url, body, the admin's status, other personas' statuses where not ADMIN)
Case = tuple[str, str, Callable[[World], str], Callable[[World], Any], int, dict[str, int]]
CASES: list[Case] = [
    ("corpus list", "get", lambda w: "/api/corpora/", lambda w: None, 200, {"carol": 200}),
    ("create corpus", "post", lambda w: "/api/corpora/create/", lambda w: {"name": "n"}, 201, {}),
    ("upload files", "multipart", lambda w: "/api/corpora/import/", _upload, 201, {}),
    ("add annotations", "multipart", lambda w: "/api/corpora/import/", _upload_onto, 201, {}),
    ("corpus figures", "get", lambda w: f"/api/corpora/{_corpus(w)}/", lambda w: None, 200, {}),
    ("pair list", "get", lambda w: f"/api/corpora/{_corpus(w)}/pairs/", lambda w: None, 200, {}),
    (
        "agreement report",
        "post",
        lambda w: f"/api/corpora/{_corpus(w)}/agreement/",
        lambda w: {"annotators": ["alice", "bob"], "samples": 10},
        201,
        {},
    ),
    (
        "assignment progress",
        "get",
        lambda w: f"/api/corpora/{_corpus(w)}/assignments/progress/",
        lambda w: None,
        200,
        {},
    ),
    (
        "hand over",
        "post",
        lambda w: f"/api/corpora/{_corpus(w)}/assignments/hand-over/",
        lambda w: {"annotator": "alice", "to": ["bob"]},
        201,
        {},
    ),
    (
        "export choices",
        "get",
        lambda w: f"/api/corpora/{_corpus(w)}/export/",
        lambda w: None,
        200,
        {},
    ),
    (
        "queue an export",
        "post",
        lambda w: f"/api/corpora/{_corpus(w)}/export/",
        lambda w: {"format": "jsonl"},
        201,
        {},
    ),
    (
        "set the queue order",
        "post",
        lambda w: f"/api/corpora/{_corpus(w)}/queue-order/",
        lambda w: {"order": "least_sure"},
        200,
        {},
    ),
    ("archive", "post", lambda w: f"/api/corpora/{_corpus(w)}/archive/", lambda w: None, 200, {}),
    ("restore", "post", lambda w: f"/api/corpora/{_corpus(w)}/restore/", lambda w: None, 200, {}),
    (
        "what a deletion removes",
        "get",
        lambda w: f"/api/corpora/{_corpus(w)}/delete/",
        lambda w: None,
        200,
        {},
    ),
    (
        "delete a corpus",
        "post",
        lambda w: f"/api/corpora/{_spare_corpus(w)}/delete/",
        lambda w: {"confirm": "spare"},
        201,
        {},
    ),
    ("aligners", "get", lambda w: "/api/aligners/", lambda w: None, 200, {}),
    ("user list", "get", lambda w: "/api/users/", lambda w: None, 200, {}),
    (
        "create user",
        "post",
        lambda w: "/api/users/create/",
        lambda w: {"username": "dora", "roles": ["annotator"]},
        201,
        {},
    ),
    (
        "change roles",
        "patch",
        lambda w: f"/api/users/{w.assignment.annotator_id}/",
        lambda w: {"roles": ["annotator", "adjudicator"]},
        200,
        {},
    ),
    (
        "password link",
        "post",
        lambda w: f"/api/users/{w.assignment.annotator_id}/password-link/",
        lambda w: None,
        201,
        {},
    ),
    # jobs: their owner (alice) or an admin
    (
        "cancel a job",
        "post",
        lambda w: f"/api/jobs/{w.alice_job.pk}/cancel/",
        lambda w: None,
        200,
        {"alice": 200, "bob": 404, "carol": 404},
    ),
    # what a job produced: an admin, or its owner only while they hold the admin role (alice,
    # an annotator, owns these jobs)
    (
        "download an export",
        "get",
        lambda w: f"/api/jobs/{_export_job(w).pk}/download/",
        lambda w: None,
        200,
        {"alice": 403, "bob": 404, "carol": 404},
    ),
    (
        "read a job's result",
        "get",
        lambda w: f"/api/jobs/{_export_job(w).pk}/result/",
        lambda w: None,
        200,
        {"alice": 403, "bob": 404, "carol": 404},
    ),
]


@pytest.fixture(autouse=True)
def _exports(settings: Any, tmp_path: Path) -> None:
    settings.EXPORT_DIR = tmp_path / "exports"


@pytest.mark.parametrize("persona", PERSONAS)
@pytest.mark.parametrize("case", CASES, ids=[case[0] for case in CASES])
def test_each_role_gets_its_status(world: World, persona: str, case: Case) -> None:  # noqa: F811
    _, method, url, body, admin_status, others = case
    make_user("dave", roles.ANNOTATOR)
    expected = {**ADMIN, **others, "admin": admin_status}[persona]
    client = world.clients[persona]
    target, payload = url(world), body(world)
    if method == "multipart":
        response = client.post(target, payload, format="multipart")
    else:
        response = getattr(client, method)(target, payload, format="json")
    assert response.status_code == expected, getattr(response, "content", b"")[:300]
