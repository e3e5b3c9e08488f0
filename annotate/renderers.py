"""Response renderers beside DRF's JSON: CSV downloads."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rest_framework.renderers import BaseRenderer, JSONRenderer


class CsvRenderer(BaseRenderer):
    """``text/csv``, chosen by ``?format=csv`` or ``Accept: text/csv``; the view gives the CSV
    text. Error answers of a view that offers CSV stay JSON (see :func:`errors_as_json`)."""

    media_type = "text/csv"
    format = "csv"
    charset = "utf-8"

    def render(
        self,
        data: Any,
        accepted_media_type: str | None = None,
        renderer_context: Mapping[str, Any] | None = None,
    ) -> bytes:
        if isinstance(data, bytes):
            return data
        return str(data).encode(self.charset)


def errors_as_json(response: Any) -> Any:
    """An error answer (4xx, 5xx) rendered as JSON whatever format was asked for: a client that
    asked for CSV gets the error message in the form every error has."""
    if getattr(response, "status_code", 200) >= 400 and hasattr(response, "accepted_renderer"):
        response.accepted_renderer = JSONRenderer()
        response.accepted_media_type = JSONRenderer.media_type
    return response
