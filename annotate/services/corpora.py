"""Corpora: create, import, archive, restore and delete (export: :mod:`annotate.services.exports`).

Import is all-or-nothing, and holds the database's write lock only while it writes: records
stream from a :mod:`scoring.formats` reader and are checked and staged in a temporary file,
outside any transaction (reading, tokenizing and checking a large file takes longer than
writing it, and on SQLite every other user's write would wait meanwhile); the first bad record
raises with nothing written. Then the stage is written into a hidden staging corpus, a batch per
transaction, so memory stays flat however large the file and other users' writes wait a batch at
most; one short transaction hands its pairs to the corpus. An error on the way deletes the staging
corpus, leaving the database as it was.
"""

from __future__ import annotations

import dataclasses
import logging
import tempfile
import time
import uuid
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.hashers import UNUSABLE_PASSWORD_PREFIX
from django.contrib.auth.models import AnonymousUser, User
from django.db import connection, transaction
from django.db.models import F, Max, QuerySet
from django.utils import timezone

from annotate import roles
from annotate.exceptions import Conflict, DomainError, quoted
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
from annotate.selectors.corpora import corpus_contents
from annotate.services.import_stage import (
    CorpusImportError,
    ImportStage,
    Origin,
    first_invisible,
    read_at,
    record_staged,
    staged_batch_write,
)
from annotate.services.planner_stats import import_tables_analyze
from annotate.services.users import username_check, username_twin
from scoring import formats
from scoring.corpus import PairRecord
from scoring.errors import FormatError, ScoringError

logger = logging.getLogger(__name__)

BATCH_SIZE = 1000
#: Pairs read between two reports of an import's reading stage (a tenth of a second to a few
#: seconds on a busy host), so that its job shows it moving.
READ_REPORT_EVERY = 100


@dataclass
class ImportReport:
    corpus: str
    pairs: int = 0
    annotations: int = 0
    prefills: int = 0
    gold_alignments: int = 0
    created_users: list[str] = field(default_factory=list)
    created_corpus: bool = False
    #: Added to the corpus's pairs (:mod:`annotate.services.import_onto`): ``pairs`` counts the
    #: file's pairs, ``annotated_pairs`` those that got annotations, ``gold_unchanged`` those
    #: whose gold was the file's already, ``annotations_unchanged`` the file's annotations the
    #: corpus held already.
    onto_existing: bool = False
    annotated_pairs: int = 0
    gold_unchanged: int = 0
    annotations_unchanged: int = 0


def corpus_name_check(name: str, *, field: str = "name") -> str:
    """The name of a new corpus, stripped, or a :class:`DomainError` naming ``field`` when it
    is empty or holds a character that is not shown as itself (:func:`first_invisible`)."""
    name = name.strip()
    if not name:
        raise DomainError("a corpus needs a name", field=field)
    bad = first_invisible(name)
    if bad is not None:
        raise DomainError(
            f"a corpus name may not hold the invisible or control character U+{ord(bad):04X}",
            field=field,
        )
    return name


@transaction.atomic
def corpus_create(*, name: str, description: str = "") -> Corpus:
    """A new, empty corpus; its name must be unused."""
    name = corpus_name_check(name)
    if Corpus.objects.filter(name=name).exists():
        raise Conflict(f"there is already a corpus named {quoted(name)}", field="name")
    return Corpus.objects.create(name=name, description=description.strip())


class CorpusArchived(Conflict):
    """A request for new work in an archived corpus (see :func:`corpus_in_use_check`)."""

    code = "corpus_archived"


