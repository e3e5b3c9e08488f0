"""The annotation guidelines: read by everyone; an admin edits the markdown in a form posted
to this page, which the server sanitises and renders."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse

from annotate import roles
from annotate.exceptions import DomainError
from annotate.services import guidelines

TEMPLATE = "frontend/guidelines.html"


class GuidelinesForm(forms.Form):
    markdown = forms.CharField(
        required=False,
        strip=False,
        max_length=guidelines.MAX_LENGTH,
        label="Guidelines text",
        widget=forms.Textarea(attrs={"rows": 16}),
    )


@login_required
def guidelines_page(request: HttpRequest) -> HttpResponse:
    """GET: the guidelines (and, for admins, the editor). POST (admins): save the markdown."""
    is_admin = roles.has_role(request.user, roles.ADMIN)
    text = guidelines.guidelines_get()
    form = GuidelinesForm(initial={"markdown": text})
    status = 200
    if request.method == "POST":
        if not is_admin:
            reason = "Only corpus admins edit the guidelines."
            return render(request, "frontend/forbidden.html", {"reason": reason}, status=403)
        form = GuidelinesForm(request.POST)
        if form.is_valid():
            try:
                guidelines.guidelines_set(text=form.cleaned_data["markdown"])
            except DomainError as error:
                form.add_error("markdown", error.message)
            else:
                blank = not form.cleaned_data["markdown"].strip()
                messages.success(
                    request, "Guidelines back to the defaults." if blank else "Guidelines saved."
                )
                return redirect(reverse("guidelines"))
        status = 400
    context = {"html": guidelines.guidelines_html(text), "form": form}
    return render(request, TEMPLATE, context, status=status)
