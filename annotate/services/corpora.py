"""Corpora: create, import, export, archive, restore and delete.

Import is all-or-nothing: records stream from a :mod:`scoring.formats` reader into one
transaction, in batches so memory stays flat however large the file; the first bad record
raises and the transaction rolls back, leaving the database as it was.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.db.models import Max
from django.utils import timezone

from annotate import roles
from annotate.conversions import link_event_list, link_rows
from annotate.exceptions import Conflict, DomainError
from annotate.jobs_runtime import job_task
from annotate.models import (
    Annotation,
    AnnotationEvent,
    AnnotationLink,
    Assignment,
    AutoAlignment,
    AutoLink,
    Corpus,
    GoldAlignment,
    GoldEvent,
    GoldLink,
    Job,
    PairDisagreement,
    SentencePair,
)
from annotate.selectors.corpora import corpus_contents, corpus_pair_records
from annotate.services.annotations import InvalidLinks, edits_from_prefill, links_count_check
from annotate.services.disagreement import disagreement_of
from annotate.services.exports import Written, pairs_with, selector_for
from annotate.services.links import links_insert
from annotate.services.users import username_check, username_twin
from scoring import formats
from scoring.alignment.links import Alignment
from scoring.corpus import PairRecord
from scoring.errors import FormatError, ScoringError

BATCH_SIZE = 1000
ALIGNMENT_CHOICES = ("annotator", "prefill", "gold")


class CorpusImportError(DomainError):
    """An import was refused; nothing was written."""

    code = "import_failed"


class CorpusExportError(DomainError):
    code = "export_failed"


@dataclass
class ImportReport:
    corpus: str
    pairs: int = 0
    annotations: int = 0
    prefills: int = 0
    gold_alignments: int = 0
    created_users: list[str] = field(default_factory=list)
    created_corpus: bool = False


@transaction.atomic
def corpus_create(*, name: str, description: str = "") -> Corpus:
    """A new, empty corpus; its name must be unused."""
    name = name.strip()
    if not name:
        raise DomainError("a corpus needs a name", field="name")
    if Corpus.objects.filter(name=name).exists():
        raise Conflict(f"there is already a corpus named {name!r}", field="name")
    return Corpus.objects.create(name=name, description=description.strip())


@transaction.atomic
def corpus_archive(*, corpus: Corpus) -> bool:
    """Archive the corpus: every pair and all work stay, but it leaves annotators' queues, the
    adjudication list, prefill retraining and the corpus lists (their archived filter shows
    it). Returns False when it was archived already."""
    return (
        Corpus.objects.filter(pk=corpus.pk, archived_at__isnull=True).update(
            archived_at=timezone.now()
        )
        == 1
    )


@transaction.atomic
def corpus_restore(*, corpus: Corpus) -> bool:
    """Bring an archived corpus back into use, as it was. Returns False when it was not
    archived."""
    return (
        Corpus.objects.filter(pk=corpus.pk, archived_at__isnull=False).update(archived_at=None) == 1
    )


#: What a deletion is confirmed against: the counts of people's work the confirmation showed.
WORK_COUNTS = ("annotations", "gold_alignments", "assignments", "saved_changes")


def corpus_delete(
    *,
    corpus: Corpus,
    confirm: str,
    seen: dict[str, int] | None = None,
    owner: User | None = None,
) -> Job:
    """Queue the deletion of a corpus with everything it holds (pairs, prefills, assignments,
    annotations and their history, gold alignments, jobs); trained scorers stay, unlinked.

    ``confirm`` must be the corpus's name, typed. ``seen`` holds the counts of
    :data:`WORK_COUNTS` the confirmation showed: if the corpus holds more work now, nothing
    happens (:class:`~annotate.exceptions.Conflict`), so no work added meanwhile goes unseen.
    The corpus is archived at once (out of every queue and list) and a ``corpus_delete`` job
    deletes it in one transaction: all of it, or, should it fail, nothing. Refused while a job
    of the corpus is queued or running."""
    if confirm.strip() != corpus.name:
        raise DomainError(
            f"type the corpus name, {corpus.name!r}, to delete it; nothing was deleted",
            field="confirm",
        )
    contents = corpus_contents(corpus)
    now = {name: getattr(contents, name) for name in WORK_COUNTS}
    shown = seen or {}
    grown = [name for name in WORK_COUNTS if seen is not None and now[name] > shown.get(name, 0)]
    if grown:
        changes = ", ".join(
            f"{name.replace('_', ' ')}: {shown.get(name, 0):,} shown, {now[name]:,} now"
            for name in grown
        )
        raise Conflict(
            f"{corpus.name!r} holds more work than the confirmation showed ({changes}); "
            "nothing was deleted: look at what it holds now and confirm again",
            current=now,
        )
    busy = Job.objects.filter(corpus=corpus, status__in=(Job.Status.PENDING, Job.Status.RUNNING))
    first = busy.order_by("pk").first()
    if first is not None:
        raise Conflict(
            f"job #{first.pk} ({first.kind.replace('_', ' ')}) of {corpus.name!r} is "
            f"{first.status}; cancel it or let it finish, then delete the corpus",
            job=first.pk,
        )
    with transaction.atomic():
        corpus_archive(corpus=corpus)
        return corpus_delete_run.create(
            owner=owner,
            parameters={"corpus": corpus.name, "corpus_id": corpus.pk, **now},
        )


@job_task(kind="corpus_delete")
def corpus_delete_run(job: Job, progress: Callable[[float, str], None]) -> dict[str, Any]:
    """Job runner of ``corpus_delete``: delete the corpus and everything it holds in one
    transaction, unless it holds more work than was confirmed (then nothing goes and the
    corpus stays archived). Rows go table by table, the leaves first, each in one statement,
    so a corpus of 100,000 pairs costs a few statements, not one per row."""
    p = job.parameters
    corpus = Corpus.objects.filter(pk=p["corpus_id"]).first()
    if corpus is None:
        raise DomainError(f"corpus {p['corpus']!r} is gone already")
    with transaction.atomic():
        corpus = Corpus.objects.select_for_update().get(pk=corpus.pk)
        contents = corpus_contents(corpus)
        grown = [name for name in WORK_COUNTS if getattr(contents, name) > int(p.get(name, 0))]
        if grown:
            raise Conflict(
                f"work was added to {corpus.name!r} after its deletion was confirmed "
                f"({', '.join(name.replace('_', ' ') for name in grown)}); nothing was "
                "deleted and the corpus stays archived"
            )
        for model, path in (
            (AnnotationLink, "annotation__assignment__"),
            (AnnotationEvent, "annotation__assignment__"),
            (Annotation, "assignment__"),
            (Assignment, ""),
            (GoldLink, "gold__"),
            (GoldEvent, "gold__"),
            (GoldAlignment, ""),
            (AutoLink, "alignment__"),
            (AutoAlignment, ""),
            (PairDisagreement, ""),
        ):
            model.objects.filter(**{f"{path}pair__corpus": corpus}).delete()
        SentencePair.objects.filter(corpus=corpus).delete()
        corpus.delete()  # its jobs; scorers trained on it lose only the link
    return {"corpus": p["corpus"], **dataclasses.asdict(contents)}


def corpus_import(
    *,
    corpus_name: str,
    format_name: str,
    paths: Sequence[Path],
    subcorpus: str | None = None,
    split: str | None = None,
    annotator: str | None = None,
    description: str = "",
    progress: Callable[[int], None] | None = None,
) -> ImportReport:
    """Read ``paths`` in ``format_name`` and add every pair to the corpus, or nothing.

    ``annotator`` attributes the alignment of a single-alignment format (Pharaoh, jacana) to that
    user as a submitted annotation; without it such alignments become the pairs' gold alignment
    (the readers decide this, see :mod:`scoring.formats`).
    Annotations keyed by name in the file (RTE-2 letters, JSONL usernames) are attributed to users
    of exactly those names, created in the annotator group when missing if the API would accept
    the name (:func:`~annotate.services.users.username_check`) and it is no twin of an existing
    user in case or look-alike characters; otherwise nothing is imported.
    """
    try:
        spec = formats.get_format(format_name)
        options: dict[str, str] = {}
        if annotator is not None:
            if "annotator" not in spec.options:
                takers = [n for n, f in formats.FORMATS.items() if "annotator" in f.options]
                raise CorpusImportError(
                    f"--annotator does not apply to the {spec.name} format (it applies to "
                    f"single-alignment formats: {', '.join(takers)}); nothing was imported"
                )
            if not get_user_model().objects.filter(username=annotator).exists():
                problem = _annotator_problem(annotator)
                if problem is not None:
                    raise CorpusImportError(f"{problem}; nothing was imported", field="annotator")
            options["annotator"] = annotator
        records = spec.read([Path(p) for p in paths], **options)
    except ScoringError as error:
        raise CorpusImportError(f"{error} (nothing was imported)", **_where(error)) from error
    return corpus_import_records(
        corpus_name=corpus_name,
        records=records,
        source=", ".join(str(p) for p in paths),
        subcorpus=subcorpus,
        split=split,
        description=description,
        progress=progress,
    )


def _where(error: ScoringError) -> dict[str, object]:
    """The file (its name), line and field a reader's error points at, for clients to show."""
    if not isinstance(error, FormatError):
        return {}
    return {
        "file": Path(error.path).name if error.path else None,
        "line": error.line,
        "field": error.field,
    }


