"""Agreement reports of a corpus: a thin layer over :mod:`scoring.alignment.reports`.

Rows become :class:`~scoring.corpus.PairRecord` values (only the chosen annotators' submitted
annotations), :mod:`scoring` computes, and the report is stored as the job's result.

As a job, the Monte Carlo part is split into chunks of pairs that Celery spreads over workers:
the runner fits the annotators' edit models once, dispatches a chord of chunk tasks (each
returns JSON sufficient statistics) and the chord's callback builds the report. Each pair's random
stream depends only on the seed and the pair, so the numbers are identical however the work is
split (``scoring.alignment.agreement.pair_seed_sequence``).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from itertools import accumulate
from typing import Any

from celery import chord, shared_task
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db.models import QuerySet
from django.utils import timezone

from annotate.consistent_reads import read_snapshot
from annotate.exceptions import DomainError, quoted
from annotate.job_chunks import (
    CanvasProgress,
    ChunkComputing,
    ChunkRequest,
    chunk_outcome,
    chunk_shares,
    chunks_failed,
    chunks_finish,
)
from annotate.jobs_runtime import (
    DEFERRED,
    Deferred,
    Heartbeat,
    job_check_running,
    job_chunk_done,
    job_finish,
    job_task,
)
from annotate.models import AnnotationEvent, Assignment, Corpus, Job, SentencePair
from annotate.selectors.corpora import pair_reads_by_id
from scoring.alignment.agreement import AgreementParams
from scoring.alignment.edit_model import EditModel
from scoring.alignment.reports import (
    CHANCE_MODELS,
    ChanceModelChoice,
    build_report,
    chance_model_refusal,
    choose_chance_model,
    fit_report_models,
    report_statistics,
)
from scoring.corpus import PairRecord
from scoring.formats import jsonl

logger = logging.getLogger(__name__)

#: Pairs per chunk task when the job does not say; a chunk of 50 pairs with J = 1,000 takes about
#: a second, small enough to spread and large enough that task overhead does not matter.
DEFAULT_CHUNK_PAIRS = 50
ModelMap = dict[str, dict[str, EditModel]]


class AgreementReportError(DomainError):
    code = "agreement_failed"


def agreement_inputs(
    corpus: Corpus,
    annotators: Sequence[str],
    pair_ids: Sequence[int] | None = None,
    subcorpora: Sequence[str] = (),
) -> tuple[list[PairRecord], set[tuple[str, str]]]:
    """The records of :func:`agreement_records` and the ``(pair id, annotator)`` annotations
    among them that were made without their pair's prefill.

    An annotation was made from the prefill when it was created after it: opening a pair here
    creates the annotation from the newest prefill, which no later prefill job replaces, and an
    import writes a pair's prefill before its annotations. A prefill newer than an annotation is
    not the one its annotator started from: a prefill run after an import (even one trained on
    the imported work), or one written while the annotator already had the pair open.
    """
    wanted = set(annotators)
    pairs = _with_submitted_work(SentencePair.objects.filter(corpus=corpus), annotators, subcorpora)
    if pair_ids is not None:
        pairs = pairs.filter(pk__in=pair_ids)
    ids = list(pairs.order_by("position").values_list("pk", flat=True).distinct())
    records = []
    made_without: set[tuple[str, str]] = set()
    for read in pair_reads_by_id(ids):
        record = read.record
        record.annotations = {
            name: annotation
            for name, annotation in record.annotations.items()
            if name in wanted and annotation.status == Assignment.Status.SUBMITTED
        }
        if not record.annotations:
            continue
        record.metadata = {"pk": read.pk}
        records.append(record)
        if read.prefill_at is None:
            continue
        for name in record.annotations:
            if read.annotated_at[name] < read.prefill_at:
                made_without.add((record.id, name))
    if records:
        made_without |= _added_to_existing_pairs(corpus, wanted)
    return records, made_without


def _added_to_existing_pairs(corpus: Corpus, annotators: set[str]) -> set[tuple[str, str]]:
    """The ``(pair id, annotator)`` annotations an import added to pairs the corpus held: made
    elsewhere, never from the pair's prefill, however much newer than it they are."""
    return set(
        AnnotationEvent.objects.filter(
            annotation__assignment__pair__corpus=corpus,
            annotation__assignment__annotator__username__in=list(annotators),
            kind=AnnotationEvent.Kind.IMPORTED,
            payload__onto_existing=True,
        ).values_list(
            "annotation__assignment__pair__external_id",
            "annotation__assignment__annotator__username",
        )
    )


