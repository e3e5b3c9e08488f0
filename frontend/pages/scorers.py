"""The scorers page: the trained models with their train and test measures beside the papers'
figures, and scoring one pair with a model (a GET form: it changes nothing, so its answer can
be bookmarked). Admins also train a scorer here: a corpus chosen, its splits with how many pairs
have each target, and the training jobs, followed live until they end (the models' list is in
the same live part, so a finished model appears with its evaluation; the form that scores a
pair is fetched again when a training finishes, so the new model can be chosen)."""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping
from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db.models import Exists, OuterRef, Q
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.http import content_disposition_header
from django.utils.text import get_valid_filename
from django.views.decorators.http import require_GET, require_POST

from annotate import roles
from annotate.converters import id_or_none
from annotate.exceptions import DomainError
from annotate.models import Corpus, ScorerModel, SentencePair
from annotate.selectors import jobs as jobs_reads
from annotate.selectors.scorers import scorer_models, scorer_training_targets
from annotate.services import scorers
from annotate.throttles import ScoreRateThrottle, job_start_settle
from frontend.access import admin_page, job_starting
from frontend.pages.corpus_common import NO_LABEL, job_queued, jobs_section, label, refuse
from frontend.tables import Column
from scoring.errors import ScoringError
from scoring.persistence import model_json
from scoring.resource_needs import install_command, resource_needs
from scoring.scorers.base import scorer_class, scorer_kinds
from scoring.scorers.papers import PAPER_FIGURES

TEMPLATE = "frontend/scorers.html"
TARGET_LABELS = {
    "gold_score": "gold score (regression)",
    "gold_label": "gold label (classification)",
    "rating": "annotators' mean rating (regression)",
}


def target_label(target: str | None) -> str:
    """A training target in words, with its task (``gold score (regression)``): the one way
    the page names it, in the form, the training jobs and the trained models; a target this
    page does not know is shown as it is stored."""
    return TARGET_LABELS.get(target or "", target or "")


MEASURES = (
    ("pearson", "Pearson"),
    ("spearman", "Spearman"),
    ("accuracy", "accuracy"),
    ("f1", "F1"),
)


def measure_lines(evaluation: dict[str, object] | None) -> list[str]:
    """``["Pearson 0.8120", "Spearman 0.7901"]`` for a train/test evaluation; a measure the
    evaluation holds without a value is "undefined"."""
    parts = []
    for key, name in MEASURES:
        value = (evaluation or {}).get(key)
        if isinstance(value, float):
            parts.append(f"{name} {value:.4f}")
        elif key in (evaluation or {}):
            parts.append(f"{name} undefined")
    return parts


def measure_note(evaluation: dict[str, object] | None) -> str:
    """What the evaluation says beside its measures (why one is undefined), or ""."""
    note = (evaluation or {}).get("note")
    return note if isinstance(note, str) else ""


def measure_text(evaluation: dict[str, object] | None) -> str:
    """``Pearson 0.8120`` or ``accuracy 0.7420, F1 0.8000`` for a train/test evaluation; a
    measure the evaluation holds without a value is "undefined"."""
    text = ", ".join(measure_lines(evaluation))
    note = measure_note(evaluation)
    return f"{text} ({note})" if note else text


