"""The Assignments tab's figures: coverage, progress per annotator and sub-corpus, active time
and the edit rate against the prefill, checked against counts done by hand."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from annotate import jobs_runtime, roles
from annotate.models import Assignment, Corpus, Job
from annotate.selectors.assignments import corpus_progress
from annotate.services import annotations
from annotate.services.corpora import corpus_import_records
from tests.annotate.factories import make_assignment, make_corpus, make_pair, make_user
from tests.annotate.records import make_record

pytestmark = [pytest.mark.django_db, pytest.mark.postgres]


def _submit(assignment: Assignment, links: dict[tuple[int, int], bool], seconds: float) -> None:
    user = assignment.annotator
    annotations.annotation_open(assignment=assignment, actor=user)
    result = annotations.annotation_save(
        assignment=assignment, actor=user, base_version=1, links=links
    )
    annotations.annotation_submit(
        assignment=assignment, actor=user, base_version=result.annotation.version
    )
    Assignment.objects.filter(pk=assignment.pk).update(active_seconds=seconds)


def test_coverage_counts_pairs_by_their_number_of_annotators() -> None:
    corpus = make_corpus()
    alice, bob = make_user("alice", roles.ANNOTATOR), make_user("bob", roles.ANNOTATOR)
    single, double, nobody = make_pair(corpus), make_pair(corpus), make_pair(corpus)
    make_assignment(single, alice)
    make_assignment(double, alice)
    make_assignment(double, bob)
    coverage = corpus_progress(corpus)["coverage"]
    assert coverage["pairs"] == 3
    assert coverage["annotators_per_pair"] == [
        {"annotators": 0, "pairs": 1},
        {"annotators": 1, "pairs": 1},
        {"annotators": 2, "pairs": 1},
    ]
    assert coverage["doubly_annotated"] == 1
    assert coverage["doubly_annotated_fraction"] == pytest.approx(1 / 3)
    assert nobody.assignments.count() == 0


def test_an_empty_corpus_has_undefined_fractions_not_zero() -> None:
    progress = corpus_progress(make_corpus())
    assert progress["coverage"]["doubly_annotated_fraction"] is None
    assert progress["annotators"] == [] and progress["subcorpora"] == []


def test_progress_per_annotator_and_sub_corpus_with_median_time_and_edit_rate() -> None:
    corpus = make_corpus()
    alice, bob = make_user("alice", roles.ANNOTATOR), make_user("bob", roles.ANNOTATOR)
    # 6 × 7 = 42 cells; the prefill holds (1,1) sure and (3,4) possible
    first, second, third = (make_pair(corpus) for _ in range(3))
    type(first).objects.filter(pk=third.pk).update(subcorpus="news")
    a1, a2 = make_assignment(first, alice), make_assignment(second, alice)
    # P edits: (3,4) removed and (0,0) added; (1,1) sure → possible stays in P
    _submit(a1, {(1, 1): False, (0, 0): True}, seconds=30)
    _submit(a2, {(1, 1): True, (3, 4): False}, seconds=90)  # no edit
    make_assignment(third, alice)  # left
    b1 = make_assignment(first, bob)
    annotations.annotation_open(assignment=b1, actor=bob)
    annotations.annotation_save(assignment=b1, actor=bob, base_version=1, links={})

    progress = corpus_progress(corpus)
    rows = {row["username"]: row for row in progress["annotators"]}
    assert rows["alice"] | {} == {
        "username": "alice",
        "is_active": True,
        "assigned": 3,
        "new": 1,
        "in_progress": 0,
        "submitted": 2,
        "median_active_seconds": 60.0,
        "edit_rate": pytest.approx(2 / 84),
        "edit_rate_pairs": 2,
    }
    assert rows["bob"]["in_progress"] == 1 and rows["bob"]["edit_rate"] is None
    assert rows["bob"]["median_active_seconds"] is None
    subs = {row["subcorpus"]: row for row in progress["subcorpora"]}
    assert subs[""] == {
        "subcorpus": "",
        "pairs": 2,
        "unassigned": 0,
        "doubly_annotated": 1,
        "pairs_done": 1,  # second: its only assignment is submitted; first: bob is working
        "new": 0,
        "in_progress": 1,
        "submitted": 2,
        "median_active_seconds": 60.0,
    }
    assert subs["news"]["new"] == 1 and subs["news"]["pairs_done"] == 0


@pytest.mark.usefixtures("eager_chunks")  # the prefill's chunks run here
def test_imported_work_counts_its_edits_against_a_prefill_added_later() -> None:
    corpus_import_records(
        corpus_name="c",
        records=[
            make_record(
                "p", "the cat sat", "the cat slept", prefill=None, annotations={"A": "0-0 2-2"}
            )
        ],
    )
    corpus = Corpus.objects.get(name="c")
    assert corpus_progress(corpus)["annotators"][0]["edit_rate"] is None, "no prefill yet"
    job = Job.objects.create(kind="prefill", corpus=corpus, parameters={"aligner": "identity"})
    jobs_runtime.job_run(job_id=job.pk, worker="test")
    # identity links 0-0 1-1: A lacks 1-1 and adds 2-2 → 2 of 9 cells
    assert corpus_progress(corpus)["annotators"][0]["edit_rate"] == pytest.approx(2 / 9)


def test_the_stored_edit_counts_follow_every_save() -> None:
    alice = make_user("alice", roles.ANNOTATOR)
    assignment = make_assignment(make_pair(make_corpus()), alice)
    annotation = annotations.annotation_open(assignment=assignment, actor=alice)
    assert annotation.prefill_edits == 0 and annotation.link_count == 2
    saved = annotations.annotation_save(
        assignment=assignment, actor=alice, base_version=1, links={(0, 0): True, (1, 1): False}
    )
    assert saved.annotation.prefill_edits == 2  # (0,0) added, (3,4) removed; (1,1) only sure→P
    assert saved.annotation.link_count == 2
    bare = make_pair(make_corpus(), prefill=None)
    assert (
        annotations.annotation_open(
            assignment=make_assignment(bare, alice), actor=alice
        ).prefill_edits
        is None
    )


def test_imported_work_without_time_leaves_the_median_undefined() -> None:
    corpus = make_corpus()
    alice = make_user("alice", roles.ANNOTATOR)
    _submit(make_assignment(make_pair(corpus), alice), {}, seconds=0)
    assert corpus_progress(corpus)["annotators"][0]["median_active_seconds"] is None
    assert get_user_model().objects.count() == 1


def test_work_by_annotator_counts_each_status_in_this_corpus_only() -> None:
    from annotate.selectors.assignments import work_by_annotator

    corpus, elsewhere = make_corpus(), make_corpus()
    alice = make_user("alice", roles.ANNOTATOR)
    for _ in range(2):
        make_assignment(make_pair(corpus), alice)
    make_assignment(make_pair(elsewhere), alice)
    started = make_assignment(make_pair(corpus), alice)
    Assignment.objects.filter(pk=started.pk).update(status=Assignment.Status.IN_PROGRESS)
    assert work_by_annotator(corpus) == [
        {"username": "alice", "new": 2, "in_progress": 1, "submitted": 0}
    ]


def test_annotators_come_by_username_with_deactivated_accounts_marked() -> None:
    corpus = make_corpus()
    zoe, adam = make_user("zoe", roles.ANNOTATOR), make_user("adam", roles.ANNOTATOR)
    adam.is_active = False
    adam.save()
    pair = make_pair(corpus)
    make_assignment(pair, zoe)
    make_assignment(pair, adam)
    rows = corpus_progress(corpus)["annotators"]
    assert [(row["username"], row["is_active"]) for row in rows] == [
        ("adam", False),
        ("zoe", True),
    ]
    assert all(row["edit_rate"] is None and row["edit_rate_pairs"] == 0 for row in rows)


def test_candidates_count_their_open_work_in_this_corpus_only() -> None:
    from annotate.selectors.assignments import plan_candidates

    corpus, elsewhere = make_corpus(), make_corpus()
    alice = make_user("alice", roles.ANNOTATOR)
    make_user("bob", roles.ANNOTATOR)
    make_assignment(make_pair(corpus), alice)
    started = make_assignment(make_pair(corpus), alice)
    Assignment.objects.filter(pk=started.pk).update(status=Assignment.Status.IN_PROGRESS)
    _submit(make_assignment(make_pair(corpus), alice), {}, seconds=5)
    make_assignment(make_pair(elsewhere), alice)
    counted = {c.username: c.open_here for c in plan_candidates(corpus)}
    assert counted == {"alice": 2, "bob": 0}
    given = plan_candidates(corpus, open_here={"bob": 4})
    assert {c.username: c.open_here for c in given} == {"alice": 0, "bob": 4}


def test_an_account_nobody_signs_in_as_is_imported_only_with_imported_work() -> None:
    from annotate.selectors.assignments import imported_accounts

    corpus_import_records(
        corpus_name="c",
        records=[
            make_record("p", "the cat sat", "the cat slept", prefill=None, annotations={"A": "0-0"})
        ],
    )
    make_user("invited", roles.ANNOTATOR)  # no password, never signed in, no work
    worker = make_user("worker", roles.ANNOTATOR)  # no password, own work
    _submit(make_assignment(make_pair(Corpus.objects.get(name="c")), worker), {}, seconds=5)
    assert imported_accounts(["A", "invited", "worker", "nobody"]) == {"A"}
    get_user_model().objects.filter(username="A").update(last_login="2026-01-01T00:00Z")
    assert imported_accounts(["A"]) == set(), "signed in once: a person"
