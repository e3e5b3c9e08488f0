"""PERP: Table 1's features on hand examples, Algorithm 1 against a plain-Python
re-run of its updates, and the model's JSON round trip."""

from __future__ import annotations

import json
import math
from dataclasses import replace

import nltk
import numpy as np
import pytest
from wordfreq import word_frequency

from scoring.corpus import PairRecord
from scoring.edit.perp import (
    FEATURES,
    MIN_SHIFT_WEIGHT,
    N_FEATURES,
    PERP_TERP,
    Perp,
    PerpOptions,
    WordFeatures,
    initial_weights,
)
from scoring.edit.terp import PhraseEntry, PhraseTable
from scoring.errors import FormatError, InputError, ModelError, OptionsError

STOP = ("a", "the", "on", ",")


def _index(name: str) -> int:
    return FEATURES.index(name)


def _log_freq(word: str) -> float:
    return math.log10(word_frequency(word, "en"))


def test_there_are_the_36_features_of_table_1_and_the_papers_initial_weights() -> None:
    assert N_FEATURES == 36 and len(set(FEATURES)) == 36
    w = initial_weights()
    nonzero = {FEATURES[i]: float(w[i]) for i in np.flatnonzero(w)}
    assert nonzero == {"Substitution": 1.0, "Insertion": 1.0, "Deletion": 1.0, "Shift": 0.1}


# --- word features -------------------------------------------------------------------------------


def test_word_classes_follow_the_papers_definitions() -> None:
    words = WordFeatures(frozenset(STOP), oov_frequency=1e-7)
    # (punctuation, number, pronoun, negation, stop word, OOV)
    assert words.classes(",")[0] == (True, False, False, False, True, False)
    assert words.classes("4.9")[0] == (False, True, False, False, False, False)
    assert words.classes("1,000")[0][1] and not words.classes("4x4")[0][1]
    assert words.classes("she")[0] == (False, False, True, False, False, False)
    assert words.classes("n't")[0] == (False, False, False, True, False, False)
    assert words.classes("xyzzyq")[0] == (False, False, False, False, False, True)
    # Frequency features only for all-letter, in-vocabulary words.
    assert words.classes("forecast")[1] == pytest.approx(_log_freq("forecast"))
    assert words.classes("xyzzyq")[1] is None
    assert words.classes("u.s.")[1] is None and not words.classes("u.s.")[0][5]


def test_insert_delete_features_of_one_word() -> None:
    words = WordFeatures(frozenset(STOP), oov_frequency=1e-7)
    got = words.insert_delete("today")
    assert got[0] == pytest.approx(_log_freq("today"))
    assert got[1] == pytest.approx(math.log10(5))
    assert list(got[2:]) == [0, 0, 0, 0, 0, 0]
    assert list(words.insert_delete("the")[2:]) == [0, 0, 0, 0, 1, 0]


def test_substitution_features_of_word_pairs() -> None:
    words = WordFeatures(frozenset(STOP), oov_frequency=1e-7)
    sub = {name: i - _index("Substitution") for i, name in enumerate(FEATURES) if i >= 18}
    got = words.substitute("forecast", "forecasts")
    assert got[sub["Substitution"]] == 1
    assert got[sub["Sub-Contain"]] == 1  # both > 5 characters, one inside the other
    assert got[sub["Sub-Small-LevDist"]] == 1
    assert got[sub["Sub-Norm-LevDist"]] == pytest.approx(1 / 9)
    assert got[sub["Sub-Diff-By-NonWord"]] == 0
    assert got[sub["Sub-LogFreq-Diff"]] == pytest.approx(
        abs(_log_freq("forecast") - _log_freq("forecasts"))
    )
    short = words.substitute("cat", "cats")  # too short for Contain and Small-LevDist
    assert short[sub["Sub-Contain"]] == 0 and short[sub["Sub-Small-LevDist"]] == 0
    dotted = words.substitute("u.s.", "us")
    assert dotted[sub["Sub-Diff-By-NonWord"]] == 1
    assert dotted[sub["Sub-LogFreq-Diff"]] == 0  # "u.s." has no frequency feature
    both = words.substitute("he", "she")
    assert both[sub["Sub-Pronoun-Both"]] == 1 and both[sub["Sub-Pronoun-1only"]] == 0
    one = words.substitute("the", "cat")
    assert one[sub["Sub-Stopword-1only"]] == 1 and one[sub["Sub-Stopword-Both"]] == 0


# --- features of an alignment -------------------------------------------------------------------


