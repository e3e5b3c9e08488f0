"""The server-drawn charts: every axis covers its data, with round ticks up to (and down to) the
first at or beyond the extreme values, and the bars and points sit on that scale."""

from __future__ import annotations

import itertools
import math

import pytest

from frontend.charts import BarChart, bar_chart, line_chart, ticks


@pytest.mark.parametrize(
    ("low", "high"),
    [(0, 29), (0, 20), (0, 1), (0, 7), (0, 12), (0, 999), (-0.37, 1.0), (0.0, 0.83), (-2.5, 0.1)],
)
def test_the_ticks_cover_the_range_in_round_steps(low: float, high: float) -> None:
    values = ticks(low, high)
    assert values[0] <= low and values[-1] >= high
    steps = {round(b - a, 9) for a, b in itertools.pairwise(values)}
    assert len(steps) == 1, values
    step = steps.pop()
    assert values[0] > low - step and values[-1] < high + step, "one tick beyond at most"
    mantissa = step / 10 ** math.floor(math.log10(step))
    assert round(mantissa, 6) in (1, 2, 2.5, 5)


def test_whole_number_ticks_step_by_whole_numbers() -> None:
    assert ticks(0, 29, integer=True) == [0, 10, 20, 30]
    assert ticks(0, 1, integer=True) == [0, 1]
    assert ticks(0, 3, integer=True) == [0, 1, 2, 3]
    assert ticks(0, 12, integer=True) == [0, 5, 10, 15]
    assert all(float(t).is_integer() for t in ticks(0, 13, integer=True))


def _bars(counts: list[int]) -> BarChart:
    return bar_chart(
        [(str(k), count) for k, count in enumerate(counts)], x_label="x", y_label="y", title="t"
    )


def test_the_bar_charts_axis_reaches_above_the_tallest_bar() -> None:
    chart = _bars([0, 6, 29, 1])
    labels = [tick.label for tick in chart.y_ticks]
    assert labels == ["0", "10", "20", "30"]
    top_tick = chart.y_ticks[-1].position
    tallest = min(bar.y for bar in chart.bars)
    assert top_tick <= tallest, "the tallest bar stays under the last labelled tick"
    frame = chart.frame
    assert top_tick == pytest.approx(frame.top)
    # a bar of 20 reaches the tick labelled 20 exactly
    twenty = next(t.position for t in chart.y_ticks if t.label == "20")
    assert _bars([20, 29]).bars[0].y == pytest.approx(twenty)


@pytest.mark.parametrize("tallest", [29, 8_000, 17_300, 250_000])
def test_the_longest_tick_label_ends_clear_of_the_y_axis_title(tallest: int) -> None:
    """On a 22,659-pair corpus the "annotators per pair" chart's "10000" and "15000" ran into
    its rotated "pairs" title: the left margin grows with the longest tick label. A label ends
    8 px left of the plot, its characters about 7 px wide (12 px type); the title, rotated
    about x = 14, reaches x = 22."""
    chart = _bars([0, tallest, 3])
    longest = max(len(tick.label) for tick in chart.y_ticks)
    assert chart.frame.left - 8 - 7 * longest >= 22
    assert chart.frame.left >= 56, "short labels keep the margin they had"


def test_a_bar_chart_of_nothing_still_has_an_axis_from_0_to_1() -> None:
    chart = _bars([0, 0])
    assert [tick.label for tick in chart.y_ticks] == ["0", "1"]


def test_the_line_charts_axis_covers_values_below_its_requested_minimum() -> None:
    chart = line_chart(
        [("a", ""), ("b", "")],
        [("c", [-0.37, 0.9], False)],
        x_label="x",
        y_label="y",
        title="t",
        y_min=-0.37,
        y_max=1.0,
    )
    labels = [tick.label for tick in chart.y_ticks]
    assert labels[0] == "-0.5" and labels[-1] == "1"
    lowest = max(point.y for point in chart.series[0].points)
    assert chart.y_ticks[0].position >= lowest, "the lowest point stays above the bottom tick"


def test_the_line_charts_axis_grows_to_values_beyond_its_bounds() -> None:
    chart = line_chart(
        [("a", ""), ("b", "")],
        [("c", [0.2, 1.7], False)],
        x_label="x",
        y_label="y",
        title="t",
    )
    assert float(chart.y_ticks[-1].label) >= 1.7
    assert chart.y_ticks[-1].position <= min(point.y for point in chart.series[0].points)
