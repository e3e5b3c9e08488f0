"""TERp, Translation Edit Rate Plus (Snover et al. 2009; Heilman & Madnani 2012, §3 summarises it),
as TERp 1.0 computes it.

TERp extends TER (:mod:`scoring.edit.ter`) with three edits beside match, insertion, deletion,
substitution and shift — *stem* ``T`` (equal Porter stems, Martin Porter's own variant), *synonym*
``Y`` (a shared WordNet 3.0 synset; NLTK's morphy stands in for the JAWS library's morphology)
and *phrase substitution* ``P`` (a paraphrase-table entry) — and with per-edit costs.
This module reproduces TERp's search decision by decision (the conformance sample in
``shared/data/conformance/terp`` matches TERp's edit sequences and segment scores):

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

Parameter files (:func:`read_params`) use TERp's ``Name (type) : value`` lines; later files
override earlier ones. Phrase tables (:func:`read_phrase_table`) use TERp's text format,
``prob <p>ref words</p> <p>hyp words</p>`` (or two probabilities, both added).
"""

from __future__ import annotations

import functools
import math
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
from numba import njit

from scoring import resources
from scoring.edit.ter import (  # the edit codes and the shift kernel are tercom's
    OP_DEL,
    OP_INS,
    OP_MATCH,
    OP_PHRASE,
    OP_STEM,
    OP_SUB,
    OP_SYNONYM,
    _apply_shift,
    _push_shift,
)
from scoring.errors import FormatError, ScoringError

F64 = npt.NDArray[np.float64]
I64 = npt.NDArray[np.int64]
I8 = npt.NDArray[np.int8]
BoolArray = npt.NDArray[np.bool_]

# Edit labels (TERp's alignment characters).

SHIFT_CONSTRAINTS = ("noshift", "exact", "relax_nophrase", "relax", "allow_mismatch")
_SHIFT_MODE = {"noshift": 0, "exact": 1, "relax_nophrase": 2, "relax": 3}
ADJUST_FUNCS = {"NONE": 0, "STD": 4, "STDINV": 4, "STDNONED": 3, "STDINVNONED": 3}

_INF = 999999.0  # TERp's INF: the "no diagonal move yet" value of a column's best cost
_JAVA_TRIM = "".join(chr(c) for c in range(33))  # Java String.trim strips every char <= U+0020
_JAVA_SPACE = re.compile(r"[ \t\n\x0b\f\r]+")


class TerpError(ScoringError, ValueError):
    """TERp input is unusable: a bad parameter, cost, phrase table or segment."""


# --- parameters -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TerpParams:
    """TERp's settings, with TERp 1.0's defaults (``TERpara``). Paths are kept as written."""

    normalize: bool = False
    new_normalization: bool = False
    case_sensitive: bool = False
    strip_punctuation: bool = False
    normalize_numbers: bool = False
    beam_width: int = 20
    shift_distance: int = 50
    shift_size: int = 10
    shift_constraint: str = "exact"
    shift_stop_word_list: str = ""
    cap_maximum_ter: bool = False
    use_average_length: bool = True
    use_porter_stemming: bool = False
    use_wordnet_synonymy: bool = False
    match_cost: float = 0.0
    insertion_cost: float = 1.0
    deletion_cost: float = 1.0
    substitution_cost: float = 1.0
    stem_cost: float = 1.0
    synonym_cost: float = 1.0
    shift_cost: float = 1.0
    phrase_database: str = ""
    adjust_phrase_table_func: str = ""
    adjust_phrase_table_params: tuple[float, ...] = ()
    adjust_phrase_table_min: float = -math.inf
    adjust_phrase_table_max: float = math.inf
    sum_duplicate_phrases: bool = False
    word_class_file: str = ""
    weight_file: str = ""
    generalize_numbers: bool = False
    normalization_file: str = ""
    use_multi_word_class: bool = False


