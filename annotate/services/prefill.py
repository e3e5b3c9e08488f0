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
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Exists, OuterRef, QuerySet

from annotate.conversions import link_rows
from annotate.exceptions import DomainError, quoted
from annotate.jobs_runtime import JobCancelled, job_check_running, job_finish, job_task
from annotate.models import (
    TRIAL_SPLIT,
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
    validate_learning_aligner,
)
from annotate.selectors import corpora as corpora_reads
from annotate.services.annotations import edits_from_prefill
from annotate.services.corpora import corpus_in_use_check
from annotate.services.links import links_insert
from scoring.aligners import AlignerOutput, available_aligners, get_aligner
from scoring.aligners.base import Aligner, aligner_class
from scoring.aligners.corrections import uncertainty
from scoring.alignment.links import Alignment
from scoring.alignment.majority import majority_alignment
from scoring.alignment.metrics import ComparePair, corpus_scores
from scoring.errors import ScoringError
from scoring.progress import progress_part
from scoring.resource_needs import resource_needs

logger = logging.getLogger(__name__)

WRITE_CHUNK = 200


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
    links_of = _links_by(
        AnnotationLink.objects.filter(annotation_id__in=list(submitted)).values_list(
            "annotation_id", "i", "j", "sure"
        )
    )
    annotations_of: dict[int, list[Alignment]] = defaultdict(list)
    for annotation_id, pid in sorted(submitted.items()):
        annotations_of[pid].append(_alignment(shapes[pid], links_of.get(annotation_id)))
    result = {pid: majority_alignment(found) for pid, found in annotations_of.items()}

    trial = set(
        SentencePair.objects.filter(corpus=corpus, split=TRIAL_SPLIT).values_list("id", flat=True)
    )
    gold = _gold_alignments(corpus, shapes)
    # adjudicated gold wins, even an empty one
    result.update((pid, alignment) for pid, alignment in gold.items() if pid not in trial)
    return result


#: Sure and possible links of one alignment, as read by :func:`_links_by`.
_Links = tuple[list[tuple[int, int]], list[tuple[int, int]]]


def _links_by(rows: QuerySet[Any, tuple[int, int, int, bool]]) -> dict[int, _Links]:
    """``(key, i, j, sure)`` link rows grouped by key. Read as plain values, not model objects:
    a corpus of 20,000 finished pairs holds some 170,000 links, and an object for each would
    cost a prefill job seconds at its end, while its progress already says 100 %."""
    grouped: dict[int, _Links] = {}
    for key, i, j, is_sure in rows.iterator(chunk_size=10_000):
        sure, possible = grouped.setdefault(key, ([], []))
        (sure if is_sure else possible).append((i, j))
    return grouped


def _alignment(shape: tuple[int, int], links: _Links | None) -> Alignment:
    sure, possible = links or ([], [])
    return Alignment.from_links(*shape, sure, possible)


def _gold_alignments(corpus: Corpus, shapes: Mapping[int, tuple[int, int]]) -> dict[int, Alignment]:
    """The adjudicated gold alignment of every pair of the corpus that has one, by pair id;
    ``shapes`` gives each pair's ``(N, M)``."""
    links = _links_by(
        GoldLink.objects.filter(gold__pair__corpus=corpus).values_list(
            "gold__pair_id", "i", "j", "sure"
        )
    )
    pairs = GoldAlignment.objects.filter(pair__corpus=corpus).values_list("pair_id", flat=True)
    return {pid: _alignment(shapes[pid], links.get(pid)) for pid in pairs}


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
def prefill_run(job: Job, progress: Callable[[float, str], None]) -> dict[str, Any]:
    """Job runner: train the aligner on the corpus, then prefill the pairs nobody started.
    Training reports its stages up to ``aligned_from`` percent, aligning the rest."""
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
    aligned_from = 50.0 if aligner.needs_training else 10.0
    progress(2, f"training {name} on {len(pairs)} pairs")
    aligner.fit(pairs, gold, progress=progress_part(progress, 2, aligned_from, f"{name}: "))

    todo = _pairs_to_prefill(corpus, rows)
    run = _PrefillWriting(job=job, aligner=aligner, name=name, progress=progress)
    try:
        run.align_and_write(todo, aligned_from)
    except JobCancelled:
        # Each chunk written before the cancel stays whole: the runs list says how much.
        Job.objects.filter(pk=job.pk).update(
            result={"aligner": name, "prefilled_pairs": len(run.written), "links": run.links}
        )
        raise
    links, written, warnings = run.links, run.written, run.warnings
    result = {
        "corpus": corpus.name,
        "aligner": name,
        "aligner_version": aligner.version,
        "options": aligner.options.to_dict(),
        "trained_on_pairs": len(pairs),
        "trained_on_gold": sum(g is not None for g in gold) if gold is not None else 0,
        "prefilled_pairs": len(written),
        "skipped_started_pairs": len(rows) - len(written),
        "links": links,
        "warnings": sorted(warnings),
        "evaluation": _evaluate_against_gold(
            corpus,
            {pid: (list(src), list(tgt)) for pid, src, tgt in rows},
            written,
            trained_on_gold=aligner.uses_gold,
        ),
    }
    if not job_finish(job_id=job.pk, result=result):
        # Cancelled after its last write: its prefills stay, as those written before a cancel
        # midway do, and the cancelled job says what it wrote (the runs list reads it).
        Job.objects.filter(pk=job.pk, status=Job.Status.CANCELLED).update(result=result)
        raise JobCancelled(f"job {job.pk} is no longer running")
    return result


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
            started=Exists(_started_here()),
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


