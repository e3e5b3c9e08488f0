"""Sessions end after ``SESSION_IDLE_SECONDS`` without a request, and ``SESSION_MAX_AGE_SECONDS``
after the login whatever the activity.

The session remembers when it was last used, rewritten at most once every
:data:`REFRESH_SECONDS`: the workspace saves every two seconds, and writing the session row on
each of those requests would double the database writes of annotating. So a session ends
between ``SESSION_IDLE_SECONDS`` and a minute more after its last request; the cookie and the
stored row live a little longer than that (``SESSION_COOKIE_AGE``), so this check, not their
expiry, decides. API calls authenticated by a token have no session and are not affected.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from django.conf import settings
from django.contrib.auth import SESSION_KEY
from django.http import HttpRequest, HttpResponse

#: How often at most the time of last use is written to the session.
REFRESH_SECONDS = 60
#: Session keys: when the login was, and (to within REFRESH_SECONDS) when the last request was.
STARTED = "started_at"
SEEN = "seen_at"


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
        return self.get_response(request)
