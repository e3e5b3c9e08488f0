"""Property tests (hypothesis) of the edit-rate, MT and agreement metrics.

TER: a sentence needs no edit to become itself; the edits lie between the length difference and
the plain word Levenshtein distance (shifts only ever help); the edit sequence accounts for every
edit and, replayed, turns the hypothesis into the reference; the batch gives the figures of the
single-segment function. WER and PER: zero for identical sentences; WER is the Levenshtein
distance over the reference length; PER is at least the length difference over it, ignores word
order and never exceeds WER. BLEU and NIST: the statistics count each segment's clipped n-gram
matches; BLEU lies in [0, 1], is 1 for a sentence against itself and only loses to the brevity
penalty; NIST is finite, non-negative and grows with its order. Cohen's κ, Fleiss' κ,
Krippendorff's α: at most 1 or undefined (``None`` with a reason), 1 for raters that always agree,
blind to the order of items and raters and to the names of the categories; Cohen's κ is at least
−1 and symmetric in its raters. Ĉ: at most 1, exactly 1 for perfect agreement, 0 at chance level,
increasing in π̂, undefined (not a crash) when π̂0 = 1; π̂ from per-pair statistics is a
proportion, symmetric in the annotators, and 1 for an annotator compared with itself.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
from hypothesis import given
from hypothesis import strategies as st

from scoring.alignment.agreement import (
    LEVELS,
    AgreementPair,
    AgreementParams,
    aggregate,
    chance_corrected,
    pair_statistics,
)
from scoring.alignment.edit_model import EditModel
from scoring.alignment.kappa import (
    AgreementStatistic,
    cohen_kappa,
    fleiss_kappa,
    fleiss_kappa_from_counts,
    krippendorff_alpha_nominal,
)
from scoring.edit.ter import ter, ter_batch
from scoring.mt.metrics import bleu, ngram_stats, nist, per, wer
from tests.scoring.edit.ter_reference import perform_shift
from tests.scoring.strategies import SETTINGS, alignments

IntArray = npt.NDArray[np.int64]


def levenshtein(a: Sequence[str], b: Sequence[str]) -> int:
    """Unit-cost word edit distance, the textbook dynamic programme."""
    row = list(range(len(b) + 1))
    for i, x in enumerate(a, start=1):
        prev, row[0] = row[0], i
        for j, y in enumerate(b, start=1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (x != y))
    return row[-1]


def _close(value: float | None, target: float) -> bool:
    return value is not None and math.isclose(value, target, rel_tol=0.0, abs_tol=1e-12)


# --- TER ---------------------------------------------------------------------------------------

# Few words and short sentences: repeated words make shifts worth taking.
TER_WORD = st.sampled_from("a b c d e".split())
TER_WORDS = st.lists(TER_WORD, max_size=8)


@st.composite
def moved_pairs(draw: st.DrawFn) -> tuple[list[str], list[str]]:
    """A reference and a hypothesis made from it by moving a block of words, then maybe
    inserting, deleting or replacing one word: pairs where shifts pay."""
    ref = draw(st.lists(TER_WORD, min_size=2, max_size=8))
    start = draw(st.integers(0, len(ref) - 1))
    end = draw(st.integers(start + 1, len(ref) - (start == 0)))
    block, rest = ref[start:end], ref[:start] + ref[end:]
    at = draw(st.integers(0, len(rest)).filter(lambda k: k != start))
    hyp = rest[:at] + block + rest[at:]
    edit = draw(st.sampled_from(["none", "insert", "delete", "replace"]))
    where = draw(st.integers(0, len(hyp) - 1))
    if edit == "insert":
        hyp.insert(where, draw(TER_WORD))
    elif edit == "delete" and len(hyp) > 1:
        del hyp[where]
    elif edit == "replace":
        hyp[where] = draw(TER_WORD)
    return hyp, ref


# Both kinds at once: hypothesis would mostly pick one branch of a one_of.
TER_PAIRS = st.tuples(moved_pairs(), st.tuples(TER_WORDS, TER_WORDS))


@SETTINGS
@given(TER_WORDS)
def test_a_sentence_needs_no_edit_to_become_itself(words: list[str]) -> None:
    result = ter(words, words)
    assert result.num_edits == 0.0 and result.score == 0.0
    assert result.shifts == () and set(result.ops) <= {" "}


@SETTINGS
@given(TER_PAIRS)
def test_ter_edits_lie_between_the_length_difference_and_the_levenshtein_distance(
    pairs: tuple[tuple[list[str], list[str]], ...],
) -> None:
    for hyp, ref in pairs:
        edits = ter(hyp, ref).num_edits
        assert abs(len(hyp) - len(ref)) <= edits <= levenshtein(hyp, ref)


@SETTINGS
@given(TER_PAIRS)
def test_the_ter_edit_sequence_accounts_for_every_edit_and_rebuilds_the_reference(
    pairs: tuple[tuple[list[str], list[str]], ...],
) -> None:
    for hyp, ref in pairs:
        result = ter(hyp, ref)
        words = list(result.hyp)
        for shift in result.shifts:
            assert 0 <= shift.start <= shift.end < len(words) and -1 <= shift.newloc < len(words)
            words = perform_shift(words, shift.start, shift.end, shift.newloc)
        assert words == list(result.hyp_after_shifts)
        h = r = 0
        for op in result.ops:
            if op == " ":
                assert result.hyp_after_shifts[h] == result.ref[r]
            h += op in " SI"
            r += op in " SD"
        assert (h, r) == (len(hyp), len(ref))
        assert result.num_edits == len(result.shifts) + sum(result.count(c) for c in "SID")


@SETTINGS
@given(st.lists(TER_PAIRS, min_size=1, max_size=2).map(lambda ps: [p for two in ps for p in two]))
def test_ter_batch_gives_the_figures_of_ter_for_every_pair(
    pairs: list[tuple[list[str], list[str]]],
) -> None:
    stats = ter_batch([h for h, _ in pairs], [r for _, r in pairs])
    singles = [ter(h, r) for h, r in pairs]
    assert stats.num_edits.tolist() == [s.num_edits for s in singles]
    assert stats.ref_len.tolist() == [s.ref_len for s in singles]
    assert stats.scores.tolist() == [s.score for s in singles]


# --- WER, PER, BLEU, NIST ----------------------------------------------------------------------

# "0" is in the vocabulary: mteval weighs a bigram after the word 0 as Perl does.
MT_WORDS = st.lists(st.sampled_from("the cat sat on mat 0".split()), max_size=9)
MT_NONEMPTY = st.lists(st.sampled_from("the cat sat on mat 0".split()), min_size=1, max_size=9)


@SETTINGS
@given(MT_WORDS)
def test_wer_and_per_of_a_sentence_against_itself_are_zero(words: list[str]) -> None:
    assert wer(words, words) == 0.0 and per(words, words) == 0.0


@SETTINGS
@given(MT_WORDS, MT_NONEMPTY)
def test_wer_is_the_levenshtein_distance_over_the_reference_length(
    hyp: list[str], ref: list[str]
) -> None:
    assert wer(hyp, ref) == levenshtein(hyp, ref) / len(ref)


@SETTINGS
@given(MT_WORDS, MT_WORDS, st.randoms(use_true_random=False))
def test_per_is_at_least_the_length_difference_ignores_word_order_and_never_exceeds_wer(
    hyp: list[str], ref: list[str], rng: random.Random
) -> None:
    value = per(hyp, ref)
    # Words of the longer side beyond the shorter one's length can never be shared.
    assert value >= (abs(len(hyp) - len(ref)) / len(ref) if ref else float(bool(hyp)))
    assert value <= wer(hyp, ref)
    shuffled = list(hyp)
    rng.shuffle(shuffled)
    assert per(shuffled, ref) == value


def clipped_matches(hyp: Sequence[str], ref: Sequence[str], n: int) -> int:
    def grams(words: Sequence[str]) -> Counter[tuple[str, ...]]:
        return Counter(tuple(words[i : i + n]) for i in range(len(words) - n + 1))

    return sum((grams(hyp) & grams(ref)).values())


@SETTINGS
@given(st.lists(st.tuples(MT_WORDS, MT_WORDS), min_size=1, max_size=3))
def test_ngram_statistics_count_the_clipped_matches_of_each_segment(
    pairs: list[tuple[list[str], list[str]]],
) -> None:
    stats = ngram_stats([h for h, _ in pairs], [r for _, r in pairs], information=False)
    for s, (hyp, ref) in enumerate(pairs):
        assert (stats.hyp_len[s], stats.ref_len[s]) == (len(hyp), len(ref))
        for n in range(1, stats.matches.shape[1] + 1):
            assert stats.hyp_ngrams[s, n - 1] == max(len(hyp) - n + 1, 0)
            assert stats.matches[s, n - 1] == clipped_matches(hyp, ref, n)


@SETTINGS
@given(
    st.lists(st.tuples(MT_WORDS, MT_WORDS), min_size=1, max_size=3),
    st.integers(1, 4),
    st.sampled_from(["mteval", "none"]),
)
def test_bleu_lies_in_the_unit_interval_and_only_loses_to_the_brevity_penalty(
    pairs: list[tuple[list[str], list[str]]], order: int, smoothing: str
) -> None:
    stats = ngram_stats([h for h, _ in pairs], [r for _, r in pairs], information=False)
    with_bp = bleu(stats, order=order, smoothing=smoothing)
    without_bp = bleu(stats, order=order, smoothing=smoothing, brevity_penalty=False)
    assert np.all(with_bp >= 0.0) and np.all(with_bp <= without_bp) and np.all(without_bp <= 1.0)


@SETTINGS
@given(MT_NONEMPTY, st.integers(1, 4), st.booleans())
def test_bleu_of_a_sentence_against_itself_is_one(
    words: list[str], order: int, brevity_penalty: bool
) -> None:
    stats = ngram_stats([words], [words], information=False)
    # mteval's smoothing counts an order longer than the sentence as precision 1; without
    # smoothing such an order has no match and the score is 0.
    smoothed = bleu(stats, order=order, brevity_penalty=brevity_penalty)
    plain = bleu(stats, order=order, smoothing="none", brevity_penalty=brevity_penalty)
    assert smoothed.tolist() == [1.0]
    assert plain.tolist() == [1.0 if len(words) >= order else 0.0]


@SETTINGS
@given(st.lists(st.tuples(MT_WORDS, MT_NONEMPTY), min_size=1, max_size=3))
def test_nist_is_finite_non_negative_and_grows_with_its_order(
    pairs: list[tuple[list[str], list[str]]],
) -> None:
    stats = ngram_stats([h for h, _ in pairs], [r for _, r in pairs])
    assert np.all(np.isfinite(stats.info) & (stats.info >= 0.0))
    scores = np.stack([nist(stats, order=n) for n in range(1, 6)])
    assert np.all(np.isfinite(scores) & (scores >= 0.0))
    assert np.all(np.diff(scores, axis=0) >= 0.0)


# --- Cohen's κ, Fleiss' κ, Krippendorff's α ----------------------------------------------------

CODE = st.integers(0, 2)


@st.composite
def rating_tables(draw: st.DrawFn, missing: bool = False) -> IntArray:
    """An ``(items, raters)`` table of codes 0..2 (and −1, missing, if asked)."""
    items = draw(st.integers(0, 10))
    raters = draw(st.integers(2, 4))
    code = st.integers(-1, 2) if missing else CODE
    cells = draw(st.lists(code, min_size=items * raters, max_size=items * raters))
    return np.array(cells, np.int64).reshape(items, raters)


@st.composite
def unanimous_tables(draw: st.DrawFn, missing: bool = False) -> IntArray:
    """Every rater gives each item the same code (missing ratings aside)."""
    codes = np.array(draw(st.lists(CODE, max_size=10)), np.int64)
    raters = draw(st.integers(2, 4))
    table = np.repeat(codes[:, None], raters, axis=1)
    if missing and table.size:
        holes = draw(st.lists(st.booleans(), min_size=table.size, max_size=table.size))
        table[np.array(holes).reshape(table.shape)] = -1
    return table


def _well_formed(stat: AgreementStatistic) -> bool:
    """At most 1 when defined; undefined exactly when a reason is given."""
    if stat.value is None:
        return stat.undefined_reason != ""
    return stat.undefined_reason == "" and math.isfinite(stat.value) and stat.value <= 1.0 + 1e-12


def _same(x: float | None, y: float | None) -> bool:
    if x is None or y is None:
        return x is None and y is None
    return math.isclose(x, y, rel_tol=1e-9, abs_tol=1e-12)


@SETTINGS
@given(rating_tables())
def test_cohens_kappa_is_at_most_one_at_least_minus_one_and_symmetric_in_its_raters(
    table: IntArray,
) -> None:
    forward = cohen_kappa(table[:, 0], table[:, 1])
    backward = cohen_kappa(table[:, 1], table[:, 0])
    assert _well_formed(forward)
    assert forward.value is None or forward.value >= -1.0 - 1e-12
    assert forward.value == backward.value and forward.observed == backward.observed


@SETTINGS
@given(rating_tables(), rating_tables(missing=True))
def test_fleiss_kappa_and_krippendorffs_alpha_are_at_most_one_or_undefined(
    table: IntArray, gappy: IntArray
) -> None:
    fleiss = fleiss_kappa(table)
    assert _well_formed(fleiss)
    counts = np.stack([(table == c).sum(axis=1) for c in range(3)], axis=1).reshape(-1, 3)
    assert _same(fleiss_kappa_from_counts(counts).value, fleiss.value)
    assert _well_formed(krippendorff_alpha_nominal(table))
    assert _well_formed(krippendorff_alpha_nominal(gappy))


@SETTINGS
@given(unanimous_tables(), unanimous_tables(missing=True))
def test_raters_who_always_agree_score_one_whenever_it_is_defined(
    table: IntArray, gappy: IntArray
) -> None:
    # Defined exactly when more than one category is used (by pairable ratings, for α).
    several = len(set(table[:, 0].tolist())) > 1
    pairable = gappy[(gappy >= 0).sum(axis=1) >= 2]
    several_pairable = len(set(pairable[pairable >= 0].tolist())) > 1
    for stat, defined in (
        (cohen_kappa(table[:, 0], table[:, 1]), several),
        (fleiss_kappa(table), several),
        (krippendorff_alpha_nominal(table), several),
        (krippendorff_alpha_nominal(gappy), several_pairable),
    ):
        assert (stat.value is not None) == defined, stat
        assert stat.value is None or _close(stat.value, 1.0), stat


@SETTINGS
@given(rating_tables(missing=True), st.randoms(use_true_random=False), st.permutations([0, 1, 2]))
def test_no_statistic_depends_on_the_order_of_items_or_raters_or_the_category_names(
    table: IntArray, rng: random.Random, relabel: list[int]
) -> None:
    items = list(range(table.shape[0]))
    raters = list(range(table.shape[1]))
    rng.shuffle(items)
    rng.shuffle(raters)
    codes = np.array(relabel, np.int64)

    def moved(t: IntArray) -> IntArray:
        return np.where(t >= 0, codes[np.maximum(t, 0)], -1)[items][:, raters]

    assert _same(
        krippendorff_alpha_nominal(moved(table)).value, krippendorff_alpha_nominal(table).value
    )
    full = np.maximum(table, 0)
    assert _same(fleiss_kappa(moved(full)).value, fleiss_kappa(full).value)
    first, second = raters[0], raters[1]
    assert _same(
        cohen_kappa(moved(full)[:, 0], moved(full)[:, 1]).value,
        cohen_kappa(full[:, first], full[:, second]).value,
    )


# --- Ĉ and π̂ -----------------------------------------------------------------------------------

PROPORTION = st.floats(0.0, 1.0)
BELOW_ONE = st.floats(0.0, 1.0, exclude_max=True)


@SETTINGS
@given(PROPORTION, PROPORTION, BELOW_ONE)
def test_c_hat_is_at_most_one_and_increases_with_pi_hat(
    pi_a: float, pi_b: float, pi0: float
) -> None:
    low, high = sorted((pi_a, pi_b))
    c_low, why_low = chance_corrected(low, pi0)
    c_high, why_high = chance_corrected(high, pi0)
    assert c_low is not None and c_high is not None and why_low == why_high == ""
    assert c_low <= c_high <= 1.0


@SETTINGS
@given(BELOW_ONE)
def test_c_hat_is_one_for_perfect_agreement_and_zero_at_chance(pi0: float) -> None:
    assert chance_corrected(1.0, pi0) == (1.0, "")
    assert chance_corrected(pi0, pi0) == (0.0, "")


@SETTINGS
@given(st.none() | PROPORTION, st.none() | st.just(1.0))
def test_c_hat_is_undefined_with_a_reason_when_pi0_is_one_or_missing(
    pi: float | None, pi0: float | None
) -> None:
    value, why = chance_corrected(pi, pi0)
    assert value is None and why


@st.composite
def agreement_pairs(draw: st.DrawFn, key: str) -> AgreementPair:
    source = draw(st.lists(st.sampled_from("a b the cat".split()), min_size=1, max_size=4))
    target = draw(st.lists(st.sampled_from("a c the dog".split()), min_size=1, max_size=4))
    n, m = len(source), len(target)
    prefill, a, b = (draw(alignments(n, m)) for _ in range(3))
    return AgreementPair(key, source, target, prefill, a, b)


def _pi_hats(pairs: list[AgreementPair], params: AgreementParams) -> list[float | None]:
    models = {k: EditModel("A", k, 0.2, 0.0, 1) for k in ("possible", "sure")}
    stats = pair_statistics(pairs, models_a=models, models_b=models, params=params, threads=1)
    return [
        aggregate(stats, params=params, kind=kind, level=level).pi_hat
        for kind in params.kinds
        for level in LEVELS
    ]


@SETTINGS
@given(
    st.integers(1, 3).flatmap(lambda k: st.tuples(*(agreement_pairs(f"p{i}") for i in range(k)))),
    st.sampled_from(["paper", "pooled"]),
    st.booleans(),
    st.booleans(),
)
def test_pi_hat_is_a_proportion_symmetric_in_the_annotators_and_one_against_oneself(
    pairs: tuple[AgreementPair, ...], estimator: str, exclude_identical: bool, boundary: bool
) -> None:
    params = AgreementParams(
        samples=2, estimator=estimator, exclude_identical=exclude_identical, boundary_rule=boundary
    )
    forward = _pi_hats(list(pairs), params)
    swapped = [AgreementPair(p.key, p.source, p.target, p.prefill, p.b, p.a) for p in pairs]
    assert _pi_hats(swapped, params) == forward
    assert all(pi is None or 0.0 <= pi <= 1.0 for pi in forward)
    selves = [AgreementPair(p.key, p.source, p.target, p.prefill, p.a, p.a) for p in pairs]
    assert all(pi is None or pi == 1.0 for pi in _pi_hats(selves, params))
