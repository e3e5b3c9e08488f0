"""Prefill a corpus with an automatic alignment: a background job.

The aligner is trained on every pair of the corpus (EM needs them all) and, if it learns from
gold, on the corpus' finished work: the adjudicated gold alignment of a pair, else the majority
of its submitted annotations. New prefills are written only for pairs nobody has started in this
tool, so an annotator never finds the grid changed under them and every edit rate is counted
against the prefill the annotator saw; the newest prefill of a pair is the one shown. Annotations
that arrived by import were not made from any prefill here, so their pairs are prefilled too (a
prefill never touches an annotator's links). Where gold exists, the job's result carries the new
prefill's precision, recall and F1 against it.

Retraining as annotations accumulate: a corpus may name a learning aligner
(``Corpus.prefill_aligner``); Celery beat runs :func:`prefills_retrain_due` periodically, which
queues a new prefill job for each such corpus once ``prefill_retrain_every`` more pairs are
finished than when its last prefill job with that aligner was queued (whatever became of that
job, so a failing configuration is not retried on every tick), and never while one is queued or
running. The retraining uses the aligner options stored with the setting
(``Corpus.prefill_options``).

Aligner options come from the job (``parameters["options"]``, checked when it is queued by the
aligner's options dataclass, :mod:`scoring.aligners.options`) on top of the server's settings:
``PPDB_PATH`` goes to every aligner with a ``ppdb`` option. Options naming a file (an options
class's ``paths``) are never taken from a request, so nobody points the server at a file.
"""

from __future__ import annotations

import logging
import os
import time
from collections import defaultdict
from collections.abc import Callable, Mapping
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Exists, OuterRef, QuerySet

from annotate.exceptions import DomainError, quoted
from annotate.jobs_runtime import DEFERRED, Deferred, job_check_running, job_task
from annotate.models import (
    TRIAL_SPLIT,
    AnnotationLink,
    Assignment,
    Corpus,
    Job,
    SentencePair,
    validate_learning_aligner,
)
from annotate.selectors import corpora as corpora_reads
from annotate.services.corpora import corpus_in_use_check
from annotate.services.prefill_chunks import (
    alignment_of,
    feature_store_use,
    gold_alignments,
    links_by,
    prefill_chord_send,
    prefill_chunks_of,
    prefill_model_discard,
    prefill_model_save,
    prefill_result,
    started_here,
)
from scoring.aligners import available_aligners, get_aligner
from scoring.aligners.base import aligner_class
from scoring.alignment.links import Alignment
from scoring.alignment.majority import majority_alignment
from scoring.errors import ScoringError
from scoring.progress import progress_part
from scoring.resource_needs import resource_needs

logger = logging.getLogger(__name__)


#: Where the server takes each option naming a file from.
_PATH_SETTINGS = {"ppdb": "the server's setting PPDB_PATH"}


#: Below this many finished pairs a request reads their alignments to ask the aligner whether
#: it can learn from them (``Aligner.training_refusal``); above, the job's training asks it.
FEW_FINISHED = 1_000
#: Retraining after more newly finished pairs than this would never happen on a real corpus.
MAX_RETRAIN_EVERY = 1_000_000


class PrefillError(DomainError):
    code = "prefill_failed"


class PrefillBusy(PrefillError):
    """Another prefill of the corpus is queued or running: a conflict with it, not bad input."""

    status_code = 409
    code = "prefill_busy"


class PrefillTooLittleWork(PrefillError):
    """The finished work is too little for the aligner to learn from: a retraining waits for
    more rather than failing."""


def _require_aligner(name: str) -> None:
    if name not in available_aligners():
        raise PrefillError(
            f"unknown aligner {name!r}; available: {', '.join(available_aligners())}"
        )


def prefill_options_validate(*, aligner: str, options: Mapping[str, Any]) -> dict[str, Any]:
    """The options of a prefill job, checked by the aligner's options dataclass and typed as it
    takes them (only those given).

    Unknown options, wrong types and values out of range raise
    :class:`~scoring.errors.OptionsError` naming the option; options naming a file (e.g.
    ``ppdb``) raise :class:`PrefillError`: those come from the server's settings only.
    """
    _require_aligner(aligner)
    options_class = aligner_class(aligner).options_class
    for key in options:
        if key in options_class.paths:
            raise PrefillError(
                f"option {key!r} names a file on the server, so a prefill cannot set it; the "
                f"path comes from {_PATH_SETTINGS.get(key, 'the server settings')}",
                field=key,
            )
    checked = options_class.from_dict(options).to_dict()
    return {key: checked[key] for key in options}


