"""Agreement reports of a stored corpus: the service over scoring.alignment.reports."""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest
from django.core.management import call_command

from annotate.models import Corpus
from annotate.services.agreement import (
    AgreementReportError,
    agreement_compute,
    agreement_job_create,
    agreement_params,
    agreement_records,
)
from annotate.services.corpora import corpus_import_records
from scoring.alignment.reports import build_report
from tests.annotate.agreement_data import agreement_records as synthetic

pytestmark = [pytest.mark.django_db, pytest.mark.postgres]


@pytest.fixture
def corpus() -> Corpus:
    corpus_import_records(corpus_name="agr", records=synthetic())
    return Corpus.objects.get(name="agr")


def test_records_carry_only_the_chosen_annotators_submitted_work(corpus: Corpus) -> None:
    records = agreement_records(corpus, ["ann1", "ann3"])
    assert len(records) == 24
    assert all(set(r.annotations) == {"ann1"} for r in records), "ann3's work is in progress"


def test_the_stored_corpus_gives_the_same_report_as_the_records_it_came_from(
    corpus: Corpus,
) -> None:
    params = agreement_params({"samples": 50}, 11)
    stored = agreement_compute(corpus=corpus, annotators=["ann1", "ann2"], params=params)
    records = synthetic()
    for record in records:
        del record.annotations["ann3"]  # in progress: not part of the stored report
    direct = build_report(records, ["ann1", "ann2"], params=params).to_dict()
    assert stored["corpus"] == "agr"
    pair = stored["annotator_pairs"][0]
    assert pair == direct["annotator_pairs"][0]
    assert stored["table5"] == direct["table5"]
    assert pair["table4"]["overall"]["c_hat"]["poss"]["c_hat"] is not None
    assert stored["signature"]["seed"] == 11


def test_the_command_takes_the_chance_model_and_sub_corpora(corpus: Corpus, tmp_path) -> None:
    output = tmp_path / "report.json"
    call_command(
        "agreement_report",
        corpus="agr",
        annotators=["ann1", "ann2"],
        samples=20,
        chance_model="density",
        subcorpora=["news"],
        output=output,
        verbosity=0,
    )
    report = json.loads(output.read_text())
    assert report["signature"]["chance_model"] == "density"
    params = agreement_params({"samples": 20}, 0)
    direct = agreement_compute(
        corpus=corpus,
        annotators=["ann1", "ann2"],
        params=params,
        chance_model="density",
        subcorpora=["news"],
    )
    assert report["annotator_pairs"] == direct["annotator_pairs"]
    everything = agreement_compute(corpus=corpus, annotators=["ann1", "ann2"], params=params)
    assert direct["annotator_pairs"] != everything["annotator_pairs"], "only the sub-corpus"


def test_a_report_needs_two_known_annotators(corpus: Corpus) -> None:
    params = agreement_params({"samples": 10}, 0)
    with pytest.raises(AgreementReportError, match="at least two"):
        agreement_compute(corpus=corpus, annotators=["ann1"], params=params)
    with pytest.raises(AgreementReportError, match="no user named 'zed'"):
        agreement_compute(corpus=corpus, annotators=["ann1", "zed"], params=params)
    with pytest.raises(AgreementReportError, match="no user named 'zed'"):
        agreement_job_create(corpus=corpus, annotators=["ann1", "zed"])


def test_a_failed_chunk_fails_the_job_with_its_reason(corpus: Corpus) -> None:
    from annotate.jobs_runtime import JobCancelled, job_claim
    from annotate.models import Job
    from annotate.services.agreement import agreement_failed

    job = Job.objects.create(kind="agreement_report", corpus=corpus)
    job_claim(job_id=job.pk, worker="w")
    agreement_failed(None, JobCancelled("cancelled"), None, job.pk)
    job.refresh_from_db()
    assert job.status == "running", "a cancelled chunk leaves the job's state to the cancel"
    agreement_failed(None, MemoryError("out of memory"), None, job.pk)
    job.refresh_from_db()
    assert job.status == "failed"
    assert job.error == "a chunk of the Monte Carlo failed: out of memory"


def test_a_chunk_stopped_by_a_cancel_fails_nothing_and_logs_no_error(
    corpus: Corpus, caplog: pytest.LogCaptureFixture
) -> None:
    """Celery hands the chord's error callback a ``ChordError`` naming the chunk's
    ``JobCancelled``, not the exception itself."""
    from celery.exceptions import ChordError

    from annotate.jobs_runtime import job_claim
    from annotate.models import Job
    from annotate.services.agreement import agreement_failed
    from annotate.services.jobs import job_cancel

    job = Job.objects.create(kind="agreement_report", corpus=corpus)
    job_claim(job_id=job.pk, worker="w")
    job_cancel(job=job)
    with caplog.at_level(logging.INFO, logger="annotate.services.agreement"):
        agreement_failed(
            None, ChordError(f"JobCancelled('job {job.pk} is no longer running')"), None, job.pk
        )
    job.refresh_from_db()
    assert job.status == "cancelled" and job.error == ""
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]