def test_features_of_a_pair_are_its_edits_over_both_lengths() -> None:
    # x2 = first text (reference), x1 = second (hypothesis). Under the initial weights TERp
    # aligns sits/sat as synonyms (cost 0), substitutes a/the and inserts "today".
    model = Perp(PerpOptions(stop_words=STOP))
    f = model.features(
        [("the cat sat on the mat", "the cat sits on a mat today")], initial_weights()
    )[0]
    norm = 6 + 7
    want = np.zeros(N_FEATURES)
    want[_index("Intercept")] = 1.0
    want[_index("Synonymy")] = 1 / norm
    want[_index("Substitution")] = 1 / norm
    want[_index("Sub-Stopword-Both")] = 1 / norm
    want[_index("Sub-LogFreq-Diff")] = abs(_log_freq("a") - _log_freq("the")) / norm
    want[_index("Sub-Norm-LevDist")] = nltk.edit_distance("a", "the") / 3 / norm
    want[_index("Insertion")] = 1 / norm
    want[_index("Insert-Delete-LogFreq")] = _log_freq("today") / norm
    want[_index("Insert-Delete-LogWordLen")] = math.log10(len("today")) / norm
    np.testing.assert_allclose(f, want, atol=1e-12)


def test_shift_and_deletion_features() -> None:
    model = Perp(PerpOptions(stop_words=STOP))
    f = model.features([("red green blue yellow", "yellow red green")], initial_weights())[0]
    assert f[_index("Shift")] == pytest.approx(1 / 7)
    assert f[_index("Deletion")] == pytest.approx(1 / 7)
    assert f[_index("Insert-Delete-LogFreq")] == pytest.approx(_log_freq("blue") / 7)
    assert f[_index("Substitution")] == 0 and f[_index("Insertion")] == 0


def test_the_terp_shift_constraint_of_the_config_is_honoured() -> None:
    pair = ("red green blue yellow", "yellow red green")
    noshift = replace(PERP_TERP, shift_constraint="noshift")
    f = Perp(PerpOptions(stop_words=STOP), terp=noshift).features([pair], initial_weights())[0]
    assert f[_index("Shift")] == 0
    # yellow inserted before "red green", then blue and yellow deleted: 1 + 2 edits.
    assert f[_index("Insertion")] == pytest.approx(1 / 7)
    assert f[_index("Deletion")] == pytest.approx(2 / 7)


def test_phrase_features_use_the_table_probability_and_unit_edit_count() -> None:
    table = PhraseTable.of([PhraseEntry(("zorb", "quux"), ("blip", "flarp"), 0.5)])
    model = Perp(PerpOptions(stop_words=STOP), phrase_table=table)
    f = model.features([("we zorb quux now", "we blip flarp now")], initial_weights())[0]
    q = 2.0  # two unit substitutions between the phrases
    norm = 8
    got = [f[_index(f"Paraphrase{i}")] for i in (1, 2, 3, 4)]
    np.testing.assert_allclose(
        got, [1 / norm, q * math.log10(0.5) / norm, 0.5 * q / norm, q / norm]
    )
    assert f[_index("Substitution")] == 0
    without = Perp(PerpOptions(stop_words=STOP)).features(
        [("we zorb quux now", "we blip flarp now")], initial_weights()
    )[0]
    assert without[_index("Substitution")] == pytest.approx(2 / norm)
    assert without[_index("Paraphrase1")] == 0


# --- learning -------------------------------------------------------------------------------------


def _algorithm_1(model: Perp, pairs: list[tuple[str, str]], y: list[float]) -> np.ndarray:
    """Heilman & Madnani 2012, Algorithm 1 written out in plain Python, one pair at a time."""
    c = model.options
    rng = np.random.default_rng(c.seed)
    orders = [rng.permutation(len(pairs)) for _ in range(c.epochs)]
    w = initial_weights()
    wsum = np.zeros(N_FEATURES)
    for order in orders:
        for k in order:
            f = model.features([pairs[k]], w)[0]
            w = w + c.learning_rate * ((c.score_max - y[k]) - w @ f) * f
            w[_index("Shift")] = max(w[_index("Shift")], MIN_SHIFT_WEIGHT)
            wsum += w
    return wsum / (c.epochs * len(pairs))


def test_one_perceptron_step_is_the_hand_worked_update() -> None:
    pair = ("the cat sat on the mat", "the cat sits on a mat today")
    model = Perp(PerpOptions(epochs=1, stop_words=STOP))
    w0 = initial_weights()
    f = model.features([pair], w0)[0]
    target = 5.0 - 4.2
    want = w0 + 0.01 * (target - w0 @ f) * f
    model.fit([pair], [4.2])
    np.testing.assert_allclose(model.weights, want, atol=1e-12)
    np.testing.assert_allclose(model.history["final_weights"], want, atol=1e-12)


