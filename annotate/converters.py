"""URL path converters, registered on import (once, whichever URL module comes first)."""

from __future__ import annotations

from django.urls import register_converter


class IdConverter:
    """A row id in a path: 1 to 18 digits, so every id a database can hold matches and a longer
    number is a 404 rather than an integer overflow in the database driver."""

    regex = "[0-9]{1,18}"

    def to_python(self, value: str) -> int:
        return int(value)

    def to_url(self, value: int) -> str:
        return str(value)


register_converter(IdConverter, "id")
