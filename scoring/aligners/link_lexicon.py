"""What the annotators of a corpus did with each word pair: a lexicon that grows with the corpus.

Counted over the annotated pairs (lowercased words): how often a source word and a target word
met in one pair (``seen``: the cells of that word pair), how often the annotators linked them and
how often sure; the same for the Porter stems of the two words; and for each word on each side,
how many of its occurrences the annotators linked to anything. The supervised aligner reads
these as features (:data:`FEATURES`): they keep improving as more pairs are annotated, where
the generic features stop.

A pair's own annotation must not inform its features while the model learns from it, so the
features of a training pair are computed with that pair's counts left out (``exclude``).

Words and stems are numbered in one vocabulary; a cell's key is ``source id · 2³² + target id``
and every table is a sorted key array with its counts, so a pair's features are a few array
look-ups (``searchsorted``), not a loop over its cells.
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
I64 = npt.NDArray[np.int64]

FEATURES = (
    "lexicon_seen",
    "lexicon_link_rate",
    "lexicon_sure_rate",
    "lexicon_stem_seen",
    "lexicon_stem_link_rate",
    "lexicon_source_link_rate",
    "lexicon_target_link_rate",
)
_SHIFT = np.int64(32)


@functools.lru_cache(maxsize=200_000)
def _stem(word: str) -> str:
    return resources.stem(word)


class _Table:
    """Sorted int64 keys and a count matrix, one row per key."""

    def __init__(self, keys: I64, counts: I64) -> None:
        self.keys = keys
        self.counts = counts

    @classmethod
    def build(cls, keys: I64, values: I64) -> _Table:
        """Sum the rows of ``values`` ``(R, C)`` per key."""
        if keys.size == 0:
            return cls(np.zeros(0, np.int64), np.zeros((0, values.shape[1]), np.int64))
        unique, inverse = np.unique(keys, return_inverse=True)
        counts = np.zeros((unique.size, values.shape[1]), dtype=np.int64)
        np.add.at(counts, inverse, values)
        return cls(unique, counts)

    def lookup(self, keys: I64) -> I64:
        """The counts of each key (zeros for an unknown one)."""
        out = np.zeros((keys.size, self.counts.shape[1]), dtype=np.int64)
        if self.keys.size == 0:
            return out
        at = np.minimum(np.searchsorted(self.keys, keys), self.keys.size - 1)
        found = self.keys[at] == keys
        out[found] = self.counts[at[found]]
        return out


class LinkLexicon:
    """The counts over a corpus' annotated pairs (module docstring)."""

    def __init__(self) -> None:
        self.vocabulary: dict[str, int] = {}
        empty3 = _Table(np.zeros(0, np.int64), np.zeros((0, 3), np.int64))
        empty2 = _Table(np.zeros(0, np.int64), np.zeros((0, 2), np.int64))
        self.words, self.stems = empty3, empty3
        self.source, self.target = empty2, empty2
        self.pairs = 0

    def _ids(self, words: Sequence[str], grow: bool) -> I64:
        vocabulary = self.vocabulary
        if grow:
            for word in words:
                vocabulary.setdefault(word, len(vocabulary))
        return np.array([vocabulary.get(w, -1) for w in words], dtype=np.int64)

    def _cells(
        self, source: Sequence[str], target: Sequence[str], grow: bool
    ) -> tuple[I64, I64, I64, I64]:
        """Cell keys of words and of stems, then the source and target word ids."""
        src = [w.lower() for w in source]
        tgt = [w.lower() for w in target]
        s_word, t_word = self._ids(src, grow), self._ids(tgt, grow)
        s_stem = self._ids([_stem(w) for w in src], grow)
        t_stem = self._ids([_stem(w) for w in tgt], grow)
        words = ((s_word[:, None] << _SHIFT) + t_word[None, :]).reshape(-1)
        stems = ((s_stem[:, None] << _SHIFT) + t_stem[None, :]).reshape(-1)
        return words, stems, s_word, t_word

    @staticmethod
    def _values(gold: Alignment) -> tuple[I64, I64, I64]:
        """Per cell (linked, sure) and per source / target word (1, linked)."""
        codes = gold.to_matrix()
        cells = np.stack([np.ones(codes.size), codes.reshape(-1) > 0, codes.reshape(-1) == 2], 1)
        rows = codes.any(axis=1)
        cols = codes.any(axis=0)
        return (
            cells.astype(np.int64),
            np.stack([np.ones(rows.size), rows], 1).astype(np.int64),
            np.stack([np.ones(cols.size), cols], 1).astype(np.int64),
        )

    @classmethod
    def count(
        cls, pairs: Sequence[tuple[Sequence[str], Sequence[str]]], golds: Sequence[Alignment]
    ) -> LinkLexicon:
        lexicon = cls()
        parts: list[list[I64]] = [[] for _ in range(10)]
        for (source, target), gold in zip(pairs, golds, strict=True):
            words, stems, s_ids, t_ids = lexicon._cells(source, target, grow=True)
            cells, rows, cols = cls._values(gold)
            for k, array in enumerate((words, stems, s_ids, t_ids, cells, cells, rows, cols)):
                parts[k].append(array)
            lexicon.pairs += 1
        if lexicon.pairs:
            joined = [np.concatenate(p) for p in parts[:8]]
            lexicon.words = _Table.build(joined[0], joined[4])
            lexicon.stems = _Table.build(joined[1], joined[5])
            lexicon.source = _Table.build(joined[2], joined[6])
            lexicon.target = _Table.build(joined[3], joined[7])
        return lexicon

    def features(
        self, source: Sequence[str], target: Sequence[str], exclude: Alignment | None = None
    ) -> F64:
        """``(N·M, len(FEATURES))``, row ``i·M + j``; ``exclude`` = this pair's own annotation,
        whose counts are left out. A rate with nothing to count is NaN."""
        n, m = len(source), len(target)
        words, stems, s_ids, t_ids = self._cells(source, target, grow=False)
        pair = self.words.lookup(words)
        stem = self.stems.lookup(stems)
        src = self.source.lookup(s_ids)
        tgt = self.target.lookup(t_ids)
        if exclude is not None:
            cells, rows, cols = self._values(exclude)
            pair -= _Table.build(words, cells).lookup(words)
            stem -= _Table.build(stems, cells).lookup(stems)
            src -= _Table.build(s_ids, rows).lookup(s_ids)
            tgt -= _Table.build(t_ids, cols).lookup(t_ids)
        with np.errstate(divide="ignore", invalid="ignore"):
            src_rate = np.where(src[:, 0] > 0, src[:, 1] / src[:, 0], np.nan)
            tgt_rate = np.where(tgt[:, 0] > 0, tgt[:, 1] / tgt[:, 0], np.nan)
            columns = [
                pair[:, 0].astype(np.float64),
                np.where(pair[:, 0] > 0, pair[:, 1] / pair[:, 0], np.nan),
                np.where(pair[:, 1] > 0, pair[:, 2] / pair[:, 1], np.nan),
                stem[:, 0].astype(np.float64),
                np.where(stem[:, 0] > 0, stem[:, 1] / stem[:, 0], np.nan),
                np.repeat(src_rate, m),
                np.tile(tgt_rate, n),
            ]
        return np.stack(columns, axis=1)

    # --- persistence (numbers and strings only) -------------------------------------------------

    def state(self) -> tuple[dict[str, Any], dict[str, npt.NDArray[Any]]]:
        words = sorted(self.vocabulary, key=self.vocabulary.__getitem__)
        arrays: dict[str, npt.NDArray[Any]] = {}
        for name in ("words", "stems", "source", "target"):
            table: _Table = getattr(self, name)
            arrays[f"{name}_keys"] = table.keys
            arrays[f"{name}_counts"] = table.counts
        return {"pairs": self.pairs, "vocabulary": words}, arrays

    @classmethod
    def restore(cls, state: dict[str, Any], arrays: dict[str, npt.NDArray[Any]]) -> LinkLexicon:
        lexicon = cls()
        lexicon.pairs = int(state["pairs"])
        lexicon.vocabulary = {str(w): k for k, w in enumerate(state["vocabulary"])}
        for name in ("words", "stems", "source", "target"):
            keys = np.asarray(arrays[f"{name}_keys"], dtype=np.int64)
            counts = np.asarray(arrays[f"{name}_counts"], dtype=np.int64)
            setattr(lexicon, name, _Table(keys, counts))
        return lexicon
