"""What every save of a user account triggers, whichever path changed it (our API, the
set-password page, the Django admin, ``manage.py changepassword``), and what a login starts.

A new password or a deactivation replaces the account's API token
(:func:`~annotate.services.users.user_token_rotate`); a deactivation also ends its sessions
(:func:`~annotate.services.users.user_sessions_end`), so that reactivating it later revives
neither. (Sessions already end on a password change: Django ties each to the password hash.)
"""

from __future__ import annotations

from typing import Any

from annotate.middleware import session_start
from annotate.services.users import user_sessions_end, user_token_rotate

#: Set on a user instance between its pre_save and post_save: (password changed, deactivated).
_CHANGED = "_credentials_changed"


def credentials_compare(
    sender: Any, instance: Any, raw: bool = False, update_fields: Any = None, **kwargs: Any
) -> None:
    """pre_save: compare the password and the active flag with the stored row."""
    if raw or instance._state.adding or instance.pk is None:
        return
    if update_fields is not None and not {"password", "is_active"} & set(update_fields):
        return  # e.g. last_login, written at every login
    stored = sender.objects.filter(pk=instance.pk).values("password", "is_active").first()
    if stored is None:
        return
    changed = (
        stored["password"] != instance.password,
        stored["is_active"] and not instance.is_active,
    )
    setattr(instance, _CHANGED, changed)


def credentials_revoke(sender: Any, instance: Any, **kwargs: Any) -> None:
    """post_save: revoke what a new password or a deactivation must end."""
    changed = instance.__dict__.pop(_CHANGED, None)
    if not changed:
        return
    password_changed, deactivated = changed
    if password_changed or deactivated:
        user_token_rotate(user=instance)
    if deactivated:
        user_sessions_end(user=instance)


def session_started(sender: Any, request: Any, user: Any, **kwargs: Any) -> None:
    """user_logged_in: the session's maximum age counts from this login."""
    if request is not None and hasattr(request, "session"):
        session_start(request.session)
