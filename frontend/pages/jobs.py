"""The jobs page: every job with its parameters, live status and progress, duration, result and
error, filtered and paged on the server; queued and running jobs can be cancelled."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from django import forms
from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from annotate.exceptions import DomainError
from annotate.jobs_runtime import WAITING, job_queue
from annotate.models import Job
from annotate.selectors import jobs as jobs_reads
from annotate.selectors.workers import busy_queues, waiting_job_notice
from annotate.services.jobs import job_cancel, jobs_reap_if_due
from frontend.access import admin_page, back_to
from frontend.tables import Column, table_page

TEMPLATE = "frontend/admin/job_list.html"

#: How the pages name each kind of job.
JOB_LABELS = {
    "corpus_stats": "corpus statistics",
    "corpus_delete": "corpus deletion",
    "train_scorer": "scorer training",
    "adjudication_accept": "bulk accept of agreed pairs",
    "adjudication_accept_undo": "undo of a bulk accept",
}

ACTIVE = (Job.Status.PENDING, Job.Status.RUNNING)


def job_label(kind: str) -> str:
    return JOB_LABELS.get(kind, kind.replace("_", " "))


#: How a message about a job names it in its tags: ``job:<id>:<what>``, so the page can say
#: when that job has ended (``fragments.js`` replaces the message then).
NOTICE_TAG = "job"


def job_notice_tags(job: Job, what: str) -> str:
    """The ``extra_tags`` of a message about ``job`` (``what`` names it: ``"Report"``)."""
    return f"{NOTICE_TAG}:{job.pk}:{what}"


def notice_job(tags: str) -> dict[str, str] | None:
    """The job a message's ``extra_tags`` name (``{"id": "12", "what": "Report"}``), or None."""
    kind, _, rest = (tags or "").partition(":")
    number, _, what = rest.partition(":")
    if kind != NOTICE_TAG or not number.isdigit() or not what:
        return None
    return {"id": number, "what": what}


def _cell(name: str) -> str:
    return f"{TEMPLATE}#{name}"


COLUMNS = (
    Column("Job", _cell("job-id"), key="created", sort="created_at"),
    Column("Kind", _cell("job-kind"), key="kind", sort="kind"),
    Column("Corpus", _cell("job-corpus"), key="corpus", sort="corpus__name"),
    Column("Owner", _cell("job-owner"), key="owner", sort="owner__username"),
    Column("Parameters", _cell("job-parameters"), classes="params small"),
    Column("Status", _cell("job-status"), key="status", sort="status"),
    Column("Progress", _cell("job-progress")),
    Column("Duration", _cell("job-duration"), numeric=True, classes="not-on-tablet"),
    # a job that is still to finish has no result yet: its Cancel takes the result's place
    Column("Result", _cell("job-result")),
)


class JobFilters(forms.Form):
    kind = forms.ChoiceField(required=False)
    status = forms.ChoiceField(required=False, choices=[("", "any"), *Job.Status.choices])

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        kinds = [("", "any"), *((k, job_label(k)) for k in sorted(jobs_reads.JOB_OUTPUT_ROLES))]
        self.fields["kind"].choices = kinds  # type: ignore[attr-defined]


#: A parameter's value longer than this is shown summarised, its whole value beside it.
SHORT_VALUE = 48
#: Significant digits of a float parameter (a fitted slope is stored with 17).
FLOAT_DIGITS = 4


@dataclass(frozen=True)
class Parameter:
    """One of a job's parameters as the jobs page shows it: ``text`` is short enough for the
    list; ``full`` is the whole value when ``text`` summarises it, else empty."""

    name: str
    text: str
    full: str = ""


def _by_key(mapping: dict[Any, Any]) -> list[tuple[Any, Any]]:
    """A mapping's entries by key, so that a job reads the same on every database: PostgreSQL's
    jsonb keeps an object's keys shortest first, SQLite's JSON as they were written."""
    return sorted(mapping.items(), key=lambda entry: str(entry[0]))


def _scalar(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.{FLOAT_DIGITS}g}" if math.isfinite(value) else str(value)
    return "—" if value is None else str(value)


