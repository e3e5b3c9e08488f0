"""Train the similarity scorers on a corpus and use them.

Training data are a split's pairs with a target: the gold score (regression), the gold label
(classification) or the mean of the annotators' 0–5 similarity ratings (regression). The trained
model is stored in a :class:`~annotate.models.ScorerModel` row with its evaluation on the train
and test splits.

A scorer's options are checked by its options dataclass (:mod:`scoring.scorers.options`) when
the job is queued; options naming a file are never taken from a request or a command: the
combined scorer's PPDB table comes from the server's setting ``PPDB_PATH``.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from time import monotonic
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.signals import request_started
from django.db import connection, transaction
from django.db.models import Avg, F, OuterRef, Subquery
from django.utils import timezone

from annotate.converters import id_or_none
from annotate.exceptions import Conflict, DomainError, NotFound, quoted
from annotate.jobs_runtime import JobCancelled, job_finish, job_task
from annotate.models import Assignment, Corpus, Job, ScorerModel, SentencePair
from annotate.services.import_stage import first_invisible
from scoring.formats import MAX_TOKENS
from scoring.progress import progress_part
from scoring.resource_needs import resource_needs
from scoring.resources import nltk_import
from scoring.scorers.base import (
    TokenPair,
    evaluate,
    get_scorer,
    scorer_class,
    scorer_from_dict,
    scorer_kinds,
)
from scoring.scorers.preload import scorers_preload
from scoring.text import tokenize

if TYPE_CHECKING:
    from django.contrib.auth.models import User

logger = logging.getLogger(__name__)

TARGETS = ("gold_score", "gold_label", "rating")
#: The longest sentence (in characters) scored through the API; its tokens are limited to the
#: import's :data:`~scoring.formats.MAX_TOKENS`.
MAX_SENTENCE_CHARS = 5_000
#: The most pairs one ``score_pairs`` job scores.
MAX_JOB_PAIRS = 10_000
#: Pairs a job scores between two progress reports, where it stops when cancelled.
JOB_CHUNK = 20
#: Cells (source × target tokens) a job scores between two progress reports, unless one pair
#: has more: a pPDA pair of 200 × 200 tokens takes a minute, and twenty of them went by before
#: a cancelled job stopped.
JOB_CHUNK_CELLS = 2_500
#: Score jobs a user may have queued or running at once. Any signed-in user may queue one, and
#: one job may keep a worker busy for hours (10,000 long pairs): one at a time, every user
#: leaves the other workers to the corpus admins' jobs.
MAX_OPEN_SCORE_JOBS = 1


@dataclass(frozen=True)
class SyncLimit:
    """What one request may have scored inside the web process by one kind of scorer: pairs,
    cells of one pair (``n × m`` tokens) and cells of all its pairs together. Chosen from
    measurements of each scorer on its slowest input (identical or repeated words for the edit
    scorers), so that the slowest request within them takes well under a second;
    ``benchmarks/bench_worst_requests.py`` checks it. More is a ``score_pairs`` job."""

    pairs: int
    pair_cells: int
    cells: int


# Slowest single pairs measured on this project's two-core machine: PERP 60 × 60 shifted words
# 0.2 s; pFSM 120 × 120 0.26 s; pPDA 12 × 12 one repeated word 0.09 s (16 × 16: 0.2 s, its cost
# grows with the cube of the length); the MT features 250 × 250 0.03 s; the combined scorer
# 40 × 40 0.12 s. A loaded machine takes up to three times as long.
SYNC_LIMITS: dict[str, SyncLimit] = {
    "perp": SyncLimit(pairs=50, pair_cells=60 * 60, cells=7_200),
    "pfsm": SyncLimit(pairs=50, pair_cells=120 * 120, cells=25_000),
    "ppda": SyncLimit(pairs=20, pair_cells=12 * 12, cells=288),
    "mt": SyncLimit(pairs=100, pair_cells=250 * 250, cells=250_000),
    "combined": SyncLimit(pairs=50, pair_cells=50 * 50, cells=5_000),
}
#: Characters of all the sentences of a request together: tokenizing costs about 3 µs a
#: character, before the token counts can be checked.
MAX_SYNC_CHARS = 40_000
#: The most pairs a request to score may carry, whatever the scorer.
MAX_SYNC_PAIRS = max(limit.pairs for limit in SYNC_LIMITS.values())
#: Where a client sends pairs that are too many for a request.
AS_A_JOB = (
    "queue them as a job instead: POST /api/score/jobs/ with the same body, then read the "
    "scores from /api/jobs/<id>/result/"
)


class ScorerTrainingError(DomainError):
    code = "scorer_training_failed"


class ScorerResourcesMissing(ScorerTrainingError):
    """The scorer needs NLTK data or the sentence encoder, and this server lacks it: its
    training could only fail."""

    code = "resource_missing"


#: How a refusal names the missing sentence encoder among the missing packages.
ENCODER_NAME = "all-MiniLM-L6-v2"


def training_resources_check(*, kind: str, options: Mapping[str, Any]) -> None:
    """Refuse a training the scorer could only fail for want of NLTK data, or of the sentence
    encoder its options use (:func:`~scoring.resource_needs.resource_needs`), naming ``kind``,
    what is missing and the commands that install it."""
    needs = resource_needs(scorer=kind, options=options)
    if needs.lacking:
        raise ScorerResourcesMissing(
            str(needs.message()),
            field="kind",
            missing=[*needs.packages, *([ENCODER_NAME] if needs.encoder_missing else [])],
            command=" && ".join(c for c in (needs.command, needs.encoder_command) if c),
        )


#: Where the server takes each scorer option naming a file from.
_PATH_SETTINGS = {"ppdb": "the server's setting PPDB_PATH"}


def scorer_options_validate(*, kind: str, options: Mapping[str, Any]) -> dict[str, Any]:
    """The options given for a scorer of ``kind``, checked by its options dataclass and typed
    as it takes them. An unknown kind or option, a wrong type or a value out of range raises
    :class:`~scoring.errors.OptionsError` naming it; an option naming a file raises
    :class:`ScorerTrainingError`."""
    options_class = scorer_class(kind).options_class
    for key in options:
        if key in options_class.paths:
            where = _PATH_SETTINGS.get(key, "nowhere: scorers trained here do without it")
            raise ScorerTrainingError(
                f"option {key!r} names a file on the server, so a training job cannot set it; "
                f"the path comes from {where}",
                field=key,
            )
    checked = options_class.from_dict(options).to_dict()
    return {key: checked[key] for key in options}


@transaction.atomic
def scorer_train_job_create(
    *,
    corpus: Corpus,
    kind: str,
    train_split: str,
    test_split: str | None = None,
    target: str = "gold_score",
    options: Mapping[str, Any] | None = None,
    name: str | None = None,
    owner: User | None = None,
) -> Job:
    """Queue a ``train_scorer`` job. Everything the job would refuse before training is
    checked here, so a bad request queues nothing: the options, the NLTK data the scorer
    needs (:func:`training_resources_check`), that each split has pairs with
    the target and the training split enough of them for the scorer, and that no model has the
    name given and no queued training will take it. The job checks the splits and the name
    again (the corpus and the models may change before it runs)."""
    if target not in TARGETS:
        raise ScorerTrainingError(
            f"target must be one of {', '.join(TARGETS)}, got {target!r}", field="target"
        )
    checked = scorer_options_validate(kind=kind, options=options or {})
    training_resources_check(kind=kind, options=checked)
    name = scorer_name_check(name)
    training_split_check(corpus=corpus, split=train_split, target=target, field="train_split")
    training_targets_check(
        corpus=corpus, split=train_split, target=target, kind=kind, options=checked
    )
    if test_split and test_split == train_split:
        # its "test" figures would be the fit on the training pairs, read as held-out ones
        raise ScorerTrainingError(
            f"the test split {test_split!r} is the training split; choose another split, or "
            "none to be measured on the training split",
            field="test_split",
        )
    if test_split:
        training_split_check(corpus=corpus, split=test_split, target=target, field="test_split")
    parameters = {
        "kind": kind,
        "train_split": train_split,
        "test_split": test_split,
        "target": target,
        "options": checked,
        "name": name,
    }
    if name is not None:
        _name_check_free(name)
        _name_check_not_queued(name, corpus, parameters)
    return train_scorer_run.create(corpus=corpus, owner=owner, parameters=parameters)


def scorer_name_check(name: str | None) -> str | None:
    """The name a model is to be stored under, stripped (``None`` or blank: named after its
    training), or a :class:`DomainError` naming ``name``: a name holding a character not shown
    as itself (a bidirectional override showed ``x\u202egnp.exe`` as ``xexe.png``), or digits
    alone, which ``/api/score`` reads as a model's id (the model stored as ``7`` could not be
    asked for by its name, and asking for it scored with model #7)."""
    name = (name or "").strip()
    if not name:
        return None
    bad = first_invisible(name)
    if bad is not None:
        raise DomainError(
            f"a scorer model's name may not hold the invisible or control character "
            f"U+{ord(bad):04X}",
            field="name",
        )
    if name.isascii() and name.isdigit():
        raise DomainError(
            f"a scorer model's name may not be a number ({name!r}): models are asked for by "
            "id or name, and a number is read as an id",
            field="name",
        )
    return name


