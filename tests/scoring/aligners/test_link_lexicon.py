"""The corpus lexicon of the annotators' links: counts, leaving a pair out, saving."""

from __future__ import annotations

import math

import numpy as np

from scoring.aligners.link_lexicon import FEATURES, LinkLexicon
from scoring.alignment.links import Alignment

PAIRS = [
    (["The", "cat", "sat"], ["the", "cat", "sits"]),
    (["a", "cat"], ["the", "cats"]),
    (["the", "dog"], ["a", "dog"]),
]
GOLDS = [
    Alignment.from_links(3, 3, sure=[(0, 0), (1, 1)], possible=[(2, 2)]),
    Alignment.from_links(2, 2, sure=[(1, 1)], possible=[(0, 0)]),
    Alignment.from_links(2, 2, sure=[(1, 1)]),
]


def _column(features: np.ndarray, name: str) -> list[float]:
    return features[:, FEATURES.index(name)].tolist()


def test_it_counts_what_the_annotators_did_with_each_word_pair() -> None:
    lexicon = LinkLexicon.count(PAIRS, GOLDS)
    out = lexicon.features(["the", "cat"], ["the", "cat", "dog"])
    # cells the-the, the-cat, the-dog, cat-the, cat-cat, cat-dog
    assert _column(out, "lexicon_seen") == [1.0, 1.0, 1.0, 2.0, 1.0, 0.0]
    assert _column(out, "lexicon_link_rate")[:5] == [1.0, 0.0, 0.0, 0.0, 1.0]
    assert math.isnan(_column(out, "lexicon_link_rate")[5])  # "cat"-"dog" never met
    assert _column(out, "lexicon_sure_rate")[0] == 1.0
    assert math.isnan(_column(out, "lexicon_sure_rate")[1])  # never linked
    # stems: "cat"-"cats" and "cat"-"cat" are one stem pair, linked both times
    assert _column(out, "lexicon_stem_seen")[4] == 2.0
    assert _column(out, "lexicon_stem_link_rate")[4] == 1.0
    # source "the" occurs in pairs 1 and 3; linked in pair 1 only
    assert _column(out, "lexicon_source_link_rate")[0] == 0.5
    # target "dog": once, linked
    assert _column(out, "lexicon_target_link_rate")[2] == 1.0


def test_a_training_pair_does_not_see_its_own_annotation() -> None:
    lexicon = LinkLexicon.count(PAIRS, GOLDS)
    others = LinkLexicon.count(PAIRS[1:], GOLDS[1:])
    left_out = lexicon.features(*PAIRS[0], exclude=GOLDS[0])
    np.testing.assert_array_equal(left_out, others.features(*PAIRS[0]))


def test_a_restored_lexicon_gives_the_same_features() -> None:
    lexicon = LinkLexicon.count(PAIRS, GOLDS)
    restored = LinkLexicon.restore(*lexicon.state())
    pair = (["a", "cat", "sat"], ["the", "dog", "sits", "unknown"])
    np.testing.assert_array_equal(restored.features(*pair), lexicon.features(*pair))
