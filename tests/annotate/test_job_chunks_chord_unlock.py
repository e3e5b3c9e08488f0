"""Celery's ``chord_unlock`` (polling for a chord's end on the embedded defaults' results
file) stops once its job ended long ago, instead of sending itself again four times a second
for ever when a killed worker took some of the job's chunks with it."""

from __future__ import annotations

from datetime import timedelta

import pytest
from celery import uuid
from celery.exceptions import Retry
from celery.result import AsyncResult
from django.utils import timezone

from annotate.job_chunks import CHORD_ABANDON_SECONDS
from annotate.models import Job
from annotate.services.prefill_chunks import prefill_finish
from config.celery import app
from tests.annotate.factories import make_corpus

pytestmark = pytest.mark.django_db


def _unlock(job_id: int) -> object:
    """One poll of a chord whose only chunk never ran (no result stored for it)."""
    unlock = app.tasks["celery.chord_unlock"]
    callback = prefill_finish.s(job_id, {"aligner": "identity"})
    return unlock.run(
        uuid(), dict(callback), interval=0.25, result=[AsyncResult(uuid()).as_tuple()]
    )


def _job(status: str, ended_seconds_ago: float | None) -> Job:
    job = Job.objects.create(kind="prefill", corpus=make_corpus(), status=status)
    if ended_seconds_ago is not None:
        ended = timezone.now() - timedelta(seconds=ended_seconds_ago)
        Job.objects.filter(pk=job.pk).update(created_at=ended, finished_at=ended)
    return job


def test_the_unlock_of_a_job_that_failed_long_ago_stops_polling() -> None:
    job = _job(Job.Status.FAILED, CHORD_ABANDON_SECONDS + 60)
    assert _unlock(job.pk) is None


def test_the_unlock_of_a_job_deleted_since_stops_polling() -> None:
    job = _job(Job.Status.CANCELLED, None)
    job_id = job.pk
    job.delete()
    assert _unlock(job_id) is None


@pytest.mark.parametrize(
    ("status", "ended_seconds_ago"),
    [(Job.Status.RUNNING, None), (Job.Status.CANCELLED, 5), (Job.Status.FAILED, 60)],
)
def test_the_unlock_of_a_running_or_just_ended_job_waits_for_its_chunks(
    status: str, ended_seconds_ago: float | None
) -> None:
    """Chunks still queued when a job is cancelled run (returning nothing) and the callback
    then records what the job wrote: the unlock goes on polling meanwhile."""
    job = _job(status, ended_seconds_ago)
    with pytest.raises(Retry):
        _unlock(job.pk)


@pytest.mark.usefixtures("eager_chunks")
@pytest.mark.filterwarnings("ignore:Results are not stored in backend:RuntimeWarning")
def test_an_abandoned_prefill_chord_records_what_its_ended_chunks_wrote() -> None:
    """A prefill whose worker was killed after some of its chunks wrote: the failed job says
    how many pairs got its prefill, once its chord stops waiting for the chunks that died."""
    job = _job(Job.Status.FAILED, CHORD_ABANDON_SECONDS + 60)
    ended = uuid()
    app.backend.store_result(ended, {"written": [1, 2, 3], "links": 7}, "SUCCESS")
    callback = prefill_finish.s(job.pk, {"aligner": "em"})
    lost = AsyncResult(uuid()).as_tuple()
    result = [AsyncResult(ended).as_tuple(), lost]
    unlock = app.tasks["celery.chord_unlock"]
    assert unlock.run(uuid(), dict(callback), interval=0.25, result=result) is None
    job.refresh_from_db()
    assert job.status == Job.Status.FAILED
    assert job.result == {"aligner": "em", "prefilled_pairs": 3, "links": 7}


def test_a_database_error_while_asking_whether_the_job_ended_keeps_the_chord_polling(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A transient database error (a restart, a locked SQLite file) in one of the polls, four a
    second for the job's whole run, must not end the chord: Celery's own unlock retries the
    poll on its errors, and a chord whose unlock raised never calls its callback, so a job
    whose chunks all wrote would be left running until the reaper fails it."""
    from django.db import OperationalError

    job = _job(Job.Status.RUNNING, None)

    def broken(*args: object, **kwargs: object) -> object:
        raise OperationalError("server closed the connection unexpectedly")

    monkeypatch.setattr(Job.objects, "filter", broken)
    with pytest.raises(Retry):
        _unlock(job.pk)
