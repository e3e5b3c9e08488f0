"""Annotations and gold alignments added to the pairs a corpus holds already.

A normal import adds pairs and refuses an id the corpus has. This mode adds no pair: each pair
of the file is found by its id, its tokens must be the corpus's, and the file's annotations
(each annotator's, or the chosen annotator's alignment of a single-alignment format) become
those annotators' work on it, with the assignment, the annotation, its links and its
``imported`` event, as a normal import writes them; the file's gold alignment becomes the
pair's gold where it has none. The file's texts, tokens, prefill, gold score and label,
sub-corpus, split and metadata are not written: the pair keeps its own.

The records are read and checked outside any transaction, then checked against the corpus
(ids, tokens, work already there), so that a conflict found before the write leaves the
database as it was: an annotator who has a different annotation of a pair already, or a gold
alignment that differs from the file's, stops the import naming the file, line, pair and what
conflicts. An identical annotation (the same links and status, and the flags, rating and
comment the file gives) or gold is left as it is and counted.

The write goes a batch of pairs per transaction, each checking its pairs again under the
corpus's lock, with a pause after each (:func:`~annotate.services.corpora.let_others_write`):
on SQLite the write lock is the database's, and annotators' saves wait for a batch at most,
not for the whole import. Each batch's rows are visible once it commits. Should a check fail
meanwhile (someone saved a pair's annotation or gold since the import read it) or anything
else stop the import, it removes the rows it wrote, a batch per transaction, except those
someone changed since they were written (:func:`_discard`): nobody's work is deleted, and the
error says which pairs keep the import's work ("partly imported"). A process killed mid-write
leaves the batches it committed; their annotations' ``imported`` events name the import
(``payload.import``).
"""

from __future__ import annotations

import json
import logging
import tempfile
import uuid
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.models import AnonymousUser
from django.db import connection, transaction
from django.db.models import Max, OuterRef, Subquery
from django.utils import timezone

from annotate.exceptions import quoted
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
    SentencePair,
)
from annotate.services.annotations import edits_from_prefill
from annotate.services.corpora import (
    BATCH_SIZE,
    READ_REPORT_EVERY,
    ImportReport,
    ImportUsers,
    annotator_problem,
    corpus_import_lock,
    corpus_in_use_check,
    error_where,
    import_accounts_discard,
    import_names_check,
    let_others_write,
)
from annotate.services.disagreement import pair_disagreement_refresh
from annotate.services.import_stage import (
    ANNOTATION_FIELDS,
    CorpusImportError,
    ImportStage,
    StagedAnnotation,
    StagedPair,
    read_at,
    record_staged,
)
from annotate.services.links import links_insert, rows_insert
from annotate.services.planner_stats import import_tables_analyze
from scoring import formats
from scoring.corpus import PairRecord
from scoring.errors import FormatError, ScoringError

logger = logging.getLogger(__name__)

#: How many ids not in the corpus a refusal lists.
MISSING_SHOWN = 10


@dataclass
class _Matched:
    """A pair of the file found in the corpus, with what goes onto it."""

    pair_id: int
    staged: StagedPair
    annotations: list[StagedAnnotation]  # those written (their annotators have none)
    gold: bool  # the file's gold alignment is written (the pair has none)
    unchanged: int  # the file's annotations the corpus holds already, the same


def onto_corpus_check(corpus_name: str) -> Corpus:
    """The corpus annotations are added to: it must exist and be in use."""
    corpus = Corpus.objects.filter(name=corpus_name).first()
    if corpus is None:
        raise CorpusImportError(
            f"there is no corpus named {quoted(corpus_name)}: annotations are added to the pairs "
            "of an existing corpus (import the pairs first)",
            field="corpus",
        )
    corpus_in_use_check(corpus, doing="adding annotations to it")
    return corpus


