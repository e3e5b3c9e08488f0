"""Export a corpus for training or for another tool: a background job writing a file to
download.

What is written:

``jsonl``
    Lossless: every pair with its prefill, every annotator's alignment and the gold. It is the
    format to move a corpus between installations; importing it gives the same corpus back.
``pharaoh``, ``jacana``, ``multimwa``
    One alignment per pair: one annotator's, the prefill or the gold, for the pairs that have
    it (:func:`pairs_with`; an annotator's are the pairs they submitted). ``all`` writes one of
    each (every annotator who submitted work, the prefill, the gold) into a zip archive.
``phrases``
    A phrase table (:mod:`scoring.alignment.phrase_table`): the atomic and composite phrase
    pairs the chosen alignments license, with counts. ``all`` counts every annotator's
    alignments together.

An export reads the corpus as it was at one moment
(:func:`~annotate.consistent_reads.read_snapshot`, which stalls no annotator's save), so a save
or a pair added while it runs is in all of its files or in none. Files go to
``settings.EXPORT_DIR/job-<id>/``; a directory output (``pharaoh``) or several outputs are
zipped. :func:`exports_clean` removes files older than ``EXPORT_KEEP_DAYS``; a cancelled
export's file goes at once (:func:`export_discard`). :func:`corpus_export` writes a file at once,
for the ``export_corpus`` command.
"""

from __future__ import annotations

import re
import shutil
import time
import uuid
import zipfile
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db.models import Exists, OuterRef, Q

from annotate.consistent_reads import job_read_snapshot, read_snapshot
from annotate.exceptions import DomainError, NotFound, quoted
from annotate.jobs_runtime import job_task
from annotate.models import Assignment, AutoAlignment, Corpus, GoldAlignment, Job, SentencePair
from annotate.selectors.corpora import corpus_annotator_names, corpus_pair_records
from scoring import formats
from scoring.alignment.links import Alignment
from scoring.alignment.phrase_table import phrase_table_build, write_phrase_table
from scoring.corpus import PairRecord
from scoring.errors import ScoringError

if TYPE_CHECKING:
    from django.contrib.auth.models import User

EXPORT_FORMATS = {
    "jsonl": "the project's lossless JSON lines: every alignment, re-importable",
    "pharaoh": "source.txt, target.txt, alignment.txt (i-j sure, i?j possible) and ids.txt",
    "jacana": "Edinburgh++/jacana JSON (sureAlign, possibleAlign)",
    "multimwa": "MultiMWA benchmark TSV (id, sentences, sure links, possible links)",
    "phrases": "phrase table: atomic and composite phrase pairs with counts (TSV)",
}
#: The file name ending of each single-file format (``pharaoh`` writes a directory).
FILE_SUFFIXES = {"jacana": ".json", "multimwa": ".tsv"}
#: The media type an export's file is downloaded as, by its suffix: a zip (a Pharaoh folder,
#: every alignment), a TSV (MultiMWA, a phrase table), jacana's JSON, or JSON lines (which
#: Python's ``mimetypes`` does not know, and would serve as ``application/octet-stream``).
DOWNLOAD_MEDIA_TYPES = {
    ".zip": "application/zip",
    ".tsv": "text/tab-separated-values",
    ".json": "application/json",
    ".jsonl": "application/x-ndjson",
}
WHICH = ("all", "annotator", "prefill", "gold")
PHRASE_USES = ("possible", "sure")
MAX_PHRASE_LENGTH = 20

Progress = Callable[[float, str], None]


class ExportError(DomainError):
    code = "export_failed"


def export_sources(corpus: Corpus) -> dict[str, Any]:
    """What a corpus can export: annotators who submitted work in it, whether it has a
    prefill, gold."""
    return {
        "annotators": corpus_annotator_names(
            Assignment.objects.filter(
                pair__corpus=corpus,
                annotation__isnull=False,
                status=Assignment.Status.SUBMITTED,
            )
        ),
        "prefill": AutoAlignment.objects.filter(pair__corpus=corpus).exists(),
        "gold": GoldAlignment.objects.filter(pair__corpus=corpus).exists(),
    }


