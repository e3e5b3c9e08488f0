"""Phrase-pair extraction (scoring.alignment.phrases) against a plain-Python reference and the
paper."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring.alignment.links import Alignment
from scoring.alignment.phrases import (
    drop_identical,
    extract_phrase_pairs,
    extract_phrase_pairs_batch,
    identical_mask,
    phrase_text,
)
from scoring.errors import ScoringError
from tests.scoring import paper_example as fig2
from tests.scoring.alignment.phrase_reference import reference_pairs


def _as_dict(matrix: np.ndarray, **options: object) -> dict[tuple[int, int, int, int], bool]:
    pairs = extract_phrase_pairs(matrix, **options)  # type: ignore[arg-type]
    return {
        tuple(int(v) for v in s): bool(a) for s, a in zip(pairs.spans, pairs.atomic, strict=True)
    }


def test_the_kernel_agrees_with_the_reference_on_thousands_of_random_alignments() -> None:
    rng = np.random.default_rng(20081201)
    atomic = composite = 0
    for _ in range(3000):
        n, m = (int(v) for v in rng.integers(1, 10, size=2))
        density = float(rng.choice([0.08, 0.15, 0.3, 0.5]))
        matrix = rng.random((n, m)) < density
        links = [(int(i), int(j)) for i, j in np.argwhere(matrix)]
        boundary = bool(rng.integers(0, 2))
        max_length = [None, 1, 2, 3, 5][int(rng.integers(0, 5))]
        expected = reference_pairs(links, n, m, boundary_rule=boundary, max_length=max_length)
        assert _as_dict(matrix, boundary_rule=boundary, max_length=max_length) == expected
        atomic += sum(expected.values())
        composite += len(expected) - sum(expected.values())
    assert atomic > 5_000 and composite > 500  # both labels were exercised


@settings(max_examples=300, deadline=None)
@given(
    st.integers(1, 7).flatmap(
        lambda n: st.integers(1, 7).flatmap(
            lambda m: st.tuples(
                st.just(n),
                st.just(m),
                st.sets(st.tuples(st.integers(0, n - 1), st.integers(0, m - 1))),
            )
        )
    ),
    st.booleans(),
    st.sampled_from([None, 1, 2, 4]),
)
def test_the_kernel_agrees_with_the_reference_on_generated_alignments(
    case: tuple[int, int, set[tuple[int, int]]], boundary: bool, max_length: int | None
) -> None:
    n, m, links = case
    matrix = np.zeros((n, m), dtype=bool)
    for i, j in links:
        matrix[i, j] = True
    expected = reference_pairs(links, n, m, boundary_rule=boundary, max_length=max_length)
    assert _as_dict(matrix, boundary_rule=boundary, max_length=max_length) == expected


def test_spans_come_sorted_as_int32_with_a_boolean_mask() -> None:
    pairs = extract_phrase_pairs(fig2.ANNOTATOR_A)
    assert pairs.spans.dtype == np.int32 and pairs.spans.shape[1] == 4
    assert pairs.atomic.dtype == np.bool_ and pairs.atomic.shape == (len(pairs),)
    rows = [tuple(r) for r in pairs.spans.tolist()]
    assert rows == sorted(rows)


def test_it_reproduces_annotator_a_atomic_pairs_of_the_papers_table_2() -> None:
    pairs = extract_phrase_pairs(fig2.ANNOTATOR_A, use="possible")
    atomic = {phrase_text(s, fig2.SOURCE, fig2.TARGET) for s in pairs.spans[pairs.atomic]}
    assert atomic == {
        ("they", "parties"),
        ("discussed", "discussed"),
        ("the", "the"),
        ("aspects in detail", "specific issues"),
        ("and", "and"),
        ("reached", "arrived"),
        ("reached an", "arrived at a"),
        ("an", "a"),
        ("extensive", "general"),
        ("agreement", "consensus"),
        (".", "."),
    }


def test_figure_3_only_the_fully_aligned_pair_is_valid() -> None:
    # Figure 3: "and reached ↔ and arrived at" is valid; "and reached ↔ and arrived" is
    # inconsistent (reached is also aligned to at); "and reached an ↔ and arrived at" has the
    # unaligned "an" on a boundary (annotator B's links, with "an ↔ a" dropped).
    b = fig2.ANNOTATOR_B
    src, tgt = fig2.SOURCE, fig2.TARGET
    alignment = Alignment.from_links(
        b.n_source, b.n_target, [link for link in b.sure if link != (8, 9)], b.possible_only
    )
    texts = {
        phrase_text(s, src, tgt) for s in extract_phrase_pairs(alignment, use="possible").spans
    }
    assert ("and reached", "and arrived at") in texts
    assert ("and reached", "and arrived") not in texts
    assert ("and reached an", "and arrived at") not in texts
    composite = extract_phrase_pairs(alignment)
    row = [
        k
        for k, s in enumerate(composite.spans)
        if phrase_text(s, src, tgt) == ("and reached", "and arrived at")
    ]
    assert len(row) == 1 and not composite.atomic[row[0]]


def test_swapped_halves_make_a_composite_pair() -> None:
    matrix = np.array([[0, 1], [1, 0]], dtype=bool)
    pairs = _as_dict(matrix)
    assert pairs == {(0, 0, 1, 1): True, (1, 1, 0, 0): True, (0, 1, 0, 1): False}


def test_the_boundary_rule_can_be_switched_off() -> None:
    matrix = np.array([[1, 0], [0, 0]], dtype=bool)
    assert set(_as_dict(matrix)) == {(0, 0, 0, 0)}
    assert set(_as_dict(matrix, boundary_rule=False)) == {
        (0, 0, 0, 0),
        (0, 0, 0, 1),
        (0, 1, 0, 0),
        (0, 1, 0, 1),
    }


def test_it_runs_on_the_sure_or_the_possible_links() -> None:
    alignment = Alignment.from_links(2, 2, sure=[(0, 0)], possible=[(1, 1)])
    assert extract_phrase_pairs(alignment, use="sure").as_set() == {(0, 0, 0, 0)}
    assert extract_phrase_pairs(alignment, use="possible").as_set() == {
        (0, 0, 0, 0),
        (1, 1, 1, 1),
        (0, 1, 0, 1),
    }


def test_an_empty_alignment_has_no_phrase_pairs() -> None:
    assert len(extract_phrase_pairs(np.zeros((3, 4), dtype=bool))) == 0
    assert len(extract_phrase_pairs(np.zeros((0, 0), dtype=bool))) == 0


def test_identical_pairs_are_found_ignoring_case() -> None:
    src, tgt = ["The", "cat", "sat"], ["the", "dog", "sat"]
    spans = np.array([[0, 0, 0, 0], [0, 1, 0, 1], [2, 2, 2, 2], [1, 1, 1, 1], [0, 0, 2, 2]])
    assert identical_mask(spans, src, tgt).tolist() == [True, False, True, False, False]
    pairs = extract_phrase_pairs(np.eye(3, dtype=bool))
    kept = drop_identical(pairs, src, tgt)
    assert {phrase_text(s, src, tgt) for s in kept.spans} == {
        ("cat", "dog"),
        ("The cat", "the dog"),
        ("cat sat", "dog sat"),
        ("The cat sat", "the dog sat"),
    }


def test_it_rejects_a_matrix_that_is_not_two_dimensional() -> None:
    with pytest.raises(ScoringError, match="2-D"):
        extract_phrase_pairs(np.zeros(3, dtype=bool))


def test_it_rejects_a_non_boolean_matrix() -> None:
    with pytest.raises(ScoringError, match="boolean"):
        extract_phrase_pairs(np.array([[0, 2]]))


def test_it_rejects_a_maximum_length_below_one() -> None:
    with pytest.raises(ScoringError, match="max_length"):
        extract_phrase_pairs(np.eye(2, dtype=bool), max_length=0)


def test_it_rejects_spans_outside_the_sentence() -> None:
    with pytest.raises(ScoringError, match="outside"):
        identical_mask(np.array([[0, 3, 0, 0]]), ["a", "b"], ["a"])


def _same(a: object, b: object) -> bool:
    return np.array_equal(a.spans, b.spans) and np.array_equal(a.atomic, b.atomic)  # type: ignore[attr-defined]


def test_a_batch_gives_each_alignment_what_one_call_gives_it() -> None:
    rng = np.random.default_rng(7)
    alignments: list[object] = []
    for _ in range(300):
        n, m = (int(v) for v in rng.integers(0, 12, size=2))
        alignments.append(rng.random((n, m)) < float(rng.choice([0.05, 0.15, 0.4])))
    wide = rng.random((9, 14)) < 0.2
    alignments += [
        wide[:, ::2],  # not contiguous
        wide.astype(np.uint8),  # 0/1 integers
        wide.tolist(),  # nested lists
        Alignment.from_pharaoh("0-0 1?2 2-1", 3, 4),
    ]
    for boundary in (True, False):
        for max_length in (None, 2):
            options = {"boundary_rule": boundary, "max_length": max_length}
            batch = extract_phrase_pairs_batch(alignments, **options)  # type: ignore[arg-type]
            assert len(batch) == len(alignments)
            assert batch.counts().sum() == len(batch.spans)
            for alignment, pairs in zip(alignments, batch, strict=True):
                assert _same(pairs, extract_phrase_pairs(alignment, **options))  # type: ignore[arg-type]


def test_a_batch_grows_its_buffers_when_an_alignment_licenses_many_pairs() -> None:
    # One link among many unaligned words: without the boundary rule every stretch of the
    # target span over them is a pair, far more than the buffers first hold.
    sparse = np.zeros((2, 40), dtype=bool)
    sparse[0, 20] = True
    batch = extract_phrase_pairs_batch([np.eye(3, dtype=bool), sparse], boundary_rule=False)
    assert len(batch[1]) == 2 * 21 * 20  # source spans [0] and [0, 1]; j1 ≤ 20 ≤ j2
    assert _same(batch[1], extract_phrase_pairs(sparse, boundary_rule=False))
    assert _same(batch[0], extract_phrase_pairs(np.eye(3, dtype=bool), boundary_rule=False))


def test_a_batch_is_indexed_like_a_list() -> None:
    batch = extract_phrase_pairs_batch([np.eye(2, dtype=bool), np.ones((1, 1), dtype=bool)])
    assert _same(batch[-1], batch[1]) and len(batch[1]) == 1
    with pytest.raises(IndexError, match="out of range"):
        batch[2]
    empty = extract_phrase_pairs_batch([])
    assert len(empty) == 0 and empty.spans.shape == (0, 4) and list(empty) == []


def test_a_batch_rejects_a_bad_matrix_like_one_call_does() -> None:
    with pytest.raises(ScoringError, match="boolean"):
        extract_phrase_pairs_batch([np.eye(2, dtype=bool), np.array([[0, 2]])])