def corpus_import_onto(
    *,
    corpus_name: str,
    format_name: str,
    paths: Sequence[Path],
    annotator: str | None = None,
    progress: Callable[[int], None] | None = None,
    importer: AbstractBaseUser | AnonymousUser | None = None,
) -> ImportReport:
    """Add the annotations and gold alignments of ``paths`` (``format_name``) to the pairs of
    the corpus ``corpus_name`` with the same ids, or nothing (see the module's docstring).

    ``annotator`` attributes a single-alignment format's alignments to that user (without it
    they are gold alignments); with a format that names its annotators (RTE-2, JSONL) it
    chooses that annotator's annotations, and the file's others are left out. ``importer`` is
    who imports (:func:`~annotate.services.corpora.import_names_check`)."""
    try:
        onto_corpus_check(corpus_name)
        spec = formats.get_format(format_name)
        options: dict[str, str] = {}
        if annotator is not None:
            if not get_user_model().objects.filter(username=annotator).exists():
                problem = annotator_problem(annotator)
                if problem is not None:
                    raise CorpusImportError(problem, field="annotator")
            if "annotator" in spec.options:
                options["annotator"] = annotator
        records = spec.read([Path(p) for p in paths], **options)
        return corpus_import_onto_records(
            corpus_name=corpus_name,
            records=records,
            only=None if "annotator" in spec.options else annotator,
            source=", ".join(Path(p).name for p in paths),
            progress=progress,
            importer=importer,
        )
    except ScoringError as error:
        raise CorpusImportError(f"{error} (nothing was imported)", **error_where(error)) from error
    except CorpusImportError as error:
        if error.message.endswith("(nothing was imported)") or error.extra.get("partly_imported"):
            raise
        raise CorpusImportError(f"{error.message} (nothing was imported)", **error.extra) from error


def corpus_import_onto_records(
    *,
    corpus_name: str,
    records: Iterable[PairRecord],
    only: str | None = None,
    source: str = "<records>",
    progress: Callable[[int], None] | None = None,
    importer: AbstractBaseUser | AnonymousUser | None = None,
) -> ImportReport:
    """Add the annotations and gold alignments of ``records`` to the corpus's pairs of the same
    ids, all or nothing; ``only`` keeps the annotations of that annotator alone; ``importer``
    is who imports (:func:`~annotate.services.corpora.import_names_check`)."""
    try:
        corpus = onto_corpus_check(corpus_name)
        with tempfile.TemporaryFile(prefix="corpus-import-onto-") as file:
            stage = ImportStage(file)
            golds = _staged(records, stage, only, progress)
            if stage.pairs == 0:
                raise CorpusImportError(f"{source}: no sentence pairs found")
            if only is not None and only not in stage.annotators:
                raise CorpusImportError(
                    f"{source} holds no annotation by {only!r}", field="annotator"
                )
            if not stage.annotators and not golds:
                raise CorpusImportError(
                    f"{source} holds no annotation and no gold alignment to add to the pairs",
                    field="files",
                )
            import_names_check(stage, importer=importer)
            _ids_check(corpus, stage)
            known = dict(
                get_user_model()
                .objects.filter(username__in=list(stage.annotators))
                .values_list("username", "pk")
            )
            for batch in stage:  # read-only: a conflict is found before the write begins
                _matched(corpus, batch, stage, known)
            report = _write(corpus_name, stage)
    except ScoringError as error:
        raise CorpusImportError(f"{error} (nothing was imported)", **error_where(error)) from error
    except CorpusImportError as error:
        if error.extra.get("partly_imported"):
            raise
        raise CorpusImportError(f"{error.message} (nothing was imported)", **error.extra) from error
    return report


def _staged(
    records: Iterable[PairRecord],
    stage: ImportStage,
    only: str | None,
    progress: Callable[[int], None] | None,
) -> int:
    """Check every record as a normal import does and stage it; returns how many carry a gold
    alignment."""
    golds = 0
    batch: list[StagedPair] = []
    for record in records:
        if only is not None:
            record.annotations = {
                name: work for name, work in record.annotations.items() if name == only
            }
        batch.append(record_staged(record=record, stage=stage, subcorpus=None, split=None))
        golds += record.gold_alignment is not None
        if len(batch) == BATCH_SIZE:
            stage.add(batch)
            batch = []
        read = stage.pairs + len(batch)
        if progress is not None and read % READ_REPORT_EVERY == 0:
            progress(read)
    if batch:
        stage.add(batch)
    if progress is not None and stage.pairs % READ_REPORT_EVERY:
        progress(stage.pairs)
    return golds


