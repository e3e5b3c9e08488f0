"""The supervised aligner: its tree kernel against scikit-learn, training, saving, bad input."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from sklearn.ensemble import HistGradientBoostingClassifier

from scoring.aligners import get_aligner
from scoring.aligners.base import Aligner
from scoring.aligners.options import SupervisedOptions
from scoring.aligners.supervised import (
    ENCODER_LAYERS,
    FEATURES,
    MPNET_LAYERS,
    SupervisedAligner,
)
from scoring.aligners.trees import TreeEnsemble
from scoring.aligners.word_features import context_features, occurrences, wordnet_relations
from scoring.alignment.links import Alignment
from scoring.errors import InputError, ModelError, OptionsError, ResourceMissingError


def test_the_tree_kernel_reproduces_scikit_learn_probabilities() -> None:
    rng = np.random.default_rng(0)
    x = rng.normal(size=(600, 5))
    y = ((x[:, 0] + x[:, 1] * x[:, 2] + rng.normal(scale=0.3, size=600)) > 0).astype(int)
    model = HistGradientBoostingClassifier(max_iter=30, random_state=0, early_stopping=False)
    model.fit(x, y)
    ensemble = TreeEnsemble.from_sklearn(model)
    test = rng.normal(size=(200, 5))
    np.testing.assert_allclose(ensemble.predict(test), model.predict_proba(test)[:, 1], rtol=1e-9)
    with pytest.raises(InputError, match="more than 2 features"):
        ensemble.predict(test[:, :2])


def _corpus() -> tuple[list[tuple[list[str], list[str]]], list[Alignment]]:
    """Pairs whose gold links are exactly the lowercase-identical content words."""
    rng = np.random.default_rng(3)
    words = ["cat", "dog", "bird", "house", "tree", "river", "stone", "cloud", "field", "road"]
    fillers = ["the", "a", "of", "in", "on"]
    pairs, gold = [], []
    for _ in range(30):
        shared = list(rng.choice(words, size=3, replace=False))
        src = shared + list(rng.choice(fillers, size=2))
        tgt = list(rng.permutation(shared)) + list(rng.choice(words, size=1))
        src = [str(w) for w in src]
        tgt = [str(w) for w in tgt]
        links = [(i, j) for i, a in enumerate(src) for j, b in enumerate(tgt) if a == b]
        pairs.append((src, tgt))
        gold.append(Alignment.from_links(len(src), len(tgt), sure=links))
    return pairs, gold


@pytest.fixture(scope="module")
def trained() -> SupervisedAligner:
    pairs, gold = _corpus()
    aligner = SupervisedAligner(
        SupervisedOptions(
            wordnet=False, pos=False, trees=20, learning_rate=0.1, em_hmm_iterations=2
        )
    )
    aligner.fit(pairs, gold)
    return aligner


def test_it_learns_the_gold_link_rule(trained: SupervisedAligner) -> None:
    src, tgt = ["river", "of", "stone"], ["stone", "river", "cloud"]
    output = trained.align(src, tgt)
    assert output.sure == {(0, 1), (2, 0)}
    assert trained.training_summary["labelled_pairs"] == 30


def test_past_its_most_training_pairs_it_learns_from_a_seeded_sample_of_them() -> None:
    pairs, gold = _corpus()
    options = {
        "wordnet": False,
        "pos": False,
        "trees": 20,
        "learning_rate": 0.1,
        "min_samples_leaf": 10,
    }
    reports: list[str] = []
    aligner = SupervisedAligner(
        SupervisedOptions(**options, em_hmm_iterations=2, max_training_pairs=12)
    )
    aligner.fit(pairs, gold, progress=lambda share, message: reports.append(message))
    summary = aligner.training_summary
    assert (summary["labelled_pairs"], summary["trained_pairs"]) == (30, 12)
    assert "features 0/12" in reports and not any("/30" in line for line in reports)
    assert summary["cells"] < sum(len(s) * len(t) for s, t in pairs)
    assert aligner.align(["river", "of", "stone"], ["stone", "river", "cloud"]).sure == {
        (0, 1),
        (2, 0),
    }, "what it learnt from the sample is the rule"
    again = SupervisedAligner(
        SupervisedOptions(**options, em_hmm_iterations=2, max_training_pairs=12)
    )
    again.fit(pairs, gold)
    assert again.training_summary["cells"] == summary["cells"], "the same sample each time"


def test_features_have_one_row_per_cell(trained: SupervisedAligner) -> None:
    feats = trained.features(["a", "b"], ["b", "c", "d"])
    assert feats.shape == (6, len(FEATURES))
    assert feats[1 * 3 + 0, FEATURES.index("identical")] == 1.0  # cell (1, 0): b-b
    assert feats[0, FEATURES.index("identical")] == 0.0


def test_a_saved_supervised_model_gives_the_same_links(
    trained: SupervisedAligner, tmp_path: Path
) -> None:
    loaded = Aligner.load(trained.save(tmp_path / "sup.npz"))
    assert isinstance(loaded, SupervisedAligner)
    src, tgt = ["dog", "in", "the", "field"], ["field", "dog", "road"]
    np.testing.assert_allclose(loaded.probabilities(src, tgt), trained.probabilities(src, tgt))
    assert loaded.align(src, tgt).alignment == trained.align(src, tgt).alignment


def test_a_saved_model_gives_a_training_pair_the_probabilities_it_has_in_training(
    trained: SupervisedAligner, tmp_path: Path
) -> None:
    pairs, _ = _corpus()  # the training pairs: their features come from the process's cache
    loaded = Aligner.load(trained.save(tmp_path / "sup.npz"))
    assert isinstance(loaded, SupervisedAligner)
    for src, tgt in pairs:
        np.testing.assert_array_equal(
            loaded.probabilities(src, tgt), trained.probabilities(src, tgt)
        )


def test_training_without_any_gold_is_refused() -> None:
    pairs, _ = _corpus()
    with pytest.raises(InputError, match="needs gold alignments"):
        get_aligner("supervised", wordnet=False).fit(pairs)


def test_inconsistent_thresholds_are_refused() -> None:
    with pytest.raises(OptionsError, match="thresholds"):
        get_aligner("supervised", sure_threshold=0.2, possible_threshold=0.4)
    with pytest.raises(OptionsError, match="negative_sample"):
        get_aligner("supervised", negative_sample=0.0)
    with pytest.raises(OptionsError, match="min_samples_leaf"):
        get_aligner("supervised", min_samples_leaf=0)


def _slow_context(
    match: np.ndarray, src_content: list[bool], tgt_content: list[bool], window: int = 3
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Plain-loop reference of the context features."""
    n, m = match.shape

    def nearest(content: list[bool], k: int, step: int) -> int | None:
        k += step
        while 0 <= k < len(content):
            if content[k]:
                return k
            k += step
        return None

    out = [np.zeros((n, m)) for _ in range(4)]
    for i in range(n):
        for j in range(m):
            for slot, step in ((0, -1), (1, 1)):
                a, b = nearest(src_content, i, step), nearest(tgt_content, j, step)
                out[slot][i, j] = float(a is not None and b is not None and match[a, b])
            for slot, step in ((2, -1), (3, 1)):
                out[slot][i, j] = float(
                    any(
                        match[i + step * a, j + step * b]
                        for a in range(1, window + 1)
                        for b in range(1, window + 1)
                        if 0 <= i + step * a < n and 0 <= j + step * b < m
                    )
                )
    return out[0], out[1], out[2], out[3]


