"""TERp, Translation Edit Rate Plus (Snover et al. 2009), as TERp 1.0 computes it.

TERp extends TER (:mod:`scoring.edit.ter`) with three edits beside match, insertion, deletion,
substitution and shift — *stem* ``T`` (equal Porter stems, Martin Porter's own variant), *synonym*
``Y`` (a shared WordNet 3.0 synset; NLTK's morphy stands in for the JAWS library's morphology)
and *phrase substitution* ``P`` (a paraphrase-table entry) — and with per-edit costs.
This module reproduces TERp's search decision by decision (TERp's own regression sample is
matched edit for edit by the conformance tests):

- Text (:func:`normalize`): TERp's ``NormalizeText``: collapse whitespace, lowercase unless
  case-sensitive, and with ``Normalize`` its NIST-style tokenization (punctuation other than
  ``' - . ,`` split off, ``'s`` split, a final ``.``/``,`` split from a word without another
  period or comma, ``<digit>-`` split). Optionally punctuation removal and number normalization.
- Edit distance: TERp's beam search over the ``(|ref| + 1) × (|hyp| + 1)`` matrix column by
  column along the hypothesis. At each reached cell, in this order: match (exact words) or
  substitution, then stem and synonym (each only if strictly cheaper than what the cell holds),
  then every phrase entry whose reference side starts at the reference position and whose
  hypothesis side starts at the hypothesis position (a jump of ``(ref_len, hyp_len)`` cells),
  then insertion and deletion. Unlike tercom, the last column is searched down to the last row.
- Shifts: every hypothesis span that matches a reference span word for word — exactly
  (``exact``), or also by stem or synonym (``relax_nophrase``), or also through phrase entries
  (``relax``) — at most ``Shift Size`` words, with an error on both sides, not made only of shift
  stop words on either side, within ``Shift Distance``; candidates are grouped by the longer
  span's length and tried from the longest group, each group in (start, end, new position)
  order; tercom's gain rule and early stop apply. ``allow_mismatch`` is not supported.
- Phrase costs: each entry's probability ``p`` is turned into a cost by the parameter file's
  adjust function (``STD``: ``a + b·q·log10 p + c·q·p + d·q`` with ``q`` the TERp edit cost of
  the two phrases without phrases), clamped to ``[min, max]``; of two entries with the same
  phrases the search uses the cheaper. An entry whose cost is not finite (``p = 0`` under
  ``STD``) still extends shift candidates but is never a substitution (TERp would write +inf or
  NaN into its matrix; +inf cells never win, NaN ones would poison the segment).
- Only one reference per segment (TERp can take several and keep the best).
- Score: edits over the reference length, capped at 1 with ``Cap Maximum TER``.

Costs are pluggable: :meth:`Terp.prepare` gives a :class:`TerpSegment` (tokens, match tables,
phrase matches) and :func:`align_segment` aligns it under any :class:`EditCosts`; PERP
(:mod:`scoring.edit.perp`) uses this with learned, word-dependent costs.

Settings and phrase tables are read by :mod:`scoring.edit.terp_params`; the search itself is
in :mod:`scoring.edit.terp_search`.
"""

from __future__ import annotations

import functools
import math
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from scoring import resources
from scoring.edit.terp_params import (
    ADJUST_FUNCS,
    SHIFT_CONSTRAINTS,
    SHIFT_MODES,
    PhraseEntry,
    PhraseTable,
    TerpParams,
    adjust_phrase_cost,
    check_params,
    param_names,
    params_as_dict,
    parse_params,
    parse_phrase_table,
    read_params,
    read_phrase_table,
)
from scoring.edit.terp_search import terp_search
from scoring.errors import FormatError, InputError

__all__ = [
    "ADJUST_FUNCS",
    "SHIFT_CONSTRAINTS",
    "SHIFT_MODES",
    "EditCosts",
    "PhraseEntry",
    "PhraseTable",
    "Terp",
    "TerpAlignment",
    "TerpParams",
    "TerpSegment",
    "TerpShift",
    "adjust_phrase_cost",
    "align_segment",
    "are_synonyms",
    "check_params",
    "normalize",
    "param_names",
    "params_as_dict",
    "parse_params",
    "parse_phrase_table",
    "porter_stem",
    "read_params",
    "read_phrase_table",
    "read_sgml",
    "read_shift_stop_words",
    "terp_search",
]