def _ids_check(corpus: Corpus, stage: ImportStage) -> None:
    """Refuse ids the corpus does not hold, naming them: this mode adds no pair."""
    ids = list(stage.ids)
    missing: list[str] = []
    for start in range(0, len(ids), BATCH_SIZE):
        chunk = ids[start : start + BATCH_SIZE]
        held = set(
            SentencePair.objects.filter(corpus=corpus, external_id__in=chunk).values_list(
                "external_id", flat=True
            )
        )
        missing.extend(pair_id for pair_id in chunk if pair_id not in held)
    if not missing:
        return
    shown = ", ".join(repr(pair_id) for pair_id in missing[:MISSING_SHOWN])
    more = f" and {len(missing) - MISSING_SHOWN:,} more" if len(missing) > MISSING_SHOWN else ""
    raise CorpusImportError(
        f"{len(missing):,} pair id{'s' if len(missing) != 1 else ''} of the file "
        f"{'are' if len(missing) != 1 else 'is'} not in corpus {quoted(corpus.name)}: {shown}{more}"
        f"{read_at(stage.ids[missing[0]])}; annotations are added to existing pairs only "
        "(import new pairs without this option)",
        field="corpus",
    )


def _tokens_check(
    staged: StagedPair, stage: ImportStage, source: list[str], target: list[str]
) -> None:
    pair_id = staged.values[0]
    for side, theirs, ours in (
        ("source", json.loads(staged.values[5]), source),
        ("target", json.loads(staged.values[6]), target),
    ):
        if theirs == ours:
            continue
        at = next(
            (k for k, (a, b) in enumerate(zip(theirs, ours, strict=False)) if a != b),
            min(len(theirs), len(ours)),
        )
        detail = (
            f"token {at + 1} is {theirs[at]!r} in the file and {ours[at]!r} in the corpus"
            if at < min(len(theirs), len(ours))
            else f"{len(theirs)} tokens in the file, {len(ours)} in the corpus"
        )
        path, line = stage.ids[pair_id] or (None, None)
        raise FormatError(
            f"pair {pair_id!r}: its {side} tokens differ from those of the corpus's pair of "
            f"that id ({detail}); annotations are added only to a pair of the same tokens",
            path=path,
            line=line,
            field=f"{side} tokens",
        )


def _conflict(stage: ImportStage, pair_id: str, what: str, field: str) -> FormatError:
    path, line = stage.ids[pair_id] or (None, None)
    return FormatError(f"pair {pair_id!r}: {what}", path=path, line=line, field=field)


@dataclass(frozen=True)
class _Held:
    """An annotation the corpus holds already, as the file's is compared with it."""

    status: str
    links: frozenset[tuple[int, int, bool]]
    flags: list[str]
    rating: float | None
    comment: str

    def what_differs(self, work: StagedAnnotation) -> str:
        """What of ``work`` differs from this annotation (empty when nothing does): its links,
        status, and the flags, rating and comment the file gives (a format without them leaves
        them empty, and an empty one is not compared)."""
        flags, rating, comment = work.values[:3]
        differs = [
            what
            for what, same in (
                (
                    f"{len(self.links)} links, the file's {len(work.links)} differ",
                    frozenset(work.links) == self.links,
                ),
                (
                    f"the file's status is {work.status.replace('_', ' ')}",
                    work.status == self.status,
                ),
                ("the flags differ", not json.loads(flags) or json.loads(flags) == self.flags),
                ("the rating differs", rating is None or rating == self.rating),
                ("the comment differs", not comment or comment == self.comment),
            )
            if not same
        ]
        return "; ".join(differs)

    def same_as(self, work: StagedAnnotation) -> bool:
        return not self.what_differs(work)


def _annotations_held(pair_ids: list[int], user_ids: list[int]) -> dict[tuple[int, int], _Held]:
    """The annotations of the annotators ``user_ids`` on the pairs ``pair_ids``, by (pair,
    annotator)."""
    rows = list(
        Assignment.objects.filter(
            pair_id__in=pair_ids, annotator_id__in=user_ids, annotation__isnull=False
        ).values_list(
            "pair_id",
            "annotator_id",
            "annotation__id",
            "status",
            "annotation__flags",
            "annotation__rating",
            "annotation__comment",
        )
    )
    links: dict[int, set[tuple[int, int, bool]]] = defaultdict(set)
    for annotation_id, i, j, sure in AnnotationLink.objects.filter(
        annotation_id__in=[row[2] for row in rows]
    ).values_list("annotation_id", "i", "j", "sure"):
        links[annotation_id].add((i, j, sure))
    return {
        (pair_id, user_id): _Held(status, frozenset(links[pk]), list(flags), rating, comment)
        for pair_id, user_id, pk, status, flags, rating, comment in rows
    }


