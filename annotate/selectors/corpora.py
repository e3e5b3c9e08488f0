"""Reads of corpora and pairs: pairs with all their alignments, pairs as scoring
records, counts. Nothing here writes."""

from __future__ import annotations

from collections.abc import Iterator

from django.db.models import Count, Exists, OuterRef, Prefetch, QuerySet

from annotate.conversions import alignment_from_rows
from annotate.exceptions import NotFound
from annotate.models import (
    Annotation,
    AnnotationLink,
    Assignment,
    AutoAlignment,
    AutoLink,
    Corpus,
    GoldAlignment,
    GoldLink,
    SentencePair,
)
from scoring.corpus import AnnotationRecord, PairRecord

STREAM_CHUNK = 500


def corpus_pairs_with_alignments(corpus: Corpus) -> QuerySet[SentencePair]:
    """Pairs in corpus order with every alignment prefetched (one query per relation per chunk)."""
    return (
        SentencePair.objects.filter(corpus=corpus)
        .order_by("position")
        .select_related("gold")
        .prefetch_related(
            Prefetch(
                "prefills",
                queryset=AutoAlignment.objects.order_by("-created_at", "-id").prefetch_related(
                    Prefetch("links", queryset=AutoLink.objects.order_by("i", "j"))
                ),
            ),
            Prefetch(
                "assignments",
                queryset=Assignment.objects.select_related("annotator", "annotation")
                .order_by("annotator__username")
                .prefetch_related(
                    Prefetch(
                        "annotation__links", queryset=AnnotationLink.objects.order_by("i", "j")
                    )
                ),
            ),
            Prefetch("gold__links", queryset=GoldLink.objects.order_by("i", "j")),
        )
    )


def pair_record(pair: SentencePair) -> PairRecord:
    """A :class:`PairRecord` of a pair fetched by :func:`corpus_pairs_with_alignments`."""
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
    prefills = list(pair.prefills.all())
    if prefills:
        latest = prefills[0]
        links = list(latest.links.all())
        record.prefill = alignment_from_rows(n, m, links)
        record.prefill_aligner = latest.aligner
        record.prefill_confidence = {
            (link.i, link.j): link.confidence for link in links if link.confidence is not None
        }
    for assignment in pair.assignments.all():
        try:
            annotation: Annotation = assignment.annotation
        except Annotation.DoesNotExist:
            continue
        record.annotations[assignment.annotator.get_username()] = AnnotationRecord(
            alignment=alignment_from_rows(n, m, annotation.links.all()),
            status=assignment.status,
            flags=tuple(annotation.flags),
            rating=annotation.rating,
            comment=annotation.comment,
        )
    gold = getattr(pair, "gold", None)
    if gold is not None:
        record.gold_alignment = alignment_from_rows(n, m, gold.links.all())
    return record


def corpus_pair_records(corpus: Corpus) -> Iterator[PairRecord]:
    """Every pair of the corpus as a :class:`PairRecord`, streamed in chunks."""
    for pair in corpus_pairs_with_alignments(corpus).iterator(chunk_size=STREAM_CHUNK):
        yield pair_record(pair)


def corpus_finished_pair_count(corpus: Corpus) -> int:
    """Pairs with finished work: a submitted annotation or an adjudicated gold alignment."""
    submitted = Assignment.objects.filter(
        pair=OuterRef("pk"), status=Assignment.Status.SUBMITTED, annotation__isnull=False
    )
    gold = GoldAlignment.objects.filter(pair=OuterRef("pk"))
    return (
        SentencePair.objects.filter(corpus=corpus).filter(Exists(submitted) | Exists(gold)).count()
    )


def corpora_overview() -> QuerySet[Corpus]:
    return Corpus.objects.annotate(n_pairs=Count("pairs")).order_by("name")


def corpus_get(corpus_id: int) -> Corpus:
    corpus = Corpus.objects.filter(pk=corpus_id).first()
    if corpus is None:
        raise NotFound(f"there is no corpus {corpus_id}")
    return corpus


def pair_get(pair_id: int) -> SentencePair:
    pair = SentencePair.objects.select_related("corpus").filter(pk=pair_id).first()
    if pair is None:
        raise NotFound(f"there is no pair {pair_id}")
    return pair