def export_parameters_check(
    *,
    corpus: Corpus,
    format_name: str,
    which: str,
    annotator: str = "",
    use: str = "possible",
    max_length: int = 7,
    keep_identical: bool = False,
) -> dict[str, Any]:
    """The job's parameters, checked against the corpus (errors name the field)."""
    if format_name not in EXPORT_FORMATS:
        raise ExportError(
            f"unknown export format {format_name!r}; formats: {', '.join(EXPORT_FORMATS)}",
            field="format",
        )
    if which not in WHICH:
        raise ExportError(f"'which' must be one of {', '.join(WHICH)}", field="which")
    if format_name == "jsonl" and which != "all":
        raise ExportError(
            "jsonl keeps every alignment of every pair; choose 'all' (or another format for "
            "one alignment)",
            field="which",
        )
    sources = export_sources(corpus)
    if which == "annotator":
        known = ", ".join(sources["annotators"]) or "nobody yet"
        if not annotator:
            raise ExportError(
                f"name the annotator whose work to export (annotators who have submitted work "
                f"in corpus {quoted(corpus.name)}: {known})",
                field="annotator",
            )
        if annotator not in sources["annotators"]:
            raise ExportError(
                f"{annotator!r} has submitted no work in corpus {quoted(corpus.name)} "
                f"(annotators who have: {known})",
                field="annotator",
            )
    elif which in ("prefill", "gold") and not sources[which]:
        raise ExportError(f"corpus {quoted(corpus.name)} has no {which} alignment", field="which")
    elif (
        which == "all"
        and format_name != "jsonl"
        and not (sources["annotators"] or sources["prefill"] or sources["gold"])
    ):
        raise ExportError(
            f"corpus {quoted(corpus.name)} has no alignment to export yet: no submitted work, "
            "prefill or gold (jsonl exports its pairs without one)",
            field="which",
        )
    if use not in PHRASE_USES:
        raise ExportError(f"'use' must be one of {', '.join(PHRASE_USES)}", field="use")
    if not 1 <= max_length <= MAX_PHRASE_LENGTH:
        raise ExportError(
            f"max_length must be between 1 and {MAX_PHRASE_LENGTH}", field="max_length"
        )
    out: dict[str, Any] = {"format": format_name, "which": which}
    if which == "annotator":
        out["annotator"] = annotator
    if format_name == "phrases":
        out.update(use=use, max_length=max_length, keep_identical=keep_identical)
    return out


def export_job_create(*, corpus: Corpus, owner: User | None = None, **options: Any) -> Job:
    """Queue an export job; bad options queue nothing."""
    parameters = export_parameters_check(corpus=corpus, **options)
    return export_run.create(parameters=parameters, owner=owner, corpus=corpus)


def selector_for(which: str, annotator: str = "") -> tuple[str, formats.AlignmentSelector]:
    """The name and selector of one alignment: ``annotator`` (named), ``prefill`` or ``gold``."""
    if which == "annotator":
        return f"annotator-{annotator}", formats.select_annotator(annotator)
    if which == "prefill":
        return "prefill", formats.select_prefill
    if which == "gold":
        return "gold", formats.select_gold
    raise ExportError(f"'which' must be annotator, prefill or gold, not {which!r}", field="which")


def _selectors(
    parameters: dict[str, Any], corpus: Corpus
) -> list[tuple[str, formats.AlignmentSelector, Q]]:
    """(name, selector, the pairs that may hold its alignment) per alignment to write."""
    which = parameters["which"]
    if which != "all":
        annotator = parameters.get("annotator", "")
        return [(*selector_for(which, annotator), _pairs_holding(which, annotator))]
    sources = export_sources(corpus)
    chosen = [
        (*selector_for("annotator", name), _pairs_holding("annotator", name))
        for name in sources["annotators"]
    ]
    chosen += [
        (*selector_for(kind), _pairs_holding(kind)) for kind in ("prefill", "gold") if sources[kind]
    ]
    return chosen


def _pairs_holding(which: str, annotator: str = "") -> Q:
    """The pairs that may hold the alignment ``which`` picks (its selector decides): a file of
    one alignment reads only those, not every pair of the corpus (an annotator's few hundred
    submitted pairs of 50,000 took minutes)."""
    if which == "annotator":
        submitted = Assignment.objects.filter(
            pair=OuterRef("pk"), annotator__username=annotator, status=Assignment.Status.SUBMITTED
        )
        return Q(Exists(submitted))
    if which == "prefill":
        return Q(Exists(AutoAlignment.objects.filter(pair=OuterRef("pk"))))
    return Q(Exists(GoldAlignment.objects.filter(pair=OuterRef("pk"))))


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-") or "corpus"