def prefill_request_check(
    *, corpus: Corpus, aligner: str, options: Mapping[str, Any] | None = None
) -> tuple[dict[str, Any], int]:
    """The checked options of a prefill and the corpus's finished pairs, or a
    :class:`PrefillError` naming the field for a job that could only fail: a corpus without
    pairs, an aligner told to fail without NLTK data this server lacks (``lexical`` with
    ``strict_resources``), or an aligner learning from finished work on a corpus that has none,
    or too little for it (its ``training_refusal``: the supervised aligner's trees need some
    links), the rules the job applies again when it runs."""
    checked = prefill_options_validate(aligner=aligner, options=options or {})
    needs = resource_needs(aligner=aligner, options=checked)
    if needs.fatal and needs.missing:
        raise PrefillError(str(needs.message()), field="aligner")
    if not SentencePair.objects.filter(corpus=corpus).exists():
        raise PrefillError(f"corpus {quoted(corpus.name)} has no pairs to prefill", field="aligner")
    finished = corpora_reads.corpus_finished_pair_count(corpus)
    if aligner_class(aligner).uses_gold and not finished:
        raise PrefillError(
            f"the {aligner} aligner learns from finished work (submitted annotations or gold "
            f"alignments, the {TRIAL_SPLIT} pairs' keys left out), and corpus "
            f"{quoted(corpus.name)} has none yet: choose another aligner, or prefill once pairs "
            "are submitted or adjudicated",
            field="aligner",
        )
    if aligner_class(aligner).uses_gold and finished < FEW_FINISHED:
        options_class = aligner_class(aligner).options_class
        refusal = aligner_class(aligner).training_refusal(
            list(_finished_work(corpus).values()), options_class.from_dict(checked)
        )
        if refusal is not None:
            raise PrefillTooLittleWork(
                f"corpus {quoted(corpus.name)} has too little finished work for this prefill: "
                f"{refusal}",
                field="aligner",
            )
    return checked, finished


def _active_prefills(corpus: Corpus) -> QuerySet[Job]:
    """The corpus's prefill jobs still queued or running (one at a time writes its pairs)."""
    return Job.objects.filter(
        corpus=corpus, kind="prefill", status__in=[Job.Status.PENDING, Job.Status.RUNNING]
    )


@transaction.atomic
def prefill_job_create(
    *,
    corpus: Corpus,
    aligner: str,
    owner: User | None = None,
    trigger: str = "request",
    options: Mapping[str, Any] | None = None,
) -> Job:
    """Queue a prefill job; records how many pairs were finished, the retraining baseline, and
    the aligner options. A request that could only fail queues nothing
    (:func:`prefill_request_check`), and so does one while another prefill of the corpus is
    queued or running (:class:`PrefillBusy`; the same request again returns that job). The
    corpus row is locked for the check, as the retraining check locks it."""
    corpus = Corpus.objects.select_for_update().get(pk=corpus.pk)
    checked, finished = prefill_request_check(corpus=corpus, aligner=aligner, options=options)
    parameters = {
        "aligner": aligner,
        "trigger": trigger,
        "finished_pairs": finished,
        "options": checked,
    }
    active = _active_prefills(corpus).order_by("created_at", "id")
    other = next((job for job in active if job.parameters != parameters), None)
    if other is not None:
        # two prefills writing the same pairs chunk by chunk would leave each pair with
        # whichever finished it last: a corpus prefilled by two aligners at random
        raise PrefillBusy(
            f"prefill #{other.pk} ({other.parameters.get('aligner', '?')}) is still "
            f"{other.status} on corpus {quoted(corpus.name)}: wait for it to end, or cancel it",
            field="aligner",
        )
    # the same request again while it is queued or running returns that job (``job_create``)
    return prefill_run.create(corpus=corpus, owner=owner, parameters=parameters)


