"""What every tab of a corpus shares: the corpus and the tab, a section listing the corpus's jobs
of some kinds (paged, live while one of them is queued or running), and turning a service's
refusal into an error on the form field it names."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django import forms
from django.contrib import messages
from django.db.models import QuerySet
from django.http import HttpRequest
from django.shortcuts import get_object_or_404
from django.urls import reverse

from annotate.exceptions import DomainError
from annotate.models import Corpus, Job
from annotate.selectors import jobs as jobs_reads
from annotate.selectors.workers import waiting_job_notice
from frontend.pages.jobs import ACTIVE, job_label, job_notice_tags
from frontend.tables import Column, Table, table_page

#: Jobs a tab's section shows on one page.
JOBS_PER_PAGE = 10
#: Sub-corpora and splits without a label are shown, and chosen, under this name.
NO_LABEL = "(none)"


def corpus_or_404(corpus_id: int) -> Corpus:
    return get_object_or_404(Corpus, pk=corpus_id)


def tab_context(corpus: Corpus, tab: str) -> dict[str, Any]:
    """What every corpus tab's template needs, with the tab's own address: a form posted to
    another one is answered with the tab again, whose live parts refresh from the tab's."""
    name = "corpus-detail" if tab == "overview" else f"corpus-{tab}"
    return {"corpus": corpus, "tab": tab, "page_url": reverse(name, args=[corpus.pk])}


def label(value: str) -> str:
    """A sub-corpus or split as the pages name it: ``(none)`` for the empty one."""
    return value if value else NO_LABEL


def corpus_jobs(corpus: Corpus, user: Any, kinds: Sequence[str]) -> QuerySet[Job]:
    """The corpus's jobs of ``kinds`` that ``user`` sees, newest first, results left out."""
    return jobs_reads.jobs_visible(user).filter(corpus=corpus, kind__in=list(kinds))


def attach_results(jobs: Sequence[Job]) -> None:
    """Give each of ``jobs`` (one page of a list) its ``result``, read in one query: the lists
    leave results out, and the few a page shows are small (a prefill's scores, an export's
    file, a plan's counts)."""
    results = dict(Job.objects.filter(pk__in=[job.pk for job in jobs]).values_list("pk", "result"))
    for job in jobs:
        job.result = results.get(job.pk)


def jobs_section(
    request: HttpRequest,
    jobs: QuerySet[Job],
    columns: Sequence[Column],
    *,
    with_results: bool = False,
    **options: Any,
) -> dict[str, Any]:
    """The context of a tab's job list: its table (newest first, paged), whether it is live
    (a job on this page is queued or running) and the notice that no worker is running."""
    table: Table = table_page(
        request, jobs, columns, default_sort="-created", per_page=JOBS_PER_PAGE, **options
    )
    if with_results:
        attach_results(table.rows)
    for job in table.rows:
        job.label = job_label(job.kind)
    return {
        "table": table,
        "live": any(job.status in ACTIVE for job in table.rows),
        "worker_notice": waiting_job_notice(user=request.user),
    }


def refuse(form: forms.Form, error: Exception, *, prefix: str = "") -> None:
    """Show a service's refusal (a :class:`DomainError`, or a scoring error such as bad
    options) on the field it names (an options error names its option), ``prefix`` + its name
    when the form has that field, else on the whole form."""
    extra = error.extra if isinstance(error, DomainError) else {}
    name = extra.get("field") or getattr(error, "field", None) or getattr(error, "option", None)
    message = error.message if isinstance(error, DomainError) else str(error)
    for candidate in (f"{prefix}{name}", name):
        if name and candidate in form.fields:
            form.add_error(candidate, message)
            return
    form.add_error(None, message)


def job_queued(request: HttpRequest, job: Job, what: str) -> None:
    """Say that ``what`` (``"Prefill"``) was queued as ``job``, or that the same request
    already is; the page replaces the message when it sees the job end."""
    tags = job_notice_tags(job, what)
    if getattr(job, "reused", False):
        text = f"{what} #{job.pk} with the same settings is already {job.status}."
        messages.info(request, text, extra_tags=tags)
    else:
        text = f"{what} #{job.pk} queued; its progress is shown below."
        messages.success(request, text, extra_tags=tags)


def job_id_column(template: str) -> Column:
    """The first column of every tab's job list: its number and when it was queued."""
    return Column("Job", f"{template}#job-id", key="created", sort="created_at")
