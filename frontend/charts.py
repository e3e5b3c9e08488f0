"""Charts drawn on the server as SVG: a bar chart (a histogram of pairs) and a line chart
(agreement by length, the paper's Figure 4).

This module computes every coordinate; ``frontend/_charts.html`` only writes them out, so a
chart is plain markup under the strict Content-Security-Policy (no script, no style attribute:
colours, dashes and markers are classes of ``app.css``). Series differ in colour (Okabe & Ito's
colour-blind safe palette), in dash pattern and in marker shape, so they survive greyscale and
every kind of colour blindness; undefined values leave a gap instead of a point at 0.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

#: Marker shapes in series order, after colour and dash the third way series differ.
MARKERS = ("circle", "square", "triangle", "diamond")


def ticks(low: float, high: float, count: int = 5, *, integer: bool = False) -> list[float]:
    """Round values from at or below ``low`` to at or above ``high`` in about ``count`` steps of
    1, 2, 2.5 or 5 × 10^k (whole steps of 1, 2 or 5 × 10^k when ``integer``): the first and the
    last tick are the ends of an axis that covers every value in ``[low, high]``."""
    if not high > low:
        return [low]
    raw = (high - low) / count
    magnitude = 10 ** math.floor(math.log10(raw))
    steps = (1, 2, 5, 10) if integer else (1, 2, 2.5, 5, 10)
    step = next(m * magnitude for m in steps if m * magnitude >= raw)
    if integer:
        step = max(1, round(step))
    first = math.floor(low / step + 1e-9)
    last = math.ceil(high / step - 1e-9)
    return [round(k * step, 10) for k in range(first, last + 1)]


def _tick_label(value: float) -> str:
    return f"{value:g}"


#: The y axis's title is drawn rotated with its middle this far from the left edge, and takes
#: about this much room right of it; a tick label ends this far left of the plot, and each of
#: its characters is about this wide (the charts' 12 px type).
Y_TITLE_X, Y_TITLE_HALF, TICK_GAP, CHAR_WIDTH = 14, 8, 8, 7.5


def _left_margin(labels: Sequence[str], least: int = 56) -> int:
    """Room left of the plot for the y axis's title and its longest tick label: at a fixed
    56 px, a five-digit count ("15000" pairs on a corpus of 20,000) ran into the title."""
    longest = max((len(label) for label in labels), default=0)
    needed = Y_TITLE_X + Y_TITLE_HALF + 4 + longest * CHAR_WIDTH + TICK_GAP
    return max(least, math.ceil(needed))


@dataclass(frozen=True)
class Tick:
    position: float
    label: str


@dataclass(frozen=True)
class Frame:
    """The plot area inside a ``width`` × ``height`` view box, and the axes' labels."""

    width: int
    height: int
    left: int
    top: int
    right: int
    bottom: int
    x_label: str
    y_label: str
    title: str

    @property
    def plot_width(self) -> float:
        return self.width - self.left - self.right

    @property
    def plot_height(self) -> float:
        return self.height - self.top - self.bottom

    @property
    def x_axis_y(self) -> float:
        return self.top + self.plot_height

    @property
    def x_label_x(self) -> float:
        return self.left + self.plot_width / 2

    @property
    def y_label_y(self) -> float:
        return self.top + self.plot_height / 2

    @property
    def right_edge(self) -> float:
        return self.left + self.plot_width


@dataclass(frozen=True)
class Bar:
    x: float
    y: float
    width: float
    height: float
    label: str
    count: int
    label_x: float
    show_label: bool


@dataclass(frozen=True)
class BarChart:
    frame: Frame
    bars: list[Bar]
    y_ticks: list[Tick]
    x_label_y: float


