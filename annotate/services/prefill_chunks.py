"""A prefill job's aligning, spread over the workers as chunk tasks, and the writing of prefills.

The job's runner (:func:`annotate.services.prefill.prefill_run`) trains the aligner in its own
process, saves it (:func:`prefill_model_save`: the aligner's ``.npz`` model, which loads without
unpickling anything) under ``EXPORT_DIR/prefill-models/``, storage every worker shares, and
sends a Celery chord (:func:`prefill_chord_send`) over the pairs to prefill, the planned ones
first. Each chunk task (:func:`prefill_chunk`) loads the model once per pool process, aligns its
pairs and writes them (:func:`write_prefills`, which skips a pair an annotator opened meanwhile
and writes nothing once the job is no longer running); it returns what it wrote. The chord's
callback (:func:`prefill_finish`) builds the job's result from those and the gold, finishes the
job and removes the model file; a failed chunk fails the job (:func:`prefill_failed`), and the
periodic clean-up removes the files of jobs that died (:func:`prefill_models_clean`).
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections import defaultdict
from collections.abc import Mapping, Sequence
from contextlib import suppress
from pathlib import Path
from typing import Any

from celery import chord, shared_task
from django.conf import settings
from django.db import transaction
from django.db.models import Count, Exists, OuterRef, QuerySet

from annotate.conversions import link_rows
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
    Heartbeat,
    JobCancelled,
    job_check_running,
    job_chunk_done,
    job_fail,
    job_finish,
)
from annotate.models import (
    Annotation,
    AnnotationEvent,
    AnnotationLink,
    Assignment,
    AutoAlignment,
    AutoLink,
    Corpus,
    GoldAlignment,
    GoldLink,
    Job,
    SentencePair,
)
from annotate.services.annotations import edits_from_prefill
from annotate.services.links import links_insert
from scoring.aligners import AlignerOutput
from scoring.aligners import feature_store as features
from scoring.aligners.base import Aligner
from scoring.aligners.corrections import uncertainty
from scoring.aligners.feature_store import FeatureStore
from scoring.alignment.links import Alignment
from scoring.alignment.metrics import ComparePair, corpus_scores

logger = logging.getLogger(__name__)

#: Annotations updated per query when a new prefill recounts their edits.
WRITE_CHUNK = 200
#: The folder of the trained models under ``EXPORT_DIR``.
MODELS_FOLDER = "prefill-models"
#: The folder of the aligners' per-pair features under ``EXPORT_DIR``.
FEATURES_FOLDER = "feature-cache"


# --- the per-pair features every process shares --------------------------------------------------

_stores: dict[tuple[str, int], FeatureStore] = {}


def feature_store() -> FeatureStore | None:
    """The store of the supervised aligner's per-pair features (``EXPORT_DIR/feature-cache/``,
    at most ``FEATURE_CACHE_MB``), or ``None`` when that is 0. A retraining's features do not
    depend on the gold, and its training and its chunks run in whichever pool processes (of
    whichever workers) are free: kept here, each pair's are computed once for all of them, not
    once in each process, nor again after a worker's restart. One object per process, which
    counts what it wrote since it last pruned."""
    megabytes = int(settings.FEATURE_CACHE_MB)
    if megabytes == 0:
        return None
    key = (str(Path(settings.EXPORT_DIR) / FEATURES_FOLDER), megabytes)
    store = _stores.get(key)
    if store is None:
        _stores.clear()
        store = _stores[key] = FeatureStore(key[0], megabytes * 1024 * 1024)
    return store


def feature_store_use() -> None:
    """Have this process's supervised aligners keep their features in :func:`feature_store`
    (the settings read now: a test or a deployment may change them)."""
    features.use(feature_store())


def feature_store_prune() -> int:
    """Bring the feature store within its bound and remove the files of writers that died
    (the periodic clean-up); the files removed. With the store off (``FEATURE_CACHE_MB=0``)
    the files it kept while it was on go, all of them."""
    store = feature_store()
    if store is None:
        store = FeatureStore(Path(settings.EXPORT_DIR) / FEATURES_FOLDER, 1)  # keeps nothing
    return store.prune()


# --- the trained model's file --------------------------------------------------------------------


def prefill_model_path(job_id: int) -> Path:
    """Where the model a prefill job trained waits for its chunks: ``EXPORT_DIR``, the job
    files every worker and web process shares (one machine: under ``VAR_DIR``; several: a
    shared mount)."""
    return Path(settings.EXPORT_DIR) / MODELS_FOLDER / f"job-{job_id}.npz"


def prefill_model_save(*, job_id: int, aligner: Aligner) -> Path:
    """Save the trained aligner for the job's chunks; written to a temporary name and renamed,
    so a chunk never reads half a file. A save that fails (the disk full) removes what it
    wrote at once, so the next job finds the room it had."""
    path = prefill_model_path(job_id)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f"{path.stem}.{os.getpid()}.partial")
    try:
        aligner.save(partial)
        os.replace(partial, path)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    return path


_loaded: dict[str, tuple[tuple[int, int], Aligner]] = {}
_loading = threading.Lock()


def prefill_model_load(path: Path) -> Aligner:
    """The aligner saved at ``path``, loaded once per process: a pool process runs many chunks
    of one job in a row. Only the newest model is kept (a supervised one holds hundreds of
    megabytes); a file written again (the job run again) is read again."""
    stat = path.stat()
    key = (stat.st_mtime_ns, stat.st_size)
    with _loading:
        cached = _loaded.get(str(path))
        if cached is not None and cached[0] == key:
            return cached[1]
        aligner = Aligner.load(path)
        _loaded.clear()
        _loaded[str(path)] = (key, aligner)
        return aligner


def prefill_model_discard(job_id: int) -> None:
    """Remove the job's model file, if any (its chunks are done, or the job ended)."""
    path = prefill_model_path(job_id)
    path.unlink(missing_ok=True)
    _loaded.pop(str(path), None)


