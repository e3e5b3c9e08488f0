"""Word features of the supervised aligner: Wu-Palmer similarity against nltk's own."""

from __future__ import annotations

import itertools

from scoring import resources
from scoring.aligners.word_features import wordnet_relations, wu_palmer

# nouns (with instance hypernyms: cities, people), verbs (several roots: the simulated root),
# adjectives and satellites, adverbs; senses below, above and beside each other
WORDS = (
    "dog animal cat theory paris london einstein chef fireman investigation car vehicle "
    "run walk investigate eat consume be have say think good bad quick fast quickly slowly "
    "red green big large"
).split()


def test_wu_palmer_gives_nltk_s_similarity_for_every_pair_of_senses() -> None:
    wn = resources.wordnet()
    senses = [s for w in WORDS for s in wn.synsets(w)[:4]]
    compared = 0
    for x, y in itertools.product(senses, senses):
        if x.pos() == y.pos() or {x.pos(), y.pos()} <= {"a", "s"}:
            assert wu_palmer(x, y) == x.wup_similarity(y), (x, y)
            compared += 1
    assert compared > 1000
    assert wu_palmer(wn.synset("run.v.01"), wn.synset("think.v.01")) is not None


def test_wordnet_relations_take_the_best_similarity_of_the_senses() -> None:
    wn = resources.wordnet()
    best = max(
        x.wup_similarity(y) or 0.0
        for x in wn.synsets("car")[:4]
        for y in wn.synsets("vehicle")[:4]
        if x.pos() == y.pos()
    )
    assert wordnet_relations("car", "vehicle")[0] == best