def corpus_import_records(
    *,
    corpus_name: str,
    records: Iterable[PairRecord],
    source: str = "<records>",
    subcorpus: str | None = None,
    split: str | None = None,
    description: str = "",
    progress: Callable[[int], None] | None = None,
) -> ImportReport:
    """Add already-read records to a corpus in one transaction (see :func:`corpus_import`)."""
    try:
        with transaction.atomic():
            report = _import_records(
                corpus_name=corpus_name,
                records=records,
                subcorpus=subcorpus,
                split=split,
                description=description,
                progress=progress,
            )
            if report.pairs == 0:
                raise CorpusImportError(f"{source}: no sentence pairs found")
    except ScoringError as error:
        raise CorpusImportError(f"{error} (nothing was imported)", **_where(error)) from error
    except CorpusImportError as error:
        raise CorpusImportError(f"{error.message} (nothing was imported)", **error.extra) from error
    return report


def _import_records(
    *,
    corpus_name: str,
    records: Iterable[PairRecord],
    subcorpus: str | None,
    split: str | None,
    description: str,
    progress: Callable[[int], None] | None,
) -> ImportReport:
    corpus, created = Corpus.objects.get_or_create(
        name=corpus_name, defaults={"description": description}
    )
    report = ImportReport(corpus=corpus.name, created_corpus=created)
    last = corpus.pairs.aggregate(m=Max("position"))["m"]
    position = 0 if last is None else last + 1
    users = _UserCache(report)
    seen: set[str] = set()
    iterator = iter(records)
    while batch := list(itertools.islice(iterator, BATCH_SIZE)):
        for record in batch:
            if record.id in seen:
                raise CorpusImportError(f"pair id {record.id!r} occurs twice in the input")
            seen.add(record.id)
            if subcorpus is not None:
                record.subcorpus = subcorpus
            if split is not None:
                record.split = split
        _reject_existing_ids(corpus, [r.id for r in batch])
        position = _insert_batch(corpus, batch, position, users, report)
        if progress is not None:
            progress(report.pairs)
    return report


