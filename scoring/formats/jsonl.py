"""``jsonl``: the project's own lossless corpus format, one sentence pair per line.

Each line is a JSON object with these keys (the writer writes all of them, sorted; a reader
needs only ``id``, ``source_tokens`` and ``target_tokens`` and fills the rest with defaults; a
missing text is the detokenized tokens)::

    {"annotations": {"alice": {"comment": "", "flags": ["not_paraphrase"], "possible": [[2, 3]],
                               "rating": 4.5, "status": "submitted", "sure": [[0, 0], [1, 1]]}},
     "gold_alignment": {"possible": [], "sure": [[0, 0]]},     # or null
     "gold_label": 1,                                          # int or null
     "gold_score": 3.8,                                        # float or null
     "id": "news-common:2143",
     "metadata": {...},                                        # any JSON object
     "prefill": {"aligner": "giza-1.0", "confidence": [[0, 0, 0.93]],
                 "possible": [[1, 2]], "sure": [[0, 0]]},      # or null
     "source_text": "...", "source_tokens": ["..."], "split": "train", "subcorpus": "news",
     "target_text": "...", "target_tokens": ["..."]}

Links are ``[i, j]`` with 0-based source index ``i`` and target index ``j``. ``sure`` holds ``S``
and ``possible`` the links that are possible *but not sure* (``P − S``), as an annotator sees
them; a link listed in both is sure. Unknown keys are errors (a typo must not lose data), and
so are a status or a flag the web app does not know (``scoring.corpus.ANNOTATION_FLAGS``) and a
flag listed twice.

Output is deterministic: keys sorted, links sorted, no spaces, floats in Python's shortest
round-tripping form, UTF-8 without escapes, ``\\n`` line ends. So export → import → export is
byte-identical. Reading streams line by line; memory does not grow with the file.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, NoReturn

from scoring.alignment.links import Alignment, Link
from scoring.corpus import ANNOTATION_FLAGS, ANNOTATION_STATUSES, AnnotationRecord, PairRecord
from scoring.errors import FormatError
from scoring.files import atomic_output
from scoring.formats._common import (
    AlignmentSelector,
    IdRegistry,
    check_tokens,
    json_message,
    raw_lines,
)
from scoring.text import detokenize

_PAIR_KEYS = frozenset(
    {
        "annotations",
        "gold_alignment",
        "gold_label",
        "gold_score",
        "id",
        "metadata",
        "prefill",
        "source_text",
        "source_tokens",
        "split",
        "subcorpus",
        "target_text",
        "target_tokens",
    }
)
_REQUIRED = ("id", "source_tokens", "target_tokens")
_ANNOTATION_KEYS = frozenset({"comment", "flags", "possible", "rating", "status", "sure"})
_PREFILL_KEYS = frozenset({"aligner", "confidence", "possible", "sure"})
_ALIGNMENT_KEYS = frozenset({"possible", "sure"})
#: Whitespace inside a token (``\s`` on text: what ``str.isspace`` calls space).
_WHITESPACE = re.compile(r"\s")


# --- reading ---------------------------------------------------------------------------------


def read(paths: Sequence[Path]) -> Iterator[PairRecord]:
    """Pairs of one or more ``.jsonl`` files, in file order; ids must be unique across them."""
    ids = IdRegistry()
    for path in paths:
        count = 0
        for number, raw in raw_lines(path):
            if not raw.strip():
                continue
            record = _parse_line(raw, path=path, line=number)
            ids.add(record.id, path=path, line=number)
            count += 1
            yield record
        if count == 0:
            raise FormatError("the file holds no pairs", path=path, line=1, field="id")


def _reject_constant(name: str) -> NoReturn:
    raise ValueError(f"{name} is not a number JSON allows")


class _Line:
    """Validation context of one line: every error names the file, the line and the field."""

    def __init__(self, path: Path, line: int) -> None:
        self.path = path
        self.line = line

    def fail(self, field: str, message: str) -> NoReturn:
        raise FormatError(message, path=self.path, line=self.line, field=field)

    def string(self, value: Any, field: str, *, nonempty: bool = False) -> str:
        if not isinstance(value, str):
            self.fail(field, f"expected a string, got {_kind(value)}")
        if nonempty and not value:
            self.fail(field, "must not be empty")
        return value

    def tokens(self, value: Any, field: str) -> list[str]:
        if not isinstance(value, list):
            self.fail(field, f"expected a list of token strings, got {_kind(value)}")
        if not value:
            self.fail(field, "the sentence has no tokens")
        for position, token in enumerate(value):
            if not isinstance(token, str) or not token:
                self.fail(f"{field}[{position}]", f"expected a non-empty string, got {token!r}")
        # Every other format writes tokens space-separated: a corpus with such a token could not
        # be exported to them, nor the token be told from two on the way back. One search of
        # the sentence; the token is looked for only when there is one.
        if _WHITESPACE.search("".join(value)):
            position, token = next((k, t) for k, t in enumerate(value) if _WHITESPACE.search(t))
            self.fail(
                f"{field}[{position}]",
                f"the token {token!r} holds whitespace; a token is one word: split it",
            )
        return check_tokens(value, path=self.path, line=self.line, field=field)

    def number(self, value: Any, field: str) -> float | None:
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int | float):
            self.fail(field, f"expected a number or null, got {_kind(value)}")
        result = float(value)
        if not math.isfinite(result):
            self.fail(field, f"expected a finite number, got {value!r}")
        return result

    def integer(self, value: Any, field: str) -> int | None:
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int):
            self.fail(field, f"expected an integer or null, got {_kind(value)}")
        return value

    def mapping(self, value: Any, field: str, keys: frozenset[str]) -> dict[str, Any]:
        if not isinstance(value, dict):
            self.fail(field, f"expected an object, got {_kind(value)}")
        unknown = sorted(set(value) - keys)
        if unknown:
            self.fail(
                f"{field}.{unknown[0]}" if field else unknown[0],
                f"unknown key; expected one of {', '.join(sorted(keys))}",
            )
        return value

    def links(self, value: Any, field: str, shape: tuple[int, int]) -> list[Link]:
        if not isinstance(value, list):
            self.fail(field, f"expected a list of [i, j] links, got {_kind(value)}")
        n, m = shape
        # Fast path for well-formed lists; anything odd is re-checked link by link below so
        # the error names the exact element.
        if all(type(item) is list and len(item) == 2 for item in value):
            pairs = [(item[0], item[1]) for item in value]
            if all(
                type(i) is int and type(j) is int and 0 <= i < n and 0 <= j < m for i, j in pairs
            ):
                return pairs
        return [self.link(item, f"{field}[{k}]", shape) for k, item in enumerate(value)]

    def link(self, item: Any, field: str, shape: tuple[int, int], size: int = 2) -> Link:
        if (
            not isinstance(item, list)
            or len(item) != size
            or any(isinstance(v, bool) or not isinstance(v, int) for v in item[:2])
        ):
            expected = "[i, j]" if size == 2 else "[i, j, confidence]"
            self.fail(field, f"expected {expected} with integer indices, got {item!r}")
        i, j = item[0], item[1]
        n, m = shape
        if not (0 <= i < n and 0 <= j < m):
            self.fail(
                field,
                f"link {i}-{j} is outside the sentence pair ({n} source tokens, indices "
                f"0..{n - 1}; {m} target tokens, indices 0..{m - 1})",
            )
        return (i, j)

    def alignment(self, value: dict[str, Any], field: str, shape: tuple[int, int]) -> Alignment:
        sure = self.links(value.get("sure", []), f"{field}.sure", shape)
        possible = self.links(value.get("possible", []), f"{field}.possible", shape)
        return Alignment.from_links(shape[0], shape[1], sure, possible)


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    return {
        bool: "a boolean",
        int: "an integer",
        float: "a number",
        str: "a string",
        list: "a list",
        dict: "an object",
    }.get(type(value), type(value).__name__)


def _text(ctx: _Line, data: dict[str, Any], key: str, tokens: list[str]) -> str:
    """The sentence's text; a line without it gets the detokenized tokens, as the formats
    that carry no raw text do, so the pair's words show in lists and searches find them."""
    if key not in data:
        return detokenize(tokens)
    return ctx.string(data[key], key)


