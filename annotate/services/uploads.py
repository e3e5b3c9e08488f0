"""Corpus files uploaded through the web app, imported by a background job.

An import reads and writes every pair of its files: about a thousand pairs a second, so minutes
for a large upload. The request only stores the files under ``settings.UPLOAD_DIR/<token>/``
(storage every web process and worker shares, as ``EXPORT_DIR``) and queues a
``corpus_import`` job; the job runs :func:`~annotate.services.corpora.corpus_import` (all or
nothing, the error naming file, line and field) and removes the files. Files a job never
reached are removed by :func:`uploads_clean` after ``EXPORT_KEEP_DAYS``.

What the job will read is checked before it is queued (:func:`_unpack`): the files a folder
format needs, and a zip archive. The product's own exports come back as they were downloaded:
an export that is a zip (a Pharaoh folder, or one file per alignment when every alignment was
exported) is unpacked by the names of its members, and a zip the format cannot read is refused
with what to upload instead.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import os
import shutil
import tempfile
import time
import uuid
import zipfile
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path, PurePosixPath
from typing import IO, TYPE_CHECKING, Any

from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.core.files.uploadedfile import UploadedFile

from annotate.exceptions import DomainError
from annotate.jobs_runtime import job_task
from annotate.models import Corpus, Job
from annotate.services.corpora import (
    ImportReport,
    corpus_import,
    corpus_in_use_check,
    corpus_name_check,
)
from annotate.services.exports import FILE_SUFFIXES
from annotate.services.import_onto import corpus_import_onto, onto_corpus_check
from annotate.services.import_stage import CorpusImportError
from scoring import formats
from scoring.errors import ScoringError
from scoring.formats import pharaoh

if TYPE_CHECKING:
    from django.contrib.auth.models import User


def _options_check(
    format_name: str, annotator: str | None, onto_existing: bool = False
) -> formats.FormatSpec:
    """The format, checked with its options before anything is stored. Adding to existing
    pairs, an annotator applies to every format: with one that names its annotators it
    chooses whose annotations to add."""
    try:
        spec = formats.get_format(format_name)
    except ScoringError as error:
        raise CorpusImportError(str(error), field="format") from None
    if annotator and "annotator" not in spec.options and not onto_existing:
        takers = [n for n, f in formats.FORMATS.items() if "annotator" in f.options]
        raise CorpusImportError(
            f"annotator does not apply to the {spec.name} format (it applies to "
            f"single-alignment formats: {', '.join(takers)})",
            field="annotator",
        )
    return spec


def _onto_existing_check(corpus: str, subcorpus: str | None, split: str | None) -> None:
    """Adding annotations to existing pairs needs the corpus, in use, and sets no pair's
    sub-corpus or split (the pairs keep theirs)."""
    onto_corpus_check(corpus.strip())
    for name, value in (("subcorpus", subcorpus), ("split", split)):
        if value:
            raise CorpusImportError(
                f"a {name.replace('subcorpus', 'sub-corpus')} applies to new pairs; adding "
                "annotations to existing pairs changes no pair's (leave it empty)",
                field=name,
            )


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


#: The files of a Pharaoh folder: those it needs, then those it may hold.
PHARAOH_NEEDED = (pharaoh.SOURCE, pharaoh.TARGET)
PHARAOH_FILES = (*PHARAOH_NEEDED, pharaoh.ALIGNMENT, pharaoh.IDS)
#: The formats whose export may be a zip: those holding one chosen alignment (an export of every
#: alignment zips one entry per alignment, and Pharaoh's folder is always zipped).
ZIPPED_FORMATS = tuple(
    name for name, spec in formats.FORMATS.items() if spec.writable and spec.selects_alignment
)
#: Where an uploaded archive waits while it is unpacked (no upload's name starts with a dot).
_ARCHIVE = ".archive.zip"
#: The longest file name an upload is stored under, in UTF-8 bytes: the limit of the common
#: file systems (Django shortens a name to 255 characters, which in accented or CJK letters
#: are up to 1,020 bytes, so the file could not be written).
MAX_FILE_NAME_BYTES = 255


#: The most bytes a single read of an uploaded zip takes. zipfile reads an archive's directory
#: in one read, then parses every entry: a 31 MB zip of 300,000 empty files held a web process
#: for 9 s before it was refused (an export's zip holds a few files per alignment, a few KB).
MAX_ZIP_READ_BYTES = 1 << 20


class _ZipTooLarge(Exception):
    pass


class _BoundedReads:
    """A file whose reads take at most :data:`MAX_ZIP_READ_BYTES` each (the rest to the end too)."""

    def __init__(self, handle: IO[bytes]) -> None:
        self._handle = handle

    def read(self, size: int | None = -1) -> bytes:
        if size is None or size < 0:
            here = self._handle.tell()
            size = self._handle.seek(0, os.SEEK_END) - here
            self._handle.seek(here)
        if size > MAX_ZIP_READ_BYTES:
            raise _ZipTooLarge
        return self._handle.read(size)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._handle, name)


@contextlib.contextmanager
def _zip_open(path: Path, name: str) -> Iterator[zipfile.ZipFile]:
    """The zip ``path`` (uploaded as ``name``), refused unread past its end record when its
    directory is over :data:`MAX_ZIP_READ_BYTES`."""
    with path.open("rb") as handle:
        try:
            archive = zipfile.ZipFile(_BoundedReads(handle))
        except _ZipTooLarge:
            raise CorpusImportError(
                f"{name} holds too many files to be an export's zip (its list of files is over "
                f"{MAX_ZIP_READ_BYTES:,} bytes): unpack it and upload its files",
                field="files",
            ) from None
        except (zipfile.BadZipFile, OSError):
            raise CorpusImportError(
                f"{name} is not a readable zip archive", field="files"
            ) from None
        with archive:
            yield archive


def _alignments_in(archive: zipfile.ZipFile, format_name: str) -> dict[str, dict[str, Any]]:
    """The alignments of an export's zip by their entry's name (a folder of Pharaoh's files,
    or one file of the format), each with its members by file name."""
    found: dict[str, dict[str, Any]] = {}
    for info in archive.infolist():
        path = PurePosixPath(info.filename)
        if info.is_dir():
            continue
        if format_name == "pharaoh":
            if path.name in PHARAOH_FILES:
                found.setdefault(str(path.parent), {})[path.name] = info
        elif path.suffix == FILE_SUFFIXES.get(format_name):
            found[str(path.with_suffix(""))] = {path.name: info}
    return found


def _format_of(archive: zipfile.ZipFile) -> str | None:
    """The format of the export a zip seems to hold, if any."""
    for format_name in ZIPPED_FORMATS:
        if _alignments_in(archive, format_name):
            return format_name
    return None


def _chosen(
    name: str, alignments: dict[str, dict[str, Any]], annotator: str | None
) -> tuple[str, dict[str, Any]]:
    """The entry name and members of the one alignment to import from an export's zip: its
    only one, else the annotator's (``annotator-NAME``) or, without an annotator, the gold."""
    entries = {PurePosixPath(entry).name: members for entry, members in alignments.items()}
    if len(entries) == 1:
        return next(iter(entries.items()))
    wanted = f"annotator-{annotator}" if annotator else "gold"
    if wanted in entries:
        return wanted, entries[wanted]
    held = ", ".join(sorted(entries))
    if annotator:
        raise CorpusImportError(
            f"{name} holds no alignment of annotator {annotator!r} (it holds {held})",
            field="annotator",
        )
    raise CorpusImportError(
        f"{name} holds several alignments ({held}) and no gold: enter the annotator whose "
        "alignment to import (annotator-NAME is NAME's)",
        field="annotator",
    )


