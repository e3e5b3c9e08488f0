from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import IntegrityError, transaction
from django.utils import timezone

from annotate.exceptions import Conflict, DomainError
from annotate.models import Annotation, AnnotationEvent, Assignment
from annotate.services import annotations as svc
from annotate.services.corpora import corpus_import_records
from tests.annotate.factories import make_assignment, make_pair
from tests.annotate.records import make_record

pytestmark = pytest.mark.django_db


def _links(*items: tuple[int, int, str]) -> svc.LinkMap:
    return {(i, j): kind == "S" for i, j, kind in items}


def test_opening_an_assignment_copies_the_prefill_into_version_one() -> None:
    assignment = make_assignment()
    annotation = svc.annotation_open(assignment=assignment, actor=assignment.annotator)
    assert annotation.version == 1
    assert svc.annotation_links(annotation) == _links((1, 1, "S"), (3, 4, "P"))
    event = AnnotationEvent.objects.get(annotation=annotation)
    assert (event.kind, event.version) == ("created", 1)
    assert event.added == [[1, 1, "S"], [3, 4, "P"]]


def test_opening_twice_keeps_the_first_annotation() -> None:
    assignment = make_assignment()
    first = svc.annotation_open(assignment=assignment, actor=assignment.annotator)
    svc.annotation_save(assignment=assignment, actor=assignment.annotator, base_version=1, links={})
    again = svc.annotation_open(assignment=assignment, actor=assignment.annotator)
    assert again.pk == first.pk
    assert again.version == 2
    assert svc.annotation_links(again) == {}


def test_a_save_bumps_the_version_and_logs_added_and_removed_links() -> None:
    assignment = make_assignment()
    svc.annotation_open(assignment=assignment, actor=assignment.annotator)
    result = svc.annotation_save(
        assignment=assignment,
        actor=assignment.annotator,
        base_version=1,
        links=_links((1, 1, "P"), (0, 0, "S")),
    )
    assert result.changed and result.annotation.version == 2
    event = AnnotationEvent.objects.get(annotation=result.annotation, version=2)
    assert event.kind == "edited"
    assert event.added == [[0, 0, "S"], [1, 1, "P"]]
    assert event.removed == [[3, 4]]
    assert svc.annotation_links(result.annotation) == _links((1, 1, "P"), (0, 0, "S"))
    assignment.refresh_from_db()
    assert assignment.status == Assignment.Status.IN_PROGRESS
    assert assignment.started_at is not None


def test_a_save_on_a_stale_version_is_refused_with_the_server_state() -> None:
    assignment = make_assignment()
    svc.annotation_open(assignment=assignment, actor=assignment.annotator)
    svc.annotation_save(
        assignment=assignment, actor=assignment.annotator, base_version=1, links=_links((0, 0, "S"))
    )
    with pytest.raises(svc.StaleVersion) as caught:
        svc.annotation_save(
            assignment=assignment,
            actor=assignment.annotator,
            base_version=1,
            links=_links((5, 6, "S")),
        )
    assert caught.value.status_code == 409
    # The prefill's 1-1 and 3?4 were removed and 0-0 added: all three cells were looked at.
    assert caught.value.extra["server"] == {
        "version": 2,
        "links": [[0, 0, "S"]],
        "touched": [[0, 0], [1, 1], [3, 4]],
    }


def test_a_retried_save_that_already_went_through_is_not_a_conflict() -> None:
    assignment = make_assignment()
    svc.annotation_open(assignment=assignment, actor=assignment.annotator)
    links = _links((0, 0, "S"))
    svc.annotation_save(
        assignment=assignment, actor=assignment.annotator, base_version=1, links=links
    )
    again = svc.annotation_save(
        assignment=assignment, actor=assignment.annotator, base_version=1, links=links
    )
    assert not again.changed and again.annotation.version == 2


def test_saving_the_same_links_writes_no_new_version() -> None:
    assignment = make_assignment()
    annotation = svc.annotation_open(assignment=assignment, actor=assignment.annotator)
    result = svc.annotation_save(
        assignment=assignment,
        actor=assignment.annotator,
        base_version=1,
        links=svc.annotation_links(annotation),
    )
    assert not result.changed
    assert AnnotationEvent.objects.filter(annotation=annotation).count() == 1


