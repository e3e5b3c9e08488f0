"""Uploading corpus files: the request stores them and queues a ``corpus_import`` job, which
imports them all or nothing and removes them; a bad request stores nothing."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from annotate import jobs_runtime, roles
from annotate.models import Corpus, Job, SentencePair
from annotate.services.uploads import uploads_clean
from tests.annotate.factories import make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def upload_dir(settings: Any, tmp_path: Path) -> Path:
    settings.UPLOAD_DIR = tmp_path / "uploads"
    return settings.UPLOAD_DIR


@pytest.fixture
def admin() -> APIClient:
    client = APIClient()
    client.force_authenticate(make_user("root", roles.ADMIN))
    return client


def _jsonl(count: int, bad_line: int | None = None) -> bytes:
    lines = []
    for k in range(count):
        record: dict[str, Any] = {
            "id": f"p{k}",
            "source_tokens": ["a", "b"],
            "target_tokens": ["c"],
        }
        if k + 1 == bad_line:
            record["target_tokens"] = []
        lines.append(json.dumps(record))
    return ("\n".join(lines) + "\n").encode()


def _stored(upload_dir: Path) -> list[Path]:
    """Stored uploads (Django's incoming temporary files aside)."""
    if not upload_dir.exists():
        return []
    return [path for path in upload_dir.iterdir() if path.name != "incoming"]


def _post(client: APIClient, content: bytes, **fields: str) -> Any:
    body = {"corpus": "up", "format": "jsonl", **fields}
    body["files"] = [SimpleUploadedFile("pairs.jsonl", content)]  # type: ignore[assignment]
    return client.post("/api/corpora/import/", body, format="multipart")


def test_an_upload_is_stored_and_imported_by_a_job_that_removes_it(
    admin: APIClient, upload_dir: Path
) -> None:
    response = _post(admin, _jsonl(5), subcorpus="news")
    assert response.status_code == 201
    job = Job.objects.get(pk=response.json()["id"])
    assert job.kind == "corpus_import" and job.parameters["files"] == ["pairs.jsonl"]
    assert not SentencePair.objects.exists(), "the request only stores the files"
    stored = upload_dir / job.parameters["upload"] / "pairs.jsonl"
    assert stored.read_bytes() == _jsonl(5)
    assert jobs_runtime.job_run(job_id=job.pk, worker="w") == Job.Status.SUCCEEDED
    job.refresh_from_db()
    corpus = Corpus.objects.get(name="up")
    assert job.result["corpus_id"] == corpus.pk and job.result["pairs"] == 5
    assert set(SentencePair.objects.values_list("subcorpus", flat=True)) == {"news"}
    assert not stored.parent.exists()
    result = admin.get(f"/api/jobs/{job.pk}/result/").json()
    assert result["corpus"] == "up" and result["created_corpus"] is True


def test_a_bad_file_fails_its_job_naming_file_and_line_and_stores_nothing(
    admin: APIClient, upload_dir: Path
) -> None:
    job_id = _post(admin, _jsonl(5, bad_line=4)).json()["id"]
    assert jobs_runtime.job_run(job_id=job_id, worker="w") == Job.Status.FAILED
    error = Job.objects.get(pk=job_id).error
    assert error.startswith("pairs.jsonl:4: field 'target_tokens'"), error
    assert str(upload_dir) not in error and "/tmp" not in error
    assert not Corpus.objects.exists() and not SentencePair.objects.exists()
    assert not _stored(upload_dir)


def test_an_option_the_format_does_not_take_is_a_400_and_stores_nothing(
    admin: APIClient, upload_dir: Path
) -> None:
    response = admin.post(
        "/api/corpora/import/",
        {
            "corpus": "up",
            "format": "msrp",
            "annotator": "alice",
            "files": [SimpleUploadedFile("msr.txt", b"x")],
        },
        format="multipart",
    )
    assert response.status_code == 400
    assert "annotator does not apply to the msrp format" in response.json()["error"]["message"]
    assert not Job.objects.exists()
    assert not _stored(upload_dir)


def test_two_files_of_one_name_are_a_400(admin: APIClient, upload_dir: Path) -> None:
    files = [SimpleUploadedFile("a.jsonl", _jsonl(1)), SimpleUploadedFile("a.jsonl", _jsonl(1))]
    response = admin.post(
        "/api/corpora/import/",
        {"corpus": "up", "format": "jsonl", "files": files},
        format="multipart",
    )
    assert response.status_code == 400
    assert "two files are called 'a.jsonl'" in response.json()["error"]["message"]


def test_uploads_no_job_took_are_removed_after_the_keeping_time(
    admin: APIClient, upload_dir: Path, settings: Any
) -> None:
    job = Job.objects.get(pk=_post(admin, _jsonl(2)).json()["id"])
    folder = upload_dir / job.parameters["upload"]
    assert uploads_clean() == 0 and folder.exists()
    later = folder.stat().st_mtime + settings.EXPORT_KEEP_DAYS * 86400 + 1
    assert uploads_clean(now=later) == 1
    assert not folder.exists()
    assert jobs_runtime.job_run(job_id=job.pk, worker="w") == Job.Status.FAILED
    assert "the uploaded files are gone" in Job.objects.get(pk=job.pk).error
