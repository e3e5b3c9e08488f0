"""The endpoints a script starts work with refuse fields they do not know (400 naming them),
as the user endpoints do: a misspelt option (``test_spilt``, ``sample``, ``annotater``) was
ignored, and the job ran with the default as if it had been asked for."""

from __future__ import annotations

import io
from typing import Any

import pytest
from rest_framework.test import APIClient

from annotate import roles
from annotate.models import Corpus, Job
from tests.annotate.factories import make_corpus, make_pair, make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_api() -> APIClient:
    client = APIClient()
    client.force_authenticate(make_user("ada", roles.ADMIN))
    return client


@pytest.fixture
def corpus() -> Corpus:
    corpus = make_corpus("c")
    make_pair(corpus)
    return corpus


@pytest.mark.parametrize(
    ("path", "body", "unknown"),
    [
        ("/api/corpora/create/", {"name": "new", "descripton": "x"}, "descripton"),
        ("/api/corpora/{corpus}/prefill/", {"aligner": "identity", "retrain": 5}, "retrain"),
        (
            "/api/corpora/{corpus}/export/",
            {"format": "pharaoh", "which": "annotator", "annotater": "A"},
            "annotater",
        ),
        (
            "/api/corpora/{corpus}/agreement/",
            {"annotators": ["A", "B"], "sample": 10},
            "sample",
        ),
        (
            "/api/scorers/train/",
            {"kind": "perp", "corpus": "c", "train_split": "train", "test_spilt": "test"},
            "test_spilt",
        ),
        ("/api/score", {"model": "m", "pairs": [["a", "b"]], "modle": "n"}, "modle"),
        ("/api/score/jobs/", {"model": "m", "pairs": [["a", "b"]], "page": 2}, "page"),
    ],
)
def test_a_misspelt_field_is_a_400_naming_it_and_starts_nothing(
    admin_api: APIClient, corpus: Corpus, path: str, body: dict[str, Any], unknown: str
) -> None:
    response = admin_api.post(path.format(corpus=corpus.pk), body, format="json")
    assert response.status_code == 400, response.content
    error = response.json()["error"]
    assert error["field"] == unknown and "the fields are" in error["message"]
    assert not Job.objects.exists()
    assert not Corpus.objects.filter(name="new").exists()


def test_an_upload_with_a_misspelt_field_is_a_400_and_a_form_s_csrf_token_is_no_field(
    admin_api: APIClient,
) -> None:
    def upload(**fields: str) -> Any:
        data = {"corpus": "up", "format": "msrp", **fields}
        data["files"] = io.BytesIO(b"x")
        return admin_api.post("/api/corpora/import/", data, format="multipart")

    refused = upload(subcorpous="news")
    assert refused.status_code == 400 and refused.json()["error"]["field"] == "subcorpous"
    assert not Job.objects.exists()
    assert upload(csrfmiddlewaretoken="t", subcorpus="news").status_code == 201