@transaction.atomic
def prefill_queue(
    *,
    corpus: Corpus,
    aligner: str,
    retrain_every: int | None = None,
    owner: User | None = None,
    trigger: str = "request",
    options: Mapping[str, Any] | None = None,
) -> Job:
    """Queue a prefill job and, in the same transaction, set automatic retraining.

    ``retrain_every``: ``None`` leaves the corpus' setting as it is, ``0`` switches automatic
    retraining off (and forgets its options), ``N ≥ 1`` retrains ``aligner`` with ``options``
    after every N newly finished pairs. A refused request (:func:`prefill_request_check`)
    changes no setting: the transaction that set it is rolled back.
    """
    corpus_in_use_check(corpus, doing="prefilling it")
    if retrain_every == 0:
        corpus_prefill_configure(
            corpus=corpus, aligner="", retrain_every=corpus.prefill_retrain_every
        )
    elif retrain_every is not None:
        corpus_prefill_configure(
            corpus=corpus, aligner=aligner, retrain_every=retrain_every, options=options
        )
    return prefill_job_create(
        corpus=corpus, aligner=aligner, owner=owner, trigger=trigger, options=options
    )


@transaction.atomic
def corpus_prefill_configure(
    *,
    corpus: Corpus,
    aligner: str,
    retrain_every: int,
    options: Mapping[str, Any] | None = None,
) -> Corpus:
    """Set (or with ``aligner=""`` switch off) automatic retraining of a corpus' prefill, with
    the aligner options it uses (none when it is switched off)."""
    try:
        validate_learning_aligner(aligner)
    except ValidationError as error:
        raise PrefillError(" ".join(error.messages)) from None
    if not 1 <= retrain_every <= MAX_RETRAIN_EVERY:
        raise PrefillError(
            f"retrain_every must be between 1 and {MAX_RETRAIN_EVERY:,}, not {retrain_every}",
            field="retrain_every",
        )
    checked = prefill_options_validate(aligner=aligner, options=options or {}) if aligner else {}
    corpus = Corpus.objects.select_for_update().get(pk=corpus.pk)
    corpus.prefill_aligner = aligner
    corpus.prefill_retrain_every = retrain_every
    corpus.prefill_options = checked
    corpus.save(update_fields=["prefill_aligner", "prefill_retrain_every", "prefill_options"])
    return corpus


@transaction.atomic
def corpus_queue_order_set(*, corpus: Corpus, order: str) -> Corpus:
    """Which of an annotator's planned pairs of ``corpus`` opens next: corpus order, or the
    least sure prefill first (see ``Corpus.queue_order``). Refused on an archived corpus
    (:func:`corpus_in_use_check`): the order decides who gets which work next."""
    if order not in Corpus.QueueOrder.values:
        choices = ", ".join(repr(value) for value in Corpus.QueueOrder.values)
        raise PrefillError(f"queue order must be one of {choices}, not {order!r}", field="order")
    corpus = Corpus.objects.select_for_update().get(pk=corpus.pk)
    corpus_in_use_check(corpus, doing="changing its queue order")
    corpus.queue_order = order
    corpus.save(update_fields=["queue_order"])
    return corpus


def prefill_retrain_progress(corpus: Corpus) -> tuple[int, int]:
    """Pairs with finished work now, and when the last prefill of the corpus's retrained aligner
    was queued: retraining is due when the first exceeds the second by ``prefill_retrain_every``."""
    last = (
        Job.objects.filter(
            corpus=corpus, kind="prefill", parameters__aligner=corpus.prefill_aligner
        )
        .order_by("-created_at", "-id")
        .first()
    )
    baseline = 0
    if last is not None:
        baseline = int(
            last.parameters.get("finished_pairs", (last.result or {}).get("trained_on_gold", 0))
        )
    return corpora_reads.corpus_finished_pair_count(corpus), baseline


