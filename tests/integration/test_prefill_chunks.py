"""A prefill job on real workers: the runner trains and saves the model, its chunks align and
write on whichever worker takes them, and the chord's callback finishes the job.

The runner runs on a worker of the default queue alone, so the chunks wait in their queue
until the test starts a worker for them: what happens meanwhile (a pair opened, a cancel) is
not a race with them."""

from __future__ import annotations

import os
import random
import signal
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone

from annotate.models import Assignment, AutoAlignment, AutoLink, Corpus, Job, JobChunk, SentencePair
from annotate.services.annotations import annotation_open
from annotate.services.corpora import corpus_import_records
from annotate.services.jobs import job_cancel, jobs_reap_stale
from annotate.services.prefill import prefill_job_create, prefill_run
from annotate.services.prefill_chunks import prefill_models_clean
from scoring.alignment.links import Alignment
from scoring.corpus import AnnotationRecord, PairRecord
from tests.annotate.agreement_data import agreement_records
from tests.integration.conftest import (
    EMBEDDED,
    broker_connection,
    broker_urls,
    embedded_broker_url,
    wait_until,
)

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

#: Far away: whatever ends a job here, it is not a stale heartbeat unless the test says so.
NO_REAPING = {"JOB_HEARTBEAT_TIMEOUT_SECONDS": "3600"}
EM = {"model1_iterations": 2, "hmm_iterations": 2}


def _queue(job_of: Any, broker: str, tmp_path: Path, capture: Any) -> Job:
    """Create the job (``job_of()``) and send its runner to the broker the workers consume."""
    suite = broker_urls()[0]
    with capture(execute=broker == suite):
        job = job_of()
    if broker != suite:  # this process publishes to the suite's broker: send it to the worker's
        url = embedded_broker_url(tmp_path) if broker == EMBEDDED else broker
        with broker_connection(url) as connection:
            prefill_run.apply_async((job.pk,), connection=connection)
    return job


def _deferred(job: Job, worker: Any) -> None:
    def handed_to_chunks() -> bool:
        job.refresh_from_db()
        return job.deferred or job.is_finished

    wait_until(handed_to_chunks, 180, f"prefill job {job.pk} to send its chunks", worker)
    assert job.status == Job.Status.RUNNING, job.error


def _handed_to_chunks(
    start_worker: Any, broker: str, tmp_path: Path, capture: Any, job_of: Any, chunk_pairs: int
) -> tuple[Job, dict[str, str], Any]:
    """A worker of the default queue alone runs the job (``job_of()``) until it has trained,
    saved its model and sent its chunks; the job, the workers' environment and that worker."""
    env = {**NO_REAPING, "PREFILL_CHUNK_PAIRS": str(chunk_pairs)}
    trainer = start_worker(broker, queues="celery", **env)
    job = _queue(job_of, broker, tmp_path, capture)
    _deferred(job, trainer)
    return job, env, trainer


def _model_file(tmp_path: Path, job: Job) -> Path:
    return tmp_path / "var" / "exports" / "prefill-models" / f"job-{job.pk}.npz"


def _corpus(pairs: int) -> Corpus:
    records = agreement_records(pairs=pairs, seed=11)
    for index, record in enumerate(records):
        del record.annotations["ann3"]
        if index % 4 == 0:
            record.gold_alignment = record.annotations["ann1"].alignment
    corpus_import_records(corpus_name="big", records=records)
    return Corpus.objects.get(name="big")


@pytest.mark.parametrize("broker", broker_urls())
def test_a_prefill_of_several_chunks_prefills_every_pair_but_one_opened_meanwhile(
    start_worker, broker, tmp_path, django_capture_on_commit_callbacks
) -> None:
    corpus = _corpus(50)
    job, env, trainer = _handed_to_chunks(
        start_worker,
        broker,
        tmp_path,
        django_capture_on_commit_callbacks,
        lambda: prefill_job_create(corpus=corpus, aligner="em", options=EM),
        chunk_pairs=20,
    )
    assert _model_file(tmp_path, job).is_file()
    assert job.message == "aligning 50 pairs in 3 chunk(s)"
    # an annotator opens a pair the job chose, before its chunk writes
    opened = SentencePair.objects.filter(corpus=corpus).order_by("position")[25]
    user = get_user_model().objects.create(username="late")
    annotation_open(assignment=Assignment.objects.create(pair=opened, annotator=user), actor=user)

    start_worker(broker, concurrency=2, **env)

    def finished() -> bool:
        job.refresh_from_db()
        return job.is_finished

    wait_until(finished, 180, f"prefill job {job.pk}", trainer)
    assert job.status == Job.Status.SUCCEEDED, job.error
    result = job.result
    assert (result["prefilled_pairs"], result["skipped_started_pairs"]) == (49, 1)
    assert (result["trained_on_pairs"], result["aligner"]) == (50, "em")
    written = AutoAlignment.objects.filter(pair__corpus=corpus, aligner="em")
    assert written.count() == 49 and not written.filter(pair=opened).exists()
    assert result["links"] == AutoLink.objects.filter(alignment__in=written).count()
    assert result["evaluation"]["pairs"] == 13, "the pairs with gold (every fourth)"
    assert not _model_file(tmp_path, job).exists(), "the callback removed the model"


