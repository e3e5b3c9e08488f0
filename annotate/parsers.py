"""Request body parsers of the API: JSON with bounds on nesting and on the number of values.

Python's JSON decoder recurses once per level of nesting, so a body of a few kilobytes of
``[[[[…`` exhausts the interpreter's stack (a ``RecursionError``, answered 500), and a nested
value that does parse still costs every later step (validation, storage) a recursion. No body
the API accepts nests deeper than a few levels (a link list ``[[i, j, "S"], …]`` is 2 deep, an
options object with a list of lists 3), so anything beyond :data:`MAX_JSON_DEPTH` is refused
with a 400 naming the limit.

Parsing is linear but not cheap: five megabytes of ``[],[],…`` are 1.7 million lists, about
two seconds of a web process to build and walk. No body the API accepts comes near
:data:`MAX_JSON_VALUES` values (a save holds at most 10,000 links of three values each), so
the raw body's commas, brackets and braces, a cheap upper bound on its values counted before
anything is parsed, are held to it.
"""

from __future__ import annotations

import io
from typing import Any

from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser

#: The deepest nesting of arrays and objects a JSON body may have (the body itself is level 1).
MAX_JSON_DEPTH = 64
#: The most commas, brackets and braces a JSON body may hold (inside strings too): an upper
#: bound on its values, far above any body the API accepts.
MAX_JSON_VALUES = 200_000


def json_values_bound(raw: bytes) -> int:
    """An upper bound on the values of a JSON text, counted without parsing it."""
    return raw.count(b",") + raw.count(b"[") + raw.count(b"{")


def json_depth_exceeds(value: Any, limit: int) -> bool:
    """Whether ``value`` (parsed JSON) nests arrays and objects more than ``limit`` deep.

    Iterative, so it cannot itself run out of stack; it stops at the first container found
    beyond the limit.
    """
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        children = item.values() if isinstance(item, dict) else item
        for child in children:
            if isinstance(child, dict | list):
                if depth + 1 > limit:
                    return True
                stack.append((child, depth + 1))
    return False


class BoundedJSONParser(JSONParser):
    """DRF's JSON parser, refusing bodies nested deeper than :data:`MAX_JSON_DEPTH` or with
    more than :data:`MAX_JSON_VALUES` values."""

    max_depth = MAX_JSON_DEPTH
    max_values = MAX_JSON_VALUES

    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        raw = stream.read() if stream is not None else b""
        if json_values_bound(raw) > self.max_values:
            raise ParseError(
                f"JSON with more than {self.max_values:,} values (commas, brackets and braces)"
            )
        message = f"JSON nested deeper than {self.max_depth} levels"
        try:
            data = super().parse(io.BytesIO(raw), media_type, parser_context)
        except RecursionError:
            raise ParseError(message) from None
        if isinstance(data, dict | list) and json_depth_exceeds(data, self.max_depth):
            raise ParseError(message)
        return data