def _matched(
    corpus: Corpus, batch: list[StagedPair], stage: ImportStage, user_ids: dict[str, int]
) -> list[_Matched]:
    """What goes onto each pair of ``batch``; a pair whose tokens differ, or whose work
    conflicts with the file's, raises :class:`FormatError` naming it."""
    ids = [staged.values[0] for staged in batch]
    pairs = {
        external_id: (pk, source, target)
        for external_id, pk, source, target in SentencePair.objects.filter(
            corpus=corpus, external_id__in=ids
        ).values_list("external_id", "pk", "source_tokens", "target_tokens")
    }
    pks = [pk for pk, _, _ in pairs.values()]
    annotated = _annotations_held(pks, list(user_ids.values()))
    gold_rows, gold_of = {}, {}
    for pair_pk, gold_pk, origin in GoldAlignment.objects.filter(pair_id__in=pks).values_list(
        "pair_id", "pk", "source"
    ):
        gold_rows[pair_pk], gold_of[pair_pk] = gold_pk, origin
    gold_links: dict[int, set[tuple[int, int, bool]]] = defaultdict(set)
    for gold_pk, i, j, sure in GoldLink.objects.filter(
        gold_id__in=list(gold_rows.values())
    ).values_list("gold_id", "i", "j", "sure"):
        gold_links[gold_pk].add((i, j, sure))
    matched = []
    for staged in batch:
        pair_id = staged.values[0]
        if pair_id not in pairs:  # an import of the corpus's pairs went meanwhile
            raise _conflict(stage, pair_id, f"is not in corpus {quoted(corpus.name)}", "id")
        pk, source, target = pairs[pair_id]
        _tokens_check(staged, stage, source, target)
        adding: list[StagedAnnotation] = []
        for work in staged.annotations:
            held = annotated.get((pk, user_ids.get(work.name, -1)))
            if held is None:
                adding.append(work)
            elif not held.same_as(work):
                raise _conflict(
                    stage,
                    pair_id,
                    f"annotator {work.name!r} has an annotation of it in the corpus already "
                    f"({held.status.replace('_', ' ')}, {held.what_differs(work)}); the "
                    "file's would replace it (nothing is replaced: leave this pair out of the "
                    "file, or reopen and correct it)",
                    f"annotation by {work.name}",
                )
        gold = False
        if staged.gold is not None:
            if pk not in gold_rows:
                gold = True
            elif gold_links[gold_rows[pk]] != set(staged.gold[0]):
                raise _conflict(
                    stage,
                    pair_id,
                    f"it has a gold alignment ({gold_of[pk]}, {len(gold_links[gold_rows[pk]])} "
                    f"links) that differs from the file's ({len(staged.gold[0])} links); "
                    "nothing is replaced: adjudicate the pair instead",
                    "gold alignment",
                )
        unchanged = len(staged.annotations) - len(adding)
        matched.append(_Matched(pk, staged, adding, gold, unchanged))
    return matched


@dataclass
class _Written:
    """The rows an import has written so far: what it removes should it stop half-way."""

    #: (annotation, its assignment, the annotator, the status written, and the assignment's
    #: status and submission time before the import took it over, or ``None`` if it made it)
    annotations: list[tuple[int, int, int, str, tuple[str, datetime | None] | None]] = field(
        default_factory=list
    )
    #: (gold alignment, its pair, its version)
    golds: list[tuple[int, int, int]] = field(default_factory=list)
    #: The payload of the annotations' ``imported`` events: their annotator did not work from
    #: the pair's prefill, whatever its age, and the import that wrote them.
    payload: str = ""


