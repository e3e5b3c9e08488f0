"""Uploading corpus files: the request stores them and queues a ``corpus_import`` job, which
imports them all or nothing and removes them; a bad request stores nothing."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path, PurePosixPath
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from annotate import jobs_runtime, roles
from annotate.models import Corpus, GoldAlignment, Job, SentencePair
from annotate.services.corpora import corpus_import_records
from annotate.services.exports import export_file, export_job_create
from annotate.services.uploads import uploads_clean
from tests.annotate.factories import make_user
from tests.annotate.records import make_record

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
    assert job.corpus == corpus, "listed with its corpus once imported"
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


def test_a_failed_import_into_an_existing_corpus_is_listed_with_it(
    admin: APIClient, upload_dir: Path
) -> None:
    corpus_import_records(corpus_name="up", records=[make_record("kept")])
    corpus = Corpus.objects.get(name="up")
    job_id = _post(admin, _jsonl(5, bad_line=2)).json()["id"]
    assert Job.objects.get(pk=job_id).corpus == corpus
    assert jobs_runtime.job_run(job_id=job_id, worker="w") == Job.Status.FAILED
    job = Job.objects.get(pk=job_id)
    assert job.corpus == corpus and job.error.startswith("pairs.jsonl:2:")
    assert list(SentencePair.objects.values_list("external_id", flat=True)) == ["kept"]


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


def test_a_new_corpus_name_with_a_bidirectional_override_is_a_400_storing_nothing(
    admin: APIClient, upload_dir: Path
) -> None:
    response = _post(admin, _jsonl(1), corpus="up\u202epu")
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["field"] == "corpus" and "U+202E" in error["message"]
    assert not Job.objects.exists() and _stored(upload_dir) == []


def test_two_files_of_one_name_are_a_400(admin: APIClient, upload_dir: Path) -> None:
    files = [SimpleUploadedFile("a.jsonl", _jsonl(1)), SimpleUploadedFile("a.jsonl", _jsonl(1))]
    response = admin.post(
        "/api/corpora/import/",
        {"corpus": "up", "format": "jsonl", "files": files},
        format="multipart",
    )
    assert response.status_code == 400
    assert "two files are called 'a.jsonl'" in response.json()["error"]["message"]


def test_a_file_name_longer_than_the_file_system_takes_is_a_400_and_stores_nothing(
    admin: APIClient, upload_dir: Path
) -> None:
    # 206 characters, under the 255 Django keeps, but 406 bytes in UTF-8: no file system
    # writes it (it was a 500)
    name = "é" * 200 + ".jsonl"
    body = {"corpus": "up", "format": "jsonl", "files": [SimpleUploadedFile(name, _jsonl(1))]}
    response = admin.post("/api/corpora/import/", body, format="multipart")
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["field"] == "files" and "is longer than 255 bytes in UTF-8" in error["message"]
    assert not Job.objects.exists() and _stored(upload_dir) == []
    # a name of 250 bytes is stored
    body["files"] = [SimpleUploadedFile("é" * 122 + ".jsonl", _jsonl(1))]
    assert admin.post("/api/corpora/import/", body, format="multipart").status_code == 201


def test_an_empty_file_is_a_400_naming_it_and_stores_nothing(
    admin: APIClient, upload_dir: Path
) -> None:
    files = [SimpleUploadedFile("a.jsonl", _jsonl(1)), SimpleUploadedFile("b.jsonl", b"")]
    response = admin.post(
        "/api/corpora/import/",
        {"corpus": "up", "format": "jsonl", "files": files},
        format="multipart",
    )
    assert response.status_code == 400
    error = response.json()["error"]
    assert (error["message"], error["field"]) == ("b.jsonl is empty: nothing was imported", "files")
    assert not Job.objects.exists() and not (upload_dir.exists() and any(upload_dir.iterdir()))


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


# --- an export's zip ---------------------------------------------------------------------------


@pytest.fixture
def exported(settings: Any, tmp_path: Path) -> Corpus:
    """A corpus with two annotators' work, a prefill and a gold, to export."""
    settings.EXPORT_DIR = tmp_path / "exports"
    corpus_import_records(
        corpus_name="c",
        records=[
            make_record("p1", annotations={"A": "1-1 3-4 4?5", "B": "1-1 2-3"}, gold="1-1 3-4"),
            make_record(
                "p2",
                "a dog ran home",
                "the dog runs home",
                prefill="1-1",
                annotations={"A": "0-0 1?1"},
            ),
        ],
    )
    return Corpus.objects.get(name="c")


