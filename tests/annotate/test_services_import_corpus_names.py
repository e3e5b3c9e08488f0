"""An import's messages show the corpus's name as it is written, in typographic quotes: a
Python repr changed its quotes with its content and escaped them (``'O\\'Brien\\'s "notes"'``)."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from rest_framework.test import APIClient

from annotate import jobs_runtime, roles
from annotate.exceptions import quoted
from annotate.models import Job, SentencePair
from annotate.services.corpora import corpus_import_records
from annotate.services.import_stage import CorpusImportError
from tests.annotate.factories import make_user
from tests.annotate.records import make_record

pytestmark = pytest.mark.django_db

NAMES = ["O'Brien's notes", "O'Brien's \"notes\""]


def test_a_name_is_quoted_as_written_and_only_what_does_not_print_is_escaped() -> None:
    assert quoted("O'Brien's notes") == "\u201cO'Brien's notes\u201d"
    assert quoted('say "hi"') == '\u201csay "hi"\u201d'
    assert quoted("a\nb\tc") == "\u201ca\\nb\\tc\u201d"


@pytest.fixture
def admin(settings: Any, tmp_path: Path) -> APIClient:
    settings.UPLOAD_DIR = tmp_path / "uploads"
    client = APIClient()
    client.force_authenticate(make_user("root", roles.ADMIN))
    return client


def _upload(client: APIClient, corpus: str, lines: list[dict[str, Any]], **fields: str) -> Any:
    content = "".join(json.dumps(line) + "\n" for line in lines).encode()
    body: dict[str, Any] = {"corpus": corpus, "format": "jsonl", **fields}
    body["files"] = [SimpleUploadedFile("pairs.jsonl", content)]
    return client.post("/api/corpora/import/", body, format="multipart")


LINE = {"id": "p7", "source_tokens": ["a"], "target_tokens": ["b"]}


@pytest.mark.parametrize("name", NAMES)
def test_an_upload_onto_a_corpus_that_is_not_there_names_it_as_written(
    admin: APIClient, name: str
) -> None:
    response = _upload(admin, name, [LINE], onto_existing="true")
    assert response.status_code == 400
    message = response.json()["error"]["message"]
    assert f"there is no corpus named \u201c{name}\u201d:" in message, message
    assert "\\" not in message


@pytest.mark.parametrize("name", NAMES)
def test_a_failed_import_job_names_the_corpus_as_written(admin: APIClient, name: str) -> None:
    corpus_import_records(corpus_name=name, records=[make_record("p1")])
    line = {**LINE, "gold_alignment": {"sure": [[0, 0]], "possible": []}}
    job_id = _upload(admin, name, [line], onto_existing="true").json()["id"]
    assert jobs_runtime.job_run(job_id=job_id, worker="w") == Job.Status.FAILED
    error = Job.objects.get(pk=job_id).error
    assert f"not in corpus \u201c{name}\u201d: 'p7'" in error, error
    assert "\\" not in error


def test_a_pair_id_the_corpus_holds_names_the_corpus_as_written() -> None:
    name = NAMES[1]
    corpus_import_records(corpus_name=name, records=[make_record("p1")])
    with pytest.raises(CorpusImportError) as refused:
        corpus_import_records(corpus_name=name, records=[make_record("p1")])
    assert f"already exists in corpus \u201c{name}\u201d" in refused.value.message
    assert "\\" not in refused.value.message
    assert SentencePair.objects.count() == 1


def test_the_import_command_reports_the_corpus_as_written(tmp_path: Path) -> None:
    path = tmp_path / "pairs.jsonl"
    path.write_text(json.dumps(LINE) + "\n", encoding="utf-8")
    out = io.StringIO()
    call_command("import_corpus", "--corpus", NAMES[1], "--format", "jsonl", path, stdout=out)
    assert f"into corpus \u201c{NAMES[1]}\u201d (new)" in out.getvalue(), out.getvalue()