def _write(corpus_name: str, stage: ImportStage) -> ImportReport:
    """Write a batch of pairs per transaction, each checking the corpus and the batch's pairs
    again under its lock, with a pause for other writers after each (on SQLite the write lock
    is the database's); should a check fail or anything else stop the import, remove what it
    wrote (:func:`_discard`)."""
    report = ImportReport(corpus=corpus_name, onto_existing=True)
    written = _Written(payload=json.dumps({"onto_existing": True, "import": uuid.uuid4().hex}))
    try:
        with transaction.atomic():
            _corpus_locked(corpus_name)
            users = ImportUsers(report)
            user_ids = {
                name: users.get(name, origin).pk for name, origin in stage.annotators.items()
            }
        for batch in stage:
            with transaction.atomic():
                corpus = _corpus_locked(corpus_name)
                # On PostgreSQL the batch's pairs, and their annotators' assignments, are locked
                # until it commits: an annotator's first open of a planned pair (which locks its
                # assignment) comes before the check, and is a conflict, or after the write.
                pks = list(
                    SentencePair.objects.select_for_update()
                    .filter(corpus=corpus, external_id__in=[staged.values[0] for staged in batch])
                    .values_list("pk", flat=True)
                )
                list(
                    Assignment.objects.select_for_update()
                    .filter(pair_id__in=pks, annotator_id__in=list(user_ids.values()))
                    .values_list("pk", flat=True)
                )
                matched = _matched(corpus, batch, stage, user_ids)
                report.pairs += len(matched)
                report.annotations += _annotations_write(matched, user_ids, written)
                report.annotated_pairs += sum(1 for m in matched if m.annotations)
                report.annotations_unchanged += sum(m.unchanged for m in matched)
                report.gold_alignments += _golds_write([m for m in matched if m.gold], written)
                report.gold_unchanged += sum(
                    1 for m in matched if m.staged.gold is not None and not m.gold
                )
                pair_disagreement_refresh(
                    pair_ids=[m.pair_id for m in matched if m.annotations or m.gold]
                )
            let_others_write()
    except BaseException as error:
        try:
            kept = _discard(written, report.created_users)
        except Exception:  # the database itself failing: what was written stays
            logger.exception("could not remove what an import onto existing pairs wrote")
            raise error from None
        if not kept:
            raise
        if isinstance(error, ScoringError):
            message, where = str(error), error_where(error)
        elif isinstance(error, CorpusImportError):
            message, where = error.message, error.extra
        else:
            logger.error("an import onto existing pairs stopped; kept: %s", _kept_text(kept))
            raise
        raise CorpusImportError(
            f"{message} ({_kept_text(kept)})", partly_imported=True, **where
        ) from error
    # The pairs were there already: only the work added to them moves the statistics.
    import_tables_analyze(
        pairs=0, annotations=report.annotations, gold_alignments=report.gold_alignments
    )
    return report


def _corpus_locked(corpus_name: str) -> Corpus:
    corpus = corpus_import_lock(name=corpus_name)
    if corpus is None:
        raise CorpusImportError(f"corpus {quoted(corpus_name)} was deleted meanwhile")
    corpus_in_use_check(corpus, doing="adding annotations to it")
    return corpus


#: Pair ids a message about the work an import left lists at most.
KEPT_SHOWN = 10


def _kept_text(kept: list[str]) -> str:
    shown = ", ".join(repr(pair_id) for pair_id in kept[:KEPT_SHOWN])
    more = f" and {len(kept) - KEPT_SHOWN:,} more" if len(kept) > KEPT_SHOWN else ""
    return (
        "partly imported: the import stopped and removed what it had added, except its work on "
        f"{len(kept):,} pair{'s' if len(kept) != 1 else ''} that someone changed after it was "
        f"added, kept with their changes: {shown}{more}"
    )


def _discard(written: _Written, created_users: list[str]) -> list[str]:
    """Remove the rows of ``written``, a batch per transaction, and the accounts the import
    made that hold no work; returns the ids of the pairs whose rows it kept, those someone
    changed since the import wrote them (an annotation whose version is past the imported one
    or whose assignment changed status or annotator: edited, submitted, reopened, handed over;
    a gold alignment of another version), so that nobody's work is deleted."""
    kept: set[int] = set()
    for start in range(0, len(written.annotations), BATCH_SIZE):
        with transaction.atomic():
            kept |= _annotations_discard(written.annotations[start : start + BATCH_SIZE])
        let_others_write()
    for start in range(0, len(written.golds), BATCH_SIZE):
        with transaction.atomic():
            kept |= _golds_discard(written.golds[start : start + BATCH_SIZE])
        let_others_write()
    with transaction.atomic():
        import_accounts_discard(created_users)
    return sorted(
        SentencePair.objects.filter(pk__in=list(kept)).values_list("external_id", flat=True)
    )