# TERp's parameter names → (field, type). Names TERp knows that only concern its files, output
# or database layout map to None: they are accepted and have no effect here.
_PARAM_NAMES: dict[str, tuple[str, str] | None] = {
    "Normalize (boolean)": ("normalize", "bool"),
    "New Normalization (boolean)": ("new_normalization", "bool"),
    "Case Sensitive (boolean)": ("case_sensitive", "bool"),
    "Strip Punctuation (boolean)": ("strip_punctuation", "bool"),
    "Normalize Numbers (boolean)": ("normalize_numbers", "bool"),
    "Beam Width (integer)": ("beam_width", "int"),
    "Shift Distance (integer)": ("shift_distance", "int"),
    "Shift Size (integer)": ("shift_size", "int"),
    "Shift Constraint (string)": ("shift_constraint", "str"),
    "Shift Stop Word List (string)": ("shift_stop_word_list", "str"),
    "Cap Maximum TER (boolean)": ("cap_maximum_ter", "bool"),
    "Use Average Length (boolean)": ("use_average_length", "bool"),
    "Use Porter Stemming (boolean)": ("use_porter_stemming", "bool"),
    "Use WordNet Synonymy (boolean)": ("use_wordnet_synonymy", "bool"),
    "Default Match Cost (float)": ("match_cost", "float"),
    "Default Insertion Cost (float)": ("insertion_cost", "float"),
    "Default Deletion Cost (float)": ("deletion_cost", "float"),
    "Default Substitution Cost (float)": ("substitution_cost", "float"),
    "Default Stem Cost (float)": ("stem_cost", "float"),
    "Default Synonym Cost (float)": ("synonym_cost", "float"),
    "Default Shift Cost (float)": ("shift_cost", "float"),
    "Phrase Database (filename)": ("phrase_database", "str"),
    "Adjust Phrase Table Func (string)": ("adjust_phrase_table_func", "str"),
    "Adjust Phrase Table Params (float list)": ("adjust_phrase_table_params", "floats"),
    "Adjust Phrase Table Min (float)": ("adjust_phrase_table_min", "float"),
    "Adjust Phrase Table Max (float)": ("adjust_phrase_table_max", "float"),
    "Sum Duplicate Phrases (boolean)": ("sum_duplicate_phrases", "bool"),
    "Word Class File (filename)": ("word_class_file", "str"),
    "Weight File (filename)": ("weight_file", "str"),
    "Generalize Numbers (boolean)": ("generalize_numbers", "bool"),
    "Normalization File (filename)": ("normalization_file", "str"),
    "Use Multi Word Class (boolean)": ("use_multi_word_class", "bool"),
    "Verbose (boolean)": None,
    "Reference File (filename)": None,
    "Hypothesis File (filename)": None,
    "Reference Length File (filename)": None,
    "Output Formats (list)": None,
    "Output Prefix (filename)": None,
    "Show All References (boolean)": None,
    "WordNet Database Directory (filename)": None,
    "Filter Phrase Table (boolean)": None,
    "Dump Phrase Table (boolean)": None,
    "Normalize Phrase Table (boolean)": None,
    "Ignore Missing Hypothesis (boolean)": None,
    "Ignore Test Set ID (boolean)": None,
}
_PARAM_LINE = re.compile(r"^([^:]+):(.*)$")
_JAVA_FLOAT = re.compile(r"^[+-]?(NaN|Infinity|(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?[fFdD]?)$")


def _parse_float(text: str, where: dict[str, Any]) -> float:
    if not _JAVA_FLOAT.match(text):
        raise FormatError(f"expected a number, got {text!r}", **where)
    return float(text.rstrip("fFdD") if not text.endswith("Infinity") else text)


