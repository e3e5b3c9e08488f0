"""API rate limits, per user and per address, with rates from settings (``API_RATE_*``).

Counts live in the shared cache, so every web process sees the same counts. A refused request
gets 429 with a ``Retry-After`` header.
"""

from __future__ import annotations

from typing import Any

from rest_framework.permissions import SAFE_METHODS
from rest_framework.throttling import SimpleRateThrottle


class AnonymousRateThrottle(SimpleRateThrottle):
    """Requests without a login, per address."""

    scope = "anon"

    def get_cache_key(self, request: Any, view: Any) -> str | None:
        if request.user and request.user.is_authenticated:
            return None
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}


class UserRateThrottle(SimpleRateThrottle):
    """Requests of one signed-in user, whichever address they come from."""

    scope = "user"

    def get_cache_key(self, request: Any, view: Any) -> str | None:
        if not (request.user and request.user.is_authenticated):
            return None
        return self.cache_format % {"scope": self.scope, "ident": request.user.pk}


class AddressRateThrottle(SimpleRateThrottle):
    """All requests from one address, signed in or not: many accounts behind one attacker."""

    scope = "address"

    def get_cache_key(self, request: Any, view: Any) -> str | None:
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}


class JobRateThrottle(UserRateThrottle):
    """Starting background jobs, per user: a job can hold a worker for minutes. Reads of the
    same view are not counted."""

    scope = "jobs"

    def allow_request(self, request: Any, view: Any) -> bool:
        if request.method in SAFE_METHODS:
            return True
        return super().allow_request(request, view)


#: The throttles of a view that starts jobs: the defaults plus the per-user job rate.
JOB_STARTING = [AnonymousRateThrottle, UserRateThrottle, AddressRateThrottle, JobRateThrottle]
