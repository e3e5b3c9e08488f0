"""Every response carries the Content-Security-Policy: no inline script anywhere, no plugins, no
framing, forms post only here. (The browser tests check that the pages keep to it.)"""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import Client, override_settings
from django.urls import URLPattern

from annotate import roles
from annotate.models import Job, ScorerModel
from frontend import urls as frontend_urls
from tests.annotate.factories import make_assignment, make_corpus, make_pair, make_user

pytestmark = pytest.mark.django_db

STRICT = {
    "default-src": "'self'",
    "script-src": "'self'",
    "style-src": "'self'",
    "img-src": "'self'",
    "object-src": "'none'",
    "base-uri": "'self'",
    "frame-ancestors": "'none'",
    "form-action": "'self'",
}


def _policy(response: Any) -> dict[str, str]:
    header = response["Content-Security-Policy"]
    return {
        part.strip().split(" ", 1)[0]: part.strip().split(" ", 1)[1]
        for part in header.split(";")
        if part.strip()
    }


@pytest.fixture
def world() -> dict[str, Any]:
    admin = make_user("admin", roles.ADMIN)
    alice = make_user("alice", roles.ANNOTATOR)
    corpus = make_corpus()
    pair = make_pair(corpus)
    assignment = make_assignment(pair, alice)
    root = get_user_model().objects.create_superuser("root", password="a-long-Password-1")
    clients = {"anon": Client()}
    for name, user in (("admin", admin), ("alice", alice), ("root", root)):
        clients[name] = Client()
        clients[name].force_login(user)
    return {
        "clients": clients,
        "corpus": corpus.pk,
        "pair": pair.pk,
        "work": assignment.pk,
        "alice": alice.pk,
        "job": Job.objects.create(kind="adjudication_accept", owner=admin, status="succeeded").pk,
        "scorer": ScorerModel.objects.create(kind="pfsm", name="m", weights={"kind": "pfsm"}).pk,
    }


def _our_pages(w: dict[str, Any]) -> dict[str, tuple[str, str]]:
    """URL name -> (persona, path) for every page of the frontend."""
    c = w["corpus"]
    return {
        "home": ("alice", "/"),
        "login": ("anon", "/login/"),
        "logout": ("alice", "/logout/"),
        "password_reset_confirm": ("anon", "/password/MQ/set-password/"),
        "password_reset_complete": ("anon", "/password/done/"),
        "password_change": ("alice", "/account/password/"),
        "password_change_done": ("alice", "/account/password/done/"),
        "workspace": ("alice", f"/work/{w['work']}/"),
        "adjudication": ("admin", "/adjudication/"),
        "adjudicate": ("admin", f"/adjudicate/{w['pair']}/"),
        "adjudication-accept-agreed": ("admin", "/adjudication/accept-agreed/"),
        "adjudication-accept-undo": ("admin", f"/adjudication/accept-agreed/{w['job']}/undo/"),
        "guidelines": ("alice", "/guidelines/"),
        "scorers": ("alice", "/scorers/"),
        "scorer-train": ("admin", "/scorers/train/"),
        "scorer-model": ("admin", f"/scorers/{w['scorer']}/model.json"),
        "corpus-list": ("admin", "/corpora/"),
        "corpus-import": ("admin", "/corpora/import/"),
        "corpus-detail": ("admin", f"/corpora/{c}/"),
        "corpus-stats": ("admin", f"/corpora/{c}/stats/"),
        "corpus-archive": ("admin", f"/corpora/{c}/archive/"),
        "corpus-restore": ("admin", f"/corpora/{c}/restore/"),
        "corpus-delete": ("admin", f"/corpora/{c}/delete/"),
        "corpus-pairs": ("admin", f"/corpora/{c}/pairs/"),
        "corpus-agreement": ("admin", f"/corpora/{c}/agreement/"),
        "corpus-prefill": ("admin", f"/corpora/{c}/prefill/"),
        "corpus-assignments": ("admin", f"/corpora/{c}/assignments/"),
        "corpus-export": ("admin", f"/corpora/{c}/export/"),
        "corpus-agreement-run": ("admin", f"/corpora/{c}/agreement/run/"),
        "corpus-prefill-run": ("admin", f"/corpora/{c}/prefill/run/"),
        "corpus-prefill-retraining-off": ("admin", f"/corpora/{c}/prefill/retraining-off/"),
        "corpus-prefill-queue-order": ("admin", f"/corpora/{c}/prefill/queue-order/"),
        "corpus-assignments-plan": ("admin", f"/corpora/{c}/assignments/plan/"),
        "corpus-assignments-hand-over": ("admin", f"/corpora/{c}/assignments/hand-over/"),
        "corpus-assignments-release": ("admin", f"/corpora/{c}/assignments/release/"),
        "corpus-export-run": ("admin", f"/corpora/{c}/export/run/"),
        "job-list": ("admin", "/jobs/"),
        "job-cancel-page": ("admin", "/jobs/999999/cancel/"),
        "user-list": ("admin", "/users/"),
        "user-create": ("admin", "/users/create/"),
        "user-roles": ("admin", f"/users/{w['alice']}/roles/"),
        "user-active": ("admin", f"/users/{w['alice']}/active/"),
        "user-link": ("admin", f"/users/{w['alice']}/link/"),
    }