def pairs_with(
    records: Iterable[PairRecord], select: formats.AlignmentSelector
) -> Iterator[PairRecord]:
    """The records that have the alignment ``select`` picks. A single-alignment format cannot
    tell a pair without the alignment from one whose alignment has no link, so such a pair is
    left out: written with no links, a pair nobody adjudicated would come back from an import
    as an empty gold alignment."""
    return (record for record in records if select(record) is not None)


class Written(Iterator[PairRecord]):
    """Records passing through, their ids kept: the pairs an export holds."""

    def __init__(self, records: Iterable[PairRecord], ids: set[str]) -> None:
        self._records = iter(records)
        self._ids = ids

    def __next__(self) -> PairRecord:
        record = next(self._records)
        self._ids.add(record.id)
        return record


class _Counted(Iterator[PairRecord]):
    """Records of the corpus with a progress report every 200 pairs, the percentage going from
    ``start`` to ``stop`` as they are read."""

    def __init__(
        self,
        corpus: Corpus,
        progress: Progress,
        total: int,
        *,
        start: float = 0.0,
        stop: float = 100.0,
        verb: str = "written",
        only: Q | None = None,
    ) -> None:
        self._records = corpus_pair_records(corpus, only)
        self._progress, self._total = progress, max(total, 1)
        self._start, self._stop, self._verb = start, stop, verb
        self.count = 0

    def __next__(self) -> PairRecord:
        record = next(self._records)
        self.count += 1
        if self.count % 200 == 0:
            percent = self._start + (self._stop - self._start) * self.count / self._total
            self._progress(percent, f"{self._verb} {self.count} of {self._total} pairs")
        return record


def export_discard(job: Job) -> None:
    """Remove the file of an export cancelled after its last progress report (while its file
    was zipped or moved into place): it is never offered for download, and would hold its
    disk space until :func:`exports_clean`."""
    shutil.rmtree(Path(settings.EXPORT_DIR) / f"job-{job.pk}", ignore_errors=True)


@job_task(kind="export", discard=export_discard)
def export_run(job: Job, progress: Progress) -> dict[str, Any]:
    """Job runner: write the export and return where it is."""
    if job.corpus is None:
        raise ExportError("an export job needs a corpus")
    corpus, parameters = job.corpus, job.parameters
    format_name = parameters["format"]
    folder = Path(settings.EXPORT_DIR) / f"job-{job.pk}"
    shutil.rmtree(folder, ignore_errors=True)  # a retried job starts clean
    build = folder / "build"
    build.mkdir(parents=True)
    base = f"{_slug(corpus.name)}-{format_name}-{parameters['which']}"
    if parameters["which"] == "annotator":
        base = f"{_slug(corpus.name)}-{format_name}-{_slug(parameters['annotator'])}"
    written: set[str] = set()
    try:
        # Every read of the export (its count, the annotators, each chunk of pairs) sees the
        # corpus at one moment, whatever annotators save while it runs.
        with job_read_snapshot(progress) as report:
            total = SentencePair.objects.filter(corpus=corpus).count()
            outputs = _write(corpus, parameters, build, base, report, total, written)
        final = _packed(outputs, folder, build, base)
    except ScoringError as error:
        shutil.rmtree(folder, ignore_errors=True)
        raise ExportError(str(error)) from error
    except BaseException:  # cancelled at a progress report, or failed (the disk full while
        # the archive is written too): no half-written file stays
        shutil.rmtree(folder, ignore_errors=True)
        raise
    return {
        "corpus": corpus.name,
        "format": format_name,
        "which": parameters["which"],
        "alignments": [path.name for path in outputs],
        "pairs": total if format_name == "jsonl" else len(written),
        "file": final.name,
        "bytes": final.stat().st_size,
    }


def _packed(outputs: list[Path], folder: Path, build: Path, base: str) -> Path:
    """The file to download in ``folder``: the one output written into ``build``, or a zip
    archive of them all; ``build`` goes."""
    if len(outputs) == 1 and outputs[0].is_file():
        final = folder / outputs[0].name
        outputs[0].replace(final)
    else:
        final = folder / f"{base}.zip"
        with zipfile.ZipFile(final, "w", compression=zipfile.ZIP_DEFLATED) as archive:
            for path in sorted(build.rglob("*")):
                if path.is_file():
                    archive.write(path, path.relative_to(build))
    shutil.rmtree(build)
    return final


