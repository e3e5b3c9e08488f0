"""A corpus's assignments tab: coverage, the plans, hand-overs and releases (a live fragment
while one runs), planning a selection of pairs among chosen people, progress per annotator and
per sub-corpus, handing an annotator's open work to others, and releasing pairs left idle in
progress."""

from __future__ import annotations

from typing import Any

from django import forms
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from annotate.apis.assignments import MAX_PER_PAIR, MAX_PLAN_BATCH, MAX_PLAN_LENGTH
from annotate.exceptions import DomainError
from annotate.models import Corpus, Job
from annotate.selectors.assignments import (
    PlanCandidate,
    corpus_coverage,
    corpus_progress,
    imported_accounts,
    plan_candidates,
    work_by_annotator,
)
from annotate.selectors.corpora import corpus_labels
from annotate.services.assignments import (
    MAX_IDLE_HOURS,
    MAX_SEED,
    PlanSelection,
    assignments_hand_over_job_create,
    assignments_plan_job_create,
    assignments_release_job_create,
)
from frontend.access import admin_page, job_starting
from frontend.charts import bar_chart
from frontend.pages.corpus_common import (
    NO_LABEL,
    corpus_jobs,
    corpus_or_404,
    job_id_column,
    job_queued,
    jobs_section,
    label,
    refuse,
    tab_context,
)
from frontend.tables import Column

TEMPLATE = "frontend/admin/corpus_assignments.html"
KINDS = ("assignments_plan", "assignments_hand_over", "assignments_release")


def _cell(name: str) -> str:
    return f"{TEMPLATE}#{name}"


COLUMNS = (
    job_id_column(TEMPLATE),
    Column("Kind", _cell("work-kind"), key="kind", sort="kind"),
    Column("Status", _cell("work-status"), key="status", sort="status"),
    Column("What it did", _cell("work-result")),
)


def _label_choices(values: list[str], everything: str) -> list[tuple[str, str]]:
    return [("", everything), *((label(value), label(value)) for value in values)]


def _chosen(value: str | None) -> str | None:
    """A sub-corpus or split chosen in a form: ``None`` for any, ``""`` for the unlabelled."""
    if not value:
        return None
    return "" if value == NO_LABEL else value


class PlanForm(forms.Form):
    annotators = forms.MultipleChoiceField(widget=forms.CheckboxSelectMultiple)
    per_pair = forms.IntegerField(
        label="Annotators per pair (K)", min_value=1, max_value=MAX_PER_PAIR, initial=1
    )
    double_percent = forms.FloatField(
        label="Doubly annotated share (%)", min_value=0, max_value=100, initial=20
    )
    seed = forms.IntegerField(label="Seed", required=False, min_value=0, max_value=MAX_SEED)
    subcorpus = forms.ChoiceField(label="Sub-corpus", required=False)
    split = forms.ChoiceField(label="Split", required=False)
    min_length = forms.IntegerField(
        label="Shortest length", required=False, min_value=1, max_value=MAX_PLAN_LENGTH
    )
    max_length = forms.IntegerField(
        label="Longest length", required=False, min_value=1, max_value=MAX_PLAN_LENGTH
    )
    batch = forms.IntegerField(
        label="At most (pairs)", required=False, min_value=1, max_value=MAX_PLAN_BATCH
    )

    def __init__(
        self,
        *args: Any,
        candidates: list[PlanCandidate],
        subcorpora: list[str],
        splits: list[str],
        **kwargs: Any,
    ) -> None:
        kwargs.setdefault("label_suffix", "")
        kwargs.setdefault("auto_id", "plan-%s")
        super().__init__(*args, **kwargs)
        self.candidates = candidates
        self.fields["annotators"].choices = [(c.username, c.username) for c in candidates]  # type: ignore[attr-defined]
        self.fields["subcorpus"].choices = _label_choices(subcorpora, "every sub-corpus")  # type: ignore[attr-defined]
        self.fields["split"].choices = _label_choices(splits, "every split")  # type: ignore[attr-defined]
        self.show_subcorpora = len(subcorpora) > 1
        self.show_splits = len(splits) > 1

    def people(self) -> list[dict[str, Any]]:
        """Each candidate with whether the form ticks them now."""
        chosen = set(self["annotators"].value() or [])
        return [{"candidate": c, "checked": c.username in chosen} for c in self.candidates]

    def selection(self) -> PlanSelection:
        data = self.cleaned_data
        return PlanSelection(
            subcorpus=_chosen(data.get("subcorpus")),
            split=_chosen(data.get("split")),
            min_length=data.get("min_length"),
            max_length=data.get("max_length"),
            batch=data.get("batch"),
        )


