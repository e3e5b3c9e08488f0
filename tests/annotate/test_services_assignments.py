from __future__ import annotations

from collections import Counter
from datetime import timedelta

import pytest
from django.utils import timezone

from annotate import jobs_runtime, roles
from annotate.exceptions import Conflict, DomainError
from annotate.models import Assignment, Job
from annotate.services import annotations, assignments
from annotate.services.corpora import corpus_import_records
from tests.annotate.factories import make_assignment, make_corpus, make_pair, make_user
from tests.annotate.records import make_record

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


def test_a_doubly_annotated_share_with_one_annotator_is_refused_naming_the_share() -> None:
    corpus = _corpus_with_pairs(1)
    with pytest.raises(DomainError, match="doubly annotated share needs 2 annotators") as refused:
        assignments.assignments_plan(
            corpus=corpus,
            annotators=[make_user("a", roles.ANNOTATOR)],
            per_pair=1,
            double_fraction=0.2,
        )
    assert "only 1 chosen" in str(refused.value)
    assert refused.value.extra["field"] == "annotators"


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


def test_abandoned_pairs_never_go_to_an_account_an_import_made() -> None:
    corpus_import_records(
        corpus_name="imported",
        records=[
            make_record("p", "the cat sat", "the cat slept", prefill=None, annotations={"A": "0-0"})
        ],
    )
    corpus = make_corpus()
    alice = make_user("alice", roles.ANNOTATOR)
    abandoned = make_assignment(make_pair(corpus), alice)
    long_ago = timezone.now() - timedelta(hours=30)
    annotations.annotation_open(assignment=abandoned, actor=alice, now=long_ago)
    annotations.annotation_save(
        assignment=abandoned, actor=alice, base_version=1, links={}, now=long_ago
    )

    report = assignments.assignments_release_abandoned(idle=timedelta(hours=24))

    assert report == {"released": 0, "stuck": 1}, "A has no open work but nobody signs in as A"
    abandoned.refresh_from_db()
    assert abandoned.annotator == alice
    bob = make_user("bob", roles.ANNOTATOR)
    assert assignments.assignments_release_abandoned(idle=timedelta(hours=24)) == {
        "released": 1,
        "stuck": 0,
    }
    abandoned.refresh_from_db()
    assert abandoned.annotator == bob


def test_handing_over_shares_open_pairs_among_the_least_loaded_who_lack_them() -> None:
    corpus = make_corpus()
    leaving = make_user("leaving", roles.ANNOTATOR)
    light = make_user("light", roles.ANNOTATOR)
    heavy = make_user("heavy", roles.ANNOTATOR)
    pairs = [make_pair(corpus) for _ in range(4)]
    for pair in pairs:
        make_assignment(pair, leaving)
    make_assignment(make_pair(corpus), heavy)
    make_assignment(make_pair(corpus), heavy)
    make_assignment(pairs[0], light)  # light has pair 0 already: it must go to heavy
    started = Assignment.objects.get(pair=pairs[3], annotator=leaving)
    annotations.annotation_open(assignment=started, actor=leaving)
    annotations.annotation_save(assignment=started, actor=leaving, base_version=1, links={})

    report = assignments.assignments_hand_over(corpus=corpus, from_user=leaving, to=[light, heavy])

    assert report == {"moved": 3, "stuck": 0, "kept": 1}
    owner = dict(
        Assignment.objects.filter(pair__in=pairs[:3])
        .values_list("pair_id", "annotator__username")
        .exclude(annotator__username="light", pair=pairs[0])
    )
    assert owner[pairs[0].pk] == "heavy"
    assert Counter(owner.values()) == Counter({"light": 2, "heavy": 1})
    started.refresh_from_db()
    assert started.annotator == leaving, "a pair with saved work stays unless asked"


def test_handing_over_started_work_moves_it_with_its_links_and_logs_it() -> None:
    corpus = make_corpus()
    leaving = make_user("leaving", roles.ANNOTATOR)
    other = make_user("other", roles.ANNOTATOR)
    started = make_assignment(make_pair(corpus), leaving)
    annotations.annotation_open(assignment=started, actor=leaving)
    annotations.annotation_save(
        assignment=started, actor=leaving, base_version=1, links={(0, 0): True}
    )
    report = assignments.assignments_hand_over(
        corpus=corpus, from_user=leaving, to=[other], include_started=True, actor=leaving
    )
    assert report == {"moved": 1, "stuck": 0, "kept": 0}
    started.refresh_from_db()
    assert started.annotator == other
    assert annotations.annotation_links(started.annotation) == {(0, 0): True}
    assert started.annotation.events.last().payload["reassigned_to"] == "other"


