"""PFSMScorer: training (Eq. 3, L-BFGS, cut-off), prediction, alignment, saving, bad input."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest

from scoring.alignment.links import Alignment
from scoring.corpus import PairRecord
from scoring.errors import FormatError, InputError, ModelError, OptionsError, ScoringError
from scoring.pfsm import PFSMScorer, feature_names, log_partition
from scoring.pfsm.features import Lexicon
from scoring.scorers.options import PFSMOptions, PPDAOptions
from tests.scoring.pfsm.reference import brute_force

VOCAB = [f"w{k}" for k in range(40)]


def synthetic_pairs(seed: int, count: int) -> tuple[list[tuple[list[str], list[str]]], np.ndarray]:
    """Targets copy, drop, replace and swap source words; the gold score is 5 × the share kept."""
    rng = np.random.default_rng(seed)
    pairs, scores = [], []
    for _ in range(count):
        source = [str(w) for w in rng.choice(VOCAB, size=int(rng.integers(4, 8)), replace=False)]
        kept = rng.random(len(source)) < rng.uniform(0.1, 1.0)
        target = [
            w if keep else str(rng.choice(VOCAB)) for w, keep in zip(source, kept, strict=True)
        ]
        if rng.random() < 0.3:
            target = target[:-1]
        if rng.random() < 0.3 and len(target) > 2:
            target[0], target[1] = target[1], target[0]
        pairs.append((source, target))
        scores.append(5.0 * sum(w in target for w in source) / len(source))
    return pairs, np.array(scores)


@pytest.mark.parametrize(("kind", "jump_limit"), [("pfsm", 0), ("ppda", 2)])
def test_training_reduces_the_objective_and_predictions_follow_the_targets(
    kind: str, jump_limit: int
) -> None:
    pairs, targets = synthetic_pairs(3, 60)
    options = (
        PPDAOptions(jump_limit=jump_limit, synonyms=False)
        if kind == "ppda"
        else PFSMOptions(synonyms=False)
    )
    model = PFSMScorer(options).fit(pairs, targets)
    info = model.training
    assert info["objective_final"] < 0.5 * info["objective_initial"]
    assert info["train_pearson"] > 0.8
    held_out, held_targets = synthetic_pairs(4, 40)
    predictions = model.score(held_out)
    # a prediction is y / (|s1| + |s2|) + α (Wang & Manning 2012, Eq. 3), y by the single-pair
    # forward pass
    s, t = held_out[0]
    y = log_partition(model.match_tables(s, t), model.weights, model.jump_limit)
    assert predictions[0] == pytest.approx(y / (len(s) + len(t)) + model.alpha, abs=1e-12)
    assert np.corrcoef(predictions, held_targets)[0, 1] > 0.7
    # the learned weights say matching is good and editing is bad (Wang & Manning 2012, §4.1.3)
    weights = model.feature_weights()
    assert weights["state:S_WORD"] > 0 > weights["state:DEL"]


def test_features_seen_fewer_than_cutoff_times_are_dropped() -> None:
    pairs = [
        (["a", "b", "c"], ["a", "b", "c"]),
        (["a", "b"], ["b", "a"]),
        (["attacks", "c"], ["attack", "c"]),  # the only same-lemma substitution
        (["x", "y", ",", "z"], ["x", "z", ",", "y"]),
    ]
    targets = np.array([5.0, 3.0, 4.0, 2.0])
    lexicon = Lexicon(synonyms=False, paraphrases=None)
    support = sum(
        brute_force(lexicon.match_tables(s, t), np.zeros(len(feature_names())), 1)[4]
        for s, t in pairs
    )
    rare = [f for f in range(support.size) if 0 < support[f] < 5]
    assert rare, "the data must contain features below the cut-off for this test to mean anything"
    model = PFSMScorer(PPDAOptions(jump_limit=1, synonyms=False, cutoff=5)).fit(pairs, targets)
    names = feature_names()
    assert set(model.kept.tolist()) == {f for f in range(support.size) if support[f] >= 5}
    assert model.weights is not None and np.all(model.weights[rare] == 0)
    assert set(model.feature_weights()) == {names[f] for f in model.kept}
    assert model.training["features_kept"] == len(model.kept)
    everything = PFSMScorer(PPDAOptions(jump_limit=1, synonyms=False, cutoff=1)).fit(pairs, targets)
    assert set(everything.kept.tolist()) == {f for f in range(support.size) if support[f] >= 1}


def test_saved_model_round_trips_through_json() -> None:
    pairs, targets = synthetic_pairs(5, 30)
    model = PFSMScorer(PPDAOptions(jump_limit=2, synonyms=False, max_iter=20)).fit(pairs, targets)
    saved = json.loads(json.dumps(model.to_dict()))
    assert saved["format"] == "scoring.pfsm" and saved["version"] == 1
    assert saved["kind"] == "ppda" and saved["jump_limit"] == 2 and saved["l2"] == 5.0
    loaded = PFSMScorer.from_dict(saved)
    np.testing.assert_array_equal(loaded.score(pairs), model.score(pairs))
    assert loaded.align(*pairs[0]) == model.align(*pairs[0])


def hand_model(kind: str, jump_limit: int = 1, **weights: float) -> PFSMScorer:
    return PFSMScorer.from_dict(
        {
            "format": "scoring.pfsm",
            "version": 1,
            "kind": kind,
            "jump_limit": jump_limit,
            "synonyms": False,
            "paraphrase_table": None,
            "block_edits": True,
            "l2": 5.0,
            "cutoff": 5,
            "max_iter": 10,
            "alpha": 0.0,
            "weights": {f"state:{name}": value for name, value in weights.items()},
        }
    )


def test_align_turns_the_best_edit_sequence_into_sure_links() -> None:
    source, target = ["the", "cat", ",", "he", "said"], ["he", "said", "the", "cats"]
    pfsm = hand_model("pfsm", S_WORD=3.0, S_LEMMA=2.0, S_PUNC=1.0)
    ppda = hand_model("ppda", 5, S_WORD=3.0, S_LEMMA=2.0, S_PUNC=1.0)
    a_pfsm = pfsm.align(source, target)
    a_ppda = ppda.align(source, target)
    assert isinstance(a_pfsm, Alignment) and a_pfsm.shape == (5, 4)
    assert a_pfsm.sure == a_pfsm.possible
    assert a_pfsm.sure in ({(0, 2), (1, 3)}, {(3, 0), (4, 1)})  # no crossing links
    assert a_ppda.sure == {(0, 2), (1, 3), (3, 0), (4, 1)}  # the jump swaps the two halves
    _, ops = ppda.edit_sequence(source, target)
    assert [op.name for op in ops].count("J1") == 1
    posteriors = ppda.link_posteriors(source, target)  # confidences for a prefilled grid
    assert posteriors.shape == (5, 4) and np.all((posteriors >= 0) & (posteriors <= 1 + 1e-12))
    assert all(posteriors[i, j] > 0.5 for i, j in a_ppda.sure)


def test_block_substitutions_link_every_token_of_both_spans() -> None:
    model = hand_model("pfsm", B_WORD=4.0)
    assert model.align(["can", "not", "go"], ["cannot", "go"]).sure >= {(0, 0), (1, 0)}


def test_without_block_edits_no_block_state_is_possible() -> None:
    pairs = [(["can", "not", "go", "home"], ["cannot", "go", "home"])] * 3
    with_blocks = PFSMScorer(PFSMOptions(synonyms=False, cutoff=1)).fit(pairs, [4.0, 4.0, 4.0])
    without = PFSMScorer(PFSMOptions(synonyms=False, cutoff=1, block_edits=False)).fit(
        pairs, [4.0, 4.0, 4.0]
    )
    assert "state:B_WORD" in with_blocks.feature_weights()
    assert not any(name.startswith("state:B_") for name in without.feature_weights())
    assert without.match_tables(*pairs[0]).block.max() == -1


def test_pair_records_are_accepted() -> None:
    pairs, targets = synthetic_pairs(6, 12)
    records = [
        PairRecord(id=str(k), source_tokens=s, target_tokens=t) for k, (s, t) in enumerate(pairs)
    ]
    model = PFSMScorer(PFSMOptions(synonyms=False, max_iter=5)).fit(records, targets)
    np.testing.assert_array_equal(model.score(records), model.score(pairs))


@pytest.mark.parametrize(
    ("pairs", "targets", "message"),
    [
        ([(["a"], [])], [1.0], "pair 0: target: the sentence has no tokens"),
        ([(["a"], ["b"]), ("a b", ["b"])], [1.0, 2.0], "pair 1: source: expected a list"),
        ([(["a"], ["", "b"])], [1.0], "pair 0: target: token 0 is ''"),
        ([(["a"], ["b"], ["c"])], [1.0], "pair 0: expected \\(source tokens, target tokens\\)"),
        ([(["a"], ["b"])], [1.0, 2.0], "1 pairs but targets has shape"),
        ([(["a"], ["b"])], [float("nan")], "target 0 is nan"),
        ([], [], "no pairs given"),
    ],
)
def test_fit_rejects_bad_input_with_the_pair_and_field(
    pairs: Any, targets: Any, message: str
) -> None:
    with pytest.raises(InputError, match=message):
        PFSMScorer(PFSMOptions(synonyms=False)).fit(pairs, targets)


def test_it_rejects_bad_parameters_and_use_before_training() -> None:
    with pytest.raises(OptionsError, match="takes PFSMOptions or PPDAOptions"):
        PFSMScorer("hmm")  # type: ignore[arg-type]
    with pytest.raises(OptionsError, match=r"'jump_limit' of scorer 'ppda' must be in \[1, 10\]"):
        PPDAOptions(jump_limit=0)
    with pytest.raises(OptionsError, match=r"'jump_limit' of scorer 'ppda' must be in \[1, 10\]"):
        PPDAOptions(jump_limit=50)
    with pytest.raises(OptionsError, match=r"'l2' of scorer 'pfsm' must be in \[0, 10000\]"):
        PFSMOptions(l2=-1.0)
    with pytest.raises(ModelError, match="not trained"):
        PFSMScorer(PFSMOptions(synonyms=False)).score([(["a"], ["a"])])
    with pytest.raises(InputError, match="source: the sentence has no tokens"):
        hand_model("pfsm", S_WORD=1.0).align([], ["a"])
    assert issubclass(InputError, ScoringError) and issubclass(OptionsError, ScoringError)


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"format": "other"}, "format"),
        ({"version": 99}, "version"),
        ({"alpha": "x"}, "alpha"),
        ({"weights": {"state:NOPE": 1.0}}, "weights.state:NOPE"),
        ({"weights": {"state:INS": float("inf")}}, "weights.state:INS"),
        ({"kind": "hmm"}, "kind"),
        ({"l2": -1.0}, "parameters"),
    ],
)
def test_from_dict_names_the_bad_field(change: dict[str, Any], field: str) -> None:
    model = hand_model("pfsm", S_WORD=1.0)
    data = {**model.to_dict(), **change}
    with pytest.raises(FormatError) as error:
        PFSMScorer.from_dict(data, path="model.json")
    assert error.value.field == field and "model.json" in str(error.value)
    missing = model.to_dict()
    del missing["cutoff"]
    with pytest.raises(FormatError, match="field 'cutoff'"):
        PFSMScorer.from_dict(missing)
