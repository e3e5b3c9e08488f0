"""The guidelines page: everyone reads them; an admin saves new markdown with a form (sanitised
on the server), too long a text is refused on its field, and nobody else may post."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.test import Client

from annotate import roles
from annotate.services import guidelines
from tests.annotate.factories import make_user

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def var_dir(settings: Any, tmp_path: Path) -> Path:
    settings.VAR_DIR = tmp_path
    return tmp_path


def _client(role: str | None) -> Client:
    client = Client()
    if role:
        client.force_login(make_user(f"someone-{role}", role))
    return client


def test_an_admin_saves_markdown_that_everyone_then_reads_sanitised() -> None:
    admin = _client(roles.ADMIN)
    text = "# Rules\n\nLink **function words** too.<script>alert(1)</script>"
    response = admin.post("/guidelines/", {"markdown": text}, follow=True)
    assert response.redirect_chain == [("/guidelines/", 302)]
    assert "Guidelines saved." in response.content.decode()
    assert guidelines.guidelines_get() == text
    page = _client(roles.ANNOTATOR).get("/guidelines/").content.decode()
    assert "<strong>function words</strong>" in page and "<script>alert" not in page
    assert 'id="guidelines-form"' not in page


def test_too_long_a_text_is_refused_on_its_field_and_nothing_is_saved() -> None:
    before = guidelines.guidelines_get()
    response = _client(roles.ADMIN).post(
        "/guidelines/", {"markdown": "x" * (guidelines.MAX_LENGTH + 1)}
    )
    assert response.status_code == 400
    html = response.content.decode()
    error = html.split('<span class="errors" role="alert">', 1)[1].split("</span>", 1)[0]
    assert f"at most {guidelines.MAX_LENGTH} characters" in error
    assert guidelines.guidelines_get() == before


@pytest.mark.parametrize(
    ("role", "expected"),
    [(roles.ANNOTATOR, 403), (roles.ADJUDICATOR, 403), (roles.ADMIN, 302), (None, 302)],
)
def test_only_admins_save_the_guidelines(role: str | None, expected: int) -> None:
    before = guidelines.guidelines_get()
    response = _client(role).post("/guidelines/", {"markdown": "changed"})
    assert response.status_code == expected
    if role is None:
        assert response["Location"].startswith("/login/")
    assert (guidelines.guidelines_get() == "changed") == (role == roles.ADMIN)
    if role != roles.ADMIN:
        assert guidelines.guidelines_get() == before


@pytest.mark.parametrize("role", [roles.ANNOTATOR, roles.ADJUDICATOR, roles.ADMIN])
def test_everyone_signed_in_reads_the_guidelines(role: str) -> None:
    response = _client(role).get("/guidelines/")
    assert response.status_code == 200
    assert ('id="guidelines-form"' in response.content.decode()) == (role == roles.ADMIN)


def test_saving_them_empty_brings_the_defaults_back() -> None:
    admin = _client(roles.ADMIN)
    admin.post("/guidelines/", {"markdown": "# Ours"})
    response = admin.post("/guidelines/", {"markdown": "  \n"}, follow=True)
    assert "Guidelines back to the defaults." in response.content.decode()
    assert guidelines.guidelines_get() == guidelines.DEFAULT.read_text(encoding="utf-8")
    page = _client(roles.ANNOTATOR).get("/guidelines/").content.decode()
    assert "Aligning paraphrases" in page and "Ours" not in page


def test_the_defaults_tell_annotators_where_an_admin_changes_them() -> None:
    """An annotator reads them in the workspace's dialog too, where "this page" would be wrong."""
    page = _client(roles.ANNOTATOR).get("/guidelines/").content.decode()
    assert "on the Guidelines page" in page and "on this page" not in page