def _name_check_free(name: str) -> None:
    if ScorerModel.objects.filter(name=name).exists():
        raise Conflict(f"there is already a scorer model named {name!r}", field="name")


def _name_check_not_queued(name: str, corpus: Corpus, parameters: Mapping[str, Any]) -> None:
    """Refuse a name a queued or running training will store its model under, unless that
    training is this very request (which then gets that job)."""
    queued = Job.objects.filter(
        kind="train_scorer",
        status__in=[Job.Status.PENDING, Job.Status.RUNNING],
        parameters__name=name,
    ).order_by("pk")
    for job in queued:
        if job.parameters != parameters or job.corpus_id != corpus.pk:
            state = "queued" if job.status == Job.Status.PENDING else "running"
            raise Conflict(
                f"training job #{job.pk}, {state}, will store a scorer model named {name!r}",
                field="name",
            )


def _name_free(base: str) -> str:
    """``base``, or if a model has that name ``base-2``, ``base-3``, … (cut to fit the
    column): a model trained for an hour is stored rather than lost to a name taken while it
    trained."""
    longest = ScorerModel._meta.get_field("name").max_length or 200
    candidate = base[:longest]
    number = 1
    while ScorerModel.objects.filter(name=candidate).exists():
        number += 1
        suffix = f"-{number}"
        candidate = base[: longest - len(suffix)] + suffix
    return candidate


