"""``jacana``: the JSON of the jacana aligner and of Edinburgh++ (Thadani, Martin & White 2012).

A file is a JSON array of objects::

    {"id": "news-common:2143", "name": "news-common:2143",
     "source": "Hackett and Rossignol did not know each other ...",   # tokens, space-separated
     "target": "state police Lt. Timothy Doyle said Hackett ...",
     "sureAlign": "0-6 1-7 2-8", "possibleAlign": ""}                  # 0-based "i-j" links

``i`` indexes ``source`` and ``j`` indexes ``target`` (in Edinburgh++ link ``0-6`` joins
source ``Hackett`` to target ``Hackett``).

Edinburgh++ ships the possible links only implicitly, as two files: ``*.sure.json`` (sure links)
and ``*.sure+poss.json`` (sure and possible links, all in ``sureAlign``). Import therefore takes
one file (its ``sureAlign`` is ``S``, its ``possibleAlign`` the possible links) or the two files
together, the sure file first (a ``+poss`` file given first is recognised by its name): then
``S`` is the sure file's links and possible = (sure+poss) − S. The two files must hold the same
ids in the same order with the same tokens, and every sure link must be in the sure+poss file.

Ids of the form ``<subcorpus>-<partition>:<number>`` (``mtc-trial:12``, ``news-common:2143``)
give the sub-corpus (``news``); the partition goes to ``metadata["jacana"]["partition"]``, and a
``name`` other than the id to ``metadata["jacana"]["name"]``. The alignment is read as the gold
alignment, or as one annotator's work with ``annotator=NAME``.

The writer writes one file with ``sureAlign`` and ``possibleAlign`` (possible-only links),
keys sorted, indented by four spaces like the Edinburgh++ files. JSON arrays are read whole (the
jacana files are small); writing streams.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, NoReturn

from scoring.alignment.links import Alignment, Link
from scoring.corpus import AnnotationRecord, PairRecord
from scoring.errors import FormatError
from scoring.files import atomic_output
from scoring.formats._common import (
    AlignmentSelector,
    IdRegistry,
    check_tokens,
    check_writable_tokens,
    checked_alignment,
    json_message,
    refuse_unreadable_head,
    require_file,
    split_from_name,
)
from scoring.formats._common import not_utf8 as utf8_problem
from scoring.text import detokenize

_ID = re.compile(r"^(?P<subcorpus>[^-:\s]+)(?:-(?P<partition>[^:\s]+))?:(?P<number>\S+)$")
_LINK = re.compile(r"^([0-9]+)-([0-9]+)$")
_KEYS = ("id", "source", "target", "sureAlign")


class _Item:
    """One object of a jacana array with the line it starts on and its 1-based position.

    Errors name the pair by position and id as well as by line: a minified file holds every
    pair on line 1.
    """

    def __init__(self, path: Path, line: int, number: int, data: dict[str, Any]) -> None:
        self.path = path
        self.line = line
        self.number = number
        self.data = data

    @property
    def label(self) -> str:
        return _label(self.number, self.data)

    def fail(self, field: str, message: str) -> NoReturn:
        raise FormatError(f"{self.label}: {message}", path=self.path, line=self.line, field=field)

    def string(self, key: str, *, required: bool = True) -> str:
        if key not in self.data:
            if required:
                self.fail(key, "missing")
            return ""
        value = self.data[key]
        if not isinstance(value, str):
            self.fail(key, f"expected a string, got {type(value).__name__}")
        return value

    def tokens(self, key: str) -> list[str]:
        tokens = self.string(key).split()
        if not tokens:
            self.fail(key, "the sentence has no tokens")
        try:
            return check_tokens(tokens, path=self.path, line=self.line, field=key)
        except FormatError as error:
            self.fail(key, error.message)

    def links(self, key: str, shape: tuple[int, int]) -> list[Link]:
        out: list[Link] = []
        n, m = shape
        for position, token in enumerate(self.string(key, required=key == "sureAlign").split()):
            match = _LINK.match(token)
            if match is None:
                self.fail(key, f"link #{position + 1} {token!r} is not 'i-j'")
            i, j = int(match.group(1)), int(match.group(2))
            if not (i < n and j < m):
                self.fail(
                    key,
                    f"link {token} is outside the sentence pair ({n} source tokens, indices "
                    f"0..{n - 1}; {m} target tokens, indices 0..{m - 1})",
                )
            out.append((i, j))
        return out


def _label(number: int, data: object) -> str:
    """``pair #3 (id 'a:3')``, or ``pair #3`` for an object without a string id."""
    pair_id = data.get("id") if isinstance(data, dict) else None
    return f"pair #{number}" + (f" (id {pair_id!r})" if isinstance(pair_id, str) else "")


