"""``multimwa``: the files of the MultiMWA monolingual word-alignment benchmark (Lan, Jiang & Xu
2021), the format the neural monolingual aligners read and write.

One pair a line, nine tab-separated columns::

    id  sentence 1  N/A  sentence 2  N/A  1  1  sure links  possible links

and an empty tenth column may follow. Tokens are the sentences split on whitespace; links are
``i-j`` (0-based, sentence 1 to sentence 2), space separated; the possible column holds the links
that are possible but not sure (a link written in both is sure). The alignment is read as the
gold alignment, or as one annotator's work with ``annotator=NAME``.

Round trips are byte-identical: a reader keeps what it does not model (the raw sentences, the
third, fifth, sixth and seventh columns, the order of the links, the empty tenth column) in
``metadata["multimwa"]``, and the writer writes those back as long as the alignment and tokens
are unchanged; anything else is written canonically (sorted links, ``N/A``, ``1``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from scoring.alignment.links import Alignment, Link, check_bounds
from scoring.corpus import AnnotationRecord, PairRecord
from scoring.errors import AlignmentError, FormatError
from scoring.files import atomic_output
from scoring.formats._common import (
    AlignmentSelector,
    IdRegistry,
    check_tokens,
    check_writable_tokens,
    checked_alignment,
    decode,
    raw_lines,
    split_from_name,
)

COLUMNS = (
    "id",
    "sentence 1",
    "column 3",
    "sentence 2",
    "column 5",
    "column 6",
    "column 7",
    "sure links",
    "possible links",
)
#: What a writer puts in the columns the benchmark does not use when a record has no original.
FILLER = {"column 3": "N/A", "column 5": "N/A", "column 6": "1", "column 7": "1"}
_LINK = re.compile(r"([0-9]+)-([0-9]+)")


def read(paths: Sequence[Path], *, annotator: str | None = None) -> Iterator[PairRecord]:
    """Pairs of one or more MultiMWA files; ids must be unique across them."""
    ids = IdRegistry()
    for path in paths:
        yield from _read_file(path, ids, annotator)


def _read_file(path: Path, ids: IdRegistry, annotator: str | None) -> Iterator[PairRecord]:
    split = split_from_name(path.name)
    count = 0
    for number, raw in raw_lines(path):
        if not raw.strip():
            continue
        cells = [
            decode(cell, path=path, line=number, field=_column_name(k))
            for k, cell in enumerate(raw.split(b"\t"))
        ]
        trailing = len(cells) == len(COLUMNS) + 1 and cells[-1] == ""
        if trailing:
            cells.pop()
        if len(cells) != len(COLUMNS):
            field = COLUMNS[len(cells)] if len(cells) < len(COLUMNS) else f"column {len(cells)}"
            raise FormatError(
                f"expected {len(COLUMNS)} tab-separated columns ({', '.join(COLUMNS)}; an empty "
                f"tenth may follow), found {len(cells)}"
                + (f": the line ends before {field}" if len(cells) < len(COLUMNS) else ""),
                path=path,
                line=number,
                field=field,
            )
        row = dict(zip(COLUMNS, cells, strict=True))
        pair_id = row["id"]
        if not pair_id.strip() or pair_id != pair_id.strip():
            raise FormatError(
                f"expected a pair id without surrounding spaces, found {pair_id!r}",
                path=path,
                line=number,
                field="id",
            )
        ids.add(pair_id, path=path, line=number)
        source = check_tokens(row["sentence 1"].split(), path=path, line=number, field="sentence 1")
        target = check_tokens(row["sentence 2"].split(), path=path, line=number, field="sentence 2")
        sure = _links(row["sure links"], path=path, line=number, field="sure links")
        possible = _links(row["possible links"], path=path, line=number, field="possible links")
        for field, links in (("sure links", sure), ("possible links", possible)):
            try:
                check_bounds(links, len(source), len(target))
            except AlignmentError as error:
                raise FormatError(str(error), path=path, line=number, field=field) from None
        alignment = Alignment.from_links(len(source), len(target), sure, set(possible) - set(sure))
        count += 1
        record = PairRecord(
            id=pair_id,
            origin=(str(path), number),
            source_tokens=source,
            target_tokens=target,
            source_text=row["sentence 1"],
            target_text=row["sentence 2"],
            split=split,
            metadata={
                "multimwa": {
                    **{name: row[name] for name in FILLER},
                    "sure links": row["sure links"],
                    "possible links": row["possible links"],
                    "empty tenth column": trailing,
                }
            },
        )
        if annotator is None:
            record.gold_alignment = alignment
        else:
            record.annotations[annotator] = AnnotationRecord(alignment=alignment)
        yield record
    if count == 0:
        raise FormatError("the file holds no pairs", path=path, line=1, field="id")


def _column_name(index: int) -> str:
    return COLUMNS[index] if index < len(COLUMNS) else f"column {index + 1}"


def _links(text: str, *, path: Path, line: int, field: str) -> list[Link]:
    links: list[Link] = []
    for token in text.split():
        match = _LINK.fullmatch(token)
        if match is None:
            raise FormatError(
                f"expected links i-j (0-based token positions), found {token!r}",
                path=path,
                line=line,
                field=field,
            )
        link = (int(match.group(1)), int(match.group(2)))
        if link in links:
            raise FormatError(f"link {token} is written twice", path=path, line=line, field=field)
        links.append(link)
    return links


def write(
    records: Iterable[PairRecord], output: Path, *, alignment: AlignmentSelector | None = None
) -> None:
    """Write one MultiMWA file; ``alignment`` picks each pair's alignment (default:
    :func:`~scoring.formats.default_alignment`; ``None`` writes empty link columns)."""
    with atomic_output(output) as out:
        for record in records:
            check_writable_tokens(record, output=output)
            if not record.id or record.id != record.id.strip() or "\t" in record.id:
                raise FormatError(
                    f"pair id {record.id!r} is empty, has surrounding spaces or a tab",
                    path=output,
                    field="id",
                )
            chosen = checked_alignment(record, alignment, output=output)
            out.write("\t".join(_cells(record, chosen)) + "\n")


def _cells(record: PairRecord, chosen: Alignment | None) -> list[str]:
    original: dict[str, Any] = record.metadata.get("multimwa") or {}
    sure = sorted(chosen.sure) if chosen is not None else []
    possible = sorted(chosen.possible_only) if chosen is not None else []
    sure_text = " ".join(f"{i}-{j}" for i, j in sure)
    possible_text = " ".join(f"{i}-{j}" for i, j in possible)
    read_sure = _read_links(original.get("sure links"))
    read_possible = _read_links(original.get("possible links"))
    if (
        read_sure is not None
        and read_possible is not None
        and sorted(read_sure) == sure
        and sorted(set(read_possible) - set(sure)) == possible
    ):
        sure_text, possible_text = original["sure links"], original["possible links"]
    cells = [
        record.id,
        _sentence(record.source_text, record.source_tokens),
        _unused(original, "column 3"),
        _sentence(record.target_text, record.target_tokens),
        _unused(original, "column 5"),
        _unused(original, "column 6"),
        _unused(original, "column 7"),
        sure_text,
        possible_text,
    ]
    if original.get("empty tenth column") is True:
        cells.append("")
    return cells


def _unused(original: dict[str, Any], name: str) -> str:
    """A column the benchmark does not use: as it was read, else its filler."""
    value = original.get(name)
    if isinstance(value, str) and not any(ch in value for ch in "\t\r\n"):
        return value
    return FILLER[name]


def _read_links(text: object) -> list[Link] | None:
    """The links of a link column as it was read; ``None`` if it is not one."""
    if not isinstance(text, str):
        return None
    found = [_LINK.fullmatch(token) for token in text.split()]
    if any(match is None for match in found):
        return None
    return [(int(m.group(1)), int(m.group(2))) for m in found if m is not None]


def _sentence(text: str, tokens: list[str]) -> str:
    """The sentence as it was read when it still splits into ``tokens``, else the tokens joined
    by spaces."""
    if text and text.split() == tokens and not any(ch in text for ch in "\t\r\n"):
        return text
    return " ".join(tokens)
