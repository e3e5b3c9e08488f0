"""The one mapping of errors to HTTP (annotate.exceptions): domain errors and scoring's kinds."""

from __future__ import annotations

import pytest
from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.http import Http404

from annotate.exceptions import DomainError, NotFound, exception_handler
from scoring.errors import (
    AlignmentError,
    FormatError,
    InputError,
    ModelError,
    OptionsError,
    ResourceMissingError,
    ScoringError,
    UndefinedError,
)


@pytest.mark.parametrize(
    ("error", "status", "code", "extra"),
    [
        (
            OptionsError("option 'x' is bad", option="x", value=3),
            400,
            "invalid_option",
            {"field": "x"},
        ),
        (OptionsError("two options disagree"), 400, "invalid_option", {}),
        (InputError("pair 2 is empty"), 400, "invalid_input", {}),
        (
            FormatError("bad", path="f.tsv", line=4, field="id"),
            400,
            "invalid_input",
            {"field": "id", "line": 4},
        ),
        (AlignmentError("link 9-9 is outside"), 400, "invalid_input", {}),
        (ModelError("the scorer is not trained"), 409, "model_unusable", {}),
        (UndefinedError("NIST is undefined"), 422, "undefined", {}),
        (ResourceMissingError("install WordNet"), 503, "resource_missing", {}),
        (ScoringError("something else"), 400, "invalid", {}),
    ],
)
def test_each_kind_of_scoring_error_reaches_the_client_with_its_status_and_code(
    error: ScoringError, status: int, code: str, extra: dict[str, object]
) -> None:
    response = exception_handler(error, {})
    assert response is not None and response.status_code == status
    assert response.data == {"error": {"code": code, "message": str(error), **extra}}


def test_a_domain_error_keeps_its_own_status_code_and_fields() -> None:
    response = exception_handler(NotFound("no such corpus", field="corpus"), {})
    assert response is not None and response.status_code == 404
    assert response.data == {
        "error": {"code": "not_found", "message": "no such corpus", "field": "corpus"}
    }
    assert exception_handler(DomainError("bad"), {}).status_code == 400  # type: ignore[union-attr]


def test_a_scoring_error_naming_a_server_file_shows_only_the_files_name(settings) -> None:
    path = f"{settings.VAR_DIR}/uploads/secret/corpus.tsv"
    response = exception_handler(FormatError("not UTF-8", path=path, line=2), {})
    assert response is not None
    assert response.data["error"]["message"] == "corpus.tsv:2: not UTF-8"


@pytest.mark.parametrize(
    ("error", "status", "code"),
    [(Http404(), 404, "not_found"), (DjangoPermissionDenied(), 403, "permission_denied")],
)
def test_django_s_own_404_and_403_get_the_api_s_error_shape(
    error: Exception, status: int, code: str
) -> None:
    response = exception_handler(error, {})
    assert response is not None and response.status_code == status
    assert set(response.data) == {"error"} and response.data["error"]["code"] == code
