"""Reads of corpora and pairs: pairs with all their alignments, pairs as scoring
records, counts. Nothing here writes."""

from __future__ import annotations

from bisect import bisect_right
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.contrib.auth import get_user_model
from django.db.models import Count, Exists, OuterRef, Q, QuerySet, Subquery, Sum
from django.db.models.functions import Least

from annotate.conversions import alignment_from_tuples
from annotate.exceptions import NotFound, quoted
from annotate.models import (
    TRIAL_SPLIT,
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
    ScorerModel,
    SentencePair,
)
from annotate.selectors.paging import IdsFirst
from annotate.selectors.pair_search import pair_search
from scoring.corpus import LENGTH_BIN_STARTS, AnnotationRecord, PairRecord, length_bin_labels

STREAM_CHUNK = 500


@dataclass(frozen=True)
class PairRead:
    """A pair as a :class:`PairRecord`, with when its latest prefill and each annotator's
    annotation were made (what the agreement report's chance model asks of it)."""

    pk: int
    record: PairRecord
    prefill_at: datetime | None
    annotated_at: dict[str, datetime]


def pair_reads(pairs: Sequence[SentencePair]) -> list[PairRead]:
    """``pairs`` as records with every alignment: each annotator's, the gold and the latest
    prefill (a pair keeps the prefill of every retraining; the older ones are not read).

    Six queries for the lot, whatever their number, the link rows read as tuples: an ORM
    object per link was four fifths of the time of reading a corpus (3,000 pairs by three
    annotators, 150,000 links: 23 s as objects)."""
    ids = [pair.pk for pair in pairs]
    latest = (
        AutoAlignment.objects.filter(pair=OuterRef("pair"))
        .order_by("-created_at", "-id")
        .values("pk")[:1]
    )
    prefills = {
        pair_id: (pk, aligner, created_at)
        for pk, pair_id, aligner, created_at in AutoAlignment.objects.filter(
            pair_id__in=ids, pk=Subquery(latest)
        ).values_list("pk", "pair_id", "aligner", "created_at")
    }
    prefill_links = _links_by(
        AutoLink.objects.filter(alignment_id__in=[pk for pk, _, _ in prefills.values()]),
        "alignment_id",
        "confidence",
    )
    work = list(
        Assignment.objects.filter(pair_id__in=ids, annotation__isnull=False)
        .order_by("pair_id", "annotator__username")
        .values_list(
            "pair_id",
            "annotator__username",
            "status",
            "annotation__id",
            "annotation__flags",
            "annotation__rating",
            "annotation__comment",
            "annotation__created_at",
        )
    )
    annotation_links = _links_by(
        AnnotationLink.objects.filter(annotation_id__in=[row[3] for row in work]),
        "annotation_id",
    )
    golds = dict(GoldAlignment.objects.filter(pair_id__in=ids).values_list("pair_id", "pk"))
    gold_links = _links_by(GoldLink.objects.filter(gold_id__in=list(golds.values())), "gold_id")
    work_of: dict[int, list[tuple[Any, ...]]] = defaultdict(list)
    for row in work:
        work_of[row[0]].append(row)
    reads = []
    for pair in pairs:
        n, m = pair.n_source, pair.n_target
        record = PairRecord(
            id=pair.external_id,
            source_tokens=list(pair.source_tokens),
            target_tokens=list(pair.target_tokens),
            source_text=pair.source_text,
            target_text=pair.target_text,
            subcorpus=pair.subcorpus,
            split=pair.split,
            gold_score=pair.gold_score,
            gold_label=pair.gold_label,
            metadata=dict(pair.metadata),
        )
        prefill_at = None
        if pair.pk in prefills:
            auto_pk, record.prefill_aligner, prefill_at = prefills[pair.pk]
            links = prefill_links.get(auto_pk, [])
            record.prefill = alignment_from_tuples(n, m, links)
            record.prefill_confidence = {(i, j): c for i, j, _, c in links if c is not None}
        annotated_at = {}
        for _, name, status, pk, flags, rating, comment, created_at in work_of[pair.pk]:
            record.annotations[name] = AnnotationRecord(
                alignment=alignment_from_tuples(n, m, annotation_links.get(pk, [])),
                status=status,
                flags=tuple(flags),
                rating=rating,
                comment=comment,
            )
            annotated_at[name] = created_at
        if pair.pk in golds:
            record.gold_alignment = alignment_from_tuples(n, m, gold_links.get(golds[pair.pk], []))
        reads.append(PairRead(pair.pk, record, prefill_at, annotated_at))
    return reads


