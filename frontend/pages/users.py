"""The users page: everyone with their roles, state and workload, searched, filtered, sorted
and paged on the server; adding a user (with a password, or invited by a one-time link),
setting roles, deactivating and reactivating, and issuing a new set-password link, each a form
posted to the services the API uses. Nobody acts on an account more privileged than their own
(:func:`annotate.roles.may_change_account`)."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth import get_user_model
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from annotate import roles
from annotate.exceptions import DomainError
from annotate.selectors import users as users_reads
from annotate.selectors.assignments import imported_accounts
from annotate.services import users
from frontend.access import admin_page, back_to
from frontend.tables import Column, table_page

TEMPLATE = "frontend/admin/user_list.html"
#: Where the one-time link of the last invitation or reset waits for the next page view.
INVITE_KEY = "users.invite"


def _cell(name: str) -> str:
    return f"{TEMPLATE}#{name}"


COLUMNS = (
    Column("User", _cell("user-name"), key="username", sort="username"),
    Column("Roles", _cell("user-roles")),
    Column("Assigned", _cell("user-assigned"), key="assigned", sort="assigned", numeric=True),
    Column("Submitted", _cell("user-submitted"), key="submitted", sort="submitted", numeric=True),
    Column("Last login", _cell("user-login"), key="login", sort="last_login"),
    Column("Account", _cell("user-account")),
)

STATE_LABELS = {
    "active": ("active", "can log in"),
    "no_password": ("no password", "cannot log in until a password is set with a link"),
    "deactivated": ("deactivated", "cannot log in; the work stays"),
}
#: How the list shows an account an import made to hold its annotations (among the filter's
#: "no password" ones): nobody signs in as it, and an invite link would make it a person's.
IMPORTED_LABEL = (
    "imported",
    "made by an import to hold its annotations: no password, nobody signs in as this account",
)
ROLE_CHOICES = [(role, role) for role in roles.ROLES]


class UserFilters(forms.Form):
    q = forms.CharField(
        required=False,
        max_length=150,
        label="Search",
        widget=forms.TextInput(attrs={"type": "search", "placeholder": "username or e-mail"}),
    )
    role = forms.ChoiceField(required=False, choices=[("", "any"), *ROLE_CHOICES], label="Role")
    state = forms.ChoiceField(
        required=False,
        choices=[("", "any"), *((key, label) for key, (label, _) in STATE_LABELS.items())],
        label="Account",
    )


class UserCreateForm(forms.Form):
    username = forms.CharField(
        max_length=users.USERNAME_MAX_LENGTH,
        strip=False,
        widget=forms.TextInput(attrs={"autocomplete": "off"}),
    )
    email = forms.CharField(max_length=254, required=False, label="E-mail (optional)")
    password = forms.CharField(
        max_length=128,
        required=False,
        strip=False,
        label="Password (optional)",
        help_text="Empty: invite with a one-time link where they set their own.",
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
    )
    roles = forms.MultipleChoiceField(
        required=False,
        choices=ROLE_CHOICES,
        initial=[roles.ANNOTATOR],
        widget=forms.CheckboxSelectMultiple,
    )


class RolesForm(forms.Form):
    roles = forms.MultipleChoiceField(required=False, choices=ROLE_CHOICES)


class ActiveForm(forms.Form):
    is_active = forms.TypedChoiceField(
        choices=[("true", "active"), ("false", "deactivated")],
        coerce=lambda value: value == "true",
    )


def _rows(request: HttpRequest) -> tuple[UserFilters, Any]:
    filters = UserFilters(request.GET)
    chosen: dict[str, Any] = {}
    if filters.is_valid():
        chosen = {
            "role": filters.cleaned_data["role"] or None,
            "search": filters.cleaned_data["q"].strip(),
            "state": filters.cleaned_data["state"] or None,
        }
    narrowed = any(chosen.values())
    table = table_page(
        request,
        users_reads.users_filtered(**chosen),
        COLUMNS,
        default_sort="username",
        noun="users",
        empty_title="Nobody matches" if narrowed else "Nobody yet",
        empty_text="Change the search or the filters." if narrowed else "Add a user above.",
        path=reverse("user-list"),
    )
    imported = imported_accounts(user.username for user in table.rows)
    for user in table.rows:
        account = users_reads.user_row(user, viewer=request.user)
        state = "active" if account["has_password"] else "no_password"
        if not user.is_active:
            state = "deactivated"
        label, help_text = STATE_LABELS[state]
        css = state.replace("_", "-")
        if state == "no_password" and user.username in imported:
            (label, help_text), css = IMPORTED_LABEL, "imported-account"
        account.update(state=css, state_label=label, state_help=help_text)
        user.account = account
    return filters, table


def _here(request: HttpRequest) -> str:
    """The list's address with the request's filters, sort and page (also when the request
    is a form posted from it, which carries them in its own address)."""
    query = request.GET.copy()
    query.pop("fragment", None)
    return f"{reverse('user-list')}?{query.urlencode()}" if query else reverse("user-list")


def _page(
    request: HttpRequest,
    *,
    form: UserCreateForm | None = None,
    problem: str = "",
    status: int = 200,
) -> HttpResponse:
    filters, table = _rows(request)
    context = {
        "filters": filters,
        "table": table,
        "form": form or UserCreateForm(),
        "roles": roles.ROLES,
        "problem": problem,
        "invite": request.session.pop(INVITE_KEY, None) if status == 200 else None,
        "here": _here(request),
    }
    return render(request, TEMPLATE, context, status=status)


@admin_page
def user_list(request: HttpRequest) -> HttpResponse:
    return _page(request)


def _remember_link(request: HttpRequest, username: str, path: str, invited: bool) -> None:
    request.session[INVITE_KEY] = {
        "username": username,
        "url": request.build_absolute_uri(path),
        "verb": "is invited" if invited else "can set a new password",
    }


@require_POST
@admin_page
def user_create_view(request: HttpRequest) -> HttpResponse:
    form = UserCreateForm(request.POST)
    if not form.is_valid():
        return _page(request, form=form, status=400)
    values = form.cleaned_data
    try:
        user = users.user_create(
            username=values["username"],
            email=values["email"],
            role_names=values["roles"],
            password=values["password"] or None,
        )
    except DomainError as error:
        field = error.extra.get("field")
        form.add_error(field if field in form.fields else None, error.message)
        return _page(request, form=form, status=error.status_code)
    if user.has_usable_password():
        messages.success(request, f"{user.username} can log in with the password you chose.")
    else:
        path = users.user_password_link(user=user, actor=request.user)  # type: ignore[arg-type]
        _remember_link(request, user.username, path, invited=True)
    return redirect(reverse("user-list"))


def _account(user_id: int) -> Any:
    account = get_user_model().objects.filter(pk=user_id).first()
    if account is None:
        raise Http404(f"there is no user {user_id}")
    return account


def _refused(request: HttpRequest, account: Any, what: str, error: DomainError) -> HttpResponse:
    problem = f"{what} of {account.username}: {error.message}; nothing changed."
    return _page(request, problem=problem, status=error.status_code)


@require_POST
@admin_page
def user_roles_view(request: HttpRequest, user_id: int) -> HttpResponse:
    account = _account(user_id)
    form = RolesForm(request.POST)
    if not form.is_valid():
        error = DomainError(" ".join(str(e) for e in form.errors.get("roles", [])), field="roles")
        return _refused(request, account, "Roles", error)
    try:
        users.user_update(
            user=account,
            actor=request.user,  # type: ignore[arg-type]
            role_names=form.cleaned_data["roles"],
        )
    except DomainError as error:
        return _refused(request, account, "Roles", error)
    chosen = ", ".join(form.cleaned_data["roles"]) or "none"
    messages.success(request, f"Roles of {account.username}: {chosen}.")
    return redirect(back_to(request, reverse("user-list")))


@require_POST
@admin_page
def user_active_view(request: HttpRequest, user_id: int) -> HttpResponse:
    account = _account(user_id)
    form = ActiveForm(request.POST)
    if not form.is_valid():
        error = DomainError("say whether the account is active (true or false)", field="is_active")
        return _refused(request, account, "The account", error)
    active = form.cleaned_data["is_active"]
    try:
        users.user_update(user=account, actor=request.user, is_active=active)  # type: ignore[arg-type]
    except DomainError as error:
        return _refused(request, account, "The account", error)
    if active:
        messages.success(request, f"{account.username} is active again and can log in.")
    else:
        messages.success(
            request, f"{account.username} is deactivated: logged out everywhere, work kept."
        )
    return redirect(back_to(request, reverse("user-list")))


@require_POST
@admin_page
def user_link_view(request: HttpRequest, user_id: int) -> HttpResponse:
    account = _account(user_id)
    try:
        path = users.user_password_link(user=account, actor=request.user)  # type: ignore[arg-type]
    except DomainError as error:
        return _refused(request, account, "A set-password link", error)
    _remember_link(request, account.username, path, invited=not account.has_usable_password())
    return redirect(back_to(request, reverse("user-list")))
