"""Plain-Python phrase-pair extraction, written straight from the definitions.

Slow on purpose: every candidate block is checked against every link. Tests compare the numba
kernels of :mod:`scoring.alignment.phrases` with it.
"""

from __future__ import annotations

from collections.abc import Iterable

Span = tuple[int, int, int, int]


def reference_pairs(
    links: Iterable[tuple[int, int]],
    n: int,
    m: int,
    *,
    boundary_rule: bool = True,
    max_length: int | None = None,
) -> dict[Span, bool]:
    """Every consistent phrase pair mapped to whether it is atomic."""
    links = set(links)
    src_aligned = {i for i, _ in links}
    tgt_aligned = {j for _, j in links}
    pairs: set[Span] = set()
    for i1 in range(n):
        for i2 in range(i1, n):
            for j1 in range(m):
                for j2 in range(j1, m):
                    if max_length is not None and (
                        i2 - i1 + 1 > max_length or j2 - j1 + 1 > max_length
                    ):
                        continue
                    inside = 0
                    consistent = True
                    for i, j in links:
                        in_src = i1 <= i <= i2
                        in_tgt = j1 <= j <= j2
                        if in_src and in_tgt:
                            inside += 1
                        elif in_src or in_tgt:
                            consistent = False
                            break
                    if not consistent or inside == 0:
                        continue
                    if boundary_rule and not (
                        i1 in src_aligned
                        and i2 in src_aligned
                        and j1 in tgt_aligned
                        and j2 in tgt_aligned
                    ):
                        continue
                    pairs.add((i1, i2, j1, j2))
    result: dict[Span, bool] = {}
    for i1, i2, j1, j2 in pairs:
        composite = False
        for s in range(i1, i2):
            for t in range(j1, j2):
                straight = (i1, s, j1, t) in pairs and (s + 1, i2, t + 1, j2) in pairs
                swapped = (i1, s, t + 1, j2) in pairs and (s + 1, i2, j1, t) in pairs
                if straight or swapped:
                    composite = True
        result[(i1, i2, j1, j2)] = not composite
    return result
