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
