"""The home page: the signed-in user's queue (filtered by status and corpus, searched by pair id
and text, sorted and paged on the server), with what opens next; for adjudicators the pairs
waiting for them; for admins the corpora and the recent jobs, refreshed while a job runs."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.csrf import ensure_csrf_cookie

from annotate import roles
from annotate.models import Assignment, Corpus
from annotate.selectors import adjudication as adjudication_reads
from annotate.selectors import corpora as corpora_reads
from annotate.selectors import jobs as jobs_reads
from annotate.selectors import workspace as workspace_reads
from annotate.selectors.paging import IdsFirst
from annotate.selectors.workers import waiting_job_notice
from frontend.pages.jobs import ACTIVE, job_label
from frontend.tables import Column, page_asked, table_page

TEMPLATE = "frontend/home.html"
#: Rows of the admin's two short lists on the home page; the full lists are a click away.
SHORT_LIST = 10


def _cell(name: str) -> str:
    return f"{TEMPLATE}#{name}"


QUEUE_COLUMNS = (
    Column(
        "Pair",
        _cell("queue-pair"),
        key="queue",
        sort="pair__corpus__name,pair__position",
        help="Queue order: by corpus, then as the corpus lists its pairs",
    ),
    Column(
        "Corpus",
        _cell("queue-corpus"),
        key="corpus",
        sort="pair__corpus__name,pair__position",
        classes="not-on-phone",
    ),
    Column("Split", _cell("queue-split"), classes="not-on-phone"),
    Column("Sentence", _cell("queue-text"), classes="clip"),
    Column(
        "Size",
        _cell("queue-size"),
        numeric=True,
        help="source × target tokens",
        classes="not-on-phone",
    ),
    Column("Status", _cell("queue-status"), key="status", sort="status"),
    Column(
        "Active time",
        _cell("queue-time"),
        key="time",
        sort="active_seconds",
        numeric=True,
        help="Time spent with the pair open and in use",
        classes="not-on-phone",
    ),
    Column("Last worked", _cell("queue-last"), classes="not-on-phone"),
)

#: The sorts that list the queue in queue order (:data:`~annotate.selectors.workspace.QUEUE_ORDER`).
QUEUE_ORDERED = {"queue", "corpus"}
STATUS_LABELS = dict(Assignment.Status.choices)


class QueueFilters(forms.Form):
    q = forms.CharField(
        required=False,
        max_length=200,
        label="Search",
        widget=forms.TextInput(attrs={"type": "search", "placeholder": "pair id or words"}),
    )
    status = forms.ChoiceField(
        required=False, choices=[("", "any"), *Assignment.Status.choices], label="Status"
    )
    corpus = forms.TypedChoiceField(required=False, coerce=int, empty_value=None, label="Corpus")

    def __init__(self, *args: Any, corpora: list[tuple[int, str, int]], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        choices = [("", "any"), *((pk, f"{name} ({count:,})") for pk, name, count in corpora)]
        self.fields["corpus"].choices = choices  # type: ignore[attr-defined]


def _queue(request: HttpRequest) -> dict[str, Any]:
    user = request.user
    tally = workspace_reads.queue_tally(user)
    filters = QueueFilters(request.GET, corpora=tally.corpora())
    chosen: dict[str, Any] = {}
    if filters.is_valid():
        chosen = {
            "status": filters.cleaned_data["status"] or None,
            "corpus": filters.cleaned_data["corpus"],
            "search": filters.cleaned_data["q"].strip(),
        }
    summary = workspace_reads.queue_summary(user, tally=tally)
    rows: Any
    if request.GET.get("sort", "queue") in QUEUE_ORDERED and not chosen.get("search"):
        # In queue order a page reads its own rows alone, counted from the tally.
        rows = workspace_reads.QueuePage(
            tally, status=chosen.get("status"), corpus=chosen.get("corpus")
        )
    else:
        # A page's ids first; past the first page a search is evaluated once, for the count
        # and the page.
        deep = page_asked(request.GET.get("page")) > 1
        rows = IdsFirst(
            workspace_reads.queue_listed(user, **chosen), whole=bool(chosen.get("search")) and deep
        )
    table = table_page(
        request,
        rows,
        QUEUE_COLUMNS,
        default_sort="queue",
        noun="pairs",
        empty_title="No pair matches" if any(chosen.values()) else "Your queue is empty",
        empty_text="Change or clear the filters."
        if any(chosen.values())
        else "No pairs are assigned to you yet. A corpus admin assigns them.",
    )
    for assignment in table.rows:
        assignment.status_label = STATUS_LABELS[assignment.status]
    return {
        "filters": filters,
        "filtered": any(chosen.values()),
        "queue": table,
        "summary": summary,
        "least_sure_first": tally.least_sure_first(),
        "total": sum(summary.counts.values()),
        "status_counts": [
            (status, label, summary.counts[status]) for status, label in Assignment.Status.choices
        ],
    }


def _adjudication() -> dict[str, Any]:
    """The first pairs waiting for an adjudicator, most disagreement first (read in the order
    of an index of the small disagreement table; the list itself counts them all)."""
    waiting = adjudication_reads.pairs_for_adjudication(
        adjudication_reads.AdjudicationFilters(status="waiting", sort="disagreement")
    )
    ids = list(waiting.values_list("pair_id", flat=True)[: SHORT_LIST + 1])
    rows = adjudication_reads.adjudication_rows(ids[:SHORT_LIST])
    return {"waiting": rows, "more_waiting": len(ids) > SHORT_LIST}


def _overview(user: Any) -> dict[str, Any]:
    """The admin's corpora and recent jobs, and whether any job is still queued or running."""
    in_use = Corpus.objects.filter(archived_at__isnull=True)
    jobs: list[Any] = list(jobs_reads.jobs_visible(user)[:SHORT_LIST])
    for job in jobs:
        job.label = job_label(job.kind)
    return {
        "corpora": corpora_reads.corpora_counted(
            corpora_reads.corpora_filtered().order_by("name")[:SHORT_LIST]
        ),
        "corpora_total": in_use.count(),
        "jobs": jobs,
        "live": any(job.status in ACTIVE for job in jobs),
        "worker_notice": waiting_job_notice(user=user),
    }


@login_required
@ensure_csrf_cookie
def home(request: HttpRequest) -> HttpResponse:
    is_admin = roles.has_role(request.user, roles.ADMIN)
    if request.GET.get("fragment") == "overview" and is_admin:
        return render(request, f"{TEMPLATE}#overview", _overview(request.user))
    context = _queue(request)
    if is_admin or roles.has_role(request.user, roles.ADJUDICATOR):
        context.update(_adjudication())
    if is_admin:
        context.update(_overview(request.user))
    status = 400 if context["filters"].errors else 200
    return render(request, TEMPLATE, context, status=status)
