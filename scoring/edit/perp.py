"""PERP, Paraphrase Edit Rate with the Perceptron (Heilman & Madnani 2012).

PERP scores the similarity of two texts ``x1`` (TERp's hypothesis) and ``x2`` (its reference)
from a TERp alignment ``a`` (:mod:`scoring.edit.terp`): ``f(a)`` is the 36 features of Heilman &
Madnani 2012
Table 1, each an edit count or sum divided by ``|x1| + |x2|`` (TERp tokens) except the
intercept, which is 1. The cost TERp minimises for an edit is ``w`` dotted with the features
that edit fires (so the alignment depends on the weights), and the learned model is ``w``.

The features and their kernels are in :mod:`scoring.edit.perp_features`.

Learning is the averaged perceptron of Heilman & Madnani 2012, Algorithm 1: ``T`` passes over the
shuffled
training pairs; for each, TERp aligns it under the current weights, ``ŷ = w·f(a)``,
``w ← w + α (t − ŷ) f(a)``, the shift weight is raised to at least 0.01, and the running sum of
``w`` is kept; the model is the average. Start: Substitution, Insertion, Deletion 1.0, Shift 0.1,
the rest 0. Because ``w·f(a)`` is a *cost* (TERp minimises it, and the paper's initial weights
are positive costs), the target is the distance ``t = score_max − y`` (5 on the STS scale: 0 for
identical texts) and PERP predicts the similarity ``score_max − w·f(a)``. The paper does not say
how it turned similarities into costs; with ``t = −y`` instead, the first updates drive the
log-frequency weight up and insertion costs below zero, and the search degenerates.
"""

from __future__ import annotations

import string
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from scoring import resources
from scoring.corpus import PairRecord
from scoring.edit.perp_features import (
    F_DEL,
    F_INS,
    F_SHIFT,
    F_SUB,
    FEATURES,
    MIN_SHIFT_WEIGHT,
    N_FEATURES,
    PackedPairs,
    Search,
    WordFeatures,
    features_all,
    pack_pairs,
    perceptron_train,
)
from scoring.edit.terp import PhraseEntry, PhraseTable, Terp, TerpParams
from scoring.errors import FormatError, InputError, ModelError, ScoringError
from scoring.progress import Progress, progress_part, progress_report
from scoring.scorers.options import PerpOptions

__all__ = [
    "FEATURES",
    "MIN_SHIFT_WEIGHT",
    "N_FEATURES",
    "PERP_TERP",
    "PackedPairs",
    "Perp",
    "PerpOptions",
    "WordFeatures",
    "initial_weights",
]

F64 = npt.NDArray[np.float64]

#: TERp settings PERP aligns with (the non-cost settings of TERp-A, ``terpa.param``; costs come
#: from the weights). ``q`` for phrase features uses these with unit costs.
PERP_TERP = TerpParams(
    normalize=True,
    beam_width=35,
    shift_constraint="relax",
    use_porter_stemming=True,
    use_wordnet_synonymy=True,
    stem_cost=1.0,
    synonym_cost=1.0,
)


def initial_weights() -> F64:
    """Heilman & Madnani 2012, §5: Substitution, Insertion, Deletion 1.0; Shift 0.1; the rest 0."""
    w = np.zeros(N_FEATURES)
    w[F_SUB] = w[F_INS] = w[F_DEL] = 1.0
    w[F_SHIFT] = 0.1
    return w


# --- model -------------------------------------------------------------------------------------

Pair = tuple[str | Sequence[str], str | Sequence[str]] | PairRecord


