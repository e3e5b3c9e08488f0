"""The login page with throttling (see :mod:`annotate.services.logins`)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import views as auth_views
from django.contrib.auth.forms import AuthenticationForm
from django.http import HttpRequest, HttpResponse

from annotate.services.logins import login_failed, login_seconds_locked, login_succeeded
from annotate.throttles import client_address


class ThrottledLoginView(auth_views.LoginView):
    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        username = str(request.POST.get("username", ""))[:150]
        address = client_address(request)
        wait = login_seconds_locked(username=username, address=address)
        if wait:
            form = AuthenticationForm(request, data=None)
            minutes = max(1, round(wait / 60))
            context = self.get_context_data(
                form=form,
                locked=f"Too many failed logins. Try again in about {minutes} minute"
                + ("s." if minutes != 1 else "."),
            )
            response = self.render_to_response(context, status=429)
            response["Retry-After"] = str(wait)
            return response
        response = super().post(request, *args, **kwargs)
        if request.user.is_authenticated:
            login_succeeded(username=username, address=address)
        else:
            login_failed(username=username, address=address)
        return response
