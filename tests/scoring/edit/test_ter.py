"""TER with shifts (scoring.edit.ter): hand-checked cases, tercom's conventions, the pluggable cost
model, bad input, and the kernels against a literal transcription of tercom
(tests/scoring/edit/ter_reference.py)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from scoring.edit.ter import (
    OP_MATCH,
    OP_STEM,
    OP_SUB,
    ExactMatch,
    TerCosts,
    TerParams,
    TerStats,
    WordTable,
    corpus_ter,
    signature,
    ter,
    ter_batch,
    tokenize,
)
from scoring.errors import InputError, OptionsError, ScoringError
from tests.scoring.edit.ter_reference import perform_shift, tercom


def replay(hyp: Sequence[str], shifts: Sequence[tuple[int, int, int]]) -> list[str]:
    words = list(hyp)
    for start, end, newloc in shifts:
        words = perform_shift(words, start, end, newloc)
    return words


def test_identical_sentences_need_no_edit() -> None:
    result = ter("the cat sat on the mat", "the cat sat on the mat")
    assert (result.num_edits, result.ref_len, result.score) == (0.0, 6.0, 0.0)
    assert result.ops == " " * 6
    assert result.shifts == ()


def test_it_reproduces_the_shift_example_of_snover_et_al() -> None:
    # Snover et al. (2006) §2: one shift, two substitutions and one deletion, 4 / 13.
    result = ter(
        "this week the saudis denied information published in the new york times",
        "saudi arabia denied this week information published in the american new york times",
    )
    assert result.num_edits == 4.0
    assert result.ref_len == 13.0
    assert len(result.shifts) == 1
    assert result.hyp[result.shifts[0].start : result.shifts[0].end + 1] == ("this", "week")
    assert (result.count("S"), result.count("I"), result.count("D")) == (2, 0, 1)
    assert result.hyp_after_shifts[2:5] == ("denied", "this", "week")


def test_a_single_swapped_word_costs_one_shift() -> None:
    result = ter("b a c d e", "a b c d e")
    assert result.num_edits == 1.0
    assert len(result.shifts) == 1
    assert result.hyp_after_shifts == ("a", "b", "c", "d", "e")


def test_a_shift_that_saves_exactly_its_cost_is_still_taken_as_tercom_does() -> None:
    # Moving "x" fixes one substitution and costs one shift: tercom takes zero-gain shifts.
    expected = tercom(["x", "a", "b"], ["a", "x", "c"])
    result = ter("x a b", "a x c")
    assert result.num_edits == expected[0]
    assert len(result.shifts) == len(expected[3])


def test_it_lowercases_by_default_and_keeps_case_when_asked() -> None:
    assert ter("The Cat", "the cat").num_edits == 0.0
    assert ter("The Cat", "the cat", params=TerParams(lowercase=False)).num_edits == 2.0


def test_it_splits_only_on_whitespace_like_tercom() -> None:
    assert tokenize("  Hello,\tWorld!  foo\n") == ["hello,", "world!", "foo"]
    assert tokenize("   ") == []
    # Java's \\s is ASCII only: a no-break space stays inside the token.
    assert tokenize("a\u00a0b c") == ["a\u00a0b", "c"]


def test_empty_sides_follow_tercoms_null_string_rule() -> None:
    assert (ter("", "a b c").num_edits, ter("", "a b c").ref_len) == (3.0, 3.0)
    assert ter("", "a b c").ops == "DDD"
    only_hyp = ter("a b", "")
    assert (only_hyp.num_edits, only_hyp.ref_len, only_hyp.score) == (2.0, 0.0, 1.0)
    both = ter("", " ")
    assert (both.num_edits, both.ref_len, both.score) == (0.0, 0.0, 0.0)


def test_the_edit_sequence_rebuilds_the_reference() -> None:
    result = ter("d a b c e f g", "a b c d e g f")
    assert replay(result.hyp, [(s.start, s.end, s.newloc) for s in result.shifts]) == list(
        result.hyp_after_shifts
    )
    hyp_pos = ref_pos = 0
    for op in result.ops:
        if op == " ":
            assert result.hyp_after_shifts[hyp_pos] == result.ref[ref_pos]
        if op in " SD":
            ref_pos += 1
        if op in " SI":
            hyp_pos += 1
    assert (hyp_pos, ref_pos) == (len(result.hyp), len(result.ref))
    n_edits = sum(result.count(c) for c in "SID") + len(result.shifts)
    assert result.num_edits == n_edits


def test_costs_are_pluggable() -> None:
    # A substitution dearer than a deletion plus an insertion is replaced by them.
    result = ter("a", "b", costs=TerCosts(substitute=2.5))
    assert result.num_edits == 2.0
    assert sorted(result.ops) == ["D", "I"]
    expensive_shift = ter("b a c d e", "a b c d e", costs=TerCosts(shift=3.0))
    assert expensive_shift.shifts == ()
    assert expensive_shift.num_edits == 2.0


class StemMatch:
    """A toy TERp-style model: words sharing their first four letters are a 'stem' match."""

    def table(self, hyp: Sequence[str], ref: Sequence[str], costs: TerCosts) -> WordTable:
        exact = ExactMatch().table(hyp, ref, costs)
        cost, op = exact.cost.copy(), exact.op.copy()
        for i, h in enumerate(hyp):
            for j, r in enumerate(ref):
                if h != r and h[:4] == r[:4]:
                    cost[i, j] = 0.25
                    op[i, j] = OP_STEM
        return WordTable(cost, op, exact.shiftable | (op == OP_STEM))


def test_a_match_model_adds_its_own_edit_types() -> None:
    result = ter("she walked home", "she walks home", model=StemMatch())
    assert result.num_edits == 0.25
    assert result.ops == " T "
    # The stem match also anchors a shift, as TERp's do.
    shifted = ter("walked she home", "she walks home", model=StemMatch())
    assert len(shifted.shifts) == 1
    assert shifted.num_edits == 1.25


def test_the_batch_agrees_with_single_segments_and_aggregates() -> None:
    hyps = ["a b c", "", "x y", "b a c d"]
    refs = ["a b d", "p q", "", "a b c d"]
    stats = ter_batch(hyps, refs)
    singles = [ter(h, r) for h, r in zip(hyps, refs, strict=True)]
    assert stats.num_edits.tolist() == [s.num_edits for s in singles]
    assert stats.ref_len.tolist() == [s.ref_len for s in singles]
    assert stats.scores.tolist() == [s.score for s in singles]
    assert corpus_ter(stats) == sum(s.num_edits for s in singles) / sum(s.ref_len for s in singles)
    assert corpus_ter(TerStats(np.zeros(1), np.zeros(1))) == 0.0


@pytest.mark.parametrize(
    ("beam", "max_size", "max_dist"),
    [(20, 10, 50), (1, 10, 50), (2, 3, 50), (5, 10, 2), (3, 1, 1)],
)
def test_the_kernels_follow_tercoms_control_flow_on_random_pairs(
    beam: int, max_size: int, max_dist: int
) -> None:
    rng = np.random.default_rng(20260521 + beam + 7 * max_size + 13 * max_dist)
    vocab = [f"w{k}" for k in range(5)]
    params = TerParams(beam_width=beam, max_shift_size=max_size, max_shift_distance=max_dist)
    hyps, refs, expected = [], [], []
    for _ in range(120):
        hyp = [vocab[k] for k in rng.integers(0, len(vocab), rng.integers(1, 14))]
        ref = [vocab[k] for k in rng.integers(0, len(vocab), rng.integers(1, 14))]
        edits, after, path, shifts = tercom(
            hyp, ref, beam=beam, max_size=max_size, max_dist=max_dist
        )
        result = ter(hyp, ref, params=params)
        assert result.num_edits == edits, (hyp, ref)
        assert list(result.hyp_after_shifts) == after
        assert result.ops == path
        assert [(s.start, s.end, s.moveto, s.newloc) for s in result.shifts] == shifts
        hyps.append(hyp)
        refs.append(ref)
        expected.append(edits)
    assert ter_batch(hyps, refs, params=params).num_edits.tolist() == expected


def test_non_default_costs_follow_tercoms_control_flow() -> None:
    rng = np.random.default_rng(7)
    costs = {"match": 0.0, "substitute": 0.75, "insert": 1.0, "delete": 0.5, "shift": 0.5}
    for _ in range(60):
        hyp = [f"w{k}" for k in rng.integers(0, 4, rng.integers(1, 12))]
        ref = [f"w{k}" for k in rng.integers(0, 4, rng.integers(1, 12))]
        edits = tercom(hyp, ref, costs=costs)[0]
        assert ter(hyp, ref, costs=TerCosts(**costs)).num_edits == edits
        assert ter_batch([hyp], [ref], costs=TerCosts(**costs)).num_edits[0] == edits


def test_it_rejects_bad_input_with_clear_errors() -> None:
    with pytest.raises(InputError, match="3 hypotheses but 2 references"):
        ter_batch(["a", "b", "c"], ["a", "b"])
    with pytest.raises(InputError, match="must be a string"):
        tokenize(None)  # type: ignore[arg-type]
    with pytest.raises(InputError, match="hypothesis 1: a token is empty or contains whitespace"):
        ter_batch([["a"], ["b c"]], [["a"], ["b"]])
    with pytest.raises(InputError, match="reference 1: expected a string or a token sequence"):
        ter_batch(["a", "b"], ["a", None])  # type: ignore[list-item]
    with pytest.raises(OptionsError, match="'shift' must be > 0"):
        ter("a", "b", costs=TerCosts(shift=0.0))
    with pytest.raises(OptionsError, match="'delete' must be a finite number"):
        ter("a", "b", costs=TerCosts(delete=-1.0))
    with pytest.raises(OptionsError, match="'beam_width' must be an integer"):
        ter("a", "b", params=TerParams(beam_width=-3))
    assert issubclass(InputError, ScoringError) and issubclass(OptionsError, ScoringError)


class BrokenModel:
    def __init__(self, table: WordTable) -> None:
        self._table = table

    def table(self, hyp: Sequence[str], ref: Sequence[str], costs: TerCosts) -> WordTable:
        return self._table


def test_it_rejects_a_match_table_of_the_wrong_shape_or_labels() -> None:
    good = ExactMatch().table(["a", "b"], ["a"], TerCosts())
    wrong_shape = WordTable(good.cost[:1], good.op[:1], good.shiftable[:1])
    with pytest.raises(InputError, match=r"'cost' has shape \(1, 1\), expected \(2, 1\)"):
        ter("a b", "a", model=BrokenModel(wrong_shape))
    bad_op = WordTable(good.cost, np.full((2, 1), ord("?"), np.int8), good.shiftable)
    with pytest.raises(InputError, match="unknown edit labels"):
        ter("a b", "a", model=BrokenModel(bad_op))
    negative = WordTable(-good.cost - 1, good.op, good.shiftable)
    with pytest.raises(InputError, match="finite values ≥ 0"):
        ter("a b", "a", model=BrokenModel(negative))
    assert good.op.tolist() == [[OP_MATCH], [OP_SUB]]


def test_results_carry_the_signature_of_their_settings() -> None:
    stats = ter_batch(["a"], ["a"], params=TerParams(lowercase=False))
    assert stats.signature == signature(params=TerParams(lowercase=False))
    assert stats.signature == (
        "ter:tercom-0.8.0|case:mixed|tok:whitespace|beam:20|shift-size:10|shift-dist:50"
        "|costs:0,1,1,1,1"
    )
