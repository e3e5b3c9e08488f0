"""Progress reports of long computations: a plain callable ``progress(fraction, stage)``.

``fraction`` is the share of the work done, in ``[0, 1]``; ``stage`` says what is being done
(``"HMM iteration 3 of 5"``). Training code takes ``progress: Progress | None = None`` and
calls it between steps (an EM iteration, a perceptron epoch, an L-BFGS iteration, a pair),
never from inside a numba kernel; ``None`` reports nothing. The callable may raise to stop the
computation (the web app's jobs raise when a job was cancelled), so nothing between two reports
may be left half-done.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import TypeVar

Progress = Callable[[float, str], None]
T = TypeVar("T")


def progress_part(
    progress: Progress | None, start: float, stop: float, prefix: str = ""
) -> Progress | None:
    """The ``progress`` of a part of the work that spans ``start`` to ``stop`` of the whole:
    its fraction ``f`` (clipped to ``[0, 1]``) is reported as ``start + (stop − start) f``, its
    stage after ``prefix``. ``None`` stays ``None``."""
    if progress is None:
        return None
    whole = progress

    def part(fraction: float, stage: str) -> None:
        whole(start + (stop - start) * min(1.0, max(0.0, fraction)), f"{prefix}{stage}")

    return part


def progress_report(progress: Progress | None, fraction: float, stage: str) -> None:
    """Call ``progress`` if there is one."""
    if progress is not None:
        progress(fraction, stage)


def in_chunks(
    items: Sequence[T], size: int, progress: Progress | None, stage: str
) -> Iterator[Sequence[T]]:
    """Consecutive slices of at most ``size`` items, each followed, once the caller has done it,
    by the report ``"{stage} N of M pairs"`` (N done): where a cancelled job stops between two
    chunks of a computation that would otherwise run in one piece."""
    for start in range(0, len(items), size):
        yield items[start : start + size]
        ready = min(start + size, len(items))
        progress_report(progress, ready / len(items), f"{stage} {ready:,} of {len(items):,} pairs")