@dataclass(slots=True)
class Perp:
    """A PERP model. ``fit`` learns ``weights`` (36,); ``predict`` gives similarities;
    ``options`` (:class:`~scoring.scorers.options.PerpOptions`) are the learning settings and
    ``terp`` the TERp settings the alignments are searched with.

    Pairs are ``(first, second)`` texts (raw strings, tokenized as TERp does, or token lists)
    or :class:`~scoring.corpus.PairRecord` (its texts, else its tokens). As in Heilman & Madnani
    2012 (note 1),
    the second text is TERp's hypothesis ``x1`` and the first its reference ``x2``.
    """

    options: PerpOptions = field(default_factory=PerpOptions)
    phrase_table: PhraseTable | None = None
    terp: TerpParams = PERP_TERP
    weights: F64 | None = None
    history: dict[str, Any] = field(default_factory=dict)
    _terp: Terp | None = field(default=None, repr=False)
    _words: WordFeatures | None = field(default=None, repr=False)

    # resources --------------------------------------------------------------------------------

    def _stop_words(self) -> frozenset[str]:
        if self.options.stop_words is not None:
            return frozenset(self.options.stop_words)
        return resources.stopwords("english") | frozenset(string.punctuation)

    def _engine(self) -> tuple[Terp, WordFeatures]:
        if self._terp is None or self._words is None:
            stops = self._stop_words()
            self._terp = Terp(self.terp, phrase_table=self.phrase_table, shift_stop_words=stops)
            self._words = WordFeatures(stops, self.options.oov_frequency)
        return self._terp, self._words

    def pack(self, pairs: Sequence[Pair]) -> PackedPairs:
        """TERp tables and edit features of ``pairs`` (reusable across ``fit``/``predict``)."""
        terp, words = self._engine()
        segments = []
        for index, pair in enumerate(pairs):
            first, second = _texts(pair, index)
            segments.append(terp.prepare(second, first))
        relax = self.terp.shift_constraint in ("relax_nophrase", "relax")
        return pack_pairs(segments, words, terp._phrase_ned, relax)

    # learning -----------------------------------------------------------------------------------

    def fit(
        self,
        pairs: Sequence[Pair] | PackedPairs,
        scores: Sequence[float],
        *,
        progress: Progress | None = None,
    ) -> Perp:
        """Heilman & Madnani 2012, Algorithm 1 (averaged perceptron, T epochs, α, shift weight ≥
        0.01). ``progress`` hears of the TERp tables and of each epoch."""
        progress_report(progress, 0.0, f"TERp tables of {len(pairs)} pairs")
        packed = pairs if isinstance(pairs, PackedPairs) else self.pack(pairs)
        y = np.asarray(scores, dtype=np.float64)
        if y.shape != (len(packed),):
            raise InputError(f"{len(packed)} pairs but {y.shape[0] if y.ndim else 0} scores")
        if len(packed) == 0:
            raise InputError("PERP needs at least one training pair")
        if not np.all(np.isfinite(y)):
            raise InputError("scores must be finite numbers")
        c = self.options
        rng = np.random.default_rng(c.seed)
        orders = np.stack([rng.permutation(len(packed)) for _ in range(c.epochs)]).astype(np.int64)
        w = initial_weights()
        losses = np.zeros(c.epochs)
        started = time.perf_counter()
        averaged = perceptron_train(
            orders,
            c.score_max - y,
            w,
            float(c.learning_rate),
            packed,
            self._search(),
            losses,
            progress_part(progress, 0.05, 1.0),
        )
        self.weights = averaged
        self.history = {
            "seconds": time.perf_counter() - started,
            "epoch_mse": losses.tolist(),
            "final_weights": w.tolist(),
            "n_pairs": len(packed),
            "seed": c.seed,
        }
        return self

    def features(self, pairs: Sequence[Pair] | PackedPairs, weights: F64 | None = None) -> F64:
        """``f(a)`` ``(N, 36)`` of each pair aligned under ``weights`` (default: the model's)."""
        w = self._weights() if weights is None else np.asarray(weights, dtype=np.float64)
        if w.shape != (N_FEATURES,):
            raise InputError(f"weights must have shape ({N_FEATURES},), got {w.shape}")
        packed = pairs if isinstance(pairs, PackedPairs) else self.pack(pairs)
        return features_all(w, packed, self._search())

    def predict(self, pairs: Sequence[Pair] | PackedPairs) -> F64:
        """Predicted similarities ``score_max − w·f(a)`` (higher = more similar), ``(N,)``."""
        w = self._weights()
        cost = self.features(pairs, w) @ w
        return np.asarray(self.options.score_max - cost, dtype=np.float64)

    def _search(self) -> Search:
        """TERp's search settings for the kernels: beam width, shift size and distance, whether
        it shifts at all, and whether shift spans extend through phrases."""
        t = self.terp
        do_shifts = t.shift_constraint != "noshift" and t.shift_size > 0 and t.shift_distance > 0
        return (
            float(t.beam_width),
            int(t.shift_size),
            int(t.shift_distance),
            do_shifts,
            self.phrase_table is not None and t.shift_constraint == "relax",
        )

    def _weights(self) -> F64:
        if self.weights is None:
            raise ModelError("the PERP model is not trained; call fit() first")
        return self.weights

    # persistence --------------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe: settings, the stop words used, the phrase table (if any) and weights."""
        from scoring.edit.terp import params_as_dict

        c = self.options
        return {
            "kind": "perp",
            "version": 1,
            "features": list(FEATURES),
            "weights": None if self.weights is None else [float(v) for v in self.weights],
            "config": {
                "epochs": c.epochs,
                "learning_rate": c.learning_rate,
                "seed": c.seed,
                "oov_frequency": c.oov_frequency,
                "score_max": c.score_max,
                "stop_words": sorted(self._stop_words()),
                "terp": params_as_dict(self.terp),
            },
            "phrase_table": None
            if self.phrase_table is None
            else [[list(e.ref), list(e.hyp), e.prob] for e in self.phrase_table.entries],
            "history": self.history,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Perp:
        """Rebuild a model from :meth:`to_dict` output; :class:`~scoring.errors.FormatError`
        naming the field at fault."""
        try:
            if data.get("kind") != "perp":
                raise FormatError("not a PERP model (kind != 'perp')", field="kind")
            if list(data["features"]) != list(FEATURES):
                raise ModelError("the model's feature list differs from this PERP's")
            cfg = data["config"]
            terp_fields: dict[str, Any] = {
                k: (tuple(v) if isinstance(v, list) else float(v) if v in ("inf", "-inf") else v)
                for k, v in cfg["terp"].items()
            }
            options = PerpOptions(
                epochs=int(cfg["epochs"]),
                learning_rate=float(cfg["learning_rate"]),
                seed=int(cfg["seed"]),
                oov_frequency=float(cfg["oov_frequency"]),
                score_max=float(cfg["score_max"]),
                stop_words=tuple(cfg["stop_words"]),
            )
            terp = TerpParams(**terp_fields)
            table = None
            if data.get("phrase_table") is not None:
                table = PhraseTable.of(
                    PhraseEntry(tuple(r), tuple(h), float(p)) for r, h, p in data["phrase_table"]
                )
            weights = None
            if data.get("weights") is not None:
                weights = np.array(data["weights"], dtype=np.float64)
                if weights.shape != (N_FEATURES,) or not np.all(np.isfinite(weights)):
                    raise FormatError(
                        f"'weights' must be {N_FEATURES} finite numbers", field="weights"
                    )
        except (KeyError, TypeError, ValueError) as error:
            if isinstance(error, ScoringError):
                raise
            raise FormatError(f"malformed PERP model: {error!r}") from None
        return cls(
            options=options,
            phrase_table=table,
            terp=terp,
            weights=weights,
            history=dict(data.get("history") or {}),
        )


def _texts(pair: Pair, index: int) -> tuple[str | Sequence[str], str | Sequence[str]]:
    if isinstance(pair, PairRecord):
        first = pair.source_text or pair.source_tokens
        second = pair.target_text or pair.target_tokens
        return first, second
    if not isinstance(pair, tuple) or len(pair) != 2:
        raise InputError(f"pair {index}: expected a (first, second) tuple or a PairRecord")
    return pair[0], pair[1]