def _write(
    corpus: Corpus,
    parameters: dict[str, Any],
    build: Path,
    base: str,
    progress: Progress,
    total: int,
    written: set[str],
) -> list[Path]:
    """Write the export's files into ``build``; ``written`` collects the ids of the pairs
    they hold (a phrase table: the pairs that have a chosen alignment)."""
    format_name = parameters["format"]
    if format_name == "jsonl":
        progress(1, f"writing {total} pairs")
        output = build / f"{base}.jsonl"
        formats.get_format("jsonl").write(_Counted(corpus, progress, total), output)
        return [output]
    if format_name == "phrases":
        output = build / f"{base}.tsv"
        phrase_table_export(corpus, parameters, output, progress, total, written)
        return [output]
    selectors = _selectors(parameters, corpus)
    if not selectors:
        raise ExportError(f"corpus {quoted(corpus.name)} has no alignment to export yet")
    spec = formats.get_format(format_name)
    progress(1, f"writing {len(selectors)} alignment(s) of {total} pairs")
    outputs = []
    for step, (name, select, holding) in enumerate(selectors):
        suffix = FILE_SUFFIXES.get(format_name, "")
        output = build / f"{name}{suffix}" if len(selectors) > 1 else build / f"{base}{suffix}"
        share = 100 / len(selectors)
        held = SentencePair.objects.filter(corpus=corpus).filter(holding).count()
        counted = _Counted(
            corpus, progress, held, start=step * share, stop=(step + 1) * share, only=holding
        )
        records = pairs_with(counted, select)
        spec.write(Written(records, written), output, alignment=select)
        outputs.append(output)
    return outputs


def phrase_table_export(
    corpus: Corpus,
    parameters: dict[str, Any],
    output: Path,
    progress: Progress,
    total: int,
    written: set[str],
) -> None:
    """Write the phrase table of the alignments ``parameters`` choose (checked by
    :func:`export_parameters_check`) to ``output``; ``written`` collects the ids of the pairs
    that have one. The export job and ``manage.py export_corpus`` both write it here."""
    selectors = _selectors(parameters, corpus)
    if not selectors:
        raise ExportError(f"corpus {quoted(corpus.name)} has no alignment to export yet")
    # The first extraction in a process loads the kernels from numba's cache, or compiles
    # them for minutes when `python -m scoring warm` has not: the message says so meanwhile.
    progress(
        2,
        f"extracting phrase pairs from {total} pairs (the first time after an install or "
        "an upgrade, compiling the phrase-extraction kernels takes a few minutes first)",
    )
    table = phrase_table_build(
        _phrase_items(
            _Counted(corpus, progress, total, start=5, stop=95, verb="phrase pairs extracted from"),
            [(name, select) for name, select, _ in selectors],
            written,
        ),
        use=parameters["use"],
        max_length=parameters["max_length"],
        keep_identical=parameters["keep_identical"],
    )
    progress(95, f"writing the phrase table ({len(table)} phrase pairs)")
    write_phrase_table(table, output)


def _phrase_items(
    records: Iterable[PairRecord],
    selectors: list[tuple[str, formats.AlignmentSelector]],
    written: set[str],
) -> Iterator[tuple[list[str], list[str], Alignment]]:
    """Each chosen alignment of each pair, for the phrase table; ``written`` collects the ids
    of the pairs that have one."""
    for record in records:
        for _, select in selectors:
            alignment = select(record)
            if alignment is not None:
                written.add(record.id)
                yield record.source_tokens, record.target_tokens, alignment


def export_file(job: Job) -> Path:
    """The file a finished export job wrote; :class:`NotFound` if it is gone."""
    if job.kind != "export":
        raise DomainError(f"job {job.pk} is a {job.kind} job, not an export")
    if job.status != Job.Status.SUCCEEDED or not job.result:
        raise NotFound(f"export job {job.pk} has no file ({job.status})")
    path = Path(settings.EXPORT_DIR) / f"job-{job.pk}" / str(job.result["file"])
    if not path.is_file():
        raise NotFound(
            f"the file of export job {job.pk} was removed after {settings.EXPORT_KEEP_DAYS} "
            "days; run the export again"
        )
    return path