def _export(corpus: Corpus, format_name: str, which: str, annotator: str = "") -> Path:
    job = export_job_create(
        corpus=corpus, format_name=format_name, which=which, annotator=annotator
    )
    assert jobs_runtime.job_run(job_id=job.pk, worker="w") == Job.Status.SUCCEEDED
    job.refresh_from_db()
    return export_file(job)


def _upload(client: APIClient, path: Path, format_name: str, **fields: str) -> Any:
    body: dict[str, Any] = {"format": format_name, **fields}
    body["files"] = [SimpleUploadedFile(path.name, path.read_bytes())]
    return client.post("/api/corpora/import/", body, format="multipart")


def _imported(client: APIClient, path: Path, format_name: str, **fields: str) -> Corpus:
    response = _upload(client, path, format_name, **fields)
    assert response.status_code == 201, response.json()
    job_id = response.json()["id"]
    assert jobs_runtime.job_run(job_id=job_id, worker="w") == Job.Status.SUCCEEDED
    return Corpus.objects.get(name=fields["corpus"])


def _members(path: Path) -> dict[str, bytes]:
    """An export's files by name (a zip's members by their own name, without their folder)."""
    if not zipfile.is_zipfile(path):
        return {"": path.read_bytes()}
    with zipfile.ZipFile(path) as archive:
        return {PurePosixPath(n).name: archive.read(n) for n in archive.namelist()}


@pytest.mark.parametrize(("which", "annotator"), [("gold", ""), ("annotator", "A")])
def test_a_pharaoh_exports_zip_imports_back_and_exports_byte_identically(
    admin: APIClient, upload_dir: Path, exported: Corpus, which: str, annotator: str
) -> None:
    first = _export(exported, "pharaoh", which, annotator)
    assert first.suffix == ".zip"
    copy = _imported(admin, first, "pharaoh", corpus="copy", annotator=annotator)
    again = _export(copy, "pharaoh", which, annotator)
    assert _members(again) == _members(first)
    assert not _stored(upload_dir)


@pytest.mark.parametrize("format_name", ["pharaoh", "jacana", "multimwa"])
@pytest.mark.parametrize(
    ("which", "annotator", "entry"), [("gold", "", "gold"), ("annotator", "A", "annotator-A")]
)
def test_an_export_of_every_alignment_imports_the_gold_or_the_annotators_named(
    admin: APIClient,
    upload_dir: Path,
    exported: Corpus,
    format_name: str,
    which: str,
    annotator: str,
    entry: str,
) -> None:
    every = _export(exported, format_name, "all")
    assert every.suffix == ".zip"
    copy = _imported(admin, every, format_name, corpus="copy", annotator=annotator)
    again = _export(copy, format_name, which, annotator)
    alone = _export(exported, format_name, which, annotator)
    assert _members(again) == _members(alone)
    if format_name != "pharaoh":
        with zipfile.ZipFile(every) as archive:
            suffix = {"jacana": ".json", "multimwa": ".tsv"}[format_name]
            assert again.read_bytes() == archive.read(entry + suffix)


