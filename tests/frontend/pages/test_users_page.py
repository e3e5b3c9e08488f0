"""The users page, rendered on the server: the list's search, filters, sort and pages; adding a
user with a password or by invitation; roles, deactivation and set-password links as forms,
each with its refusals (and nobody acting on an account more privileged than their own)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from annotate import roles
from annotate.models import Annotation, AnnotationEvent, Assignment
from tests.annotate.factories import make_assignment, make_pair, make_user

pytestmark = pytest.mark.django_db
User = get_user_model()


@pytest.fixture
def admin_user() -> Any:
    return make_user("admin", roles.ADMIN)


@pytest.fixture
def admin(admin_user: Any) -> Client:
    client = Client()
    client.force_login(admin_user)
    return client


def _names(html: str) -> list[str]:
    return re.findall(r'<span data-user="([^"]+)">', html)


def _roles(username: str) -> set[str]:
    return set(User.objects.get(username=username).groups.values_list("name", flat=True))


def test_it_lists_everyone_with_roles_state_and_workload(admin: Client) -> None:
    alice = make_user("alice", roles.ANNOTATOR, roles.ADJUDICATOR)
    done = make_assignment(make_pair(), alice)
    Assignment.objects.filter(pk=done.pk).update(status=Assignment.Status.SUBMITTED)
    make_assignment(make_pair(), alice)
    User.objects.create_user("dora")  # invited: no password yet
    html = admin.get("/users/").content.decode()
    assert _names(html) == ["admin", "alice", "dora"]
    row = html.split('data-user="alice"', 1)[1].split("</tr>", 1)[0]
    assert re.findall(r'<td class="num">(\d+)</td>', row) == ["2", "1"]
    assert 'value="annotator" checked' in row and 'value="adjudicator" checked' in row
    assert 'value="admin" checked' not in row
    dora = html.split('data-user="dora"', 1)[1].split("</tr>", 1)[0]
    assert 'class="badge no-password"' in dora and "Invite link" in dora


def test_search_role_and_state_filter_and_columns_sort(admin: Client) -> None:
    make_user("alice", roles.ANNOTATOR)
    make_user("bob", roles.ADJUDICATOR)
    gone = make_user("carl", roles.ANNOTATOR)
    User.objects.filter(pk=gone.pk).update(is_active=False, email="carl@example.org")
    assert _names(admin.get("/users/?q=EXAMPLE").content.decode()) == ["carl"]
    assert _names(admin.get("/users/?role=annotator").content.decode()) == ["alice", "carl"]
    assert _names(admin.get("/users/?state=deactivated").content.decode()) == ["carl"]
    assert _names(admin.get("/users/?sort=-username").content.decode()) == [
        "carl",
        "bob",
        "alice",
        "admin",
    ]
    assert "<strong>Nobody matches</strong>" in admin.get("/users/?q=zzz").content.decode()


def test_the_list_pages_fifty_users_at_a_time(admin: Client) -> None:
    User.objects.bulk_create(User(username=f"u{k:02d}") for k in range(52))
    assert len(_names(admin.get("/users/").content.decode())) == 50
    second = admin.get("/users/?page=2").content.decode()
    assert _names(second) == ["u49", "u50", "u51"]  # "admin" sorts before "u00"
    assert "51–53 of 53 users" in second


def test_adding_a_user_with_a_password_lets_them_log_in(admin: Client, settings: Any) -> None:
    body = {"username": "erin", "password": "a-long-secret-99", "roles": ["annotator", "admin"]}
    response = admin.post("/users/create/", body, follow=True)
    assert response.redirect_chain == [("/users/", 302)]
    assert "erin can log in with the password you chose." in response.content.decode()
    assert _roles("erin") == {"annotator", "admin"}
    assert User.objects.get(username="erin").check_password("a-long-secret-99")


def test_inviting_a_user_shows_their_one_time_link_once(admin: Client) -> None:
    page = admin.post("/users/create/", {"username": "dora", "roles": ["annotator"]}, follow=True)
    html = page.content.decode()
    link = re.search(
        r'class="link-field" readonly value="(http://testserver/password/[^"]+)"', html
    )
    assert link is not None and "<b>dora</b> is invited." in html
    assert not User.objects.get(username="dora").has_usable_password()
    assert 'class="link-field"' not in admin.get("/users/").content.decode()
    invited = Client().get(link.group(1).removeprefix("http://testserver"), follow=True)
    assert b"new_password1" in invited.content


@pytest.mark.parametrize(
    ("body", "field", "message", "status"),
    [
        ({"username": ""}, "username", "This field is required.", 400),
        ({"username": "two words"}, "username", "Enter a valid username", 400),
        ({"username": "ALICE"}, "username", "there is already a user &#x27;ALICE&#x27;", 409),
        ({"username": "x", "email": "nope"}, "email", "is not an e-mail address", 400),
        ({"username": "x", "password": "short"}, "password", "too short", 400),
        ({"username": "x", "roles": ["owner"]}, "roles", "Select a valid choice.", 400),
    ],
)
def test_bad_input_when_adding_is_shown_on_its_field_and_adds_nobody(
    admin: Client, body: dict[str, Any], field: str, message: str, status: int
) -> None:
    make_user("alice", roles.ANNOTATOR)
    before = User.objects.count()
    response = admin.post("/users/create/?role=annotator", body)
    assert response.status_code == status
    html = response.content.decode()
    form = html.split('id="user-form"', 1)[1].split("</form>", 1)[0]
    assert message in form.split(f'name="{field}"', 1)[1]  # under the field it is about
    assert User.objects.count() == before
    assert _names(html) == ["alice"]  # the list keeps its filter


def test_roles_are_set_from_the_row_and_the_page_comes_back(admin: Client) -> None:
    alice = make_user("alice", roles.ANNOTATOR)
    response = admin.post(
        f"/users/{alice.pk}/roles/?q=a",
        {"roles": ["annotator", "adjudicator"], "next": "/users/?q=a"},
        follow=True,
    )
    assert response.redirect_chain == [("/users/?q=a", 302)]
    assert "Roles of alice: annotator, adjudicator." in response.content.decode()
    assert _roles("alice") == {"annotator", "adjudicator"}


def test_an_admin_cannot_take_the_admin_role_from_themselves(
    admin: Client, admin_user: Any
) -> None:
    response = admin.post(f"/users/{admin_user.pk}/roles/", {"roles": ["annotator"]})
    assert response.status_code == 409
    assert "Roles of admin: you cannot take the admin role from yourself; nothing changed." in (
        response.content.decode()
    )
    assert _roles("admin") == {"admin"}


def test_an_unknown_role_changes_nothing(admin: Client) -> None:
    alice = make_user("alice", roles.ANNOTATOR)
    response = admin.post(f"/users/{alice.pk}/roles/", {"roles": ["owner"]})
    assert response.status_code == 400 and "Roles of alice:" in response.content.decode()
    assert _roles("alice") == {"annotator"}


def test_only_a_superuser_changes_a_staff_account(admin: Client) -> None:
    staff = make_user("stella", roles.ANNOTATOR)
    User.objects.filter(pk=staff.pk).update(is_staff=True)
    row = admin.get("/users/").content.decode().split('data-user="stella"', 1)[1]
    assert "disabled" in row.split("</form>", 1)[0] and "locked" in row.split("</tr>", 1)[0]
    for url, body in (
        (f"/users/{staff.pk}/roles/", {"roles": ["admin"]}),
        (f"/users/{staff.pk}/active/", {"is_active": "false"}),
        (f"/users/{staff.pk}/link/", {}),
    ):
        response = admin.post(url, body)
        assert response.status_code == 403
        assert "only a superuser can change that account" in response.content.decode()
    staff.refresh_from_db()
    assert staff.is_active and _roles("stella") == {"annotator"}
    root = Client()
    root.force_login(User.objects.create_superuser("root", password=None))
    assert root.post(f"/users/{staff.pk}/roles/", {"roles": ["admin"]}).status_code == 302
    assert _roles("stella") == {"admin"}


def test_deactivating_and_reactivating_an_account(admin: Client, admin_user: Any) -> None:
    alice = make_user("alice", roles.ANNOTATOR)
    off = admin.post(f"/users/{alice.pk}/active/", {"is_active": "false"}, follow=True)
    assert "alice is deactivated: logged out everywhere, work kept." in off.content.decode()
    alice.refresh_from_db()
    assert not alice.is_active
    on = admin.post(f"/users/{alice.pk}/active/", {"is_active": "true"}, follow=True)
    assert "alice is active again and can log in." in on.content.decode()
    alice.refresh_from_db()
    assert alice.is_active
    bad = admin.post(f"/users/{alice.pk}/active/", {"is_active": "maybe"})
    assert bad.status_code == 400
    myself = admin.post(f"/users/{admin_user.pk}/active/", {"is_active": "false"})
    assert myself.status_code == 409 and "you cannot deactivate yourself" in myself.content.decode()
    admin_user.refresh_from_db()
    assert admin_user.is_active


def test_a_reset_link_is_shown_once_and_refused_for_a_deactivated_account(admin: Client) -> None:
    alice = make_user("alice", roles.ANNOTATOR, password="a-long-secret-99")
    page = admin.post(f"/users/{alice.pk}/link/", {"next": "/users/?q=al"}, follow=True)
    assert page.redirect_chain == [("/users/?q=al", 302)]
    assert "<b>alice</b> can set a new password." in page.content.decode()
    User.objects.filter(pk=alice.pk).update(is_active=False)
    refused = admin.post(f"/users/{alice.pk}/link/")
    assert refused.status_code == 409 and "reactivate the account first" in refused.content.decode()
    assert admin.post("/users/999999/link/").status_code == 404


USER_ACTIONS = [
    ("get", "/users/"),
    ("post", "/users/create/"),
    ("post", "/users/{user}/roles/"),
    ("post", "/users/{user}/active/"),
    ("post", "/users/{user}/link/"),
]


@pytest.mark.parametrize(("method", "path"), USER_ACTIONS)
@pytest.mark.parametrize("role", [roles.ANNOTATOR, roles.ADJUDICATOR, None])
def test_only_admins_reach_the_users_page_and_its_actions(
    role: str | None, method: str, path: str
) -> None:
    target = make_user("target", roles.ANNOTATOR)
    client = Client()
    if role:
        client.force_login(make_user("someone", role))
    body = {"username": "new", "roles": ["admin"], "is_active": "false"}
    response = getattr(client, method)(path.format(user=target.pk), body)
    assert response.status_code == (403 if role else 302)
    target.refresh_from_db()
    assert target.is_active and _roles("target") == {"annotator"}
    assert not User.objects.filter(username="new").exists()


def test_an_account_an_import_made_reads_imported_not_a_person_waiting_for_a_password(
    admin: Client,
) -> None:
    imported = User.objects.create_user("C")  # as an import makes it: no password
    assignment = make_assignment(make_pair(), imported)
    annotation = Annotation.objects.create(assignment=assignment)
    AnnotationEvent.objects.create(
        annotation=annotation, version=1, kind=AnnotationEvent.Kind.IMPORTED
    )
    User.objects.create_user("dora")  # invited: no password yet, no imported work
    html = admin.get("/users/").content.decode()
    row = html.split('data-user="C"', 1)[1].split("</tr>", 1)[0]
    assert 'class="badge imported-account"' in row and ">imported</span>" in row
    assert "no-password" not in row
    dora = html.split('data-user="dora"', 1)[1].split("</tr>", 1)[0]
    assert 'class="badge no-password"' in dora
    # The "no password" filter still finds both: neither can sign in yet.
    listed = _names(admin.get("/users/?state=no_password").content.decode())
    assert {"C", "dora"} <= set(listed)
