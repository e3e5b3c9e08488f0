"""Finch, Hwang & Sumita 2005's MT-metric feature vectors (scoring.mt.features): the paper's Figure
2, hand-computed
values for each feature family, both-direction averaging, the batch kernels against plain-Python
references written here, pre-processing and bad input."""

from __future__ import annotations

import math
import random
from collections import Counter

import numpy as np
import pytest

from scoring.errors import InputError, ScoringError
from scoring.mt import metrics as mtmetrics
from scoring.mt.features import (
    FEATURE_NAMES,
    PENN_TAGS,
    TABLE3_SUBSETS,
    features,
    mt_features,
    pair_statistics,
)


def tagged(text: str) -> tuple[list[str], list[str]]:
    words, tags = zip(*(item.rsplit("/", 1) for item in text.split()), strict=True)
    return list(words), list(tags)


def tagged_pairs(*pairs: tuple[str, str]) -> tuple[list[tuple[list[str], list[str]]], list]:
    sentences, tags = [], []
    for one, two in pairs:
        (w1, t1), (w2, t2) = tagged(one), tagged(two)
        sentences.append((w1, w2))
        tags.append((t1, t2))
    return sentences, tags


def column(matrix: np.ndarray, name: str) -> np.ndarray:
    return matrix[:, FEATURE_NAMES.index(name)]


FIGURE_2 = (
    "the/DT cat/NN sat/VBD on/IN the/DT mat/NN",
    "the/DT dog/NN sat/VBD on/IN the/DT mat/NN",
)


# --- independent references --------------------------------------------------------------------


def levenshtein(a: list[str], b: list[str]) -> int:
    rows = [list(range(len(b) + 1))]
    for i, x in enumerate(a, 1):
        row = [i]
        for j, y in enumerate(b, 1):
            row.append(min(rows[-1][j] + 1, row[j - 1] + 1, rows[-1][j - 1] + (x != y)))
        rows.append(row)
    return rows[-1][-1]


def ngrams(tokens: list[str], n: int) -> Counter[tuple[str, ...]]:
    return Counter(tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1))


def bleu_no_bp(hyp: list[str], ref: list[str], order: int) -> float:
    """Finch, Hwang & Sumita 2005, §2.3 without brevity penalty, with mteval-v13a's smoothing of
    empty orders."""
    total, smooth = 0.0, 1.0
    for n in range(1, order + 1):
        h, r = ngrams(hyp, n), ngrams(ref, n)
        count = sum(h.values())
        match = sum(min(c, r[g]) for g, c in h.items())
        if count == 0:
            continue  # an order longer than the segment counts as precision 1
        if match == 0:
            smooth *= 2
            total += math.log(1 / (smooth * count))
        else:
            total += math.log(match / count)
    return math.exp(total / order)


def nist_reference(hyps: list[list[str]], refs: list[list[str]], order: int) -> list[float]:
    """Finch, Hwang & Sumita 2005, §2.4: information from all of ``refs``, arithmetic sum over
    orders, brevity
    penalty 0.5 at a length ratio of 2/3."""
    counts: Counter[tuple[str, ...]] = Counter()
    for ref in refs:
        for n in range(1, order + 1):
            counts.update(ngrams(ref, n))
    words = sum(len(r) for r in refs)

    def info(g: tuple[str, ...]) -> float:
        prefix = counts[g[:-1]] if len(g) > 1 else words
        return math.log2(prefix / counts[g])

    beta = -math.log(0.5) / math.log(1.5) ** 2
    out = []
    for hyp, ref in zip(hyps, refs, strict=True):
        score = 0.0
        for n in range(1, order + 1):
            h, r = ngrams(hyp, n), ngrams(ref, n)
            matched = sum(info(g) * min(c, r[g]) for g, c in h.items() if r[g])
            score += matched / max(sum(h.values()), 1)
        ratio = min(len(hyp) / len(ref), 1.0)
        out.append(score * math.exp(-beta * math.log(ratio) ** 2))
    return out