def prefill_models_clean() -> int:
    """Remove the model files of jobs no longer queued or running (a job reaped after its
    worker died leaves its file: no callback ran); returns how many."""
    root = Path(settings.EXPORT_DIR) / MODELS_FOLDER
    if not root.is_dir():
        return 0
    files: dict[int, list[Path]] = defaultdict(list)
    for path in root.iterdir():
        number = path.name.removeprefix("job-").split(".", 1)[0]
        if path.is_file() and path.name.startswith("job-") and number.isdigit():
            files[int(number)].append(path)
    alive = set(
        Job.objects.filter(
            pk__in=list(files), status__in=[Job.Status.PENDING, Job.Status.RUNNING]
        ).values_list("pk", flat=True)
    )
    removed = 0
    for job_id, paths in files.items():
        if job_id not in alive:
            for path in paths:
                path.unlink(missing_ok=True)
                removed += 1
    return removed


# --- the chord ------------------------------------------------------------------------------------


def prefill_chunks_of(pair_ids: Sequence[int]) -> list[list[int]]:
    """``pair_ids`` cut in order into chunks of at most ``PREFILL_CHUNK_PAIRS``: one task
    aligns and writes each."""
    size = int(settings.PREFILL_CHUNK_PAIRS)
    return [list(pair_ids[start : start + size]) for start in range(0, len(pair_ids), size)]


def prefill_chord_send(
    *, job_id: int, chunks: Sequence[list[int]], summary: dict[str, Any], percent: int
) -> None:
    """The job's aligning as a Celery chord: one :func:`prefill_chunk` per chunk of pairs
    (sharing ``percent`` of the progress), then :func:`prefill_finish` with ``summary`` (what
    the training learned: :func:`prefill_result`), or :func:`prefill_failed` if a chunk
    fails. The chunks are sent in order: the first ones hold the planned pairs."""
    queue = settings.CHUNK_QUEUE  # as the agreement's chunks: never ahead of every other job
    header = [
        prefill_chunk.s(job_id, chunk, share).set(queue=queue)
        for chunk, share in zip(chunks, chunk_shares(len(chunks), percent), strict=True)
    ]
    body = (
        prefill_finish.s(job_id, summary)
        .set(queue=queue)
        .on_error(prefill_failed.s(job_id).set(queue=queue))
    )
    chord(header)(body)


