"""A corpus's prefill tab: choose an aligner and its options, run it as a job, and read every run
with its precision, recall and F1 against the gold; the runs are a live fragment, and the figures
above them a fragment fetched again when a run finishes."""

from __future__ import annotations

import math
from typing import Any

from django import forms
from django.conf import settings
from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from annotate.apis.aligners import aligner_descriptions
from annotate.exceptions import DomainError, quoted
from annotate.models import Corpus
from annotate.selectors.corpora import corpus_has_prefill, corpus_prefill_counts
from annotate.services.prefill import (
    MAX_RETRAIN_EVERY,
    corpus_prefill_configure,
    corpus_queue_order_set,
    prefill_options_validate,
    prefill_queue,
    prefill_retrain_progress,
)
from frontend.access import admin_page, job_starting
from frontend.pages.corpus_common import (
    corpus_jobs,
    corpus_or_404,
    job_id_column,
    job_queued,
    jobs_section,
    refuse,
    tab_context,
)
from frontend.tables import Column
from scoring.errors import ScoringError
from scoring.resource_needs import resource_needs

TEMPLATE = "frontend/admin/corpus_prefill.html"
DEFAULT_ALIGNER = "em"
OPTION_PREFIX = "opt_"


def _cell(name: str) -> str:
    return f"{TEMPLATE}#{name}"


COLUMNS = (
    job_id_column(TEMPLATE),
    Column("Aligner", _cell("run-aligner"), key="aligner", sort="parameters__aligner"),
    Column("Status", _cell("run-status"), key="status", sort="status"),
    Column("Prefilled", _cell("run-prefilled"), numeric=True),
    Column("Kept (opened)", _cell("run-kept"), numeric=True, help="pairs an annotator opened"),
    Column("Links", _cell("run-links"), numeric=True),
    Column("Gold pairs", _cell("run-gold"), numeric=True),
    Column("P", _cell("run-precision"), numeric=True, help="precision over every link"),
    Column("R", _cell("run-recall"), numeric=True, help="recall over every link"),
    Column("F1", _cell("run-f1"), numeric=True, help="F1 over every link"),
    Column(
        "F1 non-identical",
        _cell("run-f1-non-identical"),
        numeric=True,
        help="F1 leaving out links between identical words",
    ),
)


def _option_field(option: dict[str, Any]) -> forms.Field:
    """A form field for one aligner option; left empty, the option keeps its default."""
    name = option["name"].replace("_", " ")
    default = option["default"]
    allowed = option.get("allowed", "")
    common: dict[str, Any] = {
        "label": name,
        "required": False,
        "help_text": f"{allowed}" if allowed else "",
    }
    if option.get("choices"):
        choices = [(value, value) for value in option["choices"]]
        return forms.ChoiceField(choices=choices, initial=default, **common)
    if option["type"] == "bool":
        return forms.TypedChoiceField(
            choices=[("true", "yes"), ("false", "no")],
            coerce=lambda value: value == "true",
            initial="true" if default else "false",
            **common,
        )
    if option["type"] == "int":
        return forms.IntegerField(initial=default, **common)
    if option["type"] == "float":
        return forms.FloatField(
            initial=default, widget=forms.NumberInput({"step": "any"}), **common
        )
    return forms.CharField(initial=default, max_length=200, **common)


class PrefillForm(forms.Form):
    """The chosen aligner's options (each starting at its default) and, for an aligner that
    learns from finished annotations, how often to retrain it."""

    aligner = forms.CharField(widget=forms.HiddenInput)
    retrain_every = forms.IntegerField(
        required=False,
        min_value=0,
        max_value=MAX_RETRAIN_EVERY,
        label="Retrain automatically after every N newly finished pairs",
        help_text="0 switches automatic retraining off; empty keeps the current setting.",
    )

    def __init__(self, *args: Any, aligner: dict[str, Any], **kwargs: Any) -> None:
        kwargs.setdefault("label_suffix", "")
        kwargs.setdefault("auto_id", "prefill-%s")
        super().__init__(*args, **kwargs)
        self.description = aligner
        self.fields["aligner"].initial = aligner["name"]
        if not aligner["learns_from_annotations"]:
            del self.fields["retrain_every"]
        for option in aligner["options"]:
            self.fields[f"{OPTION_PREFIX}{option['name']}"] = _option_field(option)

    @property
    def option_fields(self) -> list[forms.BoundField]:
        return [self[name] for name in self.fields if name.startswith(OPTION_PREFIX)]

    def changed_options(self) -> dict[str, Any]:
        """Only the options set away from their defaults: the others keep the aligner's."""
        defaults = {option["name"]: option["default"] for option in self.description["options"]}
        out = {}
        for name, value in self.cleaned_data.items():
            if name.startswith(OPTION_PREFIX):
                key = name.removeprefix(OPTION_PREFIX)
                if value not in (None, "") and value != defaults[key]:
                    out[key] = value
        return out


