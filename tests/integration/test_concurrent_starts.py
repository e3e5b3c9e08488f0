"""Two people pressing the same button at one moment, on PostgreSQL, where (unlike SQLite's
one writer at a time) their transactions run side by side: two admins planning one corpus get
one merged plan (and a hand-over waits for a plan), and two bulk accepts of one corpus queue
one job, the second press refused with a clear message; never a database error.

The first press is held open inside its transaction until the second has started and waits
for a lock (or has finished, as it did without one), so the race is the same on every run."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

import pytest
from django.db import connection, transaction

from annotate import roles
from annotate.exceptions import Conflict
from annotate.models import Assignment, Corpus, Job
from annotate.selectors.adjudication import AdjudicationFilters
from annotate.services import adjudication_bulk
from annotate.services.adjudication_bulk import adjudication_accept_job_create
from annotate.services.assignments import assignments_hand_over, assignments_plan
from annotate.services.corpora import corpus_import_records
from tests.annotate.factories import make_user
from tests.annotate.records import make_record

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def _closing(work: Callable[[], Any]) -> Callable[[], Any]:
    def run() -> Any:
        try:
            return work()
        finally:
            connection.close()

    return run


def _race(first: Callable[[], Any], second: Callable[[], Any]) -> tuple[Any, Future[Any]]:
    """Run ``first`` in a transaction of its own kept open until ``second`` (on another
    connection) waits for a lock or has ended; then commit it. Returns first's result and
    second's future, done."""
    started, release = threading.Event(), threading.Event()

    def held() -> Any:
        with transaction.atomic():
            result = first()
            started.set()
            assert release.wait(30)
        return result

    with ThreadPoolExecutor(2) as pool:
        one = pool.submit(_closing(held))
        assert started.wait(30), "the first press did not get through"
        two = pool.submit(_closing(second))
        deadline = time.monotonic() + 15
        while not two.done() and not _someone_waits_for_a_lock() and time.monotonic() < deadline:
            time.sleep(0.05)
        release.set()
        return one.result(30), _settled(two)


def _settled(future: Future[Any]) -> Future[Any]:
    future.exception(30)  # waits; the caller reads the result or the error
    return future


def _someone_waits_for_a_lock() -> bool:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
            "AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()"
        )
        return bool(cursor.fetchone()[0])


@pytest.fixture
def corpus() -> Corpus:
    if connection.vendor != "postgresql":
        pytest.fail("the integration suite runs on PostgreSQL: set DATABASE_URL=postgres://...")
    records = [
        make_record(f"p{k}", "a b c", "a b c", prefill=None, annotations={"A": "0-0", "B": "0-0"})
        for k in range(6)
    ]
    corpus_import_records(corpus_name="c", records=records)
    return Corpus.objects.get(name="c")


def test_two_plans_of_one_corpus_at_one_moment_merge_into_one(corpus: Corpus) -> None:
    team = [make_user(name, roles.ANNOTATOR) for name in ("alice", "bob")]

    def plan(seed: int) -> Callable[[], Any]:
        return lambda: assignments_plan(corpus=corpus, annotators=team, per_pair=2, seed=seed)

    first, second = _race(plan(1), plan(2))
    assert first.created == 12
    report = second.result()  # not an IntegrityError
    assert (report.created, report.covered) == (0, 6), "it read the first plan's assignments"
    planned = Assignment.objects.filter(pair__corpus=corpus, annotator__in=team)
    assert planned.count() == 12


def test_a_hand_over_during_a_plan_of_its_corpus_waits_for_it(corpus: Corpus) -> None:
    alice, bob = (make_user(name, roles.ANNOTATOR) for name in ("alice", "bob"))
    Assignment.objects.bulk_create(
        Assignment(pair=pair, annotator=alice) for pair in corpus.pairs.all()
    )

    def plan() -> Any:  # bob joins alice on every pair
        return assignments_plan(corpus=corpus, annotators=[alice, bob], per_pair=2, seed=1)

    def hand_over() -> Any:  # alice hands her pairs to bob
        return assignments_hand_over(corpus=corpus, from_user=alice, to=[bob])

    first, second = _race(plan, hand_over)
    assert first.created == 6
    assert second.result() == {"moved": 0, "stuck": 6, "kept": 0}, "bob has every pair already"
    assert Assignment.objects.filter(annotator__in=[alice, bob]).count() == 12


@pytest.mark.parametrize("second_owner", ["carol", "dave"])
def test_two_bulk_accepts_of_one_corpus_at_one_moment_queue_one_job(
    corpus: Corpus, second_owner: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    people = {name: make_user(name, roles.ADJUDICATOR) for name in ("carol", "dave")}
    monkeypatch.setattr(adjudication_bulk.adjudication_accept_run, "send", lambda job_id: True)
    filters = AdjudicationFilters(corpus=corpus.pk)

    def press(name: str) -> Callable[[], Any]:
        return lambda: adjudication_accept_job_create(filters=filters, owner=people[name])

    job, second = _race(press("carol"), press(second_owner))
    with pytest.raises(Conflict, match=f"bulk accept #{job.pk} .*is still pending"):
        second.result()
    assert list(Job.objects.values_list("pk", flat=True)) == [job.pk]
