"""``sts``: SemEval Semantic Textual Similarity task files (Agirre et al. 2012).

A sub-corpus ``X`` is two line-aligned files in one folder: ``STS.input.X.txt`` (``s1<TAB>s2``
per line) and ``STS.gs.X.txt`` (the gold score, 0–5, per line). Give the input files, or folders
(every ``STS.input.*.txt`` in them, sorted); the gold file is found beside each input file and
must have exactly as many lines. An input through a pipe (``<(…)``, ``/dev/stdin``) has no name
to find its gold by: the path after it is its gold scores (``<(input) <(scores)``), and its
sub-corpus is unnamed.

Each line becomes a record with id ``X-<split>:<line>`` (``MSRpar-train:1``; ``X:<line>`` when
there is no split, so train and test ids never clash; ``<split>:<line>`` or ``<line>`` for a
piped input), ``subcorpus`` = ``X`` (for example
``MSRpar`` or ``surprise.OnWN``), ``gold_score`` from the gold file, raw texts as given, tokens
from :func:`scoring.text.tokenize`, and the split: the ``split`` option when given (an upload's
files come without their folder, so the web import passes the split its form names), else the
folder name when it is ``train``/``test``/``trial``. There is no writer.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from scoring.corpus import PairRecord
from scoring.errors import FormatError
from scoring.formats._common import (
    IdRegistry,
    check_tokens,
    decode,
    raw_lines,
    split_from_name,
    unnamed,
)
from scoring.text import tokenize

_INPUT = re.compile(r"^STS\.input\.(?P<name>.+)\.txt$")
COLUMNS = ("s1", "s2")
_NAMING = (
    "expected an input file named STS.input.<subcorpus>.txt (its scores in "
    "STS.gs.<subcorpus>.txt beside it)"
)


@dataclass(frozen=True)
class Source:
    """One sub-corpus to read: its input file, its gold scores and its name."""

    input: Path
    gold: Path
    subcorpus: str
    #: Its split when no ``split`` is given: the input's folder's name, if it says one.
    split: str


def sources(paths: Sequence[Path]) -> list[Source]:
    """The sub-corpora ``paths`` give: ``STS.input.X.txt`` files (their gold beside them),
    folders holding them, or an input through a pipe followed by its gold scores through
    another (``<(…) <(…)``; a pipe has no name to find its gold by), whose sub-corpus is
    unnamed (``""``) and whose pairs' ids are their line numbers. One input may come through a
    pipe: a second's ids would be the first's."""
    found: list[Source] = []
    streams = 0
    rest = iter(paths)
    for path in rest:
        if not unnamed(path):
            found.extend(_named(named) for named in input_files([path]))
            continue
        gold = next(rest, None)
        if gold is None:
            raise FormatError(
                "an STS input through a pipe needs its gold scores after it, through another "
                "pipe or as a file (<(input) <(scores)): a pipe has no name to find them by",
                path=path,
                field="score",
            )
        streams += 1
        if streams > 1:
            raise FormatError(
                "a second STS input through a pipe: its pairs would take the ids of the first "
                "(a pipe has no sub-corpus name); give one of them as STS.input.X.txt",
                path=path,
                field="(file name)",
            )
        found.append(Source(input=path, gold=gold, subcorpus="", split=""))
    return found


def _named(path: Path) -> Source:
    match = _INPUT.match(path.name)
    if match is None:
        raise FormatError(_NAMING, path=path, field="(file name)")
    subcorpus = match.group("name")
    gold = path.with_name(f"STS.gs.{subcorpus}.txt")
    if not gold.exists():
        raise FormatError(
            f"the gold scores {gold.name} are missing beside the input file",
            path=gold,
            field="score",
        )
    return Source(
        input=path, gold=gold, subcorpus=subcorpus, split=split_from_name(path.parent.name)
    )


def input_files(paths: Sequence[Path]) -> list[Path]:
    """The ``STS.input.X.txt`` files named by ``paths`` (files, or folders holding them)."""
    files: list[Path] = []
    for path in paths:
        if path.is_dir():
            held = sorted(p for p in path.iterdir() if p.is_file())
            found = [p for p in held if _INPUT.match(p.name)]
            if not found and held:  # name a file given, not the folder (an upload's is internal)
                raise FormatError(_NAMING, path=held[0], field="(file name)")
            if not found:
                raise FormatError("the folder holds no STS.input.*.txt file", path=path)
            files.extend(found)
        else:
            files.append(path)
    return files


def read(paths: Sequence[Path], split: str | None = None) -> Iterator[PairRecord]:
    """Pairs of one or more STS sub-corpora; ids must be unique across them. ``split``, when
    given, is every pair's split (and part of its id) instead of the one its folder names."""
    ids = IdRegistry()
    for source in sources(paths):
        yield from _read_pair_of_files(source, ids, split)


def _read_pair_of_files(
    source: Source, ids: IdRegistry, given_split: str | None
) -> Iterator[PairRecord]:
    path, gold_path, subcorpus = source.input, source.gold, source.subcorpus
    split = given_split or source.split
    inputs = raw_lines(path)
    scores = raw_lines(gold_path)
    number = 0
    while True:
        row = next(inputs, None)
        gold = next(scores, None)
        if row is None or gold is None:
            if row is not None or gold is not None:
                longer, shorter = (path, gold_path) if row is not None else (gold_path, path)
                raise FormatError(
                    f"{longer.name} has more lines than {shorter.name} ({number}); the input "
                    "and gold files need one line per pair",
                    path=longer,
                    line=number + 1,
                    field="s1" if longer == path else "score",
                )
            break
        number += 1
        cells = row[1].split(b"\t")
        if len(cells) != 2:
            raise FormatError(
                f"expected 2 tab-separated columns (s1, s2), found {len(cells)}",
                path=path,
                line=number,
                field="s2" if len(cells) < 2 else f"column {len(cells)}",
            )
        text1, text2 = (
            decode(cell, path=path, line=number, field=name)
            for cell, name in zip(cells, COLUMNS, strict=True)
        )
        score_text = decode(gold[1], path=gold_path, line=number, field="score").strip()
        try:
            score = float(score_text)
        except ValueError:
            score = math.nan
        if not 0.0 <= score <= 5.0:
            raise FormatError(
                f"expected a score between 0 and 5, found {score_text!r}",
                path=gold_path,
                line=number,
                field="score",
            )
        pair_id = "-".join(part for part in (subcorpus, split) if part)
        pair_id = f"{pair_id}:{number}" if pair_id else str(number)
        ids.add(pair_id, path=path, line=number)
        yield PairRecord(
            id=pair_id,
            origin=(str(path), number),
            source_tokens=check_tokens(tokenize(text1), path=path, line=number, field="s1"),
            target_tokens=check_tokens(tokenize(text2), path=path, line=number, field="s2"),
            source_text=text1,
            target_text=text2,
            subcorpus=subcorpus,
            split=split,
            gold_score=score,
        )