#: How the aligner choice names the features a missing NLTK resource makes an aligner skip.
SKIPPED_FEATURES = {"wordnet": "WordNet", "stopwords": "stop-word", "tagger": "POS"}


def _aligner(name: str | None) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Every aligner, each with what it skips for want of NLTK data with its default options
    (``resources_note``, short, for the choice; ``resources``, what it skips, the packages
    missing and the command that installs them), and the one chosen."""
    aligners = aligner_descriptions()
    for aligner in aligners:
        needs = resource_needs(aligner=aligner["name"])
        skipped = ", ".join(SKIPPED_FEATURES[resource] for resource in needs.missing)
        aligner["resources_note"] = (
            f"skips {skipped} features: NLTK data missing" if needs.missing else ""
        )
        aligner["resources"] = (
            {
                "skipped": " and ".join(", ".join(needs.skipped).rsplit(", ", 1)),
                "packages": ", ".join(needs.packages),
                "command": needs.command,
            }
            if needs.missing
            else None
        )
    by_name = {aligner["name"]: aligner for aligner in aligners}
    chosen = by_name.get(name or "") or by_name.get(DEFAULT_ALIGNER) or aligners[0]
    return aligners, chosen


def _runs(request: HttpRequest, corpus: Corpus, prefilled: int | bool) -> dict[str, Any]:
    came_with = "The pairs' prefill came with the corpus (imported or set up with it). "
    return jobs_section(
        request,
        corpus_jobs(corpus, request.user, ["prefill"]),
        COLUMNS,
        with_results=True,
        noun="runs",
        empty_title="No prefill run yet",
        empty_text=f"{came_with if prefilled else ''}Choose an aligner above and run it.",
    )


def _page(
    request: HttpRequest, corpus: Corpus, form: PrefillForm | None = None, status: int = 200
) -> HttpResponse:
    fragment = request.GET.get("fragment")
    if fragment == "runs":  # live while a run is queued or running: no figure is counted
        prefilled = corpus_has_prefill(corpus)
        runs = _runs(request, corpus, prefilled)
        return render(request, f"{TEMPLATE}#runs", {**tab_context(corpus, "prefill"), **runs})
    tiles = _tiles(corpus)
    if fragment == "tiles":  # the figures, fetched again when a run has finished
        return render(request, f"{TEMPLATE}#tiles", {"corpus": corpus, **tiles})
    runs = _runs(request, corpus, tiles["prefilled"])
    aligners, chosen = _aligner(form.description["name"] if form else request.GET.get("aligner"))
    context = {
        **tab_context(corpus, "prefill"),
        **runs,
        **tiles,
        "aligners": aligners,
        "chosen": chosen,
        "form": form or PrefillForm(aligner=chosen),
    }
    return render(request, TEMPLATE, context, status=status)


def _tiles(corpus: Corpus) -> dict[str, Any]:
    """The figures above the runs: pairs prefilled of all, gold alignments, with automatic
    retraining on how many pairs were finished since its last run (and, once that many are, how
    often the check that starts it runs; or that no pair is left to finish, when every one
    already has a gold alignment or a submitted annotation), and the queue order with the
    choices to set it."""
    counts = corpus_prefill_counts(corpus)
    tiles: dict[str, Any] = {
        "prefilled": counts["prefilled_pairs"],
        "pairs": counts["pairs"],
        "gold": counts["gold_alignments"],
        "queue_orders": Corpus.QueueOrder.choices,
    }
    if corpus.prefill_aligner:
        finished, baseline = prefill_retrain_progress(corpus)
        tiles["finished_since"] = max(0, finished - baseline)
        tiles["all_finished"] = finished >= counts["pairs"]
        if tiles["finished_since"] >= corpus.prefill_retrain_every:
            # due: the periodic check (a beat task) queues it, so say how soon at most
            every = settings.PREFILL_RETRAIN_CHECK_SECONDS
            tiles["retrain_check_minutes"] = max(1, math.ceil(every / 60))
    return tiles


@admin_page
def corpus_prefill(request: HttpRequest, corpus_id: int) -> HttpResponse:
    return _page(request, corpus_or_404(corpus_id))


def _refuse_each_option(form: PrefillForm, aligner: str) -> bool:
    """Show every refused option on its field, not only the first: the options class stops at
    the first bad value, so the options are checked again without each one refused until the
    others pass (a rule joining options is then checked on the good ones only). Whether any
    was refused."""
    options = form.changed_options()
    refused = False
    while True:
        try:
            prefill_options_validate(aligner=aligner, options=options)
        except (DomainError, ScoringError) as error:
            refuse(form, error, prefix=OPTION_PREFIX)
            refused = True
            extra = error.extra if isinstance(error, DomainError) else {}
            name = extra.get("field") or getattr(error, "option", None)
            if name not in options:
                return True
            options = {key: value for key, value in options.items() if key != name}
        else:
            return refused


@require_POST
@admin_page
@job_starting
def corpus_prefill_run(request: HttpRequest, corpus_id: int) -> HttpResponse:
    """Queue a prefill with the posted aligner and options (and retraining setting)."""
    corpus = corpus_or_404(corpus_id)
    _, chosen = _aligner(request.POST.get("aligner"))
    form = PrefillForm(request.POST, aligner=chosen)
    if request.POST.get("aligner") != chosen["name"]:
        form.add_error(None, f"there is no aligner {request.POST.get('aligner', '')!r}")
    elif form.is_valid() and not _refuse_each_option(form, chosen["name"]):
        try:
            job = prefill_queue(
                corpus=corpus,
                aligner=chosen["name"],
                retrain_every=form.cleaned_data.get("retrain_every"),
                owner=request.user,  # type: ignore[arg-type]
                trigger="request",
                options=form.changed_options(),
            )
        except (DomainError, ScoringError) as error:
            refuse(form, error, prefix=OPTION_PREFIX)
        else:
            job_queued(request, job, "Prefill")
            if form.cleaned_data.get("retrain_every") is not None:
                messages.info(request, _retraining_text(corpus))
            return redirect(
                f"{reverse('corpus-prefill', args=[corpus.pk])}?aligner={chosen['name']}"
            )
    return _page(request, corpus, form, status=400)


@require_POST
@admin_page
def corpus_prefill_retraining_off(request: HttpRequest, corpus_id: int) -> HttpResponse:
    """Switch automatic retraining off without queuing a prefill (a run with 0 does both: on a
    large corpus a supervised run holds a worker for an hour)."""
    corpus = corpus_or_404(corpus_id)
    if corpus.prefill_aligner:
        corpus_prefill_configure(
            corpus=corpus, aligner="", retrain_every=corpus.prefill_retrain_every
        )
    messages.info(request, _retraining_text(corpus))
    return redirect(reverse("corpus-prefill", args=[corpus.pk]))


@require_POST
@admin_page
def corpus_prefill_queue_order(request: HttpRequest, corpus_id: int) -> HttpResponse:
    """Set the order in which the annotators' planned pairs of the corpus open."""
    corpus = corpus_or_404(corpus_id)
    try:
        corpus = corpus_queue_order_set(corpus=corpus, order=request.POST.get("order", ""))
    except DomainError as error:
        messages.error(request, f"The queue order was not changed: {error}")
    else:
        messages.success(
            request,
            f"Annotators' next pairs of {quoted(corpus.name)} now open in {_queue_order(corpus)}.",
        )
    return redirect(reverse("corpus-prefill", args=[corpus.pk]))


def _queue_order(corpus: Corpus) -> str:
    return str(Corpus.QueueOrder(corpus.queue_order).label)


def _retraining_text(corpus: Corpus) -> str:
    corpus.refresh_from_db(fields=["prefill_aligner", "prefill_retrain_every"])
    if not corpus.prefill_aligner:
        return "Automatic retraining is off."
    return (
        f"{corpus.prefill_aligner} retrains after every {corpus.prefill_retrain_every:,} newly "
        "finished pairs."
    )