def test_a_prefill_link_confirmed_unchanged_is_recorded_as_reviewed() -> None:
    assignment = make_assignment()  # prefill: 1-1 sure, 3?4 possible
    annotation = svc.annotation_open(assignment=assignment, actor=assignment.annotator)
    prefill = svc.annotation_links(annotation)
    assert svc.reviewed_cells(annotation) == set()
    result = svc.annotation_save(
        assignment=assignment,
        actor=assignment.annotator,
        base_version=1,
        links=prefill,
        reviewed=[(1, 1), (2, 2)],  # 2-2 is no link: nothing to confirm there
    )
    assert result.changed and result.annotation.version == 2
    assert svc.annotation_links(result.annotation) == prefill
    assert svc.reviewed_cells(annotation) == {(1, 1)}
    event = AnnotationEvent.objects.get(annotation=annotation, version=2)
    assert (event.added, event.removed, event.payload["reviewed"]) == ([], [], [[1, 1]])
    again = svc.annotation_save(
        assignment=assignment,
        actor=assignment.annotator,
        base_version=2,
        links=prefill,
        reviewed=[(1, 1)],
    )
    assert not again.changed and again.annotation.version == 2, "already recorded"


def test_a_save_records_confirmations_beside_its_changes_in_one_version() -> None:
    assignment = make_assignment()
    annotation = svc.annotation_open(assignment=assignment, actor=assignment.annotator)
    result = svc.annotation_save(
        assignment=assignment,
        actor=assignment.annotator,
        base_version=1,
        links=_links((1, 1, "S"), (3, 4, "P"), (0, 0, "S")),
        reviewed=[(3, 4), (0, 0)],  # 0-0 is a change, recorded as such
    )
    assert result.annotation.version == 2
    event = AnnotationEvent.objects.get(annotation=annotation, version=2)
    assert (event.added, event.payload["reviewed"]) == ([[0, 0, "S"]], [[3, 4]])
    assert svc.reviewed_cells(annotation) == {(0, 0), (3, 4)}


def test_submitting_accepts_every_link_and_imported_work_is_checked_work() -> None:
    assignment = make_assignment()  # prefill: 1-1 sure, 3?4 possible
    annotation = svc.annotation_open(assignment=assignment, actor=assignment.annotator)
    assert svc.reviewed_cells(annotation) == set()
    svc.annotation_submit(assignment=assignment, actor=assignment.annotator, base_version=1)
    assert svc.reviewed_cells(annotation) == {(1, 1), (3, 4)}, "the prefill left was accepted"

    corpus_import_records(
        corpus_name="imported", records=[make_record("x", annotations={"ann": "0-0 1?1"})]
    )
    imported = Annotation.objects.get(assignment__pair__corpus__name="imported")
    assert svc.reviewed_cells(imported) == {(0, 0), (1, 1)}


def test_a_stale_save_of_the_stored_links_still_records_its_confirmations() -> None:
    assignment = make_assignment()
    annotation = svc.annotation_open(assignment=assignment, actor=assignment.annotator)
    prefill = svc.annotation_links(annotation)
    svc.annotation_save(
        assignment=assignment,
        actor=assignment.annotator,
        base_version=1,
        links=prefill,
        reviewed=[(1, 1)],
    )
    other_tab = svc.annotation_save(
        assignment=assignment,
        actor=assignment.annotator,
        base_version=1,
        links=prefill,
        reviewed=[(3, 4)],
    )
    assert other_tab.changed and other_tab.annotation.version == 3
    assert svc.reviewed_cells(annotation) == {(1, 1), (3, 4)}


def test_it_rejects_links_outside_the_sentence() -> None:
    message = "links\\[1\\]: link 6-0 is outside the 6×7 sentence pair"
    with pytest.raises(svc.InvalidLinks, match=message):
        svc.links_parse([[0, 0, "S"], [6, 0, "P"]], n_source=6, n_target=7)


