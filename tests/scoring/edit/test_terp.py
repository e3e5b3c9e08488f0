"""TERp: parameter files, phrase tables, normalization, each edit type, bad input.

The edit-distance checks compare against a plain-Python weighted edit distance written here
(with a beam wide enough that TERp's pruning never bites and shifts turned off); the shift checks
are hand-worked.
"""

from __future__ import annotations

import math
import random
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from scoring.edit.terp import (
    EditCosts,
    PhraseEntry,
    PhraseTable,
    Terp,
    TerpParams,
    adjust_phrase_cost,
    align_segment,
    are_synonyms,
    normalize,
    parse_params,
    parse_phrase_table,
    porter_stem,
    read_params,
    read_phrase_table,
    read_shift_stop_words,
)
from scoring.errors import FormatError, InputError, ScoringError

# --- parameter files -----------------------------------------------------------------------------


def test_it_parses_typed_values_and_keeps_defaults_for_the_rest() -> None:
    params = parse_params(
        [
            "Beam Width (integer)                     : 35",
            "Default Deletion Cost (float)            : 1.4269364675533365",
            "Use Porter Stemming (boolean)            : TRUE",
            "Shift Constraint (string)                : relax",
            "Adjust Phrase Table Func (string)        : STD",
            "Adjust Phrase Table Params (float list)  : -0.23 -0.14, -0.07\t0.17",
            "Adjust Phrase Table Max (float)          : Infinity",
            "",
            "# a comment",
            "Output Prefix (filename)                 : out/terp.",
        ]
    )
    assert params.beam_width == 35
    assert params.deletion_cost == 1.4269364675533365
    assert params.use_porter_stemming is True
    assert params.shift_constraint == "relax"
    assert params.adjust_phrase_table_params == (-0.23, -0.14, -0.07, 0.17)
    assert params.adjust_phrase_table_max == math.inf
    assert params.insertion_cost == TerpParams().insertion_cost == 1.0
    assert params.shift_size == 10 and params.shift_distance == 50


def test_an_empty_value_keeps_a_number_but_empties_a_string() -> None:
    base = TerpParams(beam_width=35, shift_stop_word_list="stop.txt")
    params = parse_params(
        ["Beam Width (integer) : ", "Shift Stop Word List (string) :   "], base=base
    )
    assert params.beam_width == 35
    assert params.shift_stop_word_list == ""


def test_later_parameter_files_override_earlier_ones(tmp_path: Path) -> None:
    first = tmp_path / "a.param"
    second = tmp_path / "b.param"
    first.write_text("Beam Width (integer) : 35\nDefault Shift Cost (float) : 0.5\n")
    second.write_text("Beam Width (integer) : 7\n")
    params = read_params(first, second)
    assert (params.beam_width, params.shift_cost) == (7, 0.5)


def test_it_reads_terps_own_terpa_parameter_dump(shared_data: Path) -> None:
    params = read_params(shared_data / "conformance/terp/terpa.simple.param")
    assert params.normalize and not params.case_sensitive and params.cap_maximum_ter
    assert (params.beam_width, params.shift_constraint) == (35, "relax")
    assert params.insertion_cost == 0.2588527567630183
    assert params.stem_cost == params.synonym_cost == 0.0
    assert params.adjust_phrase_table_min == 0.0
    assert params.adjust_phrase_table_max == math.inf


@pytest.mark.parametrize(
    ("line", "field", "message"),
    [
        ("Beam Widht (integer) : 3", "Beam Widht (integer)", "unknown TERp parameter"),
        ("Beam Width (integer) : 3.5", "Beam Width (integer)", "expected an integer"),
        ("Normalize (boolean) : yes", "Normalize (boolean)", "expected true or false"),
        ("Default Shift Cost (float) : cheap", "Default Shift Cost (float)", "expected a number"),
    ],
)
def test_it_rejects_a_bad_parameter_line_naming_file_line_and_field(
    tmp_path: Path, line: str, field: str, message: str
) -> None:
    path = tmp_path / "bad.param"
    path.write_text(f"Normalize (boolean) : true\n{line}\n")
    with pytest.raises(FormatError) as info:
        read_params(path)
    assert (info.value.path, info.value.line, info.value.field) == (str(path), 2, field)
    assert message in str(info.value) and str(path) in str(info.value)