def _with_submitted_work(
    pairs: QuerySet[SentencePair], annotators: Sequence[str], subcorpora: Sequence[str]
) -> QuerySet[SentencePair]:
    """The pairs one of ``annotators`` submitted work on, in ``subcorpora`` if any given."""
    pairs = pairs.filter(
        assignments__annotator__username__in=list(annotators),
        assignments__status=Assignment.Status.SUBMITTED,
    )
    if subcorpora:
        pairs = pairs.filter(subcorpus__in=list(subcorpora))
    return pairs


def _no_work(corpus: Corpus, annotators: Sequence[str]) -> AgreementReportError:
    return AgreementReportError(
        f"none of {', '.join(annotators)} has submitted work in corpus {quoted(corpus.name)}",
        field="annotators",
    )


def _check_work(
    corpus: Corpus, annotators: Sequence[str], chance_model: str, subcorpora: Sequence[str]
) -> None:
    """What the job would refuse when it starts, checked in SQL before it is queued: someone
    chosen has submitted work, and the chance model asked for can be used on it
    (:func:`scoring.alignment.reports.chance_model_refusal`, the rule the job applies)."""
    pairs = _with_submitted_work(SentencePair.objects.filter(corpus=corpus), annotators, subcorpora)
    if not pairs.exists():
        raise _no_work(corpus, annotators)
    any_prefill = pairs.filter(prefills__isnull=False).exists()
    refusal = chance_model_refusal(chance_model, any_prefill=any_prefill)
    if refusal:
        raise AgreementReportError(refusal, field="chance_model")


def agreement_records(
    corpus: Corpus,
    annotators: Sequence[str],
    pair_ids: Sequence[int] | None = None,
    subcorpora: Sequence[str] = (),
) -> list[PairRecord]:
    """Pairs with a submitted annotation by at least one of ``annotators``, in corpus order,
    carrying only those annotators' submitted annotations; only the given sub-corpora if any."""
    return agreement_inputs(corpus, annotators, pair_ids, subcorpora)[0]


def agreement_chance_model(
    corpus: Corpus,
    annotators: Sequence[str],
    requested: str = "auto",
    subcorpora: Sequence[str] = (),
) -> tuple[list[PairRecord], ChanceModelChoice]:
    """The report's records and its chance model with the reason for it
    (:func:`scoring.alignment.reports.choose_chance_model`): the prefill's edits only where
    every annotation was made from the prefill (:func:`agreement_inputs`)."""
    records, made_without = agreement_inputs(corpus, annotators, subcorpora=subcorpora)
    if not records:
        return records, ChanceModelChoice(requested, "")
    choice = choose_chance_model(records, annotators, requested, made_without_prefill=made_without)
    return records, choice


def _check_request(corpus: Corpus, annotators: Sequence[str]) -> None:
    if len(annotators) < 2:
        raise AgreementReportError("an agreement report needs at least two annotators")
    known = set(
        get_user_model().objects.filter(username__in=annotators).values_list("username", flat=True)
    )
    missing = [name for name in annotators if name not in known]
    if missing:
        raise AgreementReportError(f"no user named {missing[0]!r}")


def agreement_params(parameters: dict[str, Any], seed: int | None) -> AgreementParams:
    return AgreementParams(
        samples=int(parameters.get("samples", 1000)),
        seed=int(seed if seed is not None else 0),
        **{k: v for k, v in parameters.items() if k in {"exclude_identical", "max_length"}},
    )