def corpus_in_use_check(corpus: Corpus, *, doing: str) -> None:
    """Refuse new work in an archived corpus: the one rule of what archiving stops.

    An archived corpus keeps its work and can be read, exported, reported on (agreement,
    statistics), trained on, restored and deleted; an assignment of it still opens by its
    address and saves. What would add work or change who does it is refused (409,
    ``corpus_archived``) until it is restored: planning, handing over and releasing assignments,
    setting the order they open in, prefilling (or setting its retraining), importing pairs into
    it, undoing a bulk accept (its pairs' golds would wait where the adjudication list does not
    show them). ``doing`` names the request ("planning assignments") in the message."""
    if corpus.archived_at is not None:
        raise CorpusArchived(
            f"corpus {quoted(corpus.name)} is archived: restore it before {doing}", field="corpus"
        )


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
    deletes it (:func:`corpus_delete_run`). Refused while a job of the corpus is queued or
    running."""
    if confirm.strip() != corpus.name:
        raise DomainError(
            f"type the corpus name, {quoted(corpus.name)}, to delete it; nothing was deleted",
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
            f"{quoted(corpus.name)} holds more work than the confirmation showed ({changes}); "
            "nothing was deleted: look at what it holds now and confirm again",
            current=now,
        )
    busy = Job.objects.filter(corpus=corpus, status__in=(Job.Status.PENDING, Job.Status.RUNNING))
    first = busy.order_by("pk").first()
    if first is not None:
        raise Conflict(
            f"job #{first.pk} ({first.kind.replace('_', ' ')}) of {quoted(corpus.name)} is "
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
    """Job runner of ``corpus_delete``: delete the corpus and everything it holds, unless it
    holds more work than was confirmed (then nothing goes and the corpus stays archived).

    Pairs go a batch per transaction (:func:`_pairs_delete`), so that other users' writes wait a
    batch at most, not the whole deletion. Each batch first checks that nobody saved work in the
    corpus since the deletion began (an archived corpus's assignment still opens by its
    address): if someone did, the deletion stops there and the pairs left, with that work, stay
    in the archived corpus, to be looked at and deleted again."""
    p = job.parameters
    corpus = Corpus.objects.filter(pk=p["corpus_id"]).first()
    if corpus is None:
        raise DomainError(f"corpus {quoted(p['corpus'])} is gone already")
    since = _work_marks()  # first: work saved after it is caught batch by batch
    contents = corpus_contents(corpus)
    grown = [name for name in WORK_COUNTS if getattr(contents, name) > int(p.get(name, 0))]
    if grown:
        raise Conflict(
            f"work was added to {quoted(corpus.name)} after its deletion was confirmed "
            f"({', '.join(name.replace('_', ' ') for name in grown)}); nothing was "
            "deleted and the corpus stays archived"
        )
    pairs = SentencePair.objects.filter(corpus=corpus)
    total, deleted = contents.pairs, 0
    while ids := list(pairs.order_by("position").values_list("pk", flat=True)[:BATCH_SIZE]):
        with transaction.atomic():
            if _work_saved_since(corpus, since):
                raise Conflict(
                    f"work was saved in {quoted(corpus.name)} while it was being deleted; "
                    f"{deleted:,} of its {total:,} pairs were deleted, the others stay in the "
                    "archived corpus with that work: look at it and delete it again"
                )
            _pairs_delete(SentencePair.objects.filter(pk__in=ids))
        deleted += len(ids)
        let_others_write()
        progress(100 * deleted / max(total, 1), f"{deleted:,} of {total:,} pairs deleted")
    corpus.delete()  # its jobs; scorers trained on it lose only the link
    return {"corpus": p["corpus"], **dataclasses.asdict(contents)}


def _work_marks() -> tuple[int, int, int]:
    """The newest saved change, gold change and assignment, by id (they only ever grow)."""
    return (
        AnnotationEvent.objects.aggregate(m=Max("pk"))["m"] or 0,
        GoldEvent.objects.aggregate(m=Max("pk"))["m"] or 0,
        Assignment.objects.aggregate(m=Max("pk"))["m"] or 0,
    )


def _work_saved_since(corpus: Corpus, since: tuple[int, int, int]) -> bool:
    change, gold_change, assignment = since
    return (
        AnnotationEvent.objects.filter(
            pk__gt=change, annotation__assignment__pair__corpus=corpus
        ).exists()
        or GoldEvent.objects.filter(pk__gt=gold_change, pair__corpus=corpus).exists()
        or Assignment.objects.filter(pk__gt=assignment, pair__corpus=corpus).exists()
    )


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
    written: Callable[[int, int], None] | None = None,
    importer: AbstractBaseUser | AnonymousUser | None = None,
) -> ImportReport:
    """Read ``paths`` in ``format_name`` and add every pair to the corpus, or nothing.

    ``annotator`` attributes the alignment of a single-alignment format (Pharaoh, jacana) to that
    user as a submitted annotation; without it such alignments become the pairs' gold alignment
    (the readers decide this, see :mod:`scoring.formats`).
    Annotations keyed by name in the file (RTE-2 letters, JSONL usernames) are attributed to users
    of exactly those names, created in the annotator group when missing if the API would accept
    the name (:func:`~annotate.services.users.username_check`) and it is no twin of an existing
    user in case or look-alike characters; otherwise nothing is imported. ``importer`` is who
    imports (see :func:`import_names_check`).
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
                problem = annotator_problem(annotator)
                if problem is not None:
                    raise CorpusImportError(f"{problem}; nothing was imported", field="annotator")
            options["annotator"] = annotator
        if split and "split" in spec.options:  # ids that name the split: train and test differ
            options["split"] = split
        records = spec.read([Path(p) for p in paths], **options)
    except ScoringError as error:
        raise CorpusImportError(f"{error} (nothing was imported)", **error_where(error)) from error
    return corpus_import_records(
        corpus_name=corpus_name,
        records=records,
        source=", ".join(str(p) for p in paths),
        subcorpus=subcorpus,
        split=split,
        description=description,
        progress=progress,
        written=written,
        importer=importer,
    )


