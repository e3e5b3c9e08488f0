"""The adjudicator's pages: the list of pairs ready for adjudication, rendered on the server
(filters, search, sort and pages in SQL, with a total), and the page of one pair, whose grid
editor is ``adjudicate.js``."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from django import forms
from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse, QueryDict
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from annotate import roles
from annotate.converters import id_or_none
from annotate.exceptions import DomainError, NotFound
from annotate.models import Job
from annotate.selectors import adjudication as adjudication_reads
from annotate.selectors import corpora as corpora_reads
from annotate.selectors import jobs as jobs_reads
from annotate.selectors.workers import waiting_job_notice
from annotate.services.adjudication_bulk import (
    ACCEPT_KIND,
    UNDO_KIND,
    accepts_undone,
    adjudication_accept_job_create,
    adjudication_accept_undo_job_create,
)
from annotate.throttles import job_start_settle
from frontend.access import any_role_page, job_starting
from frontend.pages.corpus_common import attach_results, job_queued
from frontend.pages.jobs import ACTIVE
from frontend.tables import PER_PAGE, Column, table_page

TEMPLATE = "frontend/adjudication_list.html"

adjudicator_page = any_role_page(
    (roles.ADJUDICATOR, roles.ADMIN), "This page is for adjudicators and corpus admins."
)


def _cell(name: str) -> str:
    return f"{TEMPLATE}#{name}"


COLUMNS = (
    Column("Pair", _cell("adj-pair"), key="id", sort="id"),
    Column("Sentences", _cell("adj-texts"), classes="clip"),
    Column("Annotators", _cell("adj-annotators")),
    Column(
        "Lowest F1",
        _cell("adj-f1"),
        key="disagreement",
        sort="disagreement",
        numeric=True,
        help="The lowest link F1 between two of the pair's annotators: the lower, the more "
        "they disagree",
    ),
    Column("Gold", _cell("adj-status")),
    Column("", _cell("adj-open")),
)

STATUS_CHOICES = [
    ("", "any"),
    ("waiting", "waiting"),
    ("adjudicated", "adjudicated"),
    ("imported", "waiting, with imported gold"),
]


class AdjudicationFilterForm(forms.Form):
    """The list's filters; the choices are the values the pairs have."""

    corpus = forms.TypedChoiceField(required=False, coerce=int, empty_value=None)
    subcorpus = forms.ChoiceField(required=False, label="Sub-corpus")
    split = forms.ChoiceField(required=False)
    status = forms.ChoiceField(required=False, choices=STATUS_CHOICES)
    annotator = forms.ChoiceField(required=False)
    q = forms.CharField(
        required=False,
        max_length=200,
        label="Search",
        widget=forms.TextInput(attrs={"type": "search", "placeholder": "pair id or words"}),
    )
    sort = forms.ChoiceField(
        required=False,
        choices=[(value, value) for value in adjudication_reads.SORT_CHOICES],
        widget=forms.HiddenInput,
    )

    def __init__(self, data: QueryDict, facets: dict[str, list[Any]]) -> None:
        super().__init__(data)
        any_value = [("", "any")]
        self.fields["corpus"].choices = any_value + facets["corpora"]  # type: ignore[attr-defined]
        for name, values in (
            ("subcorpus", facets["subcorpora"]),
            ("split", facets["splits"]),
            ("annotator", facets["annotators"]),
        ):
            self.fields[name].choices = any_value + [(v, v) for v in values]  # type: ignore[attr-defined]

    def filters(self) -> adjudication_reads.AdjudicationFilters:
        """The valid fields as the selector's filters; an invalid one is left out."""
        self.is_valid()
        values = self.cleaned_data
        return adjudication_reads.AdjudicationFilters(
            corpus=values.get("corpus"),
            subcorpus=values.get("subcorpus") or None,
            split=values.get("split") or None,
            status=values.get("status") or None,
            annotator=values.get("annotator") or None,
            search=values.get("q") or "",
            sort=values.get("sort") or "id",
        )


#: The bulk accepts (and their undos) the list shows, newest first.
BULK_JOBS_SHOWN = 5
#: The live parts of the list page: the bulk accept section (live while one of its jobs is
#: queued or running) and the list, fetched again when one ends.
FRAGMENTS = ("bulk", "list")


def _bulk_context(request: HttpRequest, filters: adjudication_reads.AdjudicationFilters) -> Any:
    """The bulk accept section: how many pairs of this list it would accept now, and the
    user's last bulk accepts and undos with their progress and results (an undo offered on
    each accept that ended and was not undone yet)."""
    jobs = list(
        jobs_reads.jobs_visible(request.user).filter(kind__in=[ACCEPT_KIND, UNDO_KIND])[
            :BULK_JOBS_SHOWN
        ]
    )
    attach_results(jobs)
    undone = accepts_undone(job.pk for job in jobs if job.kind == ACCEPT_KIND)
    return {
        "agreed": adjudication_reads.pairs_agreed_waiting(filters).count(),
        "bulk_jobs": jobs,
        "undoable": {
            job.pk
            for job in jobs
            if job.kind == ACCEPT_KIND and job.status not in ACTIVE and job.pk not in undone
        },
        "bulk_live": any(job.status in ACTIVE for job in jobs),
        "worker_notice": waiting_job_notice(user=request.user)
        if any(job.status == Job.Status.PENDING for job in jobs)
        else "",
    }


