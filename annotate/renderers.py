"""The API's renderers beyond JSON (``REST_FRAMEWORK["DEFAULT_RENDERER_CLASSES"]``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from csp.constants import UNSAFE_INLINE
from rest_framework import renderers


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