def _annotations_discard(
    rows: list[tuple[int, int, int, str, tuple[str, datetime | None] | None]],
) -> set[int]:
    ours = {row[1]: row for row in rows}
    untouched: list[int] = []
    kept: set[int] = set()
    pairs: list[int] = []
    for assignment_id, pair_id, annotator_id, status, annotation_id, version in (
        Assignment.objects.select_for_update(of=("self",))  # not the outer-joined annotation
        .filter(pk__in=list(ours))
        .values_list(
            "pk", "pair_id", "annotator_id", "status", "annotation__id", "annotation__version"
        )
    ):
        mine, _, annotator, written_status, _ = ours[assignment_id]
        if (annotation_id, version, annotator_id, status) == (mine, 1, annotator, written_status):
            untouched.append(assignment_id)
            pairs.append(pair_id)
        elif annotation_id is not None:
            kept.add(pair_id)
    annotation_ids = [ours[pk][0] for pk in untouched]
    AnnotationLink.objects.filter(annotation_id__in=annotation_ids).delete()
    AnnotationEvent.objects.filter(annotation_id__in=annotation_ids).delete()
    Annotation.objects.filter(pk__in=annotation_ids).delete()
    Assignment.objects.filter(pk__in=[pk for pk in untouched if ours[pk][4] is None]).delete()
    before: dict[tuple[str, datetime | None], list[int]] = defaultdict(list)
    for pk in untouched:
        previous = ours[pk][4]
        if previous is not None:
            before[previous].append(pk)
    for (status, submitted_at), pks in before.items():
        Assignment.objects.filter(pk__in=pks).update(status=status, submitted_at=submitted_at)
    pair_disagreement_refresh(pair_ids=pairs)
    return kept


def _golds_discard(rows: list[tuple[int, int, int]]) -> set[int]:
    versions = {gold_id: (pair_id, version) for gold_id, pair_id, version in rows}
    untouched: list[int] = []
    kept: set[int] = set()
    for gold_id, pair_id, version in (
        GoldAlignment.objects.select_for_update()
        .filter(pk__in=list(versions))
        .values_list("pk", "pair_id", "version")
    ):
        if versions[gold_id] == (pair_id, version):
            untouched.append(gold_id)
        else:
            kept.add(pair_id)
    pairs = [versions[gold_id][0] for gold_id in untouched]
    # its imported event is the pair's last: every later change of the gold makes a new version
    GoldEvent.objects.filter(
        pair_id__in=pairs,
        kind=GoldEvent.Kind.IMPORTED,
        version=Subquery(
            GoldAlignment.objects.filter(pair_id=OuterRef("pair_id")).values("version")[:1]
        ),
    ).delete()
    GoldLink.objects.filter(gold_id__in=untouched).delete()
    GoldAlignment.objects.filter(pk__in=untouched).delete()
    pair_disagreement_refresh(pair_ids=pairs)
    return kept


def _newest_prefills(pair_ids: list[int]) -> dict[int, set[tuple[int, int]]]:
    """The links (P) of each pair's newest prefill, for the annotations' edit counts."""
    newest: dict[int, int] = {}
    for pk, pair_id in (
        AutoAlignment.objects.filter(pair_id__in=pair_ids)
        .order_by("created_at", "id")
        .values_list("pk", "pair_id")
    ):
        newest[pair_id] = pk
    links: dict[int, set[tuple[int, int]]] = {pair_id: set() for pair_id in newest}
    of = {pk: pair_id for pair_id, pk in newest.items()}
    for alignment_id, i, j in AutoLink.objects.filter(alignment_id__in=list(of)).values_list(
        "alignment_id", "i", "j"
    ):
        links[of[alignment_id]].add((i, j))
    return links


