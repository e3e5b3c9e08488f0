"""Browser pages: templates only; their data comes from the API."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.csrf import ensure_csrf_cookie

from annotate import roles
from annotate.exceptions import NotFound
from annotate.selectors import workspace as workspace_reads
from annotate.selectors.scorers import scorer_models
from annotate.selectors.workers import waiting_job_notice
from annotate.services import guidelines
from scoring.scorers.papers import PAPER_FIGURES


@login_required
@ensure_csrf_cookie
def home(request: HttpRequest) -> HttpResponse:
    # Admins see the recent jobs here, with the notice when queued ones wait for no worker.
    notice = (
        waiting_job_notice(user=request.user) if roles.has_role(request.user, roles.ADMIN) else ""
    )
    return render(request, "frontend/home.html", {"worker_notice": notice})


@login_required
@ensure_csrf_cookie
def workspace(request: HttpRequest, assignment_id: int) -> HttpResponse:
    try:
        assignment = workspace_reads.assignment_of_user(
            user=request.user, assignment_id=assignment_id
        )
    except NotFound as error:
        raise Http404(error.message) from error
    return render(request, "frontend/workspace.html", {"assignment": assignment})


@login_required
@ensure_csrf_cookie
def guidelines_page(request: HttpRequest) -> HttpResponse:
    text = guidelines.guidelines_get()
    context = {"markdown": text, "html": guidelines.guidelines_html(text)}
    return render(request, "frontend/guidelines.html", context)


def _measure(evaluation: dict[str, object] | None) -> str:
    """``pearson 0.812`` or ``accuracy 0.742, F1 0.80`` for a train/test evaluation."""
    if not evaluation:
        return ""
    parts = []
    for key, label in (
        ("pearson", "Pearson"),
        ("spearman", "Spearman"),
        ("accuracy", "accuracy"),
        ("f1", "F1"),
    ):
        value = evaluation.get(key)
        if isinstance(value, float):
            parts.append(f"{label} {value:.4f}")
        elif key in evaluation:
            parts.append(f"{label} undefined")
    return ", ".join(parts)


@login_required
@ensure_csrf_cookie
def scorers_page(request: HttpRequest) -> HttpResponse:
    models = [
        {
            "name": model.name,
            "kind": model.kind,
            "corpus": model.corpus.name if model.corpus else None,
            "train_split": model.training.get("train_split"),
            "pairs": model.training.get("pairs"),
            "target": model.training.get("target"),
            "train": _measure(model.evaluation.get("train")),
            "test": _measure(model.evaluation.get("test")),
            "created": model.created_at,
        }
        for model in scorer_models()
    ]
    papers = [
        {
            "kind": kind,
            "source": paper["source"],
            "data": data,
            # one measure for the kind, or one per data set (the combined scorer's targets)
            "measure": paper["measure"][data]
            if isinstance(paper["measure"], dict)
            else paper["measure"],
            "values": list(values.items()),
        }
        for kind, paper in PAPER_FIGURES.items()
        for data, values in paper.items()
        if isinstance(values, dict) and data != "measure"
    ]
    return render(request, "frontend/scorers.html", {"models": models, "papers": papers})