# --- the paper's example and hand-computed values ----------------------------------------------


def test_it_reproduces_figure_2_of_the_paper() -> None:
    sentences, tags = tagged_pairs(FIGURE_2)
    x = mt_features(sentences, tags=tags)
    expected_plus = {"DT": 2 / 6, "NN": 1 / 6, "VBD": 1 / 6, "IN": 1 / 6}
    expected_minus = {"NN": 1 / 6}
    for tag in PENN_TAGS:
        assert column(x, f"POS+:{tag}")[0] == pytest.approx(expected_plus.get(tag, 0.0))
        assert column(x, f"POS-:{tag}")[0] == pytest.approx(expected_minus.get(tag, 0.0))
    assert column(x, "WER")[0] == pytest.approx(1 / 6)
    assert column(x, "PER")[0] == pytest.approx(1 / 6)


def test_the_tagger_gives_figure_2s_tags_when_none_are_supplied() -> None:
    sentences, tags = tagged_pairs(FIGURE_2)
    assert np.array_equal(mt_features(sentences), mt_features(sentences, tags=tags))


def test_wer_per_and_pos_are_averaged_over_both_directions() -> None:
    # s1 = a b c, s2 = a b c d e: distance 2, 3 common words.
    sentences, tags = tagged_pairs(
        ("a/DT big/JJ red/JJ", "a/DT big/JJ red/JJ old/JJ in/IN"),
    )
    x = mt_features(sentences, tags=tags)
    assert column(x, "WER")[0] == pytest.approx((2 / 5 + 2 / 3) / 2)
    # max(diff(s, r), diff(r, s)) = max(0, 2) = 2 both ways.
    assert column(x, "PER")[0] == pytest.approx((2 / 5 + 2 / 3) / 2)
    # Sentence 1 has no unmatched words; sentence 2 has old/JJ and in/IN out of 5.
    assert column(x, "POS-:JJ")[0] == pytest.approx((0 / 3 + 1 / 5) / 2)
    assert column(x, "POS-:IN")[0] == pytest.approx((0 / 3 + 1 / 5) / 2)
    assert column(x, "POS+:JJ")[0] == pytest.approx((2 / 3 + 2 / 5) / 2)
    assert column(x, "POS+:DT")[0] == pytest.approx((1 / 3 + 1 / 5) / 2)


def test_bleu_has_no_brevity_penalty_and_is_averaged_over_both_directions() -> None:
    sentences, tags = tagged_pairs(
        ("a/DT big/JJ red/JJ", "a/DT big/JJ red/JJ old/JJ in/IN"),
    )
    x = mt_features(sentences, tags=tags)
    # Unigram precision 3/3 one way, 3/5 the other; no brevity penalty.
    assert column(x, "BLEU1")[0] == pytest.approx((1.0 + 3 / 5) / 2)
    # Bigrams: 2/2 one way, 2/4 the other.
    assert column(x, "BLEU2")[0] == pytest.approx((1.0 + math.sqrt(3 / 5 * 2 / 4)) / 2)


def test_nist_uses_information_from_the_whole_reference_side_in_each_direction() -> None:
    sentences, tags = tagged_pairs(
        ("the/DT red/JJ car/NN", "the/DT red/JJ car/NN here/RB"),
        ("a/DT red/JJ bus/NN", "the/DT bus/NN"),
    )
    x = mt_features(sentences, tags=tags)
    # Direction 1 (sentence 2 as reference): 6 reference words; "the" twice, "red", "car",
    # "here" and "bus" once. Direction 2: 6 words; "red" twice, the others once.
    first = [["the", "red", "car"], ["a", "red", "bu"]]  # nouns are stemmed: bus → bu
    second = [["the", "red", "car", "here"], ["the", "bu"]]
    for order in (1, 2, 5):
        forward = nist_reference(first, second, order)
        backward = nist_reference(second, first, order)
        expected = [(f + b) / 2 for f, b in zip(forward, backward, strict=True)]
        assert column(x, f"NIST{order}") == pytest.approx(expected, rel=1e-12)
    # NIST1, pair 1, by hand: forward the, red, car match with info log2(6/2) + 2·log2(6);
    # the hypothesis is shorter (3/4): penalty exp(−β log²(3/4)). Backward: the, red, car of
    # the four words match; the hypothesis is longer, no penalty.
    beta = -math.log(0.5) / math.log(1.5) ** 2
    forward = (math.log2(6 / 2) + 2 * math.log2(6)) / 3 * math.exp(-beta * math.log(0.75) ** 2)
    backward = (math.log2(6 / 1) + math.log2(6 / 2) + math.log2(6 / 1)) / 4
    assert column(x, "NIST1")[0] == pytest.approx((forward + backward) / 2, rel=1e-12)


