"""Export jobs: every format, for one annotator, the prefill, the gold or all; phrase tables;
the file to download; and an export that re-imports to the same corpus."""

from __future__ import annotations

import dataclasses
import errno
import time
import zipfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from django.db import connection
from rest_framework.test import APIClient

from annotate import jobs_runtime, roles
from annotate.exceptions import DomainError, NotFound
from annotate.models import Assignment, Corpus, GoldAlignment, Job, SentencePair
from annotate.selectors import corpora as corpora_reads
from annotate.selectors.jobs import JOB_OUTPUT_ROLES
from annotate.services import exports
from annotate.services.corpora import corpus_import, corpus_import_records
from annotate.services.exports import export_file, export_job_create, exports_clean
from scoring.alignment.links import Alignment
from scoring.alignment.phrase_table import phrase_table_build, phrase_table_rows
from tests.annotate.factories import make_user
from tests.annotate.records import make_record

pytestmark = [pytest.mark.django_db]


@pytest.fixture(autouse=True)
def export_dir(settings: Any, tmp_path: Path) -> Path:
    settings.EXPORT_DIR = tmp_path / "exports"
    return settings.EXPORT_DIR


@pytest.fixture
def corpus() -> Corpus:
    corpus_import_records(
        corpus_name="c",
        records=[
            make_record(
                "p1",
                annotations={"A": "1-1 3-4 4?5", "B": "1-1 2-3"},
                gold="1-1 3-4",
            ),
            make_record(
                "p2",
                "a dog ran home",
                "the dog runs home",
                prefill="1-1 3-3",
                annotations={"A": "0-0 1-1 2-2 3-3"},
            ),
        ],
    )
    return Corpus.objects.get(name="c")


def run_export(corpus: Corpus, **options: Any) -> Job:
    job = export_job_create(corpus=corpus, **options)
    jobs_runtime.job_run(job_id=job.pk, worker="test")
    job.refresh_from_db()
    assert job.status == "succeeded", job.error
    return job


def test_a_jsonl_export_re_imports_to_the_same_corpus(corpus: Corpus, tmp_path: Path) -> None:
    first = export_file(run_export(corpus, format_name="jsonl", which="all"))
    assert first.name == "c-jsonl-all.jsonl"
    corpus_import(corpus_name="copy", format_name="jsonl", paths=[first])
    again = export_file(
        run_export(Corpus.objects.get(name="copy"), format_name="jsonl", which="all")
    )
    assert again.read_bytes() == first.read_bytes()


def test_a_multimwa_file_imported_and_exported_as_gold_is_byte_identical(tmp_path: Path) -> None:
    original = (
        "wiki-1\tThe  cat sat .\tN/A\tA cat was sitting .\tN/A\t1\t1\t3-4 1-1\t2-3 2-2\t\n"
        "wiki-2\tHe left\tx\the went away\tN/A\t0\t1\t0-0\t1-1 1-2\n"
    )
    path = tmp_path / "benchmark.tsv"
    path.write_bytes(original.encode("utf-8"))
    corpus_import(corpus_name="mwa", format_name="multimwa", paths=[path])
    exported = export_file(
        run_export(Corpus.objects.get(name="mwa"), format_name="multimwa", which="gold")
    )
    assert exported.name == "mwa-multimwa-gold.tsv"
    assert exported.read_bytes() == original.encode("utf-8")


def test_one_annotator_in_pharaoh_re_imports_as_that_annotators_work(corpus: Corpus) -> None:
    job = run_export(corpus, format_name="pharaoh", which="annotator", annotator="A")
    path = export_file(job)
    assert path.name == "c-pharaoh-A.zip"
    with zipfile.ZipFile(path) as archive:
        names = ("alignment.txt", "ids.txt", "source.txt", "target.txt")
        assert sorted(archive.namelist()) == [f"c-pharaoh-A/{name}" for name in names]
        assert archive.read("c-pharaoh-A/alignment.txt").decode().splitlines() == [
            "1-1 3-4 4?5",
            "0-0 1-1 2-2 3-3",
        ]
        folder = path.parent / "unpacked"
        archive.extractall(folder)
    corpus_import(
        corpus_name="copy", format_name="pharaoh", paths=[folder / "c-pharaoh-A"], annotator="A"
    )
    again = export_file(
        run_export(
            Corpus.objects.get(name="copy"), format_name="pharaoh", which="annotator", annotator="A"
        )
    )
    with zipfile.ZipFile(again) as copy, zipfile.ZipFile(path) as original:
        # the same files, in a folder named after the other corpus
        assert {Path(n).name: copy.read(n) for n in copy.namelist()} == {
            Path(n).name: original.read(n) for n in original.namelist()
        }