class ScoreForm(forms.Form):
    model = forms.ChoiceField(label="Model")
    first = forms.CharField(max_length=scorers.MAX_SENTENCE_CHARS, label="Sentence 1")
    second = forms.CharField(max_length=scorers.MAX_SENTENCE_CHARS, label="Sentence 2")

    def __init__(self, *args: Any, names: list[str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["model"].choices = [(name, name) for name in names]  # type: ignore[attr-defined]


def _papers() -> list[dict[str, Any]]:
    return [
        {
            "kind": kind,
            "source": paper["source"],
            "data": data,
            # one measure for the kind, or one per data set (the combined scorer's targets)
            "measure": paper["measure"][data]
            if isinstance(paper["measure"], dict)
            else paper["measure"],
            "values": list(values.items()),
            # as the papers print them: correlations to four places, accuracies (%) to two
            "digits": 2 if data == "msrp" else 4,
        }
        for kind, paper in PAPER_FIGURES.items()
        for data, values in paper.items()
        if isinstance(values, dict) and data != "measure"
    ]


def _score(form: ScoreForm, models: dict[str, Any]) -> str:
    """The answer to a valid form ("similarity 3.812", "paraphrase"), or "" with the form's
    errors set."""
    model = models[form.cleaned_data["model"]]
    pair = [form.cleaned_data["first"], form.cleaned_data["second"]]
    try:
        value = scorers.scorer_score_texts(model=model, pairs=[pair])[0]
    except DomainError as error:
        field = "first" if "sentence 1" in error.message else None
        field = "second" if "sentence 2" in error.message else field
        form.add_error(field, _page_message(error.message))
        return ""
    if model.training.get("task") == "classification":
        return "paraphrase" if value >= 1 else "not a paraphrase"
    return f"similarity {value:.3f}"


#: What the page says in place of the API's advice to queue the pairs as a job "with the same
#: body": the form has no body to send, and a job is queued through the API.
PAGE_AS_A_JOB = (
    "longer pairs are scored by a score job, queued through the API (POST /api/score/jobs/, "
    "described on the API page)"
)


def _page_message(message: str) -> str:
    """The service's refusal of the form's one pair in the page's words: the pair is not "pair
    0" (the API's index), and the advice names the API's score jobs as the way to score it."""
    message = message.removeprefix("pair 0, ")
    if message.startswith("pair 0 is "):
        message = "the pair is " + message.removeprefix("pair 0 is ")
    message = message.replace(f"in a request; {scorers.AS_A_JOB}", f"here; {PAGE_AS_A_JOB}")
    return message.replace(scorers.AS_A_JOB, PAGE_AS_A_JOB)


def _cell(name: str) -> str:
    return f"{TEMPLATE}#{name}"


TRAINING_COLUMNS = (
    Column("Job", _cell("training-id"), key="created", sort="created_at"),
    Column("Corpus", _cell("training-corpus")),
    Column("Scorer", _cell("training-what")),
    Column("Status", _cell("training-status"), key="status", sort="status"),
    Column("Model", _cell("training-model")),
    Column("", "frontend/admin/job_list.html#job-cancel"),
)


#: How the training form names each kind of scorer (the papers are named under "The papers'
#: figures").
KIND_LABELS = {
    "perp": "perp — TERp edit features",
    "pfsm": "pfsm — edit machine",
    "ppda": "ppda — edit machine with jumps",
    "mt": "mt — MT metrics, RBF SVM",
    "combined": "combined — every scorer's features",
}


def _kind_choices(unavailable: Mapping[str, str] | None = None) -> list[tuple[str, str]]:
    """Each scorer, with what it learns (so that a target it cannot learn is not chosen), and
    those that cannot train here marked with what they lack (``unavailable``)."""
    unavailable = unavailable or {}
    return [
        (
            kind,
            f"{KIND_LABELS.get(kind, kind)} · {', '.join(scorer_class(kind).tasks)}"
            + (f" · needs {unavailable[kind]}" if kind in unavailable else ""),
        )
        for kind in scorer_kinds()
    ]


def missing_resources() -> dict[str, Any] | None:
    """The scorers that cannot train on this server for want of NLTK data or of the sentence
    encoder, with the options this page trains them with (their defaults: the combined
    scorer's include the encoder features): each with the packages it lacks and what they are
    for, the one command that installs all the NLTK data and the one that installs the
    encoder; ``None`` when none lacks any."""
    kinds = []
    missing: list[str] = []
    encoder_command = ""
    for kind in scorer_kinds():
        needs = resource_needs(scorer=kind)
        if not needs.lacking:
            continue
        lacks = [
            *([", ".join(needs.packages)] if needs.missing else []),
            *(["the sentence encoder"] if needs.encoder_missing else []),
        ]
        uses = [*needs.skipped, *(["its encoder features"] if needs.encoder_missing else [])]
        what = [
            *(["NLTK data"] if needs.missing else []),
            *(["the sentence encoder"] if needs.encoder_missing else []),
        ]
        kinds.append(
            {
                "kind": kind,
                "packages": " and ".join(lacks),
                "uses": ", ".join(uses),
                "needs": " and ".join(what),
            }
        )
        missing += needs.missing
        encoder_command = encoder_command or needs.encoder_command
    if not kinds:
        return None
    return {
        "kinds": kinds,
        "all": len(kinds) == len(scorer_kinds()),
        "command": install_command(list(dict.fromkeys(missing))),
        "encoder_command": encoder_command,
    }


def _unavailable(missing: dict[str, Any] | None) -> dict[str, str]:
    """Each scorer that cannot train here, with what it lacks ("NLTK data")."""
    return {row["kind"]: row["needs"] for row in missing["kinds"]} if missing else {}


class TrainForm(forms.Form):
    """A training job on the chosen corpus: the scorer, the target and the splits (each split
    as the pages name it, ``(none)`` for pairs without one)."""

    corpus = forms.IntegerField(widget=forms.HiddenInput)
    kind = forms.ChoiceField(label="Scorer", choices=_kind_choices)
    target = forms.ChoiceField(label="Target", choices=list(TARGET_LABELS.items()))
    train_split = forms.ChoiceField(label="Train on split")
    test_split = forms.ChoiceField(label="Test on split", required=False)
    name = forms.CharField(label="Name (optional)", required=False, max_length=200)

    def __init__(
        self,
        *args: Any,
        splits: list[str],
        unavailable: Mapping[str, str] | None = None,
        **kwargs: Any,
    ) -> None:
        kwargs.setdefault("label_suffix", "")
        kwargs.setdefault("auto_id", "train-%s")
        super().__init__(*args, **kwargs)
        self.fields["kind"].choices = _kind_choices(unavailable)  # type: ignore[attr-defined]
        names = [(label(split), label(split)) for split in splits]
        self.fields["train_split"].choices = names  # type: ignore[attr-defined]
        none = ("", "none: measured on the training split")
        self.fields["test_split"].choices = [none, *names]  # type: ignore[attr-defined]

    def split(self, name: str) -> str | None:
        value = self.cleaned_data.get(name) or None
        return "" if value == NO_LABEL else value


def _train_initial(
    corpus: Corpus, targets: list[dict[str, Any]], unavailable: Collection[str] = ()
) -> dict[str, Any]:
    """A start that trains: the first target some pairs have, on the split with most of them
    (``train`` among equals: SemEval's train and test files are as large), tested on the
    ``test`` split when that has the target too, and the first scorer that learns it (the
    regression scorers come first, a corpus of labels only needs a classifier), one that can
    train here if any can."""
    for target in TARGET_LABELS:
        best = max(targets, key=lambda row: (row[target], row["split"] == "train"), default=None)
        if best is not None and best[target]:
            task = scorers.task_of(target)
            learning = [k for k in scorer_kinds() if task in scorer_class(k).tasks]
            kind = next((k for k in learning if k not in unavailable), learning[0])
            test = next(
                (
                    row["split"]
                    for row in targets
                    if row["split"] == "test" and row is not best and row[target]
                ),
                None,
            )
            return {
                "corpus": corpus.pk,
                "kind": kind,
                "target": target,
                "train_split": label(best["split"]),
                **({"test_split": label(test)} if test is not None else {}),
            }
    return {"corpus": corpus.pk}


def _training(request: HttpRequest) -> dict[str, Any]:
    """The training jobs (admins) and the trained models: the page's live part."""
    context: dict[str, Any] = {"models": _model_rows(), "is_admin": False}
    if roles.has_role(request.user, roles.ADMIN):
        jobs = jobs_reads.jobs_visible(request.user).filter(kind="train_scorer")
        context.update(
            jobs_section(
                request,
                jobs,
                TRAINING_COLUMNS,
                with_results=True,
                noun="training jobs",
                empty_title="No training yet",
                empty_text="Choose a corpus above and train a scorer on it.",
                path=reverse("scorers"),
            ),
            is_admin=True,
        )
        for job in context["table"].rows:
            job.target_label = target_label(job.parameters.get("target"))
            result = job.result or {}
            job.train_text = measure_text((result.get("evaluation") or {}).get("train"))
            job.test_text = measure_text((result.get("evaluation") or {}).get("test"))
    return context


def _model_rows() -> list[dict[str, Any]]:
    return [
        {
            "pk": model.pk,
            "name": model.name,
            "kind": model.kind,
            "corpus": model.corpus.name if model.corpus else None,
            "train_split": label(model.training.get("train_split") or ""),
            "pairs": model.training.get("pairs"),
            "target": target_label(model.training.get("target")),
            "train": measure_lines(model.evaluation.get("train")),
            "train_note": measure_note(model.evaluation.get("train")),
            "test": measure_lines(model.evaluation.get("test")),
            "test_note": measure_note(model.evaluation.get("test")),
            "created": model.created_at,
        }
        for model in scorer_models()
    ]


def _first_with_gold_values() -> Corpus | None:
    """The first corpus in use, by name, with a pair that has a gold score or label: the
    training form opens on one a scorer can train on."""
    valued = SentencePair.objects.filter(corpus=OuterRef("pk")).filter(
        Q(gold_score__isnull=False) | Q(gold_label__isnull=False)
    )
    in_use = Corpus.objects.filter(archived_at__isnull=True)
    return in_use.filter(Exists(valued)).order_by("name").first()


def _train_section(
    request: HttpRequest, form: TrainForm | None, corpus: Corpus | None
) -> dict[str, Any]:
    """The training form's context: the corpora, the chosen one's splits and targets."""
    corpora = list(Corpus.objects.filter(archived_at__isnull=True).order_by("name"))
    if corpus is None:
        asked = request.GET.get("corpus", "")
        chosen = [c for c in corpora if str(c.pk) == asked]
        corpus = chosen[0] if chosen else (_first_with_gold_values() or next(iter(corpora), None))
    if corpus is None:
        return {"corpora": corpora, "train_corpus": None, "train": None}
    targets = scorer_training_targets(corpus)
    for row in targets:
        row["name"] = label(row["split"])
    missing = missing_resources()
    if form is None:
        splits = [row["split"] for row in targets]
        unavailable = _unavailable(missing)
        initial = _train_initial(corpus, targets, unavailable)
        form = TrainForm(initial=initial, splits=splits, unavailable=unavailable)
    return {
        "corpora": corpora,
        "train_corpus": corpus,
        "train": form,
        "targets": targets,
        "missing_resources": missing,
    }


def _page(
    request: HttpRequest,
    *,
    train: TrainForm | None = None,
    corpus: Corpus | None = None,
    status: int = 200,
) -> HttpResponse:
    fragment = request.GET.get("fragment")
    if fragment == "score":  # the form, fetched again when a training has finished
        return render(
            request, f"{TEMPLATE}#score", {"models": _model_rows(), **_score_form(request)}
        )
    training = _training(request)
    if fragment == "training":
        return render(request, f"{TEMPLATE}#training", training)
    score = _score_form(request)
    context = {**training, "papers": _papers(), **score, "page_url": reverse("scorers")}
    if training["is_admin"]:
        context.update(_train_section(request, train, corpus))
    if score["retry_after"] is not None:
        response = render(request, TEMPLATE, context, status=429)
        response["Retry-After"] = str(score["retry_after"])
        return response
    return render(request, TEMPLATE, context, status=400 if score["form"].errors else status)


def _score_form(request: HttpRequest) -> dict[str, Any]:
    """The form that scores a pair with a trained model, and its answer when asked."""
    stored = list(scorer_models())
    # The models offered are those a visitor may score with next: have their kinds loaded.
    scorers.scorers_preload_start(kinds={model.kind for model in stored})
    asked = "model" in request.GET
    form = ScoreForm(request.GET if asked else None, names=[model.name for model in stored])
    answer = ""
    wait = None
    if asked and form.is_valid():
        throttle = ScoreRateThrottle()  # one budget with the API's /api/score
        if throttle.allow_request(request, None):
            answer = _score(form, {model.name: model for model in stored})
        else:
            wait = max(1, math.ceil(throttle.wait()))
            form.add_error(
                None,
                f"You have scored as many pairs as a user may in a minute; score again in "
                f"{wait} second{'s' if wait != 1 else ''}, or queue a score job "
                "(POST /api/score/jobs/) for many pairs.",
            )
    return {"form": form, "answer": answer, "retry_after": wait}


@login_required
def scorers_page(request: HttpRequest) -> HttpResponse:
    return _page(request)


@require_GET
@admin_page
def scorer_model_download(request: HttpRequest, pk: int) -> HttpResponse:
    """A trained scorer as the JSON model file of ``python -m scoring train``, for
    ``python -m scoring score --model`` on one's own files."""
    model = get_object_or_404(ScorerModel, pk=pk)
    response = HttpResponse(model_json(model.weights), content_type="application/json")
    name = get_valid_filename(f"{model.name}.{model.kind}.json")
    # a name outside ASCII as RFC 6266's filename*, which browsers read
    response["Content-Disposition"] = content_disposition_header(True, name)
    return response


@require_POST
@admin_page
@job_starting
def scorer_train_view(request: HttpRequest) -> HttpResponse:
    """Queue a training job with the posted choices; bad ones are shown on the form (400) and
    queue nothing."""
    asked = request.POST.get("corpus", "")
    corpus_id = id_or_none(asked)
    corpus = (
        Corpus.objects.filter(pk=corpus_id, archived_at__isnull=True).first()
        if corpus_id is not None
        else None
    )
    if corpus is None:
        messages.error(
            request, f"There is no corpus #{asked} in use to train on; nothing was started."
        )
        job_start_settle(request, accepted=False)  # a refusal spends no job start
        return redirect(reverse("scorers"))
    splits = [row["split"] for row in scorer_training_targets(corpus)]
    missing = missing_resources()
    form = TrainForm(request.POST, splits=splits, unavailable=_unavailable(missing))
    if form.is_valid():
        values = form.cleaned_data
        try:
            job = scorers.scorer_train_job_create(
                corpus=corpus,
                kind=values["kind"],
                target=values["target"],
                train_split=form.split("train_split") or "",  # a required choice
                test_split=form.split("test_split"),
                name=values["name"].strip() or None,
                owner=request.user,  # type: ignore[arg-type]
            )
        except (DomainError, ScoringError) as error:
            refuse(form, error)
        else:
            job_queued(request, job, "Training")
            return redirect(f"{reverse('scorers')}?corpus={corpus.pk}")
    return _page(request, train=form, corpus=corpus, status=400)