F64 = npt.NDArray[np.float64]
I64 = npt.NDArray[np.int64]
I8 = npt.NDArray[np.int8]
BoolArray = npt.NDArray[np.bool_]

# Edit labels (TERp's alignment characters).

_JAVA_TRIM = "".join(chr(c) for c in range(33))  # Java String.trim strips every char <= U+0020
_JAVA_SPACE = re.compile(r"[ \t\n\x0b\f\r]+")


# --- text ---------------------------------------------------------------------------------------

_NUMBER_WORDS = {
    "zero": "0",
    "one": "1",
    "two": "2",
    "three": "3",
    "four": "4",
    "five": "5",
    "six": "6",
    "seven": "7",
    "eight": "8",
    "nine": "9",
    "ten": "10",
    "eleven": "11",
    "twelve": "12",
    "thirteen": "13",
    "fourteen": "14",
    "fifteen": "15",
    "sixteen": "16",
    "seventeen": "17",
    "eighteen": "18",
    "nineteen": "19",
    "twenty": "20",
    "thirty": "30",
    "forty": "40",
    "fifty": "50",
    "sixty": "60",
    "seventy": "70",
    "eighty": "80",
    "ninety": "90",
    "hundred": "100",
    "thousand": "1000",
    "million": "1000000",
    "billion": "1000000000",
}
_PUNCT = re.compile(r"([{-~\[-` -&(-+:-@/])")
_FINAL_PERIOD = re.compile(r"[ \t\n\x0b\f\r]([^,. \t]+)([.,])[ \t\n\x0b\f\r]")


def _simple_norm(text: str) -> str:
    return _JAVA_SPACE.sub(" ", text.strip(_JAVA_TRIM))


def normalize(text: str, params: TerpParams | None = None) -> list[str]:
    """TERp's ``NormalizeText.process``: the tokens TERp aligns for one segment."""
    if not isinstance(text, str):
        raise InputError(f"a segment must be a string, got {type(text).__name__}")
    p = params or TerpParams()
    s = _simple_norm(text)
    if not p.case_sensitive:
        s = s.lower()
    if p.normalize:
        s = s.replace("<skipped>", "").replace("-\n", "").replace("\n", " ")
        s = s.replace("&quot;", '"').replace("&amp;", "&").replace("&lt;", "<")
        s = s.replace("&gt;", ">")
        s = _PUNCT.sub(r" \1 ", " " + s + " ")
        s = s.replace("'s ", " 's ")
        s = re.sub(r"'s$", " 's", s)
        s = _FINAL_PERIOD.sub(r"\1 \2 ", s)
        s = re.sub(r"([0-9])(-)", r"\1 \2 ", s)
        s = _simple_norm(s)
    if p.new_normalization:
        s = re.sub(r"\B-\B", " ", s)
        s = s.replace("'s ", " 's ")
        s = re.sub(r"'s$", " 's", s)
        s = re.sub(r"\Bs' ", "s 's ", s)
        s = re.sub(r"\Bs'$", "s 's", s)
    if p.strip_punctuation:
        s = _JAVA_SPACE.sub(" ", re.sub(r"[.,?:;!\"()]", "", s))
    words = _JAVA_SPACE.split(_simple_norm(s))
    if p.normalize_numbers:
        words = [_parse_number(w) for w in words]
    return [w for w in words if w]


def _parse_number(word: str) -> str:
    stripped = re.sub(r"[-,.$%]", "", word)
    if re.fullmatch(r"[0-9]+", stripped):
        return stripped
    return _NUMBER_WORDS.get(stripped.lower(), word)


def read_shift_stop_words(path: str | Path, params: TerpParams | None = None) -> frozenset[str]:
    """TERp's shift stop-word list: one entry a line, each normalized as segments are."""
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except OSError as error:
        raise FormatError(
            f"cannot read the shift stop-word list: {error.strerror}", path=path
        ) from None
    words: set[str] = set()
    for line in lines:
        if line.strip():
            words.update(normalize(line, params))
    return frozenset(words)


