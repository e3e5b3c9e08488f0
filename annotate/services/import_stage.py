"""An import's pairs between reading and writing.

Reading, tokenizing and checking a large file takes longer than writing its rows, and on
SQLite every other user's write waits while a transaction writes. So an import checks every
record and turns it into the values of its rows outside any transaction
(:func:`record_staged`), keeps them in an :class:`ImportStage` (a temporary file, so memory
stays flat however large the input), and its transaction only writes them
(:func:`staged_batch_write`), straight to the tables.
"""

from __future__ import annotations

import json
import pickle
import unicodedata
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, Any, NamedTuple

from django.db import IntegrityError, connection
from django.utils import timezone

from annotate.conversions import link_event_list, link_rows
from annotate.exceptions import DomainError
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
    PairDisagreement,
    SentencePair,
)
from annotate.services.annotations import InvalidLinks, edits_from_prefill, links_count_check
from annotate.services.disagreement import annotators_text, unanimous
from annotate.services.links import links_insert, rows_insert
from scoring.alignment.links import Alignment
from scoring.alignment.metrics import lowest_pairwise_f1
from scoring.corpus import PairRecord


class CorpusImportError(DomainError):
    """An import was refused; nothing was written."""

    code = "import_failed"


#: Where an annotator's name was read: (file, 1-based line or None, field).
Origin = tuple[str, int | None, str]
#: Where a pair was read: (file, 1-based line or None).
PairOrigin = tuple[str, int | None]


def read_at(origin: PairOrigin | None) -> str:
    """`` (in pairs.jsonl, line 3)`` for a message about a pair read there (the file's name,
    not the server's path to it); empty when not known."""
    if origin is None:
        return ""
    path, line = origin
    return f" (in {Path(path).name}{'' if line is None else f', line {line}'})"


#: The fields of a pair's row a record gives (the corpus and the position come at writing).
PAIR_FIELDS = (
    "external_id",
    "subcorpus",
    "split",
    "source_text",
    "target_text",
    "source_tokens",
    "target_tokens",
    "n_source",
    "n_target",
    "gold_score",
    "gold_label",
    "metadata",
)
ANNOTATION_FIELDS = ("flags", "rating", "comment", "link_count", "prefill_edits")


class StagedAnnotation(NamedTuple):
    name: str
    status: str
    values: tuple[Any, ...]  # of ANNOTATION_FIELDS
    links: list[tuple[int, int, bool]]
    added: str  # the links, as the event that imported them holds them (JSON)


class StagedPair(NamedTuple):
    """A checked pair: the values its rows are written with, ready for the database (JSON as
    text), so that the write transaction only writes."""

    values: tuple[Any, ...]  # of PAIR_FIELDS
    prefill: tuple[str, list[tuple[int, int, bool, float | None]]] | None  # aligner, links
    gold: tuple[list[tuple[int, int, bool]], str] | None  # links, the event's added links
    annotations: list[StagedAnnotation]
    lowest_f1: float | None  # between two submitted annotations; None with fewer than two
    unanimous: bool  # two or more submitted annotations, all the same alignment
    submitted: list[str]  # the names of the annotators who submitted


class ImportStage:
    """Checked pairs waiting to be written, pickled a batch at a time into ``file``, an
    anonymous temporary file (gone when closed, or when the process dies): an import of
    hundreds of MB holds one batch in memory, plus the pair ids and annotator names."""

    def __init__(self, file: IO[bytes]) -> None:
        self._file = file
        self._batches = 0
        self.pairs = 0
        #: every pair id, in the input's order (a dict keeps the order), with where it was read
        self.ids: dict[str, PairOrigin | None] = {}
        #: every annotator's name, in the order of first use, with where it was first read
        self.annotators: dict[str, Origin | None] = {}

    def add(self, batch: list[StagedPair]) -> None:
        pickle.dump(batch, self._file, protocol=pickle.HIGHEST_PROTOCOL)
        self._batches += 1
        self.pairs += len(batch)

    def __iter__(self) -> Iterator[list[StagedPair]]:
        self._file.seek(0)
        for _ in range(self._batches):
            # safe to unpickle: this process wrote the file, which no other can open
            yield pickle.load(self._file)


#: Unicode categories a name the pages show (a corpus, a pair id, a sub-corpus, a split) may not
#: hold: control characters, format characters (the bidirectional overrides that show a name
#: reversed, zero-width joiners) and line breaks.
INVISIBLE_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp"})


#: The longest name of each kind a pair's rows hold (their columns' lengths).
NAME_LENGTHS = {
    "id": SentencePair._meta.get_field("external_id").max_length or 0,
    "sub-corpus": SentencePair._meta.get_field("subcorpus").max_length or 0,
    "split": SentencePair._meta.get_field("split").max_length or 0,
    "aligner": AutoAlignment._meta.get_field("aligner").max_length or 0,
}


def first_invisible(text: str) -> str | None:
    """The first character of ``text`` that is not shown as itself, or None."""
    return next((ch for ch in text if unicodedata.category(ch) in INVISIBLE_CATEGORIES), None)