def _chunk_rows(pair_ids: Sequence[int]) -> list[tuple[int, list[str], list[str]]]:
    """``(pair id, source tokens, target tokens)`` of the chunk's pairs, in the chunk's order."""
    found = {
        pid: (pid, src, tgt)
        for pid, src, tgt in SentencePair.objects.filter(pk__in=list(pair_ids)).values_list(
            "id", "source_tokens", "target_tokens"
        )
    }
    return [found[pid] for pid in pair_ids if pid in found]  # a pair deleted since: left out


def prefill_chunk_write(
    *, job_id: int, pair_ids: list[int], share: float, worker: str = ""
) -> dict[str, Any]:
    """Align and write one chunk with the job's saved model; what it wrote (``written``: the
    pair ids, ``links``, ``warnings``). Raises :class:`JobCancelled` when the job is no longer
    running: before it starts, at the pair after a cancel, and before it writes (nothing is
    written once the job ended)."""
    job_check_running(job_id=job_id)
    name = str(Job.objects.values_list("parameters__aligner", flat=True).get(pk=job_id))
    # The heartbeat keeps the job alive while the chunk computes; the chunk's mark tells the
    # reaper a chunk computes, should its worker die meanwhile.
    with ChunkComputing(job_id, pair_ids[0], worker), Heartbeat(job_id):
        started = time.perf_counter()
        feature_store_use()
        aligner = prefill_model_load(prefill_model_path(job_id))
        loaded = time.perf_counter()
        rows = _chunk_rows(pair_ids)
        check = CanvasProgress(job_id)
        outputs = []
        for _, src, tgt in rows:
            outputs.append(aligner.align(src, tgt))
            check()  # a cancel frees the worker at the next pair
        aligned = time.perf_counter()
        links, written = write_prefills(name, aligner.version, rows, outputs, job_id=job_id)
    logger.info(
        "prefill job %s: chunk of %d pairs in process %d: model %.1f s, aligning %.1f s, "
        "writing %.1f s",
        job_id,
        len(rows),
        os.getpid(),
        loaded - started,
        aligned - loaded,
        time.perf_counter() - aligned,
    )
    warnings = sorted({warning for output in outputs for warning in output.warnings})
    # cancelled after the write: what it wrote stays, and the result counts it
    with suppress(JobCancelled):
        job_chunk_done(job_id=job_id, share=share, message=f"prefilled {len(written)} more pairs")
    written_ids = [pid for pid, _, _ in rows if pid in written]
    return {"written": written_ids, "links": links, "warnings": warnings}


def prefill_result(
    *, job: Job, summary: Mapping[str, Any], chunk_results: Sequence[Mapping[str, Any]]
) -> dict[str, Any]:
    """The job's result: what the training learned (``summary``), what the chunks wrote, and
    the new prefills' scores against the gold."""
    written = [pid for chunk in chunk_results for pid in chunk["written"]]
    warnings = {warning for chunk in chunk_results for warning in chunk["warnings"]}
    return {
        "corpus": summary["corpus"],
        "aligner": summary["aligner"],
        "aligner_version": summary["aligner_version"],
        "options": summary["options"],
        "trained_on_pairs": summary["trained_on_pairs"],
        "trained_on_gold": summary["trained_on_gold"],
        "prefilled_pairs": len(written),
        "skipped_started_pairs": summary["trained_on_pairs"] - len(written),
        "links": sum(int(chunk["links"]) for chunk in chunk_results),
        "warnings": sorted(warnings),
        "evaluation": evaluate_against_gold(
            job.corpus,  # type: ignore[arg-type]
            written,
            aligner=summary["aligner"],
            trained_on_gold=bool(summary["uses_gold"]),
        ),
    }