def read_sgml(path: str | Path) -> dict[tuple[str, str], str]:
    """Segments of a NIST SGML/XML file (``<doc docid=…><seg id=…>text</seg>``), keyed by
    ``(docid, seg id)``, with the text stripped as TERp does."""
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError) as error:
        raise FormatError(f"cannot parse the SGML file: {error}", path=path) from None
    segments: dict[tuple[str, str], str] = {}
    for doc in root.iter("doc"):
        docid = doc.get("docid")
        if docid is None:
            raise FormatError("a <doc> has no docid", path=path, field="docid")
        for seg in doc.iter("seg"):
            seg_id = seg.get("id")
            if seg_id is None:
                raise FormatError(f"a <seg> in doc {docid} has no id", path=path, field="id")
            segments[(docid, seg_id)] = "".join(seg.itertext()).strip(_JAVA_TRIM)
    return segments


# --- WordNet and stems ------------------------------------------------------------------------


@functools.lru_cache(maxsize=200_000)
def _synsets(word: str) -> frozenset[str]:
    return frozenset(s.name() for s in resources.wordnet().synsets(word))


def porter_stem(word: str) -> str:
    """TERp's Porter stem (Martin Porter's own implementation; nltk's MARTIN_EXTENSIONS)."""
    return resources.stem(word, lowercase=False, mode="MARTIN_EXTENSIONS")


def are_synonyms(a: str, b: str) -> bool:
    """TERp's synonym test: the two words share a WordNet 3.0 synset (after morphy)."""
    return not _synsets(a).isdisjoint(_synsets(b))


# --- costs ---------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class EditCosts:
    """Costs of one segment's edits. ``sub`` ``(H, R)`` by original hypothesis position, ``ins``
    ``(H,)``, ``dele`` ``(R,)``, ``phrase`` ``(n_phrase_matches,)`` (one per
    :attr:`TerpSegment.phrases` row); the rest are scalars. The shift cost must be > 0."""

    sub: F64
    ins: F64
    dele: F64
    match: float
    stem: float
    synonym: float
    shift: float
    phrase: F64


@dataclass(frozen=True, slots=True)
class TerpSegment:
    """One hypothesis/reference pair prepared for TERp's search.

    ``eq``/``stem``/``syn`` ``(H, R)`` bool: words equal, equal stems (and not equal), synonyms
    (and not equal), each only when the setting is on. ``hyp_stop``/``ref_stop``: shift stop
    words. ``phrases``: the phrase-table entries usable in this pair, rows of ``(ref_start,
    ref_len, hyp_len)`` with their hypothesis word ids in ``phrase_hyp_ids`` (CSR by
    ``phrase_hyp_off``), sorted as TERp's phrase tree returns them; ``phrase_entries`` and
    ``phrase_ned`` give each row's table entry and TERp edit cost between its two sides.
    """

    hyp: tuple[str, ...]
    ref: tuple[str, ...]
    hyp_ids: I64
    eq: BoolArray
    stem: BoolArray
    syn: BoolArray
    hyp_stop: BoolArray
    ref_stop: BoolArray
    phrases: I64
    phrase_hyp_off: I64
    phrase_hyp_ids: I64
    phrase_entries: tuple[PhraseEntry, ...]
    phrase_ned: F64


@dataclass(frozen=True, slots=True)
class TerpShift:
    """One shift: hyp words ``start..end`` (positions before this shift) move to just after
    ``newloc`` (−1: the front) to face reference position ``moveto``."""

    start: int
    end: int
    moveto: int
    newloc: int


@dataclass(frozen=True, slots=True)
class TerpAlignment:
    """One segment's TERp result.

    ``ops`` is TERp's alignment string over ``hyp_after_shifts`` × ``ref`` (one character per
    edit; a ``P`` covers ``spans[k]`` = ``(ref_len, hyp_len)`` words, every other edit one word on
    each side it touches). ``phrases`` lists the phrase substitutions used, in order.
    """

    hyp: tuple[str, ...]
    ref: tuple[str, ...]
    hyp_after_shifts: tuple[str, ...]
    hyp_order: tuple[int, ...]
    ops: str
    spans: tuple[tuple[int, int], ...]
    shifts: tuple[TerpShift, ...]
    phrases: tuple[tuple[PhraseEntry, float], ...]
    num_edits: float
    ref_len: float
    score: float

    def count(self, label: str) -> int:
        return self.ops.count(label)