def task_of(target: str) -> str:
    return "classification" if target == "gold_label" else "regression"


def _training_rows(corpus: Corpus, split: str, target: str) -> Any:
    """``(source tokens, target tokens, target value)`` of the split's pairs that have the
    target, in corpus order."""
    return _training_pairs(corpus, split, target).values_list(
        "source_tokens", "target_tokens", "value"
    )


def _training_pairs(corpus: Corpus, split: str, target: str) -> Any:
    """The split's pairs that have the target, in corpus order, the target as ``value``."""
    if target not in TARGETS:
        raise ScorerTrainingError(
            f"target must be one of {', '.join(TARGETS)}, got {target!r}", field="target"
        )
    pairs = SentencePair.objects.filter(corpus=corpus, split=split).order_by("position")
    if target == "rating":
        # The mean rating per pair by a subquery: grouping pair rows would make SQLite sort
        # every row by all its columns, token lists included.
        ratings = (
            Assignment.objects.filter(
                pair=OuterRef("pk"),
                status=Assignment.Status.SUBMITTED,
                annotation__rating__isnull=False,
            )
            .order_by()
            .values("pair")
            .annotate(mean=Avg("annotation__rating"))
            .values("mean")
        )
        return pairs.annotate(value=Subquery(ratings)).filter(value__isnull=False)
    return pairs.filter(**{f"{target}__isnull": False}).annotate(value=F(target))


