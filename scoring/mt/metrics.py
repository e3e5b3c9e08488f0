"""Sentence-level MT metrics as paraphrase features: BLEU, NIST, WER, PER (Finch, Hwang & Sumita
2005, §2).

Finch, Hwang & Sumita (2005) score a sentence pair with MT evaluation metrics, one sentence as the
"system output" ``s`` and the other as the single reference ``r``, in both directions, and average
the two. The metrics, as computed here:

- **BLEU-n** (§2.3), n = 1…4: mteval-v13a's segment BLEU, i.e. the geometric mean of the clipped
  n-gram precisions with mteval's smoothing (a precision with no match counts as
  ``1 / (2^k · count)``, ``k`` = 1, 2, … for each successive such order; an order longer than
  the segment counts as precision 1) times the brevity penalty ``exp(min(0, 1 − |r|/|s|))``.
  The seed omits the brevity penalty: ``brevity_penalty=False``. ``smoothing="none"`` gives
  mteval's ``--no-smoothing`` figures.
- **NIST-n** (§2.4), n = 1…5: mteval's ``Σ_n Σ_matched info(w1…wn) / #n-grams(s)`` times its
  length penalty ``exp(−β log²(min(|s|/|r|, 1)))`` with ``β`` chosen so a length ratio of 2/3
  scores 0.5. ``info(w1…wn) = log2(count(w1…wn−1) / count(w1…wn))`` over the *whole reference
  set* (unigrams: over the total number of reference words), as mteval computes it — not over
  each segment's own reference as nltk's ``sentence_nist`` does.
- **WER** (§2.1): word Levenshtein distance ``(I + D + S) / |r|``.
- **PER** (§2.2): ``max(diff(s, r), diff(r, s)) / |r|``, ``diff(s, r)`` the number of words of
  ``s`` (as a bag) that ``r`` does not have.

Two stages, as sacrebleu's: :func:`ngram_stats` gives per-segment sufficient statistics
(:class:`NgramStats`: lengths, n-gram counts, clipped matches, information-weighted matches) with
numba kernels; :func:`bleu`, :func:`nist` turn statistics into scores, per segment or, after
:meth:`NgramStats.total`, for a whole system exactly as mteval's system score. Text goes through
:func:`tokenize_13a`, mteval-v13a's own tokenization (case kept, as with its ``-c`` flag, unless
``lowercase=True``); :func:`read_mteval_sgml` reads mteval's SGML files.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt
from numba import njit

from scoring.edit.distance import levenshtein
from scoring.errors import FormatError, InputError, UndefinedError

F64 = npt.NDArray[np.float64]
I64 = npt.NDArray[np.int64]

MAX_ORDER = 5  # statistics are kept up to 5-grams: BLEU uses 1…4, NIST 1…5
BLEU_ORDERS = (1, 2, 3, 4)
NIST_ORDERS = (1, 2, 3, 4, 5)


# --- mteval-v13a tokenization ------------------------------------------------------------------

# Perl's \s on character strings (mteval reads its files as UTF-8).
_PERL_SPACE = "\t\n\x0b\f\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
_PERL_SPACES = re.compile(f"[{_PERL_SPACE}]+")
_PUNCT = re.compile(r"([{-~\[-` -&(-+:-@/])")  # ASCII punctuation except ' - . ,
_PERIOD_AFTER = re.compile(r"([^0-9])([.,])")
_PERIOD_BEFORE = re.compile(r"([.,])([^0-9])")
_DASH = re.compile(r"([0-9])(-)")
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def tokenize_13a(text: str, *, lowercase: bool = False) -> list[str]:
    """mteval-v13a's default ``tokenization``: entities decoded, ASCII punctuation split off
    (periods and commas only when not between digits, dashes after a digit), whitespace
    collapsed. Case is kept (mteval's ``-c``) unless ``lowercase`` (mteval's ``tr/A-Z/a-z/``,
    ASCII only)."""
    if not isinstance(text, str):
        raise InputError(f"a segment must be a string, got {type(text).__name__}")
    t = text.replace("<skipped>", "").replace("-\n", "").replace("\n", " ")
    t = t.replace("&quot;", '"').replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">")
    t = f" {t} "
    if lowercase:
        t = t.translate(_ASCII_LOWER)
    t = _PUNCT.sub(r" \1 ", t)
    t = _PERIOD_AFTER.sub(r"\1 \2 ", t)
    t = _PERIOD_BEFORE.sub(r" \1 \2", t)
    t = _DASH.sub(r"\1 \2 ", t)
    t = _PERL_SPACES.sub(" ", t).strip(" ")
    return t.split(" ") if t else []


# --- mteval SGML -------------------------------------------------------------------------------

_SET_TAG = re.compile(r"<(srcset|refset|tstset)\b([^>]*)>(.*?)</\1\s*>", re.I | re.S)
_DOC_TAG = re.compile(r"<doc\b([^>]*)>(.*?)</doc\s*>", re.I | re.S)
_SEG_TAG = re.compile(r"<seg\b([^>]*)>(.*?)</seg\s*>", re.I | re.S)


def _attribute(tag: str, name: str) -> str | None:
    m = re.search(name + r'\s*=\s*"?([^"]*)"?', tag, re.I | re.S)
    return m.group(1) if m else None


@dataclass(frozen=True, slots=True)
class SgmlSegment:
    """One ``<seg>`` of an mteval SGML file: its document and segment ids and raw text."""

    doc_id: str
    seg_id: str
    text: str
    line: int


def read_mteval_sgml(path: str | Path) -> list[SgmlSegment]:
    """The segments of an mteval SGML file (``srcset``/``refset``/``tstset``), in file order.

    Parsed as mteval-v13a does: tags case-insensitive, whitespace runs inside a document joined
    to one space. Raises :class:`~scoring.errors.FormatError` naming the file, line and field.
    """
    p = Path(path)
    try:
        data = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise FormatError(f"cannot read the SGML file: {error}", path=p) from error

    def line_of(pos: int) -> int:
        return data.count("\n", 0, pos) + 1

    sets = list(_SET_TAG.finditer(data))
    if not sets:
        raise FormatError("no <srcset>, <refset> or <tstset> element", path=p, line=1, field="set")
    out: list[SgmlSegment] = []
    for s in sets:
        body_start = s.start(3)
        for d in _DOC_TAG.finditer(s.group(3)):
            doc_id = _attribute(d.group(1), "docid")
            if not doc_id:
                raise FormatError(
                    "a <doc> has no docid",
                    path=p,
                    line=line_of(body_start + d.start()),
                    field="docid",
                )
            segs = list(_SEG_TAG.finditer(d.group(2)))
            if not segs:
                raise FormatError(
                    f"document '{doc_id}' has no <seg>",
                    path=p,
                    line=line_of(body_start + d.start()),
                    field="seg",
                )
            for g in segs:
                pos = body_start + d.start(2) + g.start()
                seg_id = _attribute(g.group(1), "id")
                if not seg_id:
                    raise FormatError("a <seg> has no id", path=p, line=line_of(pos), field="id")
                text = _PERL_SPACES.sub(" ", g.group(2))
                out.append(SgmlSegment(doc_id, seg_id, text, line_of(pos)))
    if not out:
        raise FormatError("no <doc> element", path=p, line=line_of(sets[0].start()), field="doc")
    return out


# --- stage 1: n-gram statistics ----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class NgramStats:
    """Per-segment sufficient statistics of mteval's BLEU and NIST (one reference each).

    ``hyp_len``/``ref_len`` int64 ``(N,)`` words; ``hyp_ngrams``, ``ref_ngrams``, ``matches``
    int64 ``(N, K)`` for orders 1…K: n-grams in the hypothesis, in the reference, and clipped
    matches; ``info`` float64 ``(N, K)``: matches weighted by their information (bits).
    """

    hyp_len: I64
    ref_len: I64
    hyp_ngrams: I64
    ref_ngrams: I64
    matches: I64
    info: F64

    def __len__(self) -> int:
        return int(self.hyp_len.shape[0])

    def total(self) -> NgramStats:
        """The whole set as one row: mteval's system-level statistics."""
        return NgramStats(
            self.hyp_len.sum(keepdims=True),
            self.ref_len.sum(keepdims=True),
            self.hyp_ngrams.sum(axis=0, keepdims=True),
            self.ref_ngrams.sum(axis=0, keepdims=True),
            self.matches.sum(axis=0, keepdims=True),
            self.info.sum(axis=0, keepdims=True),
        )