def test_it_rejects_a_link_given_twice_or_of_unknown_kind() -> None:
    with pytest.raises(svc.InvalidLinks, match="given twice"):
        svc.links_parse([[0, 0, "S"], [0, 0, "P"]], n_source=2, n_target=2)
    with pytest.raises(svc.InvalidLinks, match="expected"):
        svc.links_parse([[0, 0, "X"]], n_source=2, n_target=2)
    with pytest.raises(svc.InvalidLinks, match="expected"):
        svc.links_parse([{"i": 0, "j": 0, "k": "S"}], n_source=2, n_target=2)
    with pytest.raises(svc.InvalidLinks, match="integers"):
        svc.links_parse([["0", 0, "S"]], n_source=2, n_target=2)


def test_submitting_records_flags_comment_rating_and_an_event() -> None:
    assignment = make_assignment()
    svc.annotation_open(assignment=assignment, actor=assignment.annotator)
    annotation = svc.annotation_submit(
        assignment=assignment,
        actor=assignment.annotator,
        base_version=1,
        flags=["bad_tokenization"],
        comment="odd hyphen",
        rating=3.5,
    )
    assignment.refresh_from_db()
    assert assignment.status == Assignment.Status.SUBMITTED
    assert (annotation.flags, annotation.comment, annotation.rating) == (
        ["bad_tokenization"],
        "odd hyphen",
        3.5,
    )
    event = AnnotationEvent.objects.get(annotation=annotation, version=2)
    assert event.kind == "submitted"
    assert event.payload["rating"] == 3.5


def test_submitting_refuses_a_rating_outside_zero_to_five_and_unknown_flags() -> None:
    assignment = make_assignment()
    svc.annotation_open(assignment=assignment, actor=assignment.annotator)
    with pytest.raises(DomainError, match="between 0 and 5"):
        svc.annotation_submit(
            assignment=assignment, actor=assignment.annotator, base_version=1, rating=5.5
        )
    with pytest.raises(DomainError, match="unknown flag"):
        svc.annotation_submit(
            assignment=assignment, actor=assignment.annotator, base_version=1, flags=["typo"]
        )


def test_a_submitted_pair_cannot_be_edited_until_reopened() -> None:
    assignment = make_assignment()
    svc.annotation_open(assignment=assignment, actor=assignment.annotator)
    svc.annotation_submit(assignment=assignment, actor=assignment.annotator, base_version=1)
    with pytest.raises(svc.AlreadySubmitted):
        svc.annotation_save(
            assignment=assignment, actor=assignment.annotator, base_version=2, links={}
        )
    reopened = svc.annotation_reopen(assignment=assignment, actor=assignment.annotator)
    assert reopened.version == 3
    result = svc.annotation_save(
        assignment=assignment, actor=assignment.annotator, base_version=3, links={}
    )
    assert result.annotation.version == 4
    kinds = list(AnnotationEvent.objects.filter(annotation=reopened).values_list("kind", flat=True))
    assert kinds == ["created", "submitted", "reopened", "edited"]


def test_active_time_counts_short_gaps_and_skips_idle_ones() -> None:
    assignment = make_assignment()
    start = timezone.now()
    svc.annotation_open(assignment=assignment, actor=assignment.annotator, now=start)
    svc.activity_heartbeat(assignment=assignment, now=start + timedelta(seconds=20))
    svc.activity_heartbeat(assignment=assignment, now=start + timedelta(seconds=45))
    # a 90-second pause (reading mail, another tab) counts nothing
    svc.activity_heartbeat(assignment=assignment, now=start + timedelta(seconds=45 + 90))
    svc.annotation_save(
        assignment=assignment,
        actor=assignment.annotator,
        base_version=1,
        links={},
        now=start + timedelta(seconds=45 + 90 + 30),
    )
    assignment.refresh_from_db()
    assert assignment.active_seconds == pytest.approx(20 + 25 + 30)