# --- engine -----------------------------------------------------------------------------------


def _phrase_sort_key(entry: PhraseEntry) -> tuple[int, int, tuple[str, ...]]:
    # TERp's phrase tree: shorter reference sides first (trie depth), then its PhraseComparator
    # on the hypothesis side (length, then word by word).
    return (len(entry.ref), len(entry.hyp), entry.hyp)


class Terp:
    """TERp with a parameter set, an optional paraphrase table and shift stop words.

    ``shift_stop_words``/``phrase_table`` default to the files the parameters name (a text
    phrase table; TERp's Berkeley DB folders are not read). WordNet and the Porter stemmer come
    from :mod:`scoring.resources` (NLTK) when the parameters turn them on.
    """

    def __init__(
        self,
        params: TerpParams | None = None,
        *,
        phrase_table: PhraseTable | None = None,
        shift_stop_words: Iterable[str] | None = None,
    ) -> None:
        p = params or TerpParams()
        check_params(p)
        if shift_stop_words is None and p.shift_stop_word_list:
            shift_stop_words = read_shift_stop_words(p.shift_stop_word_list, p)
        if phrase_table is None and p.phrase_database:
            if not Path(p.phrase_database).is_file():
                raise InputError(
                    f"the phrase table {p.phrase_database!r} (parameter 'Phrase Database') is "
                    "not a text phrase table; pass phrase_table= instead"
                )
            phrase_table = read_phrase_table(p.phrase_database)
        self.params = p
        self.phrase_table = phrase_table
        self.shift_stop_words = frozenset(shift_stop_words or ())
        self._ned: dict[tuple[tuple[str, ...], tuple[str, ...]], float] = {}

    # tokens and tables ------------------------------------------------------------------------

    def tokens(self, segment: str | Sequence[str], what: str = "segment") -> list[str]:
        """TERp's tokens of a raw segment, or of given tokens (only lowercased)."""
        if isinstance(segment, str):
            return normalize(segment, self.params)
        if not isinstance(segment, Sequence) or not all(isinstance(w, str) for w in segment):
            raise InputError(f"{what}: expected a string or a sequence of string tokens")
        words = list(segment) if self.params.case_sensitive else [w.lower() for w in segment]
        if any(not w or _JAVA_SPACE.search(w) for w in words):
            raise InputError(f"{what}: a token is empty or contains whitespace")
        return words

    def prepare(
        self, hyp: str | Sequence[str], ref: str | Sequence[str], *, use_phrases: bool = True
    ) -> TerpSegment:
        """Tokens, match tables and usable phrase entries of one pair (see :class:`TerpSegment`)."""
        h = self.tokens(hyp, "hypothesis")
        r = self.tokens(ref, "reference")
        return self._prepare(tuple(h), tuple(r), use_phrases)

    def _prepare(self, h: tuple[str, ...], r: tuple[str, ...], use_phrases: bool) -> TerpSegment:
        p = self.params
        vocab: dict[str, int] = {}
        hyp_ids = np.array([vocab.setdefault(w, len(vocab)) for w in h], np.int64)
        ref_ids = np.array([vocab.setdefault(w, len(vocab)) for w in r], np.int64)
        eq = hyp_ids[:, None] == ref_ids[None, :]
        stem = np.zeros_like(eq)
        syn = np.zeros_like(eq)
        if p.use_porter_stemming and h and r:
            hs = np.array([porter_stem(w) for w in h], dtype=object)
            rs = np.array([porter_stem(w) for w in r], dtype=object)
            stem = (hs[:, None] == rs[None, :]) & ~eq
        if p.use_wordnet_synonymy and h and r:
            for a, wa in enumerate(h):
                for b, wb in enumerate(r):
                    if not eq[a, b]:
                        syn[a, b] = are_synonyms(wa, wb)
        stops = self.shift_stop_words
        hyp_stop = np.array([w in stops for w in h], np.bool_)
        ref_stop = np.array([w in stops for w in r], np.bool_)
        rows: list[tuple[int, int, int]] = []
        ids: list[int] = []
        offsets: list[int] = [0]
        used: list[PhraseEntry] = []
        if use_phrases and self.phrase_table is not None:
            hyp_words = set(h)
            for i, word in enumerate(r):
                found = [
                    e
                    for e in self.phrase_table.by_first.get(word, ())
                    if r[i : i + len(e.ref)] == e.ref and hyp_words.issuperset(e.hyp)
                ]
                for e in sorted(found, key=_phrase_sort_key):
                    rows.append((i, len(e.ref), len(e.hyp)))
                    ids.extend(vocab[w] for w in e.hyp)
                    offsets.append(len(ids))
                    used.append(e)
        ned = np.array([self._phrase_ned(e) for e in used], np.float64)
        return TerpSegment(
            hyp=h,
            ref=r,
            hyp_ids=hyp_ids,
            eq=np.ascontiguousarray(eq),
            stem=np.ascontiguousarray(stem),
            syn=np.ascontiguousarray(syn),
            hyp_stop=hyp_stop,
            ref_stop=ref_stop,
            phrases=np.array(rows, np.int64).reshape(-1, 3),
            phrase_hyp_off=np.array(offsets, np.int64),
            phrase_hyp_ids=np.array(ids, np.int64),
            phrase_entries=tuple(used),
            phrase_ned=ned,
        )

    def _phrase_ned(self, entry: PhraseEntry) -> float:
        """TERp's ``%NED%``: the edit cost between the two sides of a phrase entry, by TERp itself
        with the current costs and no phrases (the table's words are used as written)."""
        key = (entry.ref, entry.hyp)
        if key not in self._ned:
            seg = self._prepare(entry.hyp, entry.ref, use_phrases=False)
            self._ned[key] = align_segment(seg, self.costs(seg), self.params).num_edits
        return self._ned[key]

    def costs(self, seg: TerpSegment) -> EditCosts:
        """The parameter file's costs for one prepared segment."""
        p = self.params
        n_h, n_r = len(seg.hyp), len(seg.ref)
        phrase = np.array(
            [
                adjust_phrase_cost(e.prob, float(q), p)
                for e, q in zip(seg.phrase_entries, seg.phrase_ned, strict=True)
            ],
            np.float64,
        )
        phrase[~np.isfinite(phrase)] = np.inf
        return EditCosts(
            sub=np.full((n_h, n_r), p.substitution_cost),
            ins=np.full(n_h, p.insertion_cost),
            dele=np.full(n_r, p.deletion_cost),
            match=p.match_cost,
            stem=p.stem_cost,
            synonym=p.synonym_cost,
            shift=p.shift_cost,
            phrase=phrase,
        )

    def align(self, hyp: str | Sequence[str], ref: str | Sequence[str]) -> TerpAlignment:
        """TERp of one hypothesis against one reference, with its full edit sequence."""
        seg = self.prepare(hyp, ref)
        return align_segment(seg, self.costs(seg), self.params)

    def score(self, hyp: str | Sequence[str], ref: str | Sequence[str]) -> float:
        return self.align(hyp, ref).score


