"""The page a locked-out login gets, on every login path (``AXES_LOCKOUT_CALLABLE``; the lockout
itself is :mod:`annotate.services.logins`)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.forms import AuthenticationForm
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from annotate.lockout import RETRY_AFTER


def lockout_response(
    request: HttpRequest, original_response: HttpResponse | None = None, credentials: Any = None
) -> HttpResponse:
    """Our login page, 429, with ``Retry-After`` and how long to wait in words."""
    wait = int(getattr(request, RETRY_AFTER, 0)) or 1
    minutes = max(1, round(wait / 60))
    context = {
        "form": AuthenticationForm(request),
        "locked": f"Too many failed logins. Try again in about {minutes} minute"
        + ("s." if minutes != 1 else "."),
    }
    response = render(request, "registration/login.html", context, status=429)
    response["Retry-After"] = str(wait)
    return response
