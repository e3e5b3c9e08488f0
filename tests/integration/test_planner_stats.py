"""On PostgreSQL an import or a plan that writes thousands of rows analyses the tables it
filled once it has committed, so the planner does not plan from the counts of before; a small
one leaves them to autovacuum, and an ``ANALYZE`` that fails is logged without failing it."""

from __future__ import annotations

import logging

import pytest
from django.db import connection

from annotate import roles
from annotate.models import Annotation, Assignment, Corpus, SentencePair
from annotate.services import planner_stats
from annotate.services.assignments import PlanSelection, assignments_plan
from annotate.services.corpora import corpus_import_records
from annotate.services.import_onto import corpus_import_onto_records
from tests.annotate.factories import make_user
from tests.annotate.records import make_record

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

MANY = planner_stats.ANALYZE_FROM_ROWS


@pytest.fixture(autouse=True)
def _postgresql() -> None:
    if connection.vendor != "postgresql":
        pytest.fail("the integration suite runs on PostgreSQL: set DATABASE_URL=postgres://...")


def _analyses(model: type) -> int:
    """How many times the model's table was analysed by hand (autovacuum counts apart)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_stat_clear_snapshot()")
        cursor.execute(
            "SELECT analyze_count FROM pg_stat_user_tables WHERE relname = %s",
            [model._meta.db_table],
        )
        return int(cursor.fetchone()[0])


def _reltuples(model: type) -> float:
    with connection.cursor() as cursor:
        cursor.execute("SELECT reltuples FROM pg_class WHERE relname = %s", [model._meta.db_table])
        return float(cursor.fetchone()[0])


def _records(count: int, *, annotator: str | None = None) -> list:
    annotations = {annotator: "1-1 3-4"} if annotator else None
    return [make_record(f"p{k}", prefill=None, annotations=annotations) for k in range(count)]


def test_a_large_import_analyses_the_tables_it_filled() -> None:
    before = {model: _analyses(model) for model in (SentencePair, Assignment, Annotation)}
    corpus_import_records(corpus_name="big", records=_records(MANY, annotator="ann"))
    for model in (SentencePair, Assignment, Annotation):
        assert _analyses(model) == before[model] + 1, model
    assert _reltuples(SentencePair) == MANY


def test_a_small_import_leaves_the_statistics_to_autovacuum() -> None:
    before = _analyses(SentencePair), _analyses(Annotation)
    corpus_import_records(corpus_name="small", records=_records(20, annotator="ann"))
    assert (_analyses(SentencePair), _analyses(Annotation)) == before


def test_a_large_import_onto_existing_pairs_analyses_the_annotations_not_the_pairs() -> None:
    corpus_import_records(corpus_name="onto", records=_records(MANY))
    pairs, annotations = _analyses(SentencePair), _analyses(Annotation)
    report = corpus_import_onto_records(corpus_name="onto", records=_records(MANY, annotator="ann"))
    assert report.annotations == MANY
    assert (_analyses(SentencePair), _analyses(Annotation)) == (pairs, annotations + 1)
    assert _reltuples(Annotation) == MANY


def test_a_large_plan_analyses_the_assignments_once_it_has_committed() -> None:
    corpus_import_records(corpus_name="plan", records=_records(MANY + 10))
    corpus = Corpus.objects.get(name="plan")
    alice = make_user("alice", roles.ANNOTATOR)
    before = _analyses(Assignment)
    small = assignments_plan(corpus=corpus, annotators=[alice], selection=PlanSelection(batch=10))
    assert small.created == 10
    assert _analyses(Assignment) == before
    large = assignments_plan(corpus=corpus, annotators=[alice])
    assert large.created == MANY
    assert _analyses(Assignment) == before + 1
    assert _reltuples(Assignment) == MANY + 10


def test_an_analyze_that_fails_is_logged_and_the_import_stands(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(planner_stats, "LOCK_TIMEOUT", "not a duration")
    before = _analyses(SentencePair)
    with caplog.at_level(logging.ERROR, logger=planner_stats.__name__):
        report = corpus_import_records(corpus_name="kept", records=_records(MANY))
    assert report.pairs == MANY
    assert SentencePair.objects.filter(corpus__name="kept").count() == MANY
    assert _analyses(SentencePair) == before
    assert "could not analyse annotate_sentencepair" in caplog.text