def _unzip(
    folder: Path, name: str, format_name: str, annotator: str | None
) -> tuple[list[str], dict[str, Any]]:
    """Replace the export's zip ``name`` in ``folder`` by the files of the alignment to import;
    returns their names and what was taken: the zip's name, the alignment imported and the
    others it holds (left out, so the report can say so: an "all" export's zip holds every
    annotator's, the prefill and the gold, and one import takes one of them)."""
    archive_path = folder / _ARCHIVE
    (folder / name).replace(archive_path)
    with _zip_open(archive_path, name) as archive:
        for info in archive.infolist():
            path = PurePosixPath(info.filename)
            if path.is_absolute() or ".." in path.parts:
                # never written outside the folder (members are written by their file name),
                # but no export holds one, and its folder would read as a nameless alignment
                raise CorpusImportError(
                    f"{name} is no export's zip: its member {info.filename!r} points outside "
                    "the archive's folder",
                    field="files",
                )
        alignments = _alignments_in(archive, format_name)
        if not alignments:
            guess = _format_of(archive)
            raise CorpusImportError(
                f"{name} is a .zip archive without a {format_name} export in it"
                + (f": upload it with the format {guess}" if guess else ""),
                field="files",
            )
        taken, members = _chosen(name, alignments, annotator)
        others = sorted({PurePosixPath(entry).name for entry in alignments} - {taken})
        if format_name == "pharaoh":
            lacking = [member for member in PHARAOH_NEEDED if member not in members]
            if lacking:
                raise CorpusImportError(
                    f"{name} lacks {' and '.join(lacking)} (a pharaoh export holds "
                    f"{', '.join(PHARAOH_FILES)})",
                    field="files",
                )
        size = sum(info.file_size for info in members.values())
        if size > settings.MAX_UPLOAD_BYTES:
            raise CorpusImportError(
                f"{name} unpacks to {size:,} bytes; at most {settings.MAX_UPLOAD_BYTES:,} are "
                "accepted (unpack it and import it with manage.py import_corpus)",
                field="files",
            )
        try:
            for member, info in members.items():
                with archive.open(info) as source, (folder / member).open("wb") as target:
                    shutil.copyfileobj(source, target)
        except (zipfile.BadZipFile, OSError, EOFError) as error:
            raise CorpusImportError(f"{name} cannot be unpacked: {error}", field="files") from None
    archive_path.unlink()
    return sorted(members), {"archive": name, "alignment": taken, "others": others}