def _links_by(links: QuerySet[Any], parent: str, *extra: str) -> dict[int, list[tuple[Any, ...]]]:
    """``(i, j, sure, *extra)`` of each link, by its parent's id, in (i, j) order."""
    grouped: dict[int, list[tuple[Any, ...]]] = defaultdict(list)
    rows = links.order_by(parent, "i", "j").values_list(parent, "i", "j", "sure", *extra)
    for parent_id, *row in rows:
        grouped[parent_id].append(tuple(row))
    return grouped


def corpus_pair_reads(pairs: QuerySet[SentencePair]) -> Iterator[PairRead]:
    """:func:`pair_reads` of ``pairs`` in corpus order, :data:`STREAM_CHUNK` pairs at a time,
    each chunk's queries read to the end before its pairs are yielded.

    No statement stays open while the caller works on a chunk, so a caller outside a
    transaction may write meanwhile: on SQLite a statement left open keeps its connection's
    read snapshot, and that connection's next write, once another connection has committed (a
    heartbeat, a save), fails at once with "database is locked". Each chunk is read apart: a
    caller that needs the corpus of one moment reads it inside
    :func:`~annotate.consistent_reads.read_snapshot` (an export does, and writes its progress
    from another connection)."""
    pairs = pairs.order_by("position")
    after = -1
    while True:
        chunk = list(pairs.filter(position__gt=after)[:STREAM_CHUNK])
        yield from pair_reads(chunk)
        if len(chunk) < STREAM_CHUNK:
            return
        after = chunk[-1].position


def pair_reads_by_id(ids: Sequence[int]) -> Iterator[PairRead]:
    """:func:`pair_reads` of the pairs ``ids`` (in corpus order), :data:`STREAM_CHUNK` at a
    time."""
    for start in range(0, len(ids), STREAM_CHUNK):
        chunk = SentencePair.objects.filter(pk__in=ids[start : start + STREAM_CHUNK])
        yield from pair_reads(list(chunk.order_by("position")))


def corpus_pair_records(corpus: Corpus, only: Q | None = None) -> Iterator[PairRecord]:
    """Every pair of the corpus (those matching ``only``, if given) as a :class:`PairRecord`
    with all its alignments, in corpus order, streamed (:func:`corpus_pair_reads`)."""
    pairs = SentencePair.objects.filter(corpus=corpus)
    if only is not None:
        pairs = pairs.filter(only)
    return (read.record for read in corpus_pair_reads(pairs))


def corpus_finished_pair_count(corpus: Corpus) -> int:
    """Pairs with finished work a prefill learns from: a submitted annotation, or a gold
    alignment of a pair outside the trial split (a trial pair's gold is its annotators' key,
    which no prefill learns)."""
    submitted = Assignment.objects.filter(
        pair=OuterRef("pk"), status=Assignment.Status.SUBMITTED, annotation__isnull=False
    )
    gold = GoldAlignment.objects.filter(pair=OuterRef("pk"))
    learnt = Exists(submitted) | (Exists(gold) & ~Q(split=TRIAL_SPLIT))
    return SentencePair.objects.filter(corpus=corpus).filter(learnt).count()


def corpora_overview(*, archived: bool = False) -> QuerySet[Corpus]:
    """The corpora in use with their pair counts, by name; ``archived``: the archived ones
    instead."""
    return (
        Corpus.objects.filter(archived_at__isnull=not archived)
        .annotate(n_pairs=Count("pairs"))
        .order_by("name")
    )


#: What each row of the corpus lists shows, attached by :func:`corpora_counted`.
CORPUS_COUNTS = ("n_pairs", "n_annotators", "n_open", "n_submitted", "n_gold")


def corpora_filtered(*, archived: bool = False, search: str = "") -> QuerySet[Corpus]:
    """The corpus list's corpora: in use, or ``archived``; names or descriptions containing
    ``search``. Without their counts (:func:`corpora_counted` adds them to the rows shown)."""
    corpora = Corpus.objects.filter(archived_at__isnull=not archived)
    if search:
        corpora = corpora.filter(Q(name__icontains=search) | Q(description__icontains=search))
    return corpora


