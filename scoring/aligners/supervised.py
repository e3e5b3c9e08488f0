"""Supervised aligner: a link classifier trained on gold alignments.

Every cell ``(i, j)`` of a pair gets a feature vector (:data:`FEATURES`):

- lexical evidence: the match class (identical, lowercase, Porter stem, WordNet, PPDB) and
  whether the ``lexical`` aligner chose the cell; punctuation and stop-word flags; common
  prefix and character-bigram Dice; capitalisation, digits, one word containing the other;
  WordNet relations of two different content words (:mod:`scoring.aligners.word_features`);
- the ``em`` aligner's posteriors in both directions, its Viterbi links and symmetrized code,
  and the same for the diagonal neighbours;
- position and context: relative position, row and column ambiguity, whether the cell is the
  best of its row/column, POS agreement, whether the content words before/after both words
  match and whether any words within :data:`~scoring.aligners.word_features.CONTEXT_WINDOW`
  do ("the X" / "X of"), which occurrence of a repeated word each side is, the identity of
  frequent function words (:data:`FUNCTION_WORDS`), inverse document frequency;
- graded similarity in context from a pretrained sentence encoder (option ``encoder``): at
  :data:`ENCODER_LAYERS`, the cosine of the two words' vectors, its gap to the best of the
  row and of the column, and whether the cell is the best of both; option ``large_encoder``
  adds the same from all-mpnet-base-v2 at :data:`MPNET_LAYERS` (about five times slower);
- the gaps and anchors where annotators draw blocks (:mod:`~scoring.aligners.block_features`)
  and the corpus' own lexicon of annotated links (:mod:`~scoring.aligners.link_lexicon`).

A gradient-boosted tree ensemble (scikit-learn's ``HistGradientBoostingClassifier``, fixed
seed; kept as arrays by :mod:`scoring.aligners.trees`) learns ``p(linked)`` from the pairs that
have a gold alignment, a second one ``p(sure | linked)``; the EM model is trained on *every*
pair given, as the ``em`` aligner is. Option ``fine_tune_epochs`` blends in a fine-tuned
cross-encoder (:mod:`scoring.neural.finetune`) at weight ``fine_tune_weight``. Each cell gets
the state (empty, possible, sure) with the fewest expected corrections
(:func:`~scoring.aligners.corrections.decide_states`); ``p(linked)`` is a link's confidence.
``decision="thresholds"`` learns ``p(sure)`` alone: sure from ``sure_threshold``, possible
from ``possible_threshold``. Each choice is measured in ``docs/experiments.md``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from scoring import resources
from scoring.aligners import block_features, feature_store, link_lexicon
from scoring.aligners.base import Aligner, AlignerOutput, TokenPair
from scoring.aligners.corrections import decide_states, expected_corrections
from scoring.aligners.em import EMAligner
from scoring.aligners.em_kernels import grow_diag_final
from scoring.aligners.feature_columns import (
    BASE_FEATURES,
    ENCODER_LAYERS,
    FEATURES,
    FUNCTION_INDEX,
    MPNET_LAYERS,
    SIMILARITY,
)
from scoring.aligners.lexical import (
    IDENTICAL,
    LOWER,
    PPDB,
    STEM,
    WORDNET,
    LexicalAligner,
    greedy_one_to_one,
)
from scoring.aligners.options import AlignerOptions, EMOptions, LexicalOptions, SupervisedOptions
from scoring.aligners.trees import TreeEnsemble, fit_trees, one_thread
from scoring.aligners.word_features import (
    bigrams,
    context_features,
    is_punct,
    occurrences,
    prefix_similarity,
    wordnet_relations,
)
from scoring.alignment.links import Alignment, Link
from scoring.errors import FormatError, InputError, ModelError, ResourceMissingError
from scoring.neural import encoder, finetune

F64 = npt.NDArray[np.float64]
I64 = npt.NDArray[np.int64]


# Cross-validation trains one aligner per fold on the same pairs: the EM model (trained without
# gold) and the features it yields are then identical in every fold, so they are kept here,
# keyed by a fingerprint of the training pairs and options, and computed once.
_EM_CACHE: dict[tuple[Any, ...], EMAligner] = {}
_FEATURE_CACHE: dict[tuple[Any, ...], npt.NDArray[np.float32]] = {}
_CACHE_LIMIT = 4
# Features are cached for training pairs only, as float32, up to this many cells (~290 MB).
_CACHE_CELL_LIMIT = 1_200_000
_CACHED_CELLS = 0


def clear_caches() -> None:
    """Forget the cached EM models and features (cross-validation speed-up)."""
    global _CACHED_CELLS
    _EM_CACHE.clear()
    _FEATURE_CACHE.clear()
    _CACHED_CELLS = 0


#: The modules whose code computes the per-pair features (their stored copies are keyed by it).
_FEATURE_MODULES = (
    "scoring.aligners.supervised",
    "scoring.aligners.feature_columns",
    "scoring.aligners.word_features",
    "scoring.aligners.lexical",
    "scoring.aligners.options",
    "scoring.aligners.em",
    "scoring.aligners.em_kernels",
    "scoring.neural.encoder",
    "scoring.resources",
)
#: Their source as this process imported it (read now: a worker still running old code after an
#: update must not key its features by the new files).
_FEATURE_CODE = feature_store.code_digest(_FEATURE_MODULES)


def _fingerprint(pairs: Sequence[TokenPair]) -> int:
    return hash(tuple((tuple(s), tuple(t)) for s, t in pairs))


class SupervisedAligner(Aligner):
    """Link classifier over lexical, string, position, EM and POS features."""

    name = "supervised"
    version = 6
    uses_gold = True
    needs_training = True
    options_class = SupervisedOptions
    options: SupervisedOptions

    @staticmethod
    def min_links(options: SupervisedOptions) -> int:
        """The fewest gold links (linked cells with decision ``"corrections"``, else sure ones:
        what the link trees learn) they can learn from: half a leaf of ``min_samples_leaf``
        cells, as no leaf is mostly links with fewer. The least, not enough: at the defaults
        Edinburgh++ pairs learnt nothing from 30 links and learnt from 50, pairs of 7 words
        nothing up to 60 and learnt from 70 (:meth:`fit` refuses a model that links nothing)."""
        return -(-options.min_samples_leaf // 2)

    @classmethod
    def training_refusal(
        cls, gold: Sequence[Alignment], options: AlignerOptions | None = None
    ) -> str | None:
        """No gold, or fewer links than :meth:`min_links`."""
        o = options if isinstance(options, SupervisedOptions) else SupervisedOptions()
        kind = "links" if o.decision == "corrections" else "sure links"
        links = sum(len(g.possible if kind == "links" else g.sure) for g in gold)
        needed = cls.min_links(o)
        refusal = super().training_refusal(gold, o)
        if refusal is not None or links >= needed:
            return refusal
        pairs = f"about {-(-needed * len(gold) // links):,}" if links else "more"
        return (
            f"the '{cls.name}' aligner needs at least {needed} {kind} in finished pairs to "
            f"learn from (half of min_samples_leaf, {o.min_samples_leaf}); the {len(gold):,} "
            f"finished pairs have {links}: {pairs} finished pairs are needed"
        )

    def __init__(self, options: SupervisedOptions | None = None) -> None:
        super().__init__(options)
        o = self.options
        # The EM posteriors are features; the trees were developed on these EM settings (the
        # `em` aligner's own defaults later moved to a heavier identity lexicon, which is
        # better for its intersection links, not measured as features here). The EM model's
        # later fixes (unweighted jump counts, the end factor) apply here too: 5-fold CV
        # 88.5 → 88.7 on Edinburgh++, 89.2 on RTE-2 unchanged (results/aligners.json).
        self.em = EMAligner(
            EMOptions(
                max_length=o.max_length,
                hmm_iterations=o.em_hmm_iterations,
                identity_weight=5.0,
                start="uniform",
            )
        )
        self.lexical = LexicalAligner(
            LexicalOptions(max_length=o.max_length, wordnet=o.wordnet, ppdb=o.ppdb)
        )
        self.ensemble: TreeEnsemble | None = None
        # decision "corrections": p(sure | linked); None when the gold has one kind of link only
        self.kind: TreeEnsemble | None = None
        self.sure_share = 1.0  # p(sure | linked) without a kind model
        self.lexicon: link_lexicon.LinkLexicon | None = None
        self.scorer: finetune.LinkScorer | None = None
        self.training_summary: dict[str, Any] = {}
        self._pos_warning: str | None = None
        self._encoder_warning: str | None = None
        self._large_encoder_warning: str | None = None
        self._feature_key: tuple[Any, ...] | None = None
        self._store_key: str | None = None  # computed on first use (:meth:`_stored_key`)
        self._training_pairs: set[tuple[tuple[str, ...], tuple[str, ...]]] = set()
        # lowercase word → number of training sentences holding it (inverse document frequency)
        self.document_frequency: dict[str, int] = {}
        self.sentences = 0

    # --- features -----------------------------------------------------------------------------

    def _tags(self, tokens: list[str]) -> list[str] | None:
        if not self.options.pos or self._pos_warning is not None:
            return None
        try:
            return resources.pos_tag(tokens)
        except ResourceMissingError as error:
            self._pos_warning = f"POS features skipped: {error}"
            return None

    def features(
        self, source: list[str], target: list[str], exclude: Alignment | None = None
    ) -> F64:
        """``(N·M, len(FEATURES))`` feature matrix of one pair, row ``i·M + j``; ``exclude``: the
        pair's own gold, left out of the lexicon's counts (a training pair)."""
        base = self.base_features(source, target)
        rows = base.shape[0]
        if self.options.blocks:
            col = {name: k for k, name in enumerate(FEATURES[:BASE_FEATURES])}
            anchors = (base[:, col["lexical_choice"]] == 1.0) | (
                (base[:, col["em_viterbi_st"]] > 0) & (base[:, col["em_viterbi_ts"]] > 0)
            )
            gaps = block_features.block_features(anchors.reshape(len(source), len(target)))
        else:
            gaps = np.full((rows, len(block_features.FEATURES)), np.nan)
        if self.lexicon is None:
            extra = np.full((rows, len(link_lexicon.FEATURES)), np.nan)
        else:
            extra = self.lexicon.features(source, target, exclude)
        return np.concatenate([base, gaps, extra], axis=1)

    def base_features(self, source: list[str], target: list[str]) -> F64:
        """The first :data:`BASE_FEATURES` columns of :meth:`features`: what the pair alone
        gives (with the corpus' EM model and word frequencies), cached in memory for training
        pairs, and for every pair in the feature store if one is in use
        (:func:`scoring.aligners.feature_store.use`), which other processes read.

        The values are rounded to float32 whether cached or not: the cache holds float32 (half
        the memory), and a pair's features must be the same numbers in training, in a prefill
        from the cache and in a model saved and loaded elsewhere, or a cell near a tree's
        threshold flips between them."""
        key = self._feature_key and (self._feature_key, tuple(source), tuple(target))
        cached = _FEATURE_CACHE.get(key) if key else None
        if cached is not None:
            return cached.astype(np.float64)
        store, stored_key = feature_store.active(), self._stored_key()
        if store is not None and stored_key is not None:
            cached = store.get(stored_key, source, target, BASE_FEATURES)
        if cached is None:
            cached = self._compute_features(source, target).astype(np.float32)
            if store is not None and stored_key is not None:
                store.put(stored_key, source, target, cached)
        global _CACHED_CELLS
        if key and key[1:] in self._training_pairs and _CACHED_CELLS < _CACHE_CELL_LIMIT:
            _FEATURE_CACHE[key] = cached
            _CACHED_CELLS += cached.shape[0]
        return cached.astype(np.float64)

    def _stored_key(self) -> str | None:
        """This model's key in the feature store (:mod:`~scoring.aligners.feature_store`): a
        digest of what the per-pair features depend on (the EM model, the word frequencies,
        the options and resources that shape them, the code), the same for the model saved and
        loaded elsewhere and for the retrainings of an unchanged corpus; None untrained."""
        if feature_store.active() is None or not self.em.trained:
            return None
        if self._store_key is None:
            state, arrays = self.em._state()
            rules, models = self.lexical.rules, (self._encoder(), self._large_encoder())
            self._store_key = feature_store.digest(
                [self.name, self.version, FEATURES[:BASE_FEATURES]],
                _FEATURE_CODE,
                [self.em.options.to_dict(), feature_store.array_digest(arrays)],
                {k: v for k, v in state.items() if k != "log"},  # the log holds timings
                [sorted(self.document_frequency.items()), self.sentences],
                [self.options.wordnet, self.options.pos, self.options.max_length],
                [rules.wordnet, list(rules.warnings), self._tags(["word"]) is not None],
                feature_store.file_identity(self.options.ppdb if rules.ppdb else None),
                [
                    None
                    if model is None
                    else feature_store.file_identity(Path(model.directory) / "model.safetensors")
                    for model in models
                ],
            )
        return self._store_key

    def _idf(self, words: list[str]) -> F64:
        """``log((S + 1) / (df + 1))`` of each lowercase word over the ``S`` training sentences."""
        df = self.document_frequency
        return np.log((self.sentences + 1.0) / (np.array([df.get(w, 0) for w in words]) + 1.0))

    def _count_documents(self, pairs: Sequence[TokenPair]) -> None:
        counts: dict[str, int] = {}
        for pair in pairs:
            for sentence in pair:
                for word in {w.lower() for w in sentence}:
                    counts[word] = counts.get(word, 0) + 1
        self.document_frequency = counts
        self.sentences = 2 * len(pairs)

    def _encoder(self) -> encoder.Encoder | None:
        if not self.options.encoder or self._encoder_warning is not None:
            return None
        try:
            return encoder.load()
        except ResourceMissingError as error:
            self._encoder_warning = f"sentence-encoder features skipped: {error}"
            return None

    def _large_encoder(self) -> encoder.Encoder | None:
        if not self.options.large_encoder or self._large_encoder_warning is not None:
            return None
        try:
            return encoder.load(model=encoder.MPNET)
        except ResourceMissingError as error:
            self._large_encoder_warning = f"large-encoder features skipped: {error}"
            return None

    def _encoder_features(self, source: list[str], target: list[str]) -> list[F64]:
        """For each encoder and each of its layers (:data:`ENCODER_LAYERS`, then
        :data:`MPNET_LAYERS`): the cosine of the two words' vectors in context, its gap to the
        best cosine of the row and of the column, and whether the cell is the best of both (the
        argmax rule of SimAlign, Jalili Sabet et al. 2020). NaN columns for an encoder that is
        off or missing (or for words past its 256 word pieces)."""
        with one_thread():
            return self._encoder_columns(source, target)

    def _encoder_columns(self, source: list[str], target: list[str]) -> list[F64]:
        n, m = len(source), len(target)
        out: list[F64] = []
        for model, layers in (
            (self._encoder(), ENCODER_LAYERS),
            (self._large_encoder(), MPNET_LAYERS),
        ):
            if model is None:
                out += [np.full((n, m), np.nan) for _ in range(len(SIMILARITY) * len(layers))]
                continue
            a, b = model.encode_words(source), model.encode_words(target)
            for layer in layers:
                sim = encoder.cosine_matrix(a.words[layer], b.words[layer])
                filled = np.nan_to_num(sim, nan=-1.0)
                row_max = filled.max(axis=1, keepdims=True)
                col_max = filled.max(axis=0, keepdims=True)
                mutual = ((filled >= row_max) & (filled >= col_max)).astype(np.float64)
                out += [sim, sim - row_max, sim - col_max, mutual]
        return out

    def _compute_features(self, source: list[str], target: list[str]) -> F64:
        n, m = len(source), len(target)
        rules = self.lexical.rules
        classes = rules.classes(source, target).astype(np.int64)
        choice = np.zeros((n, m))
        for i, j, cls in greedy_one_to_one(classes.astype(np.int8)):
            choice[i, j] = 1.0 if cls >= STEM else 0.5
        post_st, post_ts, fwd, bwd = self.em.directional(source, target)
        sym = grow_diag_final(fwd, bwd).astype(np.float64)
        post_min = np.minimum(post_st, post_ts)
        src_lower = [w.lower() for w in source]
        tgt_lower = [w.lower() for w in target]
        stop = rules.stop
        src_punct = np.array([is_punct(w) for w in source], dtype=np.float64)
        tgt_punct = np.array([is_punct(w) for w in target], dtype=np.float64)
        src_stop = np.array([w in stop for w in src_lower], dtype=np.float64)
        tgt_stop = np.array([w in stop for w in tgt_lower], dtype=np.float64)
        src_bi = [bigrams(w) for w in src_lower]
        tgt_bi = [bigrams(w) for w in tgt_lower]
        prefix = np.zeros((n, m))
        dice = np.zeros((n, m))
        for i in range(n):
            for j in range(m):
                prefix[i, j] = prefix_similarity(src_lower[i], tgt_lower[j])
                inter = len(src_bi[i] & tgt_bi[j])
                dice[i, j] = 2.0 * inter / (len(src_bi[i]) + len(tgt_bi[j]))
        rel = np.abs((np.arange(n)[:, None] + 0.5) / n - (np.arange(m)[None, :] + 0.5) / m)
        strong = (classes >= STEM).astype(np.float64)
        padded_strong = np.pad(strong, 1)
        padded_post = np.pad(post_min, 1)
        padded_choice = np.pad(choice, 1)
        neigh_lex = padded_strong[:-2, :-2] + padded_strong[2:, 2:]
        neigh_em = (padded_post[:-2, :-2] + padded_post[2:, 2:]) / 2.0
        neigh_choice = padded_choice[:-2, :-2] + padded_choice[2:, 2:]
        row_cand = np.repeat(strong.sum(axis=1, keepdims=True), m, axis=1)
        col_cand = np.repeat(strong.sum(axis=0, keepdims=True), n, axis=0)
        best_row = (post_min >= post_min.max(axis=1, keepdims=True)).astype(np.float64)
        best_col = (post_min >= post_min.max(axis=0, keepdims=True)).astype(np.float64)
        same_pos = np.zeros((n, m))
        content = np.zeros((n, m))
        src_tags = self._tags(source)
        tgt_tags = self._tags(target)
        if src_tags is not None and tgt_tags is not None:
            s_coarse = [t[:1] for t in src_tags]
            t_coarse = [t[:1] for t in tgt_tags]
            s_content = np.array([c in "NVJR" and c != "" for c in s_coarse], dtype=np.float64)
            t_content = np.array([c in "NVJR" and c != "" for c in t_coarse], dtype=np.float64)
            same_pos = np.array(
                [[float(a == b) for b in t_coarse] for a in s_coarse], dtype=np.float64
            ).reshape(n, m)
            content = s_content[:, None] * t_content[None, :]
        match = classes > 0
        left_c, right_c, left_w, right_w = context_features(
            match,
            (src_punct + src_stop) == 0,
            (tgt_punct + tgt_stop) == 0,
        )
        src_count, src_occ = occurrences(src_lower)
        tgt_count, tgt_occ = occurrences(tgt_lower)
        lower = classes >= LOWER
        # among the lowercase-identical candidates of a column (row), the relatively closest
        rel_lower = np.where(lower, rel, np.inf)
        closest_col = lower & (rel_lower <= rel_lower.min(axis=0, keepdims=True))
        closest_row = lower & (rel_lower <= rel_lower.min(axis=1, keepdims=True))
        src_cap = np.array([w[:1].isupper() for w in source], dtype=np.float64)
        tgt_cap = np.array([w[:1].isupper() for w in target], dtype=np.float64)
        src_num = np.array([any(c.isdigit() for c in w) for w in source], dtype=np.float64)
        tgt_num = np.array([any(c.isdigit() for c in w) for w in target], dtype=np.float64)
        contain = np.array(
            [
                [len(a) >= 3 and len(b) >= 3 and a != b and (a in b or b in a) for b in tgt_lower]
                for a in src_lower
            ],
            dtype=np.float64,
        ).reshape(n, m)
        encoded = self._encoder_features(source, target)
        relations = np.zeros((n, m, 3))
        if rules.wordnet:
            src_c = [w.isalpha() and w not in stop for w in src_lower]
            tgt_c = [w.isalpha() and w not in stop for w in tgt_lower]
            for i in range(n):
                for j in range(m):
                    if src_c[i] and tgt_c[j]:
                        a, b = src_lower[i], tgt_lower[j]
                        relations[i, j] = (1.0, 1.0, 1.0) if a == b else wordnet_relations(a, b)
        src_idf = self._idf(src_lower)
        tgt_idf = self._idf(tgt_lower)
        src_fw = np.array([FUNCTION_INDEX.get(w, -1) for w in src_lower], dtype=np.float64)
        tgt_fw = np.array([FUNCTION_INDEX.get(w, -1) for w in tgt_lower], dtype=np.float64)
        columns = [
            (classes == IDENTICAL).astype(np.float64),
            (classes >= LOWER).astype(np.float64),
            strong,
            (classes == WORDNET).astype(np.float64),
            (classes == PPDB).astype(np.float64),
            choice,
            np.repeat(src_punct[:, None], m, axis=1),
            np.repeat(tgt_punct[None, :], n, axis=0),
            np.repeat(src_stop[:, None], m, axis=1),
            np.repeat(tgt_stop[None, :], n, axis=0),
            prefix,
            dice,
            rel,
            post_st,
            post_ts,
            post_min,
            fwd.astype(np.float64),
            bwd.astype(np.float64),
            sym,
            neigh_lex,
            neigh_em,
            neigh_choice,
            row_cand,
            col_cand,
            best_row,
            best_col,
            same_pos,
            content,
            np.full((n, m), abs(n - m) / (n + m)),
            left_c,
            right_c,
            left_w,
            right_w,
            np.repeat(src_count[:, None], m, axis=1),
            np.repeat(tgt_count[None, :], n, axis=0),
            (src_occ[:, None] == tgt_occ[None, :]).astype(np.float64),
            closest_col.astype(np.float64),
            closest_row.astype(np.float64),
            src_cap[:, None] * tgt_cap[None, :],
            src_num[:, None] * tgt_num[None, :],
            contain,
            np.repeat(src_fw[:, None], m, axis=1),
            np.repeat(tgt_fw[None, :], n, axis=0),
            np.repeat(src_idf[:, None], m, axis=1),
            np.repeat(tgt_idf[None, :], n, axis=0),
            np.minimum(src_idf[:, None], tgt_idf[None, :]),
            relations[:, :, 0],
            relations[:, :, 1],
            relations[:, :, 2],
            *encoded,
        ]
        out = np.stack([c.reshape(n * m) for c in columns], axis=1)
        assert out.shape[1] == BASE_FEATURES
        return np.ascontiguousarray(out)

    # --- training -----------------------------------------------------------------------------

    def _train(self, pairs: Sequence[TokenPair], gold: Sequence[Alignment | None] | None) -> None:
        with one_thread():
            self._train_one_thread(pairs, gold)

    def _train_one_thread(
        self, pairs: Sequence[TokenPair], gold: Sequence[Alignment | None] | None
    ) -> None:
        labelled = [k for k, g in enumerate(gold or []) if g is not None]
        refusal = self.training_refusal([g for g in gold or [] if g is not None], self.options)
        if refusal is not None:
            raise InputError(refusal)
        self._store_key = None
        em_key = (_fingerprint(pairs), self.em.options)
        cached = _EM_CACHE.get(em_key)
        if cached is None:
            self.em.fit(pairs, progress=self.progress_part(0.0, 0.2, "EM: "))
            if len(_EM_CACHE) >= _CACHE_LIMIT:
                clear_caches()
            _EM_CACHE[em_key] = self.em
        else:
            self.em = cached
        self._training_pairs = {(tuple(a), tuple(b)) for a, b in pairs}
        self._count_documents(pairs)
        self._feature_key = (
            em_key,
            self.options.wordnet,
            self.options.ppdb,
            self.options.pos,
            self._encoder() is not None,
            self._large_encoder() is not None,
        )
        assert gold is not None
        o = self.options
        golds = [g for g in gold if g is not None]
        self.lexicon = None
        if o.lexicon:
            self.lexicon = link_lexicon.LinkLexicon.count(
                [(pairs[k][0], pairs[k][1]) for k in labelled], golds
            )
        annotated = len(labelled)
        if annotated > o.max_training_pairs:
            rng = np.random.default_rng(o.seed)
            kept = rng.choice(annotated, size=o.max_training_pairs, replace=False)
            labelled = [labelled[int(k)] for k in np.sort(kept)]
        blocks = []
        codes = []
        for done, k in enumerate(labelled):
            self.report_progress(
                0.2 + 0.35 * done / len(labelled), f"features {done}/{len(labelled)}"
            )
            source, target = pairs[k]
            alignment = gold[k]
            assert alignment is not None
            blocks.append(self.features(list(source), list(target), exclude=alignment))
            codes.append(alignment.to_matrix().reshape(-1).astype(np.int64))
        x = np.concatenate(blocks)
        code = np.concatenate(codes)
        # "thresholds" learns p(sure); "corrections" p(linked), then p(sure | linked)
        by_kind = o.decision == "corrections"
        y = (code >= 1 if by_kind else code == 2).astype(np.int64)
        if y.min() == y.max():
            raise InputError("the gold alignments have no sure link (or nothing but links)")
        ensemble, cells_used = self.fit_ensemble(x, y)
        total_cells, positive_cells = int(y.size), int(np.count_nonzero(code == 2))
        # Too little finished work (leaves of min_samples_leaf cells all mostly non-links) or
        # too few trees for the learning rate gives a model that would link nothing and erase a
        # prefill that was better. Refuse it, so a prefill job fails with the reason.
        cut = 0.5 if by_kind else o.sure_threshold
        on_links = ensemble.predict(x[y == 1])
        if int(np.count_nonzero(on_links >= cut)) == 0:
            raise ModelError(
                f"the 'supervised' aligner learnt nothing from {len(labelled)} finished pairs "
                f"({positive_cells} sure links): it would link no word even in them (its "
                f"highest probability for a gold link is {float(on_links.max()):.2f}, a link "
                f"needs {cut:.2f}); {o.unlearnt_advice(int(y.sum()))}"
            )
        self.ensemble = ensemble
        self.kind = None
        linked = code >= 1
        sure = code[linked] == 2
        self.sure_share = float(sure.mean()) if sure.size else 1.0
        if by_kind and 0 < int(sure.sum()) < sure.size:
            self.kind, _ = self.fit_ensemble(
                x[linked], sure.astype(np.int64), trees=o.kind_trees, sample=False
            )
        self.scorer = None
        model = self._encoder() if o.fine_tune_epochs else None
        if model is not None:
            assert gold is not None
            self.scorer = finetune.fine_tune(
                model,
                [pairs[k] for k in labelled],
                [gold_k.sure_matrix() for k in labelled if (gold_k := gold[k]) is not None],
                epochs=o.fine_tune_epochs,
                seed=o.seed,
            )
        self.training_summary = {
            "pairs": len(pairs),
            "labelled_pairs": annotated,
            "trained_pairs": len(labelled),
            "cells": total_cells,
            "positive_cells": positive_cells,
            "cells_used": cells_used,
            "seed": o.seed,
        }

    def fit_ensemble(
        self, x: F64, y: I64, *, trees: int | None = None, sample: bool = True
    ) -> tuple[TreeEnsemble, int]:
        """The tree ensemble learnt from feature rows ``x`` (:meth:`features`) and their labels
        ``y`` (1 = a gold link of the kind learnt), and the number of rows it used.

        Easy negatives (no lexical match, no EM evidence, dissimilar strings) are most cells;
        with ``sample`` a seeded sample of them is kept, weighted up so the probabilities stay
        calibrated. ``trees`` defaults to the option ``trees``."""
        from sklearn.ensemble import HistGradientBoostingClassifier

        o = self.options
        if not sample:
            x = x.copy()
            x[:, np.isnan(x).all(axis=0)] = 0.0
            model = HistGradientBoostingClassifier(
                max_iter=trees or o.trees,
                learning_rate=o.learning_rate,
                max_leaf_nodes=o.max_leaf_nodes,
                min_samples_leaf=o.min_samples_leaf,
                early_stopping=False,
                random_state=o.seed,
            )
            part = self.progress_part(0.95, 1.0, "sure or possible: ")
            return fit_trees(model, x, y, None, part), int(y.size)
        col = {name: k for k, name in enumerate(FEATURES)}
        evidence = (
            (
                x[:, col["lowercase"]]
                + x[:, col["stem"]]
                + x[:, col["wordnet"]]
                + x[:, col["ppdb"]]
                > 0
            )
            | (np.maximum(x[:, col["em_posterior_st"]], x[:, col["em_posterior_ts"]]) >= 0.01)
            | (x[:, col["em_symmetrized"]] > 0)
            | (x[:, col["bigram_dice"]] >= 0.5)
        )
        rate = float(o.negative_sample)
        rng = np.random.default_rng(o.seed)
        keep = evidence | (y == 1) | (rng.random(y.size) < rate)
        weight = np.where(evidence | (y == 1), 1.0, 1.0 / rate)[keep]
        kept_x, kept_y = x[keep], y[keep]
        # scikit-learn cannot bin a column that is all missing (the encoder's, without it)
        kept_x[:, np.isnan(kept_x).all(axis=0)] = 0.0
        model = HistGradientBoostingClassifier(
            max_iter=trees or o.trees,
            learning_rate=o.learning_rate,
            max_leaf_nodes=o.max_leaf_nodes,
            min_samples_leaf=o.min_samples_leaf,
            early_stopping=False,
            random_state=o.seed,
        )
        part = self.progress_part(0.55, 0.95, "link trees: ")
        return fit_trees(model, kept_x, kept_y, weight, part), int(keep.sum())

    # --- alignment ----------------------------------------------------------------------------

    def probabilities(self, source: list[str], target: list[str]) -> F64:
        """``(N, M)`` probability of each cell being a gold link of the kind the main model
        learns: linked (sure or possible) with decision ``"corrections"``, sure with
        ``"thresholds"``."""
        return self.cell_probabilities(source, target)[0]

    def cell_probabilities(self, source: list[str], target: list[str]) -> tuple[F64, F64]:
        """``(N, M)`` probabilities of each cell: the main model's (:meth:`probabilities`) and
        of being a sure link (the same with ``"thresholds"``)."""
        if self.ensemble is None:
            raise ModelError("the 'supervised' aligner is not trained")
        x = self.features(source, target)
        shape = (len(source), len(target))
        prob = self.ensemble.predict(x).reshape(shape)
        if self.scorer is not None:
            tuned = 1.0 / (1.0 + np.exp(-self.scorer.logits(source, target)))
            weight = self.options.fine_tune_weight
            prob = np.where(np.isnan(tuned), prob, (1.0 - weight) * prob + weight * tuned)
        if self.options.decision == "thresholds":
            return prob, prob
        share = self.kind.predict(x).reshape(shape) if self.kind is not None else self.sure_share
        return prob, prob * share

    def _align(self, source: list[str], target: list[str]) -> AlignerOutput:
        prob, p_sure = self.cell_probabilities(source, target)
        metadata = {}
        if self.options.decision == "thresholds":
            sure = prob >= self.options.sure_threshold
            possible = prob >= self.options.possible_threshold
        else:
            states = decide_states(prob, p_sure)
            sure, possible = states == 2, states >= 1
            metadata["expected_corrections"] = expected_corrections(prob, p_sure, states)
        links: list[Link] = [(int(i), int(j)) for i, j in np.argwhere(possible)]
        warnings = self.lexical.rules.warnings + tuple(
            w for w in (self._pos_warning, self._encoder_warning, self._large_encoder_warning) if w
        )
        return AlignerOutput(
            alignment=Alignment.from_matrices(sure, possible),
            confidence={link: float(prob[link]) for link in links},
            warnings=warnings,
            metadata=metadata,
        )

    # --- persistence --------------------------------------------------------------------------

    def _state(self) -> tuple[dict[str, Any], dict[str, npt.NDArray[Any]]]:
        if self.ensemble is None:
            return {"summary": {}}, {}
        em_state, em_arrays = self.em._state()
        arrays = {f"em_{k}": v for k, v in em_arrays.items()}
        arrays.update({f"tree_{k}": v for k, v in self.ensemble.arrays().items()})
        if self.kind is not None:
            arrays.update({f"kind_{k}": v for k, v in self.kind.arrays().items()})
        lexicon_state: dict[str, Any] | None = None
        if self.lexicon is not None:
            lexicon_state, lexicon_arrays = self.lexicon.state()
            arrays.update({f"lexicon_{k}": v for k, v in lexicon_arrays.items()})
        if self.scorer is not None:
            arrays.update({f"finetuned_{k}": v for k, v in self.scorer.arrays().items()})
        state = {
            "em": em_state,
            "em_options": self.em.options.to_dict(),
            "baseline": self.ensemble.baseline,
            "kind_baseline": None if self.kind is None else self.kind.baseline,
            "sure_share": self.sure_share,
            "lexicon": lexicon_state,
            "features": list(FEATURES),
            "document_frequency": self.document_frequency,
            "sentences": self.sentences,
            "summary": self.training_summary,
        }
        return state, arrays

    def _restore(self, state: dict[str, Any], arrays: dict[str, npt.NDArray[Any]]) -> None:
        if "em" not in state:
            return
        if state.get("features") != list(FEATURES):
            raise ModelError(
                f"saved 'supervised' model was trained on {len(state.get('features', []))} "
                f"features, not this version's {len(FEATURES)} (version {self.version} added the "
                "corpus lexicon's); train it again"
            )
        self._store_key = None
        try:
            self.em = EMAligner(EMOptions.from_dict(state["em_options"]))
            self.em._restore(
                state["em"], {k[3:]: v for k, v in arrays.items() if k.startswith("em_")}
            )
            self.em.trained = True
            self.ensemble = TreeEnsemble(
                {key: arrays[f"tree_{key}"] for key in TreeEnsemble.KEYS}, state["baseline"]
            )
            self.kind = None
            if state["kind_baseline"] is not None:
                self.kind = TreeEnsemble(
                    {key: arrays[f"kind_{key}"] for key in TreeEnsemble.KEYS},
                    state["kind_baseline"],
                )
            self.sure_share = float(state["sure_share"])
            self.lexicon = None
            if state["lexicon"] is not None:
                self.lexicon = link_lexicon.LinkLexicon.restore(
                    state["lexicon"],
                    {k[8:]: v for k, v in arrays.items() if k.startswith("lexicon_")},
                )
            self.document_frequency = {
                str(w): int(c) for w, c in state["document_frequency"].items()
            }
            self.sentences = int(state["sentences"])
            tuned = {
                k.removeprefix("finetuned_"): v
                for k, v in arrays.items()
                if k.startswith("finetuned_")
            }
            self.scorer = None
            if tuned:
                model = self._encoder()
                if model is None:
                    raise ResourceMissingError(
                        "saved 'supervised' model holds a fine-tuned encoder, but "
                        f"{self._encoder_warning}"
                    )
                self.scorer = finetune.LinkScorer(model, tuned)
        except KeyError as error:
            raise FormatError(
                "missing in the saved 'supervised' model", field=str(error.args[0])
            ) from error
        self.training_summary = dict(state.get("summary", {}))