#: A training target as a refusal names it to the user (the column names are not words).
_TARGET_WORDS = {
    "gold_score": "a gold score",
    "gold_label": "a gold label",
    "rating": "an annotator's rating",
}

#: The most split names a refusal lists.
SPLITS_LISTED = 20


def _no_training_data(corpus: Corpus, split: str, target: str, field: str) -> ScorerTrainingError:
    pairs = SentencePair.objects.filter(corpus=corpus)
    if pairs.filter(split=split).exists():
        where = f"in split {split!r}" if split else "without a split"
        message = f"corpus {quoted(corpus.name)} has no pairs {where} with {_TARGET_WORDS[target]}"
    else:
        splits = list(
            pairs.order_by("split").values_list("split", flat=True).distinct()[: SPLITS_LISTED + 1]
        )
        named = [name or "(none)" for name in splits[:SPLITS_LISTED]]
        shown = ", ".join(named) + (", …" if len(splits) > SPLITS_LISTED else "")
        message = (
            f"corpus {quoted(corpus.name)} has no split {split!r}; its splits: {shown or 'none'}"
        )
    return ScorerTrainingError(message, field=field)


def training_split_check(*, corpus: Corpus, split: str, target: str, field: str) -> None:
    """Refuse a split with no pair that has the target (naming the request's ``field``)."""
    if not _training_rows(corpus, split, target).exists():
        raise _no_training_data(corpus, split, target, field)


def training_targets_check(
    *, corpus: Corpus, split: str, target: str, kind: str, options: Mapping[str, Any]
) -> None:
    """Refuse a training the scorer could only fail on the split's targets (too few pairs, or
    of each label, for its cross-validation: :meth:`Scorer.training_refusal`), naming
    ``train_split``. Reads the targets alone, not the sentences."""
    values = [
        float(value)
        for value in _training_pairs(corpus, split, target).values_list("value", flat=True)
    ]
    refusal = get_scorer(kind, task_of(target), **options).training_refusal(values)
    if refusal is not None:
        where = f"split {split!r}" if split else "the pairs without a split"
        raise ScorerTrainingError(
            f"the {kind} scorer cannot train on the {len(values)} pairs of {where} with "
            f"{_TARGET_WORDS[target]}: {refusal}",
            field="train_split",
        )


def training_data(
    corpus: Corpus, split: str, target: str, *, field: str = "train_split"
) -> tuple[list[TokenPair], list[float]]:
    """The split's pairs that have the target, in corpus order."""
    data = [((list(s), list(t)), float(v)) for s, t, v in _training_rows(corpus, split, target)]
    if not data:
        raise _no_training_data(corpus, split, target, field)
    return [pair for pair, _ in data], [value for _, value in data]