def corpora_counted(corpora: Iterable[Corpus]) -> list[Corpus]:
    """``corpora``, each given what a row of the lists shows (:data:`CORPUS_COUNTS`): pairs,
    annotators, open and submitted assignments, gold alignments.

    Three statements for the lot, each grouped by corpus over those corpora's rows only (the
    pairs from an index): counted per corpus in correlated subqueries, each count joined every
    assignment to its pair again, a second of SQL per request at 100,000 pairs."""
    rows = list(corpora)
    ids = [corpus.pk for corpus in rows]
    pairs = dict(
        SentencePair.objects.filter(corpus_id__in=ids)
        .order_by()
        .values("corpus_id")
        .annotate(n=Count("*"))
        .values_list("corpus_id", "n")
    )
    submitted = Q(status=Assignment.Status.SUBMITTED)
    work = {
        row["pair__corpus_id"]: row
        for row in Assignment.objects.filter(pair__corpus_id__in=ids)
        .order_by()
        .values("pair__corpus_id")
        .annotate(
            annotators=Count("annotator_id", distinct=True),
            open=Count("id", filter=~submitted),
            submitted=Count("id", filter=submitted),
        )
    }
    gold = dict(
        GoldAlignment.objects.filter(pair__corpus_id__in=ids)
        .order_by()
        .values("pair__corpus_id")
        .annotate(n=Count("*"))
        .values_list("pair__corpus_id", "n")
    )
    nothing = {"annotators": 0, "open": 0, "submitted": 0}
    for corpus in rows:
        counts = work.get(corpus.pk, nothing)
        values = (
            pairs.get(corpus.pk, 0),
            counts["annotators"],
            counts["open"],
            counts["submitted"],
            gold.get(corpus.pk, 0),
        )
        for name, value in zip(CORPUS_COUNTS, values, strict=True):
            setattr(corpus, name, value)
    return rows


def corpora_listed(*, archived: bool = False, search: str = "") -> list[Corpus]:
    """Every corpus of :func:`corpora_filtered`, by name, with its counts
    (:func:`corpora_counted`)."""
    return corpora_counted(corpora_filtered(archived=archived, search=search).order_by("name"))


@dataclass(frozen=True)
class CorpusContents:
    """Everything deleting a corpus would remove, counted: what its confirmation states."""

    pairs: int
    prefilled_pairs: int
    assignments: int
    open_assignments: int
    annotations: int
    annotators: int
    gold_alignments: int
    adjudicated_gold: int
    #: Saves of its annotations and gold alignments (rows of their append-only event logs): a
    #: save after the confirmation makes it grow even when no annotation is added.
    saved_changes: int
    jobs: int
    #: Trained scorers keep their weights and evaluation; only their link to the corpus goes.
    scorer_models: int

    @property
    def has_work(self) -> bool:
        """Whether people's work would go: annotations, assignments or gold alignments."""
        return bool(self.annotations or self.assignments or self.gold_alignments)


def corpus_contents(corpus: Corpus) -> CorpusContents:
    """What the corpus holds, counted in SQL (a few statements whatever its size)."""
    assignments = Assignment.objects.filter(pair__corpus=corpus).aggregate(
        total=Count("id"),
        open=Count("id", filter=~Q(status=Assignment.Status.SUBMITTED)),
        annotations=Count("annotation"),
        annotators=Count("annotator", distinct=True, filter=Q(annotation__isnull=False)),
    )
    gold = GoldAlignment.objects.filter(pair__corpus=corpus).aggregate(
        total=Count("id"), adjudicated=Count("id", filter=Q(source="adjudicated"))
    )
    pairs = SentencePair.objects.filter(corpus=corpus)
    return CorpusContents(
        pairs=pairs.count(),
        prefilled_pairs=pairs.filter(
            Exists(AutoAlignment.objects.filter(pair=OuterRef("pk")))
        ).count(),
        assignments=assignments["total"],
        open_assignments=assignments["open"],
        annotations=assignments["annotations"],
        annotators=assignments["annotators"],
        gold_alignments=gold["total"],
        adjudicated_gold=gold["adjudicated"],
        saved_changes=(
            AnnotationEvent.objects.filter(annotation__assignment__pair__corpus=corpus).count()
            + GoldEvent.objects.filter(pair__corpus=corpus).count()
        ),
        jobs=Job.objects.filter(corpus=corpus).count(),
        scorer_models=ScorerModel.objects.filter(corpus=corpus).count(),
    )


