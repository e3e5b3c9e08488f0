"""The page's messages: which job a message is about, so the page can follow that job."""

from __future__ import annotations

from typing import Any

from django import template

from frontend.pages.jobs import notice_job

register = template.Library()


@register.filter(name="notice_job")
def notice_job_filter(message: Any) -> dict[str, str] | None:
    """The job a message names (its id and what it is), or None."""
    return notice_job(getattr(message, "extra_tags", "") or "")