def test_context_features_agree_with_a_plain_loop() -> None:
    rng = np.random.default_rng(5)
    for n, m in ((1, 1), (4, 7), (9, 5)):
        match = rng.random((n, m)) < 0.3
        src_content = [bool(v) for v in rng.random(n) < 0.6]
        tgt_content = [bool(v) for v in rng.random(m) < 0.6]
        fast = context_features(match, np.array(src_content), np.array(tgt_content))
        for got, want in zip(fast, _slow_context(match, src_content, tgt_content), strict=True):
            np.testing.assert_array_equal(got, want)


def test_a_function_word_sees_that_the_next_content_words_match() -> None:
    # "the cat" / "a cat": the content words after "the" and "a" match
    match = np.array([[False, False], [False, True]])
    left, right, _, _ = context_features(match, np.array([False, True]), np.array([False, True]))
    assert right[0, 0] == 1.0 and left[1, 1] == 0.0


def test_occurrences_count_and_number_repeated_words() -> None:
    total, index = occurrences(["the", "cat", "saw", "the", "the"])
    assert total.tolist() == [3, 1, 1, 3, 3]
    assert index.tolist() == [0, 0, 0, 1, 2]


def test_wordnet_relations_find_derivations_and_hypernyms() -> None:
    wup, derived, _ = wordnet_relations("investigation", "investigate")
    assert derived == 1.0 and 0.0 <= wup <= 1.0
    assert wordnet_relations("dog", "animal")[2] == 1.0
    _, derived, hypernym = wordnet_relations("dog", "theory")
    assert (derived, hypernym) == (0.0, 0.0)


