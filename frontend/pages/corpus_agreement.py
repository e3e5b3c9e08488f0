"""A corpus's agreement tab: run a report as a job, the list of reports (a live fragment while
one runs, each with its chance model, the reason for it and its parameters), and one report read
as the paper prints it (:mod:`frontend.pages.agreement_report`), a fragment fetched again when a
report of the list finishes."""

from __future__ import annotations

import json
from typing import Any

from django import forms
from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from annotate.converters import id_or_none
from annotate.exceptions import DomainError
from annotate.models import Corpus, Job
from annotate.selectors import jobs as jobs_reads
from annotate.selectors.assignments import imported_accounts, work_by_annotator
from annotate.selectors.corpora import corpus_labels
from annotate.services.agreement import agreement_job_create
from frontend.access import admin_page, job_starting
from frontend.pages.agreement_report import ReportView, report_view
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
from scoring.alignment.agreement import MAX_SAMPLES
from scoring.alignment.reports import CHANCE_MODELS

TEMPLATE = "frontend/admin/corpus_agreement.html"
MAX_ANNOTATORS = 20
MAX_SEED = 2**31 - 1


def _cell(name: str) -> str:
    return f"{TEMPLATE}#{name}"


COLUMNS = (
    job_id_column(TEMPLATE),
    Column("Annotators", _cell("report-annotators")),
    Column("J", _cell("report-samples"), numeric=True, help="Monte Carlo samples per pair"),
    Column("Seed", _cell("report-seed"), numeric=True),
    Column("Chance model", _cell("report-chance"), key="chance", sort="parameters__chance_model"),
    Column("Status", _cell("report-status"), key="status", sort="status"),
)

CHANCE_CHOICES = [("auto", "automatic"), ("prefill", "prefill edits"), ("density", "link density")]
LEVEL_CHOICES = [("phrase_all", "all (atomic and composite)"), ("phrase_atomic", "atomic")]


class ReportForm(forms.Form):
    annotators = forms.MultipleChoiceField(widget=forms.CheckboxSelectMultiple)
    subcorpora = forms.MultipleChoiceField(
        label="Sub-corpora", required=False, widget=forms.CheckboxSelectMultiple
    )
    samples = forms.IntegerField(
        label="Samples J",
        min_value=1,
        max_value=MAX_SAMPLES,
        initial=1000,
        help_text="Monte Carlo samples per pair",
    )
    seed = forms.IntegerField(label="Seed", min_value=0, max_value=MAX_SEED, initial=0)
    chance_model = forms.ChoiceField(
        label="Chance model",
        choices=CHANCE_CHOICES,
        initial="auto",
    )

    def __init__(
        self,
        *args: Any,
        annotators: list[dict[str, Any]],
        subcorpora: list[str],
        **kwargs: Any,
    ) -> None:
        kwargs.setdefault("label_suffix", "")
        kwargs.setdefault("auto_id", "run-%s")
        super().__init__(*args, **kwargs)
        self.people = annotators
        self.subcorpus_names = subcorpora
        names = [row["username"] for row in annotators]
        self.fields["annotators"].choices = [(name, name) for name in names]  # type: ignore[attr-defined]
        self.fields["subcorpora"].choices = [(name, name) for name in subcorpora]  # type: ignore[attr-defined]
        self.fields["annotators"].initial = names
        self.fields["subcorpora"].initial = subcorpora

    def clean_annotators(self) -> list[str]:
        chosen: list[str] = self.cleaned_data["annotators"]
        if len(chosen) < 2:
            raise forms.ValidationError("Choose at least two annotators.")
        if len(chosen) > MAX_ANNOTATORS:
            raise forms.ValidationError(f"Choose at most {MAX_ANNOTATORS} annotators.")
        return chosen

    def clean_subcorpora(self) -> list[str]:
        chosen: list[str] = self.cleaned_data["subcorpora"]
        if len(self.subcorpus_names) > 1 and not chosen:
            raise forms.ValidationError("Choose at least one sub-corpus.")
        return chosen

    def people_rows(self) -> list[dict[str, Any]]:
        """Each annotator with submitted work here, and whether the form ticks them now."""
        chosen = set(self["annotators"].value() or [])
        return [{**row, "checked": row["username"] in chosen} for row in self.people]

    def subcorpus_rows(self) -> list[dict[str, Any]]:
        chosen = set(self["subcorpora"].value() or [])
        return [{"name": name, "checked": name in chosen} for name in self.subcorpus_names]


def _form_inputs(corpus: Corpus) -> dict[str, Any]:
    """Who may be chosen (annotators with submitted work here) and the sub-corpora."""
    people = [row for row in work_by_annotator(corpus) if row["submitted"] > 0]
    imported = imported_accounts(row["username"] for row in people)
    return {
        "annotators": [{**row, "imported": row["username"] in imported} for row in people],
        "subcorpora": [name for name in corpus_labels(corpus)["subcorpora"] if name],
    }


def _last_choices(corpus: Corpus, user: Any, inputs: dict[str, Any]) -> dict[str, Any]:
    """The form's starting values: the settings of the newest report ``user`` ran here (of
    the annotators and sub-corpora still offered), so a report is rerun with one change."""
    job = corpus_jobs(corpus, user, ["agreement_report"]).filter(owner=user).first()
    if job is None:
        return {}
    asked = job.parameters
    offered = {row["username"] for row in inputs["annotators"]}
    annotators = [name for name in asked.get("annotators", []) if name in offered]
    subcorpora = [name for name in asked.get("subcorpora", []) if name in inputs["subcorpora"]]
    chance = asked.get("chance_model_requested", asked.get("chance_model"))
    initial: dict[str, Any] = {"seed": job.seed}
    if len(annotators) >= 2:
        initial["annotators"] = annotators
    if subcorpora:
        initial["subcorpora"] = subcorpora
    if isinstance(asked.get("samples"), int):
        initial["samples"] = asked["samples"]
    if chance in dict(CHANCE_CHOICES):
        initial["chance_model"] = chance
    return initial