@transaction.atomic
def prefill_retrain_if_due(*, corpus_id: int) -> Job | None:
    """Queue a retraining prefill job for the corpus if enough new work is finished."""
    corpus = Corpus.objects.select_for_update().get(pk=corpus_id)  # one check at a time
    name = corpus.prefill_aligner
    if not name or corpus.archived_at is not None:  # an archived corpus is not retrained
        return None
    if _active_prefills(corpus).exists():
        return None
    finished, baseline = prefill_retrain_progress(corpus)
    if finished - baseline < corpus.prefill_retrain_every:
        return None
    logger.info(
        "corpus %s: %d pairs finished (%d at the last %s prefill): retraining",
        corpus.name,
        finished,
        baseline,
        name,
    )
    return prefill_job_create(
        corpus=corpus, aligner=name, trigger="retrain", options=corpus.prefill_options
    )


def prefills_retrain_due() -> list[Job]:
    """Periodic check over every corpus with automatic retraining; the jobs it queued.

    A corpus whose stored options its aligner no longer accepts is logged and skipped, so it
    does not hold up the others.
    """
    queued = []
    retrained = Corpus.objects.exclude(prefill_aligner="").filter(archived_at__isnull=True)
    for corpus_id in retrained.values_list("id", flat=True):
        try:
            job = prefill_retrain_if_due(corpus_id=corpus_id)
        except PrefillTooLittleWork as error:  # asked again at the next round
            logger.info("corpus %s: prefill retraining waits for more work: %s", corpus_id, error)
            continue
        except (PrefillError, ScoringError) as error:
            logger.error("corpus %s: prefill retraining not queued: %s", corpus_id, error)
            continue
        if job is not None:
            queued.append(job)
    return queued


def _aligner_options(name: str, options: Mapping[str, Any]) -> dict[str, Any]:
    """Options to build aligner ``name`` with: the server's settings, ``options`` on top."""
    out: dict[str, Any] = {}
    known = aligner_class(name).options_class.names()
    if settings.PPDB_PATH and "ppdb" in known:
        out["ppdb"] = settings.PPDB_PATH
    out.update(options)
    return out


def _finished_work(corpus: Corpus) -> dict[int, Alignment]:
    """Gold per pair id: the adjudicated alignment, else the majority of submitted annotations.

    A trial pair's gold alignment is left out: it is the key its annotators' feedback is scored
    against, and a learning aligner trained on it prefilled the trial pairs nobody had opened
    with nearly that key (a trainee accepting the prefill was told they agree with the gold).
    The majority of a trial pair's submitted annotations is finished work like any other."""
    shapes = {
        pid: (n, m)
        for pid, n, m in SentencePair.objects.filter(corpus=corpus).values_list(
            "id", "n_source", "n_target"
        )
    }
    submitted = dict(
        Assignment.objects.filter(
            pair__corpus=corpus, status=Assignment.Status.SUBMITTED, annotation__isnull=False
        ).values_list("annotation__id", "pair_id")
    )
    links_of = links_by(
        AnnotationLink.objects.filter(annotation_id__in=list(submitted)).values_list(
            "annotation_id", "i", "j", "sure"
        )
    )
    annotations_of: dict[int, list[Alignment]] = defaultdict(list)
    for annotation_id, pid in sorted(submitted.items()):
        annotations_of[pid].append(alignment_of(shapes[pid], links_of.get(annotation_id)))
    result = {pid: majority_alignment(found) for pid, found in annotations_of.items()}

    trial = set(
        SentencePair.objects.filter(corpus=corpus, split=TRIAL_SPLIT).values_list("id", flat=True)
    )
    gold = gold_alignments(corpus, shapes)
    # adjudicated gold wins, even an empty one
    result.update((pid, alignment) for pid, alignment in gold.items() if pid not in trial)
    return result


def _corpus_rows(corpus: Corpus) -> list[tuple[int, list[str], list[str]]]:
    """``(pair id, source tokens, target tokens)`` of every pair in corpus order, each distinct
    token one string object: read as JSON, every occurrence would be a string of its own, about
    60 bytes each (a sixth of a gigabyte at 60,000 pairs), held for the whole job."""
    words: dict[str, str] = {}
    return [
        (pid, [words.setdefault(w, w) for w in src], [words.setdefault(w, w) for w in tgt])
        for pid, src, tgt in SentencePair.objects.filter(corpus=corpus)
        .order_by("position")
        .values_list("id", "source_tokens", "target_tokens")
        .iterator(chunk_size=2000)
    ]


