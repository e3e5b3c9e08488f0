"""Errors raised before or outside a view's own handling answer the API's JSON error shape
under /api/ and the site's pages elsewhere."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from annotate import roles
from tests.annotate.factories import make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def client() -> Client:
    signed_in = Client()
    signed_in.force_login(make_user("alice", roles.ANNOTATOR))
    return signed_in


def test_a_body_over_the_limit_is_a_json_413_on_the_api_naming_the_limit(
    client: Client, settings: Any
) -> None:
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000
    response = client.post("/api/score", "x" * 2000, content_type="application/json")
    assert response.status_code == 413
    error = response.json()["error"]
    assert error["code"] == "body_too_large" and "larger than 1,000 bytes" in error["message"]


def test_a_body_over_the_limit_on_a_page_is_a_413_saying_so(settings: Any) -> None:
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000
    response = Client().post("/login/", {"username": "x" * 2000, "password": "y"})
    assert response.status_code == 413
    assert "larger than 1,000 bytes" in response.content.decode()


def test_an_unknown_api_address_is_a_json_404_and_a_page_one_is_the_sites_page(
    client: Client,
) -> None:
    api = client.get("/api/no-such-thing/")
    assert api.status_code == 404
    assert api.json() == {
        "error": {"code": "not_found", "message": "no API operation at /api/no-such-thing/"}
    }
    page = client.get("/no-such-page/")
    assert page.status_code == 404 and "This page does not exist" in page.content.decode()


def test_an_unexpected_failure_in_the_api_is_a_json_500(client: Client, monkeypatch: Any) -> None:
    from annotate.apis import me

    def fail(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("boom")

    monkeypatch.setattr(me.QueueApi, "get", fail)
    client.raise_request_exception = False
    response = client.get("/api/queue/")
    assert response.status_code == 500
    assert response.json()["error"]["code"] == "server_error"
    assert "boom" not in response.content.decode()


def test_a_locked_database_outside_any_view_is_a_503_to_retry() -> None:
    from django.db.utils import OperationalError
    from django.test import RequestFactory

    from config.error_views import server_error

    for path, content_type in (("/api/queue/", "application/json"), ("/", "text/html")):
        try:
            raise OperationalError("database is locked")  # as a session save may, after a view
        except OperationalError:
            response = server_error(RequestFactory().get(path))
        assert response.status_code == 503 and response["Retry-After"]
        assert response["Content-Type"].startswith(content_type)
    plain = server_error(RequestFactory().get("/api/queue/"))
    assert plain.status_code == 500


def test_a_form_with_a_stale_csrf_token_is_the_sites_page_leading_back_to_the_form() -> None:
    # A sign-in in another tab replaces the token the open page's form carries.
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(make_user("ada", roles.ADMIN))
    response = browser.post(
        "/corpora/1/archive/",
        {"csrfmiddlewaretoken": "x" * 64},
        HTTP_REFERER="http://testserver/corpora/?show=archived",
    )
    assert response.status_code == 403
    page = response.content.decode()
    assert "This form is out of date" in page and "Nothing was changed" in page
    assert 'href="http://testserver/corpora/?show=archived"' in page
    assert "DEBUG" not in page and "ada" in page  # the site's layout, signed in


def test_a_stale_form_from_another_site_leads_only_home() -> None:
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(make_user("ada", roles.ADMIN))
    response = browser.post("/corpora/1/archive/", HTTP_REFERER="https://evil.example/form")
    assert response.status_code == 403
    assert "evil.example" not in response.content.decode()


def test_a_request_too_large_to_read_on_a_page_is_the_sites_400_page(client: Client) -> None:
    response = client.get("/?" + "&".join(f"f{k}=1" for k in range(1001)))
    assert response.status_code == 400
    page = response.content.decode()
    assert "This request could not be read" in page and "alice" in page