def _parse_line(raw: bytes, *, path: Path, line: int) -> PairRecord:
    ctx = _Line(path, line)
    try:
        text = raw.decode("utf-8")
        undecodable = False
    except UnicodeDecodeError:
        # Decode anyway so the JSON can be parsed and the field holding the bad bytes named.
        text = raw.decode("utf-8", errors="surrogateescape")
        undecodable = True
    try:
        data = json.loads(text, parse_constant=_reject_constant)
    except RecursionError:
        ctx.fail("(json)", "the JSON is nested too deeply to be a pair")
    except ValueError as error:
        column = getattr(error, "colno", None)
        where = f" (column {column})" if column else ""
        message = json_message(getattr(error, "msg", str(error)))
        if undecodable:
            ctx.fail("(json)", "contains bytes that are not UTF-8; save the file as UTF-8")
        ctx.fail("(json)", f"not valid JSON{where}: {message}")
    if not isinstance(data, dict):
        ctx.fail("(json)", f"expected one JSON object per line, got {_kind(data)}")
    if undecodable:
        bad_field = _field_with_undecodable_bytes(data, "") or "(json)"
        ctx.fail(bad_field, "contains bytes that are not UTF-8; save the file as UTF-8")
    ctx.mapping(data, "", _PAIR_KEYS)
    for key in _REQUIRED:
        if key not in data:
            ctx.fail(key, "missing")

    pair_id = ctx.string(data["id"], "id", nonempty=True)
    source = ctx.tokens(data["source_tokens"], "source_tokens")
    target = ctx.tokens(data["target_tokens"], "target_tokens")
    shape = (len(source), len(target))

    record = PairRecord(
        id=pair_id,
        source_tokens=source,
        target_tokens=target,
        source_text=_text(ctx, data, "source_text", source),
        target_text=_text(ctx, data, "target_text", target),
        subcorpus=ctx.string(data.get("subcorpus", ""), "subcorpus"),
        split=ctx.string(data.get("split", ""), "split"),
        gold_score=ctx.number(data.get("gold_score"), "gold_score"),
        gold_label=ctx.integer(data.get("gold_label"), "gold_label"),
        origin=(str(ctx.path), ctx.line),
    )

    prefill = data.get("prefill")
    if prefill is not None:
        prefill = ctx.mapping(prefill, "prefill", _PREFILL_KEYS)
        record.prefill = ctx.alignment(prefill, "prefill", shape)
        record.prefill_aligner = ctx.string(prefill.get("aligner", ""), "prefill.aligner")
        record.prefill_confidence = _confidence(
            ctx, prefill.get("confidence", []), shape, record.prefill
        )

    annotations = data.get("annotations", {})
    if not isinstance(annotations, dict):
        ctx.fail("annotations", f"expected an object keyed by annotator, got {_kind(annotations)}")
    for name, value in annotations.items():
        field = f"annotations.{name}"
        if not name:
            ctx.fail(field, "the annotator name is empty")
        value = ctx.mapping(value, field, _ANNOTATION_KEYS)
        flags = value.get("flags", [])
        if not isinstance(flags, list):
            ctx.fail(f"{field}.flags", f"expected a list of strings, got {_kind(flags)}")
        for k, flag in enumerate(flags):
            ctx.string(flag, f"{field}.flags[{k}]", nonempty=True)
            if flag not in ANNOTATION_FLAGS:
                known = ", ".join(sorted(ANNOTATION_FLAGS))
                ctx.fail(f"{field}.flags[{k}]", f"unknown flag {flag!r}; the flags are {known}")
            if flag in flags[:k]:
                ctx.fail(f"{field}.flags[{k}]", f"the flag {flag!r} is listed twice")
        rating = ctx.number(value.get("rating"), f"{field}.rating")
        if rating is not None and not 0.0 <= rating <= 5.0:
            ctx.fail(f"{field}.rating", f"must be between 0 and 5, got {rating!r}")
        status = ctx.string(value.get("status", "submitted"), f"{field}.status", nonempty=True)
        if status not in ANNOTATION_STATUSES:
            ctx.fail(
                f"{field}.status",
                f"unknown status {status!r}; expected one of {', '.join(ANNOTATION_STATUSES)}",
            )
        record.annotations[name] = AnnotationRecord(
            alignment=ctx.alignment(value, field, shape),
            status=status,
            flags=tuple(flags),
            rating=rating,
            comment=ctx.string(value.get("comment", ""), f"{field}.comment"),
            origin=(str(ctx.path), ctx.line, field),
        )

    gold = data.get("gold_alignment")
    if gold is not None:
        gold = ctx.mapping(gold, "gold_alignment", _ALIGNMENT_KEYS)
        record.gold_alignment = ctx.alignment(gold, "gold_alignment", shape)

    metadata = data.get("metadata", {})
    if not isinstance(metadata, dict):
        ctx.fail("metadata", f"expected an object, got {_kind(metadata)}")
    record.metadata = metadata
    return record


