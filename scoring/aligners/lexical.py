"""Lexical aligners: word matches by identity, case, Porter stem, WordNet and PPDB.

Each source/target word pair gets the strongest match class that holds:

====  ==========  =================================================  ========  ==========
code  name        rule                                               link      confidence
====  ==========  =================================================  ========  ==========
5     identical   same token                                         sure      0.95
4     lowercase   same token after lowercasing                       sure      0.90
3     stem        same Porter stem (NLTK extensions) of the lowercase sure      0.80
2     wordnet     share a WordNet 3.0 synset (content words only)    possible  0.60
1     ppdb        listed as a pair in the PPDB lexical table         possible  0.50
====  ==========  =================================================  ========  ==========

Links are one-to-one. Candidates are accepted greedily, best first, by
``(sure tier, context, class, −|i/N − j/M|)``, where *context* is the length of the run of
matches (class ≥ stem) along the diagonal through ``(i, j)`` plus the number of already accepted
diagonal neighbours ``(i±1, j±1)``: a repeated word goes where its neighbours match, otherwise
to the relatively closest position. A candidate whose source or target word is taken is dropped.

``identity`` is the same aligner with only the identical and lowercase rules: the literature's
"lowercase 1-to-1 identity links" baseline.

A missing WordNet or PPDB file does not stop alignment: the rule is skipped and every output
says so in ``warnings`` (``strict_resources=True`` raises instead).
"""

from __future__ import annotations

import functools
import os
from collections.abc import Iterable
from pathlib import Path

import numpy as np
import numpy.typing as npt

from scoring import resources
from scoring.aligners.base import Aligner, AlignerOutput
from scoring.aligners.options import IdentityOptions, LexicalOptions
from scoring.alignment.links import Alignment, Link
from scoring.errors import FormatError, ResourceMissingError

NONE, PPDB, WORDNET, STEM, LOWER, IDENTICAL = 0, 1, 2, 3, 4, 5
MATCH_NAMES = {
    PPDB: "ppdb",
    WORDNET: "wordnet",
    STEM: "stem",
    LOWER: "lowercase",
    IDENTICAL: "identical",
}
CONFIDENCE = {PPDB: 0.50, WORDNET: 0.60, STEM: 0.80, LOWER: 0.90, IDENTICAL: 0.95}


class PpdbTable:
    """A PPDB lexical table: unordered lowercase word pairs, one ``word<TAB>word`` a line."""

    def __init__(self, pairs: frozenset[tuple[str, str]], path: str) -> None:
        self.pairs = pairs
        self.path = path

    def __contains__(self, pair: object) -> bool:
        if not isinstance(pair, tuple) or len(pair) != 2:
            return False
        a, b = pair
        return (a, b) in self.pairs or (b, a) in self.pairs

    def __len__(self) -> int:
        return len(self.pairs)


def load_ppdb(path: str | os.PathLike[str]) -> PpdbTable:
    """Read (and cache per path and modification time) a PPDB lexical table.

    Lines without exactly one tab and identical pairs are ignored and bytes that are not UTF-8
    replaced (PPDB's releases hold a few); entries are lowercased. Raises
    :class:`ResourceMissingError` if the file does not exist and :class:`FormatError` if it
    holds no word pair at all (UTF-16 text, or PPDB's ``|||``-separated rule format), which
    would otherwise match nothing without a word.
    """
    resolved = Path(path).expanduser().resolve()
    if not resolved.is_file():
        raise ResourceMissingError(
            f"PPDB file {resolved} not found; download the PPDB 1.0 lexical table "
            "(paraphrase.org) and set the aligner option ppdb=PATH"
        )
    return _load_ppdb_cached(str(resolved), resolved.stat().st_mtime_ns)


