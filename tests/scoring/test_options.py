"""Typed options (scoring.options): types, constraints, JSON and command-line forms."""

from __future__ import annotations

from dataclasses import FrozenInstanceError, dataclass
from typing import ClassVar

import pytest

from scoring.errors import OptionsError
from scoring.options import Choices, Interval, Options, options_help


@dataclass(frozen=True, slots=True)
class Sample(Options):
    owner: ClassVar[str] = "the sample"
    constraints: ClassVar[dict[str, Interval | Choices]] = {
        "rate": Interval(0, 1, closed="right"),
        "count": Interval(1, None),
        "mode": Choices(("fast", "exact")),
        "grid": Interval(0, None, closed="neither"),
    }
    max_items: ClassVar[dict[str, int]] = {"grid": 3}
    paths: ClassVar[frozenset[str]] = frozenset({"table"})

    rate: float = 0.5
    count: int = 3
    mode: str = "fast"
    flag: bool = False
    grid: tuple[float, ...] = (1.0, 10.0)
    table: str | None = None
    limit: int | None = None

    def check(self) -> None:
        if self.mode == "exact" and self.count > 5:
            raise self.invalid("mode 'exact' takes at most 5", option="count", value=self.count)


def test_defaults_are_valid_and_options_are_frozen() -> None:
    sample = Sample()
    with pytest.raises(FrozenInstanceError):
        sample.rate = 0.2  # type: ignore[misc]


@pytest.mark.parametrize(
    ("given", "message"),
    [
        ({"rate": 0.0}, r"option 'rate' of the sample must be in \(0, 1\], got 0.0"),
        ({"rate": 1.5}, r"must be in \(0, 1\], got 1.5"),
        ({"rate": float("nan")}, "option 'rate' of the sample must be a finite number, got nan"),
        ({"rate": "high"}, "must be a finite number, got 'high'"),
        ({"count": 0}, "option 'count' of the sample must be ≥ 1, got 0"),
        ({"count": 2.0}, "option 'count' of the sample must be an int, got 2.0"),
        ({"count": True}, "must be an int, got True"),
        ({"mode": "slow"}, "option 'mode' of the sample must be one of fast, exact, got 'slow'"),
        ({"flag": 1}, "option 'flag' of the sample must be a bool, got 1"),
        ({"grid": (1.0, 0.0)}, r"'grid' .* a non-empty list, each > 0, got \[1.0, 0.0\]"),
        ({"grid": ()}, "'grid' .* a non-empty list"),
        (
            {"grid": (1.0, 2.0, 3.0, 4.0)},
            "option 'grid' of the sample takes at most 3 values, got 4",
        ),
        ({"grid": "1,2"}, "option 'grid' of the sample must be a list of floats"),
        ({"table": 3}, "option 'table' of the sample must be a path or None, got 3"),
        ({"limit": "x"}, "option 'limit' of the sample must be an int or None"),
        ({"mode": "exact", "count": 9}, "the sample: mode 'exact' takes at most 5"),
    ],
)
def test_a_bad_value_is_refused_naming_the_option_the_value_and_what_is_allowed(
    given: dict[str, object], message: str
) -> None:
    with pytest.raises(OptionsError, match=message) as error:
        Sample(**given)  # type: ignore[arg-type]
    assert error.value.option == next(iter(given)) or error.value.option == "count"


def test_json_values_are_coerced_to_the_options_types() -> None:
    sample = Sample.from_dict({"rate": 1, "grid": [2, 3.5], "limit": None})
    assert sample.rate == 1.0 and isinstance(sample.rate, float)
    assert sample.grid == (2.0, 3.5)
    assert sample.to_dict() == {
        "rate": 1.0,
        "count": 3,
        "mode": "fast",
        "flag": False,
        "grid": [2.0, 3.5],
        "table": None,
        "limit": None,
    }
    assert Sample.from_dict(sample.to_dict()) == sample


def test_an_unknown_key_is_refused_listing_the_known_ones_unless_dropped() -> None:
    with pytest.raises(OptionsError, match="unknown option 'colour' for the sample; known"):
        Sample.from_dict({"colour": "red"})
    with pytest.raises(OptionsError) as error:
        Sample.from_dict({"colour": "red"})
    assert all(name in str(error.value) for name in Sample.names())
    assert Sample.from_dict({"colour": "red", "count": 4}, unknown="drop") == Sample(count=4)
    with pytest.raises(OptionsError, match="must be an object"):
        Sample.from_dict(["count", 4])  # type: ignore[arg-type]


def test_command_line_strings_are_read_as_each_options_type() -> None:
    sample = Sample.from_strings(
        ["rate=0.25", "count=4", "flag=yes", "grid=1,2.5", "table=none", "limit=7"]
    )
    assert sample == Sample(rate=0.25, count=4, flag=True, grid=(1.0, 2.5), limit=7)
    assert Sample.from_strings(["grid=[3, 4]", "table=t.tsv"]).grid == (3.0, 4.0)
    with pytest.raises(OptionsError, match="'count' of the sample must be an int, got 'four'"):
        Sample.from_strings(["count=four"])
    with pytest.raises(OptionsError, match="'flag' of the sample must be a bool, got 'maybe'"):
        Sample.from_strings(["flag=maybe"])
    with pytest.raises(OptionsError, match="'x' is not KEY=VALUE"):
        Sample.from_strings(["x"])


def test_a_list_option_of_one_value_on_the_command_line_is_a_list_of_one() -> None:
    assert Sample.from_strings(["grid=2"]).grid == (2.0,)
    assert Sample.from_strings(["grid=2.5"]).grid == (2.5,)
    assert Sample.from_strings(["grid=[2]"]).grid == (2.0,)
    with pytest.raises(OptionsError, match="'grid' of the sample must be a list of floats"):
        Sample.from_strings(['grid={"a": 1}'])


def test_describe_lists_every_option_with_its_type_default_and_allowed_values() -> None:
    specs = {spec.name: spec for spec in Sample.describe()}
    assert list(specs) == list(Sample.names())
    assert specs["rate"].type == "float" and specs["rate"].allowed == "in (0, 1]"
    assert specs["mode"].choices == ("fast", "exact")
    assert specs["grid"].type == "list of float" and specs["grid"].to_dict()["default"] == [
        1.0,
        10.0,
    ]
    assert specs["grid"].allowed == "> 0, at most 3 values"
    assert specs["table"].path and not specs["limit"].path
    assert "  count=int (default 3; ≥ 1)" in options_help({"s": Sample}, what="thing")


@pytest.mark.parametrize(
    ("interval", "inside", "outside"),
    [
        (Interval(0, 1), [0, 0.5, 1], [-0.1, 1.1, float("inf")]),
        (Interval(0, 1, closed="neither"), [0.5], [0, 1]),
        (Interval(0, 1, closed="left"), [0], [1]),
        (Interval(None, 2), [-5, 2], [2.5]),
    ],
)
def test_an_interval_holds_its_closed_ends_and_never_a_non_number(
    interval: Interval, inside: list[float], outside: list[float]
) -> None:
    assert all(interval.holds(v) for v in inside)
    assert not any(interval.holds(v) for v in outside)
    assert not interval.holds(True) and not interval.holds("1")
