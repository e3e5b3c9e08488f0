"""Word alignments with sure and possible links.

An alignment of a source sentence ``x_1..x_N`` and a target ``y_1..y_M`` is a set of links
``(i, j)`` with 0-based token positions. Links are *sure* (S) or *possible*; following Och & Ney
(2003) and Cohn et al. (2008) we write ``P`` for "sure or possible", so always ``S ⊆ P``.

Two notations, each parsed and written here only:

- Pharaoh, one pair per line: ``i-j`` is a sure link and ``i?j`` a possible link; on input
  ``i-j-S`` and ``i-j-P`` are accepted as well.
- Triples, as JSON carries them (the web API, the event log, the JSONL format):
  ``[[i, j, "S" | "P"], ...]``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from scoring.errors import AlignmentError

Link = tuple[int, int]
#: A link's kind in the triple notation: sure or (merely) possible.
SURE, POSSIBLE = "S", "P"


def check_bounds(links: Iterable[Link], n_source: int, n_target: int) -> None:
    """Raise :class:`AlignmentError` for the first link outside an ``n_source × n_target`` pair."""
    for i, j in links:
        if not (0 <= i < n_source and 0 <= j < n_target):
            # one past the last word, and no 0: the usual fault is links counted from 1
            one_past = 1 <= i <= n_source and 1 <= j <= n_target
            raise AlignmentError(
                f"link {i}-{j} is outside the {n_source}×{n_target} sentence pair "
                f"(source indices 0..{n_source - 1}, target 0..{n_target - 1})"
                + ("; positions count from 0: are the links counted from 1?" if one_past else "")
            )


def links_from_triples(items: Iterable[object], n_source: int, n_target: int) -> dict[Link, bool]:
    """``[[i, j, "S"|"P"], ...]`` → ``{(i, j): sure}``, each item checked: its shape, integer
    indices inside the pair, no link twice. The error names the item (``links[k]``)."""
    links: dict[Link, bool] = {}
    for index, item in enumerate(items):
        if not isinstance(item, list | tuple) or len(item) != 3 or item[2] not in (SURE, POSSIBLE):
            raise AlignmentError(f"links[{index}]: expected [i, j, 'S' or 'P'], got {item!r}")
        i, j = item[0], item[1]
        if (
            isinstance(i, bool)
            or isinstance(j, bool)
            or not isinstance(i, int)
            or not isinstance(j, int)
        ):
            raise AlignmentError(f"links[{index}]: indices must be integers, got {item!r}")
        try:
            check_bounds([(i, j)], n_source, n_target)
        except AlignmentError as error:
            raise AlignmentError(f"links[{index}]: {error}") from None
        if (i, j) in links:
            raise AlignmentError(f"links[{index}]: link {i}-{j} is given twice")
        links[(i, j)] = item[2] == SURE
    return links


def links_to_triples(links: Mapping[Link, bool]) -> list[list[int | str]]:
    """``{(i, j): sure}`` → ``[[i, j, "S"|"P"], ...]`` sorted by position."""
    return [[i, j, SURE if sure else POSSIBLE] for (i, j), sure in sorted(links.items())]


_TOKEN = re.compile(r"^([0-9]+)([-?])([0-9]+)(?:-([SPsp]))?$")


@dataclass(frozen=True, slots=True)
class Alignment:
    """A validated alignment: sentence lengths plus the sure set ``S`` and the set ``P ⊇ S``.

    Build one with :meth:`from_links`, :meth:`from_pharaoh` or :meth:`from_matrices`; the
    constructor validates too, so an ``Alignment`` in hand is always consistent.
    """

    n_source: int
    n_target: int
    sure: frozenset[Link]
    possible: frozenset[Link]

    def __post_init__(self) -> None:
        if self.n_source < 0 or self.n_target < 0:
            raise AlignmentError(
                f"sentence lengths must be non-negative, got {self.n_source}×{self.n_target}"
            )
        check_bounds(self.possible, self.n_source, self.n_target)
        if not self.sure <= self.possible:
            extra = sorted(self.sure - self.possible)[0]
            raise AlignmentError(f"sure link {extra[0]}-{extra[1]} is missing from P (S ⊆ P)")

    @classmethod
    def from_links(
        cls,
        n_source: int,
        n_target: int,
        sure: Iterable[Link] = (),
        possible: Iterable[Link] = (),
    ) -> Alignment:
        """Alignment from sure links and possible links; ``P`` becomes ``sure ∪ possible``.

        A link given as both sure and possible is sure.
        """
        s = frozenset((int(i), int(j)) for i, j in sure)
        p = s | frozenset((int(i), int(j)) for i, j in possible)
        return cls(int(n_source), int(n_target), s, p)

    @classmethod
    def empty(cls, n_source: int, n_target: int) -> Alignment:
        return cls(n_source, n_target, frozenset(), frozenset())

    @property
    def possible_only(self) -> frozenset[Link]:
        """Links that are possible but not sure (``P − S``)."""
        return self.possible - self.sure

    @property
    def shape(self) -> tuple[int, int]:
        return (self.n_source, self.n_target)

    # --- Pharaoh -------------------------------------------------------------------------------

    @classmethod
    def from_pharaoh(cls, text: str, n_source: int, n_target: int) -> Alignment:
        """Parse one Pharaoh line (``0-0 1?2 3-4-P``) for a pair of the given lengths.

        Raises :class:`AlignmentError` naming the offending token.
        """
        sure: set[Link] = set()
        poss: set[Link] = set()
        for position, token in enumerate(text.split(), start=1):
            match = _TOKEN.match(token)
            if match is None:
                raise AlignmentError(
                    f"link #{position} {token!r} is not Pharaoh syntax "
                    "('i-j' sure, 'i?j' possible, or 'i-j-S' / 'i-j-P')"
                )
            i, sep, j, kind = match.groups()
            if sep == "?" and kind is not None:
                raise AlignmentError(f"link #{position} {token!r} mixes '?' with a -S/-P suffix")
            link = (int(i), int(j))
            is_possible = sep == "?" or (kind is not None and kind.upper() == "P")
            (poss if is_possible else sure).add(link)
        return cls.from_links(n_source, n_target, sure, poss)

    @classmethod
    def from_triples(cls, items: Iterable[object], n_source: int, n_target: int) -> Alignment:
        """Alignment from ``[[i, j, "S"|"P"], ...]`` (see :func:`links_from_triples`)."""
        links = links_from_triples(items, n_source, n_target)
        sure = [key for key, is_sure in links.items() if is_sure]
        return cls.from_links(n_source, n_target, sure, links)

    def to_triples(self) -> list[list[int | str]]:
        """``[[i, j, "S"|"P"], ...]`` sorted by position."""
        return links_to_triples(self.link_map())

    def link_map(self) -> dict[Link, bool]:
        """``{(i, j): sure}`` for every link of ``P``."""
        return {link: link in self.sure for link in self.possible}

    def to_pharaoh(self) -> str:
        """Pharaoh line, links sorted by (source, target); sure as ``i-j``, possible as ``i?j``."""
        parts = []
        for i, j in sorted(self.possible):
            parts.append(f"{i}-{j}" if (i, j) in self.sure else f"{i}?{j}")
        return " ".join(parts)

    # --- Matrices ------------------------------------------------------------------------------

    def sure_matrix(self) -> npt.NDArray[np.bool_]:
        """Boolean ``(N, M)`` matrix of ``S``."""
        return _links_to_matrix(self.sure, self.n_source, self.n_target)

    def possible_matrix(self) -> npt.NDArray[np.bool_]:
        """Boolean ``(N, M)`` matrix of ``P`` (sure or possible)."""
        return _links_to_matrix(self.possible, self.n_source, self.n_target)

    def to_matrix(self) -> npt.NDArray[np.int8]:
        """``(N, M)`` int8 matrix: 0 no link, 1 possible, 2 sure."""
        out = self.possible_matrix().astype(np.int8)
        out[self.sure_matrix()] = 2
        return out

    @classmethod
    def from_matrices(cls, sure: npt.ArrayLike, possible: npt.ArrayLike | None = None) -> Alignment:
        """Alignment from a boolean sure matrix and an optional boolean matrix of ``P``.

        Cells set in ``sure`` are sure even if ``possible`` misses them.
        """
        s = np.asarray(sure, dtype=bool)
        if s.ndim != 2:
            raise AlignmentError(f"sure matrix must be 2-D, got shape {s.shape}")
        p = s if possible is None else np.asarray(possible, dtype=bool)
        if p.shape != s.shape:
            raise AlignmentError(f"matrix shapes differ: sure {s.shape}, possible {p.shape}")
        n, m = s.shape
        return cls.from_links(n, m, _matrix_to_links(s), _matrix_to_links(p))

    @classmethod
    def from_code_matrix(cls, codes: npt.ArrayLike) -> Alignment:
        """Inverse of :meth:`to_matrix` (0 none, 1 possible, 2 sure)."""
        c = np.asarray(codes)
        if c.ndim != 2:
            raise AlignmentError(f"code matrix must be 2-D, got shape {c.shape}")
        bad = ~np.isin(c, (0, 1, 2))
        if bad.any():
            i, j = (int(v) for v in np.argwhere(bad)[0])
            raise AlignmentError(f"cell {i},{j} has code {c[i, j]!r}; expected 0, 1 or 2")
        return cls.from_matrices(c == 2, c >= 1)

    # --- Derived views -------------------------------------------------------------------------

    def with_lengths_checked(self, source: list[str], target: list[str]) -> Alignment:
        """Return self after checking it fits the given token lists."""
        if (len(source), len(target)) != self.shape:
            raise AlignmentError(
                f"alignment is for a {self.n_source}×{self.n_target} pair but the tokens are "
                f"{len(source)}×{len(target)}"
            )
        return self

    def transpose(self) -> Alignment:
        """The same alignment seen from the target side."""
        return Alignment(
            self.n_target,
            self.n_source,
            frozenset((j, i) for i, j in self.sure),
            frozenset((j, i) for i, j in self.possible),
        )


def _links_to_matrix(links: Iterable[Link], n: int, m: int) -> npt.NDArray[np.bool_]:
    out = np.zeros((n, m), dtype=bool)
    for i, j in links:
        out[i, j] = True
    return out


def _matrix_to_links(matrix: npt.NDArray[np.bool_]) -> list[Link]:
    return [(int(i), int(j)) for i, j in np.argwhere(matrix)]
