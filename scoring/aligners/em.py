"""Statistical aligner: IBM Model 1 then HMM, trained by EM in both directions.

As Cohn et al. (2008, §4) did with GIZA++: IBM Model 1 (Brown et al. 1993) and then the HMM
alignment model (Vogel, Ney & Tillmann 1996, with the empty word of Och & Ney 2003, §2.1.1),
each trained by EM on every pair of the corpus in both directions, with the word-identity
lexicon of Quirk, Brockett & Dolan (2004) added to the training data (every word type paired
with itself, as an extra one-word pair of weight ``identity_weight``). The two directional
alignments are symmetrized: their intersection gives the sure links, grow-diag-final (Koehn,
Och & Marcu 2003) adds the rest as possible links. A link's confidence is the mean of its two
directional posteriors.

- HMM jumps are clipped to ``±max_jump`` and smoothed by ``jump_smoothing``; the empty word is
  entered with probability ``p_null`` (re-estimated with ``learn_null``); the first and last
  positions are a jump from −1 and to ``I`` (``start``/``end`` = ``"jump"``), uniform, or
  learned tables, as GIZA++'s deficient end factor. The alignment model learns from the
  corpus pairs only, each of weight 1; the identity pairs add lexicon counts only.
- ``training="agreement"`` trains both directions jointly by agreement (Liang, Taskar & Klein
  2006, §3): each link's expected count is the product of the two directions' posteriors.
- ``decode`` is Viterbi, per-position posterior ≥ 0.5, or the agreement posterior.
- ``lexical`` combines the ``lexical`` aligner's matches: ``"merge"`` adds them where EM left
  words unaligned, ``"first"``/``"first-sure"`` start from them and add EM links.
- Lexicon probabilities are kept only for word pairs that co-occur in a training pair; an
  unseen pair gets the median learned identity probability if identical, else ``floor``.

The model in full, the comparison with GIZA++ on the same data, and the measurements behind
the defaults are in ``docs/aligners.md``. The numba kernels are in
:mod:`scoring.aligners.em_kernels`.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from scoring.aligners.base import Aligner, AlignerOutput, TokenPair
from scoring.aligners.em_kernels import (
    grow_diag_final,
    hmm_agreement_estep,
    hmm_estep,
    model1_agreement_estep,
    model1_estep,
    normalize_lexicon,
    posteriors,
    union_sorted,
)
from scoring.aligners.lexical import STEM, LexicalAligner, greedy_one_to_one
from scoring.aligners.options import EMOptions, LexicalOptions
from scoring.alignment.links import Alignment
from scoring.errors import FormatError, ModelError

F64 = npt.NDArray[np.float64]
I64 = npt.NDArray[np.int64]
I32 = npt.NDArray[np.int32]
I8 = npt.NDArray[np.int8]

NULL_ID = 0
#: Cells of the training data whose keys :func:`_layout` makes at a time (8 bytes each).
LAYOUT_CELLS = 1 << 22
#: An E-step runs in chunks of pairs of about this many seconds each (:func:`_chunks`): between
#: two, Python runs, so a cancelled job (its ``progress`` raises), a soft time limit or a
#: stopping worker's signal takes effect within about that long, not at the end of the step.
CHUNK_SECONDS = 0.25
#: Pairs of the first chunk of an E-step; the next ones are sized from the time it took.
FIRST_CHUNK = 64


# --- training data layout ----------------------------------------------------------------------


class _Direction:
    """One direction's sparse lexicon: sorted keys ``e · V + f`` and ``t(f | e)``."""

    def __init__(self, keys: I64, prob: F64) -> None:
        self.keys = keys
        self.prob = prob


