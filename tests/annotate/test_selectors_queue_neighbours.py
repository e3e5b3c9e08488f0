"""The previous, next and next open pair of an annotator's queue (corpus name, then position),
found near the pair instead of by reading the whole queue: an annotator of a large campaign
holds tens of thousands of assignments, and every open and submit asks for them."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from annotate import roles
from annotate.models import Assignment, Corpus
from annotate.selectors.workspace import neighbours, next_open_assignment
from tests.annotate.factories import make_assignment, make_corpus, make_pair, make_user

pytestmark = pytest.mark.django_db


def _campaign(alice: Any) -> list[Assignment]:
    """Alice's pairs in three corpora created out of name order, every other pair of each
    corpus hers (bob holds the rest), some submitted; returned in queue order."""
    bob = make_user("bob", roles.ANNOTATOR)
    for name in ("mid", "alpha", "zulu"):
        corpus = make_corpus(name)
        for k in range(6):
            make_assignment(make_pair(corpus, prefill=None), alice if k % 2 else bob)
    mine = list(
        Assignment.objects.filter(annotator=alice).order_by("pair__corpus__name", "pair__position")
    )
    for index in (0, 1, 4, 8):
        mine[index].status = Assignment.Status.SUBMITTED
        mine[index].save(update_fields=["status"])
    return mine


def _reference_next_open(queue: list[Assignment], after: Assignment) -> int | None:
    """The first not submitted after ``after`` in queue order, wrapping round to itself."""
    start = queue.index(after)
    ordered = queue[start + 1 :] + queue[: start + 1]
    return next((a.pk for a in ordered if a.status != Assignment.Status.SUBMITTED), None)


def test_each_pair_has_the_neighbours_and_next_open_pair_of_the_whole_queue_in_order() -> None:
    alice = make_user("alice", roles.ANNOTATOR)
    queue = _campaign(alice)
    assert [a.pair.corpus.name for a in queue] == ["alpha"] * 3 + ["mid"] * 3 + ["zulu"] * 3
    for index, assignment in enumerate(queue):
        assignment = Assignment.objects.select_related("pair__corpus").get(pk=assignment.pk)
        previous = queue[index - 1].pk if index else None
        following = queue[index + 1].pk if index + 1 < len(queue) else None
        assert neighbours(user=alice, assignment=assignment) == (previous, following)
        assert next_open_assignment(user=alice, after=assignment) == _reference_next_open(
            queue, assignment
        )


def test_an_archived_corpus_is_left_out_of_the_queue_but_its_own_pairs_still_chain() -> None:
    alice = make_user("alice", roles.ANNOTATOR)
    queue = _campaign(alice)
    Corpus.objects.filter(name="mid").update(archived_at=timezone.now())
    middle = Assignment.objects.select_related("pair__corpus").get(pk=queue[4].pk)
    assert neighbours(user=alice, assignment=middle) == (queue[3].pk, queue[5].pk)
    # from an archived pair, the first open pair of the queue
    assert next_open_assignment(user=alice, after=middle) == queue[2].pk
    last_alpha = Assignment.objects.select_related("pair__corpus").get(pk=queue[2].pk)
    assert neighbours(user=alice, assignment=last_alpha) == (queue[1].pk, queue[6].pk)
    assert next_open_assignment(user=alice, after=last_alpha) == queue[6].pk


def test_finding_them_reads_a_row_at_a_time_never_the_whole_queue() -> None:
    alice = make_user("alice", roles.ANNOTATOR)
    queue = _campaign(alice)
    assignment = Assignment.objects.select_related("pair__corpus").get(pk=queue[4].pk)
    with CaptureQueriesContext(connection) as captured:
        neighbours(user=alice, assignment=assignment)
        next_open_assignment(user=alice, after=assignment)
    reads = [q["sql"] for q in captured.captured_queries if "annotate_assignment" in q["sql"]]
    assert reads and all("LIMIT 1" in sql for sql in reads), reads
