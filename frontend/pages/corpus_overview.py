"""A corpus's overview tab: its figures, the histogram of lengths, its annotators, sub-corpora and
splits, all read from one selector and drawn on the server."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from annotate.selectors.assignments import imported_accounts
from annotate.selectors.corpora import corpus_overview
from frontend.access import admin_page
from frontend.charts import bar_chart
from frontend.pages.corpus_common import corpus_or_404, label, tab_context

TEMPLATE = "frontend/admin/corpus_overview.html"


def overview_context(corpus: Any) -> dict[str, Any]:
    overview: dict[str, Any] = corpus_overview(corpus)
    imported = imported_accounts(row["username"] for row in overview["annotators"])
    histogram = bar_chart(
        [(row["label"], row["count"]) for row in overview["length_histogram"]],
        x_label="tokens in the shorter sentence",
        y_label="pairs",
        title="Pairs by the length of their shorter sentence",
    )
    return {
        "overview": overview,
        "histogram": histogram,
        "annotators": [
            {**row, "imported": row["username"] in imported} for row in overview["annotators"]
        ],
        "subcorpora": [
            {"name": label(row["subcorpus"]), "pairs": row["pairs"]}
            for row in overview["subcorpora"]
        ],
        "splits": [
            {"name": label(row["split"]), "pairs": row["pairs"]} for row in overview["splits"]
        ],
    }


@admin_page
def corpus_detail(request: HttpRequest, corpus_id: int) -> HttpResponse:
    corpus = corpus_or_404(corpus_id)
    context = {**tab_context(corpus, "overview"), **overview_context(corpus)}
    return render(request, TEMPLATE, context)
