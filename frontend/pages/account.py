"""A logged-in user's own password: Django's change form, with its check of the old password
counted as a login try (:mod:`annotate.services.logins`), so that a session alone (left open,
or taken) gives no more guesses at the password than the login page does."""

from __future__ import annotations

import math
from typing import Any

from django import forms
from django.contrib.auth import views as auth_views
from django.contrib.auth.forms import PasswordChangeForm
from django.http import HttpResponse
from django.urls import reverse_lazy

from annotate.services.logins import login_try_begin, login_try_succeeded
from annotate.throttles import client_address


class CountedPasswordChangeForm(PasswordChangeForm):
    """The old password is checked only when a login try of the account from the client's
    address is allowed, and counted as one; right, it clears the count as a login does."""

    def __init__(self, user: Any, *args: Any, address: str = "", **kwargs: Any) -> None:
        super().__init__(user, *args, **kwargs)
        self.address = address
        #: Seconds until the old password may be tried again, when refused.
        self.locked_for = 0

    def clean_old_password(self) -> str:
        username = self.user.get_username()
        wait = login_try_begin(username=username, address=self.address)
        if wait:
            self.locked_for = wait
            minutes = max(1, round(wait / 60))
            raise forms.ValidationError(
                f"Too many wrong passwords. Try again in about {minutes} minute"
                + ("s." if minutes != 1 else "."),
                code="locked",
            )
        old = super().clean_old_password()
        login_try_succeeded(username=username, address=self.address)
        return old


class PasswordChangeView(auth_views.PasswordChangeView):
    form_class = CountedPasswordChangeForm
    template_name = "frontend/password_change.html"
    success_url = reverse_lazy("password_change_done")

    def get_form_kwargs(self) -> dict[str, Any]:
        return {**super().get_form_kwargs(), "address": client_address(self.request)}

    def form_invalid(self, form: Any) -> HttpResponse:
        response = super().form_invalid(form)
        if form.locked_for:
            response.status_code = 429
            response["Retry-After"] = str(math.ceil(form.locked_for))
        return response
