"""Precision, recall, F1 and AER (scoring.alignment.metrics): the paper's worked example and
references."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from scoring.alignment.links import Alignment
from scoring.alignment.metrics import (
    ComparePair,
    WordCounts,
    corpus_scores,
    lowest_pairwise_f1,
    phrase_counts,
    phrase_scores,
    word_counts,
    word_scores,
)
from scoring.errors import ScoringError
from tests.scoring import paper_example as fig2
from tests.scoring.alignment.phrase_reference import reference_pairs
from tests.scoring.strategies import SETTINGS, alignments


def test_word_scores_reproduce_the_papers_example_with_b_as_reference() -> None:
    # §3: |A_S| = 4, |B_S| = 5, |A_S ∩ B_P| = 4, |A_P ∩ B_S| = 4 → P = 1, R = 0.8, F1 = 0.89.
    counts = word_counts(fig2.ANNOTATOR_A, fig2.ANNOTATOR_B, fig2.SOURCE, fig2.TARGET)
    assert counts.candidate_sure == 4
    assert counts.reference_sure == 5
    assert counts.candidate_sure_in_reference_possible == 4
    assert counts.candidate_possible_in_reference_sure == 4
    scores = word_scores(counts)
    assert scores.precision == 1.0
    assert scores.recall == 0.8
    assert round(scores.f1 or 0, 2) == 0.89


def test_phrase_precision_reproduces_the_papers_example() -> None:
    # §3: |A^p_atom| = 7 and |A^p_atom ∩ B^p| = 5 → precision 5/7 = 0.71. (The paper's recall,
    # 4/8, counts "reached ↔ arrived" as one of B's atomic pairs, which B's own links in Table 1
    # rule out: B also links "reached" to "at". We get |B_atom| = 7 and recall 3/7.)
    counts = phrase_counts(fig2.ANNOTATOR_A, fig2.ANNOTATOR_B, fig2.SOURCE, fig2.TARGET)
    assert counts.candidate_atomic == 7
    assert counts.candidate_atomic_in_reference == 5
    assert round(phrase_scores(counts).precision or 0, 2) == 0.71


def _reference_phrase_counts(
    a: Alignment, b: Alignment, src: list[str], tgt: list[str], kind: str
) -> tuple[int, int, int, int]:
    def sets(al: Alignment) -> tuple[set, set]:
        links = al.possible if kind == "possible" else al.sure
        pairs = reference_pairs(links, al.n_source, al.n_target)
        keep = {
            p: atomic
            for p, atomic in pairs.items()
            if [w.lower() for w in src[p[0] : p[1] + 1]]
            != [w.lower() for w in tgt[p[2] : p[3] + 1]]
        }
        return set(keep), {p for p, atomic in keep.items() if atomic}

    a_all, a_atom = sets(a)
    b_all, b_atom = sets(b)
    return len(a_atom), len(b_atom), len(a_atom & b_all), len(a_all & b_atom)


def _random_pair(rng: np.random.Generator) -> tuple[Alignment, Alignment, list[str], list[str]]:
    n, m = (int(v) for v in rng.integers(1, 8, size=2))
    vocab = ["a", "b", "c", "A", "d"]
    src = [vocab[int(k)] for k in rng.integers(0, 5, n)]
    tgt = [vocab[int(k)] for k in rng.integers(0, 5, m)]

    def one() -> Alignment:
        p = rng.random((n, m)) < 0.35
        s = p & (rng.random((n, m)) < 0.6)
        return Alignment.from_matrices(s, p)

    return one(), one(), src, tgt


def test_phrase_counts_agree_with_plain_python_sets_on_random_pairs() -> None:
    rng = np.random.default_rng(7)
    for _ in range(300):
        a, b, src, tgt = _random_pair(rng)
        for kind in ("possible", "sure"):
            c = phrase_counts(a, b, src, tgt, kind=kind)
            got = (
                c.candidate_atomic,
                c.reference_atomic,
                c.candidate_atomic_in_reference,
                c.candidate_in_reference_atomic,
            )
            assert got == _reference_phrase_counts(a, b, src, tgt, kind)


def test_word_counts_agree_with_plain_python_sets_on_random_pairs() -> None:
    rng = np.random.default_rng(8)
    for _ in range(300):
        a, b, src, tgt = _random_pair(rng)

        def keep(links: frozenset, src: list[str] = src, tgt: list[str] = tgt) -> set:
            return {(i, j) for i, j in links if src[i].lower() != tgt[j].lower()}

        a_s, a_p, b_s, b_p = keep(a.sure), keep(a.possible), keep(b.sure), keep(b.possible)
        c = word_counts(a, b, src, tgt)
        assert c == WordCounts(
            len(a_s), len(b_s), len(a_s & b_p), len(a_p & b_s), len(a_p), len(a_p & b_p),
            len(b_p), len(a_s & b_s),
        )  # fmt: skip


def test_identical_pairs_are_left_out_by_default_and_can_be_kept() -> None:
    src, tgt = ["the", "cat"], ["The", "dog"]
    a = Alignment.from_links(2, 2, sure=[(0, 0), (1, 1)])
    left_out = word_counts(a, a, src, tgt)
    kept = word_counts(a, a, src, tgt, exclude_identical=False)
    assert left_out.candidate_sure == 1 and kept.candidate_sure == 2
    assert phrase_counts(a, a, src, tgt).candidate_atomic == 1
    assert phrase_counts(a, a, src, tgt, exclude_identical=False).candidate_atomic == 2


def test_an_empty_denominator_is_reported_as_undefined_not_zero() -> None:
    empty = Alignment.empty(2, 2)
    full = Alignment.from_links(2, 2, sure=[(0, 1)])
    scores = word_scores(word_counts(empty, full, ["a", "b"], ["c", "d"]))
    assert scores.precision is None and scores.f1 is None
    assert scores.recall == 0.0
    assert scores.undefined == ["precision", "f1"]
    assert scores.to_dict()["undefined"] == ["precision", "f1"]
    assert word_scores(word_counts(empty, empty, ["a"] * 2, ["c"] * 2)).aer is None


def test_aer_follows_och_and_ney() -> None:
    # A = {(0,0), (1,1), (2,2)} (one possible), S = {(0,0)}, P = S ∪ {(1,1)}:
    # AER = 1 − (|A∩S| + |A∩P|) / (|A| + |S|) = 1 − (1 + 2) / (3 + 1) = 0.25.
    cand = Alignment.from_links(3, 3, sure=[(0, 0), (1, 1)], possible=[(2, 2)])
    ref = Alignment.from_links(3, 3, sure=[(0, 0)], possible=[(1, 1)])
    counts = word_counts(cand, ref, exclude_identical=False)
    assert word_scores(counts).aer == pytest.approx(0.25)


def test_corpus_scores_sum_counts_before_dividing() -> None:
    # Pair 1: P = 1/1; pair 2: P = 0/3. Micro average 1/4, not the macro 1/2.
    src, tgt = ["a", "b", "c"], ["x", "y", "z"]
    ref = Alignment.from_links(3, 3, sure=[(0, 0)])
    good = Alignment.from_links(3, 3, sure=[(0, 0)])
    bad = Alignment.from_links(3, 3, sure=[(1, 2), (2, 1), (2, 2)])
    result = corpus_scores(
        [ComparePair(src, tgt, good, ref, "1"), ComparePair(src, tgt, bad, ref, "2")]
    )
    assert result.overall.precision == 0.25
    assert [s.precision for _, _, s in result.per_pair] == [1.0, 0.0]
    assert result.to_dict()["per_pair"][1]["key"] == "2"


def test_word_kinds_compare_p_with_p_and_s_with_s() -> None:
    counts = word_counts(fig2.ANNOTATOR_A, fig2.ANNOTATOR_B, fig2.SOURCE, fig2.TARGET)
    poss = word_scores(counts, "possible")
    sure = word_scores(counts, "sure")
    assert (
        poss.precision
        == counts.candidate_possible_in_reference_possible / counts.candidate_possible
    )
    assert sure.recall == counts.candidate_sure_in_reference_sure / counts.reference_sure


def test_it_rejects_alignments_of_different_sizes() -> None:
    with pytest.raises(ScoringError, match="size"):
        word_counts(Alignment.empty(2, 2), Alignment.empty(2, 3), exclude_identical=False)


def test_it_rejects_tokens_that_do_not_fit_the_alignment() -> None:
    with pytest.raises(ScoringError, match="tokens"):
        phrase_counts(Alignment.empty(2, 2), Alignment.empty(2, 2), ["a"], ["b", "c"])


def test_it_asks_for_tokens_when_leaving_out_identical_pairs() -> None:
    with pytest.raises(ScoringError, match="tokens"):
        word_counts(Alignment.empty(1, 1), Alignment.empty(1, 1))


def test_it_rejects_an_unknown_level_or_kind() -> None:
    with pytest.raises(ScoringError, match="level"):
        corpus_scores([], level="sentence")
    with pytest.raises(ScoringError, match="kind"):
        corpus_scores([], level="phrase", kind="mixed")


def test_the_lowest_pairwise_f1_is_that_of_the_two_annotators_furthest_apart() -> None:
    a = Alignment.from_pharaoh("0-0 1-1", 2, 2)
    b = Alignment.from_pharaoh("0-0 1?1", 2, 2)  # the same cells: sure or possible is no matter
    c = Alignment.from_pharaoh("0-0 0-1", 2, 2)  # one of two cells in common with a and b
    assert lowest_pairwise_f1([a, b]) == 1.0
    assert lowest_pairwise_f1([a, b, c]) == pytest.approx(0.5)


def test_empty_alignments_agree_with_each_other_and_share_nothing_with_links() -> None:
    empty = Alignment.empty(2, 2)
    linked = Alignment.from_pharaoh("0-0", 2, 2)
    assert lowest_pairwise_f1([empty, empty]) == 1.0
    assert lowest_pairwise_f1([empty, linked, linked]) == 0.0
    assert lowest_pairwise_f1([linked]) is None


@SETTINGS
@given(st.integers(2, 5).flatmap(lambda k: st.lists(alignments(3, 4), min_size=k, max_size=k)))
def test_the_lowest_pairwise_f1_agrees_with_a_count_of_common_cells(found: list) -> None:
    def dice(a: Alignment, b: Alignment) -> float:
        both = len(a.possible) + len(b.possible)
        return 1.0 if both == 0 else 2 * len(a.possible & b.possible) / both

    expected = min(dice(a, b) for k, a in enumerate(found) for b in found[k + 1 :])
    assert lowest_pairwise_f1(found) == pytest.approx(expected)
