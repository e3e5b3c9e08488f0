"""Filters that format figures on server-rendered pages. An undefined figure (``None``, NaN,
±inf) is shown as "undefined", never as 0 or as the text ``None``."""

from __future__ import annotations

import math
from datetime import datetime
from typing import Any

from django import template
from django.utils import timezone
from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe

register = template.Library()

#: How a page shows a figure that has no value.
UNDEFINED = mark_safe('<span class="undefined" title="undefined">undefined</span>')


def _defined(value: Any) -> bool:
    if value is None:
        return False
    try:
        return math.isfinite(float(value))
    except (TypeError, ValueError):
        return False


@register.filter
def figure(value: Any, digits: int = 3) -> SafeString:
    """``0.947`` → "0.947"; an undefined value → a marked "undefined"."""
    if not _defined(value):
        return UNDEFINED
    return format_html("{}", f"{float(value):.{int(digits)}f}")


@register.filter
def percent(value: Any, digits: int = 1) -> SafeString:
    """``0.0513`` → "5.1%"; an undefined value → a marked "undefined"."""
    if not _defined(value):
        return UNDEFINED
    return format_html("{}%", f"{100 * float(value):.{int(digits)}f}")


@register.filter
def integer(value: Any) -> str:
    """``12345`` → "12,345"; ``None``, or a key a stored result does not have (the template's
    empty string), → "—"."""
    return "—" if value is None or value == "" else f"{int(value):,}"


@register.filter
def duration(seconds: Any) -> str:
    """Seconds as "42 s", "3 min 5 s" or "2 h 10 min"; ``None`` → "—"."""
    if not _defined(seconds):
        return "—"
    # Rounded once, to the unit shown last, so that 179.6 s reads "3 min 0 s", not "2 min 60 s".
    whole = round(float(seconds))
    if whole < 60:
        return f"{whole} s"
    if whole < 3600:
        return f"{whole // 60} min {whole % 60} s"
    minutes = round(float(seconds) / 60)
    return f"{minutes // 60} h {minutes % 60} min"


@register.filter
def elapsed(start: datetime | None, end: datetime | None = None) -> float | None:
    """Seconds from ``start`` to ``end`` (now while ``end`` is unset); ``None`` before a start."""
    if start is None:
        return None
    return ((end or timezone.now()) - start).total_seconds()