@job_task(kind="prefill")
def prefill_run(job: Job, progress: Callable[[float, str], None]) -> dict[str, Any] | Deferred:
    """Job runner: train the aligner on the corpus, save it, and hand the aligning of the pairs
    nobody started to a Celery chord of chunk tasks (:mod:`annotate.services.prefill_chunks`),
    whose callback finishes the job. Training reports its stages up to ``aligned_from``
    percent; the chunks share the rest as they end."""
    name = str(job.parameters.get("aligner", ""))
    _require_aligner(name)
    if job.corpus is None:
        raise PrefillError("a prefill job needs a corpus")
    corpus = job.corpus
    corpus_in_use_check(corpus, doing="prefilling it")  # archived since it was queued
    rows = _corpus_rows(corpus)
    if not rows:
        raise PrefillError(f"corpus {quoted(corpus.name)} has no pairs")
    aligner = get_aligner(name, **_aligner_options(name, job.parameters.get("options", {})))
    pairs = [(src, tgt) for _, src, tgt in rows]
    gold: list[Alignment | None] | None = None
    if aligner.uses_gold:
        finished = _finished_work(corpus)
        if not finished:
            raise PrefillError(
                f"the {name!r} aligner learns from finished annotations, and corpus "
                f"{quoted(corpus.name)} has none yet"
            )
        gold = [finished.get(pid) for pid, _, _ in rows]
    aligned_from = 50 if aligner.needs_training else 10
    progress(2, f"training {name} on {len(pairs)} pairs")
    started = time.perf_counter()
    feature_store_use()
    aligner.fit(pairs, gold, progress=progress_part(progress, 2, aligned_from, f"{name}: "))
    logger.info(
        "prefill job %s: %s trained on %d pairs in process %d in %.1f s",
        job.pk,
        name,
        len(pairs),
        os.getpid(),
        time.perf_counter() - started,
    )
    summary = {
        "corpus": corpus.name,
        "aligner": name,
        "aligner_version": aligner.version,
        "options": aligner.options.to_dict(),
        "trained_on_pairs": len(pairs),
        "trained_on_gold": sum(g is not None for g in gold) if gold is not None else 0,
        "uses_gold": aligner.uses_gold,
    }
    todo = [pid for pid, _, _ in _pairs_to_prefill(corpus, rows)]
    del rows, pairs, gold  # the chunks read their own pairs; this process waits for none
    if not todo:  # every pair started: nothing to align
        return prefill_result(job=job, summary=summary, chunk_results=[])
    chunks = prefill_chunks_of(todo)
    progress(aligned_from, f"saving the trained {name} aligner for {len(chunks)} chunk(s)")
    prefill_model_save(job_id=job.pk, aligner=aligner)
    progress(aligned_from, f"aligning {len(todo)} pairs in {len(chunks)} chunk(s)")
    try:
        job_check_running(job_id=job.pk)
        prefill_chord_send(job_id=job.pk, chunks=chunks, summary=summary, percent=99 - aligned_from)
    except BaseException:
        prefill_model_discard(job.pk)
        raise
    return DEFERRED


def _pairs_to_prefill(
    corpus: Corpus, rows: list[tuple[int, list[str], list[str]]]
) -> list[tuple[int, list[str], list[str]]]:
    """The rows of the pairs nobody started here, those with open (new or in progress)
    assignments first, each part in corpus order: aligning every pair of a large corpus takes
    a long while, and the planned pairs are the ones annotators open next, so they get the new
    prefill (and the least-sure queue order its expected corrections) first."""
    targets = dict(
        SentencePair.objects.filter(corpus=corpus)
        .annotate(
            started=Exists(started_here()),
            planned=Exists(
                Assignment.objects.filter(
                    pair=OuterRef("pk"),
                    status__in=[Assignment.Status.NEW, Assignment.Status.IN_PROGRESS],
                )
            ),
        )
        .filter(started=False)
        .values_list("id", "planned")
    )
    todo = [row for row in rows if row[0] in targets]
    return [row for row in todo if targets[row[0]]] + [row for row in todo if not targets[row[0]]]
