"""Reads of users: their roles. Nothing here writes."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser

from annotate import roles

User = AbstractBaseUser | AnonymousUser


def role_names(user: User) -> list[str]:
    return [role for role in roles.ROLES if roles.has_role(user, role)]
