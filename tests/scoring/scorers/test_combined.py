"""The combined scorer: feature union, RBF SVM, JSON round trip, registry and CLI."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from scoring.cli import main
from scoring.edit.perp import N_FEATURES
from scoring.errors import (
    FormatError,
    InputError,
    ModelError,
    OptionsError,
    ResourceMissingError,
    ScoringError,
)
from scoring.scorers import combined
from scoring.scorers.base import (
    get_scorer,
    load_scorer,
    save_scorer,
    scorer_kinds,
)
from scoring.scorers.combined import (
    ALIGN_NAMES,
    ENCODER_NAMES,
    OVERLAP_NAMES,
    WORDNET_NAMES,
    CombinedModel,
    combined_features,
    encoder_features,
    feature_names,
    information_content,
    overlap_features,
    word_similarity,
)
from scoring.scorers.options import GROUPS, CombinedOptions

# Small and fast: two folds, one grid point.
FAST = {"folds": 2, "c_grid": [1.0], "gamma_factors": [0.3], "epsilon_grid": [0.1]}
WORDS = "the cat dog sat ran on a mat rug big small house car road went fast slow".split()


def synthetic(n: int, seed: int = 0) -> tuple[list[tuple[list[str], list[str]]], list[float]]:
    """Pairs whose second sentence keeps a random share of the first one's words; the score is
    5 × that share, so similarity is learnable from overlap."""
    rng = np.random.default_rng(seed)
    pairs, scores = [], []
    for _ in range(n):
        first = [str(w) for w in rng.choice(WORDS, size=int(rng.integers(4, 9)))]
        keep = float(rng.uniform())
        second = [w if rng.uniform() < keep else str(rng.choice(WORDS)) for w in first]
        pairs.append((first, second))
        scores.append(5.0 * sum(a == b for a, b in zip(first, second, strict=True)) / len(first))
    return pairs, scores


def test_every_group_gives_the_columns_its_names_promise() -> None:
    pairs, _ = synthetic(3)
    widths = {"perp": N_FEATURES, "mt": 101, "align": len(ALIGN_NAMES), "overlap": 16, "wordnet": 6}
    widths["encoder"] = len(ENCODER_NAMES)
    for group in GROUPS:
        x = combined_features(pairs, [group])
        assert x.shape == (3, widths[group]) == (3, len(feature_names([group])))
        assert np.all(np.isfinite(x))
    assert combined_features(pairs).shape == (3, len(feature_names()))


def test_features_computed_a_chunk_at_a_time_are_the_whole_sets_and_a_cancel_stops_between_chunks(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pairs, _ = synthetic(7)
    refs = [sentence for pair in pairs for sentence in pair]  # the NIST references, fixed
    whole = combined_features(pairs)
    whole_with_refs = combined_features(pairs, info_refs=refs)
    monkeypatch.setattr(combined, "FEATURE_CHUNK", 3)
    monkeypatch.setattr(combined, "ENCODER_CHUNK", 3)
    heard: list[str] = []
    np.testing.assert_array_equal(
        combined_features(pairs, progress=lambda _fraction, stage: heard.append(stage)), whole
    )
    assert "encoder features: 3 of 7 pairs" in heard and "encoder features: 7 of 7 pairs" in heard
    heard.clear()
    chunked = combined_features(
        pairs, info_refs=refs, progress=lambda _fraction, stage: heard.append(stage)
    )
    np.testing.assert_array_equal(chunked, whole_with_refs)
    assert "mt features: 3 of 7 pairs" in heard

    class Cancelled(Exception):
        pass

    def cancel_at_the_first_chunk(_fraction: float, stage: str) -> None:
        if stage.startswith("encoder features: "):
            raise Cancelled

    with pytest.raises(Cancelled):
        combined_features(pairs, ["encoder"], progress=cancel_at_the_first_chunk)


def test_the_encoder_reports_progress_within_a_few_dozen_pairs() -> None:
    # the encoder is the slow group (half a second a pair on one core): a training job on a
    # hundred pairs must not show one progress figure for minutes
    pairs = [(["a", "dog", str(n)], ["the", "dog", str(n)]) for n in range(30)]
    heard: list[str] = []
    combined_features(pairs, ["encoder"], progress=lambda _fraction, stage: heard.append(stage))
    done = [int(stage.split()[2]) for stage in heard if stage.startswith("encoder features: ")]
    assert done[-1] == 30 and min(done) < 30


def test_encoder_features_grade_similarity_beyond_shared_words() -> None:
    same = "A man is playing a guitar .".split()
    x = encoder_features(
        [
            (same, list(same)),
            (same, "Someone strums a guitar .".split()),
            (same, "Stocks fell on Tuesday .".split()),
        ]
    )
    rows = [dict(zip(ENCODER_NAMES, row, strict=True)) for row in x]
    assert len(ENCODER_NAMES) == 13
    for name in ENCODER_NAMES:
        assert rows[0][name] == pytest.approx(1.0, abs=1e-5)
    assert rows[0]["encoder:cosine"] > rows[1]["encoder:cosine"] > rows[2]["encoder:cosine"]
    assert rows[1]["encoder:match:6:ic:hmean"] > rows[2]["encoder:match:6:ic:hmean"]


def test_overlap_features_follow_a_worked_example() -> None:
    x = overlap_features([(["The", "cat", "sat", "3", "1,000"], ["the", "cat", "ran", "1000"])])
    row = dict(zip(OVERLAP_NAMES, x[0], strict=True))
    # unigrams (lowercased; "1,000" and "1000" differ as words): the, cat → 2 of 5 and 2 of 4
    assert row["overlap:word1"] == pytest.approx(2 * (2 / 5) * (2 / 4) / (2 / 5 + 2 / 4))
    # bigrams: only "the cat" is shared: 1 of 4 and 1 of 3
    assert row["overlap:word2"] == pytest.approx(2 * (1 / 4) * (1 / 3) / (1 / 4 + 1 / 3))
    # numbers {3, 1000} and {1000}: overlap 2·1/3, one set inside the other, not equal
    assert row["numbers:overlap"] == pytest.approx(2 / 3)
    assert row["numbers:subset"] == 1.0
    assert row["numbers:equal"] == 0.0
    assert row["numbers:log_count"] == pytest.approx(math.log(4))
    assert row["length:relative_difference"] == pytest.approx(1 / 9)


def test_identical_sentences_are_fully_aligned_and_disjoint_ones_not_at_all() -> None:
    same = ["the", "judge", "dismissed", "the", "case"]
    other = ["a", "volcano", "erupted", "yesterday"]
    x = combined_features([(same, list(same)), (same, other)], ["align"])
    named = [dict(zip(ALIGN_NAMES, row, strict=True)) for row in x]
    shares = [n for n in ALIGN_NAMES if n.split(":")[1] in ("words", "content", "ic")]
    assert all(named[0][n] == 1.0 for n in shares)
    assert named[0]["align:unaligned_ic_max"] == 0.0
    assert all(named[1][n] == 0.0 for n in shares)
    assert named[1]["align:unaligned_ic_max"] == pytest.approx(
        max(information_content(w) for w in ("judge", "dismissed", "case", "volcano", "erupted"))
    )


def test_wordnet_synonyms_count_as_aligned_content_words() -> None:
    x = combined_features(
        [(["the", "car", "stopped"], ["the", "automobile", "stopped"])], ["align"]
    )
    named = dict(zip(ALIGN_NAMES, x[0], strict=True))
    assert named["align:content:sure:1"] == pytest.approx(0.5)
    assert named["align:content:any:1"] == 1.0
    assert named["align:synonym_share"] == pytest.approx(1 / 3)


def test_wordnet_features_average_each_words_best_path_similarity() -> None:
    from nltk.corpus import wordnet as wn

    x = combined_features([(["the", "dog", "barked"], ["a", "cat", "barked"])], ["wordnet"])
    named = dict(zip(WORDNET_NAMES, x[0], strict=True))
    # independent reference: nltk's path similarity over the first three synsets of each word
    dog_cat = max(
        (s.path_similarity(t) or 0.0)
        for s in wn.synsets("dog")[:3]
        for t in wn.synsets("cat")[:3]
        if s.pos() == t.pos()
    )
    assert word_similarity("cat", "dog") == pytest.approx(dog_cat)
    assert named["wordnet:mean:1"] == pytest.approx((dog_cat + 1.0) / 2)
    assert named["wordnet:mean:hmean"] == pytest.approx((dog_cat + 1.0) / 2)
    assert word_similarity("barked", "barking") == 1.0


def test_information_content_is_low_for_frequent_words_and_capped_for_unseen_ones() -> None:
    assert information_content("the") < 2.0 < information_content("volcano")
    assert information_content("qzxvkjwq") == pytest.approx(9.0)


def test_the_regressor_learns_similarity_from_synthetic_pairs() -> None:
    pairs, scores = synthetic(60)
    test_pairs, test_scores = synthetic(40, seed=1)
    options = CombinedOptions.from_dict({"groups": ["overlap", "align"], **FAST})
    model = CombinedModel("regression", options).fit(pairs, scores)
    r = np.corrcoef(model.predict(test_pairs), test_scores)[0, 1]
    assert r > 0.8


@pytest.mark.parametrize("task", ["regression", "classification"])
def test_a_saved_scorer_gives_identical_scores_after_loading(task: str, tmp_path: Path) -> None:
    pairs, scores = synthetic(30)
    targets = scores if task == "regression" else [float(s > 2.5) for s in scores]
    scorer = get_scorer("combined", task, **FAST).fit(pairs, targets)
    path = save_scorer(scorer, tmp_path / "model.json")
    loaded = load_scorer(path)
    test_pairs, _ = synthetic(10, seed=2)
    assert loaded.kind == "combined" and loaded.task == task
    np.testing.assert_array_equal(loaded.predict(test_pairs), scorer.predict(test_pairs))
    if task == "classification":
        assert set(np.unique(loaded.predict(test_pairs))) <= {0.0, 1.0}


def test_the_ridge_learner_learns_and_survives_a_save_and_load(tmp_path: Path) -> None:
    pairs, scores = synthetic(40)
    scorer = get_scorer("combined", groups=["overlap"], learner="ridge", folds=2).fit(pairs, scores)
    test_pairs, test_scores = synthetic(30, seed=3)
    predicted = scorer.predict(test_pairs)
    assert np.corrcoef(predicted, test_scores)[0, 1] > 0.8
    loaded = load_scorer(save_scorer(scorer, tmp_path / "ridge.json"))
    np.testing.assert_array_equal(loaded.predict(test_pairs), predicted)


def test_the_ridge_solution_matches_scikit_learn() -> None:
    from sklearn.linear_model import Ridge
    from sklearn.preprocessing import StandardScaler

    from scoring.scorers.combined import RidgeModel

    rng = np.random.default_rng(0)
    x = rng.normal(size=(40, 3)) * [1.0, 5.0, 0.1]
    y = x @ [1.0, -0.2, 3.0] + rng.normal(size=40)
    ours = RidgeModel(["a", "b", "c"], alpha_grid=[7.0], folds=2).fit(x, y)
    z = StandardScaler().fit(x)
    reference = Ridge(alpha=7.0).fit(z.transform(x), y)
    np.testing.assert_allclose(ours.predict(x), reference.predict(z.transform(x)), rtol=1e-10)


def test_the_kind_is_registered() -> None:
    assert "combined" in scorer_kinds()


def test_bad_options_and_input_are_refused_with_clear_messages() -> None:
    with pytest.raises(OptionsError, match="unknown option 'epochs' for scorer 'combined'"):
        get_scorer("combined", epochs=3)
    with pytest.raises(OptionsError, match=r"option 'groups' .* each one of perp, .*'bert'\]"):
        get_scorer("combined", groups=["mt", "bert"])
    with pytest.raises(InputError, match="pair 1: sentence 2 is empty"):
        get_scorer("combined", **FAST).fit([(["a"], ["b"]), (["a"], [])], [1.0, 2.0])
    with pytest.raises(OptionsError, match="ridge learner does regression only"):
        get_scorer("combined", "classification", learner="ridge")
    with pytest.raises(ModelError, match="not trained"):
        get_scorer("combined").predict([(["a"], ["b"])])


def test_a_missing_ppdb_file_is_an_error_not_a_silent_fallback(tmp_path: Path) -> None:
    pairs, scores = synthetic(12)
    options = CombinedOptions.from_dict(
        {"groups": ["align"], "ppdb": str(tmp_path / "nope.tsv"), **FAST}
    )
    model = CombinedModel("regression", options)
    with pytest.raises(ResourceMissingError, match=r"nope\.tsv"):
        model.fit(pairs, scores)


def test_a_tampered_model_file_names_the_field_at_fault(tmp_path: Path) -> None:
    pairs, scores = synthetic(20)
    path = save_scorer(
        get_scorer("combined", groups=["overlap"], **FAST).fit(pairs, scores), tmp_path / "m.json"
    )
    data = json.loads(path.read_text())
    data["model"]["feature_names"] = data["model"]["feature_names"][:-1]
    path.write_text(json.dumps(data))
    with pytest.raises(ScoringError, match="feature_names"):
        load_scorer(path)
    del data["model"]["info_refs"]
    path.write_text(json.dumps(data))
    with pytest.raises(ScoringError, match="info_refs"):
        load_scorer(path)
    path.write_text("{")
    with pytest.raises(FormatError, match="not a JSON model"):
        load_scorer(path)


def test_the_cli_trains_and_scores_a_tiny_tsv(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pairs, scores = synthetic(16)
    tsv = tmp_path / "train.tsv"
    tsv.write_text(
        "".join(
            f"{' '.join(a)}\t{' '.join(b)}\t{y}\n" for (a, b), y in zip(pairs, scores, strict=True)
        )
    )
    model = tmp_path / "combined.json"
    options = [f"--option={k}={json.dumps(v)}" for k, v in FAST.items()]
    code = main(
        [
            "train",
            "--kind",
            "combined",
            "--input",
            str(tsv),
            "--output",
            str(model),
            "--option",
            'groups=["overlap","align"]',
            *options,
            "--json",
        ]
    )
    assert code == 0
    report = json.loads(capsys.readouterr().out)
    assert report["train"]["n"] == 16
    assert main(["score", "--model", str(model), "--input", str(tsv)]) == 0
    lines = capsys.readouterr().out.split()
    assert len(lines) == 16
    np.testing.assert_allclose(
        [float(v) for v in lines], load_scorer(model).predict(pairs), atol=1e-6
    )


def test_the_cli_names_the_line_of_a_bad_target(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tsv = tmp_path / "bad.tsv"
    tsv.write_text("a b\tc d\t1\ne f\tg h\tlots\n")
    code = main(
        ["train", "--kind", "combined", "--input", str(tsv), "--output", str(tmp_path / "m.json")]
    )
    assert code == 2
    assert "bad.tsv:2: field 'target'" in capsys.readouterr().err