def test_it_rejects_a_line_without_a_colon() -> None:
    with pytest.raises(FormatError, match="Name \\(type\\) : value"):
        parse_params(["Beam Width 35"])


@pytest.mark.parametrize(
    "line",
    [
        "Default Shift Cost (float) : 0",
        "Default Insertion Cost (float) : -1",
        "Shift Constraint (string) : sideways",
        "Shift Constraint (string) : allow_mismatch",
        "Adjust Phrase Table Func (string) : LOG",
        "Word Class File (filename) : classes.txt",
    ],
)
def test_it_rejects_settings_out_of_range_or_unsupported(line: str) -> None:
    with pytest.raises(ScoringError):
        parse_params([line])


def test_the_adjust_function_needs_its_number_of_parameters() -> None:
    with pytest.raises(FormatError, match="needs 4 parameters"):
        parse_params(["Adjust Phrase Table Func (string) : STD"])


# --- phrase tables and stop words ----------------------------------------------------------------


def test_it_parses_both_phrase_table_line_forms_and_skips_identical_sides() -> None:
    table = parse_phrase_table(
        [
            "0.2 <p>sharp drop</p> <p>sharp fall</p>",
            "0.0 1.0 <p>american</p> <p>u.s.</p>",
            "0.5 <p>same words</p> <p>same words</p>",
            "",
        ]
    )
    assert table.entries == (
        PhraseEntry(("sharp", "drop"), ("sharp", "fall"), 0.2),
        PhraseEntry(("american",), ("u.s.",), 0.0),
        PhraseEntry(("american",), ("u.s.",), 1.0),
    )
    assert [e.prob for e in table.by_first["american"]] == [0.0, 1.0]


def test_it_rejects_a_malformed_phrase_table_line(tmp_path: Path) -> None:
    path = tmp_path / "pt.txt"
    path.write_text("0.2 <p>a</p> <p>b</p>\n0.3 <p>a</p> b\n")
    with pytest.raises(FormatError) as info:
        read_phrase_table(path)
    assert (info.value.path, info.value.line) == (str(path), 2)


def test_shift_stop_words_are_normalized_like_segments(tmp_path: Path) -> None:
    path = tmp_path / "stop.txt"
    path.write_text("The\n\n(\nn't\n")
    words = read_shift_stop_words(path, TerpParams(normalize=True))
    assert words == frozenset({"the", "(", "n't"})


# --- normalization -------------------------------------------------------------------------------


def test_normalization_tokenizes_as_terps_nist_rules() -> None:
    params = TerpParams(normalize=True)
    got = normalize("George W. Bush's cabinet (EZ) fell 5-3, to $700 now.", params)
    assert got == [
        "george",
        "w",
        ".",
        "bush",
        "'s",
        "cabinet",
        "(",
        "ez",
        ")",
        "fell",
        "5",
        "-",
        "3",
        ",",
        "to",
        "$",
        "700",
        "now",
        ".",
    ]
    # An abbreviation with an inner period keeps its final period.
    assert normalize("the U.S. House", params) == ["the", "u.s.", "house"]
    # TERp's final-period rule consumes the one space a split symbol left before the word:
    # "$700." becomes "$700 ." (Java's replaceAll does the same).
    assert normalize("to $700.", params) == ["to", "$700", "."]


def test_without_normalization_it_only_lowercases_and_splits_on_whitespace() -> None:
    assert normalize("  The  U.S.,\tHouse ") == ["the", "u.s.,", "house"]
    assert normalize("Keep Case", TerpParams(case_sensitive=True)) == ["Keep", "Case"]


def test_punctuation_stripping_and_number_normalization() -> None:
    params = TerpParams(strip_punctuation=True, normalize_numbers=True)
    got = normalize("twelve dogs, 1,000 cats (and $5)!", params)
    assert got == ["12", "dogs", "1000", "cats", "and", "5"]


# --- edits ---------------------------------------------------------------------------------------


