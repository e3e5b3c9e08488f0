"""Word-level evidence for the supervised aligner: string similarity, sentence context and
WordNet relations of two words beyond a shared synset (Wu-Palmer similarity, derivational
relatedness, near hypernymy; Miller 1995; Wu & Palmer 1994).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from scoring import resources

F64 = npt.NDArray[np.float64]
I64 = npt.NDArray[np.int64]
#: Context window (words on each side) of the ``*_window_match`` features.
CONTEXT_WINDOW = 3


def bigrams(word: str) -> set[str]:
    padded = f"#{word}#"
    return {padded[k : k + 2] for k in range(len(padded) - 1)}


def prefix_similarity(a: str, b: str) -> float:
    k = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        k += 1
    return k / max(len(a), len(b))


def is_punct(word: str) -> bool:
    return not any(ch.isalnum() for ch in word)


def previous_content(content: npt.NDArray[np.bool_]) -> I64:
    """Index of the nearest content word before each position (−1 if none)."""
    out = np.full(content.size, -1, dtype=np.int64)
    last = -1
    for k in range(content.size):
        out[k] = last
        if content[k]:
            last = k
    return out


def next_content(content: npt.NDArray[np.bool_]) -> I64:
    """Index of the nearest content word after each position (``len`` if none)."""
    return content.size - 1 - previous_content(content[::-1])[::-1]


def context_features(
    match: npt.NDArray[np.bool_],
    src_content: npt.NDArray[np.bool_],
    tgt_content: npt.NDArray[np.bool_],
) -> tuple[F64, F64, F64, F64]:
    """Whether the content words just before (after) ``i`` and ``j`` match, and whether any
    word pair within :data:`CONTEXT_WINDOW` words before (after) both matches: the "the X" /
    "X of" evidence for function words and for repeated words."""
    n, m = match.shape
    padded = np.pad(match, ((0, 1), (0, 1)))  # row/column −1 and n/m read the zero padding
    ps, pt = previous_content(src_content), previous_content(tgt_content)
    ns, nt = next_content(src_content), next_content(tgt_content)
    left = padded[ps[:, None], pt[None, :]].astype(np.float64)
    right = padded[ns[:, None], nt[None, :]].astype(np.float64)
    w = CONTEXT_WINDOW
    z = np.pad(match.astype(np.float64), w)
    left_window = np.zeros((n, m))
    right_window = np.zeros((n, m))
    for a in range(1, w + 1):
        for b in range(1, w + 1):
            left_window = np.maximum(left_window, z[w - a : w - a + n, w - b : w - b + m])
            right_window = np.maximum(right_window, z[w + a : w + a + n, w + b : w + b + m])
    return left, right, left_window, right_window


def occurrences(words: list[str]) -> tuple[F64, F64]:
    """How often each word occurs in its sentence, and which occurrence (0, 1, …) it is."""
    total: dict[str, int] = {}
    for w in words:
        total[w] = total.get(w, 0) + 1
    seen: dict[str, int] = {}
    index = np.zeros(len(words))
    for k, w in enumerate(words):
        index[k] = seen.get(w, 0)
        seen[w] = seen.get(w, 0) + 1
    return np.array([total[w] for w in words], dtype=np.float64), index


# WordNet relations of content words beyond a shared synset, cached per word (pair).
_WORDNET_SENSES = 4  # senses per word compared by Wu-Palmer similarity


@functools.cache
def _wordnet() -> Any:
    """The WordNet reader, its version looked up once: nltk's ``get_version`` re-reads a data
    file on every call, and Wu-Palmer similarity calls it for every noun sense pair."""
    wn = resources.wordnet()
    version = wn.get_version()
    wn.get_version = lambda: version
    return wn


@functools.lru_cache(maxsize=100_000)
def _senses(word: str) -> tuple[Any, ...]:
    return tuple(_wordnet().synsets(word)[:_WORDNET_SENSES])


@functools.lru_cache(maxsize=100_000)
def _derivations(word: str) -> frozenset[str]:
    """Lemma names of the word's synsets and their derivationally related forms."""
    out: set[str] = set()
    for synset in _wordnet().synsets(word):
        for lemma in synset.lemmas():
            out.add(lemma.name().lower())
            out.update(r.name().lower() for r in lemma.derivationally_related_forms())
    return frozenset(out)


@functools.lru_cache(maxsize=100_000)
def _ancestors(word: str) -> frozenset[Any]:
    """The word's first senses and their (instance) hypernyms up to two steps up."""
    out: set[Any] = set()
    for synset in _senses(word):
        out.add(synset)
        out.update(synset.closure(lambda x: x.hypernyms() + x.instance_hypernyms(), depth=2))
    return frozenset(out)