def error_where(error: ScoringError) -> dict[str, object]:
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
    written: Callable[[int, int], None] | None = None,
    importer: AbstractBaseUser | AnonymousUser | None = None,
) -> ImportReport:
    """Add records to a corpus, all or nothing (see :func:`corpus_import`).

    Every record is first read, checked and turned into the values of its rows outside any
    transaction, into an :class:`~annotate.services.import_stage.ImportStage`; the pair ids and
    annotator names are then checked against the database, still outside, and the stage is
    written through a staging corpus (:func:`_write_stage`), whose hand-over checks the pair
    ids again (another import may have come in between). The first bad record raises before
    anything is written. ``progress(pairs)`` is called after each batch read and
    ``written(pairs, total)`` after each batch written, both outside any transaction.
    """
    try:
        existing = Corpus.objects.filter(name=corpus_name).first()
        if existing is None:
            corpus_name_check(corpus_name, field="corpus")
        else:
            corpus_in_use_check(existing, doing="importing pairs into it")
        with tempfile.TemporaryFile(prefix="corpus-import-") as file:
            stage = ImportStage(file)
            staged = []
            for record in records:
                staged.append(
                    record_staged(record=record, stage=stage, subcorpus=subcorpus, split=split)
                )
                if len(staged) == BATCH_SIZE:
                    stage.add(staged)
                    staged = []
                read = stage.pairs + len(staged)
                if progress is not None and read % READ_REPORT_EVERY == 0:
                    progress(read)
            if staged:
                stage.add(staged)
            if progress is not None and stage.pairs % READ_REPORT_EVERY:
                progress(stage.pairs)  # the last few
            if stage.pairs == 0:
                raise CorpusImportError(f"{source}: no sentence pairs found")
            _check_against_database(corpus_name, stage, importer)
            report = _write_stage(corpus_name, stage, description, written)
    except ScoringError as error:
        raise CorpusImportError(f"{error} (nothing was imported)", **error_where(error)) from error
    except CorpusImportError as error:
        raise CorpusImportError(f"{error.message} (nothing was imported)", **error.extra) from error
    return report


def _check_against_database(
    corpus_name: str, stage: ImportStage, importer: AbstractBaseUser | AnonymousUser | None
) -> None:
    """The checks that need the database, read-only before the write transaction (which makes
    them again): no pair id already in the corpus, every new annotator's name acceptable."""
    corpus = Corpus.objects.filter(name=corpus_name).first()
    if corpus is not None:
        ids = list(stage.ids)
        for start in range(0, len(ids), BATCH_SIZE):
            _reject_existing_ids(corpus, ids[start : start + BATCH_SIZE], stage)
    import_names_check(stage, importer=importer)


def import_names_check(
    stage: ImportStage, *, importer: AbstractBaseUser | AnonymousUser | None = None
) -> None:
    """Every annotator the staged file names who has no account yet may get one, and
    ``importer`` may act on every account it names; the first name that fails raises
    :class:`FormatError` naming where the file names them.

    Work imported in an account's name is the account's own: only a superuser imports it in a
    superuser's or a staff account's name, as only a superuser changes those accounts
    (:func:`~annotate.roles.may_change_account`). ``importer`` is the user whose upload it is
    (anonymous when that user is gone); None is the operator at the server's command line, who
    may attribute work to any account."""
    user_model = get_user_model()
    names = list(stage.annotators)
    existing: set[str] = set()
    for start in range(0, len(names), BATCH_SIZE):
        chunk = names[start : start + BATCH_SIZE]
        for account in user_model.objects.filter(username__in=chunk).only(
            "username", "is_superuser", "is_staff"
        ):
            name = account.get_username()
            existing.add(name)
            if importer is not None and not roles.may_change_account(importer, account):
                file, line, field = stage.annotators[name] or (None, None, "annotations")
                which = "a superuser" if account.is_superuser else "a staff account"
                raise FormatError(
                    f"annotator name {name!r} is {which}: only a superuser imports work in "
                    "its name",
                    path=file,
                    line=line,
                    field=field,
                )
    new = [name for name in names if name not in existing]
    if not new:
        return
    usernames = list(user_model.objects.values_list("username", flat=True))
    for name in new:
        problem = annotator_problem(name, usernames)
        if problem is not None:
            file, line, field = stage.annotators[name] or (None, None, "annotations")
            raise FormatError(problem, path=file, line=line, field=field)
        usernames.append(name)