def scorer_train(
    *,
    corpus: Corpus,
    kind: str,
    train_split: str,
    test_split: str | None,
    target: str = "gold_score",
    options: Mapping[str, Any] | None = None,
    name: str | None = None,
    job: Job | None = None,
    progress: Callable[[float, str], None] | None = None,
) -> ScorerModel:
    """Train a scorer on a split, evaluate it on both splits, store it. Computes outside any
    transaction; the row is written at the end, with the success of ``job`` if given
    (:class:`JobCancelled`, nothing stored, if the job was cancelled meanwhile).

    A name given is refused before training if a model has it. Without one the model is named
    after its kind, corpus, split, the time and its job (``pfsm-sts-train-20250102-030405-job7``),
    unique even when two trainings finish in the same second. Should the name be taken while it
    trains, the model is stored as ``name-2`` (``training["name_requested"]`` keeps the one
    asked for) rather than lost."""
    if kind not in scorer_kinds():
        raise ScorerTrainingError(f"unknown scorer {kind!r}; known: {', '.join(scorer_kinds())}")
    task = task_of(target)
    options = scorer_options_validate(kind=kind, options=options or {})
    training_resources_check(kind=kind, options=options)
    name = scorer_name_check(name)
    if name is not None:
        _name_check_free(name)
    if kind == "combined" and settings.PPDB_PATH:
        options.setdefault("ppdb", settings.PPDB_PATH)  # the aligner features' PPDB matches
    train_pairs, train_y = training_data(corpus, train_split, target)
    test = training_data(corpus, test_split, target, field="test_split") if test_split else None
    scorer = get_scorer(kind, task, **options)
    if progress is not None:
        progress(5, f"training {kind} on {len(train_pairs)} pairs")
    scorer.fit(train_pairs, train_y, progress=progress_part(progress, 5, 85, f"{kind}: "))
    if progress is not None:
        progress(85, "evaluating")
    evaluation: dict[str, Any] = {
        "train": {
            "split": train_split,
            **evaluate(task, train_y, scorer.predict(train_pairs)).to_dict(),
        }
    }
    if test is not None:
        evaluation["test"] = {
            "split": test_split,
            **evaluate(task, test[1], scorer.predict(test[0])).to_dict(),
        }
    model_dict = scorer.to_dict()
    training = {
        "train_split": train_split,
        "test_split": test_split,
        "target": target,
        "task": task,
        "pairs": len(train_pairs),
    }
    parts = (kind, corpus.name, train_split, f"{timezone.now():%Y%m%d-%H%M%S}")
    default = "-".join(part for part in parts if part)  # a corpus without splits: no "--"
    with transaction.atomic():
        stored_name = _name_free(name or (f"{default}-job{job.pk}" if job else default))
        if name is not None and stored_name != name:
            training["name_requested"] = name
        model = ScorerModel.objects.create(
            kind=kind,
            name=stored_name,
            corpus=corpus,
            training=training,
            parameters=options,
            weights=model_dict,
            evaluation=evaluation,
            job=job,
        )
        # The job succeeds in the transaction that stores its model, so a cancel wins cleanly
        # or comes too late: cancelled before, nothing is stored; after, the job has finished.
        if job is not None and not job_finish(job_id=job.pk, result=scorer_model_summary(model)):
            raise JobCancelled(f"job {job.pk} is no longer running")
        return model


@job_task(kind="train_scorer")
def train_scorer_run(job: Job, progress: Callable[[float, str], None]) -> dict[str, Any]:
    """Job runner of ``train_scorer``."""
    if job.corpus is None:
        raise ScorerTrainingError("a train_scorer job needs a corpus")
    p = job.parameters
    model = scorer_train(
        corpus=job.corpus,
        kind=str(p["kind"]),
        train_split=str(p["train_split"]),
        test_split=p.get("test_split"),
        target=str(p.get("target", "gold_score")),
        options=dict(p.get("options") or {}),
        name=p.get("name"),
        job=job,
        progress=progress,
    )
    return scorer_model_summary(model)


def scorer_model_summary(model: ScorerModel) -> dict[str, Any]:
    return {
        "model": model.pk,
        "name": model.name,
        "kind": model.kind,
        "corpus": model.corpus.name if model.corpus else None,
        "training": model.training,
        "parameters": model.parameters,
        "evaluation": model.evaluation,
    }


def scorer_text_pairs(pairs: Sequence[Sequence[str]]) -> list[TokenPair]:
    """Raw sentence pairs tokenized Penn-Treebank style, each sentence checked: not empty, at
    most :data:`MAX_SENTENCE_CHARS` characters and :data:`~scoring.formats.MAX_TOKENS` tokens
    (the import's limit). Errors name the pair (0-based) and the sentence (1 or 2)."""
    tokens = []
    for index, pair in enumerate(pairs):
        if len(pair) != 2:
            raise DomainError(f"pair {index}: give two sentences", field="pairs")
        sentences = []
        for number, text in enumerate(pair, start=1):
            where = f"pair {index}, sentence {number}"
            if len(text) > MAX_SENTENCE_CHARS:
                raise DomainError(
                    f"{where} has {len(text):,} characters; at most {MAX_SENTENCE_CHARS:,} are "
                    "accepted",
                    field="pairs",
                )
            words = tokenize(text)
            if not words:
                raise DomainError(f"{where} is empty", field="pairs")
            if len(words) > MAX_TOKENS:
                raise DomainError(
                    f"{where} has {len(words):,} tokens; at most {MAX_TOKENS} are accepted",
                    field="pairs",
                )
            sentences.append(words)
        tokens.append((sentences[0], sentences[1]))
    return tokens