#: The name nltk gives the root it simulates above the verb (and adjective) taxonomies; it
#: sorts among the synset names as nltk sorts it.
_ROOT = "*ROOT*"


@dataclass(frozen=True)
class _Taxon:
    """What Wu-Palmer similarity needs of one synset, computed once: its part of speech, its
    fewest hypernym steps (over hypernyms and instance hypernyms) to each synset above it by
    name (itself at 0), the same with the simulated root one step above the farthest, and the
    shortest and longest path to a root (nltk's ``min_depth`` and ``max_depth``)."""

    pos: str
    above: dict[str, int]
    above_root: dict[str, int]
    min_depth: int
    max_depth: int


# Every synset met at or above a sense of a word compared, kept for the process' life (a
# corpus meets a few thousand of WordNet's 117,000, tens of bytes a hypernym each).
_TAXA: dict[str, _Taxon] = {}


def _taxon(synset: Any) -> _Taxon:
    name = synset.name()
    found = _TAXA.get(name)
    if found is not None:
        return found
    above: dict[str, int] = {}
    todo, depth = [synset], 0
    while todo:
        following = []
        for s in todo:
            if s.name() not in above:
                above[s.name()] = depth
                following += s.hypernyms() + s.instance_hypernyms()
                if s.name() != name:
                    _taxon(s)
        todo, depth = following, depth + 1
    found = _TAXA[name] = _Taxon(
        synset.pos(),
        above,
        {**above, _ROOT: max(above.values()) + 1},
        synset.min_depth(),
        synset.max_depth(),
    )
    return found


def _wu_palmer(x: str, y: str) -> float | None:
    """nltk's ``wup_similarity`` of the synsets named ``x`` and ``y`` (Wu & Palmer 1994, with
    nltk's defaults: the root simulated above the taxonomies other than nouns, the lowest common
    subsumer by minimum depth, ties to the first name, shortest paths to it), from what
    :func:`_taxon` keeps of each synset instead of walking the hierarchy again for every pair:
    the same numbers, tested against nltk. Both synsets must have been through :func:`_taxon`."""
    tx, ty = _TAXA[x], _TAXA[y]
    simulate = tx.pos != "n" or ty.pos != "n"
    min_depth = {name: _TAXA[name].min_depth for name in tx.above if name in ty.above}
    if simulate:
        min_depth[_ROOT] = 0
    if not min_depth:
        return None
    deepest = max(min_depth.values())
    lowest = sorted(name for name, d in min_depth.items() if d == deepest)
    subsumer = x if x in lowest else lowest[0]
    if subsumer == _ROOT:
        depth, to_subsumer = 1, {_ROOT: 0}
    else:
        top = _TAXA[subsumer]
        depth, to_subsumer = top.max_depth + 1, top.above_root if simulate else top.above
    lengths = []
    for name, taxon in ((x, tx), (y, ty)):
        if name == subsumer:
            lengths.append(0)
            continue
        own = taxon.above_root if simulate else taxon.above
        best = min((d + to_subsumer[n] for n, d in own.items() if n in to_subsumer), default=None)
        if best is None:
            return None
        lengths.append(best)
    return (2.0 * depth) / (lengths[0] + depth + lengths[1] + depth)


def wu_palmer(x: Any, y: Any) -> float | None:
    """nltk's ``x.wup_similarity(y)`` of two synsets, computed as :func:`_wu_palmer` does."""
    _taxon(x)
    _taxon(y)
    return _wu_palmer(x.name(), y.name())


@functools.lru_cache(maxsize=100_000)
def _sense_names(word: str) -> tuple[tuple[str, str], ...]:
    """(name, part of speech) of the word's first senses, each through :func:`_taxon`."""
    return tuple((s.name(), _taxon(s).pos) for s in _senses(word))


@functools.lru_cache(maxsize=200_000)
def _wup(x: str, y: str) -> float:
    """Wu-Palmer similarity of two senses by name (0 if they have no common hypernym)."""
    return float(_wu_palmer(x, y) or 0.0)


@functools.lru_cache(maxsize=200_000)
def wordnet_relations(a: str, b: str) -> tuple[float, float, float]:
    """(best Wu-Palmer similarity of same-POS senses, derivationally related, one is a sense or
    near hypernym of the other) for two different lowercase content words."""
    best = 0.0
    for x, x_pos in _sense_names(a):
        for y, y_pos in _sense_names(b):
            if x_pos == y_pos or {x_pos, y_pos} <= {"a", "s"}:
                best = max(best, _wup(x, y))
    da, db = _derivations(a), _derivations(b)
    derived = b in da or a in db or bool(da & db)
    hyper = bool(set(_senses(a)) & _ancestors(b)) or bool(set(_senses(b)) & _ancestors(a))
    return best, float(derived), float(hyper)
