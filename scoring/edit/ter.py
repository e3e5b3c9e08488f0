"""Translation Edit Rate with shifts, edit for edit as tercom 0.8.0 computes it (Snover et al.
2006, §2).

TER (Snover et al. 2006) is the minimum number of edits — insertions, deletions, substitutions of
single words and *shifts* of contiguous word sequences — that turn a hypothesis into the
reference, divided by the reference length. The exact minimum is NP-hard; tercom finds it
greedily, and this module reproduces that search decision by decision, so edit counts, shifts and
the final alignment are those tercom 0.8.0 prints with its default settings:

- Text: tercom lowercases (Java ``toLowerCase``; here :meth:`str.lower`) unless case-sensitive,
  strips and splits on ASCII whitespace (Java's ``\\s``), and does no other tokenization.
- Edit distance: tercom's beam search over the ``(|ref| + 1) × (|hyp| + 1)`` matrix, column by
  column along the hypothesis: a cell is expanded only if its cost is within ``beam_width`` (20)
  of the best diagonal move into its column; ties prefer match/substitution, then insertion, then
  deletion. This is not always the true Levenshtein distance, and tercom's figures depend on it.
- Shifts: repeatedly, every candidate move of a hypothesis phrase (≤ ``max_shift_size`` = 10
  words) that matches a reference phrase at a position where the hypothesis or the reference is
  currently in error, within ``max_shift_distance`` (50) words, to just after the hypothesis word
  aligned to the reference word before (or at) the matching position. Candidates are tried from
  the longest phrase to the shortest, in tercom's order (hypothesis start, end, reference position
  ascending, then offset −1…len−1), with tercom's early stop (a shift of ``n`` words is assumed to
  fix at most ``2n`` edits). The first candidate with the largest gain wins; a shift whose gain is
  exactly zero (it removes one edit and costs one) is taken when nothing better exists. The
  search stops when no candidate gains.

Costs are pluggable (:class:`TerCosts`), and so is word matching (:class:`MatchModel`): a model
gives, for every hypothesis × reference word pair, the diagonal cost, the edit label and whether
the two words may anchor a shift. TERp's stem and synonym matches plug in there; phrase
substitutions need extra moves in the kernel and are not implemented.

Two stages, as everywhere in :mod:`scoring`: :func:`ter_batch` gives per-segment sufficient
statistics (edits, reference length) as arrays, :func:`corpus_ter` aggregates them; :func:`ter`
gives one segment's full edit sequence (:class:`TerAlignment`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np
import numpy.typing as npt

from scoring.edit.shifts import (
    OP_MATCH,
    OP_PHRASE,
    OP_STEM,
    OP_SUB,
    OP_SYNONYM,
)
from scoring.edit.ter_search import ter_search, ter_search_batch
from scoring.errors import InputError, OptionsError

F64 = npt.NDArray[np.float64]
I64 = npt.NDArray[np.int64]
I8 = npt.NDArray[np.int8]
BoolArray = npt.NDArray[np.bool_]

# Edit labels, as tercom prints them in its alignments (' ' is a match). TERp adds T (stem),
# Y (synonym) and P (phrase substitution); a match model may use them for diagonal moves.
_DIAGONAL_OPS = frozenset({OP_MATCH, OP_SUB, OP_STEM, OP_SYNONYM, OP_PHRASE})

_JAVA_SPACE = re.compile(r"[ \t\n\x0b\f\r]+")  # java.util.regex \s (ASCII only)
_JAVA_SPACE_CHARS = " \t\n\x0b\f\r"


@dataclass(frozen=True, slots=True)
class TerCosts:
    """Edit costs; tercom's defaults. All must be ≥ 0 and the shift cost > 0 (so the greedy
    shift search terminates: every accepted shift lowers the edit distance by at least it)."""

    match: float = 0.0
    substitute: float = 1.0
    insert: float = 1.0
    delete: float = 1.0
    shift: float = 1.0


@dataclass(frozen=True, slots=True)
class TerParams:
    """Search settings; tercom 0.8.0's defaults. ``lowercase=False`` is tercom's ``-s``."""

    beam_width: int = 20
    max_shift_size: int = 10
    max_shift_distance: int = 50
    lowercase: bool = True


@dataclass(frozen=True, slots=True)
class WordTable:
    """What a :class:`MatchModel` says about one ``(H, R)`` hypothesis × reference word grid.

    ``cost[h, r]`` float64: cost of aligning hyp word ``h`` with ref word ``r`` on the diagonal;
    ``op[h, r]`` int8: the edit label (:data:`OP_MATCH` marks an exact match, which tercom treats
    as error-free; any other label counts as an error for shift selection);
    ``shiftable[h, r]`` bool: the two words are equal for finding shift candidates.
    Indices are positions in the *original* hypothesis: shifts reorder words, not the table.
    """

    cost: F64
    op: I8
    shiftable: BoolArray


class MatchModel(Protocol):
    """The hook for extra match types (TERp's stem and synonym edits)."""

    def table(self, hyp: Sequence[str], ref: Sequence[str], costs: TerCosts) -> WordTable: ...


class ExactMatch:
    """tercom's matching: words are equal or substituted; only equal words anchor shifts."""

    def table(self, hyp: Sequence[str], ref: Sequence[str], costs: TerCosts) -> WordTable:
        vocab: dict[str, int] = {}
        h = np.array([vocab.setdefault(w, len(vocab)) for w in hyp], np.int64)
        r = np.array([vocab.setdefault(w, len(vocab)) for w in ref], np.int64)
        eq = h[:, None] == r[None, :]
        cost = np.where(eq, costs.match, costs.substitute).astype(np.float64)
        op = np.where(eq, OP_MATCH, OP_SUB).astype(np.int8)
        return WordTable(np.ascontiguousarray(cost), np.ascontiguousarray(op), eq)


@dataclass(frozen=True, slots=True)
class Shift:
    """One shift, in tercom's terms: hyp words ``start..end`` (inclusive, positions in the
    hypothesis as it was before this shift) move to just after position ``newloc`` (−1: to the
    front), to sit opposite reference position ``moveto``."""

    start: int
    end: int
    moveto: int
    newloc: int
    cost: float

    @property
    def size(self) -> int:
        return self.end - self.start + 1


@dataclass(frozen=True, slots=True)
class TerAlignment:
    """One segment's TER and its edit sequence.

    ``ops`` is tercom's alignment string over ``hyp_after_shifts`` × ``ref``: ``' '`` match,
    ``S`` substitution, ``I`` hyp word inserted, ``D`` ref word deleted (or a model's own
    labels). ``shifts`` are applied in order to ``hyp`` to give ``hyp_after_shifts``.
    """

    hyp: tuple[str, ...]
    ref: tuple[str, ...]
    hyp_after_shifts: tuple[str, ...]
    ops: str
    shifts: tuple[Shift, ...]
    num_edits: float
    ref_len: float

    @property
    def score(self) -> float:
        return _ter_score(self.num_edits, self.ref_len)

    def count(self, label: str) -> int:
        """How many edits of one label (``'S'``, ``'I'``, ``'D'``, …) the alignment has."""
        return self.ops.count(label)


@dataclass(frozen=True, slots=True)
class TerStats:
    """Per-segment sufficient statistics: float64 ``(N,)`` edits and reference lengths, and the
    :func:`signature` of the settings that produced them."""

    num_edits: F64
    ref_len: F64
    signature: str = ""

    @property
    def scores(self) -> F64:
        """Per-segment TER (tercom's convention: 1 for edits against an empty reference)."""
        out = np.zeros_like(self.num_edits)
        pos = self.ref_len > 0
        out[pos] = self.num_edits[pos] / self.ref_len[pos]
        out[~pos & (self.num_edits > 0)] = 1.0
        return out


def signature(costs: TerCosts | None = None, params: TerParams | None = None) -> str:
    """A one-line record of the settings, stored with results (as sacrebleu's signatures)."""
    c = costs or TerCosts()
    p = params or TerParams()
    return (
        f"ter:tercom-0.8.0|case:{'lc' if p.lowercase else 'mixed'}|tok:whitespace"
        f"|beam:{p.beam_width}|shift-size:{p.max_shift_size}|shift-dist:{p.max_shift_distance}"
        f"|costs:{c.match:g},{c.substitute:g},{c.insert:g},{c.delete:g},{c.shift:g}"
    )


def _ter_score(num_edits: float, ref_len: float) -> float:
    if ref_len <= 0.0:
        return 1.0 if num_edits > 0.0 else 0.0
    return num_edits / ref_len


# --- public API --------------------------------------------------------------------------------


def tokenize(text: str, *, lowercase: bool = True) -> list[str]:
    """tercom's default text handling: Java ``toLowerCase`` (unless ``lowercase=False``), then
    strip and split on ASCII whitespace. No punctuation splitting (that is tercom's ``-N``)."""
    if not isinstance(text, str):
        raise InputError(f"a segment must be a string, got {type(text).__name__}")
    if lowercase:
        text = text.lower()
    text = text.strip(_JAVA_SPACE_CHARS)
    return _JAVA_SPACE.split(text) if text else []


def _check_costs(costs: TerCosts) -> None:
    for name in ("match", "substitute", "insert", "delete", "shift"):
        value = getattr(costs, name)
        if not np.isfinite(value) or value < 0:
            raise OptionsError(f"TER cost '{name}' must be a finite number ≥ 0, got {value!r}")
    if costs.shift <= 0:
        raise OptionsError(f"TER cost 'shift' must be > 0, got {costs.shift!r}")


def _check_params(params: TerParams) -> None:
    for name in ("beam_width", "max_shift_size", "max_shift_distance"):
        value = getattr(params, name)
        if not isinstance(value, int) or value < 0:
            raise OptionsError(f"TER setting '{name}' must be an integer ≥ 0, got {value!r}")


def _null_edits(n_hyp: int, n_ref: int) -> float:
    # tercom's TERnullstr: an empty side costs one edit per word of the other side.
    return float(n_ref if n_hyp == 0 else n_hyp)


def _tokens(seg: str | Sequence[str], params: TerParams, what: str, index: int) -> list[str]:
    if isinstance(seg, str):
        return tokenize(seg, lowercase=params.lowercase)
    if not isinstance(seg, Sequence):
        raise InputError(f"{what} {index}: expected a string or a token sequence")
    if not all(isinstance(w, str) for w in seg):
        raise InputError(f"{what} {index}: tokens must be strings")
    words = [w.lower() for w in seg] if params.lowercase else list(seg)
    if any(not w or _JAVA_SPACE.search(w) for w in words):
        raise InputError(f"{what} {index}: a token is empty or contains whitespace")
    return words


def _validated_table(table: WordTable, n_hyp: int, n_ref: int) -> WordTable:
    cost = np.ascontiguousarray(table.cost, dtype=np.float64)
    op = np.ascontiguousarray(table.op, dtype=np.int8)
    shiftable = np.ascontiguousarray(table.shiftable, dtype=np.bool_)
    for name, arr in (("cost", cost), ("op", op), ("shiftable", shiftable)):
        if arr.shape != (n_hyp, n_ref):
            raise InputError(
                f"match table '{name}' has shape {arr.shape}, expected {(n_hyp, n_ref)}"
            )
    if not np.all(np.isfinite(cost)) or (cost < 0).any():
        raise InputError("match table 'cost' must hold finite values ≥ 0")
    bad = set(np.unique(op).tolist()) - set(_DIAGONAL_OPS)
    if bad:
        raise InputError(f"match table 'op' holds unknown edit labels {sorted(bad)}")
    return WordTable(cost, op, shiftable)


def ter(
    hyp: str | Sequence[str],
    ref: str | Sequence[str],
    *,
    costs: TerCosts | None = None,
    params: TerParams | None = None,
    model: MatchModel | None = None,
) -> TerAlignment:
    """TER of one hypothesis against one reference, with tercom's full edit sequence.

    ``hyp``/``ref`` are raw strings (tokenized as tercom does) or token sequences (only
    lowercased when ``params.lowercase``). ``model`` supplies the word tables (default
    :class:`ExactMatch`). Cost: one beam search per candidate shift, O(|hyp|·|ref|) each.
    """
    costs = costs or TerCosts()
    params = params or TerParams()
    _check_costs(costs)
    _check_params(params)
    h = _tokens(hyp, params, "hypothesis", 0)
    r = _tokens(ref, params, "reference", 0)
    if not h or not r:
        # tercom's TERnullstr: one edit per word of the other side, whatever the costs.
        return TerAlignment(
            hyp=tuple(h),
            ref=tuple(r),
            hyp_after_shifts=tuple(h),
            ops="I" * len(h) if h else "D" * len(r),
            shifts=(),
            num_edits=_null_edits(len(h), len(r)),
            ref_len=float(len(r)),
        )
    table = _validated_table((model or ExactMatch()).table(h, r, costs), len(h), len(r))
    edits, perm, path, path_len, shift_rows, n_shifts = ter_search(
        len(r),
        table.cost,
        table.op,
        table.shiftable,
        np.full(len(h), costs.insert),
        np.full(len(r), costs.delete),
        float(costs.shift),
        float(params.beam_width),
        int(params.max_shift_size),
        int(params.max_shift_distance),
    )
    shifts = tuple(
        Shift(int(a), int(b), int(c), int(d), float(costs.shift))
        for a, b, c, d in shift_rows[:n_shifts]
    )
    return TerAlignment(
        hyp=tuple(h),
        ref=tuple(r),
        hyp_after_shifts=tuple(h[int(p)] for p in perm),
        ops="".join(chr(int(c)) for c in path[:path_len]),
        shifts=shifts,
        num_edits=float(edits),
        ref_len=float(len(r)),
    )


def ter_batch(
    hyps: Sequence[str | Sequence[str]],
    refs: Sequence[str | Sequence[str]],
    *,
    costs: TerCosts | None = None,
    params: TerParams | None = None,
) -> TerStats:
    """Per-segment TER statistics of parallel hypotheses and references (exact matching).

    Same figures as :func:`ter` per segment, computed in one numba call. Returns
    :class:`TerStats` with float64 ``(N,)`` ``num_edits`` and ``ref_len``.
    """
    costs = costs or TerCosts()
    params = params or TerParams()
    _check_costs(costs)
    _check_params(params)
    if len(hyps) != len(refs):
        raise InputError(f"{len(hyps)} hypotheses but {len(refs)} references")
    n = len(hyps)
    vocab: dict[str, int] = {}
    hyp_ids: list[int] = []
    ref_ids: list[int] = []
    hyp_off = np.zeros(n + 1, np.int64)
    ref_off = np.zeros(n + 1, np.int64)
    hyp_len = np.zeros(n, np.int64)
    ref_len = np.zeros(n, np.int64)
    keep: list[int] = []
    for k in range(n):
        h = _tokens(hyps[k], params, "hypothesis", k)
        r = _tokens(refs[k], params, "reference", k)
        hyp_len[k] = len(h)
        ref_len[k] = len(r)
        if h and r:
            keep.append(k)
            hyp_ids.extend(vocab.setdefault(w, len(vocab)) for w in h)
            ref_ids.extend(vocab.setdefault(w, len(vocab)) for w in r)
            hyp_off[len(keep)] = len(hyp_ids)
            ref_off[len(keep)] = len(ref_ids)
    edits = np.array([_null_edits(int(a), int(b)) for a, b in zip(hyp_len, ref_len, strict=True)])
    if keep:
        out = np.empty(len(keep))
        ter_search_batch(
            np.array(hyp_ids, np.int64),
            hyp_off[: len(keep) + 1].copy(),
            np.array(ref_ids, np.int64),
            ref_off[: len(keep) + 1].copy(),
            np.array([costs.match, costs.substitute, costs.insert, costs.delete, costs.shift]),
            float(params.beam_width),
            int(params.max_shift_size),
            int(params.max_shift_distance),
            out,
        )
        edits[np.array(keep)] = out
    return TerStats(
        num_edits=edits.astype(np.float64),
        ref_len=ref_len.astype(np.float64),
        signature=signature(costs, params),
    )


def corpus_ter(stats: TerStats) -> float:
    """Corpus TER: total edits over total reference length (tercom's "Total TER")."""
    return _ter_score(float(stats.num_edits.sum()), float(stats.ref_len.sum()))