def plan_initial(corpus: Corpus, candidates: list[PlanCandidate]) -> dict[str, Any]:
    """Where the plan form starts: the corpus's last plan (its people, K, share and selection,
    a fresh seed), or every candidate the form ticks by default (no doubly annotated share
    when fewer than two are). An imported account is never ticked by default, even when the
    last plan named it."""
    ticked = {c.username for c in candidates if c.ticked}
    last = Job.objects.filter(corpus=corpus, kind="assignments_plan").order_by("-pk").first()
    if last is None:
        # a doubly annotated share needs two people: with fewer ticked it starts at 0
        initial: dict[str, Any] = {"annotators": sorted(ticked)}
        if len(ticked) < 2:
            initial["double_percent"] = 0
        return initial
    parameters = last.parameters
    imported = {c.username for c in candidates if c.imported}
    selection = PlanSelection.from_dict(parameters.get("selection"))
    return {
        "annotators": [name for name in parameters.get("annotators", []) if name not in imported],
        "per_pair": parameters.get("per_pair", 1),
        "double_percent": _percent(float(parameters.get("double_fraction", 0.0))),
        "subcorpus": None if selection.subcorpus is None else label(selection.subcorpus),
        "split": None if selection.split is None else label(selection.split),
        "min_length": selection.min_length,
        "max_length": selection.max_length,
        "batch": selection.batch,
    }


def _percent(fraction: float) -> float | int:
    """A stored fraction as the percentage typed: 0.2 is ``20``, not ``20.0`` (a float field
    shows a float's ``.0``), 0.125 is ``12.5``; rounded off float noise (0.07 × 100)."""
    percent = round(100 * fraction, 6)
    return int(percent) if percent.is_integer() else percent


class HandOverForm(forms.Form):
    annotator = forms.ChoiceField(label="From")
    to = forms.MultipleChoiceField(label="To", widget=forms.CheckboxSelectMultiple)
    include_started = forms.BooleanField(
        label="also pairs with saved work (the work moves with them)", required=False
    )

    def __init__(
        self,
        *args: Any,
        holders: list[dict[str, Any]],
        candidates: list[PlanCandidate],
        **kwargs: Any,
    ) -> None:
        kwargs.setdefault("label_suffix", "")
        kwargs.setdefault("auto_id", "handover-%s")
        super().__init__(*args, **kwargs)
        self.holders = holders
        self.candidates = candidates
        self.fields["annotator"].choices = [  # type: ignore[attr-defined]
            (row["username"], f"{row['username']} ({row['new'] + row['in_progress']:,} open)")
            for row in holders
        ]
        self.fields["to"].choices = [(c.username, c.username) for c in candidates]  # type: ignore[attr-defined]

    def people(self) -> list[dict[str, Any]]:
        """Each candidate with whether the form ticks them now and whether they are the one
        handing over (chosen under From, or the first choice): not offered under To."""
        chosen = set(self["to"].value() or [])
        choices = self.fields["annotator"].choices  # type: ignore[attr-defined]
        leaving = self["annotator"].value() or (choices[0][0] if choices else None)
        return [
            {
                "candidate": c,
                "checked": c.username in chosen and c.username != leaving,
                "handing_over": c.username == leaving,
            }
            for c in self.candidates
        ]