def _layout(
    cond: Sequence[I64],
    gen: Sequence[I64],
    vocab_size: int,
    report: Callable[[float], None] | None = None,
) -> tuple[I64, I64, I32, I64, I64]:
    """Cell index of every (conditioning word or empty word, generated word) of every pair.

    Returns ``(cond_len, gen_len, cells, cell_off, keys)``: ``keys`` are the distinct table keys
    (sorted) and ``cells`` (``int32``) index into them, pair by pair, ``(J, I + 1)`` row-major.
    The keys of the cells are made :data:`LAYOUT_CELLS` at a time, twice (to find the distinct
    ones, then to index them): all at once they would take 8 bytes a cell, and sorting them
    three times that. ``report(share)`` is called after each chunk (where a cancelled job
    stops).
    """
    cond_len = np.fromiter((len(c) for c in cond), dtype=np.int64, count=len(cond))
    gen_len = np.fromiter((len(g) for g in gen), dtype=np.int64, count=len(gen))
    sizes = gen_len * (cond_len + 1)
    cell_off = np.zeros(len(cond) + 1, dtype=np.int64)
    np.cumsum(sizes, out=cell_off[1:])
    chunks = _layout_chunks(cell_off)
    done = 0
    keys = np.empty(0, dtype=np.int64)
    for first, stop in chunks:
        keys = union_sorted(
            keys, _distinct(_cell_keys(cond, gen, vocab_size, cell_off, first, stop))
        )
        done += 1
        if report is not None:
            report(done / (2 * len(chunks)))
    if keys.size > np.iinfo(np.int32).max:
        raise ModelError(
            f"the corpus has {keys.size:,} distinct word pairs, more than EM's cell tables hold"
        )
    cells = np.empty(int(cell_off[-1]), dtype=np.int32)
    for first, stop in chunks:
        distinct, inverse = np.unique(
            _cell_keys(cond, gen, vocab_size, cell_off, first, stop), return_inverse=True
        )
        # Sorted needles: a walk through ``keys``, where each cell's own search would jump.
        cells[cell_off[first] : cell_off[stop]] = np.searchsorted(keys, distinct)[inverse]
        done += 1
        if report is not None:
            report(done / (2 * len(chunks)))
    return cond_len, gen_len, cells, cell_off, keys


def _distinct(values: I64) -> I64:
    """The distinct ``values``, sorted, from one sort: ``np.unique`` without an inverse hashes
    the values first, several times slower on millions of integer keys."""
    ordered = np.sort(values)
    if ordered.size == 0:
        return ordered
    keep = np.empty(ordered.size, dtype=np.bool_)
    keep[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=keep[1:])
    distinct: I64 = ordered[keep]
    return distinct


def _layout_chunks(cell_off: I64) -> list[tuple[int, int]]:
    """Consecutive pair ranges ``[first, stop)`` of about :data:`LAYOUT_CELLS` cells each (at
    least one pair)."""
    chunks = []
    first = 0
    n = cell_off.size - 1
    while first < n:
        stop = int(np.searchsorted(cell_off, cell_off[first] + LAYOUT_CELLS, side="right")) - 1
        stop = min(n, max(stop, first + 1))
        chunks.append((first, stop))
        first = stop
    return chunks


def _cell_keys(
    cond: Sequence[I64], gen: Sequence[I64], vocab_size: int, cell_off: I64, first: int, stop: int
) -> I64:
    """The table key ``e · V + f`` of every cell of the pairs ``first`` to ``stop``."""
    base = cell_off[first]
    raw = np.empty(int(cell_off[stop] - base), dtype=np.int64)
    for k in range(first, stop):
        with_null = np.append(cond[k], NULL_ID)
        raw[cell_off[k] - base : cell_off[k + 1] - base] = (
            with_null[None, :] * vocab_size + gen[k][:, None]
        ).ravel()
    return raw