_FIB = -7046029254386353131  # 0x9E3779B97F4A7C15 as int64: Fibonacci hashing


@njit(cache=True)
def _position_info(
    tok: I64, off: I64, n_info: int, order: int, n_words: int, zero_word: int
) -> F64:
    """mteval's ``compute_ngram_info``, read back at every n-gram occurrence: ``(order, T)``
    float64 bits, ``[n − 1, p]`` for the n-gram starting at token ``p`` (0 where it would run past
    its sequence or where the first ``n_info`` sequences — the information references — lack it,
    Perl's undefined value). ``info = −log(count(w1…wn) / count(w1…wn−1)) / log 2``, unigrams
    over the total reference word count.

    n-grams get ids order by order from ``(id of w1…wn−1, wn)`` keys in an open-addressing table
    sized for one order, so it stays in cache. mteval tests the (n−1)-gram *string* for truth,
    and Perl's ``"0"`` is false: a bigram whose first word is ``0`` (id ``zero_word``, −1 if
    absent) is weighed against the total word count, like a unigram.
    """
    n_tok = tok.shape[0]
    n_seq = off.shape[0] - 1
    info = np.zeros((order, n_tok))
    log2 = math.log(2.0)
    total = off[n_info] - off[0]
    prev_count = np.zeros(n_words, np.int64)
    for p in range(off[0], off[n_info]):
        prev_count[tok[p]] += 1
    for p in range(n_tok):
        c = prev_count[tok[p]]
        if c > 0:
            info[0, p] = -math.log(c / total) / log2
    prev_id = tok.copy()
    cur_id = np.empty(n_tok, np.int64)
    cap = 16
    bits = 4
    while cap < 2 * n_tok + 2:
        cap *= 2
        bits += 1
    keys = np.empty(cap, np.int64)
    vals = np.empty(cap, np.int64)
    for n in range(1, order):
        keys[:] = -1
        next_id = 0
        for s in range(n_seq):
            for p in range(off[s], off[s + 1] - n):
                key = prev_id[p] * n_words + tok[p + n]
                slot = ((key * _FIB) >> (64 - bits)) & (cap - 1)
                while keys[slot] != -1 and keys[slot] != key:
                    slot = (slot + 1) & (cap - 1)
                if keys[slot] == -1:
                    keys[slot] = key
                    vals[slot] = next_id
                    next_id += 1
                cur_id[p] = vals[slot]
        count = np.zeros(next_id, np.int64)
        for s in range(n_info):
            for p in range(off[s], off[s + 1] - n):
                count[cur_id[p]] += 1
        for s in range(n_seq):
            for p in range(off[s], off[s + 1] - n):
                c = count[cur_id[p]]
                if c > 0:
                    if n == 1 and tok[p] == zero_word:
                        info[n, p] = -math.log(c / total) / log2
                    else:
                        info[n, p] = -math.log(c / prev_count[prev_id[p]]) / log2
        prev_id, cur_id = cur_id, prev_id
        prev_count = count
    return info


