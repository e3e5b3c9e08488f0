"""The lexical and identity aligners on hand-made examples."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pytest

from scoring import resources
from scoring.aligners import get_aligner
from scoring.aligners import lexical as lexical_module
from scoring.aligners.base import Aligner
from scoring.aligners.lexical import (
    IDENTICAL,
    LOWER,
    PPDB,
    STEM,
    WORDNET,
    greedy_one_to_one,
    load_ppdb,
)
from scoring.aligners.options import IdentityOptions
from scoring.errors import FormatError, OptionsError, ResourceMissingError


def _words(
    tokens: list[str], links: frozenset[tuple[int, int]], target: list[str]
) -> set[tuple[str, str]]:
    return {(tokens[i], target[j]) for i, j in links}


def test_identical_lowercase_and_stem_matches_are_sure() -> None:
    source = ["The", "officials", "visited", "Paris"]
    target = ["the", "official", "visits", "paris"]
    output = get_aligner("lexical", wordnet=False).align(source, target)
    assert output.sure == {(0, 0), (1, 1), (2, 2), (3, 3)}
    assert output.possible == output.sure
    assert output.metadata["rule"] == {
        "0-0": "lowercase",
        "1-1": "stem",
        "2-2": "stem",
        "3-3": "lowercase",
    }
    assert output.confidence[(1, 1)] < output.confidence[(0, 0)]


def test_identity_links_only_identical_words_ignoring_case() -> None:
    source = ["The", "officials", "visited", "Paris"]
    target = ["the", "official", "visits", "paris"]
    output = get_aligner("identity").align(source, target)
    assert output.sure == {(0, 0), (3, 3)}


def test_identity_has_no_match_rules_to_turn_on_so_it_stays_the_baseline() -> None:
    for option in ("stem", "wordnet", "ppdb", "strict_resources"):
        with pytest.raises(OptionsError, match=f"unknown option '{option}'.*known options: max"):
            IdentityOptions.from_dict({option: True})
    assert IdentityOptions.names() == ("max_length",)


def test_an_identity_model_holding_the_rule_options_at_their_baseline_values_loads() -> None:
    saved = get_aligner("identity", max_length=40).to_dict()
    saved["options"].update(stem=False, wordnet=False, ppdb=None, strict_resources=False)
    loaded = Aligner.from_dict(saved)
    assert loaded.options == IdentityOptions(max_length=40)
    saved["options"]["stem"] = True  # identity with stems was the lexical aligner, not identity
    with pytest.raises(OptionsError, match="'stem'"):
        Aligner.from_dict(saved)


def test_wordnet_synonyms_are_possible_links() -> None:
    source = ["he", "bought", "a", "car"]
    target = ["he", "purchased", "an", "automobile"]
    output = get_aligner("lexical").align(source, target)
    assert (0, 0) in output.sure
    assert {(1, 1), (3, 3)} <= output.possible - output.sure
    assert output.metadata["rule"]["3-3"] == "wordnet"
    assert output.warnings == ()


def test_stopwords_get_no_synonym_links() -> None:
    # WordNet lists "a" and "an" ... but function words are matched only by identity or stem.
    output = get_aligner("lexical").align(["a"], ["an"])
    assert output.possible == frozenset()


def test_ppdb_pairs_are_possible_links_in_either_order(tmp_path: Path) -> None:
    table = tmp_path / "ppdb.tsv"
    table.write_text("snag\tproblem\nhitch\tsnag\nbad line without tab\n", encoding="utf-8")
    aligner = get_aligner("lexical", wordnet=False, ppdb=str(table))
    output = aligner.align(["a", "small", "snag"], ["a", "small", "problem"])
    assert output.possible - output.sure == {(2, 2)}
    assert output.metadata["rule"]["2-2"] == "ppdb"
    reverse = aligner.align(["a", "small", "problem"], ["a", "small", "snag"])
    assert (2, 2) in reverse.possible


def test_a_ppdb_table_in_utf16_is_refused_naming_the_file(tmp_path: Path) -> None:
    table = tmp_path / "ppdb-utf16.tsv"
    table.write_text("snag\tproblem\n", encoding="utf-16")
    with pytest.raises(FormatError, match=r"ppdb-utf16\.tsv:1: field 'ppdb': .*UTF-16"):
        get_aligner("lexical", wordnet=False, ppdb=str(table)).align(["snag"], ["problem"])


def test_a_ppdb_table_without_a_word_pair_is_refused_rather_than_matching_nothing(
    tmp_path: Path,
) -> None:
    table = tmp_path / "ppdb-rules.txt"  # PPDB's own rule format, not the lexical table
    table.write_text("[NN] ||| snag ||| problem ||| p=0.3\n", encoding="utf-8")
    with pytest.raises(FormatError, match=r"ppdb-rules\.txt: field 'ppdb': .*no 'word<TAB>word'"):
        get_aligner("lexical", wordnet=False, ppdb=str(table)).align(["snag"], ["problem"])


def test_a_byte_order_mark_is_not_read_into_the_first_ppdb_word(tmp_path: Path) -> None:
    table = tmp_path / "ppdb.tsv"
    table.write_text("snag\tproblem\n", encoding="utf-8-sig")
    output = get_aligner("lexical", wordnet=False, ppdb=str(table)).align(["snag"], ["problem"])
    assert output.possible == {(0, 0)}


def test_the_shared_ppdb_table_loads_quickly(shared_data: Path) -> None:
    path = shared_data / "ppdb" / "ppdb-1.0-xxxl-lexical.synonyms.tsv"
    lexical_module._load_ppdb_cached.cache_clear()
    started = time.perf_counter()
    table = load_ppdb(path)
    elapsed = time.perf_counter() - started
    assert len(table) > 200_000
    assert ("102,70", "102.70") in table and ("102.70", "102,70") in table
    assert elapsed < 5.0, f"loading PPDB took {elapsed:.2f} s"


def test_a_missing_ppdb_file_is_a_reported_fallback(tmp_path: Path) -> None:
    aligner = get_aligner("lexical", wordnet=False, ppdb=str(tmp_path / "nope.tsv"))
    output = aligner.align(["a", "snag"], ["a", "problem"])
    assert output.sure == {(0, 0)}
    assert len(output.warnings) == 1
    assert "PPDB paraphrase matches skipped" in output.warnings[0]
    assert "nope.tsv" in output.warnings[0]


def test_a_missing_ppdb_file_raises_when_resources_are_strict(tmp_path: Path) -> None:
    aligner = get_aligner("lexical", ppdb=str(tmp_path / "nope.tsv"), strict_resources=True)
    with pytest.raises(ResourceMissingError, match=r"nope\.tsv"):
        aligner.align(["a"], ["a"])


def test_missing_wordnet_is_a_reported_fallback(monkeypatch: pytest.MonkeyPatch) -> None:
    def missing() -> None:
        raise ResourceMissingError("the NLTK resource 'wordnet' is not installed; install it")

    monkeypatch.setattr(resources, "wordnet", missing)
    source, target = ["he", "bought", "a", "car"], ["he", "purchased", "a", "car"]
    output = get_aligner("lexical").align(source, target)
    assert output.sure == {(0, 0), (2, 2), (3, 3)}
    assert any("WordNet synonym matches skipped" in w and "install" in w for w in output.warnings)
    with pytest.raises(ResourceMissingError):
        get_aligner("lexical", strict_resources=True).align(["a"], ["a"])


def test_a_repeated_word_goes_where_its_neighbours_match() -> None:
    source = ["the", "cat", "slept", "while", "the", "dog", "barked"]
    target = ["while", "the", "dog", "barked", ",", "the", "cat", "slept"]
    output = get_aligner("identity").align(source, target)
    # By relative position the first "the" would go to target 1; its neighbours say target 5.
    assert (0, 5) in output.sure and (4, 1) in output.sure
    assert output.sure == {(0, 5), (1, 6), (2, 7), (3, 0), (4, 1), (5, 2), (6, 3)}


def test_without_context_a_repeated_word_goes_to_the_relatively_closest_position() -> None:
    source = ["x", ",", "y"]
    target = [",", "a", "b", "c", "d", "e", "f", ","]
    assert get_aligner("identity").align(source, target).sure == {(1, 0)}
    source = ["x", "y", ",", "z"]
    assert get_aligner("identity").align(source, target).sure == {(2, 7)}


def test_links_are_one_to_one_and_stronger_matches_win() -> None:
    classes = np.array(
        [
            [IDENTICAL, STEM, 0],
            [WORDNET, LOWER, 0],
            [0, PPDB, PPDB],
        ],
        dtype=np.int8,
    )
    accepted = greedy_one_to_one(classes)
    assert sorted(accepted) == [(0, 0, IDENTICAL), (1, 1, LOWER), (2, 2, PPDB)]
    assert len({i for i, _, _ in accepted}) == len(accepted)
    assert len({j for _, j, _ in accepted}) == len(accepted)


def _plain_runs(strong: np.ndarray) -> np.ndarray:
    n, m = strong.shape
    out = np.zeros((n, m), dtype=np.int64)
    for i in range(n):
        for j in range(m):
            if not strong[i, j]:
                continue
            a = 0
            while i - a - 1 >= 0 and j - a - 1 >= 0 and strong[i - a - 1, j - a - 1]:
                a += 1
            b = 0
            while i + b + 1 < n and j + b + 1 < m and strong[i + b + 1, j + b + 1]:
                b += 1
            out[i, j] = a + b + 1
    return out


def test_diagonal_runs_agree_with_a_plain_reference() -> None:
    rng = np.random.default_rng(7)
    for _ in range(50):
        strong = rng.random((int(rng.integers(1, 9)), int(rng.integers(1, 9)))) < 0.5
        np.testing.assert_array_equal(lexical_module._diagonal_runs(strong), _plain_runs(strong))


def test_stems_match_across_inflection_and_case() -> None:
    source = ["Running", "dogs"]
    target = ["a", "dog", "runs"]
    output = get_aligner("lexical", wordnet=False).align(source, target)
    assert _words(source, output.sure, target) == {("Running", "runs"), ("dogs", "dog")}
