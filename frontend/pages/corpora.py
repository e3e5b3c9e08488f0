"""The corpora page: every corpus in use (or archived) with its counts, searched, sorted and
paged on the server; the import form, whose job the page follows live; and a corpus's actions:
recompute its statistics, archive, restore, and delete after a typed confirmation that states
what would be deleted."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from annotate.apis.common import MAX_ID
from annotate.exceptions import Conflict, DomainError, quoted
from annotate.models import Corpus, Job
from annotate.selectors import corpora as corpora_reads
from annotate.selectors import jobs as jobs_reads
from annotate.selectors.workers import waiting_job_notice
from annotate.services import corpora, uploads
from annotate.services.stats import corpus_stats_job_create
from frontend.access import admin_page, back_to, job_starting
from frontend.pages.jobs import ACTIVE, job_label, job_notice_tags
from frontend.tables import Column, table_page
from scoring import formats

TEMPLATE = "frontend/admin/corpus_list.html"
DELETE_TEMPLATE = "frontend/admin/corpus_delete.html"
#: The jobs the page follows: imports started here and deletions.
FOLLOWED = ("corpus_import", "corpus_delete")
RECENT_JOBS = 5
MAX_FILES = 20


def _cell(name: str) -> str:
    return f"{TEMPLATE}#{name}"


COLUMNS = (
    Column("Corpus", _cell("corpus-name"), key="name", sort="name"),
    Column("Pairs", _cell("corpus-pairs"), key="pairs", sort="n_pairs", numeric=True),
    Column(
        "Annotators",
        _cell("corpus-annotators"),
        key="annotators",
        sort="n_annotators",
        numeric=True,
        help="People with an assignment in the corpus",
    ),
    Column(
        "Open",
        _cell("corpus-open"),
        key="open",
        sort="n_open",
        numeric=True,
        help="Assignments new or in progress",
    ),
    Column(
        "Submitted",
        _cell("corpus-submitted"),
        key="submitted",
        sort="n_submitted",
        numeric=True,
        help="Submitted assignments",
    ),
    Column("Gold", _cell("corpus-gold"), key="gold", sort="n_gold", numeric=True),
    Column(
        "Prefill retraining",
        _cell("corpus-retraining"),
        classes="small",
        help="An aligner retrained as annotations accumulate (the Prefill tab sets it)",
    ),
    Column("", _cell("corpus-actions")),
)


class CorpusFilters(forms.Form):
    q = forms.CharField(
        required=False,
        max_length=100,
        label="Search",
        widget=forms.TextInput(attrs={"type": "search", "placeholder": "name or description"}),
    )
    show = forms.ChoiceField(
        required=False, choices=[("", "in use"), ("archived", "archived")], label="Show"
    )


class MultipleFileInput(forms.ClearableFileInput):
    allow_multiple_selected = True


class MultipleFileField(forms.FileField):
    """Every file of an ``<input type=file multiple>``, each checked as one file."""

    widget = MultipleFileInput

    def clean(self, data: Any, initial: Any = None) -> list[Any]:
        files = [item for item in (data if isinstance(data, list | tuple) else [data]) if item]
        if not files:
            raise forms.ValidationError(self.error_messages["required"], code="required")
        if len(files) > MAX_FILES:
            raise forms.ValidationError(f"at most {MAX_FILES} files are imported at once")
        return [super(MultipleFileField, self).clean(item, initial) for item in files]


def _format_choices() -> list[tuple[str, str]]:
    return [
        (name, f"{name} — {spec.description}") for name, spec in sorted(formats.FORMATS.items())
    ]


def _annotator_formats() -> str:
    return ", ".join(
        name for name, spec in sorted(formats.FORMATS.items()) if "annotator" in spec.options
    )


class ImportForm(forms.Form):
    corpus = forms.CharField(
        max_length=100,
        help_text="A new name creates the corpus; an existing one adds the pairs to it.",
        widget=forms.TextInput(
            attrs={"list": "corpus-names", "autocomplete": "off", "placeholder": "a name"}
        ),
    )
    format = forms.ChoiceField(choices=_format_choices)
    # Django's form metaclass moves fields off the class, so this does not shadow ``self.files``.
    files = MultipleFileField(  # type: ignore[assignment]
        allow_empty_file=True,  # refused by the import, naming the file (Django's names none)
        help_text="Every file of the import at once; a folder format (pharaoh) takes the "
        "folder's files, e.g. source.txt, target.txt and alignment.txt. An export's .zip "
        "uploads as downloaded (of every alignment: the gold, or the annotator's named below).",
    )
    annotator = forms.CharField(
        max_length=150,
        required=False,
        label="Annotator (optional)",
        help_text="Whose work the alignments are, for single-alignment formats "
        f"({_annotator_formats()}); left empty they become gold alignments.",
        widget=forms.TextInput(attrs={"autocomplete": "off"}),
    )
    subcorpus = forms.CharField(max_length=100, required=False, label="Sub-corpus (optional)")
    split = forms.CharField(max_length=50, required=False, label="Split (optional)")
    onto_existing = forms.BooleanField(
        required=False,
        label="Add annotations to existing pairs",
        help_text="Adds no pair: the file's annotations (and gold alignments) go onto the "
        "corpus's pairs of the same ids and tokens, e.g. a second annotator's file. Refused, "
        "with nothing stored, if an id is missing, the tokens differ, the annotator has other "
        "work on a pair already or a pair has another gold; the same work is left as it is.",
    )


def _followed_jobs(user: Any) -> list[Any]:
    """The newest imports and deletions, an import's report attached when it succeeded."""
    jobs: list[Any] = list(jobs_reads.jobs_visible(user).filter(kind__in=FOLLOWED)[:RECENT_JOBS])
    done = [job.pk for job in jobs if job.kind == "corpus_import" and job.has_result]
    reports = dict(Job.objects.filter(pk__in=done).values_list("pk", "result"))
    for job in jobs:
        job.label = job_label(job.kind)
        job.report = reports.get(job.pk)
    return jobs