@njit(cache=True)
def _run(tok: I64, a: int, b: int, limit: int) -> int:
    """How many words agree from token ``a`` and token ``b`` on, at most ``limit``."""
    r = 0
    while r < limit and tok[a + r] == tok[b + r]:
        r += 1
    return r


@njit(cache=True)
def _segment_stats(
    tok: I64,
    off: I64,
    n_seg: int,
    ref_info: F64,
    ref_base: int,
    hyp_ngrams: I64,
    ref_ngrams: I64,
    matches: I64,
    info_sum: F64,
) -> None:
    """mteval's ``score_segment`` for hypothesis = sequence ``s`` and reference = sequence
    ``n_seg + s`` of ``tok``/``off``: n-gram counts, clipped matches ``Σ min(c_hyp, c_ref)`` over
    distinct hypothesis n-grams, and their information, read from ``ref_info[n − 1, position −
    ref_base]`` at a matching reference n-gram.

    For each hypothesis position ``p`` only the positions holding the same word are visited
    (per-word chains), and the n-grams there equal the one at ``p`` up to the length ``run`` of
    their agreement: one pass gives every order. O(|s| + |r| + equal-word pairs × order).
    """
    order = hyp_ngrams.shape[1]
    n_words = 0
    for p in range(tok.shape[0]):
        n_words = max(n_words, tok[p] + 1)
    head_r = np.full(n_words, -1, np.int64)
    head_h = np.full(n_words, -1, np.int64)
    next_r = np.empty(tok.shape[0], np.int64)
    next_h = np.empty(tok.shape[0], np.int64)
    c_ref = np.empty(order + 1, np.int64)
    c_hyp = np.empty(order + 1, np.int64)
    first_q = np.empty(order + 1, np.int64)
    for s in range(n_seg):
        h0 = off[s]
        nh = off[s + 1] - h0
        r0 = off[n_seg + s]
        nr = off[n_seg + s + 1] - r0
        for n in range(order):
            hyp_ngrams[s, n] = max(nh - n, 0)
            ref_ngrams[s, n] = max(nr - n, 0)
            matches[s, n] = 0
            info_sum[s, n] = 0.0
        # Chains of equal words, in ascending position order.
        for q in range(nr - 1, -1, -1):
            w = tok[r0 + q]
            next_r[r0 + q] = head_r[w]
            head_r[w] = r0 + q
        for q in range(nh - 1, -1, -1):
            w = tok[h0 + q]
            next_h[h0 + q] = head_h[w]
            head_h[w] = h0 + q
        for p in range(nh):
            a = h0 + p
            w = tok[a]
            longest = min(order, nh - p)
            covered = 0
            for n in range(order + 1):
                c_ref[n] = 0
                c_hyp[n] = 0
            b = head_r[w]
            while b >= 0:
                r = _run(tok, a, b, min(longest, r0 + nr - b))
                c_ref[r] += 1
                while covered < r:
                    covered += 1
                    first_q[covered] = b
                b = next_r[b]
            if covered == 0:
                continue
            # Orders above ``seen`` start an n-gram not seen earlier in the hypothesis.
            seen = 0
            b = head_h[w]
            while b >= 0:
                if b != a:
                    r = _run(tok, a, b, min(longest, h0 + nh - b))
                    if b < a:
                        seen = max(seen, r)
                    else:
                        c_hyp[r] += 1
                b = next_h[b]
            if covered <= seen:
                continue
            above_ref = 0
            above_hyp = 1
            for n in range(order, seen, -1):
                above_ref += c_ref[n]
                above_hyp += c_hyp[n]
                if above_ref > 0:
                    m = min(above_hyp, above_ref)
                    matches[s, n - 1] += m
                    info_sum[s, n - 1] += ref_info[n - 1, first_q[n] - ref_base] * m
        for q in range(nr):
            head_r[tok[r0 + q]] = -1
        for q in range(nh):
            head_h[tok[h0 + q]] = -1


