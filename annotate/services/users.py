"""Users and roles (admins): create or invite, set roles, deactivate, issue a set-password link.

Nobody is ever deleted: assignments protect their annotator, and a deactivated user keeps their
work but can no longer log in or call the API. An admin cannot take the admin role from
themselves or deactivate themselves, so a corpus is never left without a way back in. Nobody
acts on an account more privileged than their own: only a superuser changes a superuser or a
staff account, or issues their set-password link (:func:`annotate.roles.may_change_account`).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Sequence
from importlib import import_module
from typing import TYPE_CHECKING

from django.conf import settings
from django.contrib.auth import SESSION_KEY, get_user_model, password_validation
from django.contrib.auth.tokens import PasswordResetTokenGenerator
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import transaction
from django.urls import reverse
from django.utils import timezone
from django.utils.encoding import force_bytes
from django.utils.http import base36_to_int, int_to_base36, urlsafe_base64_encode
from rest_framework.authtoken.models import Token

from annotate import roles
from annotate.exceptions import Conflict, DomainError, PermissionDenied
from annotate.services.logins import login_username_key

if TYPE_CHECKING:
    from django.contrib.auth.models import User


def _check_roles(names: Sequence[str]) -> list[str]:
    unknown = sorted(set(names) - set(roles.ROLES))
    if unknown:
        raise DomainError(
            f"unknown role {unknown[0]!r}; roles are {', '.join(roles.ROLES)}", field="roles"
        )
    return [role for role in roles.ROLES if role in names]


#: The longest username (Django's ``User.username`` column).
USERNAME_MAX_LENGTH = 150


def username_check(username: str) -> None:
    """Raise :class:`DomainError` (``field="username"``) unless ``username`` may name a new
    account: not empty, no surrounding space, at most 150 characters, letters, digits and
    ``@.+-_`` only (Django's rule), and written the way the login form reads it (NFKC: no
    fullwidth or mathematical look-alikes, which could never log in under their own name).
    Every way of creating an account checks this: the API and imports."""
    if not username:
        raise DomainError("a username is required", field="username")
    if username != username.strip():
        raise DomainError(
            f"{username!r} begins or ends with a space or a line break", field="username"
        )
    if len(username) > USERNAME_MAX_LENGTH:
        raise DomainError(
            f"a username has at most {USERNAME_MAX_LENGTH} characters; this one has "
            f"{len(username)}",
            field="username",
        )
    normal = unicodedata.normalize("NFKC", username)
    if normal != username:
        raise DomainError(
            f"{username!r} is written with look-alike characters; write it as {normal!r}",
            field="username",
        )
    try:
        get_user_model().username_validator(username)
    except ValidationError as error:
        raise DomainError(" ".join(error.messages), field="username") from None


def username_twin(username: str, existing: Iterable[str] | None = None) -> str | None:
    """The existing username that ``username`` differs from only in case or look-alike
    characters (``ALICE`` for ``alice``), or ``None``; ``existing`` defaults to every account."""
    if existing is None:
        existing = get_user_model().objects.values_list("username", flat=True).iterator()
    key = login_username_key(username)
    return next((name for name in existing if login_username_key(name) == key), None)


def _check_email(email: str) -> str:
    email = email.strip()
    if email:
        try:
            validate_email(email)
        except ValidationError:
            raise DomainError(f"{email!r} is not an e-mail address", field="email") from None
    return email


def _check_may_change(actor: User, user: User) -> None:
    if not roles.may_change_account(actor, user):
        rank = "a superuser" if user.is_superuser else "staff"
        raise PermissionDenied(
            f"{user.get_username()} is {rank}: only a superuser can change that account"
        )


def _set_roles(user: User, names: Sequence[str]) -> None:
    user.groups.remove(*(roles.role_group(role) for role in roles.ROLES if role not in names))
    user.groups.add(*(roles.role_group(role) for role in names))


@transaction.atomic
def user_create(
    *, username: str, email: str = "", role_names: Sequence[str] = (), password: str | None = None
) -> User:
    """A new user with the given roles. Without a password the account cannot log in until its
    owner sets one through :func:`user_password_link` (an invitation)."""
    model = get_user_model()
    username = username.strip()
    username_check(username)
    twin = username_twin(username)
    if twin is not None:
        written = "" if twin == username else f" (written {twin!r})"
        raise Conflict(f"there is already a user {username!r}{written}", field="username")
    chosen = _check_roles(role_names)
    user = model(username=username, email=_check_email(email))
    if password:
        try:
            password_validation.validate_password(password, user)
        except ValidationError as error:
            raise DomainError(" ".join(error.messages), field="password") from None
        user.set_password(password)
    else:
        user.set_unusable_password()
    user.save()
    _set_roles(user, chosen)
    return user


@transaction.atomic
def user_update(
    *,
    user: User,
    actor: User,
    role_names: Sequence[str] | None = None,
    is_active: bool | None = None,
    email: str | None = None,
) -> User:
    """Change a user's roles, active flag or e-mail; ``None`` leaves a field as it is."""
    user = get_user_model().objects.select_for_update().get(pk=user.pk)
    _check_may_change(actor, user)
    if user.pk == actor.pk:
        if role_names is not None and roles.ADMIN not in role_names and not user.is_superuser:
            raise Conflict("you cannot take the admin role from yourself", field="roles")
        if is_active is False:
            raise Conflict("you cannot deactivate yourself", field="is_active")
    if role_names is not None:
        _set_roles(user, _check_roles(role_names))
    fields = []
    if is_active is not None:
        user.is_active = is_active
        fields.append("is_active")
    if email is not None:
        user.email = _check_email(email)
        fields.append("email")
    if fields:
        user.save(update_fields=fields)
    return user


