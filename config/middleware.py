"""Project-wide request checks that run before any view or other middleware reads the body."""

from __future__ import annotations

import codecs
import json
from collections.abc import Callable

from django.http import HttpRequest, HttpResponse
from django.utils.http import parse_header_parameters

from annotate.middleware import api_request
from config.error_views import body_limit, body_too_large

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
        try:
            length = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            length = 0
        if length > body_limit(request.path):
            return body_too_large(request, length)
        return self.get_response(request)


def _bad_request(request: HttpRequest, message: str) -> HttpResponse:
    if api_request(request):
        body = {"error": {"code": "unsupported_charset", "message": message}}
        return HttpResponse(json.dumps(body), status=400, content_type="application/json")
    return HttpResponse(message, status=400, content_type="text/plain; charset=utf-8")
