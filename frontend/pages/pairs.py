"""A corpus's Pairs tab: its pairs filtered by sub-corpus, split, status, annotator and length,
searched by id and text, sorted and paged on the server; the filters live in the address, so a
filtered list can be bookmarked and shared."""

from __future__ import annotations

from typing import Any

from django import forms
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render

from annotate.exceptions import NotFound
from annotate.selectors import corpora as corpora_reads
from annotate.selectors.paging import IdsFirst
from frontend.access import admin_page
from frontend.tables import Column, page_asked, table_page

TEMPLATE = "frontend/admin/corpus_pairs.html"
#: How the filters name the empty sub-corpus or split.
NO_LABEL = "(none)"
MAX_LENGTH = 1_000_000


def _cell(name: str) -> str:
    return f"{TEMPLATE}#{name}"


COLUMNS = (
    Column("Pair", _cell("pair-id"), key="id", sort="external_id"),
    Column("Sub-corpus", _cell("pair-subcorpus"), key="subcorpus", sort="subcorpus,position"),
    Column("Split", _cell("pair-split"), key="split", sort="split,position"),
    Column(
        "Size",
        _cell("pair-size"),
        key="length",
        sort="shorter,position",
        numeric=True,
        help="source × target tokens; sorts by the shorter sentence",
    ),
    Column("Sentences", _cell("pair-texts"), classes="texts"),
    Column(
        "Annotators",
        _cell("pair-annotators"),
        numeric=True,
        help="submitted / assigned",
    ),
    Column("Gold", _cell("pair-gold")),
)

STATUS_CHOICES = [
    ("", "any"),
    ("unassigned", "unassigned"),
    ("new", "new"),
    ("in_progress", "in progress"),
    ("submitted", "submitted"),
    ("adjudicated", "with gold"),
]


def _labelled(values: list[str]) -> list[tuple[str, str]]:
    return [("", "any"), *((value or NO_LABEL, value or NO_LABEL) for value in values)]


class PairFilters(forms.Form):
    q = forms.CharField(
        required=False,
        max_length=200,
        label="Search",
        widget=forms.TextInput(attrs={"type": "search", "placeholder": "id or words", "size": 16}),
    )
    subcorpus = forms.ChoiceField(required=False, label="Sub-corpus")
    split = forms.ChoiceField(required=False, label="Split")
    status = forms.ChoiceField(required=False, choices=STATUS_CHOICES, label="Status")
    annotator = forms.ChoiceField(required=False, label="Annotator")
    min_length = forms.IntegerField(
        required=False, min_value=0, max_value=MAX_LENGTH, label="Shorter length ≥"
    )
    max_length = forms.IntegerField(required=False, min_value=0, max_value=MAX_LENGTH, label="≤")

    def __init__(self, *args: Any, facets: dict[str, list[str]], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["subcorpus"].choices = _labelled(facets["subcorpora"])  # type: ignore[attr-defined]
        self.fields["split"].choices = _labelled(facets["splits"])  # type: ignore[attr-defined]
        self.fields["annotator"].choices = [  # type: ignore[attr-defined]
            ("", "any"),
            *((name, name) for name in facets["annotators"]),
        ]

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        low, high = data.get("min_length"), data.get("max_length")
        if low is not None and high is not None and low > high:
            # A sentence of its own, not one under the field's label ("≤"); the longest length
            # is left out of the selection.
            self.add_error(None, f"The longest length ({high}) is below the shortest ({low}).")
            del data["max_length"]
        return data

    def selection(self) -> dict[str, Any]:
        """The valid filters as the selector takes them (an invalid one is left out)."""
        data = self.cleaned_data if self.is_bound else {}
        chosen: dict[str, Any] = {"search": (data.get("q") or "").strip()}
        for name in ("subcorpus", "split"):
            if data.get(name):
                chosen[name] = "" if data[name] == NO_LABEL else data[name]
        for name in ("status", "annotator"):
            if data.get(name):
                chosen[name] = data[name]
        for name in ("min_length", "max_length"):
            if data.get(name) is not None and name not in self.errors:
                chosen[name] = data[name]
        return chosen


@admin_page
def corpus_pairs(request: HttpRequest, corpus_id: int) -> HttpResponse:
    try:
        corpus = corpora_reads.corpus_get(corpus_id)
    except NotFound as error:
        raise Http404(error.message) from error
    filters = PairFilters(request.GET, facets=corpora_reads.corpus_facets(corpus))
    filters.is_valid()
    chosen = filters.selection()
    pairs = corpora_reads.corpus_pairs_filtered(corpus, **chosen).only(
        "id",
        "external_id",
        "subcorpus",
        "split",
        "n_source",
        "n_target",
        "source_text",
        "target_text",
        "position",
    )
    narrowed = bool(chosen["search"]) or len(chosen) > 1
    table = table_page(
        request,
        # A page's ids are chosen first; past the first page a search is evaluated once, for
        # the count and the page.
        IdsFirst(pairs, whole=bool(chosen["search"]) and page_asked(request.GET.get("page")) > 1),
        COLUMNS,
        noun="pairs",
        empty_title="No pair matches" if narrowed else "No pairs yet",
        empty_text="Change or clear the filters."
        if narrowed
        else "Import files into this corpus on the Corpora page.",
    )
    counts = corpora_reads.pair_counts([pair.pk for pair in table.rows])
    for pair in table.rows:
        pair.counts = counts[pair.pk]
    context = {
        "corpus": corpus,
        "tab": "pairs",
        "filters": filters,
        "narrowed": narrowed,
        "table": table,
    }
    return render(request, TEMPLATE, context, status=400 if filters.errors else 200)