@pytest.mark.parametrize("broker", broker_urls())
def test_a_cancel_stops_the_chunks_and_the_model_goes(
    start_worker, broker, tmp_path, django_capture_on_commit_callbacks
) -> None:
    corpus = _corpus(50)
    job, env, _ = _handed_to_chunks(
        start_worker,
        broker,
        tmp_path,
        django_capture_on_commit_callbacks,
        lambda: prefill_job_create(corpus=corpus, aligner="em", options=EM),
        chunk_pairs=20,
    )
    assert job_cancel(job=job)
    chunker = start_worker(broker, **env)

    log = Path(chunker.log_path)
    wait_until(lambda: "had ended" in log.read_text(), 120, "the chord's callback", chunker)
    job.refresh_from_db()
    assert job.status == Job.Status.CANCELLED
    assert job.result == {"aligner": "em", "prefilled_pairs": 0, "links": 0}
    assert not AutoAlignment.objects.filter(pair__corpus=corpus, aligner="em").exists()
    assert not _model_file(tmp_path, job).exists()
    assert "is no longer running; its chunk stopped" in log.read_text()
    errors = [line for line in log.read_text().splitlines() if "ERROR" in line]
    assert errors == []


def _long_records(pairs: int) -> list[PairRecord]:
    """Pairs of 40 words: WordNet's matches keep a chunk of them computing for seconds."""
    rng = random.Random(5)
    words = [
        w.strip()
        for w in "house home garden yard river stream stone rock quick fast "
        "big large small little car automobile road street run walk".split()
    ]
    out = []
    for index in range(pairs):
        source = [rng.choice(words) for _ in range(40)]
        target = [rng.choice(words) for _ in range(40)]
        done = Alignment.from_links(40, 40, [(k, k) for k in range(40)])
        out.append(
            PairRecord(
                id=f"l{index}",
                source_tokens=source,
                target_tokens=target,
                annotations={"ann1": AnnotationRecord(alignment=done)},
            )
        )
    return out


@pytest.mark.parametrize("broker", broker_urls())
def test_a_prefill_whose_chunk_died_with_its_worker_is_failed_by_the_reaper(
    start_worker, broker, tmp_path, settings, django_capture_on_commit_callbacks
) -> None:
    """The chunk's worker killed outright (its whole process group: no supervisor sees it):
    the chunk is still marked computing, so the reaper fails the job once its heartbeat is
    stale, rather than leaving it running; the clean-up then removes its model."""
    corpus_import_records(corpus_name="long", records=_long_records(1500))
    corpus = Corpus.objects.get(name="long")
    job, env, _ = _handed_to_chunks(
        start_worker,
        broker,
        tmp_path,
        django_capture_on_commit_callbacks,
        lambda: prefill_job_create(corpus=corpus, aligner="lexical"),
        chunk_pairs=1500,
    )
    chunker = start_worker(broker, **env)

    def chunk_computing() -> bool:
        return JobChunk.objects.filter(job_id=job.pk).exists()

    wait_until(chunk_computing, 120, f"the chunk of prefill job {job.pk}", chunker)
    time.sleep(0.5)  # into the aligning, which takes several seconds
    os.killpg(chunker.pid, signal.SIGKILL)
    chunker.wait(timeout=30)
    assert not AutoAlignment.objects.filter(pair__corpus=corpus, aligner="lexical").exists()

    settings.JOB_HEARTBEAT_TIMEOUT_SECONDS = 60
    assert jobs_reap_stale() == 0, "its heartbeat is fresh"
    assert jobs_reap_stale(now=timezone.now() + timedelta(seconds=61)) == 1
    job.refresh_from_db()
    assert job.status == Job.Status.FAILED
    assert "stopped while computing a chunk of it" in job.error
    assert not JobChunk.objects.filter(job_id=job.pk).exists()

    settings.EXPORT_DIR = tmp_path / "var" / "exports"
    assert _model_file(tmp_path, job).is_file(), "no callback ran"
    assert prefill_models_clean() == 1
    assert not _model_file(tmp_path, job).exists()