def prefill_finish_result(
    *, job_id: int, chunk_results: Sequence[Mapping[str, Any] | None], summary: Mapping[str, Any]
) -> bool:
    """The chord's callback: finish the job with :func:`prefill_result`. A job cancelled or
    failed meanwhile (its worker killed, say) keeps what its chunks wrote, and its result says
    how much: those pairs have its prefill. The model file goes first: every chunk is done
    with it."""
    prefill_model_discard(job_id)
    job = Job.objects.select_related("corpus").get(pk=job_id)
    done = [chunk for chunk in chunk_results if chunk is not None]
    if job.status != Job.Status.RUNNING or len(done) < len(chunk_results):
        if job.status == Job.Status.RUNNING:  # never left running without its chunks' work
            job_fail(job_id=job_id, error="a chunk of the prefill stopped before it wrote")
        Job.objects.filter(pk=job_id, status__in=[Job.Status.CANCELLED, Job.Status.FAILED]).update(
            result={
                "aligner": summary["aligner"],
                "prefilled_pairs": sum(len(chunk["written"]) for chunk in done),
                "links": sum(int(chunk["links"]) for chunk in done),
            }
        )
        logger.info("prefill job %s had ended (%s) when its chunks did", job_id, job.status)
        return False
    result = prefill_result(job=job, summary=summary, chunk_results=done)
    if job_finish(job_id=job_id, result=result):
        return True
    # Cancelled after its last write: its prefills stay, as those written before a cancel
    # midway do, and the cancelled job says what it wrote (the runs list reads it).
    Job.objects.filter(pk=job_id, status=Job.Status.CANCELLED).update(result=result)
    return False


# --- the tasks of the chord -----------------------------------------------------------------------


@shared_task(name="annotate.prefill_chunk", acks_late=True, Request=ChunkRequest, bind=True)
def prefill_chunk(
    self: Any, job_id: int, pair_ids: list[int], share: float
) -> dict[str, Any] | None:
    """A chunk's prefills, or ``None`` once its job was cancelled or reaped before it wrote
    (a result, not an error, so that the chord ends normally and :func:`prefill_finish` finds
    the job ended)."""
    return chunk_outcome(
        kind="prefill",
        job_id=job_id,
        compute=lambda: prefill_chunk_write(
            job_id=job_id, pair_ids=pair_ids, share=share, worker=self.request.hostname or ""
        ),
    )


@shared_task(name="annotate.prefill_finish", acks_late=True, ignore_result=True)
def prefill_finish(
    chunk_results: list[dict[str, Any] | None], job_id: int, summary: dict[str, Any]
) -> None:
    chunks_finish(
        kind="prefill",
        job_id=job_id,
        finish=lambda: prefill_finish_result(
            job_id=job_id, chunk_results=chunk_results, summary=summary
        ),
    )


@shared_task(name="annotate.prefill_failed", ignore_result=True)
def prefill_failed(request: Any, exc: BaseException, traceback: Any, job_id: int) -> None:
    """Error callback of the chord: a chunk failed, so the job fails with the chunk's reason
    and its model file goes. A job no longer running is left as it is."""
    prefill_model_discard(job_id)
    chunks_failed(kind="prefill", job_id=job_id, error=exc, work="prefill")


# --- writing prefills -----------------------------------------------------------------------------


def started_here() -> QuerySet[Assignment]:
    """Assignments of the outer pair that an annotator opened here: opening one creates its
    annotation from the prefill and logs a ``created`` event; imported annotations log
    ``imported`` instead."""
    return Assignment.objects.filter(pair=OuterRef("pk")).filter(
        Exists(
            AnnotationEvent.objects.filter(
                annotation__assignment=OuterRef("pk"), kind=AnnotationEvent.Kind.CREATED
            )
        )
    )


