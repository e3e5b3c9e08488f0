"""The OpenAPI schema's error answers: every operation documents the API's one error shape
(``annotate.exceptions``) for the refusals any view may give, so that a client reading the
schema knows the body of a 400, 401, 403, 404 or 429 as it knows a 200's."""

from __future__ import annotations

from typing import Any

ERROR_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "error": {
            "type": "object",
            "properties": {
                "code": {"type": "string", "description": "invalid, not_found, conflict, …"},
                "message": {"type": "string"},
                "field": {
                    "type": "string",
                    "nullable": True,
                    "description": "The (first) field the request was refused for.",
                },
                "fields": {
                    "type": "object",
                    "additionalProperties": {},
                    "description": "Each refused field's problems (a 400 of invalid input).",
                },
            },
            "required": ["code", "message"],
        }
    },
    "required": ["error"],
}


def _error(description: str) -> dict[str, Any]:
    return {
        "description": description,
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
    }


def error_responses(
    result: dict[str, Any], generator: Any, request: Any, public: bool
) -> dict[str, Any]:
    """drf-spectacular's post-processing hook: the ``Error`` component, and the error
    answers each operation may give where the view documents none of its own."""
    result.setdefault("components", {}).setdefault("schemas", {})["Error"] = ERROR_SCHEMA
    for path, operations in result.get("paths", {}).items():
        for operation in operations.values():
            answers = {
                "401": "Not signed in: send ``Authorization: Token <key>`` (or a session).",
                "403": "Signed in without the role this operation needs.",
                "429": "Too many requests: wait the ``Retry-After`` seconds.",
            }
            if operation.get("requestBody") or operation.get("parameters"):
                answers["400"] = "Invalid input; ``field`` names the field."
            if "{" in path:
                answers["404"] = "No such object, or not one the user may see."
            responses = operation.setdefault("responses", {})
            for code, description in sorted(answers.items()):
                responses.setdefault(code, _error(description))
            for code, answer in responses.items():  # a view's own refusals without a body
                if code.startswith("4") and "content" not in answer:
                    answer.update(_error(answer.get("description", "")))
    return result
