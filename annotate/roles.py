"""The three roles, as Django groups created by migration 0002."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser, Group

ANNOTATOR = "annotator"
ADJUDICATOR = "adjudicator"
ADMIN = "admin"
ROLES = (ANNOTATOR, ADJUDICATOR, ADMIN)


def has_role(user: AbstractBaseUser | AnonymousUser, role: str) -> bool:
    """True if the user is active and in the role's group; superusers hold every role."""
    if not user.is_authenticated or not user.is_active:
        return False
    if getattr(user, "is_superuser", False):
        return True
    return bool(user.groups.filter(name=role).exists())  # type: ignore[attr-defined]


def role_group(role: str) -> Group:
    if role not in ROLES:
        raise ValueError(f"unknown role {role!r}; roles are {', '.join(ROLES)}")
    # Created by migration 0002; get_or_create also survives a flushed database.
    group, _ = Group.objects.get_or_create(name=role)
    return group