def _load(path: Path) -> Iterator[_Item]:
    """The objects of a JSON array, each with the (1-based) line where it starts.

    Bytes that are not UTF-8 are reported with the pair that holds them: the text is decoded
    with surrogate escapes, and the pair whose span covers the first bad byte fails.
    """
    require_file(path)
    raw = path.read_bytes()
    refuse_unreadable_head(raw, path=path)
    bad_byte: int | None = None
    bad_character: int | None = None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        bad_byte = error.start
        text = raw.decode("utf-8-sig", errors="surrogateescape")
        bad_character = len(raw[: error.start].decode("utf-8-sig", errors="surrogateescape"))

    def not_utf8(label: str) -> NoReturn:
        assert bad_byte is not None
        raise FormatError(
            f"{label}{utf8_problem(raw, bad_byte)}",
            path=path,
            line=raw.count(b"\n", 0, bad_byte) + 1,
            field=_enclosing_key(raw[:bad_byte]),
        ) from None

    if not text.strip():
        raise FormatError("the file is empty", path=path, line=1, field="(file)")
    decoder = json.JSONDecoder()
    position = _skip_space(text, 0)
    if text[position] != "[":
        raise FormatError(
            "expected a JSON array of pairs",
            path=path,
            line=_line_of(text, position),
            field="(json)",
        )
    position = _skip_space(text, position + 1)
    count = 0
    # the line is counted on from the previous pair's: counting from the file's start for
    # every pair would take time growing with the square of the file's size
    line, counted_to = 1, 0
    while text[position : position + 1] != "]":
        if count:
            if text[position : position + 1] != ",":
                _json_error(path, text, position, "expected ',' or ']' between pairs")
            position = _skip_space(text, position + 1)
        line += text.count("\n", counted_to, position)
        counted_to = position
        start = position
        try:
            value, position = decoder.raw_decode(text, position)
        except json.JSONDecodeError as error:
            _json_error(path, text, error.pos, json_message(error.msg), pair=count + 1)
        except RecursionError:
            raise FormatError(
                f"pair #{count + 1}: the JSON is nested too deeply to be a pair",
                path=path,
                line=line,
                field="(json)",
            ) from None
        count += 1
        if bad_character is not None and start <= bad_character < position:
            not_utf8(f"{_label(count, value)}: ")
        if not isinstance(value, dict):
            raise FormatError(
                f"pair #{count}: expected an object per pair", path=path, line=line, field="(json)"
            )
        yield _Item(path, line, count, value)
        position = _skip_space(text, position)
        if position >= len(text):
            _json_error(path, text, position, "the array is not closed with ']'")
    if _skip_space(text, position + 1) != len(text):
        _json_error(path, text, position + 1, "unexpected text after the array")
    if bad_byte is not None:
        not_utf8("")
    if count == 0:
        raise FormatError("the file holds no pairs", path=path, line=1, field="(json)")


def _skip_space(text: str, position: int) -> int:
    while position < len(text) and text[position] in " \t\r\n":
        position += 1
    return position


def _line_of(text: str, position: int) -> int:
    return text.count("\n", 0, position) + 1


def _json_error(
    path: Path, text: str, position: int, message: str, *, pair: int | None = None
) -> NoReturn:
    """A JSON syntax error at ``position``; inside a pair, named with the pair and column."""
    where = ""
    if pair is not None:
        column = position - text.rfind("\n", 0, position)
        where = f" in pair #{pair}, column {column}"
    raise FormatError(
        f"not valid JSON{where}: {message}",
        path=path,
        line=_line_of(text, position),
        field="(json)",
    )


def _enclosing_key(prefix: bytes) -> str:
    """The last ``"key":`` before a byte offset, for naming the field of an encoding error."""
    keys = re.findall(rb'"([A-Za-z_]+)"\s*:', prefix)
    return keys[-1].decode("ascii") if keys else "(file)"


