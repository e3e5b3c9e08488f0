"""Schema-driven fuzzing of the whole API with schemathesis: every operation of
``/api/schema/``, for every role (anonymous, annotator, adjudicator, admin), with input the
schema allows (its bounds included: the largest and smallest numbers) and input it does not
(negative and huge numbers beyond the bounds, wrong types, missing fields). No answer may be a
server error, and every answer with a documented status must match the schema.

The requests go through Django's WSGI application in this process, against the test database
(a corpus with pairs, assignments, annotations and jobs, so that ids in paths find rows), with
the rate limits raised so the input, not the limiter, decides the answers.
"""

from __future__ import annotations

from typing import Any

import pytest
import schemathesis
from django.core.wsgi import get_wsgi_application
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis.errors import Unsatisfiable
from rest_framework.authtoken.models import Token
from schemathesis.checks import not_a_server_error
from schemathesis.generation import GenerationMode
from schemathesis.specs.openapi.checks import content_type_conformance, response_schema_conformance

from annotate import roles, throttles
from annotate.services.annotations import annotation_open, annotation_submit
from tests.annotate.factories import make_assignment, make_pair, make_user

pytestmark = [pytest.mark.django_db, pytest.mark.slow]
EXAMPLES = 20
CHECKS = [not_a_server_error, response_schema_conformance, content_type_conformance]


@pytest.fixture
def tokens(monkeypatch: Any, settings: Any, tmp_path: Any) -> dict[str, str]:
    monkeypatch.setattr(
        throttles.SimpleRateThrottle,
        "THROTTLE_RATES",
        {k: "100000/min" for k in ("user", "anon", "address", "jobs", "score")},
    )
    settings.VAR_DIR = tmp_path
    settings.EXPORT_DIR = tmp_path / "exports"
    alice = make_user("alice", roles.ANNOTATOR)
    carol = make_user("carol", roles.ADJUDICATOR)
    admin = make_user("admin", roles.ADMIN)
    pair = make_pair()
    for k in range(3):
        assignment = make_assignment(pair if k == 0 else make_pair(pair.corpus), alice)
        annotation_open(assignment=assignment, actor=alice)
        if k:
            annotation_submit(assignment=assignment, actor=alice, base_version=1)
    return {
        name: f"Token {Token.objects.create(user=user).key}"
        for name, user in (("alice", alice), ("carol", carol), ("admin", admin))
    }


@pytest.mark.parametrize("mode", [GenerationMode.POSITIVE, GenerationMode.NEGATIVE])
@pytest.mark.parametrize("persona", ["anon", "alice", "carol", "admin"])
def test_no_operation_answers_a_server_error_or_outside_its_schema(
    tokens: dict[str, str], persona: str, mode: GenerationMode
) -> None:
    app = get_wsgi_application()
    schema = schemathesis.openapi.from_wsgi(
        "/api/schema/?format=json", app, headers={"Authorization": tokens["admin"]}
    )
    headers = {"Authorization": tokens[persona]} if persona in tokens else {}
    failures = [
        failure
        for result in schema.get_all_operations()
        if (failure := _fuzz(result.ok(), headers, mode)) is not None
    ]
    assert not failures, "\n\n".join(failures[:12])


def _fuzz(operation: Any, headers: dict[str, str], mode: GenerationMode) -> str | None:
    """The first failure hypothesis finds for one operation (shrunk), or ``None``."""

    @given(case=operation.as_strategy(generation_mode=mode))
    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        derandomize=True,
        database=None,
        phases=[Phase.explicit, Phase.generate, Phase.shrink],
        suppress_health_check=list(HealthCheck),
    )
    def run(case: Any) -> None:
        response = case.call(headers=headers)
        case.validate_response(response, checks=CHECKS, headers=headers)

    try:
        run()
    except Unsatisfiable:
        # Negative mode on an operation that takes no input: there is nothing to make invalid.
        if mode is GenerationMode.NEGATIVE:
            return None
        raise
    except (Exception, BaseExceptionGroup) as error:
        return f"{operation.label} ({mode}): {str(error).strip()[:800]}"
    return None
