"""Corpus files uploaded through the web app, imported by a background job.

An import reads and writes every pair of its files: about a thousand pairs a second, so minutes
for a large upload. The request only stores the files under ``settings.UPLOAD_DIR/<token>/``
(storage every web process and worker shares, as ``EXPORT_DIR``) and queues a
``corpus_import`` job; the job runs :func:`~annotate.services.corpora.corpus_import` (all or
nothing, the error naming file, line and field) and removes the files. Files a job never
reached are removed by :func:`uploads_clean` after ``EXPORT_KEEP_DAYS``.
"""

from __future__ import annotations

import dataclasses
import shutil
import time
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.core.files.uploadedfile import UploadedFile

from annotate.exceptions import DomainError
from annotate.jobs_runtime import job_task
from annotate.models import Corpus, Job
from annotate.services.corpora import corpus_import
from annotate.services.import_stage import CorpusImportError
from scoring import formats
from scoring.errors import ScoringError

if TYPE_CHECKING:
    from django.contrib.auth.models import User


def _options_check(format_name: str, annotator: str | None) -> formats.FormatSpec:
    """The format, checked with its options before anything is stored."""
    try:
        spec = formats.get_format(format_name)
    except ScoringError as error:
        raise CorpusImportError(str(error), field="format") from None
    if annotator and "annotator" not in spec.options:
        takers = [n for n, f in formats.FORMATS.items() if "annotator" in f.options]
        raise CorpusImportError(
            f"annotator does not apply to the {spec.name} format (it applies to "
            f"single-alignment formats: {', '.join(takers)})",
            field="annotator",
        )
    return spec


def _store(upload: UploadedFile[Any], path: Path) -> int:
    """Move (or copy) an uploaded file to ``path``; returns its size."""
    temporary = getattr(upload, "temporary_file_path", None)
    if temporary is not None:
        shutil.move(temporary(), path)
    else:
        with path.open("wb") as handle:
            for chunk in upload.chunks():
                handle.write(chunk)
    return path.stat().st_size


def corpus_import_job_create(
    *,
    corpus: str,
    format_name: str,
    files: Sequence[UploadedFile[Any]],
    annotator: str | None = None,
    subcorpus: str | None = None,
    split: str | None = None,
    description: str = "",
    owner: User | None = None,
) -> Job:
    """Store the uploaded ``files`` and queue their import into ``corpus`` (created if new)."""
    _options_check(format_name, annotator)
    names = [Path(upload.name or "").name for upload in files]
    for name in names:
        if not name or name.startswith("."):
            raise CorpusImportError(f"the file name {name!r} cannot be stored", field="files")
    if len(set(names)) != len(names):
        twice = next(name for name in names if names.count(name) > 1)
        raise CorpusImportError(f"two files are called {twice!r}", field="files")
    token = uuid.uuid4().hex
    folder = Path(settings.UPLOAD_DIR) / token
    folder.mkdir(parents=True)
    try:
        size = sum(_store(upload, folder / name) for upload, name in zip(files, names, strict=True))
        return corpus_import_run.create(
            owner=owner,
            parameters={
                "corpus": corpus,
                "format": format_name,
                "annotator": annotator or None,
                "subcorpus": subcorpus or None,
                "split": split or None,
                "description": description,
                "upload": token,
                "files": names,
                "bytes": size,
            },
        )
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise


@job_task(kind="corpus_import")
def corpus_import_run(job: Job, progress: Callable[[float, str], None]) -> dict[str, Any]:
    """Job runner of ``corpus_import``: import the stored files, then remove them. Files of an
    import that failed on their content go too (the error names what to fix); after any other
    error they stay for a retry of the job."""
    p = job.parameters
    folder = Path(settings.UPLOAD_DIR) / str(p["upload"])
    if not folder.is_dir():
        raise CorpusImportError(
            f"the uploaded files are gone (kept {settings.EXPORT_KEEP_DAYS} days); upload them "
            "again"
        )
    spec = _options_check(str(p["format"]), p.get("annotator"))
    paths = [folder / str(name) for name in p["files"]]
    if spec.input_kind != "file":
        paths = [folder]  # read together: Pharaoh's three files, STS input + gold

    # No progress reports: a reader knows no total to report a share of, and a progress write
    # inside the import's write transaction would hold the job's row locked (PostgreSQL) until
    # it commits, stalling the job's heartbeats.
    try:
        report = corpus_import(
            corpus_name=str(p["corpus"]).strip(),
            format_name=str(p["format"]),
            paths=paths,
            annotator=p.get("annotator"),
            subcorpus=p.get("subcorpus"),
            split=p.get("split"),
            description=str(p.get("description") or ""),
        )
    except DomainError:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    shutil.rmtree(folder, ignore_errors=True)
    corpus = Corpus.objects.get(name=report.corpus)
    return {"corpus_id": corpus.pk, **dataclasses.asdict(report)}


def uploads_clean(*, now: float | None = None) -> int:
    """Remove stored uploads older than ``EXPORT_KEEP_DAYS``; returns how many."""
    root = Path(settings.UPLOAD_DIR)
    if not root.is_dir():
        return 0
    limit = (now or time.time()) - settings.EXPORT_KEEP_DAYS * 86400
    removed = 0
    for folder in root.iterdir():
        if folder.is_dir() and folder.name != "incoming" and folder.stat().st_mtime < limit:
            shutil.rmtree(folder, ignore_errors=True)
            removed += 1
    return removed
