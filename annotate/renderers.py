"""The API's renderers beyond DRF's JSON: its HTML pages under the content policy, and CSV
downloads."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from csp.constants import UNSAFE_INLINE
from rest_framework import renderers
from rest_framework.exceptions import NotAcceptable
from rest_framework.negotiation import DefaultContentNegotiation


class BrowsableAPIRenderer(renderers.BrowsableAPIRenderer):
    """DRF's HTML pages of the API. Their templates set styles inline (the code colours and a
    few style attributes), so these responses allow inline styles; scripts stay as strict as on
    every other page (the pages load theirs from static files)."""

    def render(
        self,
        data: Any,
        accepted_media_type: str | None = None,
        renderer_context: Mapping[str, Any] | None = None,
    ) -> Any:
        response = (renderer_context or {}).get("response")
        if response is not None:
            response._csp_update = {"style-src": [UNSAFE_INLINE]}
        return super().render(data, accepted_media_type, renderer_context)


class CsvRenderer(renderers.BaseRenderer):
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


class FileNegotiation(DefaultContentNegotiation):
    """The negotiation of a view that answers with a file of its own type (an export's zip,
    TSV or JSON lines): a client that accepts only that type (``Accept: application/zip``, or
    ``application/octet-stream`` as the schema's Swagger page sends) gets the file, not a 406;
    an error answer is JSON."""

    def select_renderer(self, request: Any, renderers: Any, format_suffix: Any = None) -> Any:
        try:
            return super().select_renderer(request, renderers, format_suffix)
        except NotAcceptable:
            return renderers[0], renderers[0].media_type


def errors_as_json(response: Any) -> Any:
    """An error answer (4xx, 5xx) rendered as JSON whatever format was asked for: a client that
    asked for CSV gets the error message in the form every error has."""
    if getattr(response, "status_code", 200) >= 400 and hasattr(response, "accepted_renderer"):
        response.accepted_renderer = renderers.JSONRenderer()
        response.accepted_media_type = renderers.JSONRenderer.media_type
    return response
