"""Imports create annotator accounts only for names the API would accept, and never a twin of
an existing user in case or look-alike characters: otherwise the import is refused naming the
file, the line and the field, and nothing is stored (not even the accounts of earlier lines)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from annotate import jobs_runtime, roles
from annotate.models import Assignment, Corpus, Job, SentencePair
from annotate.services.corpora import corpus_import
from annotate.services.import_stage import CorpusImportError
from tests.annotate.factories import make_user

pytestmark = pytest.mark.django_db


def _line(pair_id: str, annotator: str) -> str:
    return json.dumps(
        {
            "id": pair_id,
            "source_tokens": ["a", "cat"],
            "target_tokens": ["the", "cat"],
            "annotations": {annotator: {"sure": [[1, 1]], "possible": []}},
        },
        ensure_ascii=False,
    )


def _file(tmp_path: Path, *annotators: str) -> Path:
    path = tmp_path / "work.jsonl"
    lines = [_line(f"p{k}", name) for k, name in enumerate(annotators, start=1)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _refused(path: Path) -> CorpusImportError:
    with pytest.raises(CorpusImportError) as caught:
        corpus_import(corpus_name="c", format_name="jsonl", paths=[path])
    return caught.value


def _nothing_stored(*usernames: str) -> None:
    assert not Corpus.objects.exists()
    assert not SentencePair.objects.exists()
    assert not get_user_model().objects.filter(username__in=usernames).exists()


BAD_NAMES = [
    ("x" * 300, "at most 150 characters; this one has 300"),
    ("ａｌｉｃｅ", "look-alike characters; write it as 'alice'"),
    ("𝖺𝗅𝗂𝖼𝖾", "look-alike characters; write it as 'alice'"),
    ("alice ", "begins or ends with a space or a line break"),
    ("alice\n", "begins or ends with a space or a line break"),
    ("al\nice", "Enter a valid username"),
    ("<b>eve</b>", "Enter a valid username"),
    ("", "annotator name is empty"),
]


@pytest.mark.parametrize(
    ("name", "message"),
    BAD_NAMES,
    ids=["300 chars", "fullwidth", "mathematical", "space", "newline", "inner newline", "html", ""],
)
def test_a_name_the_api_would_refuse_is_refused_naming_file_line_and_field(
    tmp_path: Path, name: str, message: str
) -> None:
    error = _refused(_file(tmp_path, "dora", name))
    assert message in error.message
    assert error.extra["file"] == "work.jsonl"
    assert error.extra["line"] == 2
    assert error.extra["field"] == f"annotations.{name}"
    assert "nothing was imported" in error.message
    _nothing_stored("dora", name)


@pytest.mark.parametrize("variant", ["ALICE", "Alice", "ａｌｉｃｅ".upper()])
def test_a_twin_of_an_existing_user_is_refused_not_created(tmp_path: Path, variant: str) -> None:
    make_user("alice", roles.ANNOTATOR)
    error = _refused(_file(tmp_path, variant))
    assert error.extra["line"] == 1 and error.extra["field"] == f"annotations.{variant}"
    if variant.isascii():
        assert "differs from the existing user 'alice' only in case" in error.message
    _nothing_stored(variant)
    assert get_user_model().objects.count() == 1


def test_two_spellings_of_one_new_name_in_one_import_are_refused(tmp_path: Path) -> None:
    error = _refused(_file(tmp_path, "dora", "Dora"))
    assert "differs from the existing user 'dora'" in error.message
    assert error.extra["line"] == 2
    _nothing_stored("dora", "Dora")


def test_good_names_create_annotators_and_existing_names_get_their_work(tmp_path: Path) -> None:
    alice = make_user("alice", roles.ADJUDICATOR)
    report = corpus_import(
        corpus_name="c", format_name="jsonl", paths=[_file(tmp_path, "alice", "dora.b+1@x")]
    )
    assert report.created_users == ["dora.b+1@x"]
    dora = get_user_model().objects.get(username="dora.b+1@x")
    assert roles.roles_of(dora) == (roles.ANNOTATOR,) and not dora.has_usable_password()
    assert Assignment.objects.filter(annotator=alice).count() == 1


@pytest.mark.parametrize(
    ("name", "message"),
    [("ALICE", "differs from the existing user 'alice'"), ("<i>x</i>", "Enter a valid")],
)
def test_the_annotator_option_follows_the_same_rule(
    tmp_path: Path, name: str, message: str
) -> None:
    make_user("alice", roles.ANNOTATOR)
    (tmp_path / "c.src").write_text("a cat\n")
    (tmp_path / "c.tgt").write_text("the cat\n")
    (tmp_path / "c.align").write_text("1-1\n")
    with pytest.raises(CorpusImportError) as caught:
        corpus_import(
            corpus_name="c", format_name="pharaoh", paths=[tmp_path / "c"], annotator=name
        )
    assert message in caught.value.message and caught.value.extra["field"] == "annotator"
    _nothing_stored(name)


def test_an_upload_with_a_bad_name_fails_its_job_naming_file_line_and_field(
    tmp_path: Path, settings: Any
) -> None:
    settings.UPLOAD_DIR = tmp_path / "uploads"
    admin = make_user("admin", roles.ADMIN)
    make_user("alice", roles.ANNOTATOR)
    client = APIClient()
    client.force_authenticate(admin)
    body = (_line("p1", "dora") + "\n" + _line("p2", "ALICE") + "\n").encode()
    response = client.post(
        "/api/corpora/import/",
        {"corpus": "c", "format": "jsonl", "files": [SimpleUploadedFile("mine.jsonl", body)]},
        format="multipart",
    )
    assert response.status_code == 201, response.content
    job_id = response.json()["id"]
    assert jobs_runtime.job_run(job_id=job_id, worker="w") == Job.Status.FAILED
    error = Job.objects.get(pk=job_id).error
    assert error.startswith("mine.jsonl:2: field 'annotations.ALICE': "), error
    _nothing_stored("dora", "ALICE")
