"""Reads of users: their roles, and the user list of the admin's Users page. Nothing here
writes."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import Count, Q

from annotate import roles
from annotate.exceptions import NotFound
from annotate.models import Assignment

User = AbstractBaseUser | AnonymousUser


def role_names(user: User) -> list[str]:
    return list(roles.roles_of(user))


def user_get(user_id: int) -> Any:
    user = get_user_model().objects.filter(pk=user_id).first()
    if user is None:
        raise NotFound(f"there is no user {user_id}")
    return user


def users_listed(
    *, viewer: User, role: str | None = None, search: str = "", user_id: int | None = None
) -> list[dict[str, Any]]:
    """Every user with roles, state and workload, by username, and whether ``viewer`` may
    change them; optionally one role's holders (superusers hold every role), usernames
    containing ``search``, or the one user ``user_id``."""
    users = get_user_model().objects.prefetch_related("groups").order_by("username")
    if user_id is not None:
        users = users.filter(pk=user_id)
    if role:
        users = users.filter(Q(groups__name=role) | Q(is_superuser=True)).distinct()
    if search:
        users = users.filter(username__icontains=search)
    users = users.annotate(
        assigned=Count("assignments", distinct=True),
        submitted=Count(
            "assignments",
            filter=Q(assignments__status=Assignment.Status.SUBMITTED),
            distinct=True,
        ),
    )
    out = []
    for user in users:
        groups = {group.name for group in user.groups.all()}
        out.append(
            {
                "id": user.pk,
                "username": user.username,
                "email": user.email,
                "roles": [r for r in roles.ROLES if user.is_superuser or r in groups],
                "is_superuser": user.is_superuser,
                "is_staff": user.is_staff,
                "can_change": roles.may_change_account(viewer, user),
                "is_active": user.is_active,
                "has_password": user.has_usable_password(),
                "last_login": user.last_login,
                "date_joined": user.date_joined,
                "assigned": user.assigned,
                "submitted": user.submitted,
            }
        )
    return out