def test_handing_over_many_pairs_takes_as_many_statements_as_handing_over_a_few() -> None:
    """A quick-lane job promises seconds: 700 pairs handed over one statement pair each
    took two and a half minutes of a busy worker."""

    def hand_over(n: int) -> int:
        from django.db import connection
        from django.test.utils import CaptureQueriesContext

        corpus = make_corpus()
        leaving = make_user(f"leaving{n}", roles.ANNOTATOR)
        team = [make_user(f"to{n}_{k}", roles.ANNOTATOR) for k in range(2)]
        for _ in range(n):
            make_assignment(make_pair(corpus), leaving)
        with CaptureQueriesContext(connection) as queries:
            report = assignments.assignments_hand_over(corpus=corpus, from_user=leaving, to=team)
        assert report == {"moved": n, "stuck": 0, "kept": 0}
        loads = Counter(
            Assignment.objects.filter(pair__corpus=corpus).values_list(
                "annotator__username", flat=True
            )
        )
        assert loads == {f"to{n}_0": n // 2, f"to{n}_1": n - n // 2}
        return len(queries)

    assert hand_over(60) == hand_over(4)


def test_a_pair_every_target_already_has_stays_and_is_counted_stuck() -> None:
    corpus = make_corpus()
    leaving = make_user("leaving", roles.ANNOTATOR)
    other = make_user("other", roles.ANNOTATOR)
    pair = make_pair(corpus)
    make_assignment(pair, leaving)
    make_assignment(pair, other)
    assert assignments.assignments_hand_over(corpus=corpus, from_user=leaving, to=[other]) == {
        "moved": 0,
        "stuck": 1,
        "kept": 0,
    }


def test_handing_over_needs_another_annotator() -> None:
    corpus = make_corpus()
    leaving = make_user("leaving", roles.ANNOTATOR)
    with pytest.raises(DomainError, match="other than the one handing over"):
        assignments.assignments_hand_over(corpus=corpus, from_user=leaving, to=[leaving])
    other = make_user("other", roles.ANNOTATOR)
    make_assignment(make_pair(corpus), leaving)
    with pytest.raises(DomainError, match="leaving is handing over and cannot take their own"):
        assignments.assignments_hand_over(corpus=corpus, from_user=leaving, to=[other, leaving])
    assert not Assignment.objects.filter(annotator=other).exists(), "nothing moved"
    with pytest.raises(DomainError, match="does not have the annotator role"):
        assignments.assignments_hand_over(
            corpus=corpus, from_user=leaving, to=[make_user("carol", roles.ADJUDICATOR)]
        )


def _idle_in_progress(corpus, annotator, hours: float = 30):  # type: ignore[no-untyped-def]
    assignment = make_assignment(make_pair(corpus), annotator)
    long_ago = timezone.now() - timedelta(hours=hours)
    annotations.annotation_open(assignment=assignment, actor=annotator, now=long_ago)
    annotations.annotation_save(
        assignment=assignment, actor=annotator, base_version=1, links={(0, 0): True}, now=long_ago
    )
    return assignment


def test_releasing_one_corpus_leaves_another_corpuss_idle_work_alone() -> None:
    here, elsewhere = make_corpus(), make_corpus()
    alice = make_user("alice", roles.ANNOTATOR)
    bob = make_user("bob", roles.ANNOTATOR)
    mine = _idle_in_progress(here, alice)
    theirs = _idle_in_progress(elsewhere, alice)

    report = assignments.assignments_release_abandoned(idle=timedelta(hours=24), corpus_id=here.pk)

    assert report == {"released": 1, "stuck": 0}
    mine.refresh_from_db()
    theirs.refresh_from_db()
    assert (mine.annotator, theirs.annotator) == (bob, alice)


def test_a_release_of_one_corpus_weighs_the_open_work_in_that_corpus() -> None:
    here, elsewhere = make_corpus(), make_corpus()
    alice = make_user("alice", roles.ANNOTATOR)
    bob = make_user("bob", roles.ANNOTATOR)
    carol = make_user("carol", roles.ANNOTATOR)
    abandoned = _idle_in_progress(here, alice)
    for _ in range(3):  # bob is busy elsewhere, carol here
        make_assignment(make_pair(elsewhere), bob)
    make_assignment(make_pair(here), carol)

    assignments.assignments_release_abandoned(idle=timedelta(hours=24), corpus_id=here.pk)

    abandoned.refresh_from_db()
    assert abandoned.annotator == bob


def test_released_work_does_not_move_again_before_its_new_holder_had_the_idle_time() -> None:
    corpus = make_corpus()
    alice = make_user("alice", roles.ANNOTATOR)
    bob = make_user("bob", roles.ANNOTATOR)
    abandoned = _idle_in_progress(corpus, alice)
    assert assignments.assignments_release_abandoned(idle=timedelta(hours=24))["released"] == 1
    abandoned.refresh_from_db()
    assert abandoned.annotator == bob

    again = assignments.assignments_release_abandoned(idle=timedelta(hours=24))

    assert again == {"released": 0, "stuck": 0}, "bob got the pair a moment ago"
    abandoned.refresh_from_db()
    assert abandoned.annotator == bob
    later = timezone.now() + timedelta(hours=25)
    assert assignments.assignments_release_abandoned(idle=timedelta(hours=24), now=later) == {
        "released": 1,
        "stuck": 0,
    }
    abandoned.refresh_from_db()
    assert abandoned.annotator == alice, "bob left it untouched for a day"


def test_a_release_job_of_a_corpus_records_it_and_releases_only_there() -> None:
    here, elsewhere = make_corpus(), make_corpus()
    alice = make_user("alice", roles.ANNOTATOR)
    make_user("bob", roles.ANNOTATOR)
    mine = _idle_in_progress(here, alice)
    theirs = _idle_in_progress(elsewhere, alice)

    job = assignments.assignments_release_job_create(idle_hours=24, corpus=here)

    assert (job.kind, job.corpus_id, job.parameters) == (
        "assignments_release",
        here.pk,
        {"idle_hours": 24},
    )
    assert jobs_runtime.job_run(job_id=job.pk, worker="w") == Job.Status.SUCCEEDED
    job.refresh_from_db()
    assert job.result == {"released": 1, "stuck": 0}
    assert Assignment.objects.get(pk=theirs.pk).annotator == alice
    assert Assignment.objects.get(pk=mine.pk).annotator != alice