def bar_chart(
    bins: Sequence[tuple[str, int]],
    *,
    x_label: str,
    y_label: str,
    title: str,
    width: int = 640,
    height: int = 260,
) -> BarChart:
    """Bars of ``(label, count)`` bins, a y axis from 0 with whole-number ticks up to the
    first tick at or above the tallest bar."""
    scale = ticks(0, max([1, *(count for _, count in bins)]), integer=True)
    left = _left_margin([_tick_label(t) for t in scale])
    frame = Frame(width, height, left, 12, 12, 48, x_label, y_label, title)
    top = scale[-1]

    def y_at(value: float) -> float:
        return frame.top + frame.plot_height - value / top * frame.plot_height

    slot = frame.plot_width / max(len(bins), 1)
    every = math.ceil(len(bins) / 12) if bins else 1
    bar_width = min(max(slot - 2, 1), 96)  # a few bins do not make slabs
    bars = [
        Bar(
            x=frame.left + k * slot + (slot - bar_width) / 2,
            y=y_at(count),
            width=bar_width,
            height=frame.x_axis_y - y_at(count),
            label=label,
            count=count,
            label_x=frame.left + k * slot + slot / 2,
            show_label=k % every == 0,
        )
        for k, (label, count) in enumerate(bins)
    ]
    y_ticks = [Tick(y_at(t), _tick_label(t)) for t in scale]
    return BarChart(frame=frame, bars=bars, y_ticks=y_ticks, x_label_y=frame.x_axis_y + 18)


@dataclass(frozen=True)
class Point:
    x: float
    y: float
    category: str
    value: float


@dataclass(frozen=True)
class Series:
    """One line: its name, the number of its style (``s1``…), its marker, dashed or not, and
    its points; ``runs`` are the stretches between undefined values, drawn as polylines."""

    name: str
    css: str
    marker: str
    dashed: bool
    points: list[Point]
    runs: list[str] = field(default_factory=list)

    @property
    def line_class(self) -> str:
        return f"line {self.css}{' dash' if self.dashed else ''}"


@dataclass(frozen=True)
class Category:
    label: str
    x: float
    note: str


@dataclass(frozen=True)
class LineChart:
    frame: Frame
    series: list[Series]
    categories: list[Category]
    y_ticks: list[Tick]
    category_label_y: float
    note_label_y: float


def line_chart(
    categories: Sequence[tuple[str, str]],
    series: Sequence[tuple[str, Sequence[float | None], bool]],
    *,
    x_label: str,
    y_label: str,
    title: str,
    y_min: float | None = None,
    y_max: float | None = None,
    width: int = 720,
    height: int = 340,
) -> LineChart:
    """Lines over ``categories`` (label, a note under it such as the pairs of a bin); each
    series is ``(name, one value or None per category, dashed)``. The y axis runs from round
    ticks at or beyond ``y_min`` and ``y_max`` (0 and 1 when not given), further when a value
    lies outside them."""
    values = [v for _, points, _ in series for v in points if v is not None and math.isfinite(v)]
    scale = ticks(
        min([0.0 if y_min is None else y_min, *values]),
        max([1.0 if y_max is None else y_max, *values]),
    )
    left = _left_margin([_tick_label(t) for t in scale])
    frame = Frame(width, height, left, 16, 20, 64, x_label, y_label, title)
    low, high = scale[0], scale[-1]
    span = high - low or 1.0

    slot = frame.plot_width / max(len(categories), 1)

    def x_at(index: int) -> float:
        # each category in the middle of its slot, as the bars of a histogram: labels at the
        # ends stay inside the chart
        return frame.left + (index + 0.5) * slot

    def y_at(value: float) -> float:
        return frame.top + frame.plot_height - (value - low) / span * frame.plot_height

    drawn = []
    for k, (name, points, dashed) in enumerate(series):
        placed: list[Point] = []
        runs: list[str] = []
        run: list[str] = []
        for index, value in enumerate(points):
            if value is None or not math.isfinite(value):
                if len(run) > 1:
                    runs.append(" ".join(run))
                run = []
                continue
            point = Point(x_at(index), y_at(value), categories[index][0], value)
            placed.append(point)
            run.append(f"{point.x:.1f},{point.y:.1f}")
        if len(run) > 1:
            runs.append(" ".join(run))
        drawn.append(
            Series(
                name=name,
                css=f"s{k % 4 + 1}",
                marker=MARKERS[k % len(MARKERS)],
                dashed=dashed,
                points=placed,
                runs=runs,
            )
        )
    return LineChart(
        frame=frame,
        series=drawn,
        categories=[
            Category(label, x_at(index), note) for index, (label, note) in enumerate(categories)
        ],
        y_ticks=[Tick(y_at(t), _tick_label(t)) for t in scale],
        category_label_y=frame.x_axis_y + 18,
        note_label_y=frame.x_axis_y + 34,
    )
