"""JSON bodies are parsed with a bound on nesting: a deep body is a 400 naming the limit on every
operation that takes JSON, never a server error; the bodies the API takes still parse."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest
from rest_framework.exceptions import ParseError
from rest_framework.test import APIClient

from annotate import roles
from annotate.models import Job
from annotate.parsers import MAX_JSON_DEPTH, BoundedJSONParser, json_depth_exceeds
from annotate.services.annotations import annotation_open
from tests.annotate.factories import make_assignment, make_pair, make_user

MESSAGE = f"JSON nested deeper than {MAX_JSON_DEPTH} levels"
#: Operations only the assignment's annotator may call.
OWN_ASSIGNMENT = {
    "/api/assignments/{assignment_id}/annotation/",
    "/api/assignments/{assignment_id}/submit/",
}


def _nested(depth: int) -> str:
    return "[" * depth + "]" * depth


def _parse(text: str) -> Any:
    return BoundedJSONParser().parse(io.BytesIO(text.encode()), "application/json", {})


def test_a_body_at_the_limit_parses_and_one_level_more_is_refused() -> None:
    assert _parse(_nested(MAX_JSON_DEPTH)) is not None
    with pytest.raises(ParseError, match=MESSAGE):
        _parse(_nested(MAX_JSON_DEPTH + 1))


@pytest.mark.parametrize("depth", [500, 2_000, 100_000])
def test_bodies_deeper_than_the_interpreters_stack_are_refused_not_crashed(depth: int) -> None:
    with pytest.raises(ParseError, match=MESSAGE):
        _parse(_nested(depth))
    with pytest.raises(ParseError, match=MESSAGE):
        _parse('{"a": ' * depth + "1" + "}" * depth)


def test_the_bodies_of_the_api_parse_unchanged() -> None:
    body = {
        "version": 3,
        "links": [[0, 0, "S"], [1, 2, "P"]],
        "client": {"changes": [[[0, 0], "S"]], "session": "x"},
        "options": {"grid": [[1, 2], [3, 4]], "nested": {"a": {"b": [1]}}},
    }
    assert _parse(json.dumps(body)) == body
    assert _parse("3") == 3
    assert _parse('"a string with [[[ brackets"') == "a string with [[[ brackets"


def test_the_depth_check_counts_objects_and_arrays_alike() -> None:
    assert not json_depth_exceeds({"a": [{"b": []}]}, 4)
    assert json_depth_exceeds({"a": [{"b": []}]}, 3)
    assert not json_depth_exceeds([1, "x", None, 2.5], 1)


@pytest.mark.django_db
def test_every_operation_that_takes_json_answers_a_deep_body_with_a_400() -> None:
    """Every operation of the schema with a JSON body, called by an admin on rows that exist."""
    admin = make_user("admin", roles.ADMIN)
    alice = make_user("alice", roles.ANNOTATOR)
    pair = make_pair()
    assignment = make_assignment(pair, alice)
    annotation_open(assignment=assignment, actor=alice)
    job = Job.objects.create(kind="corpus_stats", owner=admin, corpus=pair.corpus)
    ids = {
        "assignment_id": assignment.pk,
        "corpus_id": pair.corpus_id,
        "pair_id": pair.pk,
        "job_id": job.pk,
        "user_id": alice.pk,
    }
    reader = APIClient()
    reader.force_authenticate(admin)
    schema = reader.get("/api/schema/?format=json").json()
    deep = _nested(2_000)
    answered = {}
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            content = operation.get("requestBody", {}).get("content", {})
            if "application/json" not in content:
                continue
            client = APIClient()
            client.force_authenticate(alice if path in OWN_ASSIGNMENT else admin)
            response = getattr(client, method)(
                path.format(**ids), deep, content_type="application/json"
            )
            answered[f"{method.upper()} {path}"] = (response.status_code, response.json())
    assert len(answered) >= 15
    wrong = {
        name: answer for name, answer in answered.items() if answer != (400, {"detail": MESSAGE})
    }
    assert not wrong