def _reject_existing_ids(corpus: Corpus, ids: list[str]) -> None:
    clash = (
        SentencePair.objects.filter(corpus=corpus, external_id__in=ids)
        .values_list("external_id", flat=True)
        .first()
    )
    if clash is not None:
        raise CorpusImportError(f"pair id {clash!r} already exists in corpus {corpus.name!r}")


def _annotator_problem(name: str, usernames: Iterable[str] | None = None) -> str | None:
    """Why ``name`` cannot become a new annotator account (the API's username rule, and no
    twin of an existing user in case or look-alike characters), or ``None``."""
    try:
        username_check(name)
    except DomainError as error:
        return f"annotator name {name!r}: {error.message}"
    twin = username_twin(name, usernames)
    if twin is not None:
        return (
            f"annotator name {name!r} differs from the existing user {twin!r} only in case or "
            f"look-alike characters; write {twin!r} to attribute the work to them"
        )
    return None


class _UserCache:
    """The accounts an import attributes work to: existing users by their exact name, new
    annotator accounts only for names the API would accept."""

    def __init__(self, report: ImportReport) -> None:
        self._users: dict[str, User] = {}
        self._report = report
        self._usernames: list[str] | None = None

    def get(self, username: str, origin: tuple[str, int | None, str] | None = None) -> User:
        if username not in self._users:
            user_model = get_user_model()
            user = user_model.objects.filter(username=username).first()
            if user is None:
                if self._usernames is None:
                    self._usernames = list(user_model.objects.values_list("username", flat=True))
                problem = _annotator_problem(username, self._usernames)
                if problem is not None:
                    file, line, field = origin or (None, None, "annotations")
                    raise FormatError(problem, path=file, line=line, field=field)
                user = user_model(username=username)
                user.set_unusable_password()
                user.save()
                user.groups.add(roles.role_group(roles.ANNOTATOR))
                self._report.created_users.append(username)
                self._usernames.append(username)
            self._users[username] = user
        return self._users[username]