def _annotations_write(matched: list[_Matched], user_ids: dict[str, int], written: _Written) -> int:
    """Each annotation as a normal import writes it: the assignment (an open one without an
    annotation is taken over), the annotation counting its edits against the pair's newest
    prefill, its links and its ``imported`` event."""
    work = [(m.pair_id, user_ids[a.name], a) for m in matched for a in m.annotations]
    if not work:
        return 0
    pair_ids = sorted({pair_id for pair_id, _, _ in work})
    now = timezone.now()
    planned = {
        (pair_id, user_id): (pk, (status, submitted_at))
        for pk, pair_id, user_id, status, submitted_at in Assignment.objects.filter(
            pair_id__in=pair_ids, annotator_id__in=sorted(set(user_ids.values()))
        ).values_list("pk", "pair_id", "annotator_id", "status", "submitted_at")
    }
    for status in Assignment.Status.values:
        taken = [
            planned[pair_id, user_id][0]
            for pair_id, user_id, a in work
            if a.status == status and (pair_id, user_id) in planned
        ]
        if taken:
            Assignment.objects.filter(pk__in=taken).update(
                status=status, submitted_at=now if status == Assignment.Status.SUBMITTED else None
            )
    at = connection.ops.adapt_datetimefield_value(now)
    rows_insert(
        model=Assignment,
        fields=("pair", "annotator", "status", "submitted_at"),
        rows=(
            (pair_id, user_id, a.status, at if a.status == Assignment.Status.SUBMITTED else None)
            for pair_id, user_id, a in work
            if (pair_id, user_id) not in planned
        ),
    )
    assignment_ids = {
        (pair_id, user_id): pk
        for pk, pair_id, user_id in Assignment.objects.filter(
            pair_id__in=pair_ids, annotator_id__in=sorted(set(user_ids.values()))
        ).values_list("pk", "pair_id", "annotator_id")
    }
    prefills = _newest_prefills(pair_ids)
    edits = ANNOTATION_FIELDS.index("prefill_edits")
    rows: list[tuple[Any, ...]] = []
    for pair_id, user_id, a in work:
        values = list(a.values)
        values[edits] = edits_from_prefill({(i, j) for i, j, _ in a.links}, prefills.get(pair_id))
        rows.append((assignment_ids[pair_id, user_id], *values))
    rows_insert(model=Annotation, fields=("assignment", *ANNOTATION_FIELDS), rows=rows)
    annotation_ids = dict(
        Annotation.objects.filter(assignment_id__in=list(assignment_ids.values())).values_list(
            "assignment_id", "id"
        )
    )
    added = [(annotation_ids[assignment_ids[p, u]], a) for p, u, a in work]
    written.annotations.extend(
        (
            annotation_ids[assignment_ids[p, u]],
            assignment_ids[p, u],
            u,
            a.status,
            planned[p, u][1] if (p, u) in planned else None,
        )
        for p, u, a in work
    )
    links_insert(
        model=AnnotationLink,
        parent_column="annotation_id",
        rows=((pk, *link) for pk, a in added for link in a.links),
    )
    rows_insert(
        model=AnnotationEvent,
        fields=("annotation", "version", "kind", "added", "payload"),
        rows=(
            (pk, 1, AnnotationEvent.Kind.IMPORTED.value, a.added, written.payload)
            for pk, a in added
        ),
    )
    return len(added)


def _golds_write(matched: list[_Matched], written: _Written) -> int:
    """The file's gold of each pair without one, versioned after the pair's last gold event
    (a pair sent back to waiting keeps its history, and no version is used twice)."""
    if not matched:
        return 0
    pair_ids = [m.pair_id for m in matched]
    last = dict(
        GoldEvent.objects.filter(pair_id__in=pair_ids)
        .values("pair_id")
        .annotate(last=Max("version"))
        .values_list("pair_id", "last")
    )
    version = {pair_id: last.get(pair_id, 0) + 1 for pair_id in pair_ids}
    rows_insert(
        model=GoldAlignment,
        fields=("pair", "source", "version"),
        rows=((pair_id, "imported", version[pair_id]) for pair_id in pair_ids),
    )
    gold_ids = dict(GoldAlignment.objects.filter(pair_id__in=pair_ids).values_list("pair_id", "id"))
    written.golds.extend((gold_ids[pair_id], pair_id, version[pair_id]) for pair_id in pair_ids)
    rows_insert(
        model=GoldEvent,
        fields=("pair", "version", "kind", "added"),
        rows=(
            (m.pair_id, version[m.pair_id], GoldEvent.Kind.IMPORTED.value, m.staged.gold[1])
            for m in matched
            if m.staged.gold is not None
        ),
    )
    links_insert(
        model=GoldLink,
        parent_column="gold_id",
        rows=(
            (gold_ids[m.pair_id], *link)
            for m in matched
            if m.staged.gold is not None
            for link in m.staged.gold[0]
        ),
    )
    return len(matched)