def _token_list(seg: Sequence[str], where: str) -> Sequence[str]:
    if isinstance(seg, str):
        raise InputError(f"{where}: expected a token sequence, got a string")
    for w in seg:
        if not isinstance(w, str) or not w:
            raise InputError(f"{where}: tokens must be non-empty strings, got {w!r}")
    return seg


def _encode(
    groups: Sequence[tuple[Sequence[Sequence[str]], str]],
) -> tuple[I64, I64, dict[str, int]]:
    """Word ids (< number of tokens) of every sequence of every group, concatenated, the
    ``(S + 1,)`` offsets and the word → id map."""
    seqs: list[Sequence[str]] = []
    for segments, what in groups:
        for k, seg in enumerate(segments):
            if isinstance(seg, str):
                raise InputError(f"{what} {k}: expected a token sequence, got a string")
        seqs.extend(segments)
    lengths = np.fromiter(map(len, seqs), np.int64, count=len(seqs))
    off = np.zeros(len(seqs) + 1, np.int64)
    np.cumsum(lengths, out=off[1:])
    words = list(itertools.chain.from_iterable(seqs))
    # A word's id is the index of its first occurrence: one C-level pass, no second lookup.
    vocab: dict[str, int] = {}
    try:
        tok = np.fromiter(
            map(vocab.setdefault, words, itertools.count()), np.int64, count=len(words)
        )
        valid = all(isinstance(w, str) and w for w in vocab)
    except TypeError:
        valid = False
    if not valid:
        for segments, what in groups:
            for k, seg in enumerate(segments):
                _token_list(seg, f"{what} {k}")
        raise InputError("tokens must be non-empty strings")
    return tok, off, vocab


