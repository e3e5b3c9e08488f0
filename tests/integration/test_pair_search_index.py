"""On PostgreSQL the pairs' search (over ``search_text``, the id and both texts upper-cased)
reads its trigram index for a rare term, and a sequential scan is left to common ones; the
pair list's annotator names are found through ``assignment_by_annotator``."""

from __future__ import annotations

import random
import re

import pytest
from django.db import connection

from annotate.models import Corpus, SentencePair
from annotate.selectors.corpora import corpus_pairs_filtered

pytestmark = [pytest.mark.integration, pytest.mark.django_db]

INDEXES = ("pair_search_text",)
PAIRS = 3000


@pytest.fixture
def corpus() -> Corpus:
    """A corpus whose texts draw on 2,000 made-up words, "common" in every other sentence and
    "zanzibar" in one, vacuumed and analysed as after an import."""
    if connection.vendor != "postgresql":
        pytest.fail("the integration suite runs on PostgreSQL: set DATABASE_URL=postgres://...")
    rng = random.Random(0)
    vocabulary = [f"w{k:04d}" for k in range(2000)]
    corpus = Corpus.objects.create(name="search")
    rows = []
    for index in range(PAIRS):
        src = rng.sample(vocabulary, 12) + (["common"] if index % 2 else [])
        tgt = rng.sample(vocabulary, 12) + (["Zanzibar"] if index == 1234 else [])
        rows.append(
            SentencePair(
                corpus=corpus,
                external_id=f"item-{index}",
                source_text=" ".join(src),
                target_text=" ".join(tgt),
                source_tokens=src,
                target_tokens=tgt,
                n_source=len(src),
                n_target=len(tgt),
                position=index,
            )
        )
    SentencePair.objects.bulk_create(rows)
    with connection.cursor() as cursor:
        # What autovacuum does after an import: the GIN indexes' pending entries moved into
        # the indexes proper, the statistics gathered (a VACUUM cannot run in the test's
        # transaction).
        cursor.execute(
            "SELECT gin_clean_pending_list(oid) FROM pg_class WHERE relname = ANY(%s)",
            [list(INDEXES)],
        )
        cursor.execute("ANALYZE annotate_sentencepair")
    return corpus


def test_a_rare_term_is_found_through_the_trigram_index(corpus: Corpus) -> None:
    pairs = corpus_pairs_filtered(corpus, search="zanZIBar")
    page = pairs.values_list("id", flat=True)[:50]
    for plan in (pairs.explain(), page.explain()):
        for name in INDEXES:
            assert f"Bitmap Index Scan on {name}" in plan, plan
        assert "Seq Scan" not in plan, plan
    assert [pair.external_id for pair in pairs] == ["item-1234"]
    # the per-column indexes the search no longer reads are gone
    with connection.cursor() as cursor:
        cursor.execute("SELECT indexname FROM pg_indexes WHERE indexname LIKE 'pair_search%%'")
        assert [name for (name,) in cursor.fetchall()] == ["pair_search_text"]


def test_the_planner_knows_a_term_in_half_the_pairs_is_common(corpus: Corpus) -> None:
    # The column's statistics tell the planner that many rows match, so it weighs the index
    # against a scan with the right count (which it picks depends on the table's size).
    pairs = corpus_pairs_filtered(corpus, search="common")
    estimated = int(re.search(r"rows=(\d+)", pairs.explain()).group(1))  # type: ignore[union-attr]
    assert PAIRS // 4 < estimated < PAIRS
    assert pairs.count() == PAIRS // 2


def test_the_annotator_names_read_the_index_not_the_corpuss_assignments(corpus: Corpus) -> None:
    from django.test.utils import CaptureQueriesContext

    from annotate.models import Assignment
    from annotate.selectors.corpora import corpus_facets
    from tests.annotate.factories import make_user

    users = [make_user(f"ann{k}") for k in range(3)]
    pairs = list(SentencePair.objects.filter(corpus=corpus).values_list("id", flat=True))
    Assignment.objects.bulk_create(
        Assignment(pair_id=pair, annotator=user) for pair in pairs for user in users
    )
    make_user("idle")
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE annotate_assignment")
    with CaptureQueriesContext(connection) as queries:
        assert corpus_facets(corpus)["annotators"] == ["ann0", "ann1", "ann2"]
    (sql,) = [q["sql"] for q in queries.captured_queries if "annotate_assignment" in q["sql"]]
    with connection.cursor() as cursor:
        cursor.execute(f"EXPLAIN {sql}")
        plan = "\n".join(row for (row,) in cursor.fetchall())
    assert "assignment_by_annotator" in plan, plan
    assert "Seq Scan on annotate_assignment" not in plan, plan
