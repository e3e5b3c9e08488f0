"""What the annotators of a corpus did with each word pair: a lexicon that grows with the corpus.

Counted over the annotated pairs (lowercased words): how often a source word and a target word
met in one pair (``seen``: the cells of that word pair), how often the annotators linked them and
how often sure; the same for the Porter stems of the two words; and for each word on each side,
how many of its occurrences the annotators linked to anything. The supervised aligner reads
these as features (:data:`FEATURES`): they keep improving as more pairs are annotated, where
the generic features stop.

A pair's own annotation must not inform its features while the model learns from it, so the
features of a training pair are computed with that pair's counts left out (``exclude``).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from scoring import resources
from scoring.alignment.links import Alignment

F64 = npt.NDArray[np.float64]

FEATURES = (
    "lexicon_seen",
    "lexicon_link_rate",
    "lexicon_sure_rate",
    "lexicon_stem_seen",
    "lexicon_stem_link_rate",
    "lexicon_source_link_rate",
    "lexicon_target_link_rate",
)

# word pair counts: seen, linked, sure
_Counts = dict[tuple[str, str], list[int]]
# word counts: occurrences, linked occurrences
_WordCounts = dict[str, list[int]]


@functools.lru_cache(maxsize=200_000)
def _stem(word: str) -> str:
    return resources.stem(word)


def _stems(words: Sequence[str]) -> list[str]:
    return [_stem(w) for w in words]


class _PairCounts:
    """The counts of one annotated pair."""

    def __init__(self, source: Sequence[str], target: Sequence[str], gold: Alignment) -> None:
        src = [w.lower() for w in source]
        tgt = [w.lower() for w in target]
        codes = gold.to_matrix()
        self.words: _Counts = {}
        self.stems: _Counts = {}
        src_stem, tgt_stem = _stems(src), _stems(tgt)
        for i, a in enumerate(src):
            for j, b in enumerate(tgt):
                code = int(codes[i, j])
                for table, key in ((self.words, (a, b)), (self.stems, (src_stem[i], tgt_stem[j]))):
                    row = table.setdefault(key, [0, 0, 0])
                    row[0] += 1
                    row[1] += code > 0
                    row[2] += code == 2
        self.source: _WordCounts = {}
        self.target: _WordCounts = {}
        linked_rows = codes.any(axis=1)
        linked_cols = codes.any(axis=0)
        for table, words, linked in (
            (self.source, src, linked_rows),
            (self.target, tgt, linked_cols),
        ):
            for word, flag in zip(words, linked, strict=True):
                row = table.setdefault(word, [0, 0])
                row[0] += 1
                row[1] += bool(flag)


def _add(into: dict[Any, list[int]], counts: dict[Any, list[int]]) -> None:
    for key, row in counts.items():
        have = into.get(key)
        if have is None:
            into[key] = list(row)
        else:
            for k, value in enumerate(row):
                have[k] += value


class LinkLexicon:
    """The counts over a corpus' annotated pairs (module docstring)."""

    def __init__(self) -> None:
        self.words: _Counts = {}
        self.stems: _Counts = {}
        self.source: _WordCounts = {}
        self.target: _WordCounts = {}
        self.pairs = 0

    @classmethod
    def count(
        cls, pairs: Sequence[tuple[Sequence[str], Sequence[str]]], golds: Sequence[Alignment]
    ) -> LinkLexicon:
        lexicon = cls()
        for (source, target), gold in zip(pairs, golds, strict=True):
            own = _PairCounts(source, target, gold)
            _add(lexicon.words, own.words)
            _add(lexicon.stems, own.stems)
            _add(lexicon.source, own.source)
            _add(lexicon.target, own.target)
            lexicon.pairs += 1
        return lexicon

    def features(
        self, source: Sequence[str], target: Sequence[str], exclude: Alignment | None = None
    ) -> F64:
        """``(N·M, len(FEATURES))``, row ``i·M + j``; ``exclude`` = this pair's own annotation,
        whose counts are left out. A rate with nothing to count is NaN."""
        src = [w.lower() for w in source]
        tgt = [w.lower() for w in target]
        src_stem, tgt_stem = _stems(src), _stems(tgt)
        own = _PairCounts(source, target, exclude) if exclude is not None else None
        n, m = len(src), len(tgt)
        out = np.full((n, m, len(FEATURES)), np.nan)

        def lookup(
            table: dict[Any, list[int]], mine: dict[Any, list[int]] | None, key: Any
        ) -> list[int] | None:
            row = table.get(key)
            if row is None:
                return None
            if mine is not None and key in mine:
                return [a - b for a, b in zip(row, mine[key], strict=True)]
            return row

        src_rate = np.full(n, np.nan)
        tgt_rate = np.full(m, np.nan)
        for rates, words, table, mine in (
            (src_rate, src, self.source, own.source if own else None),
            (tgt_rate, tgt, self.target, own.target if own else None),
        ):
            for k, word in enumerate(words):
                row = lookup(table, mine, word)
                if row is not None and row[0] > 0:
                    rates[k] = row[1] / row[0]
        for i in range(n):
            for j in range(m):
                cell = out[i, j]
                row = lookup(self.words, own.words if own else None, (src[i], tgt[j]))
                seen = row[0] if row is not None else 0
                cell[0] = seen
                if row is not None and seen > 0:
                    cell[1] = row[1] / seen
                    if row[1] > 0:
                        cell[2] = row[2] / row[1]
                row = lookup(self.stems, own.stems if own else None, (src_stem[i], tgt_stem[j]))
                seen = row[0] if row is not None else 0
                cell[3] = seen
                if row is not None and seen > 0:
                    cell[4] = row[1] / seen
        out[:, :, 5] = src_rate[:, None]
        out[:, :, 6] = tgt_rate[None, :]
        return out.reshape(n * m, len(FEATURES))

    # --- persistence (numbers and strings only) -------------------------------------------------

    def state(self) -> tuple[dict[str, Any], dict[str, npt.NDArray[Any]]]:
        state: dict[str, Any] = {"pairs": self.pairs}
        arrays: dict[str, npt.NDArray[Any]] = {}
        for name, table in (("words", self.words), ("stems", self.stems)):
            keys = list(table)
            state[f"{name}_source"] = [a for a, _ in keys]
            state[f"{name}_target"] = [b for _, b in keys]
            arrays[name] = np.array([table[k] for k in keys], dtype=np.int64).reshape(-1, 3)
        for name, table in (("source", self.source), ("target", self.target)):
            state[f"{name}_words"] = list(table)
            arrays[name] = np.array(list(table.values()), dtype=np.int64).reshape(-1, 2)
        return state, arrays

    @classmethod
    def restore(cls, state: dict[str, Any], arrays: dict[str, npt.NDArray[Any]]) -> LinkLexicon:
        lexicon = cls()
        lexicon.pairs = int(state["pairs"])
        for name in ("words", "stems"):
            keys = zip(state[f"{name}_source"], state[f"{name}_target"], strict=True)
            setattr(
                lexicon,
                name,
                {
                    (str(a), str(b)): [int(v) for v in row]
                    for (a, b), row in zip(keys, arrays[name], strict=True)
                },
            )
        for name in ("source", "target"):
            setattr(
                lexicon,
                name,
                {
                    str(w): [int(v) for v in row]
                    for w, row in zip(state[f"{name}_words"], arrays[name], strict=True)
                },
            )
        return lexicon
