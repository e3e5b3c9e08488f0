"""What every page's layout needs: the signed-in user's roles, for the navigation."""

from __future__ import annotations

from django.http import HttpRequest

from annotate import roles
from annotate.selectors import users as users_reads

#: The navigation entry a page belongs to, by the first word of its URL name
#: (``corpus-pairs`` → Corpora), so every page of a section highlights the same entry.
SECTIONS = {
    "home": "queue",
    "workspace": "queue",
    "adjudicate": "adjudication",
    "adjudication": "adjudication",
    "corpus": "corpora",
    "corpora": "corpora",
    "report": "corpora",
    "job": "jobs",
    "jobs": "jobs",
    "user": "users",
    "users": "users",
    "scorers": "scorers",
    "guidelines": "guidelines",
}


def navigation(request: HttpRequest) -> dict[str, object]:
    match = getattr(request, "resolver_match", None)
    name = (match.url_name or "") if match else ""
    section = SECTIONS.get(name.split("-")[0], "")
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {"roles": [], "is_admin": False, "is_adjudicator": False, "section": section}
    names = users_reads.role_names(user)
    return {
        "roles": names,
        "is_admin": roles.ADMIN in names,
        "is_adjudicator": roles.ADJUDICATOR in names or roles.ADMIN in names,
        "section": section,
    }
