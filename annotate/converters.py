"""URL path converters, registered on import (once, whichever URL module comes first), and the
same rule for ids read from a query or a form."""

from __future__ import annotations

import re

from django.urls import register_converter

#: What a row id looks like in a path or a query: 1 to 18 ASCII digits (``str.isdigit`` also
#: takes ``²`` and other digits ``int`` refuses, and any length, which the database refuses).
ID_PATTERN = "[0-9]{1,18}"
_ID = re.compile(ID_PATTERN)


class IdConverter:
    """A row id in a path: 1 to 18 digits, so every id a database can hold matches and a longer
    number is a 404 rather than an integer overflow in the database driver."""

    regex = ID_PATTERN

    def to_python(self, value: str) -> int:
        return int(value)

    def to_url(self, value: int) -> str:
        return str(value)


def id_or_none(text: object) -> int | None:
    """The row id ``text`` spells (a query parameter, a form field), or None when it is not
    one: callers treat that as naming no row, as they do an id that matches none."""
    return int(text) if isinstance(text, str) and _ID.fullmatch(text) else None


register_converter(IdConverter, "id")