def _confidence(
    ctx: _Line, value: Any, shape: tuple[int, int], prefill: Alignment
) -> dict[Link, float]:
    if not isinstance(value, list):
        ctx.fail("prefill.confidence", f"expected a list of [i, j, confidence], got {_kind(value)}")
    links = prefill.possible
    # Fast path; the loop below re-checks item by item to name the bad one.
    if all(
        type(item) is list
        and len(item) == 3
        and type(item[0]) is int
        and type(item[1]) is int
        and (item[0], item[1]) in links
        and (type(item[2]) is int or (type(item[2]) is float and math.isfinite(item[2])))
        for item in value
    ):
        return {(item[0], item[1]): float(item[2]) for item in value}
    out: dict[Link, float] = {}
    for k, item in enumerate(value):
        field = f"prefill.confidence[{k}]"
        link = ctx.link(item, field, shape, size=3)
        if link not in prefill.possible:
            ctx.fail(
                field, f"confidence given for {link[0]}-{link[1]}, which is not a prefill link"
            )
        score = ctx.number(item[2], field)
        if score is None:
            ctx.fail(field, "the confidence is null")
        out[link] = score
    return out


def _field_with_undecodable_bytes(value: Any, field: str) -> str | None:
    """The dotted path of the first string that holds bytes which were not UTF-8."""
    if isinstance(value, str):
        return field or "(json)" if any("\udc80" <= ch <= "\udcff" for ch in value) else None
    if isinstance(value, list):
        for k, item in enumerate(value):
            found = _field_with_undecodable_bytes(item, f"{field}[{k}]")
            if found is not None:
                return found
    if isinstance(value, dict):
        for key, item in value.items():
            path = f"{field}.{key}" if field else str(key)
            found = _field_with_undecodable_bytes(key, path) or _field_with_undecodable_bytes(
                item, path
            )
            if found is not None:
                return found
    return None


