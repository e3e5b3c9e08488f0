"""Typed options of the aligners and scorers: frozen dataclasses with declared constraints.

In the manner of scikit-learn's explicit estimator parameters and their
``_parameter_constraints``, every aligner and scorer declares its options once, as a frozen
dataclass deriving from :class:`Options`: each field is an option, its annotation the type
(``bool``, ``int``, ``float``, ``str``, ``str | None`` for a file path, ``tuple[float, ...]``
or ``tuple[str, ...]`` for a list), its default the default, and ``constraints`` maps an option
to the :class:`Interval` or :class:`Choices` its value must satisfy. Every number has both
ends: a request from the web names its options, so an unbounded one (``trees=10**9``) would hold
a worker until the job's time limit; each upper end is chosen so that any allowed value is a
sane request (generous, but within what a two-core worker trains on a few thousand pairs well
inside that limit). A list of numbers also has a most number of values (``max_items``). Building
an instance checks every value and raises :class:`~scoring.errors.OptionsError` naming the
option, the value and what is allowed; :meth:`Options.check` adds rules that join several
options. The upper ends limit what a training may be asked: options read back from a saved
model inside :func:`saved_options` keep values beyond them, so a model trained before a bound
was set still loads.

Options arrive as JSON objects (a web job's parameters, a saved model's header) through
:meth:`Options.from_dict`, which refuses an unknown key with the list of known ones, or as
``KEY=VALUE`` strings from a command line through :meth:`Options.from_strings`. The web app and
the CLI list what an aligner or scorer accepts with :meth:`Options.describe`.
"""

from __future__ import annotations

import json
import math
import types
import typing
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any, ClassVar, Literal, Self

from scoring.errors import OptionsError


@dataclass(frozen=True, slots=True)
class Interval:
    """A number between ``low`` and ``high`` (``None``: unbounded), each end ``closed`` or not.
    Infinite and NaN values never satisfy an interval."""

    low: float | None = None
    high: float | None = None
    closed: Literal["both", "left", "right", "neither"] = "both"

    def holds(self, value: object) -> bool:
        if isinstance(value, bool) or not isinstance(value, int | float):
            return False
        if not math.isfinite(value):
            return False
        low, high = self.low, self.high
        if low is not None and (
            value < low or (value == low and self.closed in ("right", "neither"))
        ):
            return False
        return not (
            high is not None
            and (value > high or (value == high and self.closed in ("left", "neither")))
        )

    def __str__(self) -> str:
        left_closed = self.closed in ("both", "left")
        right_closed = self.closed in ("both", "right")
        if self.low is None and self.high is None:
            return "a finite number"
        if self.high is None:
            return f"{'≥' if left_closed else '>'} {_number(self.low)}"
        if self.low is None:
            return f"{'≤' if right_closed else '<'} {_number(self.high)}"
        return (
            f"in {'[' if left_closed else '('}{_number(self.low)}, {_number(self.high)}"
            f"{']' if right_closed else ')'}"
        )


@dataclass(frozen=True, slots=True)
class Choices:
    """One of a few values (words)."""

    values: tuple[str, ...]

    def holds(self, value: object) -> bool:
        return value in self.values

    def __str__(self) -> str:
        return f"one of {', '.join(self.values)}"


Constraint = Interval | Choices

_SAVED: ContextVar[bool] = ContextVar("scoring_options_saved", default=False)


@contextmanager
def saved_options() -> Iterator[None]:
    """Inside this block options are those of a saved model: upper ends and ``max_items`` are
    not checked (types, lower ends and choices are)."""
    token = _SAVED.set(True)
    try:
        yield
    finally:
        _SAVED.reset(token)


def upper_bounds_apply() -> bool:
    """False inside :func:`saved_options`; for :meth:`Options.check` rules that are upper
    bounds."""
    return not _SAVED.get()


#: The largest seed an option takes: scikit-learn's ``random_state`` takes ``0 … 2**32 − 1``.
MAX_SEED = 2**32 - 1
SEED = Interval(0, MAX_SEED)


def _number(value: float | None) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


@dataclass(frozen=True, slots=True)
class OptionSpec:
    """What :meth:`Options.describe` says of one option."""

    name: str
    type: str
    default: Any
    choices: tuple[str, ...]
    allowed: str
    path: bool

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "type": self.type,
            "default": list(self.default) if isinstance(self.default, tuple) else self.default,
            "choices": list(self.choices),
            "allowed": self.allowed,
            "path": self.path,
        }


#: The type names :meth:`Options.describe` gives (and the web app's forms read).
_TYPE_NAMES = {bool: "bool", int: "int", float: "float", str: "str"}
_ARTICLES = {"bool": "a bool", "int": "an int", "float": "a finite number", "str": "a string"}


