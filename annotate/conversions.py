"""Between ORM rows and :mod:`scoring` values (Alignment, PairRecord). No queries here."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Protocol

from scoring.alignment.links import Alignment


class _LinkRow(Protocol):
    i: int
    j: int
    sure: bool


def alignment_from_rows(n_source: int, n_target: int, rows: Iterable[_LinkRow]) -> Alignment:
    return alignment_from_tuples(n_source, n_target, ((row.i, row.j, row.sure) for row in rows))


def alignment_from_tuples(
    n_source: int, n_target: int, rows: Iterable[tuple[Any, ...]]
) -> Alignment:
    """The alignment of link rows read as ``(i, j, sure, ...)`` tuples (further values
    ignored)."""
    sure: list[tuple[int, int]] = []
    possible: list[tuple[int, int]] = []
    for i, j, is_sure, *_ in rows:
        (sure if is_sure else possible).append((i, j))
    return Alignment.from_links(n_source, n_target, sure, possible)


def link_rows(alignment: Alignment) -> list[tuple[int, int, bool]]:
    """``(i, j, sure)`` for every link of P, sorted."""
    return [(i, j, (i, j) in alignment.sure) for i, j in sorted(alignment.possible)]


def link_event_list(alignment: Alignment) -> list[list[int | str]]:
    """Links as stored in an event's ``added`` field: ``[i, j, "S" | "P"]``."""
    return alignment.to_triples()
