"""Feature vectors of Finch, Hwang & Sumita (2005): MT metrics as paraphrase features.

A sentence pair ``(s1, s2)`` is scored with each sentence in turn as the "system output" and the
other as the single reference, and the two values of every feature are averaged (Finch, Hwang &
Sumita 2005, §4.3:
"We calculated the vectors for each sentence in the pair as both reference and system output and
averaged"). The features, named by stable strings (:data:`FEATURE_NAMES`):

- ``BLEU1`` … ``BLEU4`` (§2.3): sentence BLEU without the brevity penalty, from
  :func:`scoring.mt.metrics.bleu` (mteval-v13a's smoothing by default, ``smoothing="none"`` for
  the plain geometric mean, which is 0 as soon as one order has no match).
- ``NIST1`` … ``NIST5`` (§2.4): sentence NIST with its brevity penalty, from
  :func:`scoring.mt.metrics.nist`; information weights are counted over the whole reference side
  of the data set, as mteval does (the second sentences when the first are scored, and the
  other way round), or over ``info_refs`` when given.
- ``WER`` (§2.1): word Levenshtein distance ``/ |r|``.
- ``PER`` (§2.2): ``max(diff(s, r), diff(r, s)) / |r|`` over bags of words.
- ``POS-:<tag>`` and ``POS+:<tag>`` for each of the 45 Penn Treebank tags (:data:`PENN_TAGS`)
  (§2.5): ``f−_t = #{w ∈ W− tagged t} / |s|`` and ``f+_t = #{w ∈ W+ tagged t} / |s|``, where
  ``W−``/``W+`` are the words of ``s`` without/with a match in ``r`` (bags: a word occurring
  ``a`` times in ``s`` and ``b`` times in ``r`` has ``min(a, b)`` matches). Figure 2's example:
  *the cat sat on the mat* vs *the dog sat on the mat* gives ``POS+`` DT 2/6, NN 1/6, VBD 1/6,
  IN 1/6 and ``POS−`` NN 1/6. ``Σ_t f−_t = diff(s, r) / |s|``.

Pre-processing (§4.1–4.2): tokens are POS-tagged on their surface form
(:func:`scoring.resources.pos_tag`, Penn tags), then lower-cased (mteval's default; the paper
does not say, ``lowercase=False`` keeps case) and nouns and verbs (tags ``NN*``, ``VB*``) are
replaced by their Porter stem. Every metric sees these normalised tokens.

Which occurrences of a repeated word count as matched only matters to the POS vectors, and only
when the occurrences carry different tags: occurrences are first matched to occurrences of the
same word *and* tag, left to right, then to the same word with another tag.

Two stages: :func:`pair_statistics` gives per-pair sufficient statistics
(:class:`PairStatistics`: lengths, edit distance, matched and unmatched counts per tag, n-gram
statistics both ways); :func:`features` turns them into a float64 ``(N, F)`` matrix for any list
of feature names. :func:`mt_features` does both. :data:`TABLE3_SUBSETS` lists the feature subsets
of the rows of the paper's Tables 2 and 3.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from numba import njit

from scoring.errors import InputError
from scoring.mt import metrics as mtmetrics
from scoring.resources import pos_tag, stem

F64 = npt.NDArray[np.float64]
I64 = npt.NDArray[np.int64]

Tokens = Sequence[str]
Pair = tuple[Tokens, Tokens]

#: The 45 tags of the Penn Treebank (Marcus et al. 1993): 36 word tags and 9 punctuation tags;
#: exactly the classes of nltk's averaged perceptron tagger.
PENN_TAGS: tuple[str, ...] = (
    *("CC", "CD", "DT", "EX", "FW", "IN", "JJ", "JJR", "JJS", "LS", "MD", "NN", "NNS", "NNP"),
    *("NNPS", "PDT", "POS", "PRP", "PRP$", "RB", "RBR", "RBS", "RP", "SYM", "TO", "UH", "VB"),
    *("VBD", "VBG", "VBN", "VBP", "VBZ", "WDT", "WP", "WP$", "WRB"),
    *("#", "$", "''", "``", "(", ")", ",", ".", ":"),
)
_TAG_INDEX = {tag: k for k, tag in enumerate(PENN_TAGS)}

BLEU_NAMES: tuple[str, ...] = tuple(f"BLEU{n}" for n in mtmetrics.BLEU_ORDERS)
NIST_NAMES: tuple[str, ...] = tuple(f"NIST{n}" for n in mtmetrics.NIST_ORDERS)
POS_MINUS_NAMES: tuple[str, ...] = tuple(f"POS-:{tag}" for tag in PENN_TAGS)
POS_PLUS_NAMES: tuple[str, ...] = tuple(f"POS+:{tag}" for tag in PENN_TAGS)

#: Every feature, in this order: BLEU1–4, NIST1–5, WER, PER, POS−×45, POS+×45 (101 features).
FEATURE_NAMES: tuple[str, ...] = (
    *BLEU_NAMES,
    *NIST_NAMES,
    "WER",
    "PER",
    *POS_MINUS_NAMES,
    *POS_PLUS_NAMES,
)

#: Feature subsets of the rows of Finch, Hwang & Sumita's (2005) Tables 2 and 3 (§5.1): "PER POS-"
#: combines PER
#: and POS−, "POS" is POS− with POS+, "ALL" is every feature of the experiments.
TABLE3_SUBSETS: dict[str, tuple[str, ...]] = {
    "WER": ("WER",),
    "PER": ("PER",),
    "POS-": POS_MINUS_NAMES,
    "PER POS-": ("PER", *POS_MINUS_NAMES),
    "POS+": POS_PLUS_NAMES,
    "POS": (*POS_MINUS_NAMES, *POS_PLUS_NAMES),
    **{name: (name,) for name in BLEU_NAMES},
    **{name: (name,) for name in NIST_NAMES},
    "ALL": FEATURE_NAMES,
}

_NOUN_VERB = ("NN", "VB")


# --- pre-processing ----------------------------------------------------------------------------


def _check_sentence(tokens: object, index: int, field: str) -> list[str]:
    if isinstance(tokens, str) or not isinstance(tokens, Sequence):
        raise InputError(
            f"pair {index}: field '{field}': expected a sequence of tokens, "
            f"got {type(tokens).__name__}"
        )
    if len(tokens) == 0:
        raise InputError(f"pair {index}: field '{field}': the sentence is empty")
    for position, token in enumerate(tokens):
        if not isinstance(token, str) or not token or token.isspace():
            raise InputError(
                f"pair {index}: field '{field}': token {position} must be a non-blank string, "
                f"got {token!r}"
            )
    return list(tokens)


def _check_tags(tags: object, n_tokens: int, index: int, field: str) -> list[str]:
    if isinstance(tags, str) or not isinstance(tags, Sequence):
        raise InputError(f"pair {index}: field '{field}': expected a sequence of tags")
    if len(tags) != n_tokens:
        raise InputError(f"pair {index}: field '{field}': {len(tags)} tags for {n_tokens} tokens")
    for position, tag in enumerate(tags):
        if tag not in _TAG_INDEX:
            raise InputError(
                f"pair {index}: field '{field}': tag {position} ({tag!r}) is not a Penn "
                "Treebank tag"
            )
    return list(tags)


def normalise(tokens: Sequence[str], tags: Sequence[str], *, lowercase: bool = True) -> list[str]:
    """Finch, Hwang & Sumita 2005, §4.2: nouns and verbs (``NN*``, ``VB*``) replaced by their
    Porter stem (nltk's
    default mode), every token lower-cased unless ``lowercase=False``."""
    out = []
    for token, tag in zip(tokens, tags, strict=True):
        if tag.startswith(_NOUN_VERB):
            out.append(stem(token, lowercase=lowercase))
        else:
            out.append(token.lower() if lowercase else token)
    return out


# --- stage 1: per-pair statistics --------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PairStatistics:
    """Sufficient statistics of Finch, Hwang & Sumita's (2005) features for ``N`` pairs.

    ``len1``/``len2`` int64 ``(N,)`` words; ``edit_distance`` int64 ``(N,)`` word Levenshtein
    distance; ``matched1``/``unmatched1`` int64 ``(N, 45)`` words of sentence 1 with/without a
    match in sentence 2 per Penn tag (:data:`PENN_TAGS` order), ``matched2``/``unmatched2`` the
    same for sentence 2; ``forward`` n-gram statistics of sentence 1 scored against sentence 2,
    ``backward`` the other way round (:class:`scoring.mt.metrics.NgramStats`, orders 1…5).
    """

    len1: I64
    len2: I64
    edit_distance: I64
    matched1: I64
    unmatched1: I64
    matched2: I64
    unmatched2: I64
    forward: mtmetrics.NgramStats
    backward: mtmetrics.NgramStats

    def __len__(self) -> int:
        return int(self.len1.shape[0])

    @property
    def common(self) -> I64:
        """Words the two sentences share as bags, ``(N,)``."""
        out: I64 = self.matched1.sum(axis=1)
        return out


@njit(cache=True)
def _pair_kernel(
    word: I64,
    tag: I64,
    off1: I64,
    off2: I64,
    dist: I64,
    matched1: I64,
    unmatched1: I64,
    matched2: I64,
    unmatched2: I64,
) -> None:
    """Per pair ``k`` (sentence 1 = ``word[off1[k]:off1[k + 1]]``, sentence 2 likewise with
    ``off2``): unit-cost Levenshtein distance into ``dist[k]`` and the bag matching of Finch, Hwang
    & Sumita 2005
    §2.5 into the ``(N, T)`` per-tag counts. Matching takes same word and same tag first, then
    same word, each left to right; it pairs ``min(a, b)`` occurrences of every word."""
    n_pairs = dist.shape[0]
    max1 = 1
    max2 = 1
    for k in range(n_pairs):
        max1 = max(max1, off1[k + 1] - off1[k])
        max2 = max(max2, off2[k + 1] - off2[k])
    row = np.empty(max2 + 1, np.int64)
    used = np.zeros(max2, np.bool_)
    done = np.zeros(max1, np.bool_)
    for k in range(n_pairs):
        a0 = off1[k]
        na = off1[k + 1] - a0
        b0 = off2[k]
        nb = off2[k + 1] - b0
        for j in range(nb + 1):
            row[j] = j
        for i in range(na):
            diag = row[0]
            row[0] = i + 1
            wi = word[a0 + i]
            for j in range(nb):
                up = row[j + 1]
                best = diag + (0 if wi == word[b0 + j] else 1)
                if up + 1 < best:
                    best = up + 1
                if row[j] + 1 < best:
                    best = row[j] + 1
                row[j + 1] = best
                diag = up
        dist[k] = row[nb]
        for j in range(nb):
            used[j] = False
        for i in range(na):
            done[i] = False
        for same_tag in (True, False):
            for i in range(na):
                if done[i]:
                    continue
                for j in range(nb):
                    if (
                        not used[j]
                        and word[b0 + j] == word[a0 + i]
                        and (not same_tag or tag[b0 + j] == tag[a0 + i])
                    ):
                        used[j] = True
                        done[i] = True
                        break
        for i in range(na):
            if done[i]:
                matched1[k, tag[a0 + i]] += 1
            else:
                unmatched1[k, tag[a0 + i]] += 1
        for j in range(nb):
            if used[j]:
                matched2[k, tag[b0 + j]] += 1
            else:
                unmatched2[k, tag[b0 + j]] += 1


def _check_pairs(pairs: object, what: str) -> Sequence[Pair]:
    if isinstance(pairs, str) or not isinstance(pairs, Sequence):
        raise InputError(f"{what} must be a sequence of (tokens1, tokens2) pairs")
    for index, pair in enumerate(pairs):
        if isinstance(pair, str) or not isinstance(pair, Sequence) or len(pair) != 2:
            raise InputError(f"{what} {index}: expected a (tokens1, tokens2) pair")
    return pairs


def pair_statistics(
    pairs: Sequence[Pair],
    *,
    tags: Sequence[Pair] | None = None,
    lowercase: bool = True,
    info_refs: Sequence[Sequence[str]] | None = None,
) -> PairStatistics:
    """Stage 1: the statistics of Finch, Hwang & Sumita's (2005) features for tokenized ``(tokens1,
    tokens2)`` pairs.

    ``tags``: Penn tags of each pair, as ``(tags1, tags2)`` (default: nltk's tagger on the
    tokens). ``info_refs``: already-normalised sentences whose n-grams give the NIST information
    weights in both directions (default: the data set's own reference side each way, as mteval
    does). Raises :class:`~scoring.errors.InputError` on an empty sentence, tags that do not fit, or
    ``tags`` of another length than ``pairs``.
    """
    pairs = _check_pairs(pairs, "pair")
    if tags is not None:
        tags = _check_pairs(tags, "tags of pair")
        if len(tags) != len(pairs):
            raise InputError(f"{len(tags)} tag pairs for {len(pairs)} sentence pairs")
    if len(pairs) == 0:
        raise InputError("no sentence pairs")
    first: list[list[str]] = []
    second: list[list[str]] = []
    tag_ids: list[int] = []
    tag_ids2: list[int] = []
    for index, (s1, s2) in enumerate(pairs):
        t1 = _check_sentence(s1, index, "tokens1")
        t2 = _check_sentence(s2, index, "tokens2")
        if tags is None:
            g1, g2 = pos_tag(t1), pos_tag(t2)
        else:
            g1 = _check_tags(tags[index][0], len(t1), index, "tags1")
            g2 = _check_tags(tags[index][1], len(t2), index, "tags2")
        first.append(normalise(t1, g1, lowercase=lowercase))
        second.append(normalise(t2, g2, lowercase=lowercase))
        tag_ids.extend(_TAG_INDEX[g] for g in g1)
        tag_ids2.extend(_TAG_INDEX[g] for g in g2)

    vocab: dict[str, int] = {}
    words1 = [vocab.setdefault(w, len(vocab)) for s in first for w in s]
    words2 = [vocab.setdefault(w, len(vocab)) for s in second for w in s]
    len1 = np.array([len(s) for s in first], np.int64)
    len2 = np.array([len(s) for s in second], np.int64)
    off1 = np.zeros(len(pairs) + 1, np.int64)
    np.cumsum(len1, out=off1[1:])
    off2 = np.zeros(len(pairs) + 1, np.int64)
    np.cumsum(len2, out=off2[1:])
    off2 += off1[-1]
    word = np.array(words1 + words2, np.int64)
    tag = np.array(tag_ids + tag_ids2, np.int64)
    n, t = len(pairs), len(PENN_TAGS)
    dist = np.zeros(n, np.int64)
    matched1, unmatched1, matched2, unmatched2 = (np.zeros((n, t), np.int64) for _ in range(4))
    _pair_kernel(word, tag, off1, off2, dist, matched1, unmatched1, matched2, unmatched2)
    forward = mtmetrics.ngram_stats(first, second, info_refs=info_refs)
    backward = mtmetrics.ngram_stats(second, first, info_refs=info_refs)
    return PairStatistics(
        len1, len2, dist, matched1, unmatched1, matched2, unmatched2, forward, backward
    )


# --- stage 2: features -------------------------------------------------------------------------


def _check_names(names: Sequence[str]) -> tuple[str, ...]:
    if isinstance(names, str):
        raise InputError("feature names must be a sequence of names, not one string")
    known = set(FEATURE_NAMES)
    for name in names:
        if name not in known:
            raise InputError(f"unknown feature name {name!r}; see FEATURE_NAMES")
    if len(set(names)) != len(names):
        raise InputError("feature names repeat")
    if not names:
        raise InputError("no feature names")
    return tuple(names)


def features(
    stats: PairStatistics,
    names: Sequence[str] = FEATURE_NAMES,
    *,
    smoothing: str = "mteval",
) -> F64:
    """Stage 2: float64 ``(N, len(names))`` feature matrix, each feature the mean of its two
    directions (Finch, Hwang & Sumita 2005, §4.3). ``smoothing`` is passed to
    :func:`scoring.mt.metrics.bleu`."""
    wanted = _check_names(names)
    len1 = stats.len1.astype(np.float64)
    len2 = stats.len2.astype(np.float64)
    columns: dict[str, F64] = {}

    def both(one: F64, two: F64) -> F64:
        out: F64 = (one + two) / 2.0
        return out

    for n, name in zip(mtmetrics.BLEU_ORDERS, BLEU_NAMES, strict=True):
        if name in wanted:
            columns[name] = both(
                mtmetrics.bleu(stats.forward, order=n, smoothing=smoothing, brevity_penalty=False),
                mtmetrics.bleu(stats.backward, order=n, smoothing=smoothing, brevity_penalty=False),
            )
    for n, name in zip(mtmetrics.NIST_ORDERS, NIST_NAMES, strict=True):
        if name in wanted:
            columns[name] = both(
                mtmetrics.nist(stats.forward, order=n), mtmetrics.nist(stats.backward, order=n)
            )
    dist = stats.edit_distance.astype(np.float64)
    columns["WER"] = both(dist / len2, dist / len1)
    common = stats.common.astype(np.float64)
    worst = np.maximum(len1 - common, len2 - common)
    columns["PER"] = both(worst / len2, worst / len1)
    minus = both(stats.unmatched1 / len1[:, None], stats.unmatched2 / len2[:, None])
    plus = both(stats.matched1 / len1[:, None], stats.matched2 / len2[:, None])
    for k, tag in enumerate(PENN_TAGS):
        columns[f"POS-:{tag}"] = minus[:, k]
        columns[f"POS+:{tag}"] = plus[:, k]
    return np.ascontiguousarray(np.column_stack([columns[name] for name in wanted]))


def mt_features(
    pairs: Sequence[Pair],
    names: Sequence[str] = FEATURE_NAMES,
    *,
    tags: Sequence[Pair] | None = None,
    lowercase: bool = True,
    smoothing: str = "mteval",
    info_refs: Sequence[Sequence[str]] | None = None,
) -> F64:
    """Finch, Hwang & Sumita 2005's features of tokenized pairs: :func:`pair_statistics` then
    :func:`features`;
    float64 ``(N, len(names))``."""
    _check_names(names)
    stats = pair_statistics(pairs, tags=tags, lowercase=lowercase, info_refs=info_refs)
    return features(stats, names, smoothing=smoothing)