def test_rare_words_get_a_higher_idf_than_frequent_ones(trained: SupervisedAligner) -> None:
    col = FEATURES.index("source_idf")
    frequent = trained.features(["cat"], ["x"])[0, col]
    rare = trained.features(["zebra"], ["x"])[0, col]
    assert rare > frequent > 0.0


def test_it_refuses_gold_with_fewer_links_than_half_a_leaf_before_any_training() -> None:
    pairs, gold = _corpus()
    options = SupervisedOptions(wordnet=False, pos=False, min_samples_leaf=30)
    assert SupervisedAligner.min_links(options) == 15
    assert SupervisedAligner.training_refusal(gold[:4], options) == (
        "the 'supervised' aligner needs at least 15 links in finished pairs to learn from "
        "(half of min_samples_leaf, 30); the 4 finished pairs have 13: about 5 finished pairs "
        "are needed"
    )
    assert SupervisedAligner.training_refusal(gold[:5], options) is None
    aligner = SupervisedAligner(options)
    with pytest.raises(InputError, match="the 4 finished pairs have 13"):
        aligner.fit(pairs, [*gold[:4], *[None] * (len(pairs) - 4)])
    assert not aligner.em.trained, "refused before the EM model was trained"
    sure_only = SupervisedOptions(min_samples_leaf=30, decision="thresholds")
    assert "at least 15 sure links" in str(SupervisedAligner.training_refusal(gold[:4], sure_only))


def test_it_refuses_a_model_that_learnt_to_link_nothing() -> None:
    pairs, gold = _corpus()
    aligner = SupervisedAligner(
        SupervisedOptions(
            wordnet=False,
            pos=False,
            trees=20,
            learning_rate=0.1,
            em_hmm_iterations=2,
            min_samples_leaf=26,  # 13 links: just enough to be tried
        )
    )
    with pytest.raises(ModelError, match=r"learnt nothing from 4 finished pairs \(13 sure links\)"):
        aligner.fit(pairs[:4], gold[:4])
    assert aligner.ensemble is None


def test_a_model_that_learnt_nothing_from_enough_links_names_too_few_trees() -> None:
    pairs, gold = _corpus()
    options = SupervisedOptions(
        wordnet=False, pos=False, trees=2, learning_rate=0.01, em_hmm_iterations=2
    )
    aligner = SupervisedAligner(replace(options, min_samples_leaf=5))
    with pytest.raises(ModelError, match="learnt nothing") as caught:
        aligner.fit(pairs, gold)
    message = str(caught.value)
    assert message.endswith(
        "trees=2 at learning_rate=0.01 move the probabilities too little (trees × "
        "learning_rate = 0.02, 4 at the defaults): raise trees or learning_rate"
    )
    assert "a link needs 0.50" in message
    assert "min_samples_leaf" not in message
    few = replace(options, min_samples_leaf=1000).unlearnt_advice(40)
    assert few.startswith("40 links are few for leaves of min_samples_leaf=1000 cells and trees=2")
    assert few.endswith(
        "finish more pairs or lower min_samples_leaf, or raise trees or learning_rate"
    )


