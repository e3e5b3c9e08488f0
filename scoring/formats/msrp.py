"""``msrp``: the Microsoft Research Paraphrase Corpus TSV (Dolan & Brockett 2005).

``msr_paraphrase_{train,test}.txt``: UTF-8 with a BOM, a header line
``Quality<TAB>#1 ID<TAB>#2 ID<TAB>#1 String<TAB>#2 String``, then one pair per line. Columns are
split on tabs only: the sentences contain ``"`` freely and are not CSV-quoted, so a CSV reader
would merge or mangle lines.

Each pair becomes a record with id ``<#1 ID>_<#2 ID>``, ``gold_label`` = Quality (1 paraphrase,
0 not), raw texts as given, tokens from :func:`scoring.text.tokenize`, the split from the file
name (``train``/``test``) and the two sentence ids in ``metadata["msrp"]``. There is no writer.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

from scoring.corpus import PairRecord
from scoring.errors import FormatError
from scoring.formats._common import IdRegistry, check_tokens, decode, raw_lines, split_from_name
from scoring.text import tokenize

COLUMNS = ("Quality", "#1 ID", "#2 ID", "#1 String", "#2 String")


def read(paths: Sequence[Path]) -> Iterator[PairRecord]:
    """Pairs of one or more MSRP files; ids must be unique across them."""
    ids = IdRegistry()
    for path in paths:
        yield from _read_file(path, ids)


def _read_file(path: Path, ids: IdRegistry) -> Iterator[PairRecord]:
    split = split_from_name(path.name)
    count = 0
    for number, raw in raw_lines(path):
        if number == 1:
            header = tuple(decode(raw, path=path, line=1, field="header").split("\t"))
            if header != COLUMNS:
                raise FormatError(
                    f"expected the header {' <TAB> '.join(COLUMNS)!r}, found "
                    f"{' <TAB> '.join(header)[:200]!r}",
                    path=path,
                    line=1,
                    field="header",
                )
            continue
        if not raw.strip():
            continue
        cells = raw.split(b"\t")
        if len(cells) != len(COLUMNS):
            field = COLUMNS[len(cells)] if len(cells) < len(COLUMNS) else f"column {len(cells)}"
            raise FormatError(
                f"expected {len(COLUMNS)} tab-separated columns "
                f"({', '.join(COLUMNS)}), found {len(cells)}",
                path=path,
                line=number,
                field=field,
            )
        quality, id1, id2, text1, text2 = (
            decode(cell, path=path, line=number, field=name)
            for cell, name in zip(cells, COLUMNS, strict=True)
        )
        if quality.strip() not in ("0", "1"):
            raise FormatError(
                f"expected 0 or 1, found {quality!r}", path=path, line=number, field="Quality"
            )
        for name, value in (("#1 ID", id1), ("#2 ID", id2)):
            if not value.strip() or any(ch.isspace() for ch in value.strip()):
                raise FormatError(
                    f"expected a sentence id, found {value!r}", path=path, line=number, field=name
                )
        pair_id = f"{id1.strip()}_{id2.strip()}"
        ids.add(pair_id, path=path, line=number, field="#1 ID")
        count += 1
        yield PairRecord(
            id=pair_id,
            origin=(str(path), number),
            source_tokens=check_tokens(tokenize(text1), path=path, line=number, field="#1 String"),
            target_tokens=check_tokens(tokenize(text2), path=path, line=number, field="#2 String"),
            source_text=text1,
            target_text=text2,
            split=split,
            gold_label=int(quality),
            metadata={"msrp": {"id1": id1.strip(), "id2": id2.strip()}},
        )
    if count == 0:
        raise FormatError("the file holds no pairs", path=path, line=2, field="Quality")