def corpus_named(name: str, *, field: str = "corpus") -> Corpus:
    """The corpus of that name; :class:`NotFound` naming it, and the request's ``field``."""
    corpus = Corpus.objects.filter(name=name).first()
    if corpus is None:
        raise NotFound(f"there is no corpus named {quoted(name)}", field=field)
    return corpus


def corpus_get(corpus_id: int) -> Corpus:
    corpus = Corpus.objects.filter(pk=corpus_id).first()
    if corpus is None:
        raise NotFound(f"there is no corpus {corpus_id}")
    return corpus


def pair_get(pair_id: int) -> SentencePair:
    """A pair by its id; one an import is still writing (its staging corpus) is not found: the
    import may yet delete it, with whatever was saved on it."""
    pair = (
        SentencePair.objects.select_related("corpus")
        .filter(pk=pair_id, corpus__importing=False)
        .first()
    )
    if pair is None:
        raise NotFound(f"there is no pair {pair_id}")
    return pair


#: Bins of the shorter sentence's length on the corpus page (tokens; the last is open): the
#: project's one binning, which the agreement report's Figure 4 uses too.
LENGTH_BINS: tuple[int, ...] = LENGTH_BIN_STARTS


def corpus_overview(corpus: Corpus) -> dict[str, object]:
    """The corpus page's figures, aggregated in SQL: four queries whatever its size. The pair
    figures come from one pass over the ``pair_figures`` index grouped by its own columns
    (sub-corpus, split and the two lengths: at most a few thousand groups, which the database
    streams in index order without sorting; ``COUNT(*)``, since PostgreSQL's index does not hold
    the id), binned here; the annotators' and their
    annotations' figures from one pass over the assignments."""
    shapes = (
        SentencePair.objects.filter(corpus=corpus)
        .values_list("subcorpus", "split", "n_source", "n_target")
        .annotate(pairs=Count("*"))
        .order_by("subcorpus", "split", "n_source", "n_target")
    )
    labels = length_bin_labels(LENGTH_BINS)
    histogram = [0] * len(LENGTH_BINS)
    subcorpora: Counter[str] = Counter()
    splits: Counter[str] = Counter()
    tokens = 0
    for subcorpus, split, n_source, n_target, pairs in shapes:
        subcorpora[subcorpus] += pairs
        splits[split] += pairs
        tokens += (n_source + n_target) * pairs
        histogram[bisect_right(LENGTH_BINS, min(n_source, n_target)) - 1] += pairs
    counted = {
        row["annotator_id"]: row
        for row in Assignment.objects.filter(pair__corpus=corpus)
        .values("annotator_id")
        .annotate(
            assigned=Count("id"),
            submitted=Count("id", filter=Q(status=Assignment.Status.SUBMITTED)),
            in_progress=Count("id", filter=Q(status=Assignment.Status.IN_PROGRESS)),
            annotations=Count("annotation"),
            links=Sum("annotation__link_count"),
        )
        .order_by()
    }
    annotators: list[dict[str, Any]] = [
        {**counted[pk], "annotator__username": name} for pk, name in usernames_of(list(counted))
    ]
    annotations = sum(row["annotations"] for row in annotators)
    links = sum(row["links"] or 0 for row in annotators)
    return {
        "pairs": sum(subcorpora.values()),
        "tokens": tokens,
        "length_histogram": [
            {"label": label, "count": count} for label, count in zip(labels, histogram, strict=True)
        ],
        "subcorpora": [
            {"subcorpus": name, "pairs": subcorpora[name]} for name in sorted(subcorpora)
        ],
        "splits": [{"split": name, "pairs": splits[name]} for name in sorted(splits)],
        "annotators": [
            {
                "username": row["annotator__username"],
                "assigned": row["assigned"],
                "submitted": row["submitted"],
                "in_progress": row["in_progress"],
            }
            for row in annotators
        ],
        "annotations": annotations,
        "links_per_annotation": round(links / annotations, 2) if annotations else None,
        "prefilled_pairs": SentencePair.objects.filter(corpus=corpus)
        .filter(Exists(AutoAlignment.objects.filter(pair=OuterRef("pk"))))
        .count(),
        "gold_alignments": GoldAlignment.objects.filter(pair__corpus=corpus).count(),
    }