def _corpora(request: HttpRequest, archived: bool, search: str) -> tuple[Any, bool]:
    """The rows to page, and whether they are counted already: sorted by a count, every corpus
    listed, counted and in that order; else the query, whose page alone is counted then."""
    asked = request.GET.get("sort", "name")
    column = next((c for c in COLUMNS if c.sort and c.key == asked.lstrip("-")), None)
    count = column.sort if column else None
    corpora = corpora_reads.corpora_filtered(archived=archived, search=search)
    if count not in corpora_reads.CORPUS_COUNTS:
        return corpora, False
    # As the query would order them: by the count, then by id ascending in either direction
    # (a stable sort keeps the ids' order among equal counts, reversed or not).
    rows = corpora_reads.corpora_counted(corpora.order_by("pk"))
    rows.sort(key=lambda row: getattr(row, str(count)), reverse=asked.startswith("-"))
    return rows, True


def _list_context(request: HttpRequest, *, with_table: bool = True) -> dict[str, Any]:
    """The page's context; without ``with_table``, only what the imports' fragment shows."""
    jobs = _followed_jobs(request.user)
    context: dict[str, Any] = {
        "jobs": jobs,
        "live": any(job.status in ACTIVE for job in jobs),
        "worker_notice": waiting_job_notice(user=request.user),
    }
    if not with_table:
        return context
    filters = CorpusFilters(request.GET)
    archived, search = False, ""
    if filters.is_valid():
        archived = filters.cleaned_data["show"] == "archived"
        search = filters.cleaned_data["q"].strip()
    rows, counted = _corpora(request, archived, search)
    table = table_page(
        request,
        rows,
        COLUMNS,
        default_sort="name",
        noun="corpora",
        empty_title=(
            "No corpus matches" if search else "No archived corpus" if archived else "No corpus yet"
        ),
        empty_text=(
            "Change or clear the search."
            if search
            else "An archived corpus keeps all its work out of the queues; restore it here."
            if archived
            else "Import files below: RTE-2 alignments, Edinburgh++ JSON, Pharaoh "
            "folders, MSRP, STS, MultiMWA or the project's JSONL."
        ),
        path=reverse("corpus-list"),
    )
    if not counted:
        corpora_reads.corpora_counted(table.rows)
    query = request.GET.copy()
    query.pop("fragment", None)
    return {
        **context,
        "here": f"{reverse('corpus-list')}?{query.urlencode()}",
        "query": query.urlencode(),
        "filters": filters,
        "archived": archived,
        "table": table,
        "archived_count": Corpus.objects.filter(archived_at__isnull=False).count(),
    }


