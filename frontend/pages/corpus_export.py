"""A corpus's export tab: choose a format and whose alignments, build the file as a job, and
download it from the list of exports (a live fragment while one is built)."""

from __future__ import annotations

from typing import Any

from django import forms
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from annotate.exceptions import DomainError
from annotate.models import Corpus
from annotate.services import exports
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

TEMPLATE = "frontend/admin/corpus_export.html"


def _cell(name: str) -> str:
    return f"{TEMPLATE}#{name}"


COLUMNS = (
    job_id_column(TEMPLATE),
    Column("Format", _cell("export-format"), key="format", sort="parameters__format"),
    Column("Alignments", _cell("export-which")),
    Column("Status", _cell("export-status"), key="status", sort="status"),
    Column("Pairs", _cell("export-pairs"), numeric=True),
    Column("Size", _cell("export-size"), numeric=True),
    Column("File", _cell("export-file")),
    Column("", "frontend/admin/job_list.html#job-cancel"),
)

WHICH_LABELS = {
    "all": "all",
    "annotator": "one annotator",
    "prefill": "the prefill",
    "gold": "the adjudicated gold",
}


class ExportForm(forms.Form):
    format = forms.ChoiceField(
        choices=[(name, name) for name in exports.EXPORT_FORMATS],
        initial="jsonl",
        widget=forms.RadioSelect,
    )
    which = forms.ChoiceField(
        label="Alignments",
        choices=list(WHICH_LABELS.items()),
        initial="all",
        widget=forms.RadioSelect,
    )
    annotator = forms.CharField(label="Annotator", required=False, max_length=150)
    use = forms.ChoiceField(
        label="From the links",
        choices=[("possible", "sure and possible (P)"), ("sure", "sure only (S)")],
        initial="possible",
    )
    max_length = forms.IntegerField(
        label="Longest phrase (tokens)",
        min_value=1,
        max_value=exports.MAX_PHRASE_LENGTH,
        initial=7,
    )
    keep_identical = forms.BooleanField(
        label="keep pairs with the same words on both sides", required=False
    )

    def __init__(self, *args: Any, sources: dict[str, Any] | None = None, **kwargs: Any) -> None:
        """``sources`` (what the corpus can export) are needed to show the form, not to check
        it: the service checks the annotator, the prefill and the gold and names the field."""
        kwargs.setdefault("label_suffix", "")
        kwargs.setdefault("auto_id", "export-%s")
        super().__init__(*args, **kwargs)
        self.sources = sources or {"annotators": [], "prefill": False, "gold": False}

    def which_options(self) -> list[dict[str, Any]]:
        """The choices of alignments: value, label, whether chosen, and why one is unavailable
        (this corpus has none of it), shown beside it."""
        missing = {
            "annotator": "" if self.sources["annotators"] else "nobody has work here yet",
            "prefill": "" if self.sources["prefill"] else "this corpus has no prefill",
            "gold": "" if self.sources["gold"] else "this corpus has no adjudicated gold",
        }
        chosen = self["which"].value()
        return [
            {
                "value": value,
                "label": text,
                "checked": value == chosen,
                "missing": missing.get(value, ""),
            }
            for value, text in WHICH_LABELS.items()
        ]


def describe(parameters: dict[str, Any]) -> str:
    """An export's alignments in a few words: ``annotator alice``, ``all · P · ≤ 7 tokens``."""
    which = parameters.get("which", "all")
    text = f"annotator {parameters.get('annotator', '')}" if which == "annotator" else which
    if parameters.get("format") == "phrases":
        text += f" · {'S' if parameters.get('use') == 'sure' else 'P'}"
        text += f" · ≤ {parameters.get('max_length')} tokens"
        if parameters.get("keep_identical"):
            text += " · identical kept"
    return text


def _page(
    request: HttpRequest, corpus: Corpus, form: ExportForm | None = None, status: int = 200
) -> HttpResponse:
    listed = jobs_section(
        request,
        corpus_jobs(corpus, request.user, ["export"]),
        COLUMNS,
        with_results=True,
        noun="exports",
        empty_title="No export yet",
        empty_text="Choose a format above and build one.",
    )
    for job in listed["table"].rows:
        job.which_text = describe(job.parameters)
    context = {**tab_context(corpus, "export"), **listed}
    if request.GET.get("fragment") == "exports":
        return render(request, f"{TEMPLATE}#exports", context)
    form = form or ExportForm()
    form.sources = exports.export_sources(corpus)
    context.update(form=form, formats=exports.EXPORT_FORMATS)
    return render(request, TEMPLATE, context, status=status)


@admin_page
def corpus_export(request: HttpRequest, corpus_id: int) -> HttpResponse:
    return _page(request, corpus_or_404(corpus_id))


@require_POST
@admin_page
@job_starting
def corpus_export_run(request: HttpRequest, corpus_id: int) -> HttpResponse:
    """Queue an export with the posted choices; bad ones are shown on the form (400)."""
    corpus = corpus_or_404(corpus_id)
    form = ExportForm(request.POST)
    if form.is_valid():
        values = form.cleaned_data
        try:
            job = exports.export_job_create(
                corpus=corpus,
                owner=request.user,  # type: ignore[arg-type]
                format_name=values["format"],
                which=values["which"],
                annotator=values["annotator"] or "",
                use=values["use"],
                max_length=values["max_length"],
                keep_identical=values["keep_identical"],
            )
        except DomainError as error:
            refuse(form, error)
        else:
            job_queued(request, job, "Export")
            return redirect(reverse("corpus-export", args=[corpus.pk]))
    return _page(request, corpus, form, status=400)
