"""Who may open a page: the decorators every page view wears."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from functools import wraps
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.csrf import ensure_csrf_cookie

from annotate import roles
from annotate.throttles import JobRateThrottle

View = Callable[..., HttpResponse]


def role_page(role: str, reason: str) -> Callable[[View], View]:
    """Logged in (else the login page), holding ``role`` (else a 403 page saying ``reason``),
    CSRF cookie set (the page's forms and scripts post with it)."""
    return any_role_page((role,), reason)


def any_role_page(allowed: Sequence[str], reason: str) -> Callable[[View], View]:
    """As :func:`role_page`, for a page that any of the roles ``allowed`` may open."""

    def decorate(view: View) -> View:
        @login_required
        @ensure_csrf_cookie
        @wraps(view)
        def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
            if not set(allowed) & set(roles.roles_of(request.user)):
                return render(request, "frontend/forbidden.html", {"reason": reason}, status=403)
            return view(request, *args, **kwargs)

        return wrapped

    return decorate


admin_page = role_page(roles.ADMIN, "This page is for corpus admins.")


def _referring_page(request: HttpRequest) -> str:
    """The page a form was posted from, when it is on this site; else the corpora."""
    referer = str(request.META.get("HTTP_REFERER", ""))
    if referer and url_has_allowed_host_and_scheme(
        referer, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return referer
    return reverse("corpus-list")


def job_starting(view: View) -> View:
    """A form that queues background jobs: its POSTs count against the per-user job rate the
    API's job-starting views count (``API_RATE_JOBS``, one budget for both). Over the rate the
    answer is a 429 page with ``Retry-After`` and nothing is queued. Worn inside the role check,
    so a refused user's posts are not counted."""

    @wraps(view)
    def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if request.method == "POST":
            throttle = JobRateThrottle()
            if not throttle.allow_request(request, None):
                wait = max(1, math.ceil(throttle.wait()))
                minutes = max(1, round(wait / 60))
                context = {
                    "wait": f"about {minutes} minute{'s' if minutes != 1 else ''}",
                    "back": _referring_page(request),
                }
                response = render(request, "429.html", context, status=429)
                response["Retry-After"] = str(wait)
                return response
        return view(request, *args, **kwargs)

    return wrapped


def back_to(request: HttpRequest, fallback: str) -> str:
    """Where a form posted from a page sends the user back: the ``next`` it carries when that
    is a path on this site, else ``fallback``. A form inside a live fragment carries the
    fragment's address (``?fragment=name``); the user goes back to the whole page.

    Only an absolute path is one: ``redirect`` reads any other text without a slash or a dot
    (``²``, ``-1``) as the name of a view, which no view has (a 500)."""
    target = request.POST.get("next") or request.GET.get("next") or ""
    if target.startswith("/") and url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        parts = urlsplit(target)
        query = [
            (key, value)
            for key, value in parse_qsl(parts.query, keep_blank_values=True)
            if key != "fragment"
        ]
        return urlunsplit(parts._replace(query=urlencode(query)))
    return fallback
