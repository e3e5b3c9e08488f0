"""The template filters that print figures: durations."""

from __future__ import annotations

import pytest

from frontend.templatetags.figures import duration


@pytest.mark.parametrize(
    ("seconds", "shown"),
    [
        (None, "—"),
        (42.4, "42 s"),
        (59.6, "1 min 0 s"),
        (185, "3 min 5 s"),
        (179.6, "3 min 0 s"),
        (3599.7, "1 h 0 min"),
        (7170, "2 h 0 min"),
        (7800, "2 h 10 min"),
    ],
)
def test_it_rounds_a_duration_once_so_no_unit_reads_sixty(
    seconds: float | None, shown: str
) -> None:
    assert duration(seconds) == shown