def _render_list(
    request: HttpRequest, form: ImportForm | None = None, status: int = 200
) -> HttpResponse:
    context = _list_context(request)
    context["form"] = form or ImportForm()
    context["page_url"] = reverse("corpus-list")  # the import form posts elsewhere
    context["corpus_names"] = list(
        Corpus.objects.filter(archived_at__isnull=True).values_list("name", flat=True)
    )
    return render(request, TEMPLATE, context, status=status)


@admin_page
def corpus_list(request: HttpRequest) -> HttpResponse:
    fragment = request.GET.get("fragment")
    if fragment in ("corpora", "imports"):
        context = _list_context(request, with_table=fragment == "corpora")
        return render(request, f"{TEMPLATE}#{fragment}", context)
    return _render_list(request)


@require_POST
@admin_page
@job_starting
def corpus_import_view(request: HttpRequest) -> HttpResponse:
    """Store the uploaded files and queue their import; the list follows the job."""
    form = ImportForm(request.POST, request.FILES)
    if not form.is_valid():
        return _render_list(request, form, status=400)
    values = form.cleaned_data
    try:
        job = uploads.corpus_import_job_create(
            corpus=values["corpus"].strip(),
            format_name=values["format"],
            files=values["files"],
            annotator=values["annotator"].strip() or None,
            subcorpus=values["subcorpus"].strip() or None,
            split=values["split"].strip() or None,
            owner=request.user,  # type: ignore[arg-type]
            onto_existing=values["onto_existing"],
        )
    except DomainError as error:
        field = error.extra.get("field")
        form.add_error(field if field in form.fields else None, error.message)
        return _render_list(request, form, status=400)
    files = len(values["files"])
    doing = "Adding the annotations of" if values["onto_existing"] else "Importing"
    messages.success(
        request,
        f"{doing} {files} file{'s' if files != 1 else ''} into {job.parameters['corpus']}: "
        f"job #{job.pk}. All or nothing: on any error nothing is stored.",
        extra_tags=job_notice_tags(job, "Import"),
    )
    return redirect(reverse("corpus-list"))


def _corpus(corpus_id: int) -> Corpus:
    corpus = Corpus.objects.filter(pk=corpus_id).first()
    if corpus is None:
        raise Http404(f"there is no corpus {corpus_id}")
    return corpus


@require_POST
@admin_page
@job_starting
def corpus_stats_view(request: HttpRequest, corpus_id: int) -> HttpResponse:
    corpus = _corpus(corpus_id)
    job = corpus_stats_job_create(corpus=corpus, owner=request.user)  # type: ignore[arg-type]
    already = " (it was already queued)" if job.reused else ""
    messages.success(
        request,
        f"Recomputing the statistics of {quoted(corpus.name)}: job #{job.pk}{already}.",
        extra_tags=job_notice_tags(job, f"Statistics of {quoted(corpus.name)}, job"),
    )
    return redirect(back_to(request, reverse("home")))