def scorer_score_texts(*, model: ScorerModel, pairs: Sequence[Sequence[str]]) -> list[float]:
    """Score raw sentence pairs with a stored model, inside the request: at most what
    :data:`SYNC_LIMITS` allows the model's kind; more is refused, naming the job to use."""
    if not pairs:
        raise DomainError("give at least one pair", field="pairs")
    limit = SYNC_LIMITS.get(model.kind, min(SYNC_LIMITS.values(), key=lambda x: x.cells))
    if len(pairs) > limit.pairs:
        raise DomainError(
            f"{len(pairs):,} pairs: the {model.kind} scorer scores at most {limit.pairs} in a "
            f"request; {AS_A_JOB}",
            field="pairs",
        )
    chars = sum(len(text) for pair in pairs for text in pair)
    if chars > MAX_SYNC_CHARS:
        raise DomainError(
            f"the sentences have {chars:,} characters together; a request scores at most "
            f"{MAX_SYNC_CHARS:,}; {AS_A_JOB}",
            field="pairs",
        )
    tokens = scorer_text_pairs(pairs)
    for index, (a, b) in enumerate(tokens):
        if len(a) * len(b) > limit.pair_cells:
            raise DomainError(
                f"pair {index} is {len(a)} × {len(b)} tokens: the {model.kind} scorer scores "
                f"pairs of at most {limit.pair_cells:,} cells (source × target tokens) in a "
                f"request; {AS_A_JOB}",
                field="pairs",
            )
    cells = sum(len(a) * len(b) for a, b in tokens)
    if cells > limit.cells:
        raise DomainError(
            f"the pairs have {cells:,} cells (source × target tokens) together: the "
            f"{model.kind} scorer scores at most {limit.cells:,} in a request; {AS_A_JOB}",
            field="pairs",
        )
    return _scores(model, tokens)


def _scores(
    model: ScorerModel,
    tokens: list[TokenPair],
    progress: Callable[[float, str], None] | None = None,
) -> list[float]:
    scorer = scorer_from_dict(model.weights)
    if progress is None:
        return [float(v) for v in scorer.predict(tokens)]
    scores: list[float] = []
    limit = settings.SCORE_JOB_MAX_SECONDS
    deadline = monotonic() + limit
    for chunk in _chunks(tokens):
        if scores and monotonic() > deadline:
            raise DomainError(
                f"scored {len(scores):,} of {len(tokens):,} pairs in {_duration(limit)}, the "
                "longest a score job may run (users' score jobs run one at a time): split the "
                f"pairs into jobs of about {len(scores):,} or fewer"
            )
        scores += [float(v) for v in scorer.predict(chunk)]
        progress(100 * len(scores) / len(tokens), f"scored {len(scores)} of {len(tokens)}")
    return scores


def _duration(seconds: int) -> str:
    if seconds % 60:
        return f"{seconds} seconds"
    minutes = seconds // 60
    return f"{minutes} minute{'s' if minutes != 1 else ''}"