def _unpack(
    folder: Path, names: list[str], spec: formats.FormatSpec, annotator: str | None
) -> tuple[list[str], dict[str, Any] | None]:
    """Check the stored uploads in ``folder`` can be read as ``spec``'s format, unpacking an
    export's zip; returns the names of the files the job reads and, for a zip, which of its
    alignments they are (see :func:`_unzip`). A file that cannot be read is a
    :class:`CorpusImportError` naming it and what to upload instead."""
    for name in names:
        if formats.damaged_zip(folder / name):
            raise CorpusImportError(
                f"{name} starts as a zip archive does but cannot be opened as one: it is cut "
                "short or damaged (download the export again)",
                field="files",
            )
    zips = [name for name in names if zipfile.is_zipfile(folder / name)]
    if zips and spec.name not in ZIPPED_FORMATS:
        with _zip_open(folder / zips[0], zips[0]) as archive:
            guess = _format_of(archive)
        raise CorpusImportError(
            f"{zips[0]} is a .zip archive, which the {spec.name} format does not read: "
            + (
                f"upload the export's zip with the format {guess}"
                if guess
                else "unpack it and upload its files"
            ),
            field="files",
        )
    if zips and len(names) > 1:
        raise CorpusImportError(
            f"{zips[0]} is a .zip archive: upload an export's zip alone, without other files",
            field="files",
        )
    if zips:
        return _unzip(folder, zips[0], spec.name, annotator)
    if spec.name == "pharaoh":
        lacking = [member for member in PHARAOH_NEEDED if member not in names]
        if lacking:
            raise CorpusImportError(
                f"the pharaoh format reads a folder's {', '.join(PHARAOH_FILES)} (or its "
                f"export's .zip); {' and '.join(lacking)} "
                f"{'is' if len(lacking) == 1 else 'are'} missing from "
                f"{', '.join(names)}",
                field="files",
            )
    return names, None


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
    onto_existing: bool = False,
) -> Job:
    """Store the uploaded ``files`` and queue their import into ``corpus`` (created if new); an
    export's zip is unpacked first. Files that cannot be read queue nothing and store
    nothing. ``onto_existing`` adds the files' annotations and gold alignments to the pairs
    the corpus holds (:func:`~annotate.services.import_onto.corpus_import_onto`) instead."""
    spec = _options_check(format_name, annotator, onto_existing)
    existing = Corpus.objects.filter(name=corpus.strip()).first()
    if onto_existing:
        _onto_existing_check(corpus, subcorpus, split)
    elif existing is None:
        corpus_name_check(corpus, field="corpus")
    else:
        corpus_in_use_check(existing, doing="importing pairs into it")
    names = [Path(upload.name or "").name for upload in files]
    for name in names:
        if not name or name.startswith("."):
            raise CorpusImportError(f"the file name {name!r} cannot be stored", field="files")
        if len(name.encode()) > MAX_FILE_NAME_BYTES:
            raise CorpusImportError(
                f"the file name {name[:40]!r}… is longer than {MAX_FILE_NAME_BYTES} bytes in "
                "UTF-8: rename the file",
                field="files",
            )
    if len(set(names)) != len(names):
        twice = next(name for name in names if names.count(name) > 1)
        raise CorpusImportError(f"two files are called {twice!r}", field="files")
    for upload, name in zip(files, names, strict=True):
        if not upload.size:
            raise CorpusImportError(f"{name} is empty: nothing was imported", field="files")
    token = uuid.uuid4().hex
    folder = Path(settings.UPLOAD_DIR) / token
    folder.mkdir(parents=True)
    try:
        size = sum(_store(upload, folder / name) for upload, name in zip(files, names, strict=True))
        read, from_zip = _unpack(folder, names, spec, annotator)
        return corpus_import_run.create(
            owner=owner,
            # Into an existing corpus: listed with it from the start, so a failed import is too.
            corpus=Corpus.objects.filter(name=corpus.strip()).first(),
            parameters={
                "corpus": corpus,
                "format": format_name,
                "annotator": annotator or None,
                "subcorpus": subcorpus or None,
                "split": split or None,
                "description": description,
                "upload": token,
                "files": read,
                "bytes": size,
                **({"from_zip": from_zip} if from_zip else {}),
                **({"onto_existing": True} if onto_existing else {}),
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
    onto_existing = bool(p.get("onto_existing"))
    spec = _options_check(str(p["format"]), p.get("annotator"), onto_existing)
    # the upload's sender: which accounts the file may attribute work to (nobody's if gone)
    importer = job.owner or AnonymousUser()
    paths = _read_paths(folder, [str(name) for name in p["files"]], spec)

    # Reading knows no total, so it reports what it has read; writing (a batch per transaction,
    # each report between two of them) reports its share.
    try:
        if onto_existing:
            report = corpus_import_onto(
                corpus_name=str(p["corpus"]).strip(),
                format_name=str(p["format"]),
                paths=paths,
                annotator=p.get("annotator"),
                progress=lambda pairs: progress(0.0, f"read and checked {pairs:,} pairs"),
                importer=importer,
            )
        else:
            report = corpus_import(
                corpus_name=str(p["corpus"]).strip(),
                format_name=str(p["format"]),
                paths=paths,
                annotator=p.get("annotator"),
                subcorpus=p.get("subcorpus"),
                split=p.get("split"),
                description=str(p.get("description") or ""),
                progress=lambda pairs: progress(0.0, f"read and checked {pairs:,} pairs"),
                written=lambda pairs, total: progress(
                    100 * pairs / total, f"wrote {pairs:,} of {total:,} pairs"
                ),
                importer=importer,
            )
    except DomainError:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    shutil.rmtree(folder, ignore_errors=True)
    corpus = Corpus.objects.get(name=report.corpus)
    Job.objects.filter(pk=job.pk).update(corpus=corpus)  # listed with the corpus from now on
    from_zip = p.get("from_zip")
    return {
        "corpus_id": corpus.pk,
        **dataclasses.asdict(report),
        **({"from_zip": from_zip} if from_zip else {}),
    }


def _read_paths(folder: Path, names: list[str], spec: formats.FormatSpec) -> list[Path]:
    """What the format's reader is given for the files ``names`` of ``folder``."""
    if spec.input_kind != "file":
        return [folder]  # read together: Pharaoh's three files, STS input + gold
    return [folder / name for name in names]


def corpus_import_files(
    *,
    corpus_name: str,
    format_name: str,
    paths: Sequence[Path],
    annotator: str | None = None,
    subcorpus: str | None = None,
    split: str | None = None,
    description: str = "",
    onto_existing: bool = False,
) -> ImportReport:
    """:func:`~annotate.services.corpora.corpus_import` of files on this machine (the command
    line), reading an export's zip as an upload's is read: unpacked, by its members' names, into
    a temporary folder. ``onto_existing`` adds the files' annotations and gold alignments to the
    corpus's pairs instead (:func:`~annotate.services.import_onto.corpus_import_onto`)."""
    read: Callable[..., ImportReport]
    if onto_existing:
        _onto_existing_check(corpus_name, subcorpus, split)
        read = functools.partial(
            corpus_import_onto,
            corpus_name=corpus_name,
            format_name=format_name,
            annotator=annotator,
        )
    else:
        read = functools.partial(
            corpus_import,
            corpus_name=corpus_name,
            format_name=format_name,
            annotator=annotator,
            subcorpus=subcorpus,
            split=split,
            description=description,
        )
    if not any(path.is_file() and zipfile.is_zipfile(path) for path in paths):
        return read(paths=paths)
    spec = _options_check(format_name, annotator, onto_existing)
    with tempfile.TemporaryDirectory(prefix="corpus-import-") as temporary:
        folder = Path(temporary)
        for path in paths:
            if (folder / path.name).exists():
                raise CorpusImportError(f"two files are called {path.name!r}", field="files")
            (folder / path.name).symlink_to(path.resolve())
        names, _ = _unpack(folder, [path.name for path in paths], spec, annotator)
        return read(paths=_read_paths(folder, names, spec))


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