def agreement_compute(
    *,
    corpus: Corpus,
    annotators: Sequence[str],
    params: AgreementParams,
    progress: Callable[[str, int, int], None] | None = None,
    chance_model: str = "auto",
    subcorpora: Sequence[str] = (),
) -> dict[str, Any]:
    """The whole report in this process (the management command, small corpora)."""
    _check_request(corpus, annotators)
    records, choice = agreement_chance_model(corpus, annotators, chance_model, subcorpora)
    report = build_report(
        records,
        annotators,
        params=params,
        progress=progress,
        chance_model=choice.name,
        chance_model_reason=choice.reason,
    )
    return {"corpus": corpus.name, **report.to_dict()}


def agreement_job_create(
    *,
    corpus: Corpus,
    annotators: Sequence[str],
    samples: int = 1000,
    seed: int = 0,
    chunk_pairs: int = DEFAULT_CHUNK_PAIRS,
    chance_model: str = "auto",
    subcorpora: Sequence[str] = (),
    owner: Any = None,
) -> Job:
    _check_request(corpus, annotators)
    if chance_model not in ("auto", *CHANCE_MODELS):
        raise AgreementReportError(
            f"chance_model must be auto, {' or '.join(CHANCE_MODELS)}, not {chance_model!r}"
        )
    AgreementParams(samples=samples, seed=seed)  # validate now, not in the worker
    if chunk_pairs < 1:
        raise AgreementReportError("chunk_pairs must be at least 1")
    _check_work(corpus, annotators, chance_model, subcorpora)
    return agreement_run.create(
        corpus=corpus,
        seed=seed,
        owner=owner,
        parameters={
            "annotators": list(annotators),
            "samples": samples,
            "chunk_pairs": chunk_pairs,
            "chance_model": chance_model,
            "subcorpora": list(subcorpora),
        },
    )


@job_task(kind="agreement_report")
def agreement_run(job: Job, progress: Callable[[float, str], None]) -> Deferred:
    """Job runner: fit edit models, then hand the Monte Carlo chunks to a Celery chord
    (:func:`agreement_chord_send`), which finishes the job."""
    if job.corpus is None:
        raise AgreementReportError("an agreement job needs a corpus")
    annotators = list(job.parameters["annotators"])
    params = agreement_params(job.parameters, job.seed)
    _check_request(job.corpus, annotators)
    requested = job.parameters.get("chance_model", "auto")
    # reading every annotation's links takes seconds on a corpus of thousands of pairs
    progress(1, f"reading the annotations of {', '.join(annotators)}")
    with read_snapshot():  # every annotation as it was at one moment; no report meanwhile
        records, choice = agreement_chance_model(
            job.corpus, annotators, requested, job.parameters.get("subcorpora", ())
        )
    if not records:
        raise _no_work(job.corpus, annotators)
    job_snapshot_store(job=job, records=records)
    chance_model = choice.name
    progress(2, f"fitting edit models on {len(records)} pairs ({chance_model} chance model)")
    models = fit_report_models(records, annotators, kinds=params.kinds, chance_model=chance_model)
    job.parameters = {
        **job.parameters,
        "chance_model": chance_model,
        "chance_model_requested": requested,
        "chance_model_reason": choice.reason,
        "edit_models": {
            name: {kind: [m.intercept, m.slope, m.n_pairs] for kind, m in by_kind.items()}
            for name, by_kind in models.items()
        },
    }
    Job.objects.filter(pk=job.pk).update(parameters=job.parameters)
    size = int(job.parameters.get("chunk_pairs", DEFAULT_CHUNK_PAIRS))
    ids = [int(r.metadata["pk"]) for r in records]
    chunks = [ids[start : start + size] for start in range(0, len(ids), size)]
    models_json = {
        name: {k: m.to_dict() for k, m in by_kind.items()} for name, by_kind in models.items()
    }
    progress(5, f"Monte Carlo in {len(chunks)} chunk(s) of up to {size} pairs")
    agreement_chord_send(job_id=job.pk, chunks=chunks, models=models_json)
    return DEFERRED