# --- writing ---------------------------------------------------------------------------------


def write(
    records: Iterable[PairRecord], output: Path, *, alignment: AlignmentSelector | None = None
) -> None:
    """Write every field of every record to ``output``, one line per pair.

    ``jsonl`` keeps all alignments (prefill, each annotator's, gold), so it takes no
    ``alignment`` selector; passing one is an error rather than a silent no-op.
    """
    if alignment is not None:
        raise FormatError(
            "the jsonl format writes every alignment of a pair; it takes no alignment choice",
            path=output,
            field="alignment",
        )
    with atomic_output(output) as handle:
        for record in records:
            handle.write(dumps(record, output=output))
            handle.write("\n")


def loads(line: str, *, source: str = "(text)") -> PairRecord:
    """One record from its JSONL line, validated as a file's line is (``source`` names it in
    errors)."""
    return _parse_line(line.encode("utf-8"), path=Path(source), line=1)


def dumps(record: PairRecord, *, output: Path | None = None) -> str:
    """One record as its canonical JSONL line (without the line end)."""
    data = to_json(record)
    try:
        return json.dumps(
            data, sort_keys=True, ensure_ascii=False, separators=(",", ":"), allow_nan=False
        )
    except (TypeError, ValueError) as error:
        raise FormatError(
            f"pair {record.id!r} cannot be written as JSON: {error}",
            path=output,
            field="metadata",
        ) from None


def to_json(record: PairRecord) -> dict[str, Any]:
    """The plain-JSON form of a record, as written by :func:`write`."""
    prefill: dict[str, Any] | None = None
    if record.prefill is not None:
        prefill = _alignment_json(record.prefill)
        prefill["aligner"] = record.prefill_aligner
        prefill["confidence"] = [
            [i, j, float(c)] for (i, j), c in sorted(record.prefill_confidence.items())
        ]
    return {
        "annotations": {
            name: {
                **_alignment_json(annotation.alignment),
                "comment": annotation.comment,
                "flags": list(annotation.flags),
                "rating": None if annotation.rating is None else float(annotation.rating),
                "status": annotation.status,
            }
            for name, annotation in record.annotations.items()
        },
        "gold_alignment": (
            None if record.gold_alignment is None else _alignment_json(record.gold_alignment)
        ),
        "gold_label": record.gold_label,
        "gold_score": None if record.gold_score is None else float(record.gold_score),
        "id": record.id,
        "metadata": record.metadata,
        "prefill": prefill,
        "source_text": record.source_text,
        "source_tokens": record.source_tokens,
        "split": record.split,
        "subcorpus": record.subcorpus,
        "target_text": record.target_text,
        "target_tokens": record.target_tokens,
    }


def _alignment_json(alignment: Alignment) -> dict[str, Any]:
    return {
        "possible": [list(link) for link in sorted(alignment.possible_only)],
        "sure": [list(link) for link in sorted(alignment.sure)],
    }
