"""Phrase tables: the phrase pairs a corpus' alignments license, counted over the corpus.

For each sentence pair the phrase pairs consistent with its alignment are extracted with Cohn,
Callison-Burch & Lapata's (2008, §3) boundary rule (:func:`extract_phrase_pairs_batch`), each
labelled atomic or composite; a table counts, per (source phrase, target phrase), in how many
places it was extracted as an atomic pair and as a composite one. Lexically identical phrase
pairs (the same tokens ignoring case) are left out by default, as in the paper's agreement
figures.

The file form is UTF-8 TSV with a header line: ``source``, ``target``, ``atomic``,
``composite``, ``total``; rows by descending total, then source and target text. Tokens are
written verbatim: a phrase table is training data read back by tools, where ``=`` or ``-`` is a
word, so cells are not given the spreadsheet-formula guard of the report CSV
(:func:`scoring.alignment.report_records.spreadsheet_text`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import islice
from pathlib import Path

from scoring.alignment.links import Alignment
from scoring.alignment.phrases import (
    PhrasePairs,
    extract_phrase_pairs_batch,
    identical_mask,
    phrase_text,
)
from scoring.files import atomic_output

HEADER = ("source", "target", "atomic", "composite", "total")
BATCH = 1024
"""Sentence pairs extracted per kernel call when building a table (bounds the memory held)."""


@dataclass(slots=True)
class PhraseCount:
    atomic: int = 0
    composite: int = 0

    @property
    def total(self) -> int:
        return self.atomic + self.composite


PhraseTable = dict[tuple[str, str], PhraseCount]


def phrase_table_build(
    items: Iterable[tuple[Sequence[str], Sequence[str], Alignment]],
    *,
    use: str = "possible",
    max_length: int | None = 7,
    keep_identical: bool = False,
) -> PhraseTable:
    """The phrase table of ``(source tokens, target tokens, alignment)`` items.

    The items are read lazily, :data:`BATCH` at a time, and each batch is extracted in one call
    (:func:`extract_phrase_pairs_batch`).
    """
    table: PhraseTable = {}
    iterator = iter(items)
    while chunk := list(islice(iterator, BATCH)):
        batch = extract_phrase_pairs_batch(
            [alignment for _, _, alignment in chunk], use=use, max_length=max_length
        )
        for (source, target, _), pairs in zip(chunk, batch, strict=True):
            _add_pairs(table, source, target, pairs, keep_identical)
    return table


def _add_pairs(
    table: PhraseTable,
    source: Sequence[str],
    target: Sequence[str],
    pairs: PhrasePairs,
    keep_identical: bool,
) -> int:
    spans, atomic = pairs.spans, pairs.atomic
    if not keep_identical and len(spans):
        keep = ~identical_mask(spans, source, target)
        spans, atomic = spans[keep], atomic[keep]
    for span, is_atomic in zip(spans, atomic, strict=True):
        entry = table.setdefault(phrase_text(span, source, target), PhraseCount())
        if is_atomic:
            entry.atomic += 1
        else:
            entry.composite += 1
    return len(spans)


def phrase_table_rows(table: PhraseTable) -> list[tuple[str, str, int, int, int]]:
    """The table's rows in file order: descending total, then source and target."""
    rows = [(s, t, c.atomic, c.composite, c.total) for (s, t), c in table.items()]
    rows.sort(key=lambda row: (-row[4], row[0], row[1]))
    return rows


def write_phrase_table(table: PhraseTable, output: Path) -> int:
    """Write the table as TSV through a temporary file renamed into place (no partial file);
    returns the number of rows. The file gets the permissions of every other export (the
    umask's), not ``mkstemp``'s owner-only ones: the web process that serves the download may
    run as another user than the worker that wrote it."""
    rows = phrase_table_rows(table)
    with atomic_output(Path(output)) as out:
        out.write("\t".join(HEADER) + "\n")
        for row in rows:
            out.write("\t".join(str(value) for value in row) + "\n")
    return len(rows)