def _zip(path: Path, members: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w") as archive:
        for name, content in members.items():
            archive.writestr(name, content)
    return path


@pytest.mark.parametrize(
    ("format_name", "members", "annotator", "field", "message"),
    [
        (
            "jsonl",
            {"c-pharaoh-gold/source.txt": b"a\n", "c-pharaoh-gold/target.txt": b"b\n"},
            "",
            "files",
            "up.zip is a .zip archive, which the jsonl format does not read: upload the "
            "export's zip with the format pharaoh",
        ),
        (
            "pharaoh",
            {"c-pharaoh-gold/source.txt": b"a\n", "c-pharaoh-gold/alignment.txt": b"\n"},
            "",
            "files",
            "up.zip lacks target.txt (a pharaoh export holds source.txt, target.txt, "
            "alignment.txt, ids.txt)",
        ),
        (
            "pharaoh",
            {"notes.md": b"x"},
            "",
            "files",
            "up.zip is a .zip archive without a pharaoh export in it",
        ),
        (
            "jacana",
            {"annotator-A.json": b"[]", "prefill.json": b"[]"},
            "",
            "annotator",
            "up.zip holds several alignments (annotator-A, prefill) and no gold",
        ),
        (
            "multimwa",
            {"annotator-A.tsv": b"", "gold.tsv": b""},
            "Z",
            "annotator",
            "up.zip holds no alignment of annotator 'Z' (it holds annotator-A, gold)",
        ),
        (
            "pharaoh",
            {"../../source.txt": b"a\n", "../target.txt": b"b\n", "alignment.txt": b"0-0\n"},
            "",
            "files",
            "up.zip is no export's zip: its member '../../source.txt' points outside the "
            "archive's folder",
        ),
    ],
)
def test_a_zip_that_cannot_be_imported_is_refused_before_a_job_is_queued(
    admin: APIClient,
    upload_dir: Path,
    tmp_path: Path,
    format_name: str,
    members: dict[str, bytes],
    annotator: str,
    field: str,
    message: str,
) -> None:
    path = _zip(tmp_path / "up.zip", members)
    response = _upload(admin, path, format_name, corpus="up", annotator=annotator)
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["message"].startswith(message), error
    assert error["field"] == field
    assert not Job.objects.exists()
    assert not _stored(upload_dir)


@pytest.mark.parametrize("format_name", ["multimwa", "pharaoh", "jsonl"])
def test_an_exports_zip_cut_short_is_refused_as_damaged_before_a_job_is_queued(
    admin: APIClient, upload_dir: Path, tmp_path: Path, format_name: str
) -> None:
    # a download broken off: it begins as a zip but has no directory at its end
    whole = _zip(tmp_path / "whole.zip", {"gold.tsv": b"p1\ta\tN/A\tb\tN/A\t1\t1\t0-0\t\n" * 50})
    cut = tmp_path / "c-multimwa-all.zip"
    cut.write_bytes(whole.read_bytes()[:-30])
    response = _upload(admin, cut, format_name, corpus="up")
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["message"].startswith(
        "c-multimwa-all.zip starts as a zip archive does but cannot be opened as one: it is "
        "cut short or damaged"
    ), error
    assert error["field"] == "files"
    assert not Job.objects.exists()
    assert not _stored(upload_dir)


@pytest.mark.parametrize("format_name", ["jacana", "jsonl"])
def test_a_zip_of_too_many_files_is_refused_before_its_list_of_files_is_read(
    admin: APIClient, upload_dir: Path, tmp_path: Path, format_name: str
) -> None:
    # 12,000 entries: a directory of 1.8 MB (300,000 held a web process for 9 s)
    members = {f"{'d' * 100}{k}/x.json": b"" for k in range(12_000)}
    response = _upload(admin, _zip(tmp_path / "up.zip", members), format_name, corpus="up")
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["message"].startswith("up.zip holds too many files to be an export's zip"), error
    assert not Job.objects.exists()
    assert not _stored(upload_dir)


def test_pharaoh_files_without_a_source_or_target_are_refused_naming_what_is_missing(
    admin: APIClient, upload_dir: Path
) -> None:
    files = [SimpleUploadedFile("target.txt", b"a b\n"), SimpleUploadedFile("links.txt", b"\n")]
    response = admin.post(
        "/api/corpora/import/",
        {"corpus": "up", "format": "pharaoh", "files": files},
        format="multipart",
    )
    assert response.status_code == 400
    assert response.json()["error"]["message"] == (
        "the pharaoh format reads a folder's source.txt, target.txt, alignment.txt, ids.txt "
        "(or its export's .zip); source.txt is missing from target.txt, links.txt"
    )
    assert not Job.objects.exists()
    assert not _stored(upload_dir)


def test_sts_train_and_test_uploads_of_one_sub_corpus_go_into_one_corpus(
    admin: APIClient, upload_dir: Path
) -> None:
    """SemEval names a sub-corpus's train and test files alike, and an upload has no folder to
    tell them apart: the split of the form names the ids, so the test split's pairs do not
    clash with the train split's and a scorer can be trained on one and tested on the other."""
    for split, score in (("train", b"4.0\n"), ("test", b"1.5\n")):
        files = [
            SimpleUploadedFile("STS.input.MSRpar.txt", b"a b\tc d\n"),
            SimpleUploadedFile("STS.gs.MSRpar.txt", score),
        ]
        body = {"corpus": "sts", "format": "sts", "split": split, "files": files}
        response = admin.post("/api/corpora/import/", body, format="multipart")
        assert response.status_code == 201, response.json()
        job_id = response.json()["id"]
        assert jobs_runtime.job_run(job_id=job_id, worker="w") == Job.Status.SUCCEEDED
    pairs = SentencePair.objects.filter(corpus__name="sts").order_by("external_id")
    assert [(p.external_id, p.split, p.gold_score) for p in pairs] == [
        ("MSRpar-test:1", "test", 1.5),
        ("MSRpar-train:1", "train", 4.0),
    ]


def _onto(admin: APIClient, lines: list[dict[str, Any]], **fields: str) -> Any:
    content = "".join(json.dumps(line) + "\n" for line in lines).encode()
    return _post(admin, content, onto_existing="true", **fields)


def test_annotations_are_added_to_existing_pairs_by_a_job_whose_result_counts_them(
    admin: APIClient, upload_dir: Path
) -> None:
    corpus_import_records(corpus_name="up", records=[make_record("p1"), make_record("p2")])
    record = make_record("p1")
    line = {
        "id": "p1",
        "source_tokens": record.source_tokens,
        "target_tokens": record.target_tokens,
        "annotations": {"dora": {"sure": [[1, 1]], "possible": [], "status": "submitted"}},
        "gold_alignment": {"sure": [[0, 0]], "possible": []},
    }
    response = _onto(admin, [line])
    assert response.status_code == 201
    job = Job.objects.get(pk=response.json()["id"])
    assert job.parameters["onto_existing"] is True
    assert jobs_runtime.job_run(job_id=job.pk, worker="w") == Job.Status.SUCCEEDED
    result = admin.get(f"/api/jobs/{job.pk}/result/").json()
    assert result["onto_existing"] is True
    assert (result["pairs"], result["annotated_pairs"], result["annotations"]) == (1, 1, 1)
    assert (result["gold_alignments"], result["created_users"]) == (1, ["dora"])
    assert SentencePair.objects.count() == 2
    assert not _stored(upload_dir)


@pytest.mark.parametrize(
    ("corpus", "extra", "field", "message"),
    [
        ("nope", {}, "corpus", "there is no corpus named “nope”"),
        ("up", {"split": "train"}, "split", "a split applies to new pairs"),
    ],
)
def test_adding_annotations_is_refused_before_anything_is_stored(
    admin: APIClient,
    upload_dir: Path,
    corpus: str,
    extra: dict[str, str],
    field: str,
    message: str,
) -> None:
    corpus_import_records(corpus_name="up", records=[make_record("p1")])
    response = _onto(admin, [{"id": "p1"}], corpus=corpus, **extra)
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["field"] == field and message in error["message"], error
    assert not Job.objects.exists() and not _stored(upload_dir)


def test_a_pair_that_is_not_in_the_corpus_fails_the_job_naming_it(
    admin: APIClient, upload_dir: Path
) -> None:
    corpus_import_records(corpus_name="up", records=[make_record("p1")])
    line = {
        "id": "p7",
        "source_tokens": ["a"],
        "target_tokens": ["b"],
        "gold_alignment": {"sure": [[0, 0]], "possible": []},
    }
    job_id = _onto(admin, [line]).json()["id"]
    assert jobs_runtime.job_run(job_id=job_id, worker="w") == Job.Status.FAILED
    error = Job.objects.get(pk=job_id).error
    assert "1 pair id of the file is not in corpus “up”: 'p7'" in error, error
    assert "nothing was imported" in error
    assert not GoldAlignment.objects.exists()
