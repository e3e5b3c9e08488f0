"""Project-wide request checks that run before any view or other middleware reads the body."""

from __future__ import annotations

import codecs
import json
from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.utils.cache import add_never_cache_headers
from django.utils.http import parse_header_parameters

from annotate import roles
from annotate.middleware import api_request
from config.error_views import UPLOAD_PATHS, body_limit, body_too_large, upload_refused

#: Bytes every ASCII-compatible codec encodes and decodes as ASCII does (form syntax included).
_ASCII_PROBE = 'name=value&list=[1,2]; {"key": "x-y_z.0@9"} +~/?:#%'


def charset_problem(content_type: str) -> str | None:
    """Why the ``charset`` of a ``Content-Type`` header cannot be read, or ``None`` if it can.

    Bodies are decoded in the charset they name; one Python does not know, one that does not
    read ASCII as ASCII (UTF-7, UTF-16, UTF-32, EBCDIC: the form and JSON syntax itself would be
    misread), or any other than UTF-8 for form data (which is always UTF-8) is refused.
    """
    media_type, params = parse_header_parameters(content_type)
    charset = params.get("charset")
    if charset is None:
        return None
    shown = charset[:40]
    try:
        codec = codecs.lookup(charset)
        ascii_compatible = (
            codec.encode(_ASCII_PROBE)[0] == _ASCII_PROBE.encode("ascii")
            and codec.decode(_ASCII_PROBE.encode("ascii"))[0] == _ASCII_PROBE
        )
    except (LookupError, UnicodeError, TypeError, ValueError):
        return f"the charset {shown!r} of the Content-Type header is not supported; send UTF-8"
    if not ascii_compatible:
        return f"the charset {shown!r} of the Content-Type header is not supported; send UTF-8"
    if media_type == "application/x-www-form-urlencoded" and codec.name != "utf-8":
        return f"form data must be UTF-8, not {shown!r}"
    return None


class CharsetMiddleware:
    """Answers 400 to a request whose body names a charset it cannot be read in.

    Runs first: the CSRF check, the login form and the API parsers all decode the body, and a
    codec lookup or decoding error there would be a server error (the error page itself reads
    the body again).
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        problem = charset_problem(str(request.META.get("CONTENT_TYPE", "")))
        if problem is not None:
            return _bad_request(request, problem)
        return self.get_response(request)


class BodySizeMiddleware:
    """Answers 413 to a request whose ``Content-Length`` is over its address's limit
    (:func:`body_limit`), before anything reads the body.

    Django bounds a form's fields but not its files, which it stores on disk as it reads them:
    without this, any client (anonymous too, the CSRF check reading the form for its token)
    could keep a web process reading, and filling the disk with, a multipart body of any size
    to any address."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        length = content_length(request)
        if length > body_limit(request.path):
            return body_too_large(request, length)
        return self.get_response(request)


def content_length(request: HttpRequest) -> int:
    """The body's length the request announces (0 when it says none or nonsense)."""
    try:
        return int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        return 0


class UploadSenderMiddleware:
    """Answers 413 to an upload over the ordinary body limit (``MAX_REQUEST_BODY_BYTES``) from
    anyone but a signed-in corpus admin, before anything reads the body.

    :class:`BodySizeMiddleware` lets the upload addresses take up to ``MAX_UPLOAD_BYTES`` from
    anyone, and the CSRF check reads a form to find its token before the view checks the role:
    an anonymous client (with a CSRF cookie from the login page) or an annotator kept a web
    process reading, and writing to disk, 200 MB a request to ``/corpora/import/`` (and a
    signed-in annotator to ``/api/corpora/import/``, whose session's CSRF check reads the form
    too). Runs after the session's user is known and before any view (and so the CSRF check).
    A request to the API without a session passes: its token, if any, is checked by the view,
    which refuses a caller without the role before it reads the body."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.path in UPLOAD_PATHS:
            length = content_length(request)
            if length > int(settings.DATA_UPLOAD_MAX_MEMORY_SIZE):
                user = request.user
                checked_here = user.is_authenticated or not api_request(request)
                if checked_here and not roles.has_role(user, roles.ADMIN):
                    return upload_refused(request, length)
        return self.get_response(request)


class NoStoreMiddleware:
    """Every answer of the app is kept by no cache (``Cache-Control: no-store``, among Django's
    never-cache headers), unless its view chose its own caching.

    Pages, API answers and downloads show one user's view of everyone's work: the users list,
    every annotator's links, exports of the whole corpus. Without the header a browser kept
    them on disk, and on a shared computer the next person saw them with Back or in the
    browser's cache after the first had logged out. Static files, which WhiteNoise answers
    before this middleware, keep their long caching."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if not response.has_header("Cache-Control"):
            add_never_cache_headers(response)
        return response


def _bad_request(request: HttpRequest, message: str) -> HttpResponse:
    if api_request(request):
        body = {"error": {"code": "unsupported_charset", "message": message}}
        return HttpResponse(json.dumps(body), status=400, content_type="application/json")
    return HttpResponse(message, status=400, content_type="text/plain; charset=utf-8")