def _run_report_job_here(
    corpus: Corpus, monkeypatch: pytest.MonkeyPatch, between: Any = None, chunk_pairs: int = 50
) -> tuple[Any, list[Any]]:
    """Start a report job whose chord is run in this process, chunk by chunk as a worker
    would call the tasks (``between`` runs after the snapshot is taken); the job and the
    chunk signatures."""
    from annotate.jobs_runtime import job_claim
    from annotate.services import agreement as service

    sent: dict[str, Any] = {}
    monkeypatch.setattr(service, "chord", lambda header: lambda body: sent.update(header=header))
    job = agreement_job_create(
        corpus=corpus, annotators=["ann1", "ann2"], samples=20, seed=3, chunk_pairs=chunk_pairs
    )
    assert job_claim(job_id=job.pk, worker="here")
    service.agreement_run.runner(job, lambda percent, message: None)
    if between is not None:
        between()
    header = sent["header"]
    chunks = [signature() for signature in header]  # the task bodies, called here
    models = header[0].args[2]
    service.agreement_finish_report(job_id=job.pk, chunk_results=chunks, models_json=models)
    job.refresh_from_db()
    return job, header


def test_a_reports_chunks_and_callback_wait_in_their_own_queue_not_ahead_of_other_jobs(
    corpus: Corpus, monkeypatch: pytest.MonkeyPatch, settings: Any
) -> None:
    """On a campaign's corpus a report sent some sixty chunks at once; in the default queue
    every export, prefill and deletion queued after it waited for the whole report. In a queue
    of their own, which a worker takes from in turn with the default one, they share the slots.
    """
    from annotate.jobs_runtime import job_claim, job_queue
    from annotate.services import agreement as service

    sent: dict[str, Any] = {}
    monkeypatch.setattr(
        service, "chord", lambda header: lambda body: sent.update(header=header, body=body)
    )
    job = agreement_job_create(
        corpus=corpus, annotators=["ann1", "ann2"], samples=20, seed=3, chunk_pairs=5
    )
    assert job_claim(job_id=job.pk, worker="here")
    service.agreement_run.runner(job, lambda percent, message: None)

    assert len(sent["header"]) > 1
    assert {signature.options.get("queue") for signature in sent["header"]} == {
        settings.CHUNK_QUEUE
    }
    assert sent["body"].options.get("queue") == settings.CHUNK_QUEUE
    errback = sent["body"].options["link_error"][0]
    assert errback["options"].get("queue") == settings.CHUNK_QUEUE
    assert settings.CHUNK_QUEUE != settings.CELERY_TASK_DEFAULT_QUEUE
    assert job_queue("export") == settings.CELERY_TASK_DEFAULT_QUEUE
    assert settings.CHUNK_QUEUE in settings.CELERY_TASK_QUEUES