def record_staged(
    *, record: PairRecord, stage: ImportStage, subcorpus: str | None, split: str | None
) -> StagedPair:
    """Check one record (``subcorpus`` and ``split``, unless None, replace its own) and compute
    its rows' values; :class:`CorpusImportError` or the reader's
    :class:`~scoring.errors.FormatError` names what is wrong. Its id and annotators' names go
    into ``stage``, for the checks against the database."""
    where = read_at(record.origin)
    if record.id in stage.ids:
        first = stage.ids[record.id]
        earlier = "" if first is None else f", first{read_at(first)}"
        raise CorpusImportError(f"pair id {record.id!r}{where} occurs twice in the input{earlier}")
    stage.ids[record.id] = record.origin
    if subcorpus is not None:
        record.subcorpus = subcorpus
    if split is not None:
        record.split = split
    names = [
        ("id", record.id, NAME_LENGTHS["id"]),
        ("sub-corpus", record.subcorpus, NAME_LENGTHS["sub-corpus"]),
        ("split", record.split, NAME_LENGTHS["split"]),
    ]
    if record.prefill is not None and record.prefill_aligner:
        names.append(("prefill's aligner", record.prefill_aligner, NAME_LENGTHS["aligner"]))
    for what, value, longest in names:
        shown = record.id if len(record.id) <= 60 else f"{record.id[:60]}…"
        bad = first_invisible(value)
        if bad is not None:
            raise CorpusImportError(
                f"pair {shown!r}{where}: its {what} holds the invisible or control character "
                f"U+{ord(bad):04X}"
            )
        if len(value) > longest:
            # SQLite stored it whatever its column says; PostgreSQL failed the whole import
            # with a DataError naming no file or line
            raise CorpusImportError(
                f"pair {shown!r}{where}: its {what} has {len(value):,} characters; at most "
                f"{longest} are kept"
            )
    n_source, n_target = record.shape
    if n_source == 0 or n_target == 0:
        raise CorpusImportError(f"pair {record.id!r}{where}: a sentence has no tokens")
    for what, alignment in (("the prefill", record.prefill), ("the gold", record.gold_alignment)):
        if alignment is not None:
            alignment.with_lengths_checked(record.source_tokens, record.target_tokens)
            _links_checked(record, what, alignment)
    annotations = []
    submitted: list[tuple[str, Alignment]] = []
    prefill = record.prefill
    for name, annotation in record.annotations.items():
        alignment = annotation.alignment
        alignment.with_lengths_checked(record.source_tokens, record.target_tokens)
        _links_checked(record, f"the annotation by {name!r}", alignment)
        status = annotation.status
        if status not in Assignment.Status.values:
            raise CorpusImportError(
                f"pair {record.id!r}{where}: annotation by {name!r} has unknown status {status!r} "
                f"(expected one of {', '.join(Assignment.Status.values)})"
            )
        if status == Assignment.Status.SUBMITTED:
            submitted.append((name, alignment))
        edits = edits_from_prefill(
            alignment.possible, None if prefill is None else prefill.possible
        )
        values: tuple[Any, ...] = (
            json.dumps(list(annotation.flags)),
            annotation.rating,
            annotation.comment,
            len(alignment.possible),
            edits,
        )
        annotations.append(
            StagedAnnotation(
                name, status, values, link_rows(alignment), json.dumps(link_event_list(alignment))
            )
        )
    # accounts are made in the order they are first met, the submitters of a pair first
    for name in [name for name, _ in submitted] + list(record.annotations):
        stage.annotators.setdefault(name, record.annotations[name].origin)
    confidence, gold = record.prefill_confidence, record.gold_alignment
    values = (
        record.id,
        record.subcorpus,
        record.split,
        record.source_text,
        record.target_text,
        json.dumps(record.source_tokens),
        json.dumps(record.target_tokens),
        n_source,
        n_target,
        record.gold_score,
        record.gold_label,
        json.dumps(record.metadata),
    )
    return StagedPair(
        values=values,
        prefill=None
        if prefill is None
        else (
            record.prefill_aligner or "imported",
            [(i, j, sure, confidence.get((i, j))) for i, j, sure in link_rows(prefill)],
        ),
        gold=None if gold is None else (link_rows(gold), json.dumps(link_event_list(gold))),
        annotations=annotations,
        lowest_f1=lowest_pairwise_f1([alignment for _, alignment in submitted]),
        unanimous=unanimous([alignment for _, alignment in submitted]),
        submitted=[name for name, _ in submitted],
    )


class BatchWritten(NamedTuple):
    """What a batch added besides its pairs."""

    prefills: int
    gold_alignments: int
    annotations: int


