"""Typed result records: frozen dataclasses that are JSON objects.

A result that leaves :mod:`scoring` as JSON (an agreement report stored as a job's result, an
evaluation) is a frozen dataclass deriving from :class:`Record`. Its fields are JSON values,
other records, or values whose class has ``to_dict`` / ``from_dict`` (``Scores``,
``EditModel``, ``AgreementParams``), in ``list``, ``tuple`` and ``dict[str, …]`` containers.
:meth:`Record.to_dict` is the one JSON form (field order kept); :meth:`Record.from_dict` reads
it back, checking each value against its field's type, and raises
:class:`~scoring.errors.FormatError` naming the path of the field at fault
(``annotator_pairs[0].table3.overall.pairs``), so a stored result is read as typed records
again.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Mapping
from dataclasses import MISSING, fields
from typing import Any, Self

from scoring.errors import FormatError, ScoringError
from scoring.options import field_types


class Record:
    """Base of the result records (subclasses are ``@dataclass(frozen=True, slots=True)``)."""

    __slots__ = ()

    def to_dict(self) -> dict[str, Any]:
        """The record as a JSON object: every field, records and containers converted."""
        return {
            item.name: encode(getattr(self, item.name))
            for item in fields(self)  # type: ignore[arg-type]
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], *, where: str = "") -> Self:
        """The record :meth:`to_dict` gave; keys it does not know are ignored, a missing key
        takes the field's default (or is an error)."""
        if not isinstance(data, Mapping):
            raise FormatError(f"expected an object, got {data!r}", field=where or None)
        hints = field_types(cls)
        values: dict[str, Any] = {}
        for item in fields(cls):  # type: ignore[arg-type]
            path = f"{where}.{item.name}" if where else item.name
            if item.name not in data:
                if item.default is MISSING and item.default_factory is MISSING:
                    raise FormatError("missing", field=path)
                continue
            values[item.name] = decode(hints[item.name], data[item.name], path)
        return cls(**values)


def encode(value: Any) -> Any:
    """``value`` as JSON: ``to_dict()`` of objects that have it, containers item by item."""
    if hasattr(value, "to_dict"):
        return value.to_dict()
    if isinstance(value, Mapping):
        return {str(key): encode(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [encode(item) for item in value]
    return value


def decode(hint: Any, value: Any, where: str) -> Any:
    """``value`` (JSON) as type ``hint``; :class:`FormatError` naming ``where`` otherwise."""
    if hint is Any or hint is object:
        return value
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if isinstance(hint, types.UnionType) or origin is typing.Union:
        if value is None and type(None) in args:
            return None
        inner = [a for a in args if a is not type(None)]
        if len(inner) == 1:
            return decode(inner[0], value, where)
        raise FormatError(f"cannot read a value of type {hint}", field=where)
    if origin is dict or origin is Mapping:
        if not isinstance(value, Mapping):
            raise FormatError(f"expected an object, got {value!r}", field=where)
        return {str(k): decode(args[1], v, f"{where}.{k}") for k, v in value.items()}
    if origin is list or origin is tuple:
        if not isinstance(value, list | tuple):
            raise FormatError(f"expected a list, got {value!r}", field=where)
        items = [decode(args[0], v, f"{where}[{k}]") for k, v in enumerate(value)]
        return items if origin is list else tuple(items)
    if isinstance(hint, type) and issubclass(hint, Record):
        return hint.from_dict(value, where=where)
    if isinstance(hint, type) and hasattr(hint, "from_dict"):
        if not isinstance(value, Mapping):
            raise FormatError(f"expected an object, got {value!r}", field=where)
        try:
            return hint.from_dict(value)
        except ScoringError as error:
            raise FormatError(str(error), field=where) from None
        except (KeyError, TypeError, ValueError) as error:
            raise FormatError(f"malformed: {error!r}", field=where) from None
    return _scalar(hint, value, where)


def _scalar(hint: Any, value: Any, where: str) -> Any:
    if hint is bool:
        ok = isinstance(value, bool)
    elif hint is int:
        ok = isinstance(value, int) and not isinstance(value, bool)
    elif hint is float:
        ok = isinstance(value, int | float) and not isinstance(value, bool)
        value = float(value) if ok else value
    elif hint is str:
        ok = isinstance(value, str)
    else:
        raise FormatError(f"cannot read a value of type {hint}", field=where)
    if not ok:
        raise FormatError(f"expected {hint.__name__}, got {value!r}", field=where)
    return value