def test_saves_and_heartbeats_holding_a_stale_assignment_lose_no_active_time() -> None:
    """Two requests of one assignment read it before either writes (two tabs, a save and a
    heartbeat): each service call reads the row again under its lock
    (``select_for_update``; SQLite's transactions take the write lock at their start) and adds
    its own gap to the time the other stored, rather than to the time of its stale copy."""
    assignment = make_assignment()
    start = timezone.now()
    svc.annotation_open(assignment=assignment, actor=assignment.annotator, now=start)
    # three requests read the assignment before any of them writes
    one, two, three = (Assignment.objects.get(pk=assignment.pk) for _ in range(3))
    svc.activity_heartbeat(assignment=one, now=start + timedelta(seconds=10))
    # 90 s after the last sign of activity: a pause, which counts nothing
    svc.annotation_save(
        assignment=two,
        actor=assignment.annotator,
        base_version=1,
        links={},
        now=start + timedelta(seconds=100),
    )
    svc.activity_heartbeat(assignment=three, now=start + timedelta(seconds=110))
    assignment.refresh_from_db()
    assert assignment.active_seconds == pytest.approx(10 + 10)


def test_heartbeats_to_several_pairs_at_once_count_the_wall_clock_time_once() -> None:
    first = make_assignment()
    second = make_assignment(make_pair(), annotator=first.annotator)
    start = timezone.now()
    for assignment in (first, second):
        svc.annotation_open(assignment=assignment, actor=first.annotator, now=start)
    # two windows, each sending a heartbeat every 5 s, offset by 2 s, for 20 s
    for k in range(1, 5):
        svc.activity_heartbeat(assignment=first, now=start + timedelta(seconds=5 * k))
        svc.activity_heartbeat(assignment=second, now=start + timedelta(seconds=5 * k + 2))
    first.refresh_from_db()
    second.refresh_from_db()
    assert first.active_seconds + second.active_seconds == pytest.approx(22)


def test_another_annotators_activity_does_not_shorten_ones_time() -> None:
    mine = make_assignment()
    theirs = make_assignment(mine.pair)
    start = timezone.now()
    svc.annotation_open(assignment=mine, actor=mine.annotator, now=start)
    svc.annotation_open(assignment=theirs, actor=theirs.annotator, now=start + timedelta(seconds=9))
    svc.activity_heartbeat(assignment=mine, now=start + timedelta(seconds=10))
    mine.refresh_from_db()
    assert mine.active_seconds == pytest.approx(10)


def test_reopening_a_pair_minutes_later_adds_no_time() -> None:
    assignment = make_assignment()
    start = timezone.now()
    svc.annotation_open(assignment=assignment, actor=assignment.annotator, now=start)
    svc.annotation_open(
        assignment=assignment, actor=assignment.annotator, now=start + timedelta(minutes=4)
    )
    assignment.refresh_from_db()
    assert assignment.active_seconds == 0


def test_the_event_log_stays_append_only() -> None:
    assignment = make_assignment()
    annotation = svc.annotation_open(assignment=assignment, actor=assignment.annotator)
    with pytest.raises(IntegrityError), transaction.atomic():
        AnnotationEvent.objects.filter(annotation=annotation).update(kind="edited")


def test_a_pair_without_prefill_opens_empty() -> None:
    assignment = make_assignment(make_pair(prefill=None))
    annotation = svc.annotation_open(assignment=assignment, actor=assignment.annotator)
    assert svc.annotation_links(annotation) == {}
    assert AnnotationEvent.objects.get(annotation=annotation).payload == {"from": "empty"}


def test_clearing_a_block_removes_every_link_of_it_in_one_version() -> None:
    assignment = make_assignment()
    svc.annotation_open(assignment=assignment, actor=assignment.annotator)
    result = svc.annotation_save(
        assignment=assignment, actor=assignment.annotator, base_version=1, links={}
    )
    assert svc.annotation_links(result.annotation) == {}
    event = AnnotationEvent.objects.get(annotation=result.annotation, version=2)
    assert event.removed == [[1, 1], [3, 4]] and event.added == []
    assert result.status == Assignment.Status.IN_PROGRESS


def test_a_submitted_trial_pair_is_final_so_its_gold_cannot_be_copied_back() -> None:
    pair = make_pair(split="trial", gold=[(1, 1, True)])
    assignment = make_assignment(pair)
    user = assignment.annotator
    svc.annotation_open(assignment=assignment, actor=user)
    svc.annotation_submit(assignment=assignment, actor=user, base_version=1)
    with pytest.raises(Conflict, match="trial pair is final"):
        svc.annotation_reopen(assignment=assignment, actor=user)
    assignment.refresh_from_db()
    assert assignment.status == Assignment.Status.SUBMITTED