def staged_batch_write(
    *, corpus: Corpus, batch: list[StagedPair], position: int, user_ids: dict[str, int]
) -> BatchWritten:
    """Write a batch of staged pairs into ``corpus`` at ``position`` on, their annotations
    attributed to the users ``user_ids`` names.

    Rows go straight to their tables (:func:`~annotate.services.links.rows_insert`), and the
    ids of the new rows are read back by what is unique to them: a pair's position, the one
    gold and one prefill of a new pair, a pair's assignment to an annotator."""
    end = position + len(batch)
    try:
        rows_insert(
            model=SentencePair,
            fields=(*PAIR_FIELDS, "corpus", "position"),
            rows=(
                (*staged.values, corpus.pk, position + offset)
                for offset, staged in enumerate(batch)
            ),
        )
    except IntegrityError as error:
        raise CorpusImportError(f"the database refused a pair: {error}") from error
    at = dict(
        SentencePair.objects.filter(
            corpus=corpus, position__gte=position, position__lt=end
        ).values_list("position", "id")
    )
    ids = [at[position + offset] for offset in range(len(batch))]
    staged_pairs = list(zip(ids, batch, strict=True))
    rows_insert(  # the rows disagreement_of() makes, from the figure computed when staging
        model=PairDisagreement,
        fields=(
            "pair",
            "corpus",
            "position",
            "subcorpus",
            "split",
            "gold_source",
            "submitted",
            "annotators",
            "lowest_f1",
            "unanimous",
        ),
        rows=(
            (
                pair_id,
                corpus.pk,
                position + offset,
                staged.values[1],  # the sub-corpus
                staged.values[2],  # the split
                "imported" if staged.gold is not None else "",
                len(staged.submitted),
                annotators_text(user_ids[name] for name in staged.submitted),
                staged.lowest_f1,
                staged.unanimous,
            )
            for offset, (pair_id, staged) in enumerate(staged_pairs)
            if staged.lowest_f1 is not None
        ),
    )

    prefills = [(pair_id, staged.prefill) for pair_id, staged in staged_pairs if staged.prefill]
    rows_insert(
        model=AutoAlignment,
        fields=("pair", "aligner"),
        rows=((pair_id, aligner) for pair_id, (aligner, _) in prefills),
    )
    prefill_ids = _new_ids(AutoAlignment, [pair_id for pair_id, _ in prefills])
    _insert_links(
        AutoLink,
        "alignment_id",
        ((prefill_ids[pair_id], *link) for pair_id, (_, links) in prefills for link in links),
        with_confidence=True,
    )
    golds = [(pair_id, staged.gold) for pair_id, staged in staged_pairs if staged.gold]
    rows_insert(
        model=GoldAlignment,
        fields=("pair", "source"),
        rows=((pair_id, "imported") for pair_id, _ in golds),
    )
    gold_ids = _new_ids(GoldAlignment, [pair_id for pair_id, _ in golds])
    rows_insert(
        model=GoldEvent,
        fields=("pair", "version", "kind", "added"),
        rows=((pair_id, 1, GoldEvent.Kind.IMPORTED.value, added) for pair_id, (_, added) in golds),
    )
    _insert_links(
        GoldLink,
        "gold_id",
        ((gold_ids[pair_id], *link) for pair_id, (links, _) in golds for link in links),
    )

    annotated = [
        (pair_id, user_ids[annotation.name], annotation)
        for pair_id, staged in staged_pairs
        for annotation in staged.annotations
    ]
    if annotated:
        now = connection.ops.adapt_datetimefield_value(timezone.now())
        rows_insert(
            model=Assignment,
            fields=("pair", "annotator", "status", "submitted_at"),
            rows=(
                (
                    pair_id,
                    user_id,
                    a.status,
                    now if a.status == Assignment.Status.SUBMITTED else None,
                )
                for pair_id, user_id, a in annotated
            ),
        )
        assignment_ids = {
            (pair_id, user_id): pk
            for pk, pair_id, user_id in Assignment.objects.filter(pair_id__in=ids).values_list(
                "id", "pair_id", "annotator_id"
            )
        }
        rows_insert(
            model=Annotation,
            fields=("assignment", *ANNOTATION_FIELDS),
            rows=(
                (assignment_ids[pair_id, user_id], *a.values) for pair_id, user_id, a in annotated
            ),
        )
        annotation_ids = dict(
            Annotation.objects.filter(assignment__pair_id__in=ids).values_list(
                "assignment_id", "id"
            )
        )
        of_annotation = [
            (annotation_ids[assignment_ids[pair_id, user_id]], a)
            for pair_id, user_id, a in annotated
        ]
        _insert_links(
            AnnotationLink,
            "annotation_id",
            ((pk, *link) for pk, a in of_annotation for link in a.links),
        )
        rows_insert(
            model=AnnotationEvent,
            fields=("annotation", "version", "kind", "added"),
            rows=((pk, 1, AnnotationEvent.Kind.IMPORTED.value, a.added) for pk, a in of_annotation),
        )
    return BatchWritten(len(prefills), len(golds), len(annotated))


def _new_ids(model: type[AutoAlignment | GoldAlignment], pair_ids: list[int]) -> dict[int, int]:
    """The ids of the rows of ``model`` just written for new pairs (one per pair), by pair."""
    if not pair_ids:
        return {}
    return dict(model.objects.filter(pair_id__in=pair_ids).values_list("pair_id", "id"))


def _links_checked(record: PairRecord, what: str, alignment: Alignment) -> None:
    try:
        links_count_check(
            len(alignment.possible), f"pair {record.id!r}{read_at(record.origin)}: {what}"
        )
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
