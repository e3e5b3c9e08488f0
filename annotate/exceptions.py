"""Domain errors, and :mod:`scoring`'s errors, and their single mapping to HTTP; what users
read of an error."""

from __future__ import annotations

import re
import sys
import tempfile
from typing import Any

from django.conf import settings
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


class InvalidInput(DomainError):
    code = "invalid_input"


class InvalidOption(DomainError):
    code = "invalid_option"


class ModelUnusable(DomainError):
    """A stored model cannot do what is asked (not trained, trained on other features)."""

    status_code = 409
    code = "model_unusable"


class Undefined(DomainError):
    """A measure or fit is undefined on the input given."""

    status_code = 422
    code = "undefined"


class ResourceMissing(DomainError):
    """The server lacks a linguistic resource; the message says how to install it."""

    status_code = 503
    code = "resource_missing"


def scoring_domain_error(error: ScoringError) -> DomainError:
    """The domain error a :mod:`scoring` error reaches a client as, by its kind
    (:mod:`scoring.errors`): the option, field and line it names become fields of the error."""
    message = str(error)
    if isinstance(error, OptionsError):
        return InvalidOption(message, **({"field": error.option} if error.option else {}))
    if isinstance(error, InputError):
        where: dict[str, Any] = {}
        if error.field:
            where["field"] = error.field
        if error.line is not None:
            where["line"] = error.line
        return InvalidInput(message, **where)
    if isinstance(error, ModelError):
        return ModelUnusable(message)
    if isinstance(error, UndefinedError):
        return Undefined(message)
    if isinstance(error, ResourceMissingError):
        return ResourceMissing(message)
    return DomainError(message)


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


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    if isinstance(exc, ScoringError):
        exc = scoring_domain_error(exc)
    if isinstance(exc, DomainError):
        return Response(
            {
                "error": {
                    "code": exc.code,
                    "message": without_server_paths(exc.message),
                    **exc.extra,
                }
            },
            status=exc.status_code,
        )
    return drf_exception_handler(exc, context)