def test_training_equals_algorithm_1_run_by_hand_with_realignment_each_step() -> None:
    pairs = [
        ("the cat sat on the mat", "the cat sits on a mat today"),
        ("red green blue yellow", "yellow red green"),
        ("a man is slicing an onion", "a man cuts an onion"),
    ]
    y = [4.0, 3.0, 4.6]
    model = Perp(PerpOptions(epochs=4, learning_rate=0.5, seed=3, stop_words=STOP))
    model.fit(pairs, y)
    np.testing.assert_allclose(model.weights, _algorithm_1(model, pairs, y), atol=1e-9)


def test_the_shift_weight_never_drops_below_0_01() -> None:
    pair = ("red green blue yellow", "yellow red green blue")
    model = Perp(PerpOptions(epochs=1, learning_rate=500.0, stop_words=STOP))
    f = model.features([pair], initial_weights())[0]
    assert f[_index("Shift")] > 0
    unconstrained = initial_weights() + 500.0 * (0.0 - initial_weights() @ f) * f
    assert unconstrained[_index("Shift")] < MIN_SHIFT_WEIGHT
    model.fit([pair], [5.0])
    assert model.history["final_weights"][_index("Shift")] == MIN_SHIFT_WEIGHT


def test_predictions_are_the_score_scale_minus_the_cost() -> None:
    pairs = [("a b c d", "a b c d"), ("a b c d", "w x y z")]
    model = Perp(PerpOptions(epochs=3, stop_words=STOP)).fit(pairs, [5.0, 0.0])
    f = model.features(pairs)
    assert model.weights is not None
    np.testing.assert_allclose(model.predict(pairs), 5.0 - f @ model.weights)
    assert model.predict(pairs)[0] > model.predict(pairs)[1]


def test_it_accepts_pair_records() -> None:
    record = PairRecord(
        id="1",
        source_tokens=["a", "b"],
        target_tokens=["a", "c"],
        source_text="A b",
        target_text="a C",
    )
    model = Perp(PerpOptions(epochs=1, stop_words=STOP)).fit([record], [3.0])
    same = Perp(PerpOptions(epochs=1, stop_words=STOP)).fit([("A b", "a C")], [3.0])
    np.testing.assert_allclose(model.weights, same.weights)


# --- persistence and bad input ------------------------------------------------------------------


def test_a_model_survives_a_json_round_trip() -> None:
    table = PhraseTable.of([PhraseEntry(("zorb",), ("blip",), 0.25)])
    pairs = [("we zorb now", "we blip now"), ("red green blue", "blue red green")]
    model = Perp(PerpOptions(epochs=2, seed=5, stop_words=STOP), phrase_table=table)
    model.fit(pairs, [4.5, 3.0])
    loaded = Perp.from_dict(json.loads(json.dumps(model.to_dict())))
    np.testing.assert_array_equal(loaded.weights, model.weights)
    assert loaded.options == replace(model.options, stop_words=tuple(sorted(STOP)))
    assert loaded.terp == model.terp
    assert loaded.phrase_table is not None and loaded.phrase_table.entries == table.entries
    np.testing.assert_array_equal(loaded.predict(pairs), model.predict(pairs))


def test_it_rejects_a_malformed_model() -> None:
    good = Perp(PerpOptions(epochs=1, stop_words=STOP)).fit([("a", "b")], [1.0]).to_dict()
    with pytest.raises(FormatError, match="not a PERP model"):
        Perp.from_dict({**good, "kind": "svm"})
    with pytest.raises(FormatError, match="36 finite"):
        Perp.from_dict({**good, "weights": [1.0, 2.0]})
    with pytest.raises(FormatError, match="malformed"):
        Perp.from_dict({k: v for k, v in good.items() if k != "config"})


def test_it_rejects_bad_training_input() -> None:
    model = Perp(PerpOptions(epochs=1, stop_words=STOP))
    with pytest.raises(InputError, match="2 pairs but 1 scores"):
        model.fit([("a", "b"), ("c", "d")], [1.0])
    with pytest.raises(InputError, match="finite"):
        model.fit([("a", "b")], [float("nan")])
    with pytest.raises(ModelError, match="not trained"):
        model.predict([("a", "b")])
    with pytest.raises(InputError, match="tuple"):
        model.pack(["just one text"])  # type: ignore[list-item]
    with pytest.raises(
        OptionsError, match=r"option 'epochs' of scorer 'perp' must be in \[1, 5000\], got 0"
    ):
        PerpOptions(epochs=0)
