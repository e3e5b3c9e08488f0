"""The login lockout (:mod:`annotate.services.logins`) plugged into django-axes.

Axes puts its authentication backend first in ``AUTHENTICATION_BACKENDS``, so every call of
``django.contrib.auth.authenticate`` (our login page, the Django admin's login, anything else
that checks a password) asks :meth:`LoginLockoutHandler.is_allowed` before a password is
checked; its middleware turns a refusal into the lockout page (``AXES_LOCKOUT_CALLABLE``).

This handler replaces axes' own database handler, which checks the count before the password
check and adds the failure after it: tries sent in parallel all pass the check before any is
counted, so any number of them get their password checked. Here the try is counted when it
is allowed, in one locked transaction. It also gives the account and the address limits of
their own, where axes has one limit for all its lockout parameters.
"""

from __future__ import annotations

from typing import Any

from axes.handlers.base import AbstractAxesHandler, AxesBaseHandler
from axes.helpers import get_client_username
from django.http import HttpRequest

from annotate.services.logins import (
    login_attempts_clear,
    login_failures,
    login_try_begin,
    login_try_succeeded,
    login_username_key,
)

#: Set on a request whose try was counted: ``(username, address)``.
COUNTED = "login_try_counted"
#: Set on a refused request: seconds until a try is allowed again (for ``Retry-After``).
RETRY_AFTER = "login_retry_after"


def lockout_username(request: HttpRequest, credentials: dict[str, Any] | None = None) -> str:
    """``AXES_USERNAME_CALLABLE``: the username a try is counted under (see
    :func:`~annotate.services.logins.login_username_key`)."""
    if credentials is not None and "username" in credentials:
        raw = credentials.get("username")
    else:
        raw = request.POST.get("username")
    return login_username_key(str(raw or ""))


def _who(request: HttpRequest, credentials: dict[str, Any] | None) -> tuple[str, str]:
    username = get_client_username(request, credentials) or ""
    return str(username), str(getattr(request, "axes_ip_address", "") or "")


class LoginLockoutHandler(AbstractAxesHandler, AxesBaseHandler):  # type: ignore[misc]
    """``AXES_HANDLER``: counts a try before its password is checked."""

    def is_allowed(self, request: HttpRequest, credentials: dict[str, Any] | None = None) -> bool:
        username, address = _who(request, credentials)
        wait = login_try_begin(username=username, address=address)
        if wait:
            request.axes_locked_out = True  # type: ignore[attr-defined]
            request.axes_credentials = credentials  # type: ignore[attr-defined]
            setattr(request, RETRY_AFTER, wait)
            return False
        setattr(request, COUNTED, (username, address))
        return True

    def user_login_failed(
        self, sender: Any, credentials: dict[str, Any], request: Any = None, **kwargs: Any
    ) -> None:
        """Nothing to add: the try was counted when it was allowed."""

    def user_logged_in(self, sender: Any, request: Any, user: Any, **kwargs: Any) -> None:
        counted = getattr(request, COUNTED, None)
        if counted is not None:
            login_try_succeeded(username=counted[0], address=counted[1])

    def user_logged_out(self, sender: Any, request: Any, user: Any, **kwargs: Any) -> None:
        pass

    def get_failures(self, request: HttpRequest, credentials: dict[str, Any] | None = None) -> int:
        username, address = _who(request, credentials)
        return login_failures(username=username, address=address)

    def reset_attempts(
        self,
        *,
        ip_address: str | None = None,
        username: str | None = None,
        ip_or_username: bool = False,
    ) -> int:
        return login_attempts_clear(username=username, address=ip_address)
