"""Bulk link writes: exact rows, few statements, and the database's checks still apply."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import IntegrityError, transaction

from annotate.models import Annotation, AnnotationLink, AutoAlignment, AutoLink
from annotate.services.links import DELETE_BATCH, links_delete, links_insert
from tests.annotate.factories import make_assignment, make_pair

pytestmark = [pytest.mark.django_db, pytest.mark.postgres]
WORDS = " ".join(f"w{k}" for k in range(40))


def _annotation() -> Annotation:
    return Annotation.objects.create(
        assignment=make_assignment(make_pair(source=WORDS, target=WORDS))
    )


def _stored(annotation: Annotation) -> set[tuple[int, int, bool]]:
    return set(AnnotationLink.objects.filter(annotation=annotation).values_list("i", "j", "sure"))


def test_it_inserts_exactly_the_rows_given_in_a_few_statements(
    django_assert_max_num_queries: Any,
) -> None:
    annotation = _annotation()
    rows = {(i, j, (i + j) % 2 == 0) for i in range(40) for j in range(40) if (i * j) % 3 == 0}
    with django_assert_max_num_queries(2):
        written = links_insert(
            model=AnnotationLink,
            parent_column="annotation_id",
            rows=((annotation.pk, i, j, sure) for i, j, sure in sorted(rows)),
        )
    assert written == len(rows)
    assert _stored(annotation) == rows


def test_it_stores_confidences_of_prefill_links_including_missing_ones() -> None:
    pair = make_pair(source=WORDS, target=WORDS, prefill=None)
    auto = AutoAlignment.objects.create(pair=pair, aligner="test")
    links_insert(
        model=AutoLink,
        parent_column="alignment_id",
        rows=[(auto.pk, 0, 0, True, 0.25), (auto.pk, 1, 2, False, None)],
        with_confidence=True,
    )
    stored = set(
        AutoLink.objects.filter(alignment=auto).values_list("i", "j", "sure", "confidence")
    )
    assert stored == {(0, 0, True, 0.25), (1, 2, False, None)}


def test_inserting_nothing_sends_no_statement(django_assert_num_queries: Any) -> None:
    with django_assert_num_queries(0):
        assert links_insert(model=AnnotationLink, parent_column="annotation_id", rows=[]) == 0


def test_it_deletes_exactly_the_ids_given_across_several_batches() -> None:
    annotation = _annotation()
    links_insert(
        model=AnnotationLink,
        parent_column="annotation_id",
        rows=[(annotation.pk, i, j, True) for i in range(40) for j in range(40)],
    )
    ids = sorted(AnnotationLink.objects.filter(annotation=annotation).values_list("pk", flat=True))
    doomed = ids[: DELETE_BATCH + 7]
    links_delete(model=AnnotationLink, ids=doomed)
    left = set(AnnotationLink.objects.filter(annotation=annotation).values_list("pk", flat=True))
    assert left == set(ids[DELETE_BATCH + 7 :])


def test_the_database_still_refuses_a_link_outside_the_pair_and_stores_none_of_the_batch() -> None:
    annotation = _annotation()
    rows = [(annotation.pk, 0, 0, True), (annotation.pk, 39, 40, True)]  # target has 40 words
    with pytest.raises(IntegrityError), transaction.atomic():
        links_insert(model=AnnotationLink, parent_column="annotation_id", rows=rows)
    assert _stored(annotation) == set()


def test_the_database_still_refuses_a_duplicate_link() -> None:
    annotation = _annotation()
    rows = [(annotation.pk, 3, 4, True), (annotation.pk, 3, 4, False)]
    with pytest.raises(IntegrityError), transaction.atomic():
        links_insert(model=AnnotationLink, parent_column="annotation_id", rows=rows)
    assert _stored(annotation) == set()
