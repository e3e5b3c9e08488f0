"""The aligner interface: registry, options, outputs, saved models, bad input."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import numpy as np
import pytest

from scoring.aligners import AlignerOutput, available_aligners, get_aligner
from scoring.aligners.base import Aligner, aligner_class, parse_option_strings, read_model_file
from scoring.aligners.em import EMAligner
from scoring.aligners.lexical import IdentityAligner, LexicalAligner
from scoring.aligners.options import EMOptions, LexicalOptions
from scoring.alignment.links import Alignment
from scoring.errors import FormatError, InputError, ModelError, OptionsError, ScoringError

PAIRS = [
    (
        ["the", "cat", "sat", "on", "the", "mat", "."],
        ["a", "cat", "was", "sitting", "on", "the", "mat", "."],
    ),
    (["the", "dog", "barked", "."], ["a", "dog", "was", "barking", "."]),
    (["the", "cat", "slept", "."], ["a", "cat", "was", "sleeping", "."]),
    (["dogs", "chase", "cats"], ["cats", "are", "chased", "by", "dogs"]),
]


def test_the_registry_knows_the_three_aligners() -> None:
    assert {"identity", "lexical", "em"} <= set(available_aligners())
    assert isinstance(get_aligner("identity"), IdentityAligner)
    assert isinstance(get_aligner("lexical"), LexicalAligner)
    assert isinstance(get_aligner("em"), EMAligner)


def test_an_unknown_aligner_name_is_an_error_listing_the_known_ones() -> None:
    with pytest.raises(ScoringError) as error:
        get_aligner("giza")
    message = str(error.value)
    assert "'giza'" in message
    for name in ("identity", "lexical", "em"):
        assert name in message


def test_an_unknown_option_is_an_error_listing_the_known_ones() -> None:
    with pytest.raises(OptionsError, match=r"unknown option 'hmm_iteration'.*hmm_iterations"):
        get_aligner("em", hmm_iteration=3)


def test_an_option_of_the_wrong_type_or_out_of_range_is_an_error_naming_it() -> None:
    with pytest.raises(OptionsError, match=r"option 'hmm_iterations' .* must be an int"):
        get_aligner("em", hmm_iterations="five")
    with pytest.raises(OptionsError, match=r"option 'p_null' .* must be in \(0, 1\), got 1.5"):
        get_aligner("em", p_null=1.5)


def test_every_registered_aligner_takes_its_own_options_class() -> None:
    for name in available_aligners():
        klass = aligner_class(name)
        assert isinstance(klass().options, klass.options_class)
    with pytest.raises(OptionsError, match="takes EMOptions, not LexicalOptions"):
        EMAligner(LexicalOptions())  # type: ignore[arg-type]


def test_an_aligners_options_are_its_json_options_typed() -> None:
    aligner = get_aligner("em", hmm_iterations=2, identity_weight=5)
    assert aligner.options == EMOptions(hmm_iterations=2, identity_weight=5.0)
    assert aligner.options.to_dict()["identity_weight"] == 5.0
    assert EMOptions.from_dict(aligner.options.to_dict()) == aligner.options


def test_command_line_options_are_typed_by_their_options_class() -> None:
    parsed = parse_option_strings("em", ["hmm_iterations=2", "p_null=0.3", "lowercase=no"])
    assert parsed == {"hmm_iterations": 2, "p_null": 0.3, "lowercase": False}
    with pytest.raises(OptionsError, match="KEY=VALUE"):
        parse_option_strings("em", ["hmm_iterations"])
    with pytest.raises(OptionsError, match="must be a bool"):
        parse_option_strings("em", ["lowercase=perhaps"])


def test_an_output_needs_a_confidence_in_the_unit_interval_for_every_link() -> None:
    alignment = Alignment.from_links(2, 2, sure=[(0, 0)], possible=[(1, 1)])
    with pytest.raises(InputError, match="1-1 has no confidence"):
        AlignerOutput(alignment, {(0, 0): 0.5})
    with pytest.raises(InputError, match="outside"):
        AlignerOutput(alignment, {(0, 0): 0.5, (1, 1): 1.5})
    with pytest.raises(InputError, match="not a link"):
        AlignerOutput(alignment, {(0, 0): 0.5, (1, 1): 0.5, (0, 1): 0.1})
    output = AlignerOutput(alignment, {(0, 0): 0.9, (1, 1): 0.4})
    assert output.sure == {(0, 0)} and output.possible == {(0, 0), (1, 1)}


@pytest.mark.parametrize("name", ["identity", "lexical", "em"])
def test_every_aligner_returns_sure_within_possible_with_confidences(name: str) -> None:
    aligner = get_aligner(name, **({"hmm_iterations": 2} if name == "em" else {}))
    if aligner.needs_training:
        aligner.fit(PAIRS)
    for source, target in PAIRS:
        output = aligner.align(source, target)
        assert output.alignment.shape == (len(source), len(target))
        assert output.sure <= output.possible
        assert set(output.confidence) == set(output.possible)
        assert all(0.0 <= c <= 1.0 for c in output.confidence.values())


@pytest.mark.parametrize("side", ["source", "target"])
def test_an_empty_sentence_is_a_clear_error(side: str) -> None:
    aligner = get_aligner("identity")
    source, target = (["a"], []) if side == "target" else ([], ["a"])
    with pytest.raises(InputError, match=f"{side} sentence is empty"):
        aligner.align(source, target)


def test_a_sentence_beyond_the_maximum_length_is_a_clear_error() -> None:
    aligner = get_aligner("lexical")
    long = [f"w{k}" for k in range(500)]
    with pytest.raises(InputError, match=r"500 tokens.*max_length=250"):
        aligner.align(long, ["w1"])
    assert get_aligner("identity", max_length=600).align(long, ["w1"]).sure == {(1, 0)}


def test_a_training_pair_beyond_the_maximum_length_names_the_pair() -> None:
    long = [f"w{k}" for k in range(500)]
    with pytest.raises(InputError, match="training pair #2: target sentence has 500 tokens"):
        get_aligner("em").fit([PAIRS[0], (["a"], long)])


def test_tokens_must_be_a_list_of_words_not_a_string() -> None:
    with pytest.raises(InputError, match="list of tokens"):
        get_aligner("identity").align("the cat", ["the"])  # type: ignore[arg-type]
    with pytest.raises(InputError, match="token #2"):
        get_aligner("identity").align(["the", "big cat"], ["the"])


def test_an_untrained_em_aligner_refuses_to_align() -> None:
    with pytest.raises(ModelError, match="not trained"):
        get_aligner("em").align(["a"], ["a"])


def test_gold_alignments_must_match_the_training_pairs() -> None:
    with pytest.raises(InputError, match="1 gold alignments for 4 training pairs"):
        get_aligner("em").fit(PAIRS, [Alignment.empty(7, 8)])
    wrong = [Alignment.empty(1, 1)] + [None] * 3
    with pytest.raises(InputError, match="gold alignment #1 is for a 1×1 pair"):
        get_aligner("em").fit(PAIRS, wrong)


def test_a_trained_em_model_survives_save_and_load(tmp_path: Path) -> None:
    aligner = get_aligner("em", hmm_iterations=3, p_null=0.3)
    aligner.fit(PAIRS)
    path = aligner.save(tmp_path / "em.npz")
    loaded = Aligner.load(path)
    assert isinstance(loaded, EMAligner)
    assert loaded.options == aligner.options
    assert loaded.trained
    for source, target in [*PAIRS, (["an", "unseen", "cat"], ["the", "cat", "unseen"])]:
        before = aligner.align(source, target)
        after = loaded.align(source, target)
        assert after.alignment == before.alignment
        assert after.confidence == pytest.approx(before.confidence)
    assert loaded.lexicon(1) == pytest.approx(aligner.lexicon(1))


def test_a_trained_model_survives_to_dict_and_from_dict_without_a_file() -> None:
    aligner = get_aligner("em", hmm_iterations=2).fit(PAIRS)
    data = aligner.to_dict()
    assert data["options"]["hmm_iterations"] == 2
    assert set(data["arrays"]) >= {"keys0", "prob0", "jump0"}
    loaded = Aligner.from_dict(data)
    assert isinstance(loaded, EMAligner)
    assert loaded.align(*PAIRS[0]).alignment == aligner.align(*PAIRS[0]).alignment


def test_a_lexical_model_keeps_its_options(tmp_path: Path) -> None:
    aligner = get_aligner("lexical", wordnet=False, stem=False)
    loaded = LexicalAligner.load(aligner.save(tmp_path / "lex.npz"))
    assert loaded.options == aligner.options


def test_the_saved_header_is_versioned_json(tmp_path: Path) -> None:
    path = get_aligner("identity").save(tmp_path / "id.npz")
    header, arrays = read_model_file(path)
    assert header["format"] == "scoring-aligner"
    assert header["format_version"] == 1
    assert header["aligner"] == "identity"
    assert arrays == {}


def test_loading_a_model_of_another_aligner_is_refused(tmp_path: Path) -> None:
    path = get_aligner("identity").save(tmp_path / "id.npz")
    with pytest.raises(ModelError, match="holds a 'identity' model, not 'em'"):
        EMAligner.load(path)


def test_loading_something_that_is_not_a_model_is_refused(tmp_path: Path) -> None:
    text = tmp_path / "notes.npz"
    text.write_text("hello")
    with pytest.raises(FormatError, match="not a saved aligner model") as refused:
        Aligner.load(text)
    # numpy's own message for a non-archive advises loading it as a pickle: not shown
    assert "pickle" not in str(refused.value)
    assert "--save-model" in str(refused.value)
    with pytest.raises(FormatError, match="no such model file"):
        Aligner.load(tmp_path / "missing.npz")


def test_a_model_file_holding_pickled_objects_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "evil.npz"
    header = np.frombuffer(json.dumps({"format": "scoring-aligner"}).encode(), dtype=np.uint8)
    np.savez(path, __header__=header, payload=np.array([{"a": 1}], dtype=object))
    with pytest.raises(FormatError, match="not a saved aligner model"):
        Aligner.load(path)


def test_a_model_from_a_newer_format_version_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "future.npz"
    header = {"format": "scoring-aligner", "format_version": 99, "aligner": "identity"}
    np.savez(path, __header__=np.frombuffer(json.dumps(header).encode(), dtype=np.uint8))
    with pytest.raises(FormatError, match="'format_version': is 99"):
        Aligner.load(path)
    assert zipfile.is_zipfile(path)
