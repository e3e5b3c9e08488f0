"""The workspace page: the grid editor, whose data comes from the API through its script."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.csrf import ensure_csrf_cookie

from annotate.exceptions import NotFound, PermissionDenied
from annotate.selectors import workspace as workspace_reads


@login_required
@ensure_csrf_cookie
def workspace(request: HttpRequest, assignment_id: int) -> HttpResponse:
    try:
        assignment = workspace_reads.assignment_of_user(
            user=request.user, assignment_id=assignment_id
        )
    except NotFound as error:
        raise Http404(error.message) from error
    except PermissionDenied as error:
        reason = f"This pair cannot be opened: {error.message}."
        return render(request, "frontend/forbidden.html", {"reason": reason}, status=403)
    return render(request, "frontend/workspace.html", {"assignment": assignment})