def _reference_distance(
    hyp: list[str],
    ref: list[str],
    costs: EditCosts,
    eq: np.ndarray,
    stem: np.ndarray,
    syn: np.ndarray,
    phrases: list[tuple[int, tuple[str, ...], tuple[str, ...], float]],
) -> float:
    """Plain weighted edit distance over the same edits (no beam, no shifts)."""
    n, m = len(hyp), len(ref)
    d = np.full((m + 1, n + 1), np.inf)
    d[0, 0] = 0.0
    for i in range(m + 1):
        for j in range(n + 1):
            here = d[i, j]
            if i < m:
                d[i + 1, j] = min(d[i + 1, j], here + costs.dele[i])
            if j < n:
                d[i, j + 1] = min(d[i, j + 1], here + costs.ins[j])
            if i < m and j < n:
                options = [costs.match if eq[j, i] else costs.sub[j, i]]
                if stem[j, i]:
                    options.append(costs.stem)
                if syn[j, i]:
                    options.append(costs.synonym)
                d[i + 1, j + 1] = min(d[i + 1, j + 1], here + min(options))
            for start, rp, hp, cost in phrases:
                if start == i and tuple(hyp[j : j + len(hp)]) == hp:
                    ti, tj = i + len(rp), j + len(hp)
                    d[ti, tj] = min(d[ti, tj], here + cost)
    return float(d[m, n])


def test_without_shifts_the_search_equals_a_plain_weighted_edit_distance() -> None:
    rng = random.Random(7)
    words = ["a", "b", "c", "d", "e"]
    table = PhraseTable.of(
        [PhraseEntry(("a", "b"), ("c",), 0.3), PhraseEntry(("d",), ("e", "e"), 0.1)]
    )
    params = TerpParams(shift_constraint="noshift", beam_width=10**6)
    terp = Terp(params, phrase_table=table)
    for _ in range(60):
        hyp = [rng.choice(words) for _ in range(rng.randint(1, 7))]
        ref = [rng.choice(words) for _ in range(rng.randint(1, 7))]
        seg = terp.prepare(hyp, ref)
        stem = np.array([[rng.random() < 0.2 for _ in ref] for _ in hyp]) & ~seg.eq
        syn = np.array([[rng.random() < 0.2 for _ in ref] for _ in hyp]) & ~seg.eq
        seg = replace(seg, stem=stem, syn=syn)
        costs = EditCosts(
            sub=np.array([[rng.uniform(0.5, 2) for _ in ref] for _ in hyp]),
            ins=np.array([rng.uniform(0.1, 1.5) for _ in hyp]),
            dele=np.array([rng.uniform(0.1, 1.5) for _ in ref]),
            match=0.0,
            stem=rng.uniform(0, 1),
            synonym=rng.uniform(0, 1),
            shift=1.0,
            phrase=np.array([rng.uniform(0, 1) for _ in seg.phrase_entries]),
        )
        phrases = [
            (int(row[0]), e.ref, e.hyp, float(c))
            for row, e, c in zip(seg.phrases, seg.phrase_entries, costs.phrase, strict=True)
        ]
        got = align_segment(seg, costs, params)
        want = _reference_distance(hyp, ref, costs, seg.eq, stem, syn, phrases)
        assert got.num_edits == pytest.approx(want, abs=1e-12), (hyp, ref)
        assert not got.shifts


def _ops(terp: Terp, hyp: str, ref: str) -> tuple[str, float]:
    result = terp.align(hyp, ref)
    return result.ops, result.num_edits


def test_match_substitution_insertion_and_deletion() -> None:
    terp = Terp(TerpParams(insertion_cost=0.25, deletion_cost=0.5, substitution_cost=0.6))
    assert _ops(terp, "a b c", "a b c") == ("   ", 0.0)
    assert _ops(terp, "a x c", "a b c") == (" S ", 0.6)
    # A substitution dearer than an insertion plus a deletion is not used.
    assert _ops(Terp(TerpParams(substitution_cost=2.5)), "a x c", "a b c") == (" DI ", 2.0)
    assert _ops(terp, "a b c", "a c") == (" I ", 0.25)
    assert _ops(terp, "a c", "a b c") == (" D ", 0.5)


def test_a_stem_edit_aligns_words_with_the_same_porter_stem() -> None:
    assert porter_stem("corrected") == porter_stem("correct") == "correct"
    terp = Terp(TerpParams(use_porter_stemming=True, stem_cost=0.2))
    assert _ops(terp, "he corrected it", "he correct it") == (" T ", 0.2)
    assert _ops(Terp(), "he corrected it", "he correct it") == (" S ", 1.0)