@functools.lru_cache(maxsize=4)
def _load_ppdb_cached(path: str, mtime_ns: int) -> PpdbTable:
    with open(path, "rb") as handle:
        raw = handle.read()
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise FormatError(
            "the PPDB table is saved as UTF-16; save it as UTF-8", path=path, line=1, field="ppdb"
        )
    text = raw.decode("utf-8", errors="replace").removeprefix("\ufeff").lower()
    pairs = set()
    for line in text.splitlines():
        a, sep, b = line.partition("\t")
        if sep and a and b and "\t" not in b and a != b:
            pairs.add((a, b))
    if not pairs:
        raise FormatError(
            "the PPDB table holds no 'word<TAB>word' line (one pair of different words a line)",
            path=path,
            field="ppdb",
        )
    return PpdbTable(frozenset(pairs), path)


@functools.lru_cache(maxsize=200_000)
def _synsets(word: str) -> frozenset[str]:
    wn = resources.wordnet()
    return frozenset(s.name() for s in wn.synsets(word))


def _is_content(word: str, stop: frozenset[str]) -> bool:
    return word.isalpha() and word not in stop


class MatchRules:
    """The configured rules, with resources loaded once; ``warnings`` lists fallbacks taken."""

    def __init__(self, *, stem: bool, wordnet: bool, ppdb: str | None, strict: bool) -> None:
        self.stem = stem
        self.wordnet = wordnet
        self.ppdb: PpdbTable | None = None
        self.stop: frozenset[str] = frozenset()
        warnings: list[str] = []
        if wordnet:
            try:
                resources.wordnet()
            except ResourceMissingError as error:
                if strict:
                    raise
                self.wordnet = False
                warnings.append(f"WordNet synonym matches skipped: {error}")
        if ppdb is not None:
            try:
                self.ppdb = load_ppdb(ppdb)
            except ResourceMissingError as error:
                if strict:
                    raise
                warnings.append(f"PPDB paraphrase matches skipped: {error}")
        if self.wordnet or self.ppdb is not None:
            try:
                self.stop = resources.stopwords()
            except ResourceMissingError as error:
                if strict:
                    raise
                warnings.append(f"stopword list missing, synonyms allowed for all words: {error}")
        self.warnings = tuple(warnings)

    def classes(self, source: list[str], target: list[str]) -> npt.NDArray[np.int8]:
        """``(N, M)`` int8 matrix of the strongest match class of each word pair (0 = none)."""
        n, m = len(source), len(target)
        out = np.zeros((n, m), dtype=np.int8)
        src_lower = [w.lower() for w in source]
        tgt_lower = [w.lower() for w in target]
        src_stem = [resources.stem(w) for w in src_lower] if self.stem else []
        tgt_stem = [resources.stem(w) for w in tgt_lower] if self.stem else []
        synonyms = self.wordnet or self.ppdb is not None
        src_content = [_is_content(w, self.stop) for w in src_lower]
        tgt_content = [_is_content(w, self.stop) for w in tgt_lower]
        for i in range(n):
            for j in range(m):
                if source[i] == target[j]:
                    out[i, j] = IDENTICAL
                elif src_lower[i] == tgt_lower[j]:
                    out[i, j] = LOWER
                elif self.stem and src_stem[i] == tgt_stem[j]:
                    out[i, j] = STEM
                elif synonyms and src_content[i] and tgt_content[j]:
                    if self.wordnet and _synsets(src_lower[i]) & _synsets(tgt_lower[j]):
                        out[i, j] = WORDNET
                    elif self.ppdb is not None and (src_lower[i], tgt_lower[j]) in self.ppdb:
                        out[i, j] = PPDB
        return out


def _diagonal_runs(strong: npt.NDArray[np.bool_]) -> npt.NDArray[np.int64]:
    """Length of the run of ``True`` cells along the main-direction diagonal through each cell."""
    n, m = strong.shape
    up = np.zeros((n + 2, m + 2), dtype=np.int64)
    down = np.zeros((n + 2, m + 2), dtype=np.int64)
    for i in range(n):
        for j in range(m):
            if strong[i, j]:
                up[i + 1, j + 1] = up[i, j] + 1
    for i in range(n - 1, -1, -1):
        for j in range(m - 1, -1, -1):
            if strong[i, j]:
                down[i + 1, j + 1] = down[i + 2, j + 2] + 1
    run: npt.NDArray[np.int64] = np.maximum(up + down - 1, 0)[1 : n + 1, 1 : m + 1]
    return run


