"""The three roles, as Django groups created by migration 0002."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser, Group

ANNOTATOR = "annotator"
ADJUDICATOR = "adjudicator"
ADMIN = "admin"
ROLES = (ANNOTATOR, ADJUDICATOR, ADMIN)


def roles_of(user: AbstractBaseUser | AnonymousUser) -> tuple[str, ...]:
    """The roles the user holds, in :data:`ROLES` order (one query): none for an inactive user,
    every role for a superuser."""
    if not user.is_authenticated or not user.is_active:
        return ()
    if getattr(user, "is_superuser", False):
        return ROLES
    held = set(user.groups.filter(name__in=ROLES).values_list("name", flat=True))  # type: ignore[attr-defined]
    return tuple(role for role in ROLES if role in held)


def has_role(user: AbstractBaseUser | AnonymousUser, role: str) -> bool:
    """True if the user is active and in the role's group; superusers hold every role."""
    return role in roles_of(user)


def role_group(role: str) -> Group:
    if role not in ROLES:
        raise ValueError(f"unknown role {role!r}; roles are {', '.join(ROLES)}")
    # Created by migration 0002; get_or_create also survives a flushed database.
    group, _ = Group.objects.get_or_create(name=role)
    return group


def may_change_account(actor: AbstractBaseUser | AnonymousUser, account: AbstractBaseUser) -> bool:
    """Whether ``actor`` may act on ``account`` (its roles, state, e-mail, password): nobody acts
    on an account more privileged than their own. Superusers and staff (who can use the Django
    admin) are changed only by a superuser, or by themselves; other accounts by any admin (the
    views require the admin role)."""
    if actor.pk is not None and actor.pk == account.pk:
        return True
    if getattr(account, "is_superuser", False) or getattr(account, "is_staff", False):
        return bool(getattr(actor, "is_superuser", False))
    return True
