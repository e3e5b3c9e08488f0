"""PERP's features (Heilman & Madnani 2012, Table 1) of a TERp alignment, and the kernels
that align under learned costs and compute them.

Features (index: name), per edit, before normalization:

- 0 Intercept; 1 Stemming (T); 2 Synonymy (Y); 3 Shift (Sh);
- 4–7 Paraphrase1–4 (P): 1, ``q·log10 p``, ``p·q``, ``q``;
- 8 Insertion, 9 Deletion, and shared by both: 10 Insert-Delete-LogFreq (``log10 freq(w)``),
  11 Insert-Delete-LogWordLen (``log10 len(w)``), 12–17 Insert-Delete-X;
- 18 Substitution, 19–24 Sub-X-Both, 25–30 Sub-X-1only, 31 Sub-LogFreq-Diff
  (``|log10 freq(w1) − log10 freq(w2)|``), 32 Sub-Contain (both > 5 characters, one a proper
  substring of the other), 33 Sub-Diff-By-NonWord (equal once non-alphanumerics are removed),
  34 Sub-Small-LevDist (both > 5 characters, character Levenshtein distance 1),
  35 Sub-Norm-LevDist (Levenshtein distance over the longer length);

where X is, in order, punctuation (no letter or digit), number (digits with ``. , : / -``
separators, optional sign and ``%``), personal pronoun (:data:`PERSONAL_PRONOUNS`), negation
(``no not never n't``), stop word, out-of-vocabulary. Matches fire nothing.

Stand-ins, because the paper's resources are not available here:

- Word frequencies: the paper counted the NYT part of English Gigaword 5 (words seen < 100 times
  were OOV). We use ``wordfreq`` (its large English list, a blend of web, subtitles, news,
  Wikipedia…) and call a word OOV when its frequency is below ``oov_frequency`` (1e-7, about 100
  occurrences in a billion-word corpus). As in the paper, the frequency and OOV features fire only
  for words made only of letters, and the frequency features not for OOV words.
- Stop words: the paper's list had 158 words and punctuation symbols, the size of TERp's shift
  stop-word list; pass that list (:func:`scoring.edit.terp.read_shift_stop_words`) to reproduce. The
  default is NLTK's English stop words plus ASCII punctuation. The same list is TERp's shift
  stop-word list here.
- Phrases: the paper used probabilities ``p`` from TERp's pivot paraphrase table. Without a table
  PERP runs "without phrases" (Heilman & Madnani 2012, Table 2, row PERP) and the four paraphrase
  features are 0.
  With a table (:class:`scoring.edit.terp.PhraseTable`), ``p`` is the table's probability clamped to
  ``[1e-4, 1]`` and ``q`` is TERp's unit-cost edit count between the two phrases (stem and synonym
  matches cost 1), independent of the learned weights.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
from numba import njit

from scoring import resources
from scoring.edit.distance import levenshtein
from scoring.edit.shifts import OP_DEL, OP_INS, OP_PHRASE, OP_STEM, OP_SUB, OP_SYNONYM
from scoring.edit.terp import PhraseEntry, TerpSegment
from scoring.edit.terp_search import terp_search
from scoring.progress import Progress, progress_report

F64 = npt.NDArray[np.float64]
I64 = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]
#: The arrays of :class:`PackedPairs`, in field order, as the kernels take them.
Packed = tuple[Any, ...]
#: TERp's search settings: beam width, shift size, shift distance, shifts on, shifts via phrases.
Search = tuple[float, int, int, bool, bool]

FEATURES: tuple[str, ...] = (
    "Intercept",
    "Stemming",
    "Synonymy",
    "Shift",
    "Paraphrase1",
    "Paraphrase2",
    "Paraphrase3",
    "Paraphrase4",
    "Insertion",
    "Deletion",
    "Insert-Delete-LogFreq",
    "Insert-Delete-LogWordLen",
    "Insert-Delete-Punctuation",
    "Insert-Delete-Number",
    "Insert-Delete-Pronoun",
    "Insert-Delete-Negation",
    "Insert-Delete-Stopword",
    "Insert-Delete-OOV",
    "Substitution",
    "Sub-Punctuation-Both",
    "Sub-Number-Both",
    "Sub-Pronoun-Both",
    "Sub-Negation-Both",
    "Sub-Stopword-Both",
    "Sub-OOV-Both",
    "Sub-Punctuation-1only",
    "Sub-Number-1only",
    "Sub-Pronoun-1only",
    "Sub-Negation-1only",
    "Sub-Stopword-1only",
    "Sub-OOV-1only",
    "Sub-LogFreq-Diff",
    "Sub-Contain",
    "Sub-Diff-By-NonWord",
    "Sub-Small-LevDist",
    "Sub-Norm-LevDist",
)
N_FEATURES = len(FEATURES)
assert N_FEATURES == 36
F_INTERCEPT, F_STEM, F_SYN, F_SHIFT, F_PARA = 0, 1, 2, 3, 4
F_INS, F_DEL, F_ID = 8, 9, 10  # F_ID..F_ID+7: LogFreq, LogWordLen, 6 word classes
F_SUB = 18  # F_SUB..35: Substitution and its 17 refinements
N_ID = 8
N_SUB = 18

PERSONAL_PRONOUNS = frozenset(
    {
        "i",
        "me",
        "my",
        "mine",
        "myself",
        "you",
        "your",
        "yours",
        "yourself",
        "yourselves",
        "he",
        "him",
        "his",
        "himself",
        "she",
        "her",
        "hers",
        "herself",
        "it",
        "its",
        "itself",
        "we",
        "us",
        "our",
        "ours",
        "ourselves",
        "they",
        "them",
        "their",
        "theirs",
        "themselves",
    }
)
NEGATIONS = frozenset({"no", "not", "never", "n't"})
_NUMBER = re.compile(r"[-+]?[\d.,:/-]*\d[\d.,:/-]*%?")
MIN_SHIFT_WEIGHT = 0.01

# --- word features -----------------------------------------------------------------------------


@functools.lru_cache(maxsize=500_000)
def _frequency(word: str) -> float:
    return resources.word_frequency(word)


class WordFeatures:
    """Per-word classes and frequencies (shared by insertions, deletions and substitutions)."""

    def __init__(self, stop_words: frozenset[str], oov_frequency: float) -> None:
        self.stop_words = stop_words
        self.oov_frequency = oov_frequency
        self._cache: dict[str, tuple[tuple[bool, ...], float | None]] = {}

    def classes(self, word: str) -> tuple[tuple[bool, ...], float | None]:
        """``(punct, number, pronoun, negation, stop, oov)`` and ``log10 freq`` (None when the
        frequency features do not fire: not all letters, or OOV)."""
        if word not in self._cache:
            alpha = word.isalpha()
            freq = _frequency(word) if alpha else 0.0
            oov = alpha and freq < self.oov_frequency
            flags = (
                not any(c.isalnum() for c in word),
                bool(_NUMBER.fullmatch(word)),
                word in PERSONAL_PRONOUNS,
                word in NEGATIONS,
                word in self.stop_words,
                oov,
            )
            log_freq = math.log10(freq) if alpha and not oov else None
            self._cache[word] = (flags, log_freq)
        return self._cache[word]

    def insert_delete(self, word: str) -> F64:
        """Features 10–17 of inserting or deleting ``word``."""
        flags, log_freq = self.classes(word)
        out = np.zeros(N_ID)
        out[0] = log_freq if log_freq is not None else 0.0
        out[1] = math.log10(len(word))
        out[2:] = flags
        return out

    def substitute(self, a: str, b: str) -> F64:
        """Features 18–35 of substituting ``a`` and ``b``."""
        fa, la = self.classes(a)
        fb, lb = self.classes(b)
        out = np.zeros(N_SUB)
        out[0] = 1.0
        for k in range(6):
            out[1 + k] = fa[k] and fb[k]
            out[7 + k] = fa[k] != fb[k]
        if la is not None and lb is not None:
            out[13] = abs(la - lb)
        long_words = len(a) > 5 and len(b) > 5
        out[14] = long_words and a != b and (a in b or b in a)
        strip_a = "".join(c for c in a if c.isalnum())
        strip_b = "".join(c for c in b if c.isalnum())
        out[15] = a != b and strip_a == strip_b
        dist = levenshtein(a, b)
        out[16] = long_words and dist == 1
        out[17] = dist / max(len(a), len(b), 1)
        return out


# --- packed pairs ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PackedPairs:
    """Every pair's TERp tables and edit features, concatenated for the numba kernels.

    Per pair ``k`` with ``H`` hypothesis and ``R`` reference words: ``hr_off[k]`` starts its
    ``H·R`` blocks (``eq``, ``stem``, ``syn``, ``shift_eq`` flat; ``sub`` flat ``H·R·18``),
    ``h_off``/``r_off`` its hypothesis/reference rows (``id_h``/``id_r`` ``(·, 8)`` features of
    inserting/deleting each word, stop flags, hypothesis word ids), ``rf_off`` its ``R + 1``
    phrase-row starts ``ph_first`` (pair-local), ``ph_off`` its phrase rows (``ph_rlen``,
    ``ph_hlen``, ``ph_hstart`` into ``ph_ids``, ``ph_feat`` ``(·, 3)`` = ``q·log10 p, p·q, q``).
    ``norm`` is ``|x1| + |x2|``.
    """

    n_hyp: I64
    n_ref: I64
    hr_off: I64
    h_off: I64
    r_off: I64
    rf_off: I64
    ph_off: I64
    eq: BoolArray
    stem: BoolArray
    syn: BoolArray
    shift_eq: BoolArray
    sub: F64
    id_h: F64
    id_r: F64
    hyp_stop: BoolArray
    ref_stop: BoolArray
    hyp_ids: I64
    ph_first: I64
    ph_rlen: I64
    ph_hlen: I64
    ph_hstart: I64
    ph_ids: I64
    ph_feat: F64
    norm: F64

    def __len__(self) -> int:
        return int(self.n_hyp.shape[0])


def pack_pairs(
    segments: Sequence[TerpSegment],
    words: WordFeatures,
    phrase_q: Callable[[PhraseEntry], float],
    relax: bool,
) -> PackedPairs:
    n = len(segments)
    n_hyp = np.array([len(s.hyp) for s in segments], np.int64)
    n_ref = np.array([len(s.ref) for s in segments], np.int64)
    hr = n_hyp * n_ref
    hr_off = np.concatenate([[0], np.cumsum(hr)]).astype(np.int64)
    h_off = np.concatenate([[0], np.cumsum(n_hyp)]).astype(np.int64)
    r_off = np.concatenate([[0], np.cumsum(n_ref)]).astype(np.int64)
    rf_off = np.concatenate([[0], np.cumsum(n_ref + 1)]).astype(np.int64)
    n_rows = np.array([len(s.phrases) for s in segments], np.int64)
    ph_off = np.concatenate([[0], np.cumsum(n_rows)]).astype(np.int64)
    sub_cache: dict[tuple[str, str], F64] = {}
    id_cache: dict[str, F64] = {}

    def id_feats(word: str) -> F64:
        if word not in id_cache:
            id_cache[word] = words.insert_delete(word)
        return id_cache[word]

    subs: list[F64] = []
    id_h: list[F64] = []
    id_r: list[F64] = []
    ph_first: list[I64] = []
    ph_ids: list[I64] = []
    ph_hstart: list[int] = []
    ph_feat: list[tuple[float, float, float]] = []
    id_base = 0
    for seg in segments:
        block = np.empty((len(seg.hyp), len(seg.ref), N_SUB))
        for a, wa in enumerate(seg.hyp):
            for b, wb in enumerate(seg.ref):
                key = (wa, wb)
                if key not in sub_cache:
                    sub_cache[key] = words.substitute(wa, wb)
                block[a, b] = sub_cache[key]
        subs.append(block.reshape(-1))
        id_h.extend(id_feats(w) for w in seg.hyp)
        id_r.extend(id_feats(w) for w in seg.ref)
        rows = seg.phrases
        ph_first.append(
            np.searchsorted(rows[:, 0], np.arange(len(seg.ref) + 1), side="left").astype(np.int64)
        )
        for k, entry in enumerate(seg.phrase_entries):
            start = seg.phrase_hyp_off[k]
            ph_hstart.append(id_base + int(start))
            p = min(max(entry.prob, 1e-4), 1.0)
            q = phrase_q(entry)
            ph_feat.append((q * math.log10(p), p * q, q))
        ph_ids.append(seg.phrase_hyp_ids)
        id_base += len(seg.phrase_hyp_ids)

    def cat(parts: Sequence[npt.NDArray[Any]], dtype: Any, width: int = 0) -> npt.NDArray[Any]:
        if not parts:
            return np.zeros((0, width) if width else 0, dtype)
        return np.ascontiguousarray(np.concatenate(parts), dtype=dtype)

    rows_all = [s.phrases for s in segments]
    return (
        PackedPairs(
            n_hyp=n_hyp,
            n_ref=n_ref,
            hr_off=hr_off,
            h_off=h_off,
            r_off=r_off,
            rf_off=rf_off,
            ph_off=ph_off,
            eq=cat([s.eq.reshape(-1) for s in segments], np.bool_),
            stem=cat([s.stem.reshape(-1) for s in segments], np.bool_),
            syn=cat([s.syn.reshape(-1) for s in segments], np.bool_),
            shift_eq=cat(
                [(s.eq | ((s.stem | s.syn) & relax)).reshape(-1) for s in segments], np.bool_
            ),
            sub=cat(subs, np.float64),
            id_h=np.ascontiguousarray(np.array(id_h, np.float64).reshape(-1, N_ID)),
            id_r=np.ascontiguousarray(np.array(id_r, np.float64).reshape(-1, N_ID)),
            hyp_stop=cat([s.hyp_stop for s in segments], np.bool_),
            ref_stop=cat([s.ref_stop for s in segments], np.bool_),
            hyp_ids=cat([s.hyp_ids for s in segments], np.int64),
            ph_first=cat(ph_first, np.int64),
            ph_rlen=cat([r[:, 1] for r in rows_all], np.int64),
            ph_hlen=cat([r[:, 2] for r in rows_all], np.int64),
            ph_hstart=np.array(ph_hstart, np.int64),
            ph_ids=cat(ph_ids, np.int64),
            ph_feat=np.ascontiguousarray(np.array(ph_feat, np.float64).reshape(-1, 3)),
            norm=np.maximum(n_hyp + n_ref, 1).astype(np.float64),
        )
        if n
        else empty_pack()
    )


def empty_pack() -> PackedPairs:
    z = np.zeros(1, np.int64)
    e = np.zeros(0, np.int64)
    b = np.zeros(0, np.bool_)
    f = np.zeros(0)
    return PackedPairs(
        e,
        e,
        z,
        z,
        z,
        z,
        z,
        b,
        b,
        b,
        b,
        f,
        np.zeros((0, N_ID)),
        np.zeros((0, N_ID)),
        b,
        b,
        e,
        e,
        e,
        e,
        e,
        e,
        np.zeros((0, 3)),
        f,
    )


# --- kernels -----------------------------------------------------------------------------------


@njit(cache=True)
def _pair_features(
    k: int,
    w: F64,
    packed: Packed,
    search: Search,
    out: F64,
) -> None:
    """TERp-align pair ``k`` under the costs ``w`` implies and write its normalized Table 1
    feature vector ``f(a)`` (36,) to ``out`` (Heilman & Madnani 2012, §4)."""
    (
        n_hyp,
        n_ref,
        hr_off,
        h_off,
        r_off,
        rf_off,
        ph_off,
        eq,
        stem,
        syn,
        shift_eq,
        sub,
        id_h,
        id_r,
        hyp_stop,
        ref_stop,
        hyp_ids,
        ph_first,
        ph_rlen,
        ph_hlen,
        ph_hstart,
        ph_ids,
        ph_feat,
        norm,
    ) = packed
    beam, max_size, max_dist, do_shifts, shift_phrases = search
    nh = n_hyp[k]
    nr = n_ref[k]
    for c in range(out.shape[0]):
        out[c] = 0.0
    out[F_INTERCEPT] = 1.0
    ho = h_off[k]
    ro = r_off[k]
    if nh == 0 or nr == 0:
        for a in range(nh):
            out[F_INS] += 1.0
            for c in range(N_ID):
                out[F_ID + c] += id_h[ho + a, c]
        for b in range(nr):
            out[F_DEL] += 1.0
            for c in range(N_ID):
                out[F_ID + c] += id_r[ro + b, c]
        for c in range(1, out.shape[0]):
            out[c] /= norm[k]
        return
    o = hr_off[k]
    size = nh * nr
    eq_k = eq[o : o + size].reshape((nh, nr))
    stem_k = stem[o : o + size].reshape((nh, nr))
    syn_k = syn[o : o + size].reshape((nh, nr))
    shift_k = shift_eq[o : o + size].reshape((nh, nr))
    sub_k = sub[o * N_SUB : (o + size) * N_SUB].reshape((nh, nr, N_SUB))
    sub_cost = np.empty((nh, nr))
    for a in range(nh):
        for b in range(nr):
            s = 0.0
            for c in range(N_SUB):
                s += w[F_SUB + c] * sub_k[a, b, c]
            sub_cost[a, b] = s
    ins_cost = np.empty(nh)
    for a in range(nh):
        s = w[F_INS]
        for c in range(N_ID):
            s += w[F_ID + c] * id_h[ho + a, c]
        ins_cost[a] = s
    del_cost = np.empty(nr)
    for b in range(nr):
        s = w[F_DEL]
        for c in range(N_ID):
            s += w[F_ID + c] * id_r[ro + b, c]
        del_cost[b] = s
    po = ph_off[k]
    n_rows = ph_off[k + 1] - po
    ph_cost = np.empty(n_rows)
    for e in range(n_rows):
        ph_cost[e] = (
            w[F_PARA]
            + w[F_PARA + 1] * ph_feat[po + e, 0]
            + w[F_PARA + 2] * ph_feat[po + e, 1]
            + w[F_PARA + 3] * ph_feat[po + e, 2]
        )
    shift_cost = w[F_SHIFT] if w[F_SHIFT] > MIN_SHIFT_WEIGHT else MIN_SHIFT_WEIGHT
    result = terp_search(
        nr,
        (eq_k, stem_k, syn_k),
        shift_k,
        (sub_cost, ins_cost, del_cost, 0.0, w[F_STEM], w[F_SYN], shift_cost),
        (hyp_stop[ho : ho + nh], ref_stop[ro : ro + nr]),
        (beam, max_size, max_dist, do_shifts, shift_phrases and n_rows > 0),
        (
            hyp_ids[ho : ho + nh],
            ph_rlen[po : po + n_rows],
            ph_hlen[po : po + n_rows],
            ph_first[rf_off[k] : rf_off[k + 1]],
            ph_hstart[po : po + n_rows],
            ph_ids,
            ph_cost,
        ),
    )
    perm = result[1]
    path = result[2]
    path_hl = result[4]
    path_rl = result[3]
    path_ph = result[5]
    path_len = result[6]
    out[F_SHIFT] = float(result[8])
    hpos = 0
    rpos = 0
    for t in range(path_len):
        op = path[t]
        if op == OP_INS:
            a = perm[hpos]
            out[F_INS] += 1.0
            for c in range(N_ID):
                out[F_ID + c] += id_h[ho + a, c]
        elif op == OP_DEL:
            out[F_DEL] += 1.0
            for c in range(N_ID):
                out[F_ID + c] += id_r[ro + rpos, c]
        elif op == OP_SUB:
            a = perm[hpos]
            for c in range(N_SUB):
                out[F_SUB + c] += sub_k[a, rpos, c]
        elif op == OP_STEM:
            out[F_STEM] += 1.0
        elif op == OP_SYNONYM:
            out[F_SYN] += 1.0
        elif op == OP_PHRASE:
            e = path_ph[t]
            out[F_PARA] += 1.0
            for c in range(3):
                out[F_PARA + 1 + c] += ph_feat[po + e, c]
        hpos += path_hl[t]
        rpos += path_rl[t]
    for c in range(1, out.shape[0]):
        out[c] /= norm[k]


@njit(cache=True)
def _train(
    orders: I64,
    targets: F64,
    w: F64,
    wsum: F64,
    alpha: float,
    packed: Packed,
    search: Search,
    losses: F64,
) -> None:
    """Heilman & Madnani 2012, Algorithm 1 over the epochs' visiting ``orders`` ``(T, N)``;
    updates ``w`` in place, adds it to ``wsum`` after every update and writes each epoch's mean
    squared error (before each update) to ``losses``."""
    n_epochs = orders.shape[0]
    n = orders.shape[1]
    f = np.empty_like(w)
    for t in range(n_epochs):
        sq = 0.0
        for step in range(n):
            k = orders[t, step]
            _pair_features(
                k,
                w,
                packed,
                search,
                f,
            )
            pred = 0.0
            for c in range(w.shape[0]):
                pred += w[c] * f[c]
            err = targets[k] - pred
            sq += err * err
            for c in range(w.shape[0]):
                w[c] += alpha * err * f[c]
            if w[F_SHIFT] < MIN_SHIFT_WEIGHT:
                w[F_SHIFT] = MIN_SHIFT_WEIGHT
            for c in range(w.shape[0]):
                wsum[c] += w[c]
        losses[t] = sq / n


@njit(cache=True)
def _features_all(
    w: F64,
    packed: Packed,
    search: Search,
    out: F64,
) -> None:
    """``f(a)`` of every pair aligned under ``w``: ``out`` ``(N, 36)``."""
    for k in range(out.shape[0]):
        _pair_features(
            k,
            w,
            packed,
            search,
            out[k],
        )


def perceptron_train(
    orders: I64,
    targets: F64,
    w: F64,
    alpha: float,
    packed: PackedPairs,
    search: Search,
    losses: F64,
    progress: Progress | None = None,
) -> F64:
    """Heilman & Madnani 2012, Algorithm 1 on packed pairs (see :func:`_train`), one epoch a
    kernel call so that ``progress`` hears of each; returns the averaged weights."""
    train: Any = _train  # a numba dispatcher: numba checks its arguments
    arrays = packed_arrays(packed)
    wsum = np.zeros_like(w)
    epochs = orders.shape[0]
    for t in range(epochs):
        train(orders[t : t + 1], targets, w, wsum, alpha, arrays, search, losses[t : t + 1])
        stage = f"epoch {t + 1} of {epochs}, mean squared error {losses[t]:.4g}"
        progress_report(progress, (t + 1) / epochs, stage)
    return np.asarray(wsum / (epochs * orders.shape[1]))


def features_all(w: F64, packed: PackedPairs, search: Search) -> F64:
    """``f(a)`` ``(N, 36)`` of every packed pair aligned under the costs ``w`` implies."""
    out = np.zeros((len(packed), N_FEATURES))
    if len(packed):
        kernel: Any = _features_all
        kernel(np.ascontiguousarray(w), packed_arrays(packed), search, out)
    return out


def packed_arrays(p: PackedPairs) -> Packed:
    """The arrays of :class:`PackedPairs` as the one tuple the kernels take."""
    return (
        p.n_hyp,
        p.n_ref,
        p.hr_off,
        p.h_off,
        p.r_off,
        p.rf_off,
        p.ph_off,
        p.eq,
        p.stem,
        p.syn,
        p.shift_eq,
        p.sub,
        p.id_h,
        p.id_r,
        p.hyp_stop,
        p.ref_stop,
        p.hyp_ids,
        p.ph_first,
        p.ph_rlen,
        p.ph_hlen,
        p.ph_hstart,
        p.ph_ids,
        p.ph_feat,
        p.norm,
    )
