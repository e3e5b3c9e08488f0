"""TERp's settings and paraphrase table (Snover et al. 2009), read as TERp 1.0 reads them.

Parameter files (:func:`read_params`) use TERp's ``Name (type) : value`` lines; later files
override earlier ones. Phrase tables (:func:`read_phrase_table`) use TERp's text format,
``prob <p>ref words</p> <p>hyp words</p>`` (or two probabilities, both added); each entry's
probability becomes an edit cost by the parameter file's adjust function
(:func:`adjust_phrase_cost`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from scoring.errors import FormatError, InputError, OptionsError

SHIFT_CONSTRAINTS = ("noshift", "exact", "relax_nophrase", "relax", "allow_mismatch")
#: How far a shift's words may differ from the reference words they face, by constraint.
SHIFT_MODES = {"noshift": 0, "exact": 1, "relax_nophrase": 2, "relax": 3}
ADJUST_FUNCS = {"NONE": 0, "STD": 4, "STDINV": 4, "STDNONED": 3, "STDINVNONED": 3}


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
    except OptionsError as error:
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
    """Raise :class:`~scoring.errors.OptionsError` if a setting is out of range or names
    something unsupported."""
    for name in ("beam_width", "shift_distance", "shift_size"):
        if getattr(params, name) < 0:
            raise OptionsError(f"TERp setting '{name}' must be ≥ 0, got {getattr(params, name)}")
    for name in ("match_cost", "insertion_cost", "deletion_cost", "substitution_cost"):
        value = getattr(params, name)
        if not math.isfinite(value) or value < 0:
            raise OptionsError(f"TERp cost '{name}' must be a finite number ≥ 0, got {value!r}")
    for name in ("stem_cost", "synonym_cost"):
        value = getattr(params, name)
        if math.isnan(value) or value < 0:
            raise OptionsError(f"TERp cost '{name}' must be ≥ 0, got {value!r}")
    if not math.isfinite(params.shift_cost) or params.shift_cost <= 0:
        raise OptionsError(f"TERp cost 'shift_cost' must be > 0, got {params.shift_cost!r}")
    if params.shift_constraint not in SHIFT_CONSTRAINTS:
        raise OptionsError(
            f"unknown shift constraint {params.shift_constraint!r}; "
            f"expected one of {', '.join(SHIFT_CONSTRAINTS)}"
        )
    if params.shift_constraint == "allow_mismatch":
        raise OptionsError("the shift constraint 'allow_mismatch' is not supported")
    func = params.adjust_phrase_table_func or "NONE"
    if func not in ADJUST_FUNCS:
        raise OptionsError(
            f"unknown phrase-table adjust function {func!r}; expected one of "
            f"{', '.join(ADJUST_FUNCS)}"
        )
    if ADJUST_FUNCS[func] and len(params.adjust_phrase_table_params) != ADJUST_FUNCS[func]:
        raise OptionsError(
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
            raise OptionsError(f"the TERp setting '{name}' is not supported")


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
                raise InputError("a phrase-table entry has an empty side")
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


# --- phrase costs ------------------------------------------------------------------------------


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
