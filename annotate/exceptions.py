"""Domain errors and their single mapping to HTTP."""

from __future__ import annotations

from typing import Any

from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler


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


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    if isinstance(exc, DomainError):
        return Response(
            {"error": {"code": exc.code, "message": exc.message, **exc.extra}},
            status=exc.status_code,
        )
    return drf_exception_handler(exc, context)
