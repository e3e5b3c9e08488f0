"""JSON bodies are parsed with bounds on nesting and on the number of values: a deep or a wide
body is a 400 naming the limit on every operation that takes JSON, never a server error nor
seconds of parsing; the bodies the API takes still parse."""

from __future__ import annotations

import io
import json
import re
from typing import Any

import pytest
from rest_framework.exceptions import ParseError
from rest_framework.test import APIClient

from annotate import roles
from annotate.models import Job
from annotate.parsers import (
    MAX_JSON_DEPTH,
    MAX_JSON_VALUES,
    BoundedJSONParser,
    json_depth_exceeds,
    json_values_bound,
)
from annotate.services.annotations import MAX_LINKS, annotation_open
from tests.annotate.factories import make_assignment, make_pair, make_user

MESSAGE = f"JSON nested deeper than {MAX_JSON_DEPTH} levels"
WIDE = f"JSON with more than {MAX_JSON_VALUES:,} values (commas, brackets and braces)"
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


def _wide(lists: int) -> str:
    return "[" + ",".join(["[]"] * lists) + "]"


def test_a_body_of_more_values_than_the_bound_is_refused_before_it_is_parsed() -> None:
    assert json_values_bound(_wide(10).encode()) == 9 + 11
    assert _parse(_wide(MAX_JSON_VALUES // 2 - 1)) is not None
    with pytest.raises(ParseError, match=re.escape(WIDE)):
        _parse(_wide(MAX_JSON_VALUES // 2 + 1))


def test_the_largest_save_the_api_takes_is_far_inside_the_bound() -> None:
    body = {"version": 1, "links": [[k // 250, k % 250, "S"] for k in range(MAX_LINKS)]}
    text = json.dumps(body)
    assert json_values_bound(text.encode()) < MAX_JSON_VALUES / 4
    assert _parse(text) == body


def test_the_depth_check_counts_objects_and_arrays_alike() -> None:
    assert not json_depth_exceeds({"a": [{"b": []}]}, 4)
    assert json_depth_exceeds({"a": [{"b": []}]}, 3)
    assert not json_depth_exceeds([1, "x", None, 2.5], 1)


@pytest.mark.django_db
def test_every_operation_that_takes_json_answers_a_deep_or_wide_body_with_a_400() -> None:
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
    for body, message in ((_nested(2_000), MESSAGE), (_wide(MAX_JSON_VALUES), WIDE)):
        answered = {}
        for path, operations in schema["paths"].items():
            for method, operation in operations.items():
                content = operation.get("requestBody", {}).get("content", {})
                if "application/json" not in content:
                    continue
                client = APIClient()
                client.force_authenticate(alice if path in OWN_ASSIGNMENT else admin)
                response = getattr(client, method)(
                    path.format(**ids), body, content_type="application/json"
                )
                answered[f"{method.upper()} {path}"] = (response.status_code, response.json())
        assert len(answered) >= 15
        wrong = {
            name: answer
            for name, answer in answered.items()
            if answer != (400, {"error": {"code": "parse_error", "message": message}})
        }
        assert not wrong, message