def test_a_report_job_reads_the_snapshot_taken_when_it_started(
    corpus: Corpus, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Edits saved while the Monte Carlo runs do not mix into the report."""
    from annotate.models import AnnotationLink, Job

    before = agreement_compute(
        corpus=corpus, annotators=["ann1", "ann2"], params=agreement_params({"samples": 20}, 3)
    )

    def an_annotator_changes_their_work() -> None:
        AnnotationLink.objects.filter(annotation__assignment__annotator__username="ann2").delete()

    job, _ = _run_report_job_here(corpus, monkeypatch, an_annotator_changes_their_work)
    assert job.snapshot_at is not None and len(job.snapshot) == 24
    assert job.parameters["chance_model"] == "prefill"
    report = job.result
    assert report["snapshot_at"] == job.snapshot_at.isoformat()
    assert report["annotator_pairs"][0]["table3"] == before["annotator_pairs"][0]["table3"]
    assert Job.objects.get(pk=job.pk).status == "succeeded"


def test_each_chunk_parses_only_its_own_lines_of_the_snapshot(
    corpus: Corpus, monkeypatch: pytest.MonkeyPatch
) -> None:
    from annotate.services import agreement as service

    parsed: list[str] = []
    loads = service.jsonl.loads

    def counting_loads(line: str, **kwargs: Any) -> Any:
        parsed.append(line)
        return loads(line, **kwargs)

    monkeypatch.setattr(service.jsonl, "loads", counting_loads)
    job, header = _run_report_job_here(corpus, monkeypatch, chunk_pairs=5)
    assert job.status == "succeeded"
    assert [signature.args[4] for signature in header] == [0, 5, 10, 15, 20]
    # Every line once in the chunks, and once more for the report.
    assert sorted(parsed) == sorted(job.snapshot * 2)


def test_a_chunk_that_does_not_match_its_lines_is_an_error_and_one_without_a_start_reads_all(
    corpus: Corpus, monkeypatch: pytest.MonkeyPatch
) -> None:
    from annotate.services import agreement as service

    job, header = _run_report_job_here(corpus, monkeypatch)
    job_id, pair_ids, models, share, start = header[0].args
    assert start == 0
    job.status = "running"
    job.save(update_fields=["status"])
    whole = service.agreement_chunk_statistics(
        job_id=job_id, pair_ids=pair_ids, models_json=models, share=share, start=None
    )
    assert whole == service.agreement_chunk_statistics(
        job_id=job_id, pair_ids=pair_ids, models_json=models, share=share, start=0
    )
    with pytest.raises(service.AgreementReportError, match="does not hold the chunk's"):
        service.agreement_chunk_statistics(
            job_id=job_id, pair_ids=pair_ids, models_json=models, share=share, start=1
        )


def _chunk_of_a_running_job(corpus: Corpus, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, Any]:
    """A report job (J = 20) whose runner ran here and whose first chunk is still to run: the
    job and that chunk's signature."""
    from annotate.jobs_runtime import job_claim
    from annotate.services import agreement as service

    sent: dict[str, Any] = {}
    monkeypatch.setattr(service, "chord", lambda header: lambda body: sent.update(header=header))
    job = agreement_job_create(corpus=corpus, annotators=["ann1", "ann2"], samples=20, seed=3)
    assert job_claim(job_id=job.pk, worker="here")
    service.agreement_run.runner(job, lambda percent, message: None)
    return job, sent["header"][0]


def _counted_kernel(monkeypatch: pytest.MonkeyPatch, on_call: Any = None) -> list[int]:
    """Count the Monte Carlo kernel's calls (batches of samples); ``on_call`` runs before each."""
    from scoring.alignment import agreement

    calls: list[int] = []
    kernel = agreement.pair_kernel

    def counted(*args: Any) -> None:
        calls.append(1)
        if on_call is not None:
            on_call()
        kernel(*args)

    monkeypatch.setattr(agreement, "pair_kernel", counted)
    return calls


def test_a_cancel_stops_a_running_chunk_at_its_next_batch_of_samples(
    corpus: Corpus, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """The chunk frees its worker within a batch of samples of the cancel, returns no
    statistics, and the chord's callback leaves the job cancelled, logging no error."""
    from annotate import job_chunks
    from annotate.models import Job
    from annotate.services import agreement as service
    from annotate.services.jobs import job_cancel
    from scoring.alignment import agreement

    job, chunk = _chunk_of_a_running_job(corpus, monkeypatch)
    monkeypatch.setattr(agreement, "SAMPLE_BATCH", 5)  # four batches per pair and kind
    monkeypatch.setattr(job_chunks, "PROGRESS_MIN_INTERVAL", 0.0)  # look at every batch
    calls = _counted_kernel(monkeypatch, on_call=lambda: job_cancel(job=job))
    with caplog.at_level(logging.INFO):
        assert service.agreement_chunk(*chunk.args) is None
        service.agreement_finish([None], job.pk, chunk.args[2])
    assert len(calls) == 1, "the cancel during the first batch stops the chunk after it"
    job.refresh_from_db()
    assert job.status == "cancelled" and job.progress < 100 and job.result is None
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert Job.objects.get(pk=job.pk).status == "cancelled"


def test_a_chunk_of_a_cancelled_job_computes_nothing(
    corpus: Corpus, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The chunks still queued when a job is cancelled end at once."""
    from annotate.services import agreement as service
    from annotate.services.jobs import job_cancel

    job, chunk = _chunk_of_a_running_job(corpus, monkeypatch)
    job_cancel(job=job)
    calls = _counted_kernel(monkeypatch)
    assert service.agreement_chunk(*chunk.args) is None
    assert calls == []


def test_a_report_says_it_is_reading_the_annotations_before_it_reads_them(
    corpus: Corpus, monkeypatch: pytest.MonkeyPatch
) -> None:
    from annotate.jobs_runtime import job_claim
    from annotate.services import agreement as service

    monkeypatch.setattr(service, "chord", lambda header: lambda body: None)
    said: list[str] = []
    read = service.agreement_chance_model

    def reading(*args: Any, **kwargs: Any) -> Any:
        said.append("(reading)")
        return read(*args, **kwargs)

    monkeypatch.setattr(service, "agreement_chance_model", reading)
    job = agreement_job_create(corpus=corpus, annotators=["ann1", "ann2"], samples=20, seed=3)
    assert job_claim(job_id=job.pk, worker="here")
    service.agreement_run.runner(job, lambda percent, message: said.append(message))
    assert said[:2] == ["reading the annotations of ann1, ann2", "(reading)"]