@require_POST
@admin_page
def corpus_archive_view(request: HttpRequest, corpus_id: int) -> HttpResponse:
    corpus = _corpus(corpus_id)
    if corpora.corpus_archive(corpus=corpus):
        messages.success(
            request,
            f"Archived {quoted(corpus.name)}: it is out of the queues and lists, with all its "
            "work kept. Restore it from the archived corpora.",
        )
    else:
        messages.info(request, f"{quoted(corpus.name)} was archived already.")
    return redirect(back_to(request, reverse("corpus-list")))


@require_POST
@admin_page
def corpus_restore_view(request: HttpRequest, corpus_id: int) -> HttpResponse:
    corpus = _corpus(corpus_id)
    if corpora.corpus_restore(corpus=corpus):
        messages.success(
            request, f"Restored {quoted(corpus.name)}: it is back in the queues and lists."
        )
    else:
        messages.info(request, f"{quoted(corpus.name)} was not archived.")
    return redirect(back_to(request, reverse("corpus-list")))


class DeleteForm(forms.Form):
    confirm = forms.CharField(
        max_length=100,
        strip=False,
        label="Type the corpus name to delete it",
        widget=forms.TextInput(attrs={"autocomplete": "off", "spellcheck": "false"}),
    )
    # What the page showed: more work than this at the time of deleting stops the deletion.
    annotations = forms.IntegerField(min_value=0, max_value=MAX_ID, widget=forms.HiddenInput)
    gold_alignments = forms.IntegerField(min_value=0, max_value=MAX_ID, widget=forms.HiddenInput)
    assignments = forms.IntegerField(min_value=0, max_value=MAX_ID, widget=forms.HiddenInput)
    saved_changes = forms.IntegerField(min_value=0, max_value=MAX_ID, widget=forms.HiddenInput)


def _delete_page(
    request: HttpRequest,
    corpus: Corpus,
    *,
    errors: dict[str | None, list[str]] | None = None,
    status: int = 200,
) -> HttpResponse:
    """The confirmation with the corpus's contents counted now; after a refused POST, the name
    typed and ``errors`` (by field), and the hidden counts of the work now shown, so that
    confirming again confirms what the page shows."""
    contents = corpora_reads.corpus_contents(corpus)
    shown = {name: getattr(contents, name) for name in corpora.WORK_COUNTS}
    if errors is None:
        form = DeleteForm(initial=shown)
    else:
        form = DeleteForm({"confirm": request.POST.get("confirm", ""), **shown})
        form.is_valid()
        for field, messages_ in errors.items():
            for message in messages_:
                if message not in form.errors.get(field or "__all__", []):
                    form.add_error(field, message)
    context = {"corpus": corpus, "contents": contents, "form": form}
    return render(request, DELETE_TEMPLATE, context, status=status)


@admin_page
@job_starting
def corpus_delete_view(request: HttpRequest, corpus_id: int) -> HttpResponse:
    """GET: what deleting the corpus would remove, and the typed confirmation. POST: queue the
    deletion, unless the name is wrong, work was added since the page was shown, or a job of
    the corpus still runs (the page again, with the reason, and nothing changed)."""
    corpus = _corpus(corpus_id)
    if request.method != "POST":
        return _delete_page(request, corpus)
    form = DeleteForm(request.POST)
    if not form.is_valid():
        errors: dict[str | None, list[str]] = {
            field: [str(message) for message in found] for field, found in form.errors.items()
        }
        return _delete_page(request, corpus, errors=errors, status=400)
    values = form.cleaned_data
    seen = {name: values[name] for name in corpora.WORK_COUNTS}
    try:
        job = corpora.corpus_delete(
            corpus=corpus,
            confirm=values["confirm"],
            seen=seen,
            owner=request.user,  # type: ignore[arg-type]
        )
    except Conflict as error:
        return _delete_page(request, corpus, errors={None: [error.message]}, status=409)
    except DomainError as error:
        return _delete_page(request, corpus, errors={"confirm": [error.message]}, status=400)
    messages.success(
        request,
        f"Deleting {quoted(corpus.name)}: job #{job.pk} removes it and everything it holds; it is "
        "archived meanwhile.",
    )
    return redirect(reverse("corpus-list"))