class _IssuedBy(PasswordResetTokenGenerator):
    """Django's token, signed together with the id of the admin who issued it."""

    key_salt = "annotate.services.users.password_link"

    def __init__(self, issuer_pk: int) -> None:
        super().__init__()
        self.issuer_pk = issuer_pk

    def _make_hash_value(self, user: User, timestamp: int) -> str:
        return f"{super()._make_hash_value(user, timestamp)}:{self.issuer_pk}"


class PasswordLinkTokens:
    """The tokens of set-password links: ``<issuer>-<Django's token>``. A link works only while
    its issuer could issue it again (active, an admin, allowed to change the account): an admin
    deactivated or demoted can no longer use, or pass on, the links they took before. Nor does
    it work while the account is deactivated: whoever held the link would set the password of
    an account nobody watches, and be let in when it is reactivated."""

    def make_token(self, user: User, issuer: User) -> str:
        return f"{int_to_base36(issuer.pk)}-{_IssuedBy(issuer.pk).make_token(user)}"

    def check_token(self, user: User | None, token: str | None) -> bool:
        issuer_b36, _, rest = (token or "").partition("-")
        try:
            issuer_pk = base36_to_int(issuer_b36)
        except ValueError:
            return False
        issuer = get_user_model().objects.filter(pk=issuer_pk).first()
        if user is None or not user.is_active:
            return False
        if issuer is None or not roles.has_role(issuer, roles.ADMIN):
            return False
        return roles.may_change_account(issuer, user) and _IssuedBy(issuer_pk).check_token(
            user, rest
        )


password_link_tokens = PasswordLinkTokens()


def user_password_link(*, user: User, actor: User) -> str:
    """The path of a one-time page where ``user`` sets a password (an invitation, or a reset
    ``actor`` passes on). It stops working once used, when the password changes otherwise,
    after ``PASSWORD_RESET_TIMEOUT`` seconds, or once ``actor`` is deactivated or loses the
    admin role; it does not work while ``user`` is deactivated (:class:`PasswordLinkTokens`)."""
    _check_may_change(actor, user)
    if not user.is_active:
        raise Conflict(f"{user.get_username()} is deactivated; reactivate the account first")
    uid = urlsafe_base64_encode(force_bytes(user.pk))
    token = password_link_tokens.make_token(user, actor)
    return reverse("password_reset_confirm", kwargs={"uidb64": uid, "token": token})


def user_token_rotate(*, user: User) -> None:
    """Replace ``user``'s API token, if they have one, with a new key: the old key stops
    working. Called on every password change and deactivation (see :mod:`annotate.signals`)."""
    if Token.objects.filter(user=user).delete()[0]:
        Token.objects.create(user=user)


def user_sessions_end(*, user: User) -> int:
    """Log ``user`` out everywhere: delete every session they are logged in with, so that
    reactivating the account later does not bring an old session back. Returns how many.

    Django's sessions are not indexed by user, so this reads every unexpired session; it runs
    only when an account is deactivated."""
    store = import_module(settings.SESSION_ENGINE).SessionStore
    sessions = store.get_model_class().objects.filter(expire_date__gt=timezone.now())
    theirs = [
        key
        for key, data in sessions.values_list("session_key", "session_data").iterator()
        if store().decode(data).get(SESSION_KEY) == str(user.pk)
    ]
    for key in theirs:
        store(session_key=key).delete()
    return len(theirs)
