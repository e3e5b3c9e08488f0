"""On PostgreSQL the Assignments tab's figures of the submitted assignments (median active
time per annotator and per sub-corpus, the edit rate's sums) are aggregated in one grouped
statement, equal to those computed from every row; a deep page of the pair list in corpus
order takes its ids from the ``pair_by_position`` index alone."""

from __future__ import annotations

import random

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test.utils import CaptureQueriesContext

from annotate.models import Annotation, Assignment, Corpus, SentencePair
from annotate.selectors.assignments import (
    corpus_progress,
    submitted_figures,
    submitted_figures_rows,
)
from annotate.selectors.corpora import corpus_pairs_filtered

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def corpus() -> Corpus:
    """Pairs in three sub-corpora, each planned for two or three of four annotators: odd and
    even numbers of timed submissions, untimed (imported) ones, annotations with and without
    a prefill's edits, and work not submitted; vacuumed and analysed."""
    if connection.vendor != "postgresql":
        pytest.fail("the integration suite runs on PostgreSQL: set DATABASE_URL=postgres://...")
    rng = random.Random(1)
    people = [get_user_model().objects.create(username=f"a{k}") for k in range(4)]
    corpus = Corpus.objects.create(name="figures")
    pairs = SentencePair.objects.bulk_create(
        SentencePair(
            corpus=corpus,
            external_id=f"p{k}",
            subcorpus=("news", "mtc", "")[k % 3],
            source_text="a b c",
            target_text="a b",
            source_tokens=["a", "b", "c"],
            target_tokens=["a", "b"] + ["c"] * (k % 5),
            n_source=3,
            n_target=2 + k % 5,
            position=k,
        )
        for k in range(3001)
    )
    statuses = ["submitted"] * 6 + ["new", "in_progress"]
    assignments = Assignment.objects.bulk_create(
        Assignment(
            pair=pair,
            annotator=user,
            status=rng.choice(statuses),
            active_seconds=rng.choice([0.0, round(rng.uniform(1, 300), 3), 12.25]),
        )
        for pair in pairs
        for user in rng.sample(people, rng.choice([2, 3]))
    )
    Annotation.objects.bulk_create(
        Annotation(assignment=a, prefill_edits=rng.choice([None, rng.randrange(0, 9)]))
        for a in assignments
        if a.status != "new"
    )
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE")
    return corpus


def test_the_grouped_figures_equal_those_of_every_row(corpus: Corpus) -> None:
    with CaptureQueriesContext(connection) as queries:
        grouped = submitted_figures(corpus)
    assert len(queries.captured_queries) == 1
    assert "PERCENTILE_DISC" in queries.captured_queries[0]["sql"]
    assert grouped == submitted_figures_rows(corpus)
    assert set(grouped.median_by_subcorpus) == {"news", "mtc", ""}
    assert len(grouped.median_by_annotator) == 4


def test_the_tab_reads_no_row_per_assignment(corpus: Corpus) -> None:
    with CaptureQueriesContext(connection) as queries:
        corpus_progress(corpus)
    read = [q["sql"] for q in queries.captured_queries if "active_seconds" in q["sql"]]
    assert len(read) == 1 and "GROUP BY GROUPING SETS" in read[0], read


def test_a_deep_page_in_corpus_order_reads_its_ids_from_the_index(corpus: Corpus) -> None:
    pairs = corpus_pairs_filtered(corpus).values_list("id", flat=True)
    plan = pairs[2900:2950].explain()
    assert "Index Only Scan using pair_by_position" in plan, plan
    assert "Sort" not in plan, plan