class Options:
    """Base of the options dataclasses. Subclasses are ``@dataclass(frozen=True, slots=True)``
    and set ``owner`` (how messages name what the options belong to, e.g. ``"aligner 'em'"``),
    ``constraints``, ``max_items`` (the most values a list option takes) and ``paths`` (options
    naming a file, type ``str | None``)."""

    __slots__ = ()

    owner: ClassVar[str] = "options"
    constraints: ClassVar[Mapping[str, Constraint]] = {}
    max_items: ClassVar[Mapping[str, int]] = {}
    paths: ClassVar[frozenset[str]] = frozenset()

    def __post_init__(self) -> None:
        hints = field_types(type(self))
        bounded = upper_bounds_apply()
        for item in fields(self):  # type: ignore[arg-type]
            value = _coerced(self, item.name, getattr(self, item.name), hints[item.name])
            object.__setattr__(self, item.name, value)
            most = self.max_items.get(item.name) if bounded else None
            if isinstance(value, tuple) and most is not None and len(value) > most:
                raise OptionsError(
                    f"option {item.name!r} of {self.owner} takes at most {most} values, got "
                    f"{len(value):,}",
                    option=item.name,
                    value=list(value),
                )
            constraint = self.constraints.get(item.name)
            if constraint is None or value is None:
                continue
            if not bounded and isinstance(constraint, Interval):
                constraint = replace(constraint, high=None)
            if isinstance(value, tuple):
                if not value or not all(constraint.holds(v) for v in value):
                    raise OptionsError(
                        f"option {item.name!r} of {self.owner} must be a non-empty list, each "
                        f"{constraint}, got {list(value)!r}",
                        option=item.name,
                        value=list(value),
                    )
            elif not constraint.holds(value):
                raise OptionsError(
                    f"option {item.name!r} of {self.owner} must be {constraint}, got {value!r}",
                    option=item.name,
                    value=value,
                )
        self.check()

    def check(self) -> None:
        """Rules that join several options (raise :meth:`invalid`), and normal forms (set with
        ``object.__setattr__``); for subclasses."""

    def invalid(self, message: str, *, option: str = "", value: object = None) -> OptionsError:
        """An :class:`OptionsError` for a rule of :meth:`check`, prefixed by the owner."""
        return OptionsError(f"{self.owner}: {message}", option=option, value=value)

    # --- JSON ---------------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """Every option by name, JSON-safe (tuples as lists)."""
        return {
            item.name: _json_value(getattr(self, item.name))
            for item in fields(self)  # type: ignore[arg-type]
        }

    @classmethod
    def names(cls) -> tuple[str, ...]:
        return tuple(item.name for item in fields(cls))  # type: ignore[arg-type]

    @classmethod
    def from_dict(
        cls, data: Mapping[str, Any], *, unknown: Literal["error", "drop"] = "error"
    ) -> Self:
        """Options from a JSON object; missing keys take their defaults. An unknown key is an
        :class:`OptionsError` listing the known ones (``unknown="drop"`` leaves it out: a saved
        model's options, where a key this version does not know never had an effect)."""
        if not isinstance(data, Mapping):
            raise OptionsError(f"the options of {cls.owner} must be an object, got {data!r}")
        known = cls.names()
        given: dict[str, Any] = {}
        for key, value in data.items():
            if key not in known:
                if unknown == "drop":
                    continue
                raise OptionsError(
                    f"unknown option {key!r} for {cls.owner}; known options: "
                    f"{', '.join(sorted(known))}",
                    option=str(key),
                    value=value,
                )
            given[key] = value
        return cls(**given)

    @classmethod
    def from_strings(cls, items: Sequence[str]) -> Self:
        """Options from ``KEY=VALUE`` strings (a command line): ``-`` in a key reads as ``_``,
        each value is read as its option's type (a list as JSON or comma-separated, a path as
        text, ``none`` for no path)."""
        hints = field_types(cls)
        given: dict[str, Any] = {}
        for item in items:
            key, sep, text = item.partition("=")
            key = key.strip().replace("-", "_")
            if not sep or not key:
                raise OptionsError(f"option {item!r} is not KEY=VALUE")
            if key not in hints:
                given[key] = text  # refused with the known options by from_dict
                continue
            given[key] = _parse_text(cls, key, text.strip(), hints[key])
        return cls.from_dict(given)

    @classmethod
    def describe(cls) -> list[OptionSpec]:
        """Every option: name, type name, default, choices, allowed range and whether it
        names a file."""
        hints = field_types(cls)
        out = []
        defaults = cls()
        for item in fields(cls):  # type: ignore[arg-type]
            constraint = cls.constraints.get(item.name)
            allowed = [str(constraint)] if constraint is not None else []
            if item.name in cls.max_items:
                allowed.append(f"at most {cls.max_items[item.name]} values")
            out.append(
                OptionSpec(
                    name=item.name,
                    type=_type_name(hints[item.name]),
                    default=getattr(defaults, item.name),
                    choices=constraint.values if isinstance(constraint, Choices) else (),
                    allowed=", ".join(allowed),
                    path=item.name in cls.paths,
                )
            )
        return out