@dataclass
class _PrefillWriting:
    """The aligning and writing of a prefill run, chunk by chunk, and what it has written."""

    job: Job
    aligner: Aligner
    name: str
    progress: Callable[[float, str], None]
    links: int = 0
    written: list[tuple[int, Alignment]] = field(default_factory=list)
    warnings: set[str] = field(default_factory=set)

    def align_and_write(self, todo: list[tuple[int, Any, Any]], aligned_from: float) -> None:
        for start in range(0, len(todo), WRITE_CHUNK):
            chunk = todo[start : start + WRITE_CHUNK]
            outputs = []
            for done, (_, src, tgt) in enumerate(chunk, start + 1):
                outputs.append(self.aligner.align(src, tgt))
                self.warnings.update(outputs[-1].warnings)
                # A chunk of a slow aligner takes minutes: a report per pair (most are held
                # back) moves the message, and a cancel frees the worker within a pair.
                self.progress(
                    min(99.0, aligned_from + (100 - aligned_from) * done / len(todo)),
                    f"aligned {done} of {len(todo)} pairs",
                )
            # Most reports between two writes are held back (progress writes twice a second),
            # so the job's status is read before each write: nothing is written after a cancel.
            job_check_running(job_id=self.job.pk)
            chunk_links, chunk_written = _write_prefills(
                self.name, self.aligner.version, chunk, outputs
            )
            self.links += chunk_links
            self.written.extend(
                (pid, output.alignment)
                for (pid, _, _), output in zip(chunk, outputs, strict=True)
                if pid in chunk_written
            )
            done = start + len(chunk)
            percent = aligned_from + (100 - aligned_from) * done / len(todo)
            self.progress(percent, f"prefilled {done} of {len(todo)} pairs")


def _started_here() -> QuerySet[Assignment]:
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


def _evaluate_against_gold(
    corpus: Corpus,
    tokens: Mapping[int, tuple[list[str], list[str]]],
    written: Sequence[tuple[int, Alignment]],
    *,
    trained_on_gold: bool,
) -> dict[str, Any] | None:
    """Och & Ney precision, recall, F1 and AER of the new prefills against the adjudicated gold
    (identical links kept and left out, Cohn et al. 2008, §3); ``None`` without gold."""
    shapes = {pid: (len(src), len(tgt)) for pid, (src, tgt) in tokens.items()}
    gold = _gold_alignments(corpus, shapes)
    compared = [
        ComparePair(
            candidate=prefill,
            reference=gold[pid],
            source=tokens[pid][0],
            target=tokens[pid][1],
        )
        for pid, prefill in written
        if pid in gold
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


@transaction.atomic
def _write_prefills(
    name: str,
    version: int,
    chunk: Sequence[tuple[int, Any, Any]],
    outputs: Sequence[AlignerOutput],
) -> tuple[int, set[int]]:
    """Write the chunk's new prefills; the number of links and the pairs written.

    The job chose its pairs before it trained and aligned, which can take many minutes; a pair
    an annotator opened since keeps the prefill its annotation was made from, so the chunk's
    pairs are checked again here. Opening locks the assignment (SQLite: the write lock of the
    transaction), so locking the chunk's assignments first leaves no moment between the check
    and the write in which a pair could be opened."""
    ids = [pid for pid, _, _ in chunk]
    list(Assignment.objects.select_for_update().filter(pair_id__in=ids).values_list("pk"))
    started = set(
        SentencePair.objects.filter(pk__in=ids)
        .annotate(started=Exists(_started_here()))
        .filter(started=True)
        .values_list("pk", flat=True)
    )
    kept = [
        (row, output) for row, output in zip(chunk, outputs, strict=True) if row[0] not in started
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
    return written, {pid for pid, _, _ in chunk}


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