def test_all_alignments_in_a_single_alignment_format_make_one_entry_each(corpus: Corpus) -> None:
    job = run_export(corpus, format_name="jacana", which="all")
    assert job.result["alignments"] == [
        "annotator-A.json",
        "annotator-B.json",
        "prefill.json",
        "gold.json",
    ]
    with zipfile.ZipFile(export_file(job)) as archive:
        assert sorted(archive.namelist()) == sorted(job.result["alignments"])


def test_the_gold_alone_is_a_single_file_of_the_pairs_with_gold(corpus: Corpus) -> None:
    job = run_export(corpus, format_name="jacana", which="gold")
    path = export_file(job)
    assert path.name == "c-jacana-gold.json"
    assert job.result["pairs"] == 1  # p2 has no gold: it is left out, not written linkless
    corpus_import(corpus_name="copy", format_name="jacana", paths=[path])
    copy = Corpus.objects.get(name="copy")
    assert list(copy.pairs.values_list("external_id", flat=True)) == ["p1"]
    gold = GoldAlignment.objects.get(pair__corpus=copy)
    assert sorted(gold.links.values_list("i", "j", "sure")) == [(1, 1, True), (3, 4, True)]


def test_each_alignment_of_an_archive_holds_the_pairs_that_have_it(corpus: Corpus) -> None:
    job = run_export(corpus, format_name="pharaoh", which="all")
    assert job.result["pairs"] == 2
    with zipfile.ZipFile(export_file(job)) as archive:
        ids = {
            Path(name).parent.name: archive.read(name).decode().split()
            for name in archive.namelist()
            if name.endswith("ids.txt")
        }
    assert ids == {
        "annotator-A": ["p1", "p2"],
        "annotator-B": ["p1"],
        "prefill": ["p1", "p2"],
        "gold": ["p1"],
    }


def test_an_annotators_export_holds_only_the_pairs_they_submitted(corpus: Corpus) -> None:
    Assignment.objects.filter(pair__external_id="p2", annotator__username="A").update(
        status=Assignment.Status.IN_PROGRESS
    )  # opened: the annotation still holds what the grid started from
    Assignment.objects.filter(annotator__username="B").update(status=Assignment.Status.NEW)
    job = run_export(corpus, format_name="jacana", which="annotator", annotator="A")
    assert job.result["pairs"] == 1
    assert '"p1"' in export_file(job).read_text() and '"p2"' not in export_file(job).read_text()
    with zipfile.ZipFile(export_file(run_export(corpus, format_name="pharaoh", which="all"))) as z:
        folders = {Path(name).parent.name for name in z.namelist()}
    assert folders == {"annotator-A", "prefill", "gold"}, "B submitted nothing"
    with pytest.raises(DomainError, match="'B' has submitted no work in corpus “c”"):
        export_job_create(corpus=corpus, format_name="jacana", which="annotator", annotator="B")


def test_a_file_of_one_alignment_reads_only_the_pairs_that_hold_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    records = [make_record(f"p{k}", prefill=None) for k in range(10)]
    records[3] = make_record("p3", annotations={"A": "0-0"}, gold="1-1")
    records[7] = make_record("p7", annotations={"A": "1-1"})
    corpus_import_records(corpus_name="wide", records=records)
    built: list[str] = []
    reads_of = corpora_reads.pair_reads

    def reads(pairs: list[SentencePair]) -> list[corpora_reads.PairRead]:
        built.extend(pair.external_id for pair in pairs)
        return reads_of(pairs)

    monkeypatch.setattr(corpora_reads, "pair_reads", reads)
    corpus = Corpus.objects.get(name="wide")
    annotator = run_export(corpus, format_name="jacana", which="annotator", annotator="A")
    assert annotator.result["pairs"] == 2 and built == ["p3", "p7"]
    built.clear()
    every = run_export(corpus, format_name="pharaoh", which="all")
    assert every.result["alignments"] == ["annotator-A", "prefill", "gold"]
    assert built == ["p3", "p7", "p3", "p7", "p3"]  # A's pairs, the prefilled ones, the gold