def chance_lines(job: Job) -> list[str]:
    """The chance model's fitted Pr(edit) line per annotator, as the job recorded them:
    ``alice: 4.1% + 0.02% · (N + M), 412 pairs``."""
    lines = []
    for name, kinds in (job.parameters.get("edit_models") or {}).items():
        if "possible" not in kinds:
            continue
        intercept, slope, pairs = kinds["possible"]
        lines.append(
            f"{name}: {100 * intercept:.2f}% {'+' if slope >= 0 else '−'} "
            f"{100 * abs(slope):.3f}% · (N + M), {pairs:,} pairs"
        )
    return lines


def _reports(request: HttpRequest, corpus: Corpus) -> dict[str, Any]:
    listed = jobs_section(
        request,
        corpus_jobs(corpus, request.user, ["agreement_report"]),
        COLUMNS,
        noun="reports",
        empty_title="No report yet",
        empty_text="Choose the annotators and run one.",
    )
    for job in listed["table"].rows:
        name = job.parameters.get("chance_model", "auto")
        job.chance_description = CHANCE_MODELS.get(name, "chosen when the report runs")
        job.chance_lines = chance_lines(job)
    return listed


def _newest_report(corpus: Corpus, user: Any) -> int | None:
    """The corpus's newest finished report that ``user`` sees."""
    return (
        corpus_jobs(corpus, user, ["agreement_report"])
        .filter(status=Job.Status.SUCCEEDED, result__isnull=False)
        .values_list("pk", flat=True)
        .first()
    )


def _open_report(
    request: HttpRequest, corpus: Corpus, *, say: bool = True
) -> tuple[Job | None, ReportView | None]:
    """The report the address names (``?report=``), else the corpus's newest finished one;
    ``say`` whether the address names no finished report (not in a fragment's answer)."""
    asked = request.GET.get("report", "")
    jobs = corpus_jobs(corpus, request.user, ["agreement_report"])
    if asked:
        job_id = id_or_none(asked)
        job = jobs.filter(pk=job_id).first() if job_id is not None else None
        if job is None or not getattr(job, "has_result", False):
            if say:
                messages.error(request, f"There is no finished report #{asked} of this corpus.")
            return None, None
    else:
        newest = _newest_report(corpus, request.user)
        job = jobs.filter(pk=newest).first() if newest else None
        if job is None:
            return None, None
    _, text = jobs_reads.job_result_text(user=request.user, job_id=job.pk)
    report = json.loads(text or "{}")
    if not report.get("annotator_pairs"):
        return job, None
    view = report_view(
        report,
        pair_index=id_or_none(request.GET.get("pair", "")),
        items=request.GET.get("items", ""),
        group=request.GET.get("group", ""),
        level=request.GET.get("level", ""),
    )
    return job, view


def _page(
    request: HttpRequest, corpus: Corpus, form: ReportForm | None = None, status: int = 200
) -> HttpResponse:
    fragment = request.GET.get("fragment")
    if fragment == "report":  # the report shown, fetched again when a report has finished
        job, view = _open_report(request, corpus, say=False)
        shown = {"corpus": corpus, "report_job": job, "view": view, "levels": LEVEL_CHOICES}
        return render(request, f"{TEMPLATE}#report", shown)
    reports = _reports(request, corpus)
    context = {**tab_context(corpus, "agreement"), **reports}
    if fragment == "reports":
        asked = request.GET.get("report", "")
        newest = _newest_report(corpus, request.user)
        asked_id = id_or_none(asked)
        context["report_id"] = asked_id if asked_id is not None else newest
        return render(request, f"{TEMPLATE}#reports", context)
    job, view = _open_report(request, corpus)
    if form is None:
        inputs = _form_inputs(corpus)
        form = ReportForm(initial=_last_choices(corpus, request.user, inputs), **inputs)
    context.update(
        form=form,
        report_job=job,
        report_id=job.pk if job else None,
        view=view,
        levels=LEVEL_CHOICES,
    )
    return render(request, TEMPLATE, context, status=status)


@admin_page
def corpus_agreement(request: HttpRequest, corpus_id: int) -> HttpResponse:
    return _page(request, corpus_or_404(corpus_id))


@require_POST
@admin_page
@job_starting
def corpus_agreement_run(request: HttpRequest, corpus_id: int) -> HttpResponse:
    """Queue a report for the chosen annotators; bad input is shown on the form (400)."""
    corpus = corpus_or_404(corpus_id)
    form = ReportForm(request.POST, **_form_inputs(corpus))
    if form.is_valid():
        values = form.cleaned_data
        subcorpora = values["subcorpora"]
        if set(subcorpora) == set(form.subcorpus_names):
            subcorpora = []  # every sub-corpus: the report of the whole corpus
        try:
            job = agreement_job_create(
                corpus=corpus,
                annotators=values["annotators"],
                samples=values["samples"],
                seed=values["seed"],
                chance_model=values["chance_model"],
                subcorpora=subcorpora,
                owner=request.user,
            )
        except DomainError as error:
            refuse(form, error)
        else:
            job_queued(request, job, "Report")
            return redirect(reverse("corpus-agreement", args=[corpus.pk]))
    return _page(request, corpus, form, status=400)