def exports_clean(*, now: float | None = None) -> int:
    """Remove export folders older than ``EXPORT_KEEP_DAYS``; returns how many."""
    root = Path(settings.EXPORT_DIR)
    if not root.is_dir():
        return 0
    limit = (now or time.time()) - settings.EXPORT_KEEP_DAYS * 86400
    removed = 0
    for folder in root.glob("job-*"):
        if folder.is_dir() and folder.stat().st_mtime < limit:
            shutil.rmtree(folder, ignore_errors=True)
            removed += 1
    return removed


class CorpusExportError(DomainError):
    code = "export_failed"


def corpus_export(
    *,
    corpus_name: str,
    format_name: str,
    output: Path,
    annotator: str | None = None,
    prefill: bool = False,
    gold: bool = False,
    phrases: dict[str, Any] | None = None,
) -> int:
    """Write the corpus to ``output``; returns the number of pairs written.

    Lossless formats (``jsonl``) carry every alignment. Single-alignment formats need exactly one
    of ``annotator``, ``prefill`` or ``gold`` to say which alignment to write, and hold the pairs
    that have it (:func:`~annotate.services.exports.pairs_with`). A phrase table (``phrases``)
    counts the chosen alignment, or every one, with the export job's ``phrases`` options
    (``use``, ``max_length``, ``keep_identical``).
    """
    try:
        corpus = Corpus.objects.get(name=corpus_name)
    except Corpus.DoesNotExist:
        raise CorpusExportError(f"there is no corpus named {quoted(corpus_name)}") from None
    chosen = [flag for flag in (annotator is not None, prefill, gold) if flag]
    if len(chosen) > 1:
        raise CorpusExportError("choose at most one of --annotator, --prefill and --gold")
    if phrases and format_name != "phrases":
        raise CorpusExportError("--use, --max-length and --keep-identical apply to phrases only")
    if format_name == "phrases":
        which = "annotator" if annotator is not None else "prefill" if prefill else "gold"
        which = which if chosen else "all"
        parameters = export_parameters_check(
            corpus=corpus,
            format_name=format_name,
            which=which,
            annotator=annotator or "",
            **(phrases or {}),
        )
        return _phrase_table_write(corpus, parameters, Path(output))
    pick: formats.AlignmentSelector | None = None
    if annotator is not None:
        if not get_user_model().objects.filter(username=annotator).exists():
            raise CorpusExportError(f"no user named {annotator!r}")
        pick = selector_for("annotator", annotator)[1]
    elif prefill or gold:
        pick = selector_for("prefill" if prefill else "gold")[1]
    spec = _writable(format_name)
    if pick is not None and not spec.selects_alignment:
        raise CorpusExportError(
            f"the {spec.name} format keeps every alignment; --annotator, --prefill and --gold "
            "apply to single-alignment formats"
        )
    records: Iterable[PairRecord] = corpus_pair_records(corpus)
    written: set[str] = set()
    try:
        with read_snapshot():  # the corpus at one moment, as the export job reads it
            spec.write(
                Written(records if pick is None else pairs_with(records, pick), written),
                Path(output),
                alignment=pick,
            )
    except ScoringError as error:
        raise CorpusExportError(str(error)) from error
    return len(written)


def _phrase_table_write(corpus: Corpus, parameters: dict[str, Any], output: Path) -> int:
    """The export job's phrase table written to ``output`` (whole, or not at all)."""
    written: set[str] = set()
    partial = output.with_name(f".{output.name}.{uuid.uuid4().hex}.part")
    try:
        with read_snapshot():
            total = SentencePair.objects.filter(corpus=corpus).count()
            phrase_table_export(corpus, parameters, partial, _no_progress, total, written)
        partial.replace(output)
    finally:
        partial.unlink(missing_ok=True)
    return len(written)


def _no_progress(percent: float, message: str) -> None:
    """A command's export reports no progress."""


def _writable(format_name: str) -> formats.FormatSpec:
    try:
        spec = formats.get_format(format_name)
    except ScoringError as error:
        raise CorpusExportError(str(error)) from error
    if not spec.writable:
        raise CorpusExportError(
            f"the {spec.name} format cannot be written; writable formats: "
            f"{', '.join(formats.writable_formats())}"
        )
    return spec
