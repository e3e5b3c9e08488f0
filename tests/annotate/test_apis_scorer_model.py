"""A trained scorer's model file through the API: what a script downloads for ``python -m
scoring score --model``, with a token as with a session."""

from __future__ import annotations

import json

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from rest_framework.test import APIClient

from annotate import roles
from annotate.models import ScorerModel
from scoring.persistence import model_json

pytestmark = pytest.mark.django_db

WEIGHTS = {"format": "scorer", "kind": "perp", "model": {"w": [0.5, 1.5]}, "task": "regression"}
STATUS = {"annotator": 403, "adjudicator": 403, "admin": 200, "anon": 401}


def client_for(persona: str) -> APIClient:
    client = APIClient()
    if persona != "anon":
        user = get_user_model().objects.create(username=persona)
        user.groups.add(roles.role_group(persona))
        client.force_authenticate(user)
    return client


@pytest.mark.parametrize("persona", list(STATUS))
def test_each_role_gets_its_status(persona: str) -> None:
    model = ScorerModel.objects.create(kind="perp", name="sts perp", weights=WEIGHTS)
    response = client_for(persona).get(f"/api/scorers/{model.pk}/model/")
    assert response.status_code == STATUS[persona]


def test_an_admin_downloads_the_model_file_the_command_line_reads() -> None:
    model = ScorerModel.objects.create(kind="perp", name="sts perp", weights=WEIGHTS)
    response = client_for("admin").get(
        f"/api/scorers/{model.pk}/model/", HTTP_ACCEPT="application/octet-stream"
    )
    assert response.status_code == 200
    body = b"".join(response.streaming_content) if response.streaming else response.content
    assert body.decode("utf-8") == model_json(WEIGHTS)
    assert json.loads(body) == WEIGHTS
    assert response["Content-Type"].startswith("application/json")
    assert response["Content-Disposition"] == 'attachment; filename="sts_perp.perp.json"'


@pytest.mark.parametrize("url", ["/api/scorers/{pk}/model/", "/scorers/{pk}/model.json"])
def test_a_model_named_outside_ascii_downloads_under_its_name(url: str) -> None:
    """A name outside Latin-1 is spelled as RFC 6266's ``filename*`` (UTF-8, percent-encoded):
    written into the header as it is, Django MIME-encodes the whole header (``=?utf-8?b?…?=``),
    which browsers take for no attachment and no file name."""
    model = ScorerModel.objects.create(kind="perp", name="STS 日本語", weights=WEIGHTS)
    page = Client()
    page.force_login(get_user_model().objects.create(username="root", is_superuser=True))
    response = page.get(url.format(pk=model.pk))
    assert response.status_code == 200
    assert response["Content-Disposition"] == (
        "attachment; filename*=utf-8''STS_%E6%97%A5%E6%9C%AC%E8%AA%9E.perp.json"
    )


def test_an_unknown_model_is_a_404_naming_it() -> None:
    response = client_for("admin").get("/api/scorers/999/model/")
    assert response.status_code == 404
    assert response.json()["error"]["message"] == "no scorer model 999"


# The models are listed to every signed-in user (any of them scores pairs with one); their
# files, on the API and on the scorers page, to admins only.
LISTED = {"annotator": 200, "adjudicator": 200, "admin": 200, "anon": 401}
PAGE_FILE = {"annotator": 403, "adjudicator": 403, "admin": 200, "anon": 302}


@pytest.mark.parametrize("persona", list(STATUS))
def test_each_role_lists_the_models_and_gets_the_pages_file_with_its_status(persona: str) -> None:
    model = ScorerModel.objects.create(kind="perp", name="sts perp", weights=WEIGHTS)
    listed = client_for(persona).get("/api/scorers/")
    assert listed.status_code == LISTED[persona]
    if LISTED[persona] == 200:
        assert [row["id"] for row in listed.json()] == [model.pk]
        assert "weights" not in listed.json()[0]
    page = Client()
    if persona != "anon":
        page.force_login(get_user_model().objects.get(username=persona))
    response = page.get(f"/scorers/{model.pk}/model.json")
    assert response.status_code == PAGE_FILE[persona]
    if persona == "anon":
        assert response["Location"].startswith("/login/?next=")