def test_matching_prefers_occurrences_with_the_same_tag() -> None:
    # "that" is a determiner and a preposition in sentence 1, only a preposition in sentence 2:
    # the preposition is the one that matches, though the determiner comes first.
    sentences, tags = tagged_pairs(("that/DT that/IN big/JJ", "that/IN small/JJ"))
    x = mt_features(sentences, tags=tags)
    assert column(x, "POS+:IN")[0] == pytest.approx((1 / 3 + 1 / 2) / 2)
    assert column(x, "POS-:DT")[0] == pytest.approx((1 / 3 + 0) / 2)
    assert column(x, "POS+:DT")[0] == 0.0


def test_only_nouns_and_verbs_are_stemmed() -> None:
    as_verbs, verb_tags = tagged_pairs(("he/PRP jumped/VBD", "he/PRP jumps/VBZ"))
    assert column(mt_features(as_verbs, tags=verb_tags), "PER")[0] == 0.0
    as_adjectives = [(["he", "jumped"], ["he", "jumps"])]
    adjective_tags = [(["PRP", "JJ"], ["PRP", "JJ"])]
    assert column(mt_features(as_adjectives, tags=adjective_tags), "PER")[0] == 0.5


def test_it_lowercases_unless_told_not_to() -> None:
    sentences, tags = tagged_pairs(("The/DT end/NN", "the/DT end/NN"))
    assert column(mt_features(sentences, tags=tags), "WER")[0] == 0.0
    assert column(mt_features(sentences, tags=tags, lowercase=False), "WER")[0] == 0.5


# --- the batch kernels against the references, on random sentences ----------------------------


def random_corpus(seed: int, n: int) -> tuple[list[tuple[list[str], list[str]]], list]:
    rng = random.Random(seed)
    vocab = [("cat", "NN"), ("sat", "VBD"), ("on", "IN"), ("the", "DT"), ("a", "DT"), ("red", "JJ")]
    vocab += [("that", "DT"), ("that", "IN"), ("mat", "NN"), (",", ","), ("quickly", "RB")]
    pairs, tags = [], []
    for _ in range(n):
        one = [rng.choice(vocab) for _ in range(rng.randint(1, 12))]
        two = [rng.choice(vocab) for _ in range(rng.randint(1, 12))]
        pairs.append(([w for w, _ in one], [w for w, _ in two]))
        tags.append(([t for _, t in one], [t for _, t in two]))
    return pairs, tags