def usernames_of(ids: Iterable[int]) -> list[tuple[int, str]]:
    """The users ``ids`` as ``(id, username)``, by username. The lists of a corpus's
    annotators count or pick its assignments by annotator id and name them here: grouped by
    username, the database sorted every assignment of the corpus by it after a join."""
    users = get_user_model().objects.filter(pk__in=list(ids)).order_by("username")
    return list(users.values_list("pk", "username"))


def corpus_annotator_names(assignments: QuerySet[Assignment]) -> list[str]:
    """The usernames, sorted, of the annotators of ``assignments`` (some of a corpus's)."""
    ids = assignments.order_by().values_list("annotator_id", flat=True).distinct()
    return [name for _, name in usernames_of(ids)]


def corpus_annotators(corpus: Corpus) -> list[str]:
    """The usernames, sorted, of the annotators of the corpus (who has an assignment of one of
    its pairs), without grouping the corpus's assignments (240,000 at 80,000 pairs × 3, read
    on every page of the pair list).

    A corpus's pairs are imported together, so its pair ids are usually a range no other
    corpus's pair falls in (one index probe per other corpus tells). Then an account is an
    annotator of the corpus when it has an assignment in that range of pair ids: one probe of
    ``assignment_by_annotator`` (annotator, pair) per account. Otherwise the assignments in
    the range are also joined to their pairs for the corpus."""
    # ordered by (corpus, id), each end is one probe of `pair_by_corpus`; PostgreSQL plans
    # MIN(id) and MAX(id) as a walk of the primary key past every other corpus's pairs
    ids = SentencePair.objects.filter(corpus=corpus).values_list("id", flat=True)
    low = ids.order_by("corpus_id", "id").first()
    high = ids.order_by("-corpus_id", "-id").first()
    if low is None or high is None:
        return []
    in_range = Q(pair_id__gte=low, pair_id__lte=high)
    theirs = Assignment.objects.filter(in_range, annotator=OuterRef("pk"))
    interleaved = SentencePair.objects.filter(corpus=OuterRef("pk"), id__gte=low, id__lte=high)
    if Corpus.all_objects.exclude(pk=corpus.pk).filter(Exists(interleaved)).exists():
        theirs = theirs.filter(pair__corpus=corpus)
    users = get_user_model().objects.filter(Exists(theirs)).order_by("username")
    return list(users.values_list("username", flat=True))


def corpus_labels(corpus: Corpus) -> dict[str, list[str]]:
    """The corpus's sub-corpora and splits, each sorted (``""`` for pairs without one): one
    pass over the ``pair_figures`` index, grouped by its leading columns."""
    pairs = SentencePair.objects.filter(corpus=corpus).order_by()
    labels = list(pairs.values_list("subcorpus", "split").distinct())
    return {
        "subcorpora": sorted({subcorpus for subcorpus, _ in labels}),
        "splits": sorted({split for _, split in labels}),
    }


def corpus_has_prefill(corpus: Corpus) -> bool:
    """Whether some pair of the corpus has a prefill (one look-up, where counting the
    prefilled pairs reads every pair)."""
    return AutoAlignment.objects.filter(pair__corpus=corpus).exists()


def corpus_prefill_counts(corpus: Corpus) -> dict[str, int]:
    """Pairs, pairs with a prefill and gold alignments of a corpus: three counts."""
    pairs = SentencePair.objects.filter(corpus=corpus)
    return {
        "pairs": pairs.count(),
        "prefilled_pairs": pairs.filter(
            Exists(AutoAlignment.objects.filter(pair=OuterRef("pk")))
        ).count(),
        "gold_alignments": GoldAlignment.objects.filter(pair__corpus=corpus).count(),
    }


PAIR_SORTS = {
    "position": ("position",),
    "-position": ("-position",),
    "id": ("external_id",),
    "-id": ("-external_id",),
    "length": ("shorter", "position"),
    "-length": ("-shorter", "position"),
    "subcorpus": ("subcorpus", "position"),
    "-subcorpus": ("-subcorpus", "position"),
}
PAIR_STATUSES = ("unassigned", "new", "in_progress", "submitted", "adjudicated")


