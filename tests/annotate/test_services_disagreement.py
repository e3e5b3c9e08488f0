"""The disagreement each pair keeps for the adjudication list follows its submitted annotations
through submit, reopen and import, and equals the scoring function's figure."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.db import IntegrityError, transaction

from annotate import roles
from annotate.models import Assignment, PairDisagreement, SentencePair
from annotate.services.adjudication import gold_save
from annotate.services.annotations import (
    annotation_open,
    annotation_reopen,
    annotation_save,
    annotation_submit,
)
from annotate.services.corpora import corpus_import_records
from annotate.services.disagreement import pair_disagreement_refresh
from scoring.alignment.links import Alignment
from scoring.alignment.metrics import lowest_pairwise_f1
from scoring.corpus import AnnotationRecord
from tests.annotate.factories import make_assignment, make_pair, make_user
from tests.annotate.records import make_record

pytestmark = pytest.mark.django_db


def _figures(pair: SentencePair) -> tuple[int, float] | None:
    row = PairDisagreement.objects.filter(pair=pair).first()
    return None if row is None else (row.submitted, row.lowest_f1)


def _submit(assignment: Assignment, links: dict[tuple[int, int], bool]) -> None:
    annotator = assignment.annotator
    annotation = annotation_open(assignment=assignment, actor=annotator)
    saved = annotation_save(
        assignment=assignment, actor=annotator, base_version=annotation.version, links=links
    )
    annotation_submit(assignment=assignment, actor=annotator, base_version=saved.annotation.version)


def test_submitting_the_second_annotation_makes_the_pair_ready_and_reopening_undoes_it() -> None:
    pair = make_pair(prefill=None)
    alice = make_assignment(pair, make_user("alice", roles.ANNOTATOR))
    bob = make_assignment(pair, make_user("bob", roles.ANNOTATOR))
    carl = make_assignment(pair, make_user("carl", roles.ANNOTATOR))
    _submit(alice, {(0, 0): True, (1, 1): True})
    assert _figures(pair) is None
    _submit(bob, {(0, 0): False, (2, 2): True})
    assert _figures(pair) == (2, pytest.approx(0.5))  # one of two cells each in common
    _submit(carl, {(3, 3): True})
    assert _figures(pair) == (3, 0.0)
    annotation_reopen(assignment=carl, actor=carl.annotator)
    assert _figures(pair) == (2, pytest.approx(0.5))
    annotation_reopen(assignment=bob, actor=bob.annotator)
    assert _figures(pair) is None


def test_an_import_stores_the_figure_of_its_submitted_annotations() -> None:
    record = make_record("r", "a b c", "a b c", prefill=None)
    found = {"A": "0-0 1-1", "B": "0-0 2?2", "C": "0-0 1-1 2-2"}
    for name, links in found.items():
        record.annotations[name] = AnnotationRecord(alignment=Alignment.from_pharaoh(links, 3, 3))
    record.annotations["D"] = AnnotationRecord(
        alignment=Alignment.from_pharaoh("0-2", 3, 3), status="in_progress"
    )
    single = make_record("s", "a b c", "a b c", prefill=None, annotations={"A": "0-0"})
    corpus_import_records(corpus_name="c", records=[record, single])
    expected = lowest_pairwise_f1([Alignment.from_pharaoh(x, 3, 3) for x in found.values()])
    assert _figures(SentencePair.objects.get(external_id="r")) == (3, pytest.approx(expected))
    assert _figures(SentencePair.objects.get(external_id="s")) is None


def test_a_refresh_rebuilds_figures_written_wrong_or_missing() -> None:
    corpus_import_records(
        corpus_name="c",
        records=[
            make_record(f"p{k}", prefill=None, annotations={"A": "0-0", "B": f"0-0 {k}-{k}"})
            for k in range(1, 4)
        ],
    )
    pairs = list(SentencePair.objects.order_by("position"))
    expected = [_figures(pair) for pair in pairs]
    PairDisagreement.objects.filter(pair=pairs[0]).update(lowest_f1=1.0, submitted=5)
    PairDisagreement.objects.filter(pair=pairs[1]).delete()
    pair_disagreement_refresh(pair_ids=[pair.pk for pair in pairs])
    assert [_figures(pair) for pair in pairs] == expected


def test_the_database_refuses_a_figure_outside_its_range() -> None:
    pair = make_pair()
    for submitted, lowest in ((1, 0.5), (2, 1.5), (2, -0.1)):
        with pytest.raises(IntegrityError), transaction.atomic():
            PairDisagreement.objects.create(
                pair=pair,
                corpus_id=pair.corpus_id,
                position=pair.position,
                submitted=submitted,
                lowest_f1=lowest,
            )


def test_the_row_keeps_what_the_list_filters_on_and_follows_the_gold() -> None:
    record = make_record("r", prefill=None, annotations={"A": "0-0", "B": "1-1"}, gold="0-0")
    record.subcorpus, record.split = "leagues", "dev"
    corpus_import_records(corpus_name="c", records=[make_record("first", prefill=None), record])
    pair = SentencePair.objects.get(external_id="r")
    row = PairDisagreement.objects.get(pair=pair)
    assert (row.corpus_id, row.position, row.subcorpus, row.split) == (
        pair.corpus_id,
        1,
        "leagues",
        "dev",
    )
    ids = sorted(User.objects.filter(username__in=["A", "B"]).values_list("pk", flat=True))
    assert row.annotators == f" {ids[0]} {ids[1]} "
    assert row.gold_source == "imported"
    gold_save(
        pair=pair, links={}, adjudicator=make_user("carol", roles.ADJUDICATOR), base_version=1
    )
    row.refresh_from_db()
    assert row.gold_source == "adjudicated"
    PairDisagreement.objects.filter(pair=pair).update(gold_source="", subcorpus="x", annotators="")
    pair_disagreement_refresh(pair_ids=[pair.pk])
    row.refresh_from_db()
    assert (row.gold_source, row.subcorpus) == ("adjudicated", "leagues")
    assert row.annotators == f" {ids[0]} {ids[1]} "
