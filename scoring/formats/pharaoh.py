"""``pharaoh``: a directory of line-aligned plain-text files (the Moses/GIZA++ convention).

- ``source.txt``, ``target.txt``: one tokenized sentence per line, tokens separated by spaces.
- ``alignment.txt``: one line per pair, ``i-j`` a sure link and ``i?j`` a possible link (0-based
  source index ``i``, target index ``j``); on import ``i-j-S`` / ``i-j-P`` are accepted too. An
  empty line is a pair without links. The file may be missing on import (tokens only).
- ``ids.txt`` (optional on import, always written): one pair id per line. Without it the ids are
  the 1-based line numbers (``"1"``, ``"2"``, …), which is what other tools produce; with it,
  ids survive a round trip, which is why the writer always writes it.

Every file present must have the same number of lines. The format carries one alignment per pair:
it is read as the gold alignment, or as one annotator's work with ``annotator=NAME``. Raw texts
are the detokenized tokens (:func:`scoring.text.detokenize`). The writer writes sorted links, so
export → import → export is byte-identical.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

from scoring.alignment.links import Alignment
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
    require_file,
    split_from_name,
)
from scoring.text import detokenize

SOURCE = "source.txt"
TARGET = "target.txt"
ALIGNMENT = "alignment.txt"
IDS = "ids.txt"


def read(paths: Sequence[Path], *, annotator: str | None = None) -> Iterator[PairRecord]:
    """Pairs of one or more Pharaoh directories, in order; ids must be unique across them."""
    ids = IdRegistry()
    for directory in paths:
        yield from _read_directory(directory, ids, annotator)


def _read_directory(
    directory: Path, ids: IdRegistry, annotator: str | None
) -> Iterator[PairRecord]:
    if directory.is_file():
        require_file(directory)  # a zip archive is named as one
    if not directory.is_dir():
        raise FormatError(
            "the pharaoh format reads a directory holding source.txt, target.txt and alignment.txt",
            path=directory,
        )
    source_path = directory / SOURCE
    target_path = directory / TARGET
    alignment_path = directory / ALIGNMENT
    ids_path = directory / IDS
    split = split_from_name(directory.name)

    streams: dict[str, Iterator[tuple[int, bytes]]] = {
        "source": raw_lines(source_path),
        "target": raw_lines(target_path),
    }
    paths = {"source": source_path, "target": target_path}
    if alignment_path.exists():
        streams["alignment"] = raw_lines(alignment_path)
        paths["alignment"] = alignment_path
    if ids_path.exists():
        streams["id"] = raw_lines(ids_path)
        paths["id"] = ids_path

    number = 0
    while True:
        rows = {name: next(stream, None) for name, stream in streams.items()}
        ended = [name for name, row in rows.items() if row is None]
        if ended:
            if len(ended) != len(rows):
                longer = next(name for name in rows if name not in ended)
                raise FormatError(
                    f"{paths[longer].name} has more lines than "
                    f"{', '.join(paths[name].name for name in ended)} "
                    f"({number} lines); every file needs one line per pair",
                    path=paths[longer],
                    line=number + 1,
                    field=longer,
                )
            break
        number += 1
        text = {
            name: decode(row[1], path=paths[name], line=number, field=name)
            for name, row in rows.items()
            if row is not None
        }
        source = check_tokens(text["source"].split(), path=source_path, line=number, field="source")
        target = check_tokens(text["target"].split(), path=target_path, line=number, field="target")
        pair_id = text["id"].strip() if "id" in text else str(number)
        ids.add(pair_id, path=paths.get("id", source_path), line=number)

        record = PairRecord(
            id=pair_id,
            origin=(str(paths.get("id", source_path)), number),
            source_tokens=source,
            target_tokens=target,
            source_text=detokenize(source),
            target_text=detokenize(target),
            split=split,
        )
        if "alignment" in text:
            try:
                alignment = Alignment.from_pharaoh(text["alignment"], len(source), len(target))
            except AlignmentError as error:
                raise FormatError(
                    str(error), path=alignment_path, line=number, field="alignment"
                ) from None
            if annotator is None:
                record.gold_alignment = alignment
            else:
                record.annotations[annotator] = AnnotationRecord(alignment=alignment)
        yield record
    if number == 0:
        raise FormatError("the file holds no pairs", path=source_path, line=1, field="source")


def write(
    records: Iterable[PairRecord], output: Path, *, alignment: AlignmentSelector | None = None
) -> None:
    """Write ``output/{source,target,alignment,ids}.txt``.

    ``alignment`` picks the alignment written for each pair (default:
    :func:`~scoring.formats.default_alignment`); a pair for which it returns ``None`` gets an
    empty alignment line.
    """
    if output.exists() and not output.is_dir():
        raise FormatError("the pharaoh format writes a directory, but this is a file", path=output)
    with contextlib.ExitStack() as stack:
        source = stack.enter_context(atomic_output(output / SOURCE))
        target = stack.enter_context(atomic_output(output / TARGET))
        links = stack.enter_context(atomic_output(output / ALIGNMENT))
        id_file = stack.enter_context(atomic_output(output / IDS))
        for record in records:
            check_writable_tokens(record, output=output)
            if not record.id or any(ch.isspace() for ch in record.id):
                raise FormatError(
                    f"pair id {record.id!r} is empty or contains whitespace; ids.txt holds one "
                    "id per line",
                    path=output / IDS,
                    field="id",
                )
            chosen = checked_alignment(record, alignment, output=output / ALIGNMENT)
            source.write(" ".join(record.source_tokens) + "\n")
            target.write(" ".join(record.target_tokens) + "\n")
            links.write((chosen.to_pharaoh() if chosen is not None else "") + "\n")
            id_file.write(record.id + "\n")