@transaction.atomic
def write_prefills(
    name: str,
    version: int,
    chunk: Sequence[tuple[int, Any, Any]],
    outputs: Sequence[AlignerOutput],
    *,
    job_id: int | None = None,
) -> tuple[int, set[int]]:
    """Write the chunk's new prefills; the number of links and the pairs written.

    The job chose its pairs before it trained and aligned, which can take many minutes; a pair
    an annotator opened since keeps the prefill its annotation was made from, so the chunk's
    pairs are checked again here. Opening locks the assignment (SQLite: the write lock of the
    transaction), so locking the chunk's assignments first leaves no moment between the check
    and the write in which a pair could be opened. With ``job_id``, the job's row is locked
    too and :class:`JobCancelled` raised if it is no longer running: a cancel waits for the
    write, and nothing is written after it."""
    ids = [pid for pid, _, _ in chunk]
    done: dict[int, int] = {}
    if job_id is not None:
        running = Job.objects.select_for_update().filter(pk=job_id, status=Job.Status.RUNNING)
        created = running.values_list("created_at", flat=True).first()
        if created is None:
            raise JobCancelled(f"job {job_id} is no longer running")
        done = _written_since(ids, aligner=name, since=created)
    list(Assignment.objects.select_for_update().filter(pair_id__in=ids).values_list("pk"))
    started = set(
        SentencePair.objects.filter(pk__in=ids)
        .annotate(started=Exists(started_here()))
        .filter(started=True)
        .values_list("pk", flat=True)
    )
    kept = [
        (row, output)
        for row, output in zip(chunk, outputs, strict=True)
        if row[0] not in started and row[0] not in done
    ]
    chunk = [row for row, _ in kept]
    outputs = [output for _, output in kept]
    alignments = AutoAlignment.objects.bulk_create(
        AutoAlignment(
            pair_id=pid,
            aligner=name,
            aligner_version=str(version),
            expected_corrections=uncertainty(output),
        )
        for (pid, _, _), output in zip(chunk, outputs, strict=True)
    )
    written = links_insert(
        model=AutoLink,
        parent_column="alignment_id",
        rows=(
            (row.pk, i, j, sure, output.confidence[(i, j)])
            for row, output in zip(alignments, outputs, strict=True)
            for i, j, sure in link_rows(output.alignment)
        ),
        with_confidence=True,
    )
    _recount_edits(
        {pid: output.alignment for (pid, _, _), output in zip(chunk, outputs, strict=True)}
    )
    return written + sum(done.values()), {pid for pid, _, _ in chunk} | set(done)


def _written_since(ids: Sequence[int], *, aligner: str, since: Any) -> dict[int, int]:
    """The pairs among ``ids`` that ``aligner`` prefilled since ``since`` (a job's creation),
    with their links' count. A corpus has one prefill job at a time, so these are the job's
    own: a chunk run again after its pool process died between its write and its
    acknowledgement finds its pairs written, and counts them instead of writing them twice."""
    rows = (
        AutoAlignment.objects.filter(pair_id__in=ids, aligner=aligner, created_at__gte=since)
        .annotate(link_count=Count("links"))
        .values_list("pair_id", "link_count")
    )
    return dict(rows)


def _recount_edits(prefills: Mapping[int, Alignment]) -> None:
    """Annotations on pairs that just got a new prefill (imported work: nobody opened them
    here) count their edits against it."""
    annotations = dict(
        Annotation.objects.filter(assignment__pair_id__in=list(prefills)).values_list(
            "id", "assignment__pair_id"
        )
    )
    if not annotations:
        return
    links: dict[int, set[tuple[int, int]]] = defaultdict(set)
    for annotation_id, i, j in AnnotationLink.objects.filter(
        annotation_id__in=list(annotations)
    ).values_list("annotation_id", "i", "j"):
        links[annotation_id].add((i, j))
    Annotation.objects.bulk_update(
        [
            Annotation(
                id=annotation_id,
                prefill_edits=edits_from_prefill(links[annotation_id], prefills[pid].possible),
            )
            for annotation_id, pid in annotations.items()
        ],
        ["prefill_edits"],
        batch_size=WRITE_CHUNK,
    )


# --- reading alignments back, and the evaluation against the gold ------------------------------


#: Sure and possible links of one alignment, as read by :func:`links_by`.
Links = tuple[list[tuple[int, int]], list[tuple[int, int]]]