def _whole(value: Any, *, inner: bool = False) -> str:
    """``value`` written out in full, floats rounded: ``alice: {possible: [0.0581, …]}``, one
    line per entry of a mapping at the top."""
    if isinstance(value, dict):
        entries = [f"{key}: {_whole(item, inner=True)}" for key, item in _by_key(value)]
        return "{" + "; ".join(entries) + "}" if inner else "\n".join(entries)
    if isinstance(value, list | tuple):
        text = ", ".join(_whole(item, inner=True) for item in value)
        return f"[{text}]" if inner else text
    return _scalar(value)


def _summary(value: Any, whole: str) -> str:
    """A long value in a few words: a mapping by its keys, a list by its first items, a text
    by its start."""
    if isinstance(value, dict):
        keys = [str(key) for key, _ in _by_key(value)]
        return ", ".join(keys[:4]) + (f" and {len(keys) - 4} more" if len(keys) > 4 else "") + ": …"
    if isinstance(value, list | tuple):
        shown = [_whole(item, inner=True) for item in value[:4]]
        return ", ".join(shown)[:SHORT_VALUE] + f", … ({len(value):,} in all)"
    return whole[: SHORT_VALUE - 1].rstrip() + "…"


def job_parameters(job: Job) -> list[Parameter]:
    """A job's parameters (and its seed) for reading: ``aligner: em``, ``seed: 7``; floats to
    four significant digits; a long or nested value summarised with its whole value kept.
    Empty values are left out; the parameters in alphabetical order, the seed last."""
    values = dict(_by_key(job.parameters or {}))
    if job.seed is not None:
        values["seed"] = job.seed
    shown = []
    for name, value in values.items():
        if value is None or value == "" or value == [] or value == {}:
            continue
        whole = _whole(value)
        if len(whole) <= SHORT_VALUE:
            shown.append(Parameter(name, whole))
        else:
            shown.append(Parameter(name, _summary(value, whole), whole))
    return shown


@admin_page
def job_list(request: HttpRequest) -> HttpResponse:
    jobs_reap_if_due()  # the list never shows a job of a dead worker as running
    filters = JobFilters(request.GET)
    jobs = jobs_reads.jobs_visible(request.user)
    narrowed = False
    if filters.is_valid():
        if filters.cleaned_data["kind"]:
            jobs = jobs.filter(kind=filters.cleaned_data["kind"])
        if filters.cleaned_data["status"]:
            jobs = jobs.filter(status=filters.cleaned_data["status"])
        narrowed = bool(filters.cleaned_data["kind"] or filters.cleaned_data["status"])
    table = table_page(
        request,
        jobs,
        COLUMNS,
        default_sort="-created",
        noun="jobs",
        empty_title="No job matches" if narrowed else "No job yet",
        empty_text=(
            "Change or clear the filters."
            if narrowed
            else "Jobs appear here when a report, a prefill, an import, an export or a training "
            "starts."
        ),
    )
    busy = busy_queues() if any(j.message == WAITING for j in table.rows) else {}
    for job in table.rows:
        job.parameter_items = job_parameters(job)
        job.label = job_label(job.kind)
        # its queue's workers alive but busy: the queued job waits for these to end (the
        # page's notice says when no worker, or none of its queue, is there at all)
        job.waiting_behind = busy.get(job_queue(job.kind), 0) if job.message == WAITING else 0
    context = {
        "filters": filters,
        "narrowed": narrowed,
        "table": table,
        "live": any(job.status in ACTIVE for job in table.rows),
        "worker_notice": waiting_job_notice(user=request.user),
    }
    if request.GET.get("fragment") == "jobs":
        return render(request, f"{TEMPLATE}#jobs", context)
    return render(request, TEMPLATE, context)


@require_POST
@admin_page
def job_cancel_view(request: HttpRequest, job_id: int) -> HttpResponse:
    """Cancel a queued or running job; its worker stops at its next progress step."""
    try:
        job = jobs_reads.job_visible(user=request.user, job_id=job_id)
    except DomainError as error:
        messages.error(request, error.message)
    else:
        if job_cancel(job=job):
            messages.success(request, f"Job #{job.pk} cancelled.")
        else:
            job.refresh_from_db()
            messages.error(
                request, f"Job #{job.pk} is {job.status}; only a queued or running job can stop."
            )
    return redirect(back_to(request, reverse("job-list")))