def test_a_synonym_edit_aligns_words_sharing_a_wordnet_synset() -> None:
    assert are_synonyms("almost", "nearly") and not are_synonyms("almost", "table")
    terp = Terp(TerpParams(use_wordnet_synonymy=True, synonym_cost=0.3))
    assert _ops(terp, "it is almost done", "it is nearly done") == ("  Y ", 0.3)
    # The cheaper edit wins: a synonym dearer than a substitution is not used.
    dear = Terp(TerpParams(use_wordnet_synonymy=True, synonym_cost=1.5))
    assert _ops(dear, "it is almost done", "it is nearly done") == ("  S ", 1.0)


def test_a_phrase_substitution_costs_what_the_table_and_adjust_function_say() -> None:
    table = parse_phrase_table(["0.5 <p>stock market</p> <p>stock exchange</p>"])
    terp = Terp(TerpParams(), phrase_table=table)
    result = terp.align("the stock exchange fell", "the stock market fell")
    assert (result.ops, result.num_edits) == (" P ", 0.5)
    assert result.spans == ((1, 1), (2, 2), (1, 1))
    # STD: a + b·q·log10(p) + c·q·p + d·q, with q the TERp cost between the phrases (one
    # substitution at cost 1.0 here).
    params = TerpParams(
        adjust_phrase_table_func="STD", adjust_phrase_table_params=(0.1, -0.2, 0.3, 0.05)
    )
    want = 0.1 + -0.2 * 1.0 * math.log10(0.5) + 0.3 * 1.0 * 0.5 + 0.05 * 1.0
    assert adjust_phrase_cost(0.5, 1.0, params) == pytest.approx(want)
    std = Terp(params, phrase_table=table).align("the stock exchange fell", "the stock market fell")
    assert std.num_edits == pytest.approx(want)
    assert std.phrases[0][1] == pytest.approx(want)
    # The table is directional: reference words on the left.
    assert _ops(Terp(TerpParams(), phrase_table=table), "stock market", "stock exchange")[0] == " S"


def test_adjusted_phrase_costs_are_clamped() -> None:
    params = TerpParams(
        adjust_phrase_table_func="STDNONED",
        adjust_phrase_table_params=(-1.0, 0.0, 0.0),
        adjust_phrase_table_min=0.0,
    )
    assert adjust_phrase_cost(0.5, 0.0, params) == 0.0
    std = TerpParams(adjust_phrase_table_func="STD", adjust_phrase_table_params=(0, -1, 0, 0))
    assert adjust_phrase_cost(0.0, 1.0, std) == math.inf


def test_a_shift_moves_a_matching_phrase_when_it_pays() -> None:
    result = Terp().align("b c a", "a b c")
    assert result.hyp_after_shifts == ("a", "b", "c")
    assert (result.ops, result.num_edits) == ("   ", 1.0)
    assert [(s.start, s.end, s.newloc) for s in result.shifts] == [(2, 2, -1)]
    assert Terp(TerpParams(shift_constraint="noshift")).align("b c a", "a b c").num_edits == 2.0


def test_a_shift_of_only_stop_words_is_not_allowed() -> None:
    assert Terp().align("x y the", "the x y").num_edits == 1.0
    blocked = Terp(shift_stop_words={"the"})
    result = blocked.align("x y the", "the x y")
    assert (result.num_edits, result.shifts) == (2.0, ())


def test_relaxed_shifts_also_move_synonyms_and_exact_ones_do_not() -> None:
    base = {"use_wordnet_synonymy": True, "synonym_cost": 0.0}
    exact = Terp(TerpParams(shift_constraint="exact", **base)).align("b c nearly", "almost b c")
    relax = Terp(TerpParams(shift_constraint="relax", **base)).align("b c nearly", "almost b c")
    assert exact.num_edits == 2.0 and not exact.shifts
    assert relax.num_edits == 1.0 and relax.ops == "Y  "
    assert relax.hyp_after_shifts == ("nearly", "b", "c")


def test_the_score_is_capped_only_when_asked() -> None:
    assert Terp().align("a b c d", "x").score == 4.0
    assert Terp(TerpParams(cap_maximum_ter=True)).align("a b c d", "x").score == 1.0


