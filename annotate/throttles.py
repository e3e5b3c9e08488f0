"""API rate limits, per user and per address, with rates from settings (``API_RATE_*``), and
the client address that both they and the login lockout count by.

Counts live in the shared cache, so every web process sees the same counts. A refused request
gets 429 with a ``Retry-After`` header.
"""

from __future__ import annotations

import logging
import math
import threading
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.cache import DEFAULT_CACHE_ALIAS, BaseCache, caches
from django.core.cache.backends.filebased import FileBasedCache
from django.core.cache.backends.redis import RedisCache
from django.http import HttpRequest
from rest_framework.permissions import SAFE_METHODS
from rest_framework.throttling import SimpleRateThrottle

try:
    import fcntl
except ImportError:  # not on POSIX: the file cache's counts are locked within a process only
    fcntl = None  # type: ignore[assignment]

logger = logging.getLogger(__name__)

#: Counts of caches in this process's memory (and of the file cache where ``fcntl`` is missing).
_PROCESS_LOCK = threading.Lock()
#: How long a count waits for another request's count of the same key on Redis, and how long
#: a lock a dead process left behind holds (a count takes a few milliseconds).
REDIS_LOCK_SECONDS = 2.0
#: Lock files of the file cache's counts: a key's count locks one, so that counts of other
#: users and addresses seldom wait for it.
LOCK_FILES = 16


@contextmanager
def counting(cache: Any, key: str) -> Iterator[None]:
    """Hold ``key``'s count while it is read and written again, in every web process sharing
    ``cache``: without it, requests sent together all read the same count and were all let in
    (90 of 90 scoring requests sent 60 at a time passed a limit of 30 a minute).

    The file cache (one machine) locks one of :data:`LOCK_FILES` files beside its entries:
    ``flock`` excludes other processes and, each count opening the file anew, other threads.
    Redis (many machines) holds a short Redis lock on the key. A cache in the process's memory
    takes a lock of the process."""
    backend = cache if isinstance(cache, BaseCache) else caches[DEFAULT_CACHE_ALIAS]
    if isinstance(backend, FileBasedCache) and fcntl is not None:
        folder = Path(backend._dir)  # type: ignore[attr-defined]
        folder.mkdir(parents=True, exist_ok=True)
        stripe = zlib.crc32(key.encode("utf-8")) % LOCK_FILES
        with (folder / f"throttle-counts-{stripe}.lock").open("a+b") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)
    elif isinstance(backend, RedisCache):
        name = f"{backend.make_and_validate_key(key)}:count-lock"
        client = backend._cache.get_client(name, write=True)
        lock = client.lock(
            name, timeout=REDIS_LOCK_SECONDS, sleep=0.002, blocking_timeout=REDIS_LOCK_SECONDS
        )
        if not lock.acquire():
            # Redis slower than a count for seconds: count as before rather than refuse
            logger.warning("rate count of %s not locked within %ss", key, REDIS_LOCK_SECONDS)
            yield
            return
        try:
            yield
        finally:
            from redis.exceptions import LockError

            try:
                lock.release()
            except LockError:  # expired meanwhile: another count may have taken it
                logger.warning("rate count lock of %s expired before its release", key)
    else:
        with _PROCESS_LOCK:
            yield


def client_address(request: HttpRequest) -> str:
    """The address a request came from.

    ``REMOTE_ADDR``, unless ``TRUSTED_PROXIES`` (the number of reverse proxies in front that
    append to ``X-Forwarded-For``) is set: then the entry that many places from the right of
    that header, the address the outermost trusted proxy saw. Without trusted proxies the header
    is ignored, since a client can write anything in it.
    """
    proxies = settings.TRUSTED_PROXIES
    forwarded = request.META.get("HTTP_X_FORWARDED_FOR", "")
    if proxies > 0 and forwarded:
        hops = [hop.strip() for hop in str(forwarded).split(",")]
        return hops[-min(proxies, len(hops))][:100]
    return str(request.META.get("REMOTE_ADDR", ""))