def corpus_pairs_filtered(
    corpus: Corpus,
    *,
    subcorpus: str | None = None,
    split: str | None = None,
    status: str | None = None,
    annotator: str | None = None,
    min_length: int | None = None,
    max_length: int | None = None,
    search: str = "",
    sort: str = "position",
) -> QuerySet[SentencePair]:
    """The pair list's pairs, filtered and sorted in SQL (without per-pair counts, so counting
    and slicing stay cheap; :func:`corpus_pairs_page` adds them to one page).

    ``status``: ``unassigned`` (no assignment), ``adjudicated`` (has gold), or an assignment
    status that some assignment of the pair has. Lengths are of the shorter sentence."""
    pairs = SentencePair.objects.filter(corpus=corpus).annotate(
        shorter=Least("n_source", "n_target")
    )
    if subcorpus is not None:
        pairs = pairs.filter(subcorpus=subcorpus)
    if split is not None:
        pairs = pairs.filter(split=split)
    if status == "unassigned":
        pairs = pairs.filter(~Exists(Assignment.objects.filter(pair=OuterRef("pk"))))
    elif status == "adjudicated":
        pairs = pairs.filter(Exists(GoldAlignment.objects.filter(pair=OuterRef("pk"))))
    elif status:
        pairs = pairs.filter(Exists(Assignment.objects.filter(pair=OuterRef("pk"), status=status)))
    if annotator:
        pairs = pairs.filter(
            Exists(Assignment.objects.filter(pair=OuterRef("pk"), annotator__username=annotator))
        )
    if min_length is not None:
        pairs = pairs.filter(shorter__gte=min_length)
    if max_length is not None:
        pairs = pairs.filter(shorter__lte=max_length)
    if search:
        pairs = pairs.filter(pair_search(search))
    return pairs.order_by(*PAIR_SORTS[sort])


def corpus_facets(corpus: Corpus) -> dict[str, list[str]]:
    """What the pair list filters by: the corpus's sub-corpora and splits (one pass over the
    ``pair_figures`` index, :func:`corpus_labels`) and the usernames of its annotators, each
    sorted."""
    return {
        **corpus_labels(corpus),
        "annotators": corpus_annotators(corpus),
    }


def pairs_with_counts(ids: list[int]) -> list[SentencePair]:
    """The pairs ``ids`` (a page of a list, in its order), each with its number of
    assignments (``assigned``), of submitted ones (``submitted``) and whether it has a gold
    alignment (``has_gold``)."""
    rows = SentencePair.objects.filter(id__in=ids).annotate(
        assigned=Count("assignments", distinct=True),
        submitted=Count(
            "assignments",
            filter=Q(assignments__status=Assignment.Status.SUBMITTED),
            distinct=True,
        ),
        has_gold=Exists(GoldAlignment.objects.filter(pair=OuterRef("pk"))),
    )
    by_id = {row.pk: row for row in rows}
    return [by_id[pk] for pk in ids]


@dataclass(frozen=True)
class PairCounts:
    assigned: int = 0
    submitted: int = 0
    has_gold: bool = False


def pair_counts(ids: list[int]) -> dict[int, PairCounts]:
    """Per pair of ``ids`` (a page of a list): its assignments, the submitted ones and whether
    it has a gold alignment, in two grouped queries over those pairs only."""
    gold = set(GoldAlignment.objects.filter(pair_id__in=ids).values_list("pair_id", flat=True))
    counted: dict[int, Any] = {
        row["pair_id"]: row
        for row in Assignment.objects.filter(pair_id__in=ids)
        .order_by()
        .values("pair_id")
        .annotate(
            assigned=Count("*"),
            submitted=Count("id", filter=Q(status=Assignment.Status.SUBMITTED)),
        )
    }
    return {
        pk: PairCounts(
            assigned=counted.get(pk, {}).get("assigned", 0),
            submitted=counted.get(pk, {}).get("submitted", 0),
            has_gold=pk in gold,
        )
        for pk in ids
    }


def corpus_pairs_page(
    corpus: Corpus, *, page: int, per_page: int, **filters: Any
) -> tuple[list[SentencePair], int]:
    """One page of :func:`corpus_pairs_filtered` and the number of matching pairs. The page's
    ids are chosen first (the sort reads only the index), then only those rows are read, each
    with its assignment counts and gold flag (:func:`pairs_with_counts`). The first page of a
    search is counted apart (the page itself stops at its last row); a deeper one evaluates
    the search once for both (:class:`IdsFirst`)."""
    # past the first page a search is evaluated once, for the count and the page
    listed = IdsFirst(
        corpus_pairs_filtered(corpus, **filters), whole=bool(filters.get("search")) and page > 1
    )
    total = listed.count()
    start = (page - 1) * per_page
    ids = listed.ids(slice(start, start + per_page))
    return pairs_with_counts(ids), total