def options_help(classes: Mapping[str, type[Options]], *, what: str) -> str:
    """Text listing each named options class's options (``name=type (default …; allowed …)``),
    for a command line's help."""
    lines = []
    for name, cls in classes.items():
        lines.append(f"options of {what} {name!r}:")
        for spec in cls.describe():
            default = list(spec.default) if isinstance(spec.default, tuple) else spec.default
            allowed = f"; {spec.allowed}" if spec.allowed else ""
            path = "; a file path" if spec.path else ""
            lines.append(f"  {spec.name}={spec.type} (default {default}{allowed}{path})")
    return "\n".join(lines)


# --- types ---------------------------------------------------------------------------------------

_HINTS: dict[type, dict[str, Any]] = {}


def field_types(cls: type) -> dict[str, Any]:
    """The resolved type of every annotated attribute of a class (cached)."""
    hints = _HINTS.get(cls)
    if hints is None:
        hints = typing.get_type_hints(cls)
        _HINTS[cls] = hints
    return hints


def _optional(hint: Any) -> tuple[Any, bool]:
    """``(inner type, accepts None)`` of ``X | None``; other hints unchanged."""
    if isinstance(hint, types.UnionType) or typing.get_origin(hint) is typing.Union:
        args = [a for a in typing.get_args(hint) if a is not type(None)]
        if len(args) == 1:
            return args[0], True
    return hint, False


def _type_name(hint: Any) -> str:
    inner, _ = _optional(hint)
    if typing.get_origin(inner) is tuple:
        return f"list of {_TYPE_NAMES.get(typing.get_args(inner)[0], 'value')}"
    return _TYPE_NAMES.get(inner, getattr(inner, "__name__", str(inner)))


def _wrong_type(
    options: Options | type[Options], name: str, value: object, hint: Any
) -> OptionsError:
    inner, nullable = _optional(hint)
    if nullable and name in options.paths:
        wanted = "a path or None"
    elif typing.get_origin(inner) is tuple:
        wanted = f"a list of {_type_name(typing.get_args(inner)[0])}s"
    else:
        wanted = _ARTICLES.get(_type_name(inner), f"a {_type_name(inner)}")
        if nullable:
            wanted += " or None"
    return OptionsError(
        f"option {name!r} of {options.owner} must be {wanted}, got {value!r}",
        option=name,
        value=value,
    )


def _scalar(value: object, kind: Any) -> tuple[bool, object]:
    """``(ok, coerced)``: an int is accepted as a float (JSON writes 5.0 as 5), a bool is
    never a number, a float must be finite."""
    if kind is bool:
        return isinstance(value, bool), value
    if kind is int:
        return isinstance(value, int) and not isinstance(value, bool), value
    if kind is float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            return False, value
        return math.isfinite(value), float(value)
    if kind is str:
        return isinstance(value, str), value
    return isinstance(value, kind), value


def _coerced(options: Options, name: str, value: object, hint: Any) -> object:
    inner, nullable = _optional(hint)
    if value is None:
        if nullable:
            return None
        raise _wrong_type(options, name, value, hint)
    if nullable and name in options.paths and isinstance(value, Path):
        return str(value)
    if typing.get_origin(inner) is tuple:
        if isinstance(value, str | bytes) or not isinstance(value, Sequence):
            raise _wrong_type(options, name, value, hint)
        kind = typing.get_args(inner)[0]
        out = []
        for item in value:
            ok, coerced = _scalar(item, kind)
            if not ok:
                raise _wrong_type(options, name, value, hint)
            out.append(coerced)
        return tuple(out)
    ok, coerced = _scalar(value, inner)
    if not ok:
        raise _wrong_type(options, name, value, hint)
    return coerced


_TRUE = ("1", "true", "yes", "on")
_FALSE = ("0", "false", "no", "off")


def _parse_text(cls: type[Options], name: str, text: str, hint: Any) -> object:
    """One command-line value read as its option's type; a text that is not one is kept and
    refused with the option's type by the dataclass."""
    inner, nullable = _optional(hint)
    if nullable and text.lower() in ("", "none"):
        return None
    if typing.get_origin(inner) is tuple:
        kind = typing.get_args(inner)[0]
        try:
            parsed = json.loads(text)
        except json.JSONDecodeError:
            parsed = [part.strip() for part in text.split(",") if part.strip()]
        if isinstance(parsed, (int, float, str)):
            # One value without a comma (``gamma_factors=1``) is a list of one, as ``1,2`` is
            # a list of two; JSON alone would read it as a bare number.
            parsed = [parsed]
        if isinstance(parsed, list):
            return [
                _parse_text(cls, name, str(v), kind) if isinstance(v, str) else v for v in parsed
            ]
        return parsed
    lowered = text.lower()
    try:
        if inner is bool:
            if lowered in _TRUE:
                return True
            if lowered in _FALSE:
                return False
            return text
        if inner is int:
            return int(text)
        if inner is float:
            return float(text)
    except ValueError:
        return text
    return text


def _json_value(value: object) -> object:
    return list(value) if isinstance(value, tuple) else value