def _filter_form(data: QueryDict) -> AdjudicationFilterForm:
    facets = adjudication_reads.adjudication_facets(corpus=id_or_none(data.get("corpus", "")))
    return AdjudicationFilterForm(data, facets)


@adjudicator_page
def adjudication_list(request: HttpRequest) -> HttpResponse:
    form = _filter_form(request.GET)
    filters = form.filters()
    table = table_page(
        request,
        adjudication_reads.AdjudicationRows(filters),
        COLUMNS,
        default_sort="id",
        noun="pairs",
        empty_title="No pair here",
        empty_text="Pairs appear once two of their annotators have submitted them; the filters "
        "may hide the rest.",
    )
    # The adjudication page of a row remembers this list (filters and order) for `n`.
    list_query = table.query.copy()
    list_query.pop("page", None)
    first_waiting = adjudication_reads.pairs_for_adjudication(
        replace(filters, status="waiting")
    ).first()
    # The bulk accept posts the filters its count was made with: a value the form left out
    # (not one of its choices) is not sent, where the accept would refuse it.
    bulk_query = QueryDict(mutable=True)
    for name in form.cleaned_data:
        if request.GET.get(name):
            bulk_query[name] = request.GET[name]
    context = {
        "form": form,
        "table": table,
        "list_query": list_query.urlencode(),
        "bulk_query": bulk_query.urlencode(),
        "next_id": first_waiting.pair_id if first_waiting else None,
        **_bulk_context(request, filters),
    }
    fragment = request.GET.get("fragment")
    if fragment in FRAGMENTS:
        return render(request, f"{TEMPLATE}#{fragment}", context)
    return render(request, TEMPLATE, context)


def _back_to_list(request: HttpRequest) -> HttpResponse:
    """The list with the filters the form carried (``list_query``)."""
    query = request.POST.get("list_query", "")
    return redirect(reverse("adjudication") + (f"?{query}" if query else ""))


@require_POST
@adjudicator_page
@job_starting
def adjudication_accept_agreed(request: HttpRequest) -> HttpResponse:
    """Queue the bulk accept of the pairs of the list the posted filters describe whose
    annotators agree completely and that have no gold; back to that list, saying so."""
    query = QueryDict(request.POST.get("list_query", ""))
    form = _filter_form(query)
    if not form.is_valid():
        # a filter dropped here would widen the accept beyond the list the user saw
        wrong = "; ".join(
            f"{name}: {' '.join(str(e) for e in errors)}" for name, errors in form.errors.items()
        )
        messages.error(
            request,
            f"The list's filters are not all ones it offers now ({wrong}); nothing was "
            "accepted. Reload the list and check what it shows.",
        )
        job_start_settle(request, accepted=False)  # a refusal spends no job start
        return _back_to_list(request)
    try:
        job = adjudication_accept_job_create(
            filters=form.filters(),
            owner=request.user,  # type: ignore[arg-type]
        )
    except DomainError as error:
        messages.error(request, error.message)
        job_start_settle(request, accepted=False)
    else:
        job_queued(request, job, "Bulk accept")
    return _back_to_list(request)


@require_POST
@adjudicator_page
@job_starting
def adjudication_accept_undo(request: HttpRequest, job_id: int) -> HttpResponse:
    """Queue the undo of one of the user's bulk accepts (any one, for an admin)."""
    try:
        job = jobs_reads.job_visible(user=request.user, job_id=job_id)
    except NotFound as error:
        raise Http404(error.message) from error
    try:
        undo = adjudication_accept_undo_job_create(job=job, owner=request.user)  # type: ignore[arg-type]
    except DomainError as error:
        messages.error(request, error.message)
        job_start_settle(request, accepted=False)
    else:
        job_queued(request, undo, "Undo")
    return _back_to_list(request)


@adjudicator_page
def adjudicate(request: HttpRequest, pair_id: int) -> HttpResponse:
    try:
        pair = corpora_reads.pair_get(pair_id)
    except NotFound as error:
        raise Http404(error.message) from error
    # Back to the list it was opened from (filters and order), at the page that holds the pair.
    facets = adjudication_reads.adjudication_facets(
        corpus=id_or_none(request.GET.get("corpus", ""))
    )
    filters = AdjudicationFilterForm(request.GET, facets).filters()
    query = request.GET.copy()
    query.pop("page", None)
    page = adjudication_reads.adjudication_list_page(pair=pair, filters=filters, per_page=PER_PAGE)
    if page > 1:
        query["page"] = str(page)
    list_url = reverse("adjudication") + (f"?{query.urlencode()}" if query else "")
    # The pair before this one in that list (`b`), opened with the same filters and order.
    previous = adjudication_reads.adjudication_previous(pair=pair, filters=filters)
    list_query = request.GET.copy()
    list_query.pop("page", None)
    previous_url = (
        reverse("adjudicate", args=[previous.pk])
        + (f"?{list_query.urlencode()}" if list_query else "")
        if previous is not None
        else None
    )
    context = {
        "pair": pair,
        "list_url": list_url,
        "previous": previous,
        "previous_url": previous_url,
    }
    return render(request, "frontend/adjudicate.html", context)
