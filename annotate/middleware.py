"""Sessions end after ``SESSION_IDLE_SECONDS`` without a request, and ``SESSION_MAX_AGE_SECONDS``
after the login whatever the activity.

The session remembers when it was last used, rewritten at most once every
:data:`REFRESH_SECONDS`: the workspace saves every two seconds, and writing the session row on
each of those requests would double the database writes of annotating. So a session ends
between ``SESSION_IDLE_SECONDS`` and a minute more after its last request; the cookie and the
stored row live a little longer than that (``SESSION_COOKIE_AGE``), so this check, not their
expiry, decides. API calls authenticated by a token have no session and are not affected.

A request that finds the database locked (SQLite, while another connection holds its write lock
past the busy timeout) is answered 503 with ``Retry-After``, as JSON on the API and a page
elsewhere, not as a server error: by :func:`annotate.exceptions.exception_handler` in API
views, :class:`DatabaseBusyMiddleware` in the others, and :class:`SessionMiddleware` when the
session's own save is what found it locked.

A job start answered with an error gives back its count of the per-user job rate
(:class:`JobStartSettleMiddleware`).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.contrib.admin.views.main import ERROR_FLAG
from django.contrib.auth import SESSION_KEY
from django.contrib.sessions.exceptions import SessionInterrupted
from django.contrib.sessions.middleware import SessionMiddleware as DjangoSessionMiddleware
from django.db import OperationalError
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect, JsonResponse
from django.template.loader import render_to_string
from django.utils.cache import patch_vary_headers

from annotate.exceptions import RETRY_AFTER_SECONDS, database_busy_body, database_locked
from annotate.throttles import job_start_settle

logger = logging.getLogger(__name__)

#: Where the Django admin is served (``config/urls.py``).
ADMIN_PATH = "/admin/"
#: How often at most the time of last use is written to the session.
REFRESH_SECONDS = 60
#: Session keys: when the login was, and (to within REFRESH_SECONDS) when the last request was.
STARTED = "started_at"
SEEN = "seen_at"
#: The request attribute holding the session as it stood after only its time of last use was
#: written (its key and its data).
_STAMPED = "_session_stamped"


def session_start(session: object, now: float | None = None) -> None:
    """Mark a session as logged in now (called on every login)."""
    stamp = int(time.time() if now is None else now)
    session[STARTED] = stamp  # type: ignore[index]
    session[SEEN] = stamp  # type: ignore[index]


class SessionTimeoutMiddleware:
    """Between SessionMiddleware and AuthenticationMiddleware: an expired session is emptied
    before anyone reads the user from it, so the request goes on as anonymous (a page redirects
    to the login, the API answers 401)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        session = request.session
        if SESSION_KEY in session:
            now = int(time.time())
            started = int(session.get(STARTED, now))
            seen = int(session.get(SEEN, now))
            idle_limit = settings.SESSION_IDLE_SECONDS + REFRESH_SECONDS
            if now - seen >= idle_limit or now - started >= settings.SESSION_MAX_AGE_SECONDS:
                session.flush()
            elif STARTED not in session or now - seen >= REFRESH_SECONDS:
                session[STARTED] = started
                session[SEEN] = now
                setattr(request, _STAMPED, _session_state(session))
        return self.get_response(request)


def _session_state(session: Any) -> tuple[str | None, dict[str, Any]]:
    return session.session_key, dict(session.items())


def api_request(request: HttpRequest) -> bool:
    """Whether ``request`` is the API's (answered in JSON): under ``/api/``, its documentation
    page aside."""
    return request.path.startswith("/api/") and not request.path.startswith("/api/docs/")


def database_busy_response(request: HttpRequest) -> HttpResponse:
    """503 with ``Retry-After`` for a request that found the database locked: the API's JSON
    error on ``/api/`` (its documentation page aside), a page elsewhere."""
    response: HttpResponse
    if api_request(request):
        response = JsonResponse(database_busy_body(), status=503)
    else:
        page = render_to_string("503.html", {"retry_after": RETRY_AFTER_SECONDS})
        response = HttpResponse(page, status=503)
    response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    return response


class DatabaseBusyMiddleware:
    """A view (other than the API's, whose exception handler does the same) that found the
    database locked answers 503 with ``Retry-After`` instead of a server error."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not database_locked(exception):
            return None
        logger.warning("%s %s: the database is locked; answered 503", request.method, request.path)
        return database_busy_response(request)


class AdminNumberMiddleware:
    """A page of the Django admin filtered by a number SQLite cannot hold
    (``/admin/annotate/annotation/?assignment=99999999999999999999``: an ``OverflowError``
    binding it, a server error) goes back to the list unfiltered, as the admin answers any
    filter it cannot apply (``?e=1``). The pages and the API read ids through converters and
    serializers that bound them; the admin's list filters take any field of the model."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not isinstance(exception, OverflowError) or not request.path.startswith(ADMIN_PATH):
            return None
        logger.warning("%s: a number out of the database's range; the list again", request.path)
        return HttpResponseRedirect(f"{request.path}?{ERROR_FLAG}=1")


class SessionMiddleware(DjangoSessionMiddleware):
    """Django's, for a session save that finds the database locked (Django answers a failed
    update 400, "the session was deleted", and a failed creation 500).

    When only the time of last use changed (:class:`SessionTimeoutMiddleware`), the answer goes
    out as it is and the next request writes the time again: the view's work, a save of an
    annotation say, is done, and a 503 would have the client send it again. Otherwise (a login,
    a logout, anything else the view put in the session) the answer is a 503: the session does
    not hold what the answer would say."""

    def process_response(self, request: HttpRequest, response: HttpResponse) -> HttpResponse:
        try:
            return super().process_response(request, response)
        except (SessionInterrupted, OperationalError) as error:
            if not database_locked(error):
                raise
            if getattr(request, _STAMPED, None) == _session_state(request.session):
                logger.warning("%s: the session's time of last use was not saved", request.path)
                patch_vary_headers(response, ("Cookie",))
                return response
            logger.warning(
                "%s %s: the session's save found the database locked; answered 503",
                request.method,
                request.path,
            )
            return database_busy_response(request)


class JobStartSettleMiddleware:
    """Give back the per-user job rate's count of a job start whose answer is an error (a 4xx
    or 5xx: bad input, a conflict, another limit): only accepted starts spend the budget (see
    :class:`annotate.throttles.JobRateThrottle`)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        try:
            response = self.get_response(request)
        except BaseException:
            job_start_settle(request, accepted=False)
            raise
        job_start_settle(request, accepted=response.status_code < 400)
        return response
