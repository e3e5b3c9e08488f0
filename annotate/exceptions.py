"""Domain errors, and :mod:`scoring`'s errors, and their single mapping to HTTP; what users
read of an error."""

from __future__ import annotations

import re
import sqlite3
import sys
import tempfile
from typing import Any

from django.conf import settings
from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.db import OperationalError
from django.http import Http404
from rest_framework import exceptions as drf_exceptions
from rest_framework.exceptions import APIException, ValidationError
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from scoring.errors import (
    InputError,
    ModelError,
    OptionsError,
    ResourceMissingError,
    ScoringError,
    UndefinedError,
)


class DomainError(Exception):
    """A request that breaks a rule of the domain. Subclasses choose the HTTP status."""

    status_code = 400
    code = "invalid"

    def __init__(self, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.message = message
        self.extra = extra


class NotFound(DomainError):
    status_code = 404
    code = "not_found"


class Conflict(DomainError):
    status_code = 409
    code = "conflict"


class PermissionDenied(DomainError):
    status_code = 403
    code = "permission_denied"


#: How each kind of :mod:`scoring` error reaches a client: its HTTP status and error code (the
#: first kind that matches).
SCORING_ERRORS: tuple[tuple[type[ScoringError], int, str], ...] = (
    (OptionsError, 400, "invalid_option"),
    (InputError, 400, "invalid_input"),
    (ModelError, 409, "model_unusable"),
    (UndefinedError, 422, "undefined"),
    (ResourceMissingError, 503, "resource_missing"),
    (ScoringError, 400, "invalid"),
)


def scoring_error_answer(error: ScoringError) -> tuple[int, str, dict[str, Any]]:
    """HTTP status, error code and extra fields of a :mod:`scoring` error: the option, field
    and line it names."""
    status, code = next((s, c) for kind, s, c in SCORING_ERRORS if isinstance(error, kind))
    extra: dict[str, Any] = {}
    if isinstance(error, OptionsError) and error.option:
        extra["field"] = error.option
    if isinstance(error, InputError):
        if error.field:
            extra["field"] = error.field
        if error.line is not None:
            extra["line"] = error.line
    return status, code, extra


def quoted(name: str) -> str:
    """``name`` in typographic quotes, as it is written, for a message shown to people; a
    Python repr would escape its apostrophes (``'O\\'Brien\\'s "notes"'``) or change its quotes
    with its content. Only a character that is not shown as itself (a control character, a line
    break) is written escaped, so that the message still shows where the name ends."""
    shown = "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in name)
    return f"\u201c{shown}\u201d"


def _server_folders() -> list[str]:
    folders = {
        str(settings.VAR_DIR),
        str(settings.EXPORT_DIR),
        str(settings.BASE_DIR),
        tempfile.gettempdir(),
        sys.prefix,
    }
    return sorted((f.rstrip("/") for f in folders if f.strip("/")), key=len, reverse=True)


def without_server_paths(text: str) -> str:
    """``text`` with every path inside the server's folders (its data, exports, code, temporary
    files) cut to the file's name, and a bare server folder to ``(server folder)``: an error
    message says what went wrong and which file, never where the server keeps it."""
    for folder in _server_folders():
        inside = re.compile(re.escape(folder) + r"(?:/[^\s'\"/:,;)]+)*/([^\s'\"/:,;)]*)")
        text = inside.sub(lambda m: m.group(1) or "(server folder)", text)
        text = text.replace(folder, "(server folder)")
    return text


#: How long a client is asked to wait before it sends again a request that found the database
#: locked (``Retry-After``).
RETRY_AFTER_SECONDS = 5
DATABASE_BUSY = (
    "the database is busy with another write (a large import, for example) and this request "
    "was not carried out; try again in a few seconds"
)


#: SQLite's messages for a lock another connection holds: past the busy timeout, and (shared
#: cache) at once.
_LOCKED = re.compile(r"\bdatabase (table )?is locked\b")


def database_locked(error: BaseException | None) -> bool:
    """Whether ``error``, or an error it was raised from or while handling, is SQLite's
    "database is locked": another connection held the write lock past the busy timeout. The
    request did not fail for what it asked; sent again a little later, it will do."""
    seen: set[int] = set()
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        if isinstance(error, OperationalError | sqlite3.OperationalError) and _LOCKED.search(
            str(error)
        ):
            return True
        error = error.__cause__ or error.__context__
    return False


def database_busy_body() -> dict[str, Any]:
    """The API's answer (status 503, with ``Retry-After``) to a request that found the database
    locked."""
    return {
        "error": {
            "code": "database_busy",
            "message": DATABASE_BUSY,
            "retry_after": RETRY_AFTER_SECONDS,
        }
    }


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    if database_locked(exc):
        response = Response(database_busy_body(), status=503)
        response["Retry-After"] = str(RETRY_AFTER_SECONDS)
        return response
    if isinstance(exc, ScoringError):
        status, code, extra = scoring_error_answer(exc)
        return _answer(status, code, str(exc), extra)
    if isinstance(exc, DomainError):
        return _answer(exc.status_code, exc.code, exc.message, exc.extra)
    # Django's own 404 and 403 (DRF's content negotiation raises Http404 for an unknown
    # ``?format=``) as DRF's, so that they too get the API's error shape, not ``{"detail"}``.
    if isinstance(exc, Http404):
        exc = drf_exceptions.NotFound()
    elif isinstance(exc, DjangoPermissionDenied):
        exc = drf_exceptions.PermissionDenied()
    answer = drf_exception_handler(exc, context)
    if answer is not None and isinstance(exc, APIException):
        answer.data = {"error": _drf_error(exc, answer.data)}
    return answer


def _drf_error(exc: APIException, data: Any) -> dict[str, Any]:
    """DRF's own refusals (a serializer's, authentication, permission, throttling, a parser's)
    in the API's one error shape: ``{"error": {"code", "message"}}``; a serializer's adds
    ``field``, the first field it refused (as a domain error names its field), and ``fields``,
    each field's problems."""
    if isinstance(exc, ValidationError):
        fields = data if isinstance(data, dict) else {"non_field_errors": data}
        message = "; ".join(
            f"{where}: {' '.join(problems)}"
            for name, value in fields.items()
            for where, problems in _problems_at(str(name), value)
        )
        first = next(iter(fields), None)
        return {"code": "invalid", "message": message, "field": first, "fields": fields}
    codes = exc.get_codes()
    code = codes if isinstance(codes, str) else exc.default_code
    detail = data.get("detail", exc.detail) if isinstance(data, dict) else exc.detail
    return {"code": str(code), "message": without_server_paths(str(detail))}


def _problems_at(where: str, value: Any) -> list[tuple[str, list[str]]]:
    """A field's problems, each group under the place it is about: an item of a list field is
    ``pairs[0][1]`` (DRF reports it under its index), a field of a nested object ``gold.sure``;
    so that the message says which item is wrong, not only that some item of ``pairs`` is."""
    if isinstance(value, dict):
        return [
            found
            for key, inner in value.items()
            for found in _problems_at(
                f"{where}[{key}]" if str(key).isdigit() else f"{where}.{key}", inner
            )
        ]
    if isinstance(value, list):
        if all(not isinstance(inner, dict | list) for inner in value):
            return [(where, [str(inner) for inner in value])] if value else []
        # a list of nested serializers' errors: one per item, empty for the valid ones
        return [
            found
            for index, inner in enumerate(value)
            for found in _problems_at(f"{where}[{index}]", inner)
        ]
    return [(where, [str(value)])]


def _answer(status: int, code: str, message: str, extra: dict[str, Any]) -> Response:
    return Response(
        {"error": {"code": code, "message": without_server_paths(message), **extra}},
        status=status,
    )