def _write_stage(
    corpus_name: str,
    stage: ImportStage,
    description: str,
    written: Callable[[int, int], None] | None = None,
) -> ImportReport:
    """Write the stage into a staging corpus, one transaction per batch, so that the database's
    write lock is held a batch at a time (on SQLite every other user's save waits for it), then
    hand its pairs to the corpus in one short transaction. The staging corpus is hidden from
    every page and query meanwhile; should anything fail, it goes with every row it holds and
    the accounts made for it (:func:`_staging_discard`)."""
    report = ImportReport(corpus=corpus_name)
    staging = Corpus.all_objects.create(
        name=f"importing {uuid.uuid4().hex}",
        description=description,
        importing=True,
        archived_at=timezone.now(),
    )
    try:
        with transaction.atomic():
            users = ImportUsers(report)
            user_ids = {
                name: users.get(name, origin).pk for name, origin in stage.annotators.items()
            }
            staging.stats = {"created_users": report.created_users}
            staging.save(update_fields=["stats"])
        position = 0
        for batch in stage:
            with transaction.atomic():
                added = staged_batch_write(
                    corpus=staging, batch=batch, position=position, user_ids=user_ids
                )
                # the time of the last batch: the clean-up leaves a staging corpus this recent
                Corpus.all_objects.filter(pk=staging.pk).update(archived_at=timezone.now())
            let_others_write()
            position += len(batch)
            report.pairs += len(batch)
            report.prefills += added.prefills
            report.gold_alignments += added.gold_alignments
            report.annotations += added.annotations
            if written is not None:
                written(report.pairs, stage.pairs)
        with transaction.atomic():
            _hand_over(staging, corpus_name, report)
    except BaseException:
        try:
            _staging_discard(staging.pk)
        except Exception:  # the database itself failing: the hourly clean-up takes it later
            logger.exception("could not delete the staging corpus of an import that failed")
        raise
    # The planner's statistics still describe the tables before the import (see
    # :mod:`annotate.services.planner_stats`).
    import_tables_analyze(
        pairs=report.pairs,
        prefills=report.prefills,
        annotations=report.annotations,
        gold_alignments=report.gold_alignments,
    )
    return report


#: The pause after each batch on SQLite. A writer waiting for the lock polls it on SQLite's
#: busy-handler schedule (up to 100 ms apart); without a pause the next batch takes the lock
#: first, again and again.
SQLITE_BATCH_PAUSE = 0.1


def let_others_write() -> None:
    if connection.vendor == "sqlite":
        time.sleep(SQLITE_BATCH_PAUSE)


def corpus_import_lock(*, name: str) -> Corpus | None:
    """The corpus ``name`` (None if there is none), locked until the transaction ends against
    other writers of its row (an archive, a deletion, another import's batch), while an
    import checks it and writes a batch of its pairs. A key-preserving lock (``FOR NO KEY
    UPDATE``): rows that only refer to the corpus (a job of it, say, whose foreign key
    PostgreSQL checks with ``FOR KEY SHARE``) are written meanwhile, instead of waiting for
    the batch, a minute or more under load, in a web request."""
    return Corpus.objects.select_for_update(no_key=True).filter(name=name).first()


def _hand_over(staging: Corpus, corpus_name: str, report: ImportReport) -> None:
    """Give the staging corpus's pairs to ``corpus_name``: the staging corpus becomes it when
    no corpus has that name, else its pairs are appended to that corpus's."""
    corpus = corpus_import_lock(name=corpus_name)
    if corpus is None:
        Corpus.all_objects.filter(pk=staging.pk).update(
            name=corpus_name, importing=False, archived_at=None, stats={}
        )
        report.created_corpus = True
        return
    corpus_in_use_check(corpus, doing="importing pairs into it")
    staged = SentencePair.objects.filter(corpus=staging)
    clash = (
        SentencePair.objects.filter(corpus=corpus, external_id__in=staged.values("external_id"))
        .values_list("external_id", flat=True)
        .first()
    )
    if clash is not None:
        raise _existing_id_error(clash, corpus)
    last = corpus.pairs.aggregate(m=Max("position"))["m"]
    offset = 0 if last is None else last + 1
    staged.update(corpus=corpus, position=F("position") + offset)
    PairDisagreement.objects.filter(corpus=staging).update(
        corpus=corpus, position=F("position") + offset
    )
    staging.delete()