#: The pages that answer a form's POST only.
POSTED = {
    "logout",
    "job-cancel-page",
    "corpus-import",
    "corpus-stats",
    "corpus-archive",
    "corpus-restore",
    "user-create",
    "user-roles",
    "user-active",
    "user-link",
    "corpus-agreement-run",
    "corpus-prefill-run",
    "corpus-prefill-retraining-off",
    "corpus-prefill-queue-order",
    "adjudication-accept-agreed",
    "adjudication-accept-undo",
    "corpus-assignments-plan",
    "corpus-assignments-hand-over",
    "corpus-assignments-release",
    "corpus-export-run",
    "scorer-train",
}


def test_the_list_below_names_every_page_of_the_frontend(world: dict[str, Any]) -> None:
    names = {p.name for p in frontend_urls.urlpatterns if isinstance(p, URLPattern)}
    assert names == set(_our_pages(world))


def test_every_page_of_the_frontend_sends_the_strict_policy(world: dict[str, Any]) -> None:
    for name, (persona, path) in _our_pages(world).items():
        client = world["clients"][persona]
        response = client.post(path) if name in POSTED else client.get(path)
        # a form posted empty is answered with the form and its errors
        assert response.status_code in (200, 302, 400), (name, response.status_code)
        assert _policy(response) | STRICT == _policy(response), name


@pytest.mark.parametrize(
    ("persona", "path", "status"),
    [
        ("root", "/admin/", 200),
        ("root", "/admin/auth/user/", 200),
        ("root", "/admin/annotate/job/", 200),
        ("anon", "/admin/login/", 200),
        ("alice", "/api/queue/", 200),
        ("anon", "/api/queue/", 401),
        ("alice", "/api/schema/", 200),
        ("alice", "/no/such/page/", 404),
        ("alice", "/corpora/", 403),
    ],
)
def test_the_admin_the_api_and_error_pages_send_the_strict_policy(
    world: dict[str, Any], persona: str, path: str, status: int
) -> None:
    response = world["clients"][persona].get(path)
    assert response.status_code == status
    assert _policy(response) | STRICT == _policy(response)


def test_the_lockout_page_sends_the_strict_policy(world: dict[str, Any]) -> None:
    with override_settings(LOGIN_MAX_FAILURES=1):
        Client().post("/login/", {"username": "alice", "password": "wrong"})
        response = Client().post("/login/", {"username": "alice", "password": "wrong"})
    assert response.status_code == 429
    assert _policy(response) | STRICT == _policy(response)


def test_the_api_docs_add_only_data_images(world: dict[str, Any]) -> None:
    response = world["clients"]["alice"].get("/api/docs/")
    assert response.status_code == 200
    assert _policy(response) == {**STRICT, "connect-src": "'self'", "img-src": "'self' data:"}
    script = world["clients"]["alice"].get("/api/docs/?script=")
    assert script["Content-Type"].startswith("application/javascript")


def test_the_browsable_api_adds_only_inline_styles(world: dict[str, Any]) -> None:
    response = world["clients"]["alice"].get("/api/queue/", HTTP_ACCEPT="text/html")
    assert response["Content-Type"].startswith("text/html")
    policy = _policy(response)
    assert policy["style-src"] == "'self' 'unsafe-inline'"
    assert policy["script-src"] == "'self'"
