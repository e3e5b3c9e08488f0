"""The pages whose data comes from the API through their scripts: the workspace and
adjudication."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.csrf import ensure_csrf_cookie

from annotate import roles
from annotate.exceptions import NotFound
from annotate.selectors import corpora as corpora_reads
from annotate.selectors import workspace as workspace_reads


def _is_adjudicator(request: HttpRequest) -> bool:
    return roles.has_role(request.user, roles.ADJUDICATOR) or roles.has_role(
        request.user, roles.ADMIN
    )


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
def adjudication_list(request: HttpRequest) -> HttpResponse:
    if not _is_adjudicator(request):
        return render(request, "frontend/forbidden.html", status=403)
    return render(request, "frontend/adjudication_list.html")


@login_required
@ensure_csrf_cookie
def adjudicate(request: HttpRequest, pair_id: int) -> HttpResponse:
    if not _is_adjudicator(request):
        return render(request, "frontend/forbidden.html", status=403)
    try:
        pair = corpora_reads.pair_get(pair_id)
    except NotFound as error:
        raise Http404(error.message) from error
    return render(request, "frontend/adjudicate.html", {"pair": pair})
