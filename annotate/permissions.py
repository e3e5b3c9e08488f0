"""Who may call an API view, by role (DRF permission classes; roles are Django groups).

Every view requires a login (the default :class:`IsSignedIn`); these add the role. An anonymous
call is answered 401, a logged-in user without the role 403. The rate limits count refused
calls too: DRF checks permissions before throttles, so without :class:`IsSignedIn` a refused
call would never be counted and the anonymous rate would never apply.
"""

from __future__ import annotations

from typing import Any

from rest_framework.permissions import SAFE_METHODS, BasePermission, IsAuthenticated
from rest_framework.request import Request

from annotate import roles


class IsSignedIn(IsAuthenticated):
    """A logged-in user; the view's rate limits are counted before anyone is let in or refused.

    Counting here, before the answer is known, makes the rates apply to refused calls (an
    anonymous client probing the API gets 429 once its ``anon`` rate is spent, not endless
    401s). The throttles remember their decision on the request, so DRF's own throttle check
    after the permissions counts nothing twice.
    """

    def has_permission(self, request: Request, view: Any) -> bool:
        view.check_throttles(request)
        return super().has_permission(request, view)


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
ADMINS = [IsSignedIn, IsCorpusAdmin]
ADJUDICATORS = [IsSignedIn, IsAdjudicator]


class IsCorpusAdminToChange(BasePermission):
    """Everyone signed in reads; only admins change."""

    message = "changing this needs the admin role"

    def has_permission(self, request: Request, view: Any) -> bool:
        return request.method in SAFE_METHODS or roles.has_role(request.user, roles.ADMIN)


ADMINS_TO_CHANGE = [IsSignedIn, IsCorpusAdminToChange]