def test_an_empty_side_costs_one_insertion_or_deletion_per_word() -> None:
    terp = Terp(TerpParams(insertion_cost=0.5, deletion_cost=2.0))
    assert (terp.align("", "a b").ops, terp.align("", "a b").num_edits) == ("DD", 4.0)
    assert (terp.align("a b c", "").num_edits, terp.align("a b c", "").score) == (1.5, 1.0)
    assert terp.align("", "").score == 0.0


# --- bad input -----------------------------------------------------------------------------------


def test_it_rejects_bad_segments() -> None:
    terp = Terp()
    with pytest.raises(InputError, match="string"):
        terp.align(3, "a")  # type: ignore[arg-type]
    with pytest.raises(InputError, match="whitespace"):
        terp.align(["a b"], ["a"])


def test_it_rejects_costs_of_the_wrong_shape_or_a_zero_shift_cost() -> None:
    terp = Terp()
    seg = terp.prepare("a b", "a c")
    good = terp.costs(seg)
    with pytest.raises(InputError, match="shape"):
        align_segment(seg, replace(good, sub=np.ones((3, 2))), terp.params)
    with pytest.raises(InputError, match="shift cost must be > 0"):
        align_segment(seg, replace(good, shift=0.0), terp.params)
    with pytest.raises(InputError, match="finite"):
        align_segment(seg, replace(good, ins=np.array([1.0, np.nan])), terp.params)


def test_a_phrase_database_that_is_not_a_text_table_is_refused(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="phrase_table="):
        Terp(TerpParams(phrase_database=str(tmp_path)))


def test_negative_costs_do_not_break_the_search() -> None:
    # TERp marks unreached cells with −1; ours uses +inf, so negative costs (which PERP's
    # learning can produce) still give the plain minimum.
    terp = Terp(TerpParams(shift_constraint="noshift", beam_width=10**6))
    seg = terp.prepare("a b", "c d")
    costs = replace(
        terp.costs(seg),
        ins=np.array([-0.5, -0.5]),
        dele=np.array([-0.5, -0.5]),
        sub=np.full((2, 2), 0.2),
    )
    result = align_segment(seg, costs, terp.params)
    assert result.num_edits == pytest.approx(-2.0)
    assert sorted(result.ops) == ["D", "D", "I", "I"]
    assert result.num_edits == _reference_distance(
        ["a", "b"], ["c", "d"], costs, seg.eq, seg.stem, seg.syn, []
    )


def test_relaxed_shift_candidates_extend_through_phrase_entries() -> None:
    # hyp "b c nyc x", ref "new york x b c", every word in error, "new york" → "nyc" in the
    # table: only through the phrase does hyp "nyc x" match ref "new york x", giving the
    # candidate "move hyp 2..3 to the front" in the bucket of 3-word spans.
    from scoring.edit.terp_search import _gather_shifts

    table = PhraseTable.of([PhraseEntry(("new", "york"), ("nyc",), 0.2)])
    seg = Terp(phrase_table=table).prepare("b c nyc x", "new york x b c")
    first = np.searchsorted(seg.phrases[:, 0], np.arange(6)).astype(np.int64)

    def gather(use_phrases: bool) -> set[tuple[int, ...]]:
        cands = np.empty((64, 5), np.int64)
        errors = (
            np.ones(4, np.bool_),
            np.ones(5, np.bool_),
            np.array([-1, -1, -1, 0, 1]),
            np.array([-1, -1, 1, 2]),  # halign: TERp's phrase window needs halign[0] <= 0
        )
        phrases = (
            seg.hyp_ids,
            np.ascontiguousarray(seg.phrases[:, 1]),
            np.ascontiguousarray(seg.phrases[:, 2]),
            first,
            seg.phrase_hyp_off,
            seg.phrase_hyp_ids,
            np.zeros(len(seg.phrases)),
        )
        stops = (np.zeros(4, np.bool_), np.zeros(5, np.bool_))
        n = _gather_shifts(
            np.arange(4), 5, seg.eq, errors, stops, (10, 50, use_phrases), phrases, cands
        )
        return {tuple(int(v) for v in row) for row in cands[:n]}

    with_phrases = gather(True)
    without = gather(False)
    assert with_phrases - without == {(2, 3, -1, -1, 2)}
    assert without <= with_phrases