def ngram_stats(
    hyps: Sequence[Sequence[str]],
    refs: Sequence[Sequence[str]],
    *,
    info_refs: Sequence[Sequence[str]] | None = None,
    max_order: int = MAX_ORDER,
    information: bool = True,
) -> NgramStats:
    """Stage 1: per-segment BLEU/NIST statistics of tokenized hypotheses vs. references.

    NIST information weights come from ``info_refs`` (default: ``refs``, the whole reference
    set, as mteval does; n-grams missing from ``info_refs`` weigh 0). ``max_order`` bounds the
    n-gram order (≥ 5 for NIST-5). ``information=False`` skips the weights (``info`` stays 0):
    enough for BLEU, and faster.
    """
    if len(hyps) != len(refs):
        raise InputError(f"{len(hyps)} hypotheses but {len(refs)} references")
    if not isinstance(max_order, int) or max_order < 1:
        raise InputError(f"max_order must be a positive integer, got {max_order!r}")
    n_seg = len(hyps)
    groups = [(hyps, "hypothesis"), (refs, "reference")]
    if info_refs is not None:
        groups.append((info_refs, "information reference"))
    tok, off, vocab = _encode(groups)
    # Information at every n-gram of the information references, then the references when
    # those are separate.
    if info_refs is None:
        sub_tok = tok[off[n_seg] : off[2 * n_seg]]
        sub_off = off[n_seg : 2 * n_seg + 1] - off[n_seg]
        n_info = n_seg
        ref_base = int(off[n_seg])
    else:
        t_info = int(off[-1] - off[2 * n_seg])
        sub_tok = np.concatenate([tok[off[2 * n_seg] :], tok[off[n_seg] : off[2 * n_seg]]])
        sub_off = np.concatenate(
            [
                off[2 * n_seg :] - off[2 * n_seg],
                off[n_seg + 1 : 2 * n_seg + 1] - off[n_seg] + t_info,
            ]
        )
        n_info = len(info_refs)
        ref_base = int(off[n_seg]) - t_info
    if information:
        ref_info = _position_info(
            np.ascontiguousarray(sub_tok),
            sub_off,
            n_info,
            max_order,
            max(int(tok.shape[0]), 1),
            vocab.get("0", -1),
        )
    else:
        ref_info = np.zeros((max_order, sub_tok.shape[0]))
    shape = (n_seg, max_order)
    hyp_ngrams = np.zeros(shape, np.int64)
    ref_ngrams = np.zeros(shape, np.int64)
    matches = np.zeros(shape, np.int64)
    info_sum = np.zeros(shape)
    _segment_stats(tok, off, n_seg, ref_info, ref_base, hyp_ngrams, ref_ngrams, matches, info_sum)
    lengths = np.diff(off)
    return NgramStats(
        lengths[:n_seg].copy(),
        lengths[n_seg : 2 * n_seg].copy(),
        hyp_ngrams,
        ref_ngrams,
        matches,
        info_sum,
    )


# --- stage 2: scores ---------------------------------------------------------------------------