def _insert_batch(
    corpus: Corpus,
    batch: list[PairRecord],
    position: int,
    users: _UserCache,
    report: ImportReport,
) -> int:
    pairs = []
    # each pair's submitted annotations and the ids of their annotators
    submitted: list[tuple[list[Alignment], list[int]]] = []
    for offset, record in enumerate(batch):
        n_source, n_target = record.shape
        if n_source == 0 or n_target == 0:
            raise CorpusImportError(f"pair {record.id!r}: a sentence has no tokens")
        done = {
            name: annotation
            for name, annotation in record.annotations.items()
            if annotation.status == Assignment.Status.SUBMITTED
        }
        submitted.append(
            (
                [
                    annotation.alignment.with_lengths_checked(
                        record.source_tokens, record.target_tokens
                    )
                    for annotation in done.values()
                ],
                [users.get(name, annotation.origin).pk for name, annotation in done.items()],
            )
        )
        pairs.append(
            SentencePair(
                corpus=corpus,
                external_id=record.id,
                subcorpus=record.subcorpus,
                split=record.split,
                source_text=record.source_text,
                target_text=record.target_text,
                source_tokens=record.source_tokens,
                target_tokens=record.target_tokens,
                n_source=n_source,
                n_target=n_target,
                gold_score=record.gold_score,
                gold_label=record.gold_label,
                metadata=record.metadata,
                position=position + offset,
            )
        )
    try:
        SentencePair.objects.bulk_create(pairs)
    except IntegrityError as error:
        raise CorpusImportError(f"the database refused a pair: {error}") from error
    PairDisagreement.objects.bulk_create(
        row
        for row in (
            disagreement_of(pair, found, who, "imported" if record.gold_alignment else "")
            for pair, (found, who), record in zip(pairs, submitted, batch, strict=True)
        )
        if row is not None
    )

    now = timezone.now()
    prefill_rows: list[tuple[AutoAlignment, PairRecord]] = []
    gold_rows: list[tuple[GoldAlignment, Alignment]] = []
    annotation_rows: list[tuple[Assignment, PairRecord, str]] = []
    for pair, record in zip(pairs, batch, strict=True):
        for what, alignment in (
            ("the prefill", record.prefill),
            ("the gold", record.gold_alignment),
        ):
            if alignment is not None:
                alignment.with_lengths_checked(record.source_tokens, record.target_tokens)
                _links_checked(record, what, alignment)
        if record.prefill is not None:
            prefill_rows.append(
                (AutoAlignment(pair=pair, aligner=record.prefill_aligner or "imported"), record)
            )
        if record.gold_alignment is not None:
            gold_rows.append((GoldAlignment(pair=pair, source="imported"), record.gold_alignment))
        for name, annotation in record.annotations.items():
            annotation.alignment.with_lengths_checked(record.source_tokens, record.target_tokens)
            _links_checked(record, f"the annotation by {name!r}", annotation.alignment)
            status = annotation.status
            if status not in Assignment.Status.values:
                raise CorpusImportError(
                    f"pair {record.id!r}: annotation by {name!r} has unknown status {status!r} "
                    f"(expected one of {', '.join(Assignment.Status.values)})"
                )
            assignment = Assignment(
                pair=pair,
                annotator=users.get(name, annotation.origin),
                status=status,
                submitted_at=now if status == Assignment.Status.SUBMITTED else None,
            )
            annotation_rows.append((assignment, record, name))

    AutoAlignment.objects.bulk_create([row for row, _ in prefill_rows])
    _insert_links(
        AutoLink,
        "alignment_id",
        (
            (row.pk, i, j, sure, record.prefill_confidence.get((i, j)))
            for row, record in prefill_rows
            for i, j, sure in link_rows(record.prefill)  # type: ignore[arg-type]
        ),
        with_confidence=True,
    )
    GoldAlignment.objects.bulk_create([row for row, _ in gold_rows])
    GoldEvent.objects.bulk_create(
        GoldEvent(
            gold=row, version=1, kind=GoldEvent.Kind.IMPORTED, added=link_event_list(alignment)
        )
        for row, alignment in gold_rows
    )
    _insert_links(
        GoldLink,
        "gold_id",
        (
            (row.pk, i, j, sure)
            for row, alignment in gold_rows
            for i, j, sure in link_rows(alignment)
        ),
    )
    Assignment.objects.bulk_create([row for row, _, _ in annotation_rows])
    annotations = [
        Annotation(
            assignment=assignment,
            flags=list(record.annotations[name].flags),
            rating=record.annotations[name].rating,
            comment=record.annotations[name].comment,
            link_count=len(record.annotations[name].alignment.possible),
            prefill_edits=edits_from_prefill(
                record.annotations[name].alignment.possible,
                None if record.prefill is None else record.prefill.possible,
            ),
        )
        for assignment, record, name in annotation_rows
    ]
    Annotation.objects.bulk_create(annotations)
    _insert_links(
        AnnotationLink,
        "annotation_id",
        (
            (annotation.pk, i, j, sure)
            for annotation, (_, record, name) in zip(annotations, annotation_rows, strict=True)
            for i, j, sure in link_rows(record.annotations[name].alignment)
        ),
    )
    AnnotationEvent.objects.bulk_create(
        AnnotationEvent(
            annotation=annotation,
            version=1,
            kind=AnnotationEvent.Kind.IMPORTED,
            added=link_event_list(record.annotations[name].alignment),
        )
        for annotation, (_, record, name) in zip(annotations, annotation_rows, strict=True)
    )
    report.pairs += len(pairs)
    report.prefills += len(prefill_rows)
    report.gold_alignments += len(gold_rows)
    report.annotations += len(annotations)
    return position + len(pairs)