#: The percent of an agreement job's progress its Monte Carlo chunks share.
CHUNKS_PERCENT = 95


def agreement_chord_send(
    *, job_id: int, chunks: Sequence[list[int]], models: dict[str, Any]
) -> None:
    """The agreement job's Monte Carlo as a Celery chord: one :func:`agreement_chunk` task per
    chunk of pairs, then :func:`agreement_finish`, which builds the report from their
    statistics, or :func:`agreement_failed` if a chunk fails. The chunks cut the job's snapshot
    in order; each task is told the line its pairs start at."""
    starts = list(accumulate((len(chunk) for chunk in chunks), initial=0))[:-1]
    # The chunks' own queue (``settings.CHUNK_QUEUE``): in the default one they would all be
    # ahead of every job queued after the report, which would wait for the whole report.
    queue = settings.CHUNK_QUEUE
    shares = chunk_shares(len(chunks), CHUNKS_PERCENT)
    header = [
        agreement_chunk.s(job_id, chunk, models, share, start).set(queue=queue)
        for chunk, start, share in zip(chunks, starts, shares, strict=True)
    ]
    body = (
        agreement_finish.s(job_id, models)
        .set(queue=queue)
        .on_error(agreement_failed.s(job_id).set(queue=queue))
    )
    chord(header)(body)


def job_snapshot_store(*, job: Job, records: Sequence[PairRecord]) -> None:
    """Freeze the job's input: the records as JSONL lines, and when they were read. Every chunk
    and the final report read this, so edits made while the job runs cannot mix into it."""
    Job.objects.filter(pk=job.pk).update(
        snapshot=[jsonl.dumps(record) for record in records], snapshot_at=timezone.now()
    )
    job.refresh_from_db(fields=["snapshot", "snapshot_at"])


def job_snapshot_records(job: Job, *, start: int = 0, stop: int | None = None) -> list[PairRecord]:
    """The snapshot's records, or those of lines ``start`` to ``stop`` (0-based, ``stop``
    excluded): only those lines are parsed."""
    if job.snapshot is None:
        raise AgreementReportError(f"job {job.pk} has no snapshot of its input")
    return [
        jsonl.loads(line, source=f"job {job.pk} snapshot, line {number}")
        for number, line in enumerate(job.snapshot[start:stop], start=start + 1)
    ]


def _chunk_records(job: Job, pair_ids: list[int], start: int | None) -> list[PairRecord]:
    """A chunk's records. The chunks cut the snapshot in order, so a chunk that knows where it
    starts parses its own lines only: parsing the whole snapshot in every chunk grows with
    pairs² / chunk size (5,000 pairs: 0.2 s in each of 100 chunks, a fifth of the Monte Carlo)."""
    if start is None:  # a chunk queued without its position
        wanted = set(pair_ids)
        return [r for r in job_snapshot_records(job) if int(r.metadata["pk"]) in wanted]
    records = job_snapshot_records(job, start=start, stop=start + len(pair_ids))
    if [int(r.metadata["pk"]) for r in records] != pair_ids:
        raise AgreementReportError(
            f"the snapshot of job {job.pk} does not hold the chunk's {len(pair_ids)} pairs "
            f"from line {start + 1}"
        )
    return records


def _models(models_json: dict[str, dict[str, dict[str, Any]]]) -> ModelMap:
    return {
        name: {kind: EditModel.from_dict(data) for kind, data in by_kind.items()}
        for name, by_kind in models_json.items()
    }


