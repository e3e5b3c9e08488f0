"""No answer of the app is kept by a cache: pages, API answers and downloads show one user's
view of everyone's work, and a shared computer's browser showed them to the next person with
Back after a logout. Static files keep their long caching."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.test import Client, override_settings
from django.utils import timezone

from annotate import roles
from annotate.models import Job, ScorerModel
from tests.annotate.factories import make_assignment, make_corpus, make_pair, make_user
from tests.frontend.test_content_security_policy import POSTED, _our_pages

pytestmark = pytest.mark.django_db


def _kept_by_no_cache(response: Any) -> bool:
    directives = {part.strip() for part in response.get("Cache-Control", "").split(",")}
    return {"no-store", "private"} <= directives


@pytest.fixture
def world(tmp_path: Path) -> dict[str, Any]:
    admin = make_user("admin", roles.ADMIN)
    alice = make_user("alice", roles.ANNOTATOR)
    corpus = make_corpus()
    pair = make_pair(corpus)
    assignment = make_assignment(pair, alice)
    clients = {"anon": Client(), "admin": Client(), "alice": Client()}
    clients["admin"].force_login(admin)
    clients["alice"].force_login(alice)
    export = Job.objects.create(
        kind="export",
        corpus=corpus,
        owner=admin,
        status=Job.Status.SUCCEEDED,
        result={"file": "corpus.jsonl"},
    )
    Job.objects.filter(pk=export.pk).update(finished_at=timezone.now())
    folder = tmp_path / f"job-{export.pk}"
    folder.mkdir()
    (folder / "corpus.jsonl").write_text('{"id": "p1"}\n', encoding="utf-8")
    return {
        "clients": clients,
        "corpus": corpus.pk,
        "pair": pair.pk,
        "work": assignment.pk,
        "alice": alice.pk,
        "export": export.pk,
        "exports": tmp_path,
        "job": Job.objects.create(kind="adjudication_accept", owner=admin, status="succeeded").pk,
        "scorer": ScorerModel.objects.create(kind="pfsm", name="m", weights={"kind": "pfsm"}).pk,
    }


def test_every_page_of_the_frontend_is_kept_by_no_cache(world: dict[str, Any]) -> None:
    for name, (persona, path) in _our_pages(world).items():
        client = world["clients"][persona]
        response = client.post(path) if name in POSTED else client.get(path)
        assert _kept_by_no_cache(response), (name, response.get("Cache-Control"))


@pytest.mark.parametrize(
    ("persona", "path"),
    [
        ("alice", "/api/me/"),
        ("alice", "/api/queue/"),
        ("admin", "/api/users/"),
        ("admin", "/api/corpora/{corpus}/pairs/"),
        ("admin", "/api/pairs/{pair}/adjudication/"),
        ("admin", "/api/jobs/{export}/"),
        ("admin", "/api/jobs/{export}/result/"),
        ("admin", "/api/jobs/{export}/download/"),
        ("admin", "/scorers/{scorer}/model.json"),
        ("alice", "/api/schema/"),
        ("anon", "/api/me/"),
        ("alice", "/no/such/page/"),
    ],
)
def test_api_answers_and_downloads_are_kept_by_no_cache(
    world: dict[str, Any], persona: str, path: str
) -> None:
    with override_settings(EXPORT_DIR=str(world["exports"])):
        response = world["clients"][persona].get(path.format(**world))
    assert response.status_code in (200, 401, 404), response.status_code
    assert _kept_by_no_cache(response), (path, response.get("Cache-Control"))


def test_the_export_download_is_the_file_and_not_kept(world: dict[str, Any]) -> None:
    with override_settings(EXPORT_DIR=str(world["exports"])):
        response = world["clients"]["admin"].get(f"/api/jobs/{world['export']}/download/")
    assert response.status_code == 200
    assert b"".join(response.streaming_content) == b'{"id": "p1"}\n'
    assert _kept_by_no_cache(response)