def parse_params(
    lines: Iterable[str], *, base: TerpParams | None = None, path: str | Path | None = None
) -> TerpParams:
    """Apply TERp parameter lines (``Name (type) : value``) on top of ``base`` (defaults).

    As in TERp, an empty value leaves a number, boolean or list unchanged and empties a string;
    blank lines and ``#`` comments are skipped. Unlike TERp, an unknown name or a malformed value
    is an error (:class:`~scoring.errors.FormatError` with the file, line and field).
    """
    values: dict[str, Any] = {}
    for number, line in enumerate(lines, start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        match = _PARAM_LINE.match(line.rstrip("\r\n"))
        if match is None:
            raise FormatError("expected 'Name (type) : value'", path=path, line=number)
        name, value = match.group(1).strip(), match.group(2).strip()
        where: dict[str, Any] = {"path": path, "line": number, "field": name}
        if name not in _PARAM_NAMES:
            raise FormatError("unknown TERp parameter", **where)
        spec = _PARAM_NAMES[name]
        if spec is None:
            continue
        attr, kind = spec
        if kind == "str":
            values[attr] = value
            continue
        if value == "":
            continue
        if kind == "bool":
            if value.lower() not in ("true", "false"):
                raise FormatError(f"expected true or false, got {value!r}", **where)
            values[attr] = value.lower() == "true"
        elif kind == "int":
            if not re.fullmatch(r"[+-]?\d+", value):
                raise FormatError(f"expected an integer, got {value!r}", **where)
            values[attr] = int(value)
        elif kind == "float":
            values[attr] = _parse_float(value, where)
        else:
            values[attr] = tuple(_parse_float(v, where) for v in re.split(r"[, \t]+", value))
    params = replace(base or TerpParams(), **values)
    try:
        check_params(params)
    except TerpError as error:
        raise FormatError(str(error), path=path) from None
    return params


def read_params(*paths: str | Path, base: TerpParams | None = None) -> TerpParams:
    """Read TERp parameter files in order, later ones overriding earlier ones (as ``-p``)."""
    params = base or TerpParams()
    for path in paths:
        try:
            text = Path(path).read_text(encoding="utf-8")
        except OSError as error:
            raise FormatError(
                f"cannot read the parameter file: {error.strerror}", path=path
            ) from None
        params = parse_params(text.splitlines(), base=params, path=path)
    return params


def check_params(params: TerpParams) -> None:
    """Raise :class:`TerpError` if a setting is out of range or names something unsupported."""
    for name in ("beam_width", "shift_distance", "shift_size"):
        if getattr(params, name) < 0:
            raise TerpError(f"TERp setting '{name}' must be ≥ 0, got {getattr(params, name)}")
    for name in ("match_cost", "insertion_cost", "deletion_cost", "substitution_cost"):
        value = getattr(params, name)
        if not math.isfinite(value) or value < 0:
            raise TerpError(f"TERp cost '{name}' must be a finite number ≥ 0, got {value!r}")
    for name in ("stem_cost", "synonym_cost"):
        value = getattr(params, name)
        if math.isnan(value) or value < 0:
            raise TerpError(f"TERp cost '{name}' must be ≥ 0, got {value!r}")
    if not math.isfinite(params.shift_cost) or params.shift_cost <= 0:
        raise TerpError(f"TERp cost 'shift_cost' must be > 0, got {params.shift_cost!r}")
    if params.shift_constraint not in SHIFT_CONSTRAINTS:
        raise TerpError(
            f"unknown shift constraint {params.shift_constraint!r}; "
            f"expected one of {', '.join(SHIFT_CONSTRAINTS)}"
        )
    if params.shift_constraint == "allow_mismatch":
        raise TerpError("the shift constraint 'allow_mismatch' is not supported")
    func = params.adjust_phrase_table_func or "NONE"
    if func not in ADJUST_FUNCS:
        raise TerpError(
            f"unknown phrase-table adjust function {func!r}; expected one of "
            f"{', '.join(ADJUST_FUNCS)}"
        )
    if ADJUST_FUNCS[func] and len(params.adjust_phrase_table_params) != ADJUST_FUNCS[func]:
        raise TerpError(
            f"the adjust function {func} needs {ADJUST_FUNCS[func]} parameters, got "
            f"{len(params.adjust_phrase_table_params)}"
        )
    unsupported = {
        "word_class_file": params.word_class_file,
        "weight_file": params.weight_file,
        "generalize_numbers": params.generalize_numbers,
        "normalization_file": params.normalization_file,
        "use_multi_word_class": params.use_multi_word_class,
        "sum_duplicate_phrases": params.sum_duplicate_phrases,
    }
    for name, value in unsupported.items():
        if value:
            raise TerpError(f"the TERp setting '{name}' is not supported")


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
        raise TerpError(f"a segment must be a string, got {type(text).__name__}")
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


@functools.lru_cache(maxsize=200_000)
def porter_stem(word: str) -> str:
    """TERp's Porter stem (Martin Porter's own implementation; nltk's MARTIN_EXTENSIONS)."""
    return str(resources.porter_stemmer("MARTIN_EXTENSIONS").stem(word, to_lowercase=False))


def are_synonyms(a: str, b: str) -> bool:
    """TERp's synonym test: the two words share a WordNet 3.0 synset (after morphy)."""
    return not _synsets(a).isdisjoint(_synsets(b))


# --- phrase table -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PhraseEntry:
    """One paraphrase-table entry: ``ref`` may be replaced by ``hyp`` with probability ``prob``."""

    ref: tuple[str, ...]
    hyp: tuple[str, ...]
    prob: float


@dataclass(frozen=True, slots=True)
class PhraseTable:
    """A paraphrase table, indexed by the first reference word."""

    entries: tuple[PhraseEntry, ...]
    by_first: Mapping[str, tuple[PhraseEntry, ...]] = field(repr=False, default_factory=dict)

    @classmethod
    def of(cls, entries: Iterable[PhraseEntry]) -> PhraseTable:
        items = tuple(entries)
        index: dict[str, list[PhraseEntry]] = {}
        for entry in items:
            if not entry.ref or not entry.hyp:
                raise TerpError("a phrase-table entry has an empty side")
            index.setdefault(entry.ref[0], []).append(entry)
        return cls(items, {k: tuple(v) for k, v in index.items()})


_PT_ONE = re.compile(r"^([0-9.eE\-]+)\s+<p>(.*)</p>\s+<p>(.*)</p>$")
_PT_TWO = re.compile(r"^([0-9.eE\-]+)\s+([0-9.eE\-]+)\s+<p>(.*)</p>\s+<p>(.*)</p>$")


def parse_phrase_table(lines: Iterable[str], *, path: str | Path | None = None) -> PhraseTable:
    """TERp's text phrase table: ``p <p>ref</p> <p>hyp</p>`` or ``p1 p2 <p>ref</p> <p>hyp</p>``
    (TERp adds both probabilities as entries for the same pair). Entries whose two sides are equal
    are skipped, as TERp does; a line in neither form is an error (TERp skips it silently)."""
    entries: list[PhraseEntry] = []
    for number, raw in enumerate(lines, start=1):
        line = raw.strip()
        if not line:
            continue
        one = _PT_ONE.match(line)
        two = None if one else _PT_TWO.match(line)
        if one is None and two is None:
            raise FormatError(
                "expected 'prob <p>ref words</p> <p>hyp words</p>'", path=path, line=number
            )
        groups = one.groups() if one else two.groups()  # type: ignore[union-attr]
        probs_text, ref_text, hyp_text = groups[:-2], groups[-2], groups[-1]
        probs: list[float] = []
        for text in probs_text:
            try:
                probs.append(float(text))
            except ValueError:
                raise FormatError(
                    f"bad probability {text!r}", path=path, line=number, field="probability"
                ) from None
        ref = tuple(ref_text.split())
        hyp = tuple(hyp_text.split())
        if not ref or not hyp:
            raise FormatError("a phrase is empty", path=path, line=number, field="phrase")
        if ref == hyp:
            continue
        entries.extend(PhraseEntry(ref, hyp, p) for p in probs)
    return PhraseTable.of(entries)


def read_phrase_table(path: str | Path) -> PhraseTable:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as error:
        raise FormatError(f"cannot read the phrase table: {error.strerror}", path=path) from None
    return parse_phrase_table(text.splitlines(), path=path)


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


# --- kernels ----------------------------------------------------------------------------------


@njit(cache=True)
def _phrase_matches(
    k: int, perm: I64, j: int, hyp_ids: I64, ph_hlen: I64, ph_off: I64, ph_ids: I64
) -> bool:
    n_hyp = perm.shape[0]
    hl = ph_hlen[k]
    if j + hl > n_hyp:
        return False
    base = ph_off[k]
    for t in range(hl):  # noqa: SIM110 (numba: no generator in all())
        if hyp_ids[perm[j + t]] != ph_ids[base + t]:
            return False
    return True


@njit(cache=True)
def _min_edit_dist(
    perm: I64,
    n_ref: int,
    eq: BoolArray,
    stem_ok: BoolArray,
    syn_ok: BoolArray,
    sub_cost: F64,
    ins_cost: F64,
    del_cost: F64,
    match_cost: float,
    stem_cost: float,
    syn_cost: float,
    beam: float,
    hyp_ids: I64,
    ph_rlen: I64,
    ph_hlen: I64,
    ph_first: I64,
    ph_off: I64,
    ph_ids: I64,
    ph_cost: F64,
    s_mat: F64,
    p_mat: I8,
    pl_mat: I64,
) -> float:
    """TERp's ``MinEditDist_SW`` over ``hyp[perm]``: fills ``s_mat``/``p_mat``/``pl_mat``
    ``(R + 1, H + 1)`` (cost, edit label, phrase row of a ``P``) and returns the cost. Unreached
    cells hold +inf (TERp uses −1, which only differs when costs may be negative)."""
    n_hyp = perm.shape[0]
    inf = np.inf
    for i in range(n_ref + 1):
        for j in range(n_hyp + 1):
            s_mat[i, j] = inf
            p_mat[i, j] = 0
    s_mat[0, 0] = 0.0
    current_best = _INF
    current_first_good = 0
    cur_last_good = 0
    for j in range(n_hyp + 1):
        last_best = current_best
        current_best = _INF
        first_good = current_first_good if current_first_good > 0 else 0
        current_first_good = -1
        last_good = cur_last_good
        cur_last_good = -1
        h = perm[j] if j < n_hyp else -1
        for i in range(first_good, n_ref + 1):
            if j != n_hyp and i > last_good:
                break
            score = s_mat[i, j]
            if score == inf:
                continue
            if j < n_hyp and score > last_best + beam:
                continue
            if current_first_good == -1:
                current_first_good = i
            if i < n_ref and j < n_hyp:
                if eq[h, i]:
                    cost = match_cost + score
                    if s_mat[i + 1, j + 1] == inf or cost < s_mat[i + 1, j + 1]:
                        s_mat[i + 1, j + 1] = cost
                        p_mat[i + 1, j + 1] = OP_MATCH
                    if cost < current_best:
                        current_best = cost
                else:
                    cost = sub_cost[h, i] + score
                    if s_mat[i + 1, j + 1] == inf or cost < s_mat[i + 1, j + 1]:
                        s_mat[i + 1, j + 1] = cost
                        p_mat[i + 1, j + 1] = OP_SUB
                        if cost < current_best:
                            current_best = cost
                    if stem_ok[h, i]:
                        cost = stem_cost + score
                        if s_mat[i + 1, j + 1] == inf or cost < s_mat[i + 1, j + 1]:
                            s_mat[i + 1, j + 1] = cost
                            p_mat[i + 1, j + 1] = OP_STEM
                            if cost < current_best:
                                current_best = cost
                    if syn_ok[h, i]:
                        cost = syn_cost + score
                        if s_mat[i + 1, j + 1] == inf or cost < s_mat[i + 1, j + 1]:
                            s_mat[i + 1, j + 1] = cost
                            p_mat[i + 1, j + 1] = OP_SYNONYM
                            if cost < current_best:
                                current_best = cost
            cur_last_good = i + 1
            if i < n_ref:
                for k in range(ph_first[i], ph_first[i + 1]):
                    if not ph_cost[k] < inf:
                        continue
                    if not _phrase_matches(k, perm, j, hyp_ids, ph_hlen, ph_off, ph_ids):
                        continue
                    ti = i + ph_rlen[k]
                    tj = j + ph_hlen[k]
                    cost = score + ph_cost[k]
                    if s_mat[ti, tj] == inf or cost < s_mat[ti, tj]:
                        s_mat[ti, tj] = cost
                        p_mat[ti, tj] = OP_PHRASE
                        pl_mat[ti, tj] = k
            if j < n_hyp:
                icost = score + ins_cost[h]
                if s_mat[i, j + 1] == inf or s_mat[i, j + 1] > icost:
                    s_mat[i, j + 1] = icost
                    p_mat[i, j + 1] = OP_INS
            if i < n_ref:
                dcost = score + del_cost[i]
                if s_mat[i + 1, j] == inf or s_mat[i + 1, j] > dcost:
                    s_mat[i + 1, j] = dcost
                    p_mat[i + 1, j] = OP_DEL
                    if i >= last_good:
                        last_good = i + 1
    return float(s_mat[n_ref, n_hyp])


@njit(cache=True)
def _trace(
    n_hyp: int,
    n_ref: int,
    p_mat: I8,
    pl_mat: I64,
    ph_rlen: I64,
    ph_hlen: I64,
    path: I8,
    path_rl: I64,
    path_hl: I64,
    path_ph: I64,
) -> int:
    """Back-pointers from ``(R, H)`` to the origin; labels and spans go to ``path*[:length]``."""
    i = n_ref
    j = n_hyp
    k = path.shape[0]
    while i > 0 or j > 0:
        k -= 1
        op = p_mat[i, j]
        path[k] = op
        path_ph[k] = -1
        if op == OP_INS:
            path_rl[k] = 0
            path_hl[k] = 1
            j -= 1
        elif op == OP_DEL:
            path_rl[k] = 1
            path_hl[k] = 0
            i -= 1
        elif op == OP_PHRASE:
            e = pl_mat[i, j]
            path_ph[k] = e
            path_rl[k] = ph_rlen[e]
            path_hl[k] = ph_hlen[e]
            i -= ph_rlen[e]
            j -= ph_hlen[e]
        else:
            path_rl[k] = 1
            path_hl[k] = 1
            i -= 1
            j -= 1
    length = path.shape[0] - k
    for t in range(length):
        path[t] = path[k + t]
        path_rl[t] = path_rl[k + t]
        path_hl[t] = path_hl[k + t]
        path_ph[t] = path_ph[k + t]
    return int(length)


@njit(cache=True)
def _align_errors(
    path: I8,
    path_rl: I64,
    path_hl: I64,
    length: int,
    herr: BoolArray,
    rerr: BoolArray,
    ralign: I64,
    halign: I64,
) -> None:
    """TERp's ``FindAlignErr``: positions in error and each side's facing position."""
    hpos = -1
    rpos = -1
    for t in range(length):
        sym = path[t]
        if sym == OP_PHRASE:
            srpos = rpos + 1
            shpos = hpos + 1
            for _ in range(path_hl[t]):
                hpos += 1
                herr[hpos] = True
                halign[hpos] = srpos
            for _ in range(path_rl[t]):
                rpos += 1
                rerr[rpos] = True
                ralign[rpos] = shpos
        elif sym == OP_INS:
            hpos += 1
            herr[hpos] = True
            halign[hpos] = rpos
        elif sym == OP_DEL:
            rpos += 1
            rerr[rpos] = True
            ralign[rpos] = hpos
        else:
            hpos += 1
            rpos += 1
            bad = sym != OP_MATCH
            herr[hpos] = bad
            rerr[rpos] = bad
            ralign[rpos] = hpos
            halign[hpos] = rpos


@njit(cache=True)
def _add_candidate(
    cands: I64, count: int, start: int, end: int, moveto: int, newloc: int, bucket: int
) -> int:
    """Add a shift to its length bucket unless that bucket holds the same (start, end, newloc)
    already (TERp keeps each bucket in a TreeSet: the first one added stays). Returns the new
    count, or −1 if ``cands`` is full."""
    for k in range(count):
        if (
            cands[k, 4] == bucket
            and cands[k, 0] == start
            and cands[k, 1] == end
            and cands[k, 3] == newloc
        ):
            return count
    if count == cands.shape[0]:
        return -1
    cands[count, 0] = start
    cands[count, 1] = end
    cands[count, 2] = moveto
    cands[count, 3] = newloc
    cands[count, 4] = bucket
    return count + 1


@njit(cache=True)
def _gather_shifts(
    perm: I64,
    n_ref: int,
    shift_eq: BoolArray,
    herr: BoolArray,
    rerr: BoolArray,
    ralign: I64,
    halign: I64,
    hyp_stop: BoolArray,
    ref_stop: BoolArray,
    max_size: int,
    max_dist: int,
    use_phrases: bool,
    hyp_ids: I64,
    ph_rlen: I64,
    ph_hlen: I64,
    ph_first: I64,
    ph_off: I64,
    ph_ids: I64,
    cands: I64,
) -> int:
    """TERp's ``gather_poss_shifts``: rows ``(start, end, moveto, newloc, bucket)`` in
    ``cands``; returns how many (−1 if ``cands`` is too small). Spans grow word by word while
    the words match (``shift_eq``) and, with ``use_phrases``, also jump over phrase entries
    (TERp's recursion, done here with an explicit stack in the same order)."""
    n_hyp = perm.shape[0]
    count = 0
    st_hlen = np.empty(max_size + 2, np.int64)
    st_rlen = np.empty(max_size + 2, np.int64)
    st_len = np.empty(max_size + 2, np.int64)
    st_k = np.empty(max_size + 2, np.int64)
    for ri in range(n_ref):
        for hi in range(n_hyp):
            top = 0
            st_hlen[0] = 0
            st_rlen[0] = 0
            st_len[0] = 0
            st_k[0] = -1
            while top >= 0:
                h_len = st_hlen[top]
                r_len = st_rlen[top]
                ln = st_len[top]
                if h_len >= max_size or ln >= max_size - h_len:
                    top -= 1
                    continue
                hind = hi + h_len + ln
                rind = ri + r_len + ln
                if hind >= n_hyp or rind >= n_ref:
                    top -= 1
                    continue
                if st_k[top] == -1:
                    st_k[top] = ph_first[rind] if use_phrases else 0
                pushed = False
                # TERp looks phrases up only for reference positions facing hypothesis words
                # within a shift's reach of the lookup position (its ``paramap`` window).
                in_window = False
                if use_phrases:
                    sh = hind - max_dist if hind - max_dist > 0 else 0
                    eh = hind + max_dist if hind + max_dist < n_hyp - 1 else n_hyp - 1
                    lo_r = halign[sh] if halign[sh] > 0 else 0
                    hi_r = halign[eh] if halign[eh] < n_ref - 1 else n_ref - 1
                    in_window = lo_r <= rind <= hi_r
                if in_window:
                    while st_k[top] < ph_first[rind + 1]:
                        k = st_k[top]
                        st_k[top] += 1
                        if _phrase_matches(k, perm, hind, hyp_ids, ph_hlen, ph_off, ph_ids):
                            top += 1
                            st_hlen[top] = h_len + ln + ph_hlen[k]
                            st_rlen[top] = r_len + ln + ph_rlen[k]
                            st_len[top] = 0
                            st_k[top] = -1
                            pushed = True
                            break
                if pushed:
                    continue
                if not shift_eq[perm[hind], rind]:
                    top -= 1
                    continue
                st_len[top] = ln + 1
                st_k[top] = -1
                no_err = True
                for t in range(hi, hind + 1):
                    if herr[t]:
                        no_err = False
                        break
                if no_err:
                    continue
                no_err = True
                for t in range(ri, rind + 1):
                    if rerr[t]:
                        no_err = False
                        break
                if no_err:
                    continue
                all_stop = True
                for t in range(hi, hind + 1):
                    if not hyp_stop[perm[t]]:
                        all_stop = False
                        break
                if all_stop:
                    continue
                all_stop = True
                for t in range(ri, rind + 1):
                    if not ref_stop[t]:
                        all_stop = False
                        break
                if all_stop:
                    continue
                moveto = ralign[ri]
                if not (
                    moveto != hi
                    and (moveto < hi or moveto > hind)
                    and moveto - hi <= max_dist
                    and hi - moveto <= max_dist
                ):
                    continue
                span = hind - hi + 1
                if rind - ri + 1 > span:
                    span = rind - ri + 1
                if span > max_size + 1:
                    span = max_size + 1
                for roff in range(-1, hind - hi + 1):
                    if roff == -1 and ri == 0:
                        count = _add_candidate(cands, count, hi, hind, -1, -1, span - 1)
                    elif (
                        ri + roff >= 0
                        and ri + roff < n_ref
                        and hi != ralign[ri + roff]
                        and (roff == 0 or ralign[ri + roff] != ralign[ri])
                    ):
                        count = _add_candidate(
                            cands, count, hi, hind, ri + roff, ralign[ri + roff], span - 1
                        )
                    if count < 0:
                        return -1
    return count


@njit(cache=True)
def _terp_core(
    n_ref: int,
    eq: BoolArray,
    stem_ok: BoolArray,
    syn_ok: BoolArray,
    shift_eq: BoolArray,
    sub_cost: F64,
    ins_cost: F64,
    del_cost: F64,
    match_cost: float,
    stem_cost: float,
    syn_cost: float,
    shift_cost: float,
    hyp_stop: BoolArray,
    ref_stop: BoolArray,
    beam: float,
    max_size: int,
    max_dist: int,
    do_shifts: bool,
    shift_phrases: bool,
    hyp_ids: I64,
    ph_rlen: I64,
    ph_hlen: I64,
    ph_first: I64,
    ph_off: I64,
    ph_ids: I64,
    ph_cost: F64,
) -> tuple[float, I64, I8, I64, I64, I64, int, I64, int]:
    """TERp's ``TERpp``: greedy shifts (``CalcBestShift``), then the final alignment.

    Word tables are ``(H, R)`` by original hypothesis position. Returns ``(num_edits, perm,
    path, path_rl, path_hl, path_ph, path_len, shifts, n_shifts)``: ``perm`` (H,) the order
    after shifts, the path's labels, spans and phrase rows, and shift rows
    ``(start, end, moveto, newloc)``.
    """
    n_hyp = eq.shape[0]
    perm = np.arange(n_hyp)
    s_mat = np.empty((n_ref + 1, n_hyp + 1))
    p_mat = np.zeros((n_ref + 1, n_hyp + 1), np.int8)
    pl_mat = np.zeros((n_ref + 1, n_hyp + 1), np.int64)
    size = n_hyp + n_ref
    path = np.empty(size, np.int8)
    path_rl = np.empty(size, np.int64)
    path_hl = np.empty(size, np.int64)
    path_ph = np.empty(size, np.int64)
    herr = np.zeros(n_hyp, np.bool_)
    rerr = np.zeros(n_ref, np.bool_)
    ralign = np.zeros(n_ref, np.int64)
    halign = np.zeros(n_hyp, np.int64)
    cands = np.empty((64, 5), np.int64)
    trial = np.empty(n_hyp, np.int64)
    best_perm = np.empty(n_hyp, np.int64)
    shifts = np.empty((8, 4), np.int64)
    n_shifts = 0
    edits = 0.0
    while True:
        # Edit distance and path of the current order (the trials below overwrite the tables).
        cur_ed = _min_edit_dist(
            perm,
            n_ref,
            eq,
            stem_ok,
            syn_ok,
            sub_cost,
            ins_cost,
            del_cost,
            match_cost,
            stem_cost,
            syn_cost,
            beam,
            hyp_ids,
            ph_rlen,
            ph_hlen,
            ph_first,
            ph_off,
            ph_ids,
            ph_cost,
            s_mat,
            p_mat,
            pl_mat,
        )
        path_len = _trace(
            n_hyp, n_ref, p_mat, pl_mat, ph_rlen, ph_hlen, path, path_rl, path_hl, path_ph
        )
        if not do_shifts:
            break
        herr[:] = False
        rerr[:] = False
        ralign[:] = 0
        halign[:] = 0
        _align_errors(path, path_rl, path_hl, path_len, herr, rerr, ralign, halign)
        while True:  # a full candidate table is answered -1: grow it and gather again
            n_cands = _gather_shifts(
                perm,
                n_ref,
                shift_eq,
                herr,
                rerr,
                ralign,
                halign,
                hyp_stop,
                ref_stop,
                max_size,
                max_dist,
                shift_phrases,
                hyp_ids,
                ph_rlen,
                ph_hlen,
                ph_first,
                ph_off,
                ph_ids,
                cands,
            )
            if n_cands >= 0:
                break
            cands = np.empty((cands.shape[0] * 2, 5), np.int64)
        # TERp's order: longest bucket first, then (start, end, newloc) ascending.
        w = n_hyp + 2
        keys = np.empty(n_cands, np.int64)
        for k in range(n_cands):
            keys[k] = (((max_size + 1 - cands[k, 4]) * w + cands[k, 0]) * w + cands[k, 1]) * w + (
                cands[k, 3] + 1
            )
        order = np.argsort(keys)
        curerr = cur_ed
        best_cost = 0.0
        best_ed = cur_ed
        best = -1
        for idx in range(n_cands):
            k = order[idx]
            maxfix = 2.0 * (1 + cands[k, 4])
            curfix = curerr - (best_cost + best_ed)
            if curfix > maxfix or (best_cost != 0.0 and curfix == maxfix):
                break
            _apply_shift(perm, cands[k, 0], cands[k, 1], cands[k, 3], trial)
            ed = _min_edit_dist(
                trial,
                n_ref,
                eq,
                stem_ok,
                syn_ok,
                sub_cost,
                ins_cost,
                del_cost,
                match_cost,
                stem_cost,
                syn_cost,
                beam,
                hyp_ids,
                ph_rlen,
                ph_hlen,
                ph_first,
                ph_off,
                ph_ids,
                ph_cost,
                s_mat,
                p_mat,
                pl_mat,
            )
            gain = (best_ed + best_cost) - (ed + shift_cost)
            if gain > 0.0 or (best_cost == 0.0 and gain == 0.0):
                best = k
                best_cost = shift_cost
                best_ed = ed
                best_perm[:] = trial
        if best < 0:
            break
        shifts = _push_shift(shifts, n_shifts, cands[best])
        n_shifts += 1
        edits += best_cost
        perm[:] = best_perm
    return cur_ed + edits, perm, path, path_rl, path_hl, path_ph, path_len, shifts, n_shifts


# --- engine -----------------------------------------------------------------------------------


def _log10(x: float) -> float:
    if x > 0:
        return math.log10(x)
    return -math.inf if x == 0 else math.nan


def adjust_phrase_cost(prob: float, ned: float, params: TerpParams) -> float:
    """TERp's phrase-table adjust function: the edit cost of a phrase substitution whose table
    probability is ``prob`` and whose two sides are ``ned`` apart (TERp edit cost without
    phrases), clamped to ``[Adjust Phrase Table Min, Max]``. IEEE arithmetic, as in Java."""
    func = params.adjust_phrase_table_func or "NONE"
    a = params.adjust_phrase_table_params
    if func == "NONE":
        cost = prob
    elif func == "STD":
        cost = a[0] + a[1] * _log10(prob) * ned + a[2] * prob * ned + a[3] * ned
    elif func == "STDINV":
        cost = a[0] + a[1] * _log10(1.0 - prob) * ned + a[2] * (1.0 - prob) * ned + a[3] * ned
    elif func == "STDNONED":
        cost = a[0] + a[1] * _log10(prob) + a[2] * prob
    else:  # STDINVNONED
        cost = a[0] + a[1] * _log10(1.0 - prob) + a[2] * (1.0 - prob)
    if cost > params.adjust_phrase_table_max:
        cost = params.adjust_phrase_table_max
    if cost < params.adjust_phrase_table_min:
        cost = params.adjust_phrase_table_min
    return float(cost)


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
                raise TerpError(
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
            raise TerpError(f"{what}: expected a string or a sequence of string tokens")
        words = list(segment) if self.params.case_sensitive else [w.lower() for w in segment]
        if any(not w or _JAVA_SPACE.search(w) for w in words):
            raise TerpError(f"{what}: a token is empty or contains whitespace")
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
            raise TerpError(f"edit cost '{name}' has shape {arr.shape}, expected {shape}")
        if name != "phrase" and not np.all(np.isfinite(arr)):
            raise TerpError(f"edit cost '{name}' must be finite")
    if np.isnan(costs.phrase).any():
        raise TerpError("edit cost 'phrase' must not be NaN (use +inf for an unusable entry)")
    for name in ("match", "stem", "synonym"):
        if math.isnan(getattr(costs, name)):
            raise TerpError(f"edit cost '{name}' must not be NaN")
    if not math.isfinite(costs.shift) or costs.shift <= 0:
        raise TerpError(f"the shift cost must be > 0 (TERp loops otherwise), got {costs.shift!r}")


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
    mode = _SHIFT_MODE[params.shift_constraint]
    relax = mode >= 2
    shift_eq = seg.eq | (seg.stem & relax) | (seg.syn & relax)
    ph = seg.phrases
    first = np.searchsorted(ph[:, 0], np.arange(n_r + 1), side="left").astype(np.int64)
    do_shifts = mode > 0 and params.shift_size > 0 and params.shift_distance > 0
    result = _terp_core(
        n_r,
        seg.eq,
        seg.stem,
        seg.syn,
        np.ascontiguousarray(shift_eq),
        np.ascontiguousarray(costs.sub, dtype=np.float64),
        np.ascontiguousarray(costs.ins, dtype=np.float64),
        np.ascontiguousarray(costs.dele, dtype=np.float64),
        float(costs.match),
        float(costs.stem),
        float(costs.synonym),
        float(costs.shift),
        seg.hyp_stop,
        seg.ref_stop,
        float(params.beam_width),
        int(params.shift_size),
        int(params.shift_distance),
        do_shifts,
        mode == 3 and len(ph) > 0,
        seg.hyp_ids,
        np.ascontiguousarray(ph[:, 1]),
        np.ascontiguousarray(ph[:, 2]),
        first,
        seg.phrase_hyp_off,
        seg.phrase_hyp_ids,
        np.ascontiguousarray(costs.phrase, dtype=np.float64),
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


def param_names() -> tuple[str, ...]:
    """Every parameter name :func:`parse_params` accepts."""
    return tuple(_PARAM_NAMES)


def params_as_dict(params: TerpParams) -> dict[str, Any]:
    """JSON-safe form of a parameter set (infinities as strings)."""
    out: dict[str, Any] = {}
    for f in fields(params):
        value = getattr(params, f.name)
        if isinstance(value, float) and not math.isfinite(value):
            value = str(value)
        elif isinstance(value, tuple):
            value = list(value)
        out[f.name] = value
    return out