def read(paths: Sequence[Path], *, annotator: str | None = None) -> Iterator[PairRecord]:
    """Pairs of one jacana file, or of an Edinburgh++ ``sure`` file with its ``sure+poss`` file."""
    if not 1 <= len(paths) <= 2:
        raise FormatError(
            f"the jacana format reads one file, or a sure file and its sure+poss file; "
            f"got {len(paths)} paths",
            path=paths[0] if paths else None,
        )
    sure_path = paths[0]
    poss_path = paths[1] if len(paths) == 2 else None
    if poss_path is not None and "poss" in sure_path.name and "poss" not in poss_path.name:
        sure_path, poss_path = poss_path, sure_path
    split = split_from_name(sure_path.name)
    ids = IdRegistry()
    sure_items = _load(sure_path)
    poss_items = _load(poss_path) if poss_path is not None else None

    for item in sure_items:
        pair_id = item.string("id")
        ids.add(pair_id, path=item.path, line=item.line, record=f"pair #{item.number}")
        source = item.tokens("source")
        target = item.tokens("target")
        shape = (len(source), len(target))
        sure = item.links("sureAlign", shape)
        possible = item.links("possibleAlign", shape)
        if poss_items is not None:
            other = next(poss_items, None)
            if other is None:
                raise FormatError(
                    f"the sure+poss file ends before pair {pair_id!r} (line {item.line} of "
                    f"{sure_path.name}); both files must hold the same pairs",
                    path=poss_path,
                    field="id",
                )
            _check_same_pair(item, other, pair_id, source, target)
            union = set(other.links("sureAlign", shape)) | set(other.links("possibleAlign", shape))
            missing = sorted(set(sure) - union)
            if missing:
                other.fail(
                    "sureAlign",
                    f"sure link {missing[0][0]}-{missing[0][1]} of {sure_path.name} "
                    f"(line {item.line}) is missing here; is this the sure+poss file?",
                )
            possible = sorted(union.union(possible) - set(sure))
        alignment = Alignment.from_links(shape[0], shape[1], sure, possible)
        record = PairRecord(
            id=pair_id,
            source_tokens=source,
            target_tokens=target,
            source_text=detokenize(source),
            target_text=detokenize(target),
            split=split,
            origin=(str(item.path), item.line),
        )
        meta: dict[str, str] = {}
        match = _ID.match(pair_id)
        if match is not None:
            record.subcorpus = match.group("subcorpus")
            if match.group("partition"):
                meta["partition"] = match.group("partition")
        name = item.string("name", required=False)
        if name and name != pair_id:
            meta["name"] = name
        if meta:
            record.metadata["jacana"] = meta
        if annotator is None:
            record.gold_alignment = alignment
        else:
            record.annotations[annotator] = AnnotationRecord(alignment=alignment)
        yield record

    if poss_items is not None:
        extra = next(poss_items, None)
        if extra is not None:
            extra.fail(
                "id",
                f"the sure+poss file has more pairs than {sure_path.name}; both files must hold "
                "the same pairs",
            )


def _check_same_pair(
    item: _Item, other: _Item, pair_id: str, source: list[str], target: list[str]
) -> None:
    other_id = other.string("id")
    if other_id != pair_id:
        other.fail(
            "id",
            f"pair {other_id!r} is where {item.path.name} has {pair_id!r} (line {item.line}); "
            "both files must hold the same pairs in the same order",
        )
    for key, tokens in (("source", source), ("target", target)):
        if other.tokens(key) != tokens:
            other.fail(
                key,
                f"the tokens of pair {pair_id!r} differ from {item.path.name} (line {item.line})",
            )


def write(
    records: Iterable[PairRecord], output: Path, *, alignment: AlignmentSelector | None = None
) -> None:
    """Write one jacana JSON file with ``sureAlign`` and ``possibleAlign`` per pair.

    ``alignment`` picks the alignment (default :func:`~scoring.formats.default_alignment`); a
    pair without one gets empty link strings.
    """
    with atomic_output(output) as handle:
        handle.write("[")
        first = True
        for record in records:
            check_writable_tokens(record, output=output)
            chosen = checked_alignment(record, alignment, output=output)
            meta = record.metadata.get("jacana")
            name = meta.get("name") if isinstance(meta, dict) else None
            item = {
                "id": record.id,
                "name": name if isinstance(name, str) else record.id,
                "possibleAlign": _links(chosen.possible_only) if chosen else "",
                "source": " ".join(record.source_tokens),
                "sureAlign": _links(chosen.sure) if chosen else "",
                "target": " ".join(record.target_tokens),
            }
            body = json.dumps(item, indent=4, sort_keys=True, ensure_ascii=False)
            handle.write(("\n" if first else ",\n") + _indent(body))
            first = False
        handle.write("\n]\n")


def _links(links: Iterable[Link]) -> str:
    return " ".join(f"{i}-{j}" for i, j in sorted(links))


def _indent(body: str) -> str:
    return "\n".join("    " + line for line in body.split("\n"))