def _staging_discard(staging_id: int) -> None:
    """Delete a staging corpus with its rows, a batch of pairs per transaction, and then the
    accounts its import made, unless they hold work elsewhere by now."""
    staging = Corpus.all_objects.filter(pk=staging_id, importing=True).first()
    if staging is None:
        return
    while ids := list(
        SentencePair.objects.filter(corpus_id=staging_id).values_list("pk", flat=True)[:BATCH_SIZE]
    ):
        with transaction.atomic():
            _pairs_delete(SentencePair.objects.filter(pk__in=ids))
    with transaction.atomic():
        staging.delete()
        import_accounts_discard(staging.stats.get("created_users", []))


def import_accounts_discard(usernames: list[str]) -> None:
    """Delete the accounts an import that failed made (``usernames``), those nobody has
    touched since: no work, never signed in, no password set."""
    (
        get_user_model()
        .objects.filter(
            username__in=usernames,
            last_login__isnull=True,
            password__startswith=UNUSABLE_PASSWORD_PREFIX,
        )
        .exclude(assignments__isnull=False)
        .delete()
    )


#: How long a staging corpus may go without a new batch before the clean-up takes its import
#: for dead (a batch takes about a second; a worker killed mid-import leaves one behind).
STAGING_ABANDONED = timedelta(hours=1)


def corpus_imports_abandoned_clean(*, now: datetime | None = None) -> int:
    """Delete the staging corpora of imports that died (:data:`STAGING_ABANDONED`); returns
    how many."""
    limit = (now or timezone.now()) - STAGING_ABANDONED
    abandoned = list(
        Corpus.all_objects.filter(importing=True, archived_at__lt=limit).values_list(
            "pk", flat=True
        )
    )
    for staging_id in abandoned:
        _staging_discard(staging_id)
    return len(abandoned)


def _pairs_delete(pairs: QuerySet[SentencePair]) -> None:
    """Delete ``pairs`` and every row that hangs on them, table by table, the leaves first,
    each in one statement."""
    for model, path in (
        (AnnotationLink, "annotation__assignment__"),
        (AnnotationEvent, "annotation__assignment__"),
        (Annotation, "assignment__"),
        (Assignment, ""),
        (GoldLink, "gold__"),
        (GoldEvent, ""),
        (GoldAlignment, ""),
        (AutoLink, "alignment__"),
        (AutoAlignment, ""),
        (PairDisagreement, ""),
    ):
        model.objects.filter(**{f"{path}pair__in": pairs}).delete()
    pairs.delete()


def _existing_id_error(clash: str, corpus: Corpus, where: str = "") -> CorpusImportError:
    return CorpusImportError(
        f"pair id {clash!r}{where} already exists in corpus {quoted(corpus.name)}: an import "
        "adds pairs with new ids only (import into a corpus of another name, or give the pairs "
        "other ids)",
        field="corpus",
    )


def _reject_existing_ids(corpus: Corpus, ids: list[str], stage: ImportStage) -> None:
    clash = (
        SentencePair.objects.filter(corpus=corpus, external_id__in=ids)
        .values_list("external_id", flat=True)
        .first()
    )
    if clash is not None:
        raise _existing_id_error(clash, corpus, read_at(stage.ids.get(clash)))


def annotator_problem(name: str, usernames: Iterable[str] | None = None) -> str | None:
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


class ImportUsers:
    """The accounts an import attributes work to: existing users by their exact name, new
    annotator accounts only for names the API would accept."""

    def __init__(self, report: ImportReport) -> None:
        self._users: dict[str, User] = {}
        self._report = report
        self._usernames: list[str] | None = None

    def get(self, username: str, origin: Origin | None = None) -> User:
        if username not in self._users:
            user_model = get_user_model()
            user = user_model.objects.filter(username=username).first()
            if user is None:
                if self._usernames is None:
                    self._usernames = list(user_model.objects.values_list("username", flat=True))
                problem = annotator_problem(username, self._usernames)
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