def _check_costs(seg: TerpSegment, costs: EditCosts) -> None:
    n_h, n_r = len(seg.hyp), len(seg.ref)
    shapes = {"sub": (n_h, n_r), "ins": (n_h,), "dele": (n_r,), "phrase": (len(seg.phrases),)}
    for name, shape in shapes.items():
        arr = getattr(costs, name)
        if arr.shape != shape:
            raise InputError(f"edit cost '{name}' has shape {arr.shape}, expected {shape}")
        if name != "phrase" and not np.all(np.isfinite(arr)):
            raise InputError(f"edit cost '{name}' must be finite")
    if np.isnan(costs.phrase).any():
        raise InputError("edit cost 'phrase' must not be NaN (use +inf for an unusable entry)")
    for name in ("match", "stem", "synonym"):
        if math.isnan(getattr(costs, name)):
            raise InputError(f"edit cost '{name}' must not be NaN")
    if not math.isfinite(costs.shift) or costs.shift <= 0:
        raise InputError(f"the shift cost must be > 0 (TERp loops otherwise), got {costs.shift!r}")


def align_segment(
    seg: TerpSegment, costs: EditCosts, params: TerpParams, *, ref_len: float | None = None
) -> TerpAlignment:
    """TERp's search on a prepared segment under ``costs`` (Heilman & Madnani 2012, §3; Snover et
    al. 2009).

    Cost: one beam search, O(|hyp|·|ref|), per candidate shift per accepted shift.
    ``ref_len`` overrides the length the score is divided by (TERp's reference-length file).
    """
    _check_costs(seg, costs)
    n_h, n_r = len(seg.hyp), len(seg.ref)
    length = float(n_r if ref_len is None else ref_len)
    if n_h == 0 or n_r == 0:
        edits = float(costs.ins.sum() + costs.dele.sum())
        ops = "I" * n_h if n_h else "D" * n_r
        return TerpAlignment(
            hyp=seg.hyp,
            ref=seg.ref,
            hyp_after_shifts=seg.hyp,
            hyp_order=tuple(range(n_h)),
            ops=ops,
            spans=tuple((0, 1) if n_h else (1, 0) for _ in ops),
            shifts=(),
            phrases=(),
            num_edits=edits,
            ref_len=length,
            score=_score(edits, length, params.cap_maximum_ter),
        )
    mode = SHIFT_MODES[params.shift_constraint]
    relax = mode >= 2
    shift_eq = seg.eq | (seg.stem & relax) | (seg.syn & relax)
    ph = seg.phrases
    first = np.searchsorted(ph[:, 0], np.arange(n_r + 1), side="left").astype(np.int64)
    do_shifts = mode > 0 and params.shift_size > 0 and params.shift_distance > 0
    result = terp_search(
        n_r,
        (seg.eq, seg.stem, seg.syn),
        np.ascontiguousarray(shift_eq),
        (
            np.ascontiguousarray(costs.sub, dtype=np.float64),
            np.ascontiguousarray(costs.ins, dtype=np.float64),
            np.ascontiguousarray(costs.dele, dtype=np.float64),
            float(costs.match),
            float(costs.stem),
            float(costs.synonym),
            float(costs.shift),
        ),
        (seg.hyp_stop, seg.ref_stop),
        (
            float(params.beam_width),
            int(params.shift_size),
            int(params.shift_distance),
            do_shifts,
            mode == 3 and len(ph) > 0,
        ),
        (
            seg.hyp_ids,
            np.ascontiguousarray(ph[:, 1]),
            np.ascontiguousarray(ph[:, 2]),
            first,
            seg.phrase_hyp_off,
            seg.phrase_hyp_ids,
            np.ascontiguousarray(costs.phrase, dtype=np.float64),
        ),
    )
    edits, perm, path, path_rl, path_hl, path_ph, path_len, shift_rows, n_shifts = result
    phrases = tuple(
        (seg.phrase_entries[int(e)], float(costs.phrase[int(e)]))
        for e in path_ph[:path_len]
        if e >= 0
    )
    return TerpAlignment(
        hyp=seg.hyp,
        ref=seg.ref,
        hyp_after_shifts=tuple(seg.hyp[int(k)] for k in perm),
        hyp_order=tuple(int(k) for k in perm),
        ops="".join(chr(int(c)) for c in path[:path_len]),
        spans=tuple(
            (int(a), int(b)) for a, b in zip(path_rl[:path_len], path_hl[:path_len], strict=True)
        ),
        shifts=tuple(
            TerpShift(int(a), int(b), int(c), int(d)) for a, b, c, d in shift_rows[:n_shifts]
        ),
        phrases=phrases,
        num_edits=float(edits),
        ref_len=length,
        score=_score(float(edits), length, params.cap_maximum_ter),
    )


def _score(edits: float, ref_len: float, cap: bool) -> float:
    if ref_len <= 0:
        return 1.0 if edits > 0 else 0.0
    if cap and edits > ref_len:
        return 1.0
    return edits / ref_len
