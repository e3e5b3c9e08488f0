"""What an archived corpus refuses (new work: plans, hand-overs, releases, prefills, imports
into it) and what it still allows (reading, exports, restoring)."""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import override_settings
from django.utils import timezone
from rest_framework.test import APIClient

from annotate import roles
from annotate.exceptions import Conflict
from annotate.models import Assignment, Corpus, Job
from annotate.services.assignments import assignments_release_abandoned
from annotate.services.corpora import (
    CorpusArchived,
    corpus_archive,
    corpus_import_records,
    corpus_in_use_check,
)
from scoring.corpus import PairRecord
from tests.annotate.factories import make_assignment, make_corpus, make_pair, make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin() -> APIClient:
    client = APIClient()
    client.force_authenticate(make_user("admin", roles.ADMIN))
    return client


@pytest.fixture
def archived() -> Corpus:
    corpus = make_corpus("old")
    make_pair(corpus)
    make_user("alice", roles.ANNOTATOR)
    make_user("bob", roles.ANNOTATOR)
    corpus_archive(corpus=corpus)
    corpus.refresh_from_db()
    return corpus


def _refused(response: Any) -> None:
    assert response.status_code == 409, response.content
    error = response.json()["error"]
    assert error["code"] == "corpus_archived"
    assert "archived" in error["message"] and "restore" in error["message"]
    assert not Job.objects.exists()


def test_planning_assignments_in_an_archived_corpus_is_refused(
    admin: APIClient, archived: Corpus
) -> None:
    body = {"annotators": ["alice"], "per_pair": 1}
    _refused(admin.post(f"/api/corpora/{archived.pk}/assignments/", body, format="json"))
    assert not Assignment.objects.exists()


def test_a_prefill_of_an_archived_corpus_is_refused_and_sets_no_retraining(
    admin: APIClient, archived: Corpus
) -> None:
    body = {"aligner": "identity"}
    _refused(admin.post(f"/api/corpora/{archived.pk}/prefill/", body, format="json"))
    body = {"aligner": "em", "retrain_every": 10}
    _refused(admin.post(f"/api/corpora/{archived.pk}/prefill/", body, format="json"))
    archived.refresh_from_db()
    assert archived.prefill_aligner == ""


def test_handing_over_work_of_an_archived_corpus_is_refused(
    admin: APIClient, archived: Corpus
) -> None:
    body = {"annotator": "alice", "to": ["bob"]}
    _refused(admin.post(f"/api/corpora/{archived.pk}/assignments/hand-over/", body, format="json"))


def test_releasing_idle_work_of_an_archived_corpus_is_refused(
    admin: APIClient, archived: Corpus
) -> None:
    body = {"idle_hours": 1, "corpus": archived.pk}
    _refused(admin.post("/api/assignments/release-abandoned/", body, format="json"))


def test_a_release_of_every_corpus_leaves_archived_corpora_alone(archived: Corpus) -> None:
    assignment = make_assignment(archived.pairs.get())
    long_ago = timezone.now() - timedelta(days=3)
    Assignment.objects.filter(pk=assignment.pk).update(
        status=Assignment.Status.IN_PROGRESS, started_at=long_ago, assigned_at=long_ago
    )
    report = assignments_release_abandoned(idle=timedelta(hours=1))
    assert report == {"released": 0, "stuck": 0}
    assert Assignment.objects.get(pk=assignment.pk).annotator_id == assignment.annotator_id


def test_an_upload_into_an_archived_corpus_is_refused(
    admin: APIClient, archived: Corpus, tmp_path: Any
) -> None:
    line = json.dumps({"id": "new", "source_tokens": ["a"], "target_tokens": ["b"]})
    body = {"corpus": "old", "format": "jsonl"}
    body["files"] = [SimpleUploadedFile("pairs.jsonl", line.encode())]  # type: ignore[assignment]
    with override_settings(UPLOAD_DIR=tmp_path):
        _refused(admin.post("/api/corpora/import/", body, format="multipart"))
        assert list(tmp_path.iterdir()) == []


def test_an_import_into_an_archived_corpus_is_refused_and_adds_nothing(archived: Corpus) -> None:
    record = PairRecord(id="new", source_tokens=["a"], target_tokens=["b"])
    with pytest.raises(Conflict, match="archived"):
        corpus_import_records(corpus_name="old", records=[record])
    assert archived.pairs.count() == 1


def test_an_archived_corpus_still_reads_exports_and_restores(
    admin: APIClient, archived: Corpus
) -> None:
    assert admin.get(f"/api/corpora/{archived.pk}/").status_code == 200
    assert admin.get(f"/api/corpora/{archived.pk}/pairs/").status_code == 200
    export = admin.post(f"/api/corpora/{archived.pk}/export/", {"format": "jsonl"}, format="json")
    assert export.status_code == 201
    assert admin.post(f"/api/corpora/{archived.pk}/restore/").status_code == 200
    body = {"annotators": ["alice"], "per_pair": 1}
    planned = admin.post(f"/api/corpora/{archived.pk}/assignments/", body, format="json")
    assert planned.status_code == 201


def test_the_refusal_is_an_exception_class_callers_can_catch(archived: Corpus) -> None:
    assert isinstance(CorpusArchived, type) and issubclass(CorpusArchived, Conflict)
    with pytest.raises(CorpusArchived):
        corpus_in_use_check(archived, doing="planning assignments")


def test_the_queue_order_of_an_archived_corpus_is_not_changed(
    admin: APIClient, archived: Corpus
) -> None:
    """Which pair opens next decides who does which work: new work, refused like the rest."""
    response = admin.post(
        f"/api/corpora/{archived.pk}/queue-order/", {"order": "least_sure"}, format="json"
    )
    _refused(response)
    assert response.json()["error"]["message"] == (
        "corpus “old” is archived: restore it before changing its queue order"
    )
    archived.refresh_from_db()
    assert archived.queue_order == Corpus.QueueOrder.POSITION


def test_the_queue_order_is_set_through_the_api_once_restored(
    admin: APIClient, archived: Corpus
) -> None:
    admin.post(f"/api/corpora/{archived.pk}/restore/")
    response = admin.post(
        f"/api/corpora/{archived.pk}/queue-order/", {"order": "least_sure"}, format="json"
    )
    assert response.status_code == 200, response.content
    assert response.json() == {"id": archived.pk, "name": "old", "queue_order": "least_sure"}
    archived.refresh_from_db()
    assert archived.queue_order == Corpus.QueueOrder.LEAST_SURE
    unknown = admin.post(
        f"/api/corpora/{archived.pk}/queue-order/", {"order": "random"}, format="json"
    )
    assert unknown.status_code == 400
    assert unknown.json()["error"]["field"] == "order"