def _links_checked(record: PairRecord, what: str, alignment: Alignment) -> None:
    try:
        links_count_check(len(alignment.possible), f"pair {record.id!r}: {what}")
    except InvalidLinks as error:
        raise CorpusImportError(error.message) from None


def _insert_links(
    model: type[AutoLink | AnnotationLink | GoldLink],
    parent_column: str,
    rows: Iterable[tuple[Any, ...]],
    *,
    with_confidence: bool = False,
) -> None:
    """:func:`links_insert`, with the database's refusal of a row reported as an import error."""
    try:
        links_insert(
            model=model, parent_column=parent_column, rows=rows, with_confidence=with_confidence
        )
    except IntegrityError as error:
        raise CorpusImportError(f"the database refused a link: {error}") from error


def corpus_export(
    *,
    corpus_name: str,
    format_name: str,
    output: Path,
    annotator: str | None = None,
    prefill: bool = False,
    gold: bool = False,
) -> int:
    """Write the corpus to ``output``; returns the number of pairs written.

    Lossless formats (``jsonl``) carry every alignment. Single-alignment formats need exactly one
    of ``annotator``, ``prefill`` or ``gold`` to say which alignment to write, and hold the pairs
    that have it (:func:`~annotate.services.exports.pairs_with`).
    """
    try:
        corpus = Corpus.objects.get(name=corpus_name)
    except Corpus.DoesNotExist:
        raise CorpusExportError(f"no corpus named {corpus_name!r}") from None
    chosen = [flag for flag in (annotator is not None, prefill, gold) if flag]
    if len(chosen) > 1:
        raise CorpusExportError("choose at most one of --annotator, --prefill and --gold")
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
        spec.write(
            Written(records if pick is None else pairs_with(records, pick), written),
            Path(output),
            alignment=pick,
        )
    except ScoringError as error:
        raise CorpusExportError(str(error)) from error
    return len(written)


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