class ReleaseForm(forms.Form):
    # At least an hour: the page never takes a pair from someone working on it now (the API,
    # for scripts, takes 0).
    idle_hours = forms.FloatField(
        label="Idle for at least (hours)", min_value=1, max_value=MAX_IDLE_HOURS, initial=72
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("label_suffix", "")
        kwargs.setdefault("auto_id", "release-%s")
        super().__init__(*args, **kwargs)


def _coverage_chart(coverage: dict[str, Any]) -> Any:
    counts = {row["annotators"]: row["pairs"] for row in coverage["annotators_per_pair"]}
    top = max([3, *counts])
    return bar_chart(
        [(str(k), counts.get(k, 0)) for k in range(top + 1)],
        x_label="annotators per pair",
        y_label="pairs",
        title="Pairs by their number of annotators",
    )


def _summary(coverage: dict[str, Any], subcorpora: list[dict[str, Any]]) -> dict[str, Any]:
    counts = {row["annotators"]: row["pairs"] for row in coverage["annotators_per_pair"]}
    assigned = sum(row["new"] + row["in_progress"] + row["submitted"] for row in subcorpora)
    submitted = sum(row["submitted"] for row in subcorpora)
    return {
        "pairs": coverage["pairs"],
        "unassigned": counts.get(0, 0),
        "doubled": coverage["doubly_annotated"],
        "doubled_share": coverage["doubly_annotated_fraction"],
        "assigned": assigned,
        "submitted": submitted,
        "submitted_share": submitted / assigned if assigned else None,
    }


def _form_data(corpus: Corpus, work: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """What the two forms need to be checked: the people who may be chosen, the sub-corpora
    and splits, and who holds open work here (a few light queries, no progress figures).
    ``work``: the corpus's annotators with their new and in-progress assignments, when the
    caller has counted them already (the progress figures hold them)."""
    labels = corpus_labels(corpus)
    if work is None:
        work = work_by_annotator(corpus)
    open_here = {row["username"]: row["new"] + row["in_progress"] for row in work}
    return {
        "candidates": plan_candidates(corpus, open_here=open_here),
        "subcorpora": labels["subcorpora"],
        "splits": labels["splits"],
        "holders": [row for row in work if open_here[row["username"]]],
    }


def _page_data(corpus: Corpus) -> dict[str, Any]:
    """The forms' data and the progress figures the page shows (the forms' open work is read
    from the figures, not counted again)."""
    progress = corpus_progress(corpus)
    data = _form_data(corpus, progress["annotators"])
    # The candidates were looked up already; only the others are (deactivated, other roles).
    _mark_progress(progress, {c.username: c.imported for c in data["candidates"]})
    return {**data, "progress": progress}


def _mark_progress(progress: dict[str, Any], known: dict[str, bool]) -> None:
    """Mark the annotators an import made (``known``: whether each of some usernames is one,
    looked up already; the others are looked up here) and name the sub-corpora."""
    imported = {name for name, made in known.items() if made}
    imported |= imported_accounts(
        row["username"] for row in progress["annotators"] if row["username"] not in known
    )
    for row in progress["annotators"]:
        row["imported"] = row["username"] in imported
    for row in progress["subcorpora"]:
        row["name"] = label(row["subcorpus"])


def _plan_form(data: dict[str, Any], *args: Any, **kwargs: Any) -> PlanForm:
    return PlanForm(
        *args,
        candidates=data["candidates"],
        subcorpora=data["subcorpora"],
        splits=data["splits"],
        **kwargs,
    )


def _context(
    request: HttpRequest,
    corpus: Corpus,
    data: dict[str, Any],
    plan: PlanForm | None = None,
    hand_over: HandOverForm | None = None,
    release: ReleaseForm | None = None,
) -> dict[str, Any]:
    progress = data["progress"]
    return {
        **tab_context(corpus, "assignments"),
        **_jobs(request, corpus),
        "progress": progress,
        **_summary_context(progress["coverage"], progress["subcorpora"]),
        "plan": plan or _plan_form(data, initial=plan_initial(corpus, data["candidates"])),
        "hand_over": hand_over
        or HandOverForm(holders=data["holders"], candidates=data["candidates"]),
        "release": release or ReleaseForm(),
    }


def _summary_context(coverage: dict[str, Any], subcorpora: list[dict[str, Any]]) -> dict[str, Any]:
    return {"summary": _summary(coverage, subcorpora), "coverage_chart": _coverage_chart(coverage)}


def _jobs(request: HttpRequest, corpus: Corpus, *, with_results: bool = True) -> dict[str, Any]:
    """The section of plans, hand-overs and releases (``with_results``: with what each did)."""
    return jobs_section(
        request,
        corpus_jobs(corpus, request.user, KINDS),
        COLUMNS,
        with_results=with_results,
        noun="plans, hand-overs and releases",
        empty_title="No plan yet",
        empty_text="Plans, hand-overs and releases appear here with what they did.",
    )


def _fragment_context(request: HttpRequest, corpus: Corpus, fragment: str) -> dict[str, Any]:
    """What one fragment shows, and no more: the page refreshes the live ones every two
    seconds while a job runs, and recomputing the whole tab for each was seconds of SQL at
    100,000 pairs (the progress figures, the forms' people and the last plan, twice)."""
    context = tab_context(corpus, "assignments")
    if fragment == "summary":
        return {**context, **_jobs(request, corpus), **_summary_context(*corpus_coverage(corpus))}
    if fragment == "progress":
        progress = corpus_progress(corpus)
        _mark_progress(progress, {})
        return {
            **context,
            "live": _jobs(request, corpus, with_results=False)["live"],
            "progress": progress,
        }
    data = _form_data(corpus)
    if fragment == "plan":
        return {
            **context,
            "plan": _plan_form(data, initial=plan_initial(corpus, data["candidates"])),
        }
    return {
        **context,
        "hand_over": HandOverForm(holders=data["holders"], candidates=data["candidates"]),
        "release": ReleaseForm(),
    }


#: The live parts, and the forms fetched again when a plan, a hand-over or a release has
#: finished (who holds open work, and how much, has changed).
FRAGMENTS = ("summary", "progress", "plan", "handover")


@admin_page
def corpus_assignments(request: HttpRequest, corpus_id: int) -> HttpResponse:
    corpus = corpus_or_404(corpus_id)
    fragment = request.GET.get("fragment")
    if fragment in FRAGMENTS:
        context = _fragment_context(request, corpus, fragment)
        return render(request, f"{TEMPLATE}#{fragment}", context)
    return render(request, TEMPLATE, _context(request, corpus, _page_data(corpus)))


def _back(corpus: Corpus) -> HttpResponse:
    return redirect(reverse("corpus-assignments", args=[corpus.pk]))


@require_POST
@admin_page
@job_starting
def corpus_assignments_plan(request: HttpRequest, corpus_id: int) -> HttpResponse:
    """Queue a plan of the posted selection for the chosen people; bad input is shown on the
    form (400) and queues nothing."""
    corpus = corpus_or_404(corpus_id)
    data = _form_data(corpus)
    form = _plan_form(data, request.POST)
    if form.is_valid():
        values = form.cleaned_data
        try:
            job = assignments_plan_job_create(
                corpus=corpus,
                annotators=values["annotators"],
                per_pair=values["per_pair"],
                double_fraction=values["double_percent"] / 100,
                seed=values["seed"],
                selection=form.selection(),
                owner=request.user,  # type: ignore[arg-type]
            )
        except DomainError as error:
            refuse(form, error)
        else:
            job_queued(request, job, "Plan")
            return _back(corpus)
    page = _page_data(corpus)
    return render(request, TEMPLATE, _context(request, corpus, page, plan=form), status=400)


@require_POST
@admin_page
@job_starting
def corpus_assignments_hand_over(request: HttpRequest, corpus_id: int) -> HttpResponse:
    """Queue the hand-over of one annotator's open work in this corpus to the chosen people."""
    corpus = corpus_or_404(corpus_id)
    data = _form_data(corpus)
    form = HandOverForm(request.POST, holders=data["holders"], candidates=data["candidates"])
    if form.is_valid():
        values = form.cleaned_data
        try:
            job = assignments_hand_over_job_create(
                corpus=corpus,
                annotator=values["annotator"],
                to=values["to"],
                include_started=values["include_started"],
                owner=request.user,  # type: ignore[arg-type]
            )
        except DomainError as error:
            refuse(form, error)
        else:
            job_queued(request, job, "Hand-over")
            return _back(corpus)
    page = _page_data(corpus)
    return render(request, TEMPLATE, _context(request, corpus, page, hand_over=form), status=400)


@require_POST
@admin_page
@job_starting
def corpus_assignments_release(request: HttpRequest, corpus_id: int) -> HttpResponse:
    """Queue the release of this corpus's pairs left in progress and untouched for the posted
    number of hours to the least-loaded other annotators."""
    corpus = corpus_or_404(corpus_id)
    form = ReleaseForm(request.POST)
    if form.is_valid():
        try:
            job = assignments_release_job_create(
                idle_hours=form.cleaned_data["idle_hours"],
                corpus=corpus,
                owner=request.user,  # type: ignore[arg-type]
            )
        except DomainError as error:
            refuse(form, error)
        else:
            job_queued(request, job, "Release")
            return _back(corpus)
    page = _page_data(corpus)
    return render(request, TEMPLATE, _context(request, corpus, page, release=form), status=400)
