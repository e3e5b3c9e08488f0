"""A body over its address's limit is a 413 before anything reads it: Django bounds a form's
fields but stores its files on disk however large, so without the check any client (anonymous
too, through the CSRF check) kept a web process reading a multipart body of any size (1 GB to
the login page: 11 s and 1 GB on disk)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from annotate import roles
from annotate.models import Job
from tests.annotate.factories import make_user

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def small_limits(settings: Any, tmp_path: Path) -> None:
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000
    settings.MAX_UPLOAD_BYTES = 5000
    settings.UPLOAD_DIR = tmp_path / "uploads"


def _file(size: int) -> SimpleUploadedFile:
    return SimpleUploadedFile("pairs.jsonl", b"x" * size)


def test_an_anonymous_form_with_a_large_file_to_the_login_page_is_refused_unread(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def never(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("the body was read")

    monkeypatch.setattr("django.http.multipartparser.MultiPartParser.parse", never)
    response = Client().post("/login/", {"username": "x", "password": "y", "f": _file(3000)})
    assert response.status_code == 413
    assert "larger than 1,000 bytes" in response.content.decode()


def test_a_large_file_to_any_api_address_is_a_json_413() -> None:
    client = APIClient()
    client.force_authenticate(make_user("ada", roles.ADMIN))
    response = client.post("/api/corpora/create/", {"name": "x", "f": _file(3000)})
    assert response.status_code == 413
    assert response.json()["error"]["code"] == "body_too_large"


def test_an_upload_within_the_upload_limit_goes_through_to_the_import() -> None:
    client = APIClient()
    client.force_authenticate(make_user("ada", roles.ADMIN))
    line = b'{"id": "p1", "source_tokens": ["a"], "target_tokens": ["b"]}\n'
    files = [SimpleUploadedFile("pairs.jsonl", line * 40)]  # about 2,400 bytes
    response = client.post(
        "/api/corpora/import/", {"corpus": "c", "format": "jsonl", "files": files}
    )
    assert response.status_code in (200, 201, 202), response.content
    assert Job.objects.filter(kind="corpus_import").count() == 1


def test_an_api_upload_over_the_upload_limit_is_a_json_413_naming_it() -> None:
    client = APIClient()
    client.force_authenticate(make_user("ada", roles.ADMIN))
    files = [_file(6000)]
    response = client.post(
        "/api/corpora/import/", {"corpus": "c", "format": "jsonl", "files": files}
    )
    assert response.status_code == 413
    message = response.json()["error"]["message"]
    assert "at most 5,000 are accepted" in message and "import_corpus" in message
    assert not Job.objects.exists()


def _never_read(monkeypatch: pytest.MonkeyPatch) -> None:
    def never(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("the body was read")

    monkeypatch.setattr("django.http.multipartparser.MultiPartParser.parse", never)


def _page_client(role: str | None) -> Client:
    client = Client(enforce_csrf_checks=True)
    if role is not None:
        client.force_login(make_user(f"someone-{role}", role))
    client.get("/login/")  # a CSRF cookie, as any client gets one
    return client


@pytest.mark.parametrize("role", [None, roles.ANNOTATOR, roles.ADJUDICATOR])
def test_a_large_upload_to_the_import_page_from_anyone_but_an_admin_is_refused_unread(
    monkeypatch: pytest.MonkeyPatch, role: str | None
) -> None:
    """The CSRF check reads the form for its token before the view checks the role: an
    anonymous client or an annotator made the server read and store 200 MB a request."""
    client = _page_client(role)
    token = client.cookies["csrftoken"].value
    _never_read(monkeypatch)
    response = client.post(
        "/corpora/import/",
        {"csrfmiddlewaretoken": token, "corpus": "c", "format": "jsonl", "files": _file(3000)},
    )
    assert response.status_code == 413
    assert "accepted only from a signed-in corpus admin" in response.content.decode()
    assert not Job.objects.exists()


def test_a_large_upload_to_the_api_from_an_annotator_s_session_is_refused_unread(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The session's CSRF check reads the form too (DRF's SessionAuthentication)."""
    client = _page_client(roles.ANNOTATOR)
    token = client.cookies["csrftoken"].value
    _never_read(monkeypatch)
    response = client.post(
        "/api/corpora/import/",
        {"corpus": "c", "format": "jsonl", "files": _file(3000)},
        HTTP_X_CSRFTOKEN=token,
    )
    assert response.status_code == 413
    assert response.json()["error"]["code"] == "body_too_large"


def test_a_large_upload_to_the_api_without_a_session_is_refused_by_its_role_unread(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    key = Token.objects.create(user=make_user("ann", roles.ANNOTATOR)).key
    _never_read(monkeypatch)
    for client in (APIClient(), APIClient(HTTP_AUTHORIZATION=f"Token {key}")):
        response = client.post("/api/corpora/import/", {"files": _file(3000)})
        assert response.status_code in (401, 403)


def test_an_admin_uploads_within_the_upload_limit_on_the_page_and_with_a_token() -> None:
    admin = make_user("ada", roles.ADMIN)
    line = b'{"id": "p1", "source_tokens": ["a"], "target_tokens": ["b"]}\n'
    page = _page_client(None)
    page.force_login(admin)
    page.get("/corpora/")
    response = page.post(
        "/corpora/import/",
        {
            "csrfmiddlewaretoken": page.cookies["csrftoken"].value,
            "corpus": "c",
            "format": "jsonl",
            "files": SimpleUploadedFile("pairs.jsonl", line * 40),
        },
    )
    assert response.status_code == 302, response.content.decode()[:500]
    key = Token.objects.create(user=admin).key
    api = APIClient(HTTP_AUTHORIZATION=f"Token {key}")
    files = [SimpleUploadedFile("more.jsonl", line * 40)]
    response = api.post("/api/corpora/import/", {"corpus": "d", "format": "jsonl", "files": files})
    assert response.status_code == 201, response.content
    assert Job.objects.filter(kind="corpus_import").count() == 2
