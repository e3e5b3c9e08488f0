"""Corpus statistics: pairs, lengths, assignments and annotations, counted exactly."""

from __future__ import annotations

import pytest

from annotate import roles
from annotate.models import Assignment
from annotate.services.annotations import annotation_open
from annotate.services.stats import corpus_stats_compute
from tests.annotate.factories import make_assignment, make_corpus, make_pair, make_user

pytestmark = pytest.mark.django_db


def test_pairs_are_counted_by_their_number_of_annotations_and_assignments_by_status() -> None:
    corpus = make_corpus()
    alice, bob, carl = (make_user(name, roles.ANNOTATOR) for name in ("alice", "bob", "carl"))
    untouched, single, double = make_pair(corpus), make_pair(corpus), make_pair(corpus)
    make_assignment(untouched, alice)  # assigned, never opened: no annotation
    for pair, annotators in ((single, [alice]), (double, [alice, bob])):
        for annotator in annotators:
            annotation_open(assignment=make_assignment(pair, annotator), actor=annotator)
    make_assignment(double, carl)  # a third, not opened
    Assignment.objects.filter(pair=double, annotator=bob).update(status=Assignment.Status.SUBMITTED)

    stats = corpus_stats_compute(corpus)

    assert stats["pairs"] == 3
    assert stats["pairs_by_annotation_count"] == {"0": 1, "1": 1, "2": 1}
    assert stats["multiply_annotated_pairs"] == 1
    assert stats["assignments"] == {"new": 4, "in_progress": 0, "submitted": 1}
    # the factories' prefill: (1, 1) sure and (3, 4) possible, copied into each annotation
    assert stats["annotation_links"] == {"sure": 3, "possible_only": 3}
    assert stats["prefilled_pairs"] == 3


def test_a_corpus_without_annotations_has_every_pair_at_zero() -> None:
    corpus = make_corpus()
    make_pair(corpus)
    make_pair(corpus)
    assert corpus_stats_compute(corpus)["pairs_by_annotation_count"] == {"0": 2}