@njit(cache=True)
def _bleu(
    ref_len: I64, hyp_ngrams: I64, matches: I64, order: int, smooth: bool, bp: bool, out: F64
) -> None:
    """mteval-v13a ``bleu_score`` (``smooth``) or ``bleu_score_nosmoothing``; ``out`` (N,)."""
    for s in range(out.shape[0]):
        tst1 = hyp_ngrams[s, 0]
        if smooth:
            exp_len = 0.0
            if tst1 > 0:
                exp_len = math.exp(min(0.0, 1.0 - ref_len[s] / tst1)) if bp else 1.0
            score = 0.0
            factor = 1.0
            cum = 0.0
            for j in range(order):
                tst = hyp_ngrams[s, j]
                if tst == 0:
                    iscore = 0.0
                elif matches[s, j] == 0:
                    factor *= 2.0
                    iscore = math.log(1.0 / (factor * tst))
                else:
                    iscore = math.log(matches[s, j] / tst)
                score += iscore
                cum = math.exp(score / (j + 1)) * exp_len
            out[s] = cum
        else:
            score = 0.0
            cum = 0.0
            for j in range(order):
                if matches[s, j] == 0:
                    cum = 0.0
                else:
                    len_score = min(0.0, 1.0 - ref_len[s] / tst1) if bp else 0.0
                    score += math.log(matches[s, j] / hyp_ngrams[s, j])
                    cum = math.exp(score / (j + 1) + len_score)
            out[s] = cum


@njit(cache=True)
def _nist_penalty(ratio: float) -> float:
    if ratio >= 1.0:
        return 1.0
    if ratio <= 0.0:
        return 0.0
    beta = -math.log(0.5) / math.log(1.5) / math.log(1.5)
    return math.exp(-beta * math.log(ratio) * math.log(ratio))


@njit(cache=True)
def _nist(hyp_ngrams: I64, ref_ngrams: I64, info: F64, order: int, out: F64) -> None:
    """mteval-v13a ``nist_score`` with one reference; ``out`` (N,)."""
    for s in range(out.shape[0]):
        score = 0.0
        for n in range(order):
            score += info[s, n] / max(hyp_ngrams[s, n], 1)
        out[s] = score * _nist_penalty(hyp_ngrams[s, 0] / (ref_ngrams[s, 0] / 1.0))


def _check_order(order: int, highest: int, stats: NgramStats, metric: str) -> None:
    if not isinstance(order, int) or not 1 <= order <= highest:
        raise InputError(f"{metric} order must be an integer in 1…{highest}, got {order!r}")
    if order > stats.matches.shape[1]:
        raise InputError(
            f"{metric}-{order} needs statistics up to order {order}; "
            f"these stop at {stats.matches.shape[1]}"
        )


def bleu(
    stats: NgramStats,
    *,
    order: int = 4,
    smoothing: str = "mteval",
    brevity_penalty: bool = True,
) -> F64:
    """Stage 2: BLEU-``order`` of every row of ``stats``; float64 ``(N,)`` in [0, 1].

    ``smoothing``: ``"mteval"`` (mteval-v13a's default) or ``"none"`` (its ``--no-smoothing``).
    ``brevity_penalty=False`` is Finch, Hwang & Sumita's (2005) variant. On ``stats.total()`` this
    is mteval's
    system BLEU.
    """
    _check_order(order, 9, stats, "BLEU")
    if smoothing not in ("mteval", "none"):
        raise InputError(f"smoothing must be 'mteval' or 'none', got {smoothing!r}")
    out = np.empty(len(stats))
    _bleu(
        stats.ref_len,
        stats.hyp_ngrams,
        stats.matches,
        order,
        smoothing == "mteval",
        bool(brevity_penalty),
        out,
    )
    return out