class _DirectionRun:
    """One direction's training data layout (:func:`_layout`) and current parameters."""

    def __init__(
        self,
        cond: Sequence[I64],
        gen: Sequence[I64],
        size: int,
        options: EMOptions,
        report: Callable[[float], None] | None = None,
    ) -> None:
        self.cond_len, self.gen_len, self.cells, self.cell_off, self.keys = _layout(
            cond, gen, size, report
        )
        self.size = size
        # Uniform start: t(f | e) = 1 / (number of f co-occurring with e).
        group = self.keys // size
        self.members = np.bincount(group, minlength=size).astype(np.float64)
        self.prob: F64 = 1.0 / self.members[group]
        del group
        self.max_jump = options.max_jump
        self.start = options.start
        self.end = options.end
        self.jump: F64 = np.ones(2 * self.max_jump + 1)
        self.bounds = _boundary_tables(
            self.start, self.end, self.jump, np.ones((2, self.max_jump + 1))
        )
        self.p0 = options.p_null
        self.add = options.lexicon_smoothing
        self.floor = options.floor
        self.prune = options.prune
        self.model1_ll: list[float] = []
        self.hmm_ll: list[float] = []
        self.p0_log: list[float] = []

    def normalize(self, counts: F64) -> F64:
        """The M-step of the lexicon (:func:`normalize_lexicon`), in ``counts``' memory."""
        return normalize_lexicon(counts, self.keys, self.size, self.members, self.add, self.floor)

    def update_alignment(self, jump_counts: F64, bound_counts: F64) -> None:
        """M-step of the jump table and of the start and end tables (:func:`_boundary_tables`)
        from the expected counts of :func:`hmm_estep`."""
        jc = jump_counts.copy()
        own = bound_counts.copy()
        for row, mode in enumerate((self.start, self.end)):
            if mode == "jump":
                jc[self.max_jump :] += bound_counts[row]
        self.jump = np.maximum(jc / jc.sum(), 1e-12)
        own[:, 0] = 0.0
        own = np.maximum(own / np.maximum(own.sum(axis=1, keepdims=True), 1e-300), 1e-12)
        self.bounds = _boundary_tables(self.start, self.end, self.jump, own)

    def table(self) -> _Direction:
        keep = (self.prob >= self.prune) | (self.keys // self.size == NULL_ID)
        return _Direction(self.keys[keep].copy(), self.prob[keep].copy())


def _boundary_tables(start: str, end: str, jump: F64, learned: F64) -> F64:
    """The ``bounds`` of :func:`transitions` (``(2, max_jump + 1)``): weights of the first
    position by its distance from −1 (row 0) and of the last by its distance from ``I`` (row
    1). ``"jump"`` takes them from the jump table (a jump of that width), ``"learned"`` from
    ``learned`` (their own tables), ``"uniform"`` (start) and ``"none"`` (end) are constant."""
    max_jump = (jump.size - 1) // 2
    out = np.ones((2, max_jump + 1))
    for row, mode in enumerate((start, end)):
        if mode == "jump":
            out[row] = jump[max_jump:]
        elif mode == "learned":
            out[row] = learned[row]
    return out


def _agreed_share(stats: F64) -> float:
    """``2 Σ q / (Σ p_st + Σ p_ts)`` over the training pairs (:func:`agree`): the share of the
    directional word-word link mass on which the two directions agree, in ``[0, 1]``."""
    total = stats[1] + stats[2]
    return float(2.0 * stats[0] / total) if total > 0 else 0.0


class EMAligner(Aligner):
    """IBM Model 1 + HMM in both directions, symmetrized: the intersection's links sure and, with
    ``possible="grow-diag-final"``, grow-diag-final's others possible (off by default: as a
    prefill they cost annotators more corrections than they save)."""

    name = "em"
    version = 1
    needs_training = True
    options_class = EMOptions
    options: EMOptions

    def __init__(self, options: EMOptions | None = None) -> None:
        super().__init__(options)
        self.vocab: dict[str, int] = {}
        self.directions: list[_Direction] = []
        self.jumps: list[F64] = []
        self.bounds: list[F64] = []
        self.identity_prob: list[float] = []
        self.p_null: list[float] = []
        self.log: dict[str, Any] = {}
        self._lexical: LexicalAligner | None = None

    # --- training -----------------------------------------------------------------------------

    def _norm(self, word: str) -> str:
        return word.lower() if self.options.lowercase else word

    def _train(self, pairs: Sequence[TokenPair], gold: Sequence[Alignment | None] | None) -> None:
        o = self.options
        started = time.perf_counter()
        vocab: dict[str, int] = {"<NULL>": NULL_ID}
        src_ids: list[I64] = []
        tgt_ids: list[I64] = []
        for source, target in pairs:
            src_ids.append(
                np.array([vocab.setdefault(self._norm(w), len(vocab)) for w in source], np.int64)
            )
            tgt_ids.append(
                np.array([vocab.setdefault(self._norm(w), len(vocab)) for w in target], np.int64)
            )
        weights = np.ones(len(pairs))
        # The alignment model (jumps, start, end, empty word) learns from the corpus pairs only.
        align_weights = np.ones(len(pairs))
        if o.identity_weight > 0:
            # Quirk et al. (2004): every word type, paired with itself, as extra training data.
            words = np.arange(1, len(vocab), dtype=np.int64)
            src_ids.extend(words[k : k + 1] for k in range(words.size))
            tgt_ids.extend(words[k : k + 1] for k in range(words.size))
            weights = np.concatenate([weights, np.full(words.size, o.identity_weight)])
            align_weights = np.concatenate([align_weights, np.zeros(words.size)])
        size = len(vocab)
        # Direction 0 generates the target words from the source words, direction 1 the reverse.
        runs = (
            _DirectionRun(src_ids, tgt_ids, size, o, self._layout_report(0, len(pairs))),
            _DirectionRun(tgt_ids, src_ids, size, o, self._layout_report(1, len(pairs))),
        )
        st, ts = runs
        agreement = o.training == "agreement"
        agreement_log: dict[str, list[float]] = {"model1": [], "hmm": []}
        max_jump = o.max_jump
        smooth = o.jump_smoothing
        lls: tuple[float, float]
        total = o.model1_iterations + o.hmm_iterations
        self.report_progress(0.0, f"EM on {len(pairs)} pairs, {size - 1} words")
        for iteration in range(o.model1_iterations):
            counts = [np.zeros_like(run.prob) for run in runs]
            stats = np.zeros(3)
            lls = (0.0, 0.0)
            stage = f"IBM Model 1 iteration {iteration + 1} of {o.model1_iterations}"
            for a, b in self._chunks(len(weights), len(pairs), iteration, total, stage):
                if agreement:
                    lls = model1_agreement_estep(
                        st.cond_len[a:b],
                        st.gen_len[a:b],
                        st.cells,
                        st.cell_off[a : b + 1],
                        ts.cells,
                        ts.cell_off[a : b + 1],
                        weights[a:b],
                        st.prob,
                        ts.prob,
                        counts[0],
                        counts[1],
                        stats,
                        lls,
                    )
                else:
                    ll_st, ll_ts = (
                        model1_estep(
                            run.cond_len[a:b],
                            run.gen_len[a:b],
                            run.cells,
                            run.cell_off[a : b + 1],
                            weights[a:b],
                            run.prob,
                            c,
                            ll,
                        )
                        for run, c, ll in zip(runs, counts, lls, strict=True)
                    )
                    lls = (ll_st, ll_ts)
            if agreement:
                agreement_log["model1"].append(_agreed_share(stats))
            for run, c, ll in zip(runs, counts, lls, strict=True):
                run.model1_ll.append(ll)
                run.prob = run.normalize(c)
            self.report_progress((iteration + 1) / total, f"{stage} done")
        for iteration in range(o.hmm_iterations):
            counts = [np.zeros_like(run.prob) for run in runs]
            jump_counts = [np.zeros_like(run.jump) for run in runs]
            bound_counts = [np.zeros_like(run.bounds) for run in runs]
            null_counts = [np.zeros(2) for _ in runs]
            stats = np.zeros(3)
            lls = (0.0, 0.0)
            stage = f"HMM iteration {iteration + 1} of {o.hmm_iterations}"
            done = o.model1_iterations + iteration
            for a, b in self._chunks(len(weights), len(pairs), done, total, stage):
                if agreement:
                    lls = hmm_agreement_estep(
                        (
                            st.cond_len[a:b],
                            st.gen_len[a:b],
                            st.cells,
                            st.cell_off[a : b + 1],
                            ts.cells,
                            ts.cell_off[a : b + 1],
                            weights[a:b],
                            align_weights[a:b],
                        ),
                        (st.prob, st.jump, st.bounds, st.p0),
                        (ts.prob, ts.jump, ts.bounds, ts.p0),
                        (max_jump, smooth),
                        (counts[0], jump_counts[0], bound_counts[0], null_counts[0]),
                        (counts[1], jump_counts[1], bound_counts[1], null_counts[1]),
                        stats,
                        lls,
                    )
                else:
                    ll_st, ll_ts = (
                        hmm_estep(
                            run.cond_len[a:b],
                            run.gen_len[a:b],
                            run.cells,
                            run.cell_off[a : b + 1],
                            weights[a:b],
                            align_weights[a:b],
                            run.prob,
                            run.jump,
                            run.bounds,
                            (max_jump, smooth),
                            run.p0,
                            c,
                            jc,
                            bc,
                            nc,
                            ll,
                        )
                        for run, c, jc, bc, nc, ll in zip(
                            runs, counts, jump_counts, bound_counts, null_counts, lls, strict=True
                        )
                    )
                    lls = (ll_st, ll_ts)
            if agreement:
                agreement_log["hmm"].append(_agreed_share(stats))
            for run, c, jc, bc, nc, ll in zip(
                runs, counts, jump_counts, bound_counts, null_counts, lls, strict=True
            ):
                run.hmm_ll.append(ll)
                run.p0_log.append(run.p0)
                run.prob = run.normalize(c)
                run.update_alignment(jc, bc)
                if o.learn_null:
                    run.p0 = float(np.clip(nc[0] / nc[1], 0.01, 0.95))
            self.report_progress((o.model1_iterations + iteration + 1) / total, f"{stage} done")
        self.vocab = vocab
        self.directions = [run.table() for run in runs]
        self.jumps = [run.jump for run in runs]
        self.bounds = [run.bounds for run in runs]
        self.identity_prob = [self._median_identity(table, size) for table in self.directions]
        self.p_null = [run.p0 for run in runs]
        log: dict[str, Any] = {
            "pairs": len(pairs),
            "vocabulary": size - 1,
            "directions": [
                {
                    "model1_log_likelihood": run.model1_ll,
                    "hmm_log_likelihood": run.hmm_ll,
                    "p_null": run.p0_log,
                }
                for run in runs
            ],
        }
        if agreement:
            log["agreed_share"] = agreement_log
        log["seconds"] = time.perf_counter() - started
        self.log = log

    def _layout_report(self, direction: int, n_corpus: int) -> Callable[[float], None]:
        def report(share: float) -> None:
            self.report_progress(
                0.0, f"laying out {n_corpus:,} pairs, direction {direction + 1} of 2: {share:.0%}"
            )

        return report

    def _chunks(
        self, n: int, n_corpus: int, done: int, total: int, stage: str
    ) -> Iterator[tuple[int, int]]:
        """Consecutive pair ranges ``[a, b)`` of one E-step over ``n`` training pairs (the
        ``n_corpus`` corpus pairs, then the identity pairs), each sized to take about
        :data:`CHUNK_SECONDS` from the time the one before took. After each, once the caller
        has run it, the training's progress is reported (``done`` of ``total`` iterations
        before this one): where a cancelled job stops. The counts add up pair by pair in the
        same order as in one range, so the model is the same, bit for bit."""
        size = FIRST_CHUNK
        a = 0
        while a < n:
            b = min(n, a + size)
            began = time.perf_counter()
            yield a, b
            took = time.perf_counter() - began
            size = max(1, min(2 * size, round(size * CHUNK_SECONDS / max(took, 1e-9))))
            shown = min(b, n_corpus)
            self.report_progress(
                (done + b / n) / total, f"{stage}: {shown:,} of {n_corpus:,} pairs"
            )
            a = b

    def lexicon(self, direction: int = 0) -> dict[tuple[str, str], float]:
        """The learned ``t(f | e)`` as ``{(e, f): probability}``; direction 0 generates target
        words from source words, 1 the reverse; the empty word is ``"<NULL>"``."""
        if direction not in (0, 1) or not self.directions:
            raise ModelError("lexicon(direction) needs a trained model and direction 0 or 1")
        words = sorted(self.vocab, key=self.vocab.__getitem__)
        size = len(words)
        table = self.directions[direction]
        e, f = np.divmod(table.keys, size)
        return {
            (words[a], words[b]): float(p)
            for a, b, p in zip(e.tolist(), f.tolist(), table.prob.tolist(), strict=True)
        }

    @staticmethod
    def _median_identity(table: _Direction, size: int) -> float:
        e, f = np.divmod(table.keys, size)
        same = (e == f) & (e != NULL_ID)
        return float(np.median(table.prob[same])) if same.any() else 0.5

    # --- alignment ----------------------------------------------------------------------------

    def _lookup(self, direction: int, cond: I64, gen: I64) -> tuple[F64, F64]:
        """Emission matrix ``(J, I)`` and empty-word column ``(J,)`` for one direction."""
        size = len(self.vocab)
        table = self.directions[direction]
        with_null = np.append(cond, NULL_ID)
        keys = with_null[None, :] * size + gen[:, None]
        pos = np.searchsorted(table.keys, keys)
        pos = np.minimum(pos, table.keys.size - 1)
        known = (with_null[None, :] >= 0) & (gen[:, None] >= 0)
        found = known & (table.keys[pos] == keys)
        values = np.where(found, table.prob[pos], self.options.floor)
        unseen_same = ~found & (with_null[None, :] == gen[:, None])
        values = np.where(unseen_same, self.identity_prob[direction], values)
        return np.ascontiguousarray(values[:, :-1]), np.ascontiguousarray(values[:, -1])

    def _ids(self, words: list[str], unknown_start: dict[str, int]) -> I64:
        out = np.empty(len(words), dtype=np.int64)
        for k, w in enumerate(words):
            key = self._norm(w)
            idx = self.vocab.get(key)
            if idx is None:
                # Unknown words get negative ids, equal for equal words, so identity still holds.
                idx = unknown_start.setdefault(key, -1 - len(unknown_start))
            out[k] = idx
        return out

    def directional(self, source: list[str], target: list[str]) -> tuple[F64, F64, I8, I8]:
        """Posteriors and decoded links of both directions for one pair.

        Returns ``post_st`` ``(N, M)`` (target word generated from source word), ``post_ts``
        ``(N, M)`` (the reverse direction, transposed) and the two directional link matrices.
        """
        unknown: dict[str, int] = {}
        s = self._ids(source, unknown)
        t = self._ids(target, unknown)
        n, m = len(s), len(t)
        posts: list[F64] = []
        links: list[I8] = []
        for direction, (cond, gen) in enumerate(((s, t), (t, s))):
            emit, emit_null = self._lookup(direction, cond, gen)
            post, post_null, path = posteriors(
                emit,
                emit_null,
                self.jumps[direction],
                self.bounds[direction],
                self.options.max_jump,
                self.options.jump_smoothing,
                self.p_null[direction],
            )
            mat = np.zeros((gen.size, cond.size), dtype=np.int8)
            if self.options.decode != "posterior":
                for j, i in enumerate(path.astype(np.int64)):
                    if i >= 0:
                        mat[j, i] = 1
            else:
                best = post.argmax(axis=1)
                for j, i in enumerate(best):
                    if post[j, i] > post_null[j] and post[j, i] >= 0.5:
                        mat[j, i] = 1
            if direction == 0:
                posts.append(post.T)
                links.append(np.ascontiguousarray(mat.T))
            else:
                posts.append(post)
                links.append(mat)
        assert posts[0].shape == (n, m)
        return posts[0], posts[1], links[0], links[1]

    def _align(self, source: list[str], target: list[str]) -> AlignerOutput:
        post_st, post_ts, fwd, bwd = self.directional(source, target)
        codes = grow_diag_final(fwd, bwd)
        if self.options.decode == "agreement":
            # Liang et al. (2006): sure = links whose product of posteriors reaches the threshold.
            codes[codes == 2] = 1
            codes[post_st * post_ts >= self.options.agreement_threshold] = 2
        if self.options.possible == "none":
            codes[codes == 1] = 0
        warnings: tuple[str, ...] = ()
        if self.options.lexical == "merge":
            lexical = self._lexical_aligner()
            classes = lexical.match_classes(source, target)
            codes = _merge_lexical(codes, classes)
            warnings = lexical.rules.warnings
        elif self.options.lexical in ("first", "first-sure"):
            lexical = self._lexical_aligner()
            classes = lexical.match_classes(source, target)
            codes = _lexical_first(codes, classes, self.options.lexical == "first")
            warnings = lexical.rules.warnings
        confidence_matrix = np.clip((post_st + post_ts) / 2.0, 0.0, 1.0)
        sure = [(int(i), int(j)) for i, j in np.argwhere(codes == 2)]
        possible = [(int(i), int(j)) for i, j in np.argwhere(codes == 1)]
        confidence = {link: float(confidence_matrix[link]) for link in sure + possible}
        return AlignerOutput(
            alignment=Alignment.from_links(len(source), len(target), sure, possible),
            confidence=confidence,
            warnings=warnings,
        )

    def _lexical_aligner(self) -> LexicalAligner:
        if self._lexical is None:
            self._lexical = LexicalAligner(LexicalOptions(ppdb=self.options.ppdb))
        return self._lexical

    # --- persistence --------------------------------------------------------------------------

    def _state(self) -> tuple[dict[str, Any], dict[str, npt.NDArray[Any]]]:
        words = sorted(self.vocab, key=self.vocab.__getitem__)
        state = {
            "vocabulary": words,
            "identity_prob": self.identity_prob,
            "p_null": self.p_null,
            "training": self.options.training,
            "log": self.log,
        }
        arrays: dict[str, npt.NDArray[Any]] = {}
        for k, (table, jump, bounds) in enumerate(
            zip(self.directions, self.jumps, self.bounds, strict=True)
        ):
            arrays[f"keys{k}"] = table.keys
            arrays[f"prob{k}"] = table.prob
            arrays[f"jump{k}"] = jump
            arrays[f"bounds{k}"] = bounds
        return state, arrays

    def _restore(self, state: dict[str, Any], arrays: dict[str, npt.NDArray[Any]]) -> None:
        try:
            words = state["vocabulary"]
            self.vocab = {w: k for k, w in enumerate(words)}
            self.identity_prob = [float(v) for v in state["identity_prob"]]
            self.p_null = [float(v) for v in state["p_null"]]
            self.log = dict(state.get("log", {}))
            # Models saved before the option existed were trained independently.
            self.options = dataclasses.replace(
                self.options, training=str(state.get("training", "independent"))
            )
            self.directions = [
                _Direction(
                    np.ascontiguousarray(arrays[f"keys{k}"], dtype=np.int64),
                    np.ascontiguousarray(arrays[f"prob{k}"], dtype=np.float64),
                )
                for k in range(2)
            ]
            self.jumps = [
                np.ascontiguousarray(arrays[f"jump{k}"], dtype=np.float64) for k in range(2)
            ]
            if "bounds0" in arrays:
                self.bounds = [
                    np.ascontiguousarray(arrays[f"bounds{k}"], dtype=np.float64) for k in range(2)
                ]
            else:
                # Models saved before the start and end tables: the start from the jump table
                # or uniform, no end factor.
                self.options = dataclasses.replace(self.options, end="none")
                self.bounds = [
                    _boundary_tables(self.options.start, "none", jump, np.ones((2, 1)))
                    for jump in self.jumps
                ]
        except KeyError as error:
            raise FormatError(
                "missing in the saved 'em' model", field=str(error.args[0])
            ) from error
        size = self.options.max_jump
        if (
            len(self.vocab) != len(words)
            or any(j.size != 2 * size + 1 for j in self.jumps)
            or any(b.shape != (2, size + 1) for b in self.bounds)
        ):
            raise FormatError(
                "saved 'em' model is inconsistent (vocabulary or jump table size)", field="state"
            )


def _lexical_first(codes: I8, classes: npt.NDArray[np.int8], em_possible: bool) -> I8:
    """The lexical aligner's links, then EM links between words it left unaligned: the
    intersection's as sure, grow-diag-final's as possible if ``em_possible``."""
    out = np.zeros_like(codes)
    for i, j, cls in greedy_one_to_one(classes):
        out[i, j] = 2 if cls >= STEM else 1
    src_free = np.logical_not((out > 0).any(axis=1))
    tgt_free = np.logical_not((out > 0).any(axis=0))
    for i, j in np.argwhere(codes > 0).tolist():
        if src_free[i] and tgt_free[j] and (codes[i, j] == 2 or em_possible):
            out[i, j] = codes[i, j]
    # Links added above may share a word with each other (GDF blocks); that is intended.
    return out


def _merge_lexical(codes: I8, classes: npt.NDArray[np.int8]) -> I8:
    """Add lexical matches between words the EM links leave unaligned (see module docstring)."""
    out = codes.copy()
    free = classes.copy()
    free[(codes > 0).any(axis=1), :] = 0
    free[:, (codes > 0).any(axis=0)] = 0
    for i, j, cls in greedy_one_to_one(free):
        out[i, j] = 2 if cls >= STEM else 1
    # An EM possible link that is also a sure lexical match becomes sure.
    out[(out == 1) & (classes >= STEM)] = 2
    return out
