"""The endpoints that save work, and the lists' query parameters, refuse fields they do not
know (400 naming them): a save with a ``comment`` answered 200 and dropped the comment, as if
it were saved; a misspelt filter answered the whole list as if it were the filtered one."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from rest_framework.test import APIClient

from annotate import roles
from annotate.models import Annotation, AnnotationEvent, GoldAlignment, GoldEvent
from annotate.services import guidelines
from tests.annotate.factories import make_assignment, make_pair, make_user

pytestmark = pytest.mark.django_db


def _client(user: Any) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def _refused(response: Any, unknown: str) -> None:
    assert response.status_code == 400, response.content
    error = response.json()["error"]
    assert error["field"] == unknown and "the fields are" in error["message"]


def _annotation_state(annotation: Annotation) -> tuple[Any, ...]:
    annotation.refresh_from_db()
    links = sorted(annotation.links.values_list("i", "j", "sure"))
    events = AnnotationEvent.objects.filter(annotation=annotation).count()
    return (annotation.version, annotation.comment, annotation.rating, links, events)


@pytest.mark.parametrize(
    ("method", "address", "body", "unknown"),
    [
        ("put", "annotation", {"version": 1, "links": [[0, 0, "S"]], "comment": "hi"}, "comment"),
        ("put", "annotation", {"version": 1, "links": [], "flags": ["x"]}, "flags"),
        ("post", "submit", {"version": 1, "rating": 4, "ratng": 5}, "ratng"),
    ],
)
def test_a_save_or_submit_with_an_unknown_field_is_a_400_naming_it_and_changes_nothing(
    method: str, address: str, body: dict[str, Any], unknown: str
) -> None:
    assignment = make_assignment()
    client = _client(assignment.annotator)
    assert client.post(f"/api/assignments/{assignment.pk}/open/").status_code == 200
    annotation = Annotation.objects.get(assignment=assignment)
    before = _annotation_state(annotation)
    url = f"/api/assignments/{assignment.pk}/{address}/"
    _refused(getattr(client, method)(url, body, format="json"), unknown)
    assert _annotation_state(annotation) == before
    assignment.refresh_from_db()
    assert assignment.status != "submitted"


def test_the_workspace_s_save_and_submit_bodies_are_still_taken() -> None:
    """The fields the grid editor's save queue and submit dialog send."""
    assignment = make_assignment()
    client = _client(assignment.annotator)
    client.post(f"/api/assignments/{assignment.pk}/open/")
    base = f"/api/assignments/{assignment.pk}"
    save = {"version": 1, "links": [[0, 0, "S"]], "client": {"changes": 1}, "reviewed": [[1, 1]]}
    saved = client.put(f"{base}/annotation/", save, format="json")
    assert saved.status_code == 200, saved.content
    submit = {"version": saved.json()["version"], "flags": [], "comment": "ok", "rating": None}
    assert client.post(f"{base}/submit/", submit, format="json").status_code == 200


def test_a_gold_save_with_an_unknown_field_is_a_400_naming_it_and_changes_nothing() -> None:
    pair = make_pair(prefill=None)
    client = _client(make_user("carol", roles.ADJUDICATOR))
    body = {"version": 0, "links": [[0, 0, "S"]], "comment": "agreed"}
    _refused(client.put(f"/api/pairs/{pair.pk}/gold/", body, format="json"), "comment")
    assert not GoldAlignment.objects.filter(pair=pair).exists()
    assert not GoldEvent.objects.exists()
    del body["comment"]
    assert client.put(f"/api/pairs/{pair.pk}/gold/", body, format="json").status_code == 200


def test_a_guidelines_save_with_an_unknown_field_is_a_400_naming_it_and_changes_nothing(
    settings: Any, tmp_path: Path
) -> None:
    settings.VAR_DIR = tmp_path  # the guidelines file
    client = _client(make_user("ada", roles.ADMIN))
    before = guidelines.guidelines_get()
    body = {"markdown": "# New", "html": "<h1>New</h1>"}
    _refused(client.put("/api/guidelines/", body, format="json"), "html")
    assert guidelines.guidelines_get() == before
    ok = client.put("/api/guidelines/", {"markdown": "# New"}, format="json")
    assert ok.status_code == 200 and guidelines.guidelines_get() == "# New"


@pytest.mark.parametrize(
    ("role", "address", "unknown"),
    [
        (roles.ADJUDICATOR, "/api/adjudication/?stauts=waiting", "stauts"),
        (roles.ADMIN, "/api/corpora/?archive=true", "archive"),
        (roles.ADMIN, "/api/corpora/{corpus}/pairs/?serach=x", "serach"),
        (roles.ADMIN, "/api/jobs/?knd=export", "knd"),
        (roles.ANNOTATOR, "/api/queue/?state=submitted", "state"),
        (roles.ADMIN, "/api/users/?roles=admin", "roles"),
    ],
)
def test_a_list_with_an_unknown_query_parameter_is_a_400_naming_it(
    role: str, address: str, unknown: str
) -> None:
    pair = make_pair()
    client = _client(make_user("ursula", role))
    _refused(client.get(address.format(corpus=pair.corpus_id)), unknown)
    known = address.split("?")[0].format(corpus=pair.corpus_id) + "?format=json"
    assert client.get(known).status_code == 200
