"""The corpus admin's pages: corpora, one corpus' tabs, agreement reports, jobs and users.

Each view checks the role and renders a template; the page's data comes from the API through the
page's ES module, as everywhere in the frontend.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.views.decorators.csrf import ensure_csrf_cookie

from annotate import roles
from annotate.models import Corpus
from scoring import formats

View = Callable[..., HttpResponse]


def admin_page(view: View) -> View:
    """Logged in (else the login page), admin role (else a 403 page), CSRF cookie set."""

    @login_required
    @ensure_csrf_cookie
    @wraps(view)
    def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if not roles.has_role(request.user, roles.ADMIN):
            reason = "This page is for corpus admins."
            return render(request, "frontend/forbidden.html", {"reason": reason}, status=403)
        return view(request, *args, **kwargs)

    return wrapped


def _corpus_page(template: str, tab: str) -> View:
    @admin_page
    def view(request: HttpRequest, corpus_id: int) -> HttpResponse:
        corpus = get_object_or_404(Corpus, pk=corpus_id)
        return render(request, template, {"corpus": corpus, "tab": tab})

    view.__name__ = f"corpus_{tab}"
    return view


def _import_formats() -> list[dict[str, object]]:
    """The import formats for the upload form: name, what it reads, whether an annotator can be
    named for its alignments, and whether its files are read together as one folder."""
    return [
        {
            "name": name,
            "description": spec.description,
            "annotator": "annotator" in spec.options,
            "folder": spec.input_kind != "file",
        }
        for name, spec in sorted(formats.FORMATS.items())
    ]


@admin_page
def corpus_list(request: HttpRequest) -> HttpResponse:
    return render(request, "frontend/admin/corpus_list.html", {"formats": _import_formats()})


corpus_detail = _corpus_page("frontend/admin/corpus_overview.html", "overview")
corpus_pairs = _corpus_page("frontend/admin/corpus_pairs.html", "pairs")
corpus_agreement = _corpus_page("frontend/admin/corpus_agreement.html", "agreement")
corpus_prefill = _corpus_page("frontend/admin/corpus_prefill.html", "prefill")
corpus_assignments = _corpus_page("frontend/admin/corpus_assignments.html", "assignments")
corpus_export = _corpus_page("frontend/admin/corpus_export.html", "export")


@admin_page
def user_list(request: HttpRequest) -> HttpResponse:
    return render(request, "frontend/admin/user_list.html", {"roles": roles.ROLES})