def test_a_phrase_table_counts_every_annotators_phrase_pairs(corpus: Corpus) -> None:
    job = run_export(corpus, format_name="phrases", which="all", max_length=3)
    lines = export_file(job).read_text(encoding="utf-8").splitlines()
    s1, t1 = "the cat sat on the mat".split(), "a cat was sitting on the mat".split()
    s2, t2 = "a dog ran home".split(), "the dog runs home".split()
    items = [
        (s1, t1, Alignment.from_pharaoh("1-1 3-4 4?5", 6, 7)),
        (s1, t1, Alignment.from_pharaoh("1-1 2-3", 6, 7)),
        (s1, t1, Alignment.from_pharaoh("1-1 3-4", 6, 7)),  # the gold
        (s2, t2, Alignment.from_pharaoh("1-1 3-3", 4, 4)),  # the prefill
        (s2, t2, Alignment.from_pharaoh("0-0 1-1 2-2 3-3", 4, 4)),
        (s1, t1, Alignment.from_pharaoh("1-1 3-4 4-5 5-6", 6, 7)),  # p1's prefill
    ]
    expected = phrase_table_rows(phrase_table_build(items, max_length=3))
    assert lines[1:] == ["\t".join(str(v) for v in row) for row in expected]


@pytest.mark.django_db(transaction=True)  # the job's heartbeat thread has its own connection
def test_a_phrase_table_export_says_what_it_does_while_its_kernels_compile(
    corpus: Corpus, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Compiling the phrase-extraction kernels (the first time after an install or an upgrade)
    takes minutes: the job meanwhile says what it does instead of sitting at "started", 0 %."""
    shown: list[tuple[int, str]] = []

    def compiling_first(*args: Any, **options: Any) -> Any:
        time.sleep(0.4)  # as compiling does, only shorter
        # What the job's page reads, on a connection of its own: the export's holds a snapshot.
        with ThreadPoolExecutor(1) as page:
            shown.append(page.submit(_job_shown).result())
        return phrase_table_build(*args, **options)

    monkeypatch.setattr(jobs_runtime, "HEARTBEAT_INTERVAL", 0.1)
    monkeypatch.setattr(exports, "phrase_table_build", compiling_first)
    run_export(corpus, format_name="phrases", which="all")
    [(percent, message)] = shown
    assert percent > 0
    assert message.startswith("extracting phrase pairs from 2 pairs")
    assert "compiling the phrase-extraction kernels takes a few minutes" in message


def _job_shown() -> tuple[int, str]:
    try:
        return Job.objects.values_list("progress", "message").get(kind="export")
    finally:
        connection.close()


@pytest.mark.parametrize(
    ("options", "message", "field"),
    [
        ({"format_name": "jsonl", "which": "gold"}, "jsonl keeps every alignment", "which"),
        (
            {"format_name": "pharaoh", "which": "annotator", "annotator": "Z"},
            "'Z' has submitted no work",
            "annotator",
        ),
        (
            {"format_name": "pharaoh", "which": "annotator"},
            r"^name the annotator whose work to export \(annotators who have submitted work in",
            "annotator",
        ),
        ({"format_name": "xml", "which": "all"}, "unknown export format 'xml'", "format"),
        ({"format_name": "phrases", "which": "all", "max_length": 0}, "max_length", "max_length"),
        ({"format_name": "phrases", "which": "all", "use": "both"}, "'use' must be", "use"),
    ],
)
def test_bad_export_options_queue_nothing_and_name_the_field(
    corpus: Corpus, options: dict[str, Any], message: str, field: str
) -> None:
    with pytest.raises(DomainError, match=message) as caught:
        export_job_create(corpus=corpus, **options)
    assert caught.value.extra["field"] == field
    assert not Job.objects.exists()


def test_asking_for_gold_a_corpus_lacks_is_refused() -> None:
    corpus_import_records(corpus_name="bare", records=[make_record("p", prefill=None)])
    with pytest.raises(DomainError, match="has no gold alignment"):
        export_job_create(
            corpus=Corpus.objects.get(name="bare"), format_name="jacana", which="gold"
        )


@pytest.mark.parametrize("format_name", ["phrases", "pharaoh", "multimwa"])
def test_every_alignment_of_a_corpus_without_any_is_refused_before_queuing(
    format_name: str,
) -> None:
    corpus_import_records(corpus_name="bare", records=[make_record("p", prefill=None)])
    bare = Corpus.objects.get(name="bare")
    with pytest.raises(DomainError, match="has no alignment to export yet") as caught:
        export_job_create(corpus=bare, format_name=format_name, which="all")
    assert caught.value.extra["field"] == "which"
    assert not Job.objects.exists()
    assert export_job_create(corpus=bare, format_name="jsonl", which="all"), "its pairs alone"


def test_old_export_files_are_cleaned_and_then_reported_gone(corpus: Corpus) -> None:
    job = run_export(corpus, format_name="jsonl", which="all")
    assert exports_clean() == 0
    assert exports_clean(now=4e9) == 1
    with pytest.raises(NotFound, match="run the export again"):
        export_file(job)


def test_an_admin_demoted_to_annotator_no_longer_downloads_the_export_they_started(
    corpus: Corpus,
) -> None:
    owner = make_user("erin", roles.ADMIN)
    job = run_export(corpus, format_name="jsonl", which="all", owner=owner)
    client = APIClient()
    client.force_authenticate(owner)
    assert client.get(f"/api/jobs/{job.pk}/download/").status_code == 200
    owner.groups.set([roles.role_group(roles.ANNOTATOR)])
    refused = client.get(f"/api/jobs/{job.pk}/download/")
    assert refused.status_code == 403
    assert (
        refused.json()["error"]["message"]
        == f"what job {job.pk} produced is for the admin role only"
    )
    assert client.get(f"/api/jobs/{job.pk}/result/").status_code == 403
    assert client.get(f"/api/jobs/{job.pk}/").status_code == 200, "the job itself stays listed"
    owner.groups.add(roles.role_group(roles.ADMIN))
    assert client.get(f"/api/jobs/{job.pk}/download/").status_code == 200


def test_every_kind_of_job_names_the_role_its_output_needs() -> None:
    assert set(JOB_OUTPUT_ROLES) == set(jobs_runtime.job_kinds())


def test_an_export_that_cannot_write_its_folder_says_why_without_server_paths(
    corpus: Corpus, export_dir: Path
) -> None:
    export_dir.parent.mkdir(parents=True, exist_ok=True)
    export_dir.write_text("a file where the export folder should be")
    job = export_job_create(corpus=corpus, format_name="jsonl", which="all")
    jobs_runtime.job_run(job_id=job.pk, worker="test")
    job.refresh_from_db()
    assert job.status == "failed"
    assert "Not a directory" in job.error or "File exists" in job.error
    assert str(export_dir.parent) not in job.error, job.error


def test_a_format_error_while_writing_names_the_file_but_not_its_folder(
    corpus: Corpus, export_dir: Path, monkeypatch: Any
) -> None:
    from scoring import formats
    from scoring.errors import FormatError

    def fail(records: Any, output: Path, **options: Any) -> None:
        raise FormatError("cannot write this pair", path=output / "alignment.txt", line=3)

    failing = dataclasses.replace(formats.get_format("pharaoh"), writer=fail)
    monkeypatch.setattr(formats, "get_format", lambda name, **kw: failing)
    job = export_job_create(corpus=corpus, format_name="pharaoh", which="gold")
    jobs_runtime.job_run(job_id=job.pk, worker="test")
    job.refresh_from_db()
    assert job.error == "alignment.txt:3: cannot write this pair"


def test_a_cancelled_export_stops_at_its_next_report_and_leaves_no_file(
    export_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from annotate.services.jobs import job_cancel

    corpus_import_records(corpus_name="big", records=[make_record(f"p{k}") for k in range(450)])
    corpus = Corpus.objects.get(name="big")
    job = export_job_create(corpus=corpus, format_name="jsonl", which="all")
    records = exports.corpus_pair_records
    read: list[int] = []

    def cancelled_midway(corpus: Corpus, *args: Any) -> Any:
        for record in records(corpus, *args):
            read.append(1)
            if len(read) == 100:
                job_cancel(job=job)
            yield record

    monkeypatch.setattr(exports, "corpus_pair_records", cancelled_midway)
    monkeypatch.setattr(jobs_runtime, "PROGRESS_MIN_INTERVAL", 0.0)
    assert jobs_runtime.job_run(job_id=job.pk, worker="test") == "cancelled"
    assert len(read) == 200, "stopped at the report after the cancel"
    assert not (export_dir / f"job-{job.pk}").exists()


@pytest.mark.parametrize("format_name", ["jsonl", "pharaoh"])
def test_an_export_cancelled_after_its_last_report_leaves_no_file(
    corpus: Corpus, export_dir: Path, monkeypatch: pytest.MonkeyPatch, format_name: str
) -> None:
    from annotate.services.jobs import job_cancel

    job = export_job_create(corpus=corpus, format_name=format_name, which="all")
    write = exports._write

    def cancelled_while_published(*args: Any) -> Any:
        outputs = write(*args)
        job_cancel(job=job)  # the press lands as the file is moved or zipped into place
        return outputs

    monkeypatch.setattr(exports, "_write", cancelled_while_published)
    assert jobs_runtime.job_run(job_id=job.pk, worker="test") == "cancelled"
    assert not (export_dir / f"job-{job.pk}").exists()
    with pytest.raises(NotFound):
        export_file(Job.objects.get(pk=job.pk))


@pytest.mark.parametrize(
    ("options", "media_type"),
    [
        ({"format_name": "jsonl"}, "application/x-ndjson"),
        ({"format_name": "pharaoh"}, "application/zip"),
        ({"format_name": "multimwa", "which": "gold"}, "text/tab-separated-values"),
        ({"format_name": "jacana", "which": "gold"}, "application/json"),
    ],
)
def test_a_download_has_its_file_s_media_type_and_is_given_to_a_client_accepting_only_it(
    corpus: Corpus, options: dict[str, Any], media_type: str
) -> None:
    admin = make_user("root", roles.ADMIN)
    job = run_export(corpus, **{"which": "all", **options}, owner=admin)
    client = APIClient()
    client.force_authenticate(admin)
    for accept in (media_type, "application/octet-stream", "*/*"):
        response = client.get(f"/api/jobs/{job.pk}/download/", HTTP_ACCEPT=accept)
        assert response.status_code == 200, (accept, response.content)
        assert response["Content-Type"] == media_type
        assert response["Content-Disposition"].startswith("attachment; filename=")
    gone = client.get(f"/api/jobs/{job.pk + 1}/download/", HTTP_ACCEPT=media_type)
    assert gone.status_code == 404 and gone.json()["error"]["code"] == "not_found"


def test_an_export_that_fills_the_disk_says_so_and_leaves_no_half_written_file(
    corpus: Corpus, export_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The disk fills while the archive of every alignment is written: the job fails saying
    the server's disk is full and what to do (not "internal error"), and nothing of it stays
    to fill the disk further."""

    def disk_full(self: zipfile.ZipFile, *args: Any, **kwargs: Any) -> None:
        raise OSError(errno.ENOSPC, "No space left on device", str(export_dir / "x.zip"))

    monkeypatch.setattr(zipfile.ZipFile, "write", disk_full)
    job = export_job_create(corpus=corpus, format_name="pharaoh", which="all")
    jobs_runtime.job_run(job_id=job.pk, worker="test")
    job.refresh_from_db()
    assert job.status == Job.Status.FAILED
    assert job.error.startswith("the server's disk for job files is full"), job.error
    assert "internal error" not in job.error and str(export_dir) not in job.error
    assert not (export_dir / f"job-{job.pk}").exists()
