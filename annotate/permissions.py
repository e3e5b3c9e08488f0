"""Who may call an API view, by role (DRF permission classes; roles are Django groups).

Every view requires a login (the default ``IsAuthenticated``); these add the role. An anonymous
call is answered 401, a logged-in user without the role 403.
"""

from __future__ import annotations

from typing import Any

from rest_framework.permissions import SAFE_METHODS, BasePermission, IsAuthenticated
from rest_framework.request import Request

from annotate import roles


class IsCorpusAdmin(BasePermission):
    message = "this needs the admin role"

    def has_permission(self, request: Request, view: Any) -> bool:
        return roles.has_role(request.user, roles.ADMIN)


class IsAdjudicator(BasePermission):
    """Adjudicators, and admins (who hold every role's rights)."""

    message = "this needs the adjudicator or admin role"

    def has_permission(self, request: Request, view: Any) -> bool:
        return roles.has_role(request.user, roles.ADJUDICATOR) or roles.has_role(
            request.user, roles.ADMIN
        )


#: The permission lists views use.
ADMINS = [IsAuthenticated, IsCorpusAdmin]
ADJUDICATORS = [IsAuthenticated, IsAdjudicator]


class IsCorpusAdminToChange(BasePermission):
    """Everyone signed in reads; only admins change."""

    message = "changing this needs the admin role"

    def has_permission(self, request: Request, view: Any) -> bool:
        return request.method in SAFE_METHODS or roles.has_role(request.user, roles.ADMIN)


ADMINS_TO_CHANGE = [IsAuthenticated, IsCorpusAdminToChange]