@transaction.atomic
def score_job_create(
    *, model: ScorerModel, pairs: Sequence[Sequence[str]], owner: User | None
) -> Job:
    """Queue a ``score_pairs`` job: ``pairs`` (raw sentence pairs, at most
    :data:`MAX_JOB_PAIRS`) scored by ``model`` in a worker. The pairs are the job's input
    snapshot (lists of jobs leave it out); a sentence of more words than a pair may have tokens
    is refused here, and the rest are tokenized and checked by the job, whose error names the
    pair at fault."""
    if not pairs:
        raise DomainError("give at least one pair", field="pairs")
    if len(pairs) > MAX_JOB_PAIRS:
        raise DomainError(
            f"{len(pairs):,} pairs: a job scores at most {MAX_JOB_PAIRS:,}; split them",
            field="pairs",
        )
    texts = [[str(first), str(second)] for first, second in pairs]
    _words_check(texts)
    digest = hashlib.sha256(json.dumps(texts).encode("utf-8")).hexdigest()
    parameters = {
        "model": model.pk,
        "model_name": model.name,
        "pairs": len(texts),
        "sha256": digest,
        # Another user's identical job is not reused: its owner alone reads its scores.
        "owner": owner.pk if owner is not None else None,
    }
    if owner is not None:
        _open_score_jobs_check(owner=owner, parameters=parameters)
    job = score_pairs_run.create(parameters=parameters, owner=owner)
    if not job.reused:
        Job.objects.filter(pk=job.pk).update(snapshot=texts, snapshot_at=timezone.now())
    return job


def _words_check(pairs: list[list[str]]) -> None:
    """Refuse, before the job is queued, a sentence with more words (between spaces) than
    :data:`~scoring.formats.MAX_TOKENS`: it has at least as many tokens, so the job would only
    fail on it. Splitting on spaces costs little even for the largest body a request may carry;
    tokenizing it would take seconds, so the job does that (and refuses a sentence whose
    punctuation takes it over the limit)."""
    for index, pair in enumerate(pairs):
        for number, text in enumerate(pair, start=1):
            words = len(text.split())
            if words > MAX_TOKENS:
                raise DomainError(
                    f"pair {index}, sentence {number} has {words:,} words; at most {MAX_TOKENS} "
                    "tokens are accepted",
                    field="pairs",
                )


def _open_score_jobs_check(*, owner: User, parameters: dict[str, Any]) -> None:
    """:class:`Conflict` naming the owner's open score job when they have
    :data:`MAX_OPEN_SCORE_JOBS` queued or running, unless the new one is the same request again
    (which returns that job). The owner's row is locked first, so that two requests at once do
    not both pass (SQLite's transactions take the write lock at their start)."""
    get_user_model().objects.select_for_update().filter(pk=owner.pk).first()
    open_jobs = (
        Job.objects.filter(
            kind="score_pairs", owner=owner, status__in=[Job.Status.PENDING, Job.Status.RUNNING]
        )
        .defer("snapshot", "result")  # the pairs: megabytes
        .order_by("pk")
    )
    if any(job.parameters == parameters for job in open_jobs):
        return
    if len(open_jobs) >= MAX_OPEN_SCORE_JOBS:
        raise Conflict(
            f"your score job {open_jobs[0].pk} is {open_jobs[0].status}; a user has at most "
            f"{MAX_OPEN_SCORE_JOBS} score job queued or running: wait for it or cancel it "
            f"(POST /api/jobs/{open_jobs[0].pk}/cancel/)",
            field="pairs",
        )


def _chunks(tokens: list[TokenPair]) -> Iterable[list[TokenPair]]:
    """Consecutive pairs, at most :data:`JOB_CHUNK` pairs and :data:`JOB_CHUNK_CELLS` cells a
    chunk (a larger pair alone)."""
    chunk: list[TokenPair] = []
    cells = 0
    for a, b in tokens:
        size = len(a) * len(b)
        if chunk and (len(chunk) == JOB_CHUNK or cells + size > JOB_CHUNK_CELLS):
            yield chunk
            chunk, cells = [], 0
        chunk.append((a, b))
        cells += size
    if chunk:
        yield chunk


@job_task(kind="score_pairs")
def score_pairs_run(job: Job, progress: Callable[[float, str], None]) -> dict[str, Any]:
    """Job runner of ``score_pairs``."""
    model = ScorerModel.objects.filter(pk=job.parameters["model"]).first()
    if model is None:
        raise NotFound(f"the scorer model {job.parameters.get('model_name')!r} was deleted")
    progress(0, f"loading the {model.kind} scorer")  # NLTK and WordNet: a while on a busy host
    tokens = scorer_text_pairs(job.snapshot or [])
    return {
        "model": model.name,
        "kind": model.kind,
        "task": model.training.get("task", "regression"),
        "range": scorer_model_range(model),
        "scores": _scores(model, tokens, progress),
    }