def links_by(rows: QuerySet[Any, tuple[int, int, int, bool]]) -> dict[int, Links]:
    """``(key, i, j, sure)`` link rows grouped by key. Read as plain values, not model objects:
    a corpus of 20,000 finished pairs holds some 170,000 links, and an object for each would
    cost a prefill job seconds at its end, while its progress already says 99 %."""
    grouped: dict[int, Links] = {}
    for key, i, j, is_sure in rows.iterator(chunk_size=10_000):
        sure, possible = grouped.setdefault(key, ([], []))
        (sure if is_sure else possible).append((i, j))
    return grouped


def alignment_of(shape: tuple[int, int], links: Links | None) -> Alignment:
    sure, possible = links or ([], [])
    return Alignment.from_links(*shape, sure, possible)


def gold_alignments(
    corpus: Corpus,
    shapes: Mapping[int, tuple[int, int]],
    pair_ids: Sequence[int] | None = None,
) -> dict[int, Alignment]:
    """The adjudicated gold alignment of every pair of the corpus that has one (of
    ``pair_ids`` only, if given), by pair id; ``shapes`` gives each such pair's ``(N, M)``."""
    golds = GoldAlignment.objects.filter(pair__corpus=corpus)
    gold_links = GoldLink.objects.filter(gold__pair__corpus=corpus)
    if pair_ids is not None:
        golds = golds.filter(pair_id__in=list(pair_ids))
        gold_links = gold_links.filter(gold__pair_id__in=list(pair_ids))
    links = links_by(gold_links.values_list("gold__pair_id", "i", "j", "sure"))
    pairs = golds.values_list("pair_id", flat=True)
    return {pid: alignment_of(shapes[pid], links.get(pid)) for pid in pairs}


def _newest_prefills(pair_ids: Sequence[int], aligner: str) -> dict[int, Alignment]:
    """The newest prefill by ``aligner`` of each of ``pair_ids``, by pair id."""
    newest: dict[int, tuple[int, tuple[int, int]]] = {}
    for alignment_id, pid, n, m in (
        AutoAlignment.objects.filter(pair_id__in=list(pair_ids), aligner=aligner)
        .order_by("pair_id", "-created_at", "-id")
        .values_list("id", "pair_id", "pair__n_source", "pair__n_target")
    ):
        newest.setdefault(pid, (alignment_id, (n, m)))
    links = links_by(
        AutoLink.objects.filter(
            alignment_id__in=[alignment_id for alignment_id, _ in newest.values()]
        ).values_list("alignment_id", "i", "j", "sure")
    )
    return {
        pid: alignment_of(shape, links.get(alignment_id))
        for pid, (alignment_id, shape) in newest.items()
    }


def evaluate_against_gold(
    corpus: Corpus, written: Sequence[int], *, aligner: str, trained_on_gold: bool
) -> dict[str, Any] | None:
    """Och & Ney precision, recall, F1 and AER of the new prefills of the pairs ``written``
    (read back as stored) against the adjudicated gold (identical links kept and left out,
    Cohn et al. 2008, §3); ``None`` without gold."""
    with_gold = set(
        GoldAlignment.objects.filter(pair__corpus=corpus, pair_id__in=list(written)).values_list(
            "pair_id", flat=True
        )
    )
    if not with_gold:
        return None
    tokens = {
        pid: (src, tgt)
        for pid, src, tgt in SentencePair.objects.filter(pk__in=list(with_gold)).values_list(
            "id", "source_tokens", "target_tokens"
        )
    }
    shapes = {pid: (len(src), len(tgt)) for pid, (src, tgt) in tokens.items()}
    gold = gold_alignments(corpus, shapes, list(with_gold))
    prefills = _newest_prefills(sorted(with_gold), aligner)
    compared = [
        ComparePair(
            candidate=prefills[pid],
            reference=gold[pid],
            source=tokens[pid][0],
            target=tokens[pid][1],
        )
        for pid in written
        if pid in gold and pid in prefills
    ]
    if not compared:
        return None
    return {
        "pairs": len(compared),
        "reference": "adjudicated gold",
        "trained_on_gold": trained_on_gold,
        "all_links": corpus_scores(compared, exclude_identical=False).overall.to_dict(),
        "non_identical": corpus_scores(compared).overall.to_dict(),
    }
