"""Bodies in a charset they cannot be read in are a 400 before any view or the CSRF check reads
them (an anonymous login form in UTF-7 was a server error)."""

from __future__ import annotations

import pytest
from django.test import Client
from rest_framework.test import APIClient

from annotate import roles
from config.middleware import charset_problem
from tests.annotate.factories import make_user

FORM = "application/x-www-form-urlencoded"


@pytest.mark.parametrize(
    "content_type",
    [
        "application/json",
        "application/json; charset=utf-8",
        "application/json; charset=UTF8",
        "application/json; charset=iso-8859-1",
        "multipart/form-data; boundary=x; charset=utf-8",
        f"{FORM}; charset=UTF-8",
        FORM,
        "",
    ],
)
def test_readable_charsets_pass(content_type: str) -> None:
    assert charset_problem(content_type) is None


@pytest.mark.parametrize(
    ("content_type", "message"),
    [
        ("application/json; charset=utf-7", "'utf-7' of the Content-Type header is not supported"),
        ("application/json; charset=utf-16", "'utf-16' of the Content-Type header"),
        ("application/json; charset=utf-32-le", "'utf-32-le' of the Content-Type header"),
        ("application/json; charset=cp500", "'cp500' of the Content-Type header"),  # EBCDIC
        ("application/json; charset=no-such-codec", "'no-such-codec' of the Content-Type"),
        ("application/json; charset=rot13", "'rot13' of the Content-Type header"),
        ("application/json; charset=hex", "'hex' of the Content-Type header"),
        (f"{FORM}; charset=iso-8859-1", "form data must be UTF-8, not 'iso-8859-1'"),
        (f"{FORM}; charset=utf-7", "'utf-7' of the Content-Type header"),
    ],
)
def test_unreadable_charsets_are_named(content_type: str, message: str) -> None:
    assert message in (charset_problem(content_type) or "")


@pytest.mark.django_db
def test_an_anonymous_utf7_login_form_is_a_400_not_a_server_error() -> None:
    client = Client(enforce_csrf_checks=True, raise_request_exception=False)
    client.get("/login/")
    token = client.cookies["csrftoken"].value
    response = client.post(
        "/login/",
        f"username=a&password=b&csrfmiddlewaretoken={token}",
        content_type=f"{FORM}; charset=utf-7",
    )
    assert response.status_code == 400
    assert b"utf-7" in response.content


@pytest.mark.django_db
def test_a_multipart_upload_in_utf7_is_a_json_400() -> None:
    client = APIClient(raise_request_exception=False)
    client.force_authenticate(make_user("admin", roles.ADMIN))
    response = client.post(
        "/api/corpora/import/",
        b"--x\r\nContent-Disposition: form-data; name=corpus\r\n\r\n+AGE-\r\n--x--\r\n",
        content_type="multipart/form-data; boundary=x; charset=utf-7",
    )
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "unsupported_charset"


@pytest.mark.django_db
def test_json_in_latin1_is_still_read() -> None:
    client = APIClient()
    client.force_authenticate(make_user("admin", roles.ADMIN))
    response = client.post(
        "/api/corpora/create/",
        '{"name": "caf\u00e9"}'.encode("latin-1"),
        content_type="application/json; charset=iso-8859-1",
    )
    assert response.status_code == 201
    assert response.json()["name"] == "caf\u00e9"