def nist(stats: NgramStats, *, order: int = 5) -> F64:
    """Stage 2: NIST-``order`` of every row of ``stats``; float64 ``(N,)`` (bits).

    On ``stats.total()`` this is mteval's system NIST. A row with an empty reference has no
    defined length penalty (mteval divides by zero) and raises
    :class:`~scoring.errors.UndefinedError`.
    """
    _check_order(order, 9, stats, "NIST")
    empty = np.nonzero(stats.ref_ngrams[:, 0] == 0)[0]
    if empty.size:
        raise UndefinedError(f"segment {int(empty[0])}: NIST is undefined for an empty reference")
    out = np.empty(len(stats))
    _nist(stats.hyp_ngrams, stats.ref_ngrams, stats.info, order, out)
    return out


def signature(
    metric: str, *, order: int, smoothing: str = "mteval", brevity_penalty: bool = True
) -> str:
    """A one-line record of a BLEU or NIST setting, stored with results."""
    if metric == "bleu":
        bp = "yes" if brevity_penalty else "no"
        return f"bleu:mteval-v13a|order:{order}|smooth:{smoothing}|bp:{bp}"
    if metric == "nist":
        return f"nist:mteval-v13a|order:{order}|info:reference-set"
    raise InputError(f"metric must be 'bleu' or 'nist', got {metric!r}")


# --- WER and PER -------------------------------------------------------------------------------


def _rate(errors: float, ref_len: int) -> float:
    # An empty reference: tercom's convention (1 if anything is wrong, else 0).
    if ref_len == 0:
        return 1.0 if errors > 0 else 0.0
    return errors / ref_len


def wer(hyp: Sequence[str], ref: Sequence[str]) -> float:
    """Finch, Hwang & Sumita 2005, §2.1: ``(I + D + S) / |r|`` by word Levenshtein distance."""
    h, r = _token_list(hyp, "hypothesis"), _token_list(ref, "reference")
    return _rate(float(levenshtein(h, r)), len(r))


def per(hyp: Sequence[str], ref: Sequence[str]) -> float:
    """Finch, Hwang & Sumita 2005, §2.2: ``max(diff(s, r), diff(r, s)) / |r|`` over bags of
    words."""
    h, r = _token_list(hyp, "hypothesis"), _token_list(ref, "reference")
    counts: dict[str, int] = {}
    for w in r:
        counts[w] = counts.get(w, 0) + 1
    common = 0
    for w in h:
        if counts.get(w, 0) > 0:
            counts[w] -= 1
            common += 1
    return _rate(float(max(len(h) - common, len(r) - common)), len(r))


# --- the feature set of Finch, Hwang & Sumita (2005) ------------------------------------------

FEATURE_NAMES: tuple[str, ...] = (
    *(f"BLEU{n}" for n in BLEU_ORDERS),
    *(f"NIST{n}" for n in NIST_ORDERS),
    "WER",
    "PER",
)


def one_direction(hyps: Sequence[Sequence[str]], refs: Sequence[Sequence[str]]) -> F64:
    """Finch, Hwang & Sumita 2005's metric features of ``hyps`` scored against ``refs``: float64
    ``(N, 11)`` in
    :data:`FEATURE_NAMES` order (BLEU without brevity penalty, NIST with its penalty and
    information from all of ``refs``, WER, PER)."""
    stats = ngram_stats(hyps, refs)
    cols = [bleu(stats, order=n, brevity_penalty=False) for n in BLEU_ORDERS]
    cols += [nist(stats, order=n) for n in NIST_ORDERS]
    cols.append(np.array([wer(h, r) for h, r in zip(hyps, refs, strict=True)]))
    cols.append(np.array([per(h, r) for h, r in zip(hyps, refs, strict=True)]))
    return np.ascontiguousarray(np.column_stack(cols), dtype=np.float64)


def both_directions(first: Sequence[Sequence[str]], second: Sequence[Sequence[str]]) -> F64:
    """Finch, Hwang & Sumita 2005, §3: the features computed with each sentence as the reference in
    turn and
    averaged; float64 ``(N, 11)`` in :data:`FEATURE_NAMES` order."""
    if len(first) != len(second):
        raise InputError(f"{len(first)} first sentences but {len(second)} second sentences")
    return (one_direction(first, second) + one_direction(second, first)) / 2.0
