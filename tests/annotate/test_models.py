"""The database itself refuses corrupt alignments (invariants live in the database)."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction

from annotate.models import (
    Annotation,
    AnnotationEvent,
    AnnotationLink,
    Assignment,
    AutoAlignment,
    AutoLink,
    Corpus,
    GoldAlignment,
    GoldLink,
    SentencePair,
)

pytestmark = [pytest.mark.django_db, pytest.mark.postgres]


@pytest.fixture
def pair() -> SentencePair:
    corpus = Corpus.objects.create(name="c")
    return SentencePair.objects.create(
        corpus=corpus,
        external_id="p1",
        source_tokens=["a", "b", "c"],
        target_tokens=["x", "y"],
        n_source=3,
        n_target=2,
        position=0,
    )


@pytest.fixture
def annotation(pair: SentencePair) -> Annotation:
    user = get_user_model().objects.create(username="ann")
    assignment = Assignment.objects.create(pair=pair, annotator=user)
    return Annotation.objects.create(assignment=assignment)


def refused(create) -> None:
    with pytest.raises(IntegrityError), transaction.atomic():
        create()


def test_it_accepts_links_inside_the_pair(annotation: Annotation) -> None:
    AnnotationLink.objects.create(annotation=annotation, i=2, j=1, sure=True)
    assert annotation.links.count() == 1


def test_it_rejects_an_annotation_link_beyond_the_source(annotation: Annotation) -> None:
    refused(lambda: AnnotationLink.objects.create(annotation=annotation, i=3, j=0, sure=True))


def test_it_rejects_an_annotation_link_beyond_the_target(annotation: Annotation) -> None:
    refused(lambda: AnnotationLink.objects.create(annotation=annotation, i=0, j=2, sure=False))


def test_it_rejects_moving_a_link_out_of_range(annotation: Annotation) -> None:
    link = AnnotationLink.objects.create(annotation=annotation, i=0, j=0, sure=True)
    link.j = 5
    refused(link.save)


def test_it_rejects_out_of_range_prefill_and_gold_links(pair: SentencePair) -> None:
    auto = AutoAlignment.objects.create(pair=pair, aligner="identity")
    refused(lambda: AutoLink.objects.create(alignment=auto, i=9, j=0, sure=True))
    gold = GoldAlignment.objects.create(pair=pair)
    refused(lambda: GoldLink.objects.create(gold=gold, i=0, j=9, sure=True))


def test_it_rejects_negative_indices(annotation: Annotation) -> None:
    refused(lambda: AnnotationLink.objects.create(annotation=annotation, i=-1, j=0, sure=True))


def test_it_rejects_a_link_twice_in_one_alignment(annotation: Annotation) -> None:
    AnnotationLink.objects.create(annotation=annotation, i=0, j=0, sure=True)
    refused(lambda: AnnotationLink.objects.create(annotation=annotation, i=0, j=0, sure=False))


def test_it_rejects_a_second_assignment_of_the_same_pair_and_annotator(
    annotation: Annotation,
) -> None:
    assignment = annotation.assignment
    refused(lambda: Assignment.objects.create(pair=assignment.pair, annotator=assignment.annotator))


def test_it_rejects_token_counts_that_differ_from_the_tokens(pair: SentencePair) -> None:
    refused(
        lambda: SentencePair.objects.create(
            corpus=pair.corpus,
            external_id="p2",
            source_tokens=["a"],
            target_tokens=["b"],
            n_source=2,
            n_target=1,
            position=1,
        )
    )


def test_it_rejects_empty_sentences(pair: SentencePair) -> None:
    refused(
        lambda: SentencePair.objects.create(
            corpus=pair.corpus,
            external_id="p3",
            source_tokens=[],
            target_tokens=["b"],
            n_source=0,
            n_target=1,
            position=2,
        )
    )


def test_it_rejects_changing_the_token_count_of_a_pair(pair: SentencePair) -> None:
    pair.source_tokens = ["a", "b"]
    pair.n_source = 2
    refused(pair.save)


def test_it_rejects_a_rating_outside_zero_to_five(annotation: Annotation) -> None:
    annotation.rating = 5.5
    refused(annotation.save)


def test_the_event_log_is_append_only(annotation: Annotation) -> None:
    event = AnnotationEvent.objects.create(annotation=annotation, version=1, kind="created")
    event.kind = "edited"
    refused(event.save)
    refused(lambda: AnnotationEvent.objects.create(annotation=annotation, version=1, kind="edited"))