def scorer_model_range(model: ScorerModel) -> list[float] | None:
    """The ``[min, max]`` of a regressor's training targets, which its scores are clipped to
    (:mod:`scoring.scorers.base`); ``None`` for a classifier and a model saved before."""
    value = model.weights.get("target_range") if isinstance(model.weights, dict) else None
    return [float(v) for v in value] if isinstance(value, list) and len(value) == 2 else None


def scorer_model_get(reference: str | int) -> ScorerModel:
    model_id = reference if isinstance(reference, int) else id_or_none(reference)
    model = (
        ScorerModel.objects.filter(pk=model_id).first()
        if model_id is not None
        else ScorerModel.objects.filter(name=reference).first()
    )
    if model is None:
        raise NotFound(f"no scorer model {reference!r}")
    return model


# --- loading ahead of the first request --------------------------------------------------------

_preload_lock = threading.Lock()
#: The kinds this process has loaded, or is loading, ahead of requests.
_preloaded: set[str] = set()
#: The process that has started its preload of the stored models' kinds.
_preloading_pid: int | None = None


def scorers_preload_in_this_process() -> None:
    """:func:`scorers_preload_start` for the stored models' kinds, once per process: the web
    server calls it on every request and it acts on the first. (At import, a server that loads
    the app before forking its workers would start the thread in the parent, whose locks the
    workers would inherit held.)"""
    global _preloading_pid
    pid = os.getpid()
    if _preloading_pid == pid:
        return
    with _preload_lock:
        if _preloading_pid == pid:
            return
        _preloading_pid = pid
        _preloaded.clear()  # a forked worker has loaded nothing itself
    scorers_preload_start()


def _preload_at_request(**kwargs: object) -> None:
    scorers_preload_in_this_process()


def scorers_preload_on_requests() -> None:
    """Have each request of this web process call :func:`scorers_preload_in_this_process` (the
    WSGI and ASGI entry points do; management commands and workers do not)."""
    request_started.connect(_preload_at_request, dispatch_uid="preload-scorers")


def scorers_preload_start(*, kinds: Iterable[str] | None = None) -> threading.Thread | None:
    """Load what scoring a pair with scorers of ``kinds`` needs (default: the kinds of the
    stored models), in a background thread of this process
    (:func:`scoring.scorers.preload.scorers_preload`), so that the first score of a request
    does not wait seconds for NLTK, WordNet, the tagger and the compiled kernels.

    Each kind loads once per process: returns the thread started, or ``None`` when every kind
    asked for is loaded or loading already, or ``PRELOAD_SCORERS`` is off. The web server calls
    it at its first request (:func:`scorers_preload_in_this_process`), the scorers page for the
    models it lists."""
    if not settings.PRELOAD_SCORERS:
        return None
    todo = None
    if kinds is not None:
        with _preload_lock:
            todo = sorted(set(kinds) & set(scorer_kinds()) - _preloaded)
            _preloaded.update(todo)
        if not todo:
            return None
    thread = threading.Thread(target=_preload, args=(todo,), name="scorers-preload", daemon=True)
    thread.start()
    return thread


def _preload(kinds: list[str] | None) -> None:
    try:
        nltk_import()  # the pages check for NLTK's data (scorers, prefill) without waiting
        if kinds is None:
            stored = set(ScorerModel.objects.values_list("kind", flat=True).distinct())
            with _preload_lock:
                kinds = sorted(stored & set(scorer_kinds()) - _preloaded)
                _preloaded.update(kinds)
        if kinds:
            report = scorers_preload(kinds)
            logger.info("scorers preloaded: %s", report)
    except Exception:  # the requests then load what they need themselves
        logger.exception("preloading the scorers %s failed", kinds)
    finally:
        connection.close()
