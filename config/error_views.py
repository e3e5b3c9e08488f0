"""The answers to errors raised outside any view's own handling (no URL matched, a body over
the size limit, a form whose CSRF token is out of date, an unexpected exception): the API's
JSON error shape under ``/api/``, the site's pages elsewhere."""

from __future__ import annotations

import sys
from typing import Any

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.views import defaults

from annotate.exceptions import database_locked
from annotate.middleware import api_request, database_busy_response

#: The addresses whose forms take corpus files: a body of up to ``MAX_UPLOAD_BYTES``. Every
#: other address takes up to ``DATA_UPLOAD_MAX_MEMORY_SIZE`` (``MAX_REQUEST_BODY_BYTES``).
UPLOAD_PATHS = frozenset({"/corpora/import/", "/api/corpora/import/"})


def body_limit(path: str) -> int:
    """The most bytes a request body to ``path`` may have."""
    if path in UPLOAD_PATHS:
        return int(settings.MAX_UPLOAD_BYTES)
    return int(settings.DATA_UPLOAD_MAX_MEMORY_SIZE)


def _json(status: int, code: str, message: str) -> JsonResponse:
    return JsonResponse({"error": {"code": code, "message": message}}, status=status)


def body_too_large(request: HttpRequest, length: int | None = None) -> HttpResponse:
    """413 for a body over its address's limit (``length`` bytes, when the request said)."""
    limit = body_limit(request.path)
    if request.path in UPLOAD_PATHS:
        size = f"the upload is {length:,} bytes" if length else "the upload is too large"
        message = (
            f"{size}; at most {limit:,} are accepted (import larger corpora with "
            "manage.py import_corpus)"
        )
    else:
        message = (
            f"the request body is larger than {limit:,} bytes; upload corpus files as files "
            "(multipart), not in a JSON body"
        )
    if api_request(request):
        return _json(413, "body_too_large", message)
    # Answered before the user is known: the upload form's page is the way back from an upload.
    back = reverse("corpus-list") if request.path in UPLOAD_PATHS else reverse("home")
    return render(request, "413.html", {"message": message, "back": back}, status=413)


def upload_refused(request: HttpRequest, length: int) -> HttpResponse:
    """413 for an upload over the ordinary body limit from someone who may not import: only a
    signed-in corpus admin sends a body of up to ``MAX_UPLOAD_BYTES``."""
    limit = int(settings.DATA_UPLOAD_MAX_MEMORY_SIZE)
    message = (
        f"the upload is {length:,} bytes; more than {limit:,} are accepted only from a "
        "signed-in corpus admin"
    )
    if api_request(request):
        return _json(413, "body_too_large", message)
    return render(request, "413.html", {"message": message, "back": reverse("home")}, status=413)


def bad_request(request: HttpRequest, exception: Exception) -> HttpResponse:
    if isinstance(exception, RequestDataTooBig):
        return body_too_large(request)
    if api_request(request):
        return _json(400, "bad_request", "the request could not be read")
    return render(request, "400.html", status=400)


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    """A form posted with a CSRF token that is missing or out of date: most often a page left
    open while its user signed out and in again in another tab (a sign-in replaces the token).
    The page says so and leads back to the form's page, where a reload gets a fresh token."""
    if api_request(request):
        return _json(403, "csrf_failed", "the CSRF token is missing or out of date; reload")
    back = request.META.get("HTTP_REFERER", "")
    if not url_has_allowed_host_and_scheme(
        back, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        back = ""
    return render(request, "403_csrf.html", {"back": back}, status=403)


def page_not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    if api_request(request):
        return _json(404, "not_found", f"no API operation at {request.path}")
    return defaults.page_not_found(request, exception)


def server_error(request: HttpRequest, *args: Any) -> HttpResponse:
    """A failure no view handled; a locked database (raised in a middleware, say) is a 503 to
    send again, not a server error."""
    if database_locked(sys.exc_info()[1]):
        return database_busy_response(request)
    if api_request(request):
        return _json(500, "server_error", "the server failed on this request; it is logged")
    return defaults.server_error(request)
