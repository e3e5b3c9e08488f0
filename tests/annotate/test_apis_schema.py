"""The OpenAPI schema: valid, and every request body points at its own view's serializer."""

from __future__ import annotations

import pytest
import yaml
from django.core.management import call_command

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def schema(tmp_path_factory: pytest.TempPathFactory) -> dict:
    path = tmp_path_factory.mktemp("schema") / "schema.yml"
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(path))
    return yaml.safe_load(path.read_text())


def test_no_two_views_share_an_input_or_output_component(schema: dict) -> None:
    names = set(schema["components"]["schemas"])
    assert not names & {"Input", "Output"}


def test_the_scorer_training_request_is_its_own_serializer(schema: dict) -> None:
    body = schema["paths"]["/api/scorers/train/"]["post"]["requestBody"]
    ref = body["content"]["application/json"]["schema"]["$ref"]
    assert ref == "#/components/schemas/ScorerTrainJobApiInput"
    fields = schema["components"]["schemas"]["ScorerTrainJobApiInput"]["properties"]
    assert "kind" in fields


def test_sending_a_pair_back_to_waiting_is_documented_with_its_conflict(schema: dict) -> None:
    operation = schema["paths"]["/api/pairs/{pair_id}/gold/clear/"]["post"]
    body = operation["requestBody"]["content"]["application/json"]["schema"]
    assert body["$ref"] == "#/components/schemas/GoldClearApiInput"
    assert schema["components"]["schemas"]["GoldClearApiInput"]["required"] == ["version"]
    assert "stale_version" in operation["responses"]["409"]["description"]
    output = schema["components"]["schemas"]["GoldClearApiOutput"]["properties"]
    assert {"changed", "cleared_version", "version", "status"} <= set(output)


def _request_schemas(schema: dict) -> list[tuple[str, dict]]:
    """(where, JSON schema) of every request body and query parameter."""
    found = []
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            for parameter in operation.get("parameters", []):
                found.append((f"{method} {path} ?{parameter['name']}", parameter["schema"]))
            for media, body in operation.get("requestBody", {}).get("content", {}).items():
                found.append((f"{method} {path} {media}", body["schema"]))
    return found


def _numbers(where: str, node: dict, components: dict, seen: frozenset = frozenset()) -> list:
    """(where, schema) of every integer or number inside ``node``."""
    if "$ref" in node:
        name = node["$ref"].rsplit("/", 1)[-1]
        if name in seen:
            return []
        return _numbers(f"{where} {name}", components[name], components, seen | {name})
    out = []
    if node.get("type") in ("integer", "number"):
        out.append((where, node))
    for key, child in node.get("properties", {}).items():
        out += _numbers(f"{where}.{key}", child, components, seen)
    for key in ("items", "additionalProperties"):
        if isinstance(node.get(key), dict):
            out += _numbers(f"{where}[]", node[key], components, seen)
    for key in ("allOf", "oneOf", "anyOf"):
        for child in node.get(key, []):
            out += _numbers(where, child, components, seen)
    return out


def test_every_number_a_request_takes_has_a_minimum_and_a_maximum(schema: dict) -> None:
    """An unbounded number (a seed of -1, a count of 10**30) reaches a service unchecked."""
    components = schema["components"]["schemas"]
    numbers = [
        found
        for where, node in _request_schemas(schema)
        for found in _numbers(where, node, components)
    ]
    assert len(numbers) >= 10
    unbounded = [where for where, node in numbers if "minimum" not in node or "maximum" not in node]
    assert not unbounded


def test_every_operation_documents_the_error_shape_of_its_refusals(schema: dict) -> None:
    error = {"$ref": "#/components/schemas/Error"}
    assert schema["components"]["schemas"]["Error"]["required"] == ["error"]
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            responses = operation["responses"]
            expected = {"401", "403", "429"} | ({"404"} if "{" in path else set())
            assert expected <= set(responses), (method, path)
            for code in expected:
                assert responses[code]["content"]["application/json"]["schema"] == error
    assert "400" in schema["paths"]["/api/corpora/create/"]["post"]["responses"]


def test_the_codes_and_media_types_the_schema_names_are_those_answered(schema: dict) -> None:
    paths = schema["paths"]
    assert set(paths["/api/corpora/create/"]["post"]["responses"]) >= {"201"}
    assert "200" not in paths["/api/corpora/create/"]["post"]["responses"]
    download = paths["/api/jobs/{job_id}/download/"]["get"]["responses"]["200"]["content"]
    assert {"application/zip", "text/tab-separated-values", "application/x-ndjson"} <= set(download)