class _WindowThrottle(SimpleRateThrottle):
    """At most ``num_requests`` per ``duration`` seconds, counted from a window's first request.

    The cache entry is ``(window start, count)``: constant size, where DRF's own throttle keeps
    the time of every request in the window (thousands for a busy address) and reads and writes
    them all on each request.
    """

    cache_format = "throttle-window:%(scope)s:%(ident)s"
    num_requests: int  # set from the rate by SimpleRateThrottle.__init__
    duration: int
    wait_seconds: float = 0.0
    #: The start of the window the last request let in was counted in.
    window_start: float = 0.0

    def get_ident(self, request: Any) -> str:
        return client_address(request)

    def allow_request(self, request: Any, view: Any) -> bool:
        if self.rate is None:
            return True
        self.key = self.get_cache_key(request, view)
        if self.key is None:
            return True
        # A request is counted once, however often its throttles are checked (the
        # permission check counts it before DRF's own throttle check; see IsSignedIn).
        decisions: dict[str, tuple[bool, float]] = getattr(request, "_throttle_decisions", {})
        if self.key in decisions:
            allowed, self.wait_seconds = decisions[self.key]
            return allowed
        allowed = self._count(request)
        decisions[self.key] = (allowed, self.wait_seconds)
        request._throttle_decisions = decisions
        return allowed

    def _count(self, request: Any) -> bool:
        assert self.key is not None
        with counting(self.cache, self.key):
            now = self.timer()
            start, count = self.cache.get(self.key) or (now, 0)
            if now - start >= self.duration:
                start, count = now, 0
            self.wait_seconds = start + self.duration - now
            if count >= self.num_requests:
                return False
            self.cache.set(self.key, (start, count + 1), timeout=math.ceil(self.wait_seconds))
            self.window_start = start
            return True

    def wait(self) -> float:
        return self.wait_seconds


class AnonymousRateThrottle(_WindowThrottle):
    """Requests without a login, per address."""

    scope = "anon"

    def get_cache_key(self, request: Any, view: Any) -> str | None:
        if request.user and request.user.is_authenticated:
            return None
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}


class UserRateThrottle(_WindowThrottle):
    """Requests of one signed-in user, whichever address they come from."""

    scope = "user"

    def get_cache_key(self, request: Any, view: Any) -> str | None:
        if not (request.user and request.user.is_authenticated):
            return None
        return self.cache_format % {"scope": self.scope, "ident": request.user.pk}


class AddressRateThrottle(_WindowThrottle):
    """All requests from one address, signed in or not: many accounts behind one attacker."""

    scope = "address"

    def get_cache_key(self, request: Any, view: Any) -> str | None:
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}


#: Set on a request whose job start was counted: ``(cache key, window start)``, until
#: :func:`job_start_settle` keeps or gives back the count.
JOB_START_COUNTED = "_job_start_counted"


def _django_request(request: Any) -> Any:
    """The Django request under DRF's (whose attributes the middleware does not see)."""
    return getattr(request, "_request", request)


class JobRateThrottle(UserRateThrottle):
    """Starting background jobs, per user: a job can hold a worker for minutes. Reads of the
    same view are not counted, and neither are refused starts.

    Only accepted starts count: a start is counted when it is let in, under the count's lock,
    so starts sent together never pass the rate between them; when its answer turns out to be
    an error (bad input, a conflict, another rate's 429, a server error) the count is given
    back, under the same lock (:func:`job_start_settle`, called by
    :class:`annotate.middleware.JobStartSettleMiddleware` for the API and the pages alike)."""

    scope = "jobs"

    def allow_request(self, request: Any, view: Any) -> bool:
        if request.method in SAFE_METHODS:
            return True
        return super().allow_request(request, view)

    def _count(self, request: Any) -> bool:
        allowed = super()._count(request)
        if allowed:
            setattr(_django_request(request), JOB_START_COUNTED, (self.key, self.window_start))
        return allowed


def job_start_settle(request: Any, *, accepted: bool) -> None:
    """Keep the job start counted for ``request`` when it was ``accepted`` (its answer is no
    error), else give it back; once per request. A count given back after its window ended
    (and a new one began) has gone already and is left alone."""
    counted = vars(_django_request(request)).pop(JOB_START_COUNTED, None)
    if counted is None or accepted:
        return
    key, window_start = counted
    throttle = JobRateThrottle()
    with counting(throttle.cache, key):
        entry = throttle.cache.get(key)
        if entry is None or entry[0] != window_start or entry[1] < 1:
            return
        left = window_start + throttle.duration - throttle.timer()
        if left > 0:
            throttle.cache.set(key, (window_start, entry[1] - 1), timeout=math.ceil(left))


class ScoreRateThrottle(UserRateThrottle):
    """Scoring pairs inside the request, per user, in the API and on the scorers page alike:
    each request may take up to a second of a web process. More goes to a score job."""

    scope = "score"


#: The throttles of a view that starts jobs: the defaults plus the per-user job rate.
JOB_STARTING = [AnonymousRateThrottle, UserRateThrottle, AddressRateThrottle, JobRateThrottle]
#: The throttles of a view that scores inside the request: the defaults plus the scoring rate.
SCORING = [AnonymousRateThrottle, UserRateThrottle, AddressRateThrottle, ScoreRateThrottle]
