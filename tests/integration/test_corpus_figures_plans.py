"""On PostgreSQL the Assignments tab and the corpus page join a corpus's pairs to their
assignments through one of the pairs' corpus indexes (``pair_by_corpus``: the pairs in id
order with the columns the figures need; or the narrower ``pair_by_position`` where a join
needs only the ids), never through the pairs' rows; the assignments are counted from the
``assignment_progress`` index alone, or hashed against the pairs' ids when the planner finds
that cheaper."""

from __future__ import annotations

import random
import re

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test.utils import CaptureQueriesContext

from annotate.models import Assignment, Corpus, SentencePair
from annotate.selectors.assignments import corpus_progress
from annotate.selectors.corpora import corpus_overview

# Transactional, so that the fixture can VACUUM (which sets the visibility map that index-only
# scans rely on, as autovacuum does after an import).
pytestmark = [
    pytest.mark.integration,
    pytest.mark.slow,
    pytest.mark.django_db(transaction=True),
]

PAIRS = 20_000


@pytest.fixture
def corpus() -> Corpus:
    """A corpus of 20,000 pairs, one in eight planned for two of four annotators, beside a
    second corpus of 2,000 pairs all planned, vacuumed and analysed as after an import."""
    if connection.vendor != "postgresql":
        pytest.fail("the integration suite runs on PostgreSQL: set DATABASE_URL=postgres://...")
    rng = random.Random(0)
    words = [f"word{k}" for k in range(20)]
    people = [get_user_model().objects.create(username=f"a{k}") for k in range(4)]
    statuses = [s.value for s in Assignment.Status]
    made = []
    for name, size, every in (("big", PAIRS, 8), ("other", 2000, 1)):
        corpus = Corpus.objects.create(name=name)
        pairs = SentencePair.objects.bulk_create(
            SentencePair(
                corpus=corpus,
                external_id=f"p{index}",
                subcorpus=("news", "novels")[index % 2],
                source_text=" ".join(words),
                target_text=" ".join(words[:15]),
                source_tokens=words,
                target_tokens=words[:15],
                n_source=20,
                n_target=15,
                position=index,
            )
            for index in range(size)
        )
        Assignment.objects.bulk_create(
            Assignment(pair=pair, annotator=user, status=rng.choice(statuses))
            for pair in pairs[::every]
            for user in rng.sample(people, 2)
        )
        made.append(corpus)
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE")
    return made[0]


def _plans(read) -> list[str]:  # type: ignore[no-untyped-def]
    """The plan of each statement of ``read`` that joins the pairs to their assignments."""
    with CaptureQueriesContext(connection) as queries:
        read()
    plans = []
    for query in queries.captured_queries:
        sql = query["sql"]
        if "annotate_assignment" in sql and "annotate_sentencepair" in sql:
            with connection.cursor() as cursor:
                cursor.execute(f"EXPLAIN {sql}")
                plans.append("\n".join(row[0] for row in cursor.fetchall()))
    return plans


def test_the_tab_and_the_page_read_the_pairs_from_their_corpus_index(corpus: Corpus) -> None:
    tab = _plans(lambda: corpus_progress(corpus))
    assert len(tab) == 3, "coverage, the submitted assignments and the counts"
    page = _plans(lambda: corpus_overview(corpus))
    assert page, "the annotators' figures"
    for plan in tab + page:
        assert re.search(r"using pair_by_(corpus|position) on annotate_sentencepair", plan), plan
        assert "Seq Scan on annotate_sentencepair" not in plan, plan
        assert "Index Scan using" not in plan.replace("Index Only Scan using", ""), plan
    counts = tab[2]
    # merged with the pairs in id order through `assignment_progress`, or hashed against the
    # narrower `pair_by_position`: the planner's choice by cost; never the pairs' rows
    assert (
        "Index Only Scan using assignment_progress" in counts
        or "Hash Cond: (annotate_assignment.pair_id = annotate_sentencepair.id)" in counts
    ), counts