def agreement_chunk_statistics(
    *,
    job_id: int,
    pair_ids: list[int],
    models_json: dict[str, Any],
    share: float,
    start: int | None = None,
    worker: str = "",
) -> list[dict[str, Any]]:
    """One chunk's JSON statistics (the pairs ``pair_ids``, lines ``start`` on of the job's
    snapshot); reports its share of progress when done. Raises :class:`JobCancelled` when the
    job is no longer running: before it starts, and within a fraction of a second while it
    computes (the Monte Carlo's progress points), so a cancel frees the worker at once."""
    job_check_running(job_id=job_id)
    job = Job.objects.select_related("corpus").get(pk=job_id)
    annotators = list(job.parameters["annotators"])
    params = agreement_params(job.parameters, job.seed)
    records = _chunk_records(job, pair_ids, start)
    # One thread per chunk: the workers' processes already share the machine's cores. The
    # heartbeat keeps the job alive while a chunk computes (the runner's own has stopped);
    # the chunk's mark tells the reaper a chunk computes, should its worker die meanwhile.
    with ChunkComputing(job_id, pair_ids[0], worker), Heartbeat(job_id):
        stats = report_statistics(
            records,
            annotators,
            models=_models(models_json),
            params=params,
            threads=1,
            chance_model=job.parameters["chance_model"],
            progress=CanvasProgress(job_id),
        )
    job_chunk_done(job_id=job_id, share=share, message=f"Monte Carlo: {len(pair_ids)} more pairs")
    return stats


def agreement_finish_report(
    *, job_id: int, chunk_results: list[list[dict[str, Any]] | None], models_json: dict[str, Any]
) -> bool:
    """The chord's callback: build the report from every chunk and finish the job. A job that
    ended meanwhile (cancelled or reaped: its chunks stopped and returned ``None``) is left as
    it is; False."""
    job = Job.objects.select_related("corpus").get(pk=job_id)
    finished = [chunk for chunk in chunk_results if chunk is not None]
    if job.status != Job.Status.RUNNING or len(finished) < len(chunk_results):
        logger.info("agreement job %s had ended (%s) when its chunks did", job_id, job.status)
        return False
    annotators = list(job.parameters["annotators"])
    params = agreement_params(job.parameters, job.seed)
    records = job_snapshot_records(job)
    statistics = [item for chunk in finished for item in chunk]
    report = build_report(
        records,
        annotators,
        params=params,
        models=_models(models_json),
        statistics=statistics,
        chance_model=job.parameters["chance_model"],
        chance_model_reason=job.parameters.get("chance_model_reason", ""),
    )
    chunks = len(chunk_results)
    result = {
        "corpus": job.corpus.name,  # type: ignore[union-attr]
        "chunks": chunks,
        "snapshot_at": job.snapshot_at.isoformat() if job.snapshot_at else None,
        **report.to_dict(),
    }
    return job_finish(job_id=job_id, result=result)


# --- the tasks of the chord ---------------------------------------------------------------------


@shared_task(name="annotate.agreement_chunk", acks_late=True, Request=ChunkRequest, bind=True)
def agreement_chunk(
    self: Any,
    job_id: int,
    pair_ids: list[int],
    models: dict[str, Any],
    share: float,
    start: int | None = None,
) -> list[dict[str, Any]] | None:
    """A chunk's statistics, or ``None`` once its job was cancelled or reaped (a result, not an
    error, so that the chord ends normally and :func:`agreement_finish` finds the job ended)."""
    return chunk_outcome(
        kind="agreement",
        job_id=job_id,
        compute=lambda: agreement_chunk_statistics(
            job_id=job_id,
            pair_ids=pair_ids,
            models_json=models,
            share=share,
            start=start,
            worker=self.request.hostname or "",
        ),
    )


@shared_task(name="annotate.agreement_finish", acks_late=True, ignore_result=True)
def agreement_finish(
    chunk_results: list[list[dict[str, Any]] | None], job_id: int, models: dict[str, Any]
) -> None:
    chunks_finish(
        kind="agreement",
        job_id=job_id,
        finish=lambda: agreement_finish_report(
            job_id=job_id, chunk_results=chunk_results, models_json=models
        ),
    )


@shared_task(name="annotate.agreement_failed", ignore_result=True)
def agreement_failed(request: Any, exc: BaseException, traceback: Any, job_id: int) -> None:
    """Error callback of the chord: a chunk failed, so the job fails with the chunk's reason
    (:func:`annotate.job_chunks.chunks_failed`)."""
    chunks_failed(kind="agreement", job_id=job_id, error=exc, work="Monte Carlo")