def greedy_one_to_one(classes: npt.NDArray[np.int8]) -> list[tuple[int, int, int]]:
    """Accept candidate cells greedily (see the module docstring); returns ``(i, j, class)``."""
    n, m = classes.shape
    candidates = [(int(i), int(j)) for i, j in np.argwhere(classes > 0)]
    if not candidates:
        return []
    runs = _diagonal_runs(classes >= STEM)
    accepted: list[tuple[int, int, int]] = []
    linked: set[Link] = set()
    used_i: set[int] = set()
    used_j: set[int] = set()
    while candidates:
        best_key: tuple[float, ...] | None = None
        best = -1
        for k, (i, j) in enumerate(candidates):
            cls = int(classes[i, j])
            neighbours = ((i - 1, j - 1) in linked) + ((i + 1, j + 1) in linked)
            key = (
                float(cls >= STEM),
                float(runs[i, j] + neighbours),
                float(cls),
                -abs((i + 0.5) / n - (j + 0.5) / m),
            )
            if best_key is None or key > best_key:
                best_key, best = key, k
        i, j = candidates[best]
        accepted.append((i, j, int(classes[i, j])))
        linked.add((i, j))
        used_i.add(i)
        used_j.add(j)
        candidates = [(a, b) for a, b in candidates if a not in used_i and b not in used_j]
    return accepted


class LexicalAligner(Aligner):
    """Identical / lowercase / stem matches (sure) and WordNet / PPDB matches (possible)."""

    name = "lexical"
    version = 1
    options_class = LexicalOptions
    options: LexicalOptions

    def __init__(self, options: LexicalOptions | None = None) -> None:
        super().__init__(options)
        self._rules: MatchRules | None = None

    @property
    def rules(self) -> MatchRules:
        if self._rules is None:
            self._rules = MatchRules(
                stem=self.options.stem,
                wordnet=self.options.wordnet,
                ppdb=self.options.ppdb,
                strict=self.options.strict_resources,
            )
        return self._rules

    def match_classes(self, source: list[str], target: list[str]) -> npt.NDArray[np.int8]:
        return self.rules.classes(source, target)

    def _align(self, source: list[str], target: list[str]) -> AlignerOutput:
        return _one_to_one(self.rules, source, target)


class IdentityAligner(Aligner):
    """Lowercase one-to-one identity links (the literature's identity baseline)."""

    name = "identity"
    version = 1
    options_class = IdentityOptions
    options: IdentityOptions

    def __init__(self, options: IdentityOptions | None = None) -> None:
        super().__init__(options)
        self.rules = MatchRules(stem=False, wordnet=False, ppdb=None, strict=False)

    def _align(self, source: list[str], target: list[str]) -> AlignerOutput:
        return _one_to_one(self.rules, source, target)


def _one_to_one(rules: MatchRules, source: list[str], target: list[str]) -> AlignerOutput:
    accepted = greedy_one_to_one(rules.classes(source, target))
    return output_from_matches(len(source), len(target), accepted, rules.warnings)


def output_from_matches(
    n: int, m: int, accepted: Iterable[tuple[int, int, int]], warnings: tuple[str, ...]
) -> AlignerOutput:
    sure: list[Link] = []
    possible: list[Link] = []
    confidence: dict[Link, float] = {}
    rule: dict[str, str] = {}
    for i, j, cls in accepted:
        (sure if cls >= STEM else possible).append((i, j))
        confidence[(i, j)] = CONFIDENCE[cls]
        rule[f"{i}-{j}"] = MATCH_NAMES[cls]
    return AlignerOutput(
        alignment=Alignment.from_links(n, m, sure, possible),
        confidence=confidence,
        warnings=warnings,
        metadata={"rule": rule},
    )
