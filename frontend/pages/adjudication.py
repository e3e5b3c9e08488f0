"""The adjudicator's pages: the list of pairs ready for adjudication, rendered on the server
(filters, search, sort and pages in SQL, with a total), and the page of one pair, whose grid
editor is ``adjudicate.js``."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from django import forms
from django.http import Http404, HttpRequest, HttpResponse, QueryDict
from django.shortcuts import render
from django.urls import reverse

from annotate import roles
from annotate.converters import id_or_none
from annotate.exceptions import NotFound
from annotate.selectors import adjudication as adjudication_reads
from annotate.selectors import corpora as corpora_reads
from frontend.access import any_role_page
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


@adjudicator_page
def adjudication_list(request: HttpRequest) -> HttpResponse:
    facets = adjudication_reads.adjudication_facets(
        corpus=id_or_none(request.GET.get("corpus", ""))
    )
    form = AdjudicationFilterForm(request.GET, facets)
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
    context = {
        "form": form,
        "table": table,
        "list_query": list_query.urlencode(),
        "next_id": first_waiting.pair_id if first_waiting else None,
    }
    return render(request, TEMPLATE, context)


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
    return render(request, "frontend/adjudicate.html", {"pair": pair, "list_url": list_url})
