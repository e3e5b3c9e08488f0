"""Shared hypothesis settings and strategies of the property tests."""

from __future__ import annotations

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from scoring.alignment.links import Alignment

SETTINGS = settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)


@st.composite
def alignments(draw: st.DrawFn, n: int, m: int) -> Alignment:
    """Any alignment of ``n × m`` tokens: a set of possible links, some of them sure."""
    cells = st.tuples(st.integers(0, n - 1), st.integers(0, m - 1))
    possible = draw(st.frozensets(cells, max_size=n * m))
    sure = draw(st.frozensets(st.sampled_from(sorted(possible)))) if possible else frozenset()
    return Alignment.from_links(n, m, sure, possible - sure)
