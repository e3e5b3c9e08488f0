"""An import attributes work to a superuser's or a staff account only when a superuser imports
it (or the operator, on the server's command line): an admin's upload in a superuser's name
was imported as that superuser's submitted work, onto existing pairs too."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.test import Client
from rest_framework.test import APIClient

from annotate import jobs_runtime, roles
from annotate.models import Annotation, Assignment, Corpus, Job, SentencePair
from annotate.services.corpora import corpus_import, corpus_import_records
from annotate.services.import_stage import CorpusImportError
from tests.annotate.factories import make_user
from tests.annotate.records import make_record

pytestmark = pytest.mark.django_db

SOURCE, TARGET = "the cat sat on the mat", "a cat was sitting on the mat"


def _line(pair_id: str, annotator: str) -> str:
    return json.dumps(
        {
            "id": pair_id,
            "source_tokens": SOURCE.split(),
            "target_tokens": TARGET.split(),
            "annotations": {annotator: {"sure": [[1, 1]], "possible": []}},
        }
    )


def _body(annotator: str) -> bytes:
    return (_line("p1", "dora") + "\n" + _line("p2", annotator) + "\n").encode()


@pytest.fixture(autouse=True)
def uploads(settings: Any, tmp_path: Path) -> None:
    settings.UPLOAD_DIR = tmp_path / "uploads"


def _privileged(kind: str) -> Any:
    account = make_user("root", roles.ADMIN)
    if kind == "superuser":
        account.is_superuser = True
    account.is_staff = True
    account.save()
    return account


def _upload(sender: Any, annotator: str, *, onto: bool) -> Job:
    client = APIClient()
    client.force_authenticate(sender)
    fields = {"onto_existing": "true"} if onto else {}
    response = client.post(
        "/api/corpora/import/",
        {
            "corpus": "c",
            "format": "jsonl",
            "files": [SimpleUploadedFile("mine.jsonl", _body(annotator))],
            **fields,
        },
        format="multipart",
    )
    assert response.status_code == 201, response.content
    job_id = response.json()["id"]
    jobs_runtime.job_run(job_id=job_id, worker="w")
    return Job.objects.get(pk=job_id)


def _pairs_to_add_onto() -> None:
    corpus_import_records(
        corpus_name="c", records=[make_record("p1", SOURCE, TARGET), make_record("p2")]
    )


@pytest.mark.parametrize("onto", [False, True], ids=["new pairs", "onto existing pairs"])
@pytest.mark.parametrize("kind", ["superuser", "staff"])
def test_an_admin_s_upload_of_work_in_a_privileged_account_s_name_fails_naming_where(
    onto: bool, kind: str
) -> None:
    root = _privileged(kind)
    if onto:
        _pairs_to_add_onto()
    pairs = SentencePair.objects.count()
    job = _upload(make_user("ada", roles.ADMIN), "root", onto=onto)
    assert job.status == Job.Status.FAILED
    which = "a superuser" if kind == "superuser" else "a staff account"
    assert job.error.startswith(
        f"mine.jsonl:2: field 'annotations.root': annotator name 'root' is {which}: only a "
        "superuser imports work in its name"
    ), job.error
    assert "nothing was imported" in job.error
    assert not Assignment.objects.filter(annotator=root).exists()
    assert not Annotation.objects.exists()
    assert not get_user_model().objects.filter(username="dora").exists()
    assert SentencePair.objects.count() == pairs
    assert Corpus.objects.filter(name="c").exists() == onto


@pytest.mark.parametrize("onto", [False, True], ids=["new pairs", "onto existing pairs"])
def test_a_superuser_s_upload_may_attribute_work_to_a_superuser(onto: bool) -> None:
    root = _privileged("superuser")
    if onto:
        _pairs_to_add_onto()
    sender = make_user("boss", roles.ADMIN)
    sender.is_superuser = True
    sender.save()
    job = _upload(sender, "root", onto=onto)
    assert job.status == Job.Status.SUCCEEDED, job.error
    assert Assignment.objects.get(annotator=root).status == "submitted"


def test_a_staff_admin_may_import_their_own_work() -> None:
    root = _privileged("staff")
    job = _upload(root, "root", onto=False)
    assert job.status == Job.Status.SUCCEEDED, job.error
    assert Assignment.objects.filter(annotator=root).count() == 1


def test_the_upload_page_refuses_it_too() -> None:
    _privileged("superuser")
    client = Client()
    client.force_login(make_user("ada", roles.ADMIN))
    files = [SimpleUploadedFile("mine.jsonl", _body("root"))]
    response = client.post("/corpora/import/", {"corpus": "c", "format": "jsonl", "files": files})
    assert response.status_code == 302
    job = Job.objects.get(kind="corpus_import")
    assert jobs_runtime.job_run(job_id=job.pk, worker="w") == Job.Status.FAILED
    job.refresh_from_db()
    assert "annotator name 'root' is a superuser" in job.error
    assert not Corpus.objects.exists()


def test_an_upload_whose_sender_is_gone_attributes_nothing_to_a_superuser() -> None:
    _privileged("superuser")
    sender = make_user("ada", roles.ADMIN)
    client = APIClient()
    client.force_authenticate(sender)
    files = [SimpleUploadedFile("mine.jsonl", _body("root"))]
    response = client.post(
        "/api/corpora/import/", {"corpus": "c", "format": "jsonl", "files": files}
    )
    sender.delete()  # the job stays, without its owner
    job_id = response.json()["id"]
    assert jobs_runtime.job_run(job_id=job_id, worker="w") == Job.Status.FAILED
    assert not Corpus.objects.exists()


def test_the_annotator_option_naming_a_superuser_is_refused_for_an_admin(tmp_path: Path) -> None:
    _privileged("superuser")
    folder = tmp_path / "c"
    folder.mkdir()
    (folder / "source.txt").write_text("a cat\n")
    (folder / "target.txt").write_text("the cat\n")
    (folder / "alignment.txt").write_text("1-1\n")
    with pytest.raises(CorpusImportError, match="annotator name 'root' is a superuser"):
        corpus_import(
            corpus_name="c",
            format_name="pharaoh",
            paths=[folder],
            annotator="root",
            importer=make_user("ada", roles.ADMIN),
        )
    assert not Corpus.objects.exists()


def test_the_operator_on_the_command_line_may_attribute_work_to_a_superuser(
    tmp_path: Path,
) -> None:
    root = _privileged("superuser")
    path = tmp_path / "mine.jsonl"
    path.write_bytes(_body("root"))
    out = io.StringIO()
    call_command("import_corpus", "--corpus", "c", "--format", "jsonl", path, stdout=out)
    assert Assignment.objects.get(annotator=root).status == "submitted"
    more = tmp_path / "more.jsonl"
    more.write_text(_line("p1", "root") + "\n")
    call_command(
        "import_corpus", "--corpus", "c", "--format", "jsonl", "--onto-existing", more, stdout=out
    )
    assert Assignment.objects.filter(annotator=root, status="submitted").count() == 2