def test_the_kernels_agree_with_plain_python_on_random_pairs() -> None:
    pairs, tags = random_corpus(seed=3, n=200)
    stats = pair_statistics(pairs, tags=tags)
    x = features(stats)
    for k, (s1, s2) in enumerate(pairs):
        d = levenshtein(s1, s2)
        assert stats.edit_distance[k] == d
        assert column(x, "WER")[k] == pytest.approx(
            (mtmetrics.wer(s1, s2) + mtmetrics.wer(s2, s1)) / 2, rel=1e-15
        )
        assert column(x, "PER")[k] == pytest.approx(
            (mtmetrics.per(s1, s2) + mtmetrics.per(s2, s1)) / 2, rel=1e-15
        )
        common = sum((Counter(s1) & Counter(s2)).values())
        assert stats.common[k] == common
        assert stats.unmatched1[k].sum() == len(s1) - common
        assert stats.matched2[k].sum() == common
        for order in (1, 2, 3, 4):
            expected = (bleu_no_bp(s1, s2, order) + bleu_no_bp(s2, s1, order)) / 2
            assert column(x, f"BLEU{order}")[k] == pytest.approx(expected, rel=1e-12)
    first = [p[0] for p in pairs]
    second = [p[1] for p in pairs]
    nist5 = [
        (f + b) / 2
        for f, b in zip(
            nist_reference(first, second, 5), nist_reference(second, first, 5), strict=True
        )
    ]
    assert column(x, "NIST5") == pytest.approx(nist5, rel=1e-12)


def test_pos_vectors_split_each_word_by_tag() -> None:
    pairs, tags = random_corpus(seed=5, n=100)
    stats = pair_statistics(pairs, tags=tags)
    for k, (t1, _) in enumerate(tags):
        per_tag = stats.matched1[k] + stats.unmatched1[k]
        expected = Counter(t1)
        assert {PENN_TAGS[i]: int(c) for i, c in enumerate(per_tag) if c} == dict(expected)


def test_it_returns_the_columns_asked_for_in_that_order() -> None:
    pairs, tags = random_corpus(seed=7, n=20)
    full = mt_features(pairs, tags=tags)
    names = ["PER", "BLEU1", "POS-:NN"]
    part = mt_features(pairs, names, tags=tags)
    assert part.shape == (20, 3)
    for j, name in enumerate(names):
        assert np.array_equal(part[:, j], column(full, name))


def test_the_table_3_subsets_name_known_features() -> None:
    assert set(TABLE3_SUBSETS) >= {"WER", "PER", "POS", "BLEU1", "NIST1", "ALL"}
    assert TABLE3_SUBSETS["POS"] == TABLE3_SUBSETS["POS-"] + TABLE3_SUBSETS["POS+"]
    assert len(FEATURE_NAMES) == 4 + 5 + 2 + 2 * 45
    for names in TABLE3_SUBSETS.values():
        assert set(names) <= set(FEATURE_NAMES)


# --- bad input ---------------------------------------------------------------------------------


def test_it_rejects_an_empty_sentence_naming_the_pair_and_field() -> None:
    with pytest.raises(InputError, match=r"pair 1: field 'tokens2': the sentence is empty"):
        mt_features([(["a"], ["a"]), (["b"], [])], tags=[(["DT"], ["DT"]), (["DT"], [])])


def test_it_rejects_tags_that_do_not_fit_the_tokens() -> None:
    with pytest.raises(InputError, match=r"pair 0: field 'tags1': 1 tags for 2 tokens"):
        mt_features([(["a", "b"], ["a"])], tags=[(["DT"], ["DT"])])


def test_it_rejects_tag_lists_of_another_length_than_the_pairs() -> None:
    with pytest.raises(InputError, match="2 tag pairs for 1 sentence pairs"):
        mt_features([(["a"], ["a"])], tags=[(["DT"], ["DT"]), (["DT"], ["DT"])])


def test_it_rejects_unknown_tags_and_feature_names() -> None:
    with pytest.raises(InputError, match=r"tag 0 \('NOUN'\) is not a Penn Treebank tag"):
        mt_features([(["a"], ["a"])], tags=[(["NOUN"], ["DT"])])
    with pytest.raises(InputError, match="unknown feature name 'BLEU9'"):
        mt_features([(["a"], ["a"])], ["BLEU9"], tags=[(["DT"], ["DT"])])


def test_it_rejects_a_string_in_place_of_tokens() -> None:
    with pytest.raises(ScoringError, match="field 'tokens1': expected a sequence of tokens"):
        mt_features([("a cat", ["a"])])
    with pytest.raises(ScoringError, match="no sentence pairs"):
        mt_features([])
