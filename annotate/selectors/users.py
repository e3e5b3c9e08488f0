"""Reads of users: their roles, and the user list of the admin's Users page. Nothing here
writes."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import UNUSABLE_PASSWORD_PREFIX
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import Count, OuterRef, Q, QuerySet, Subquery
from django.db.models.functions import Coalesce

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


#: The states an account is in, as the user list filters them.
USER_STATES = ("active", "no_password", "deactivated")


def users_filtered(
    *, role: str | None = None, search: str = "", state: str | None = None
) -> QuerySet[Any]:
    """Every user, by username, with their workload (``assigned``, ``submitted``): optionally
    one role's holders (superusers hold every role), usernames or e-mails containing
    ``search``, or one state of :data:`USER_STATES` (``no_password``: active, invited, no
    password set yet)."""
    users = get_user_model().objects.prefetch_related("groups").order_by("username")
    if role:
        users = users.filter(Q(groups__name=role) | Q(is_superuser=True)).distinct()
    if search:
        users = users.filter(Q(username__icontains=search) | Q(email__icontains=search))
    if state == "deactivated":
        users = users.filter(is_active=False)
    elif state == "active":
        users = users.filter(is_active=True).exclude(password__startswith=UNUSABLE_PASSWORD_PREFIX)
    elif state == "no_password":
        users = users.filter(is_active=True, password__startswith=UNUSABLE_PASSWORD_PREFIX)
    mine = Assignment.objects.filter(annotator=OuterRef("pk")).order_by().values("annotator")
    return users.annotate(
        assigned=Coalesce(Subquery(mine.annotate(n=Count("*")).values("n")), 0),
        submitted=Coalesce(
            Subquery(
                mine.filter(status=Assignment.Status.SUBMITTED).annotate(n=Count("*")).values("n")
            ),
            0,
        ),
    )


def user_row(user: Any, *, viewer: User) -> dict[str, Any]:
    """What a list shows of a user of :func:`users_filtered`, and whether ``viewer`` may
    change them."""
    groups = {group.name for group in user.groups.all()}
    return {
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


def users_listed(
    *, viewer: User, role: str | None = None, search: str = "", user_id: int | None = None
) -> list[dict[str, Any]]:
    """Every user with roles, state and workload, by username, and whether ``viewer`` may
    change them; optionally one role's holders (superusers hold every role), usernames
    containing ``search``, or the one user ``user_id``."""
    users = users_filtered(role=role)
    if search:
        users = users.filter(username__icontains=search)
    if user_id is not None:
        users = users.filter(pk=user_id)
    return [user_row(user, viewer=viewer) for user in users]