def test_encoder_features_prefer_the_word_of_the_same_meaning(
    trained: SupervisedAligner,
) -> None:
    src, tgt = ["the", "car", "stopped"], ["the", "automobile", "halted"]
    feats = trained.features(src, tgt).reshape(3, 3, len(FEATURES))
    for layer in ENCODER_LAYERS:
        cosine = feats[:, :, FEATURES.index(f"encoder{layer}_cosine")]
        mutual = feats[:, :, FEATURES.index(f"encoder{layer}_mutual_best")]
        assert cosine[1, 1] > cosine[1, 2] and cosine[1, 1] > cosine[1, 0]
        assert mutual[1, 1] == 1.0 and mutual[1, 0] == 0.0
        assert feats[1, 1, FEATURES.index(f"encoder{layer}_row_gap")] == 0.0


def test_without_the_encoder_its_features_are_missing_and_a_warning_says_why(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from scoring.neural import encoder

    def missing(path: object = None) -> encoder.Encoder:
        raise ResourceMissingError("the sentence encoder is not installed; install it with `pip`")

    monkeypatch.setattr(encoder, "load", missing)
    pairs, gold = _corpus()
    aligner = SupervisedAligner(
        SupervisedOptions(
            wordnet=False, pos=False, trees=20, learning_rate=0.1, em_hmm_iterations=2
        )
    )
    aligner.fit(pairs, gold)
    feats = aligner.features(["cat", "dog"], ["dog"])
    columns = [k for k, name in enumerate(FEATURES) if name.startswith("encoder")]
    assert len(columns) == 4 * len(ENCODER_LAYERS)
    assert np.isnan(feats[:, columns]).all()
    output = aligner.align(["river", "of", "stone"], ["stone", "river", "cloud"])
    assert output.sure == {(0, 1), (2, 0)}
    assert any("sentence-encoder features skipped" in w for w in output.warnings)


def test_the_large_encoder_adds_its_features_only_when_asked(trained: SupervisedAligner) -> None:
    src, tgt = ["the", "car", "stopped"], ["the", "automobile", "halted"]
    columns = [k for k, name in enumerate(FEATURES) if name.startswith("mpnet")]
    assert len(columns) == 4 * len(MPNET_LAYERS)
    assert np.isnan(trained.features(src, tgt)[:, columns]).all()  # off by default
    pairs, gold = _corpus()
    large = SupervisedAligner(
        SupervisedOptions(
            wordnet=False,
            pos=False,
            trees=20,
            learning_rate=0.1,
            em_hmm_iterations=2,
            large_encoder=True,
        )
    )
    large.fit(pairs, gold)
    feats = large.features(src, tgt).reshape(3, 3, len(FEATURES))
    assert np.isfinite(feats[:, :, columns]).all()
    for layer in MPNET_LAYERS[-2:]:
        cosine = feats[:, :, FEATURES.index(f"mpnet{layer}_cosine")]
        assert cosine[1, 1] > cosine[1, 2] and cosine[1, 1] > cosine[1, 0]
        assert feats[1, 1, FEATURES.index(f"mpnet{layer}_mutual_best")] == 1.0
    assert large.align(["river", "of", "stone"], ["stone", "river", "cloud"]).sure == {
        (0, 1),
        (2, 0),
    }


def test_without_the_large_encoder_its_features_are_missing_and_a_warning_says_why(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from scoring.neural import encoder

    real = encoder.load

    def only_minilm(path: object = None, model: str = encoder.MINILM) -> encoder.Encoder:
        if model == encoder.MPNET:
            raise ResourceMissingError("the large sentence encoder is not installed")
        return real()

    monkeypatch.setattr(encoder, "load", only_minilm)
    pairs, gold = _corpus()
    aligner = SupervisedAligner(
        SupervisedOptions(
            wordnet=False,
            pos=False,
            trees=20,
            learning_rate=0.1,
            em_hmm_iterations=2,
            large_encoder=True,
        )
    )
    aligner.fit(pairs, gold)
    feats = aligner.features(["cat", "dog"], ["dog"])
    mpnet = [k for k, name in enumerate(FEATURES) if name.startswith("mpnet")]
    minilm = [k for k, name in enumerate(FEATURES) if name.startswith("encoder")]
    assert np.isnan(feats[:, mpnet]).all() and np.isfinite(feats[:, minilm]).all()
    output = aligner.align(["river", "of", "stone"], ["stone", "river", "cloud"])
    assert any("large-encoder features skipped" in w for w in output.warnings)


def test_a_model_saved_with_other_features_asks_to_be_trained_again(
    trained: SupervisedAligner, tmp_path: Path
) -> None:
    state, arrays = trained._state()
    state["features"] = list(FEATURES[:49])  # version 2's features, before the encoder's
    fresh = SupervisedAligner()
    with pytest.raises(ModelError, match="trained on 49 features, not this version's 96"):
        fresh._restore(state, arrays)


@pytest.fixture(scope="module")
def fine_tuned() -> SupervisedAligner:
    pairs, gold = _corpus()
    aligner = SupervisedAligner(
        SupervisedOptions(
            wordnet=False,
            pos=False,
            trees=20,
            learning_rate=0.1,
            em_hmm_iterations=2,
            fine_tune_epochs=1,
        )
    )
    aligner.fit(pairs, gold)
    return aligner


def test_a_fine_tuned_encoder_makes_up_its_weight_of_the_probability(
    fine_tuned: SupervisedAligner,
) -> None:
    from scoring.neural import finetune

    assert fine_tuned.scorer is not None
    assert fine_tuned.scorer.trained_layers == [0, 1, 2, 3, 4, 5]
    src, tgt = ["river", "of", "stone"], ["stone", "river", "cloud"]
    trees = fine_tuned.ensemble
    assert trees is not None
    alone = trees.predict(fine_tuned.features(src, tgt)).reshape(3, 3)
    tuned = 1.0 / (1.0 + np.exp(-fine_tuned.scorer.logits(src, tgt)))
    np.testing.assert_allclose(
        fine_tuned.probabilities(src, tgt), 0.7 * alone + 0.3 * tuned, rtol=1e-12
    )
    assert fine_tuned.align(src, tgt).sure == {(0, 1), (2, 0)}
    assert isinstance(fine_tuned.scorer, finetune.LinkScorer)


def test_a_saved_fine_tuned_model_gives_the_same_probabilities(
    fine_tuned: SupervisedAligner, tmp_path: Path
) -> None:
    loaded = Aligner.load(fine_tuned.save(tmp_path / "tuned.npz"))
    assert isinstance(loaded, SupervisedAligner) and loaded.scorer is not None
    src, tgt = ["dog", "in", "the", "field"], ["field", "dog", "road"]
    np.testing.assert_allclose(
        loaded.probabilities(src, tgt), fine_tuned.probabilities(src, tgt), atol=1e-6
    )


def test_a_saved_fine_tuned_model_needs_the_encoder(
    fine_tuned: SupervisedAligner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from scoring.neural import encoder

    path = fine_tuned.save(tmp_path / "tuned.npz")

    def missing(path: object = None) -> encoder.Encoder:
        raise ResourceMissingError("the sentence encoder is not installed")

    monkeypatch.setattr(encoder, "load", missing)
    with pytest.raises(
        ResourceMissingError, match="holds a fine-tuned encoder, but sentence-encoder"
    ):
        Aligner.load(path)


def test_bad_fine_tuning_options_are_refused() -> None:
    with pytest.raises(OptionsError, match=r"'fine_tune_epochs' .* must be in \[0, 10\], got -1"):
        get_aligner("supervised", fine_tune_epochs=-1)
    with pytest.raises(OptionsError, match=r"'fine_tune_weight' .* must be in \[0, 1\], got 1.5"):
        get_aligner("supervised", fine_tune_weight=1.5)
