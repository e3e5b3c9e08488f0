from __future__ import annotations

from collections import Counter
from datetime import timedelta

import pytest
from django.utils import timezone

from annotate import roles
from annotate.exceptions import Conflict, DomainError
from annotate.models import Assignment
from annotate.services import annotations, assignments
from tests.annotate.factories import make_assignment, make_corpus, make_pair, make_user

pytestmark = pytest.mark.django_db


def _corpus_with_pairs(n: int):  # type: ignore[no-untyped-def]
    corpus = make_corpus()
    for _ in range(n):
        make_pair(corpus)
    return corpus


def test_every_pair_gets_k_annotators_and_loads_stay_balanced() -> None:
    corpus = _corpus_with_pairs(10)
    team = [make_user(f"a{k}", roles.ANNOTATOR) for k in range(3)]
    report = assignments.assignments_plan(corpus=corpus, annotators=team, per_pair=2, seed=7)
    assert report.created == 20
    per_pair = Counter(Assignment.objects.values_list("pair_id", flat=True))
    assert set(per_pair.values()) == {2}
    loads = Counter(Assignment.objects.values_list("annotator__username", flat=True))
    assert max(loads.values()) - min(loads.values()) <= 1


def test_a_fraction_of_pairs_is_doubly_annotated() -> None:
    corpus = _corpus_with_pairs(20)
    team = [make_user(f"a{k}", roles.ANNOTATOR) for k in range(2)]
    report = assignments.assignments_plan(
        corpus=corpus, annotators=team, per_pair=1, double_fraction=0.25, seed=3
    )
    per_pair = Counter(Assignment.objects.values_list("pair_id", flat=True))
    assert sorted(Counter(per_pair.values()).items()) == [(1, 15), (2, 5)]
    assert report.doubled_pairs == 5 and report.created == 25 and report.seed == 3


def test_planning_twice_adds_nothing() -> None:
    corpus = _corpus_with_pairs(4)
    team = [make_user(f"a{k}", roles.ANNOTATOR) for k in range(2)]
    assignments.assignments_plan(corpus=corpus, annotators=team, per_pair=2, seed=1)
    again = assignments.assignments_plan(corpus=corpus, annotators=team, per_pair=2, seed=1)
    assert again.created == 0


def test_it_refuses_more_annotators_per_pair_than_chosen() -> None:
    corpus = _corpus_with_pairs(1)
    with pytest.raises(DomainError, match="only 1 chosen"):
        assignments.assignments_plan(
            corpus=corpus, annotators=[make_user("a", roles.ANNOTATOR)], per_pair=2
        )


def test_it_refuses_a_user_without_the_annotator_role() -> None:
    corpus = _corpus_with_pairs(1)
    with pytest.raises(DomainError, match="annotator role"):
        assignments.assignments_plan(corpus=corpus, annotators=[make_user("c")])


def test_a_submitted_assignment_is_not_reassigned() -> None:
    assignment = make_assignment()
    annotations.annotation_open(assignment=assignment, actor=assignment.annotator)
    annotations.annotation_submit(assignment=assignment, actor=assignment.annotator, base_version=1)
    with pytest.raises(Conflict):
        assignments.assignment_reassign(
            assignment=assignment, to=make_user("d", roles.ANNOTATOR), actor=None
        )


def test_abandoned_pairs_go_to_the_least_loaded_other_annotator_with_their_work() -> None:
    corpus = make_corpus()
    alice = make_user("alice", roles.ANNOTATOR)
    busy = make_user("busy", roles.ANNOTATOR)
    idle = make_user("idle", roles.ANNOTATOR)
    abandoned = make_assignment(make_pair(corpus), alice)
    make_assignment(make_pair(corpus), busy)
    long_ago = timezone.now() - timedelta(hours=30)
    annotations.annotation_open(assignment=abandoned, actor=alice, now=long_ago)
    annotations.annotation_save(
        assignment=abandoned, actor=alice, base_version=1, links={(0, 0): True}, now=long_ago
    )
    fresh = make_assignment(make_pair(corpus), alice)
    annotations.annotation_open(assignment=fresh, actor=alice)
    annotations.annotation_save(assignment=fresh, actor=alice, base_version=1, links={})

    report = assignments.assignments_release_abandoned(idle=timedelta(hours=24))

    assert report == {"released": 1, "stuck": 0}
    abandoned.refresh_from_db()
    fresh.refresh_from_db()
    assert abandoned.annotator == idle
    assert fresh.annotator == alice
    links = annotations.annotation_links(abandoned.annotation)
    assert links == {(0, 0): True}
