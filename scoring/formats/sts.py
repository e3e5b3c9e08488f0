"""``sts``: SemEval Semantic Textual Similarity task files (Agirre et al. 2012).

A sub-corpus ``X`` is two line-aligned files in one folder: ``STS.input.X.txt`` (``s1<TAB>s2``
per line) and ``STS.gs.X.txt`` (the gold score, 0–5, per line). Give the input files, or folders
(every ``STS.input.*.txt`` in them, sorted); the gold file is found beside each input file and
must have exactly as many lines.

Each line becomes a record with id ``X-<split>:<line>`` (``MSRpar-train:1``; ``X:<line>`` when
there is no split, so train and test ids never clash), ``subcorpus`` = ``X`` (for example
``MSRpar`` or ``surprise.OnWN``), ``gold_score`` from the gold file, raw texts as given, tokens
from :func:`scoring.text.tokenize`, and the split: the ``split`` option when given (an upload's
files come without their folder, so the web import passes the split its form names), else the
folder name when it is ``train``/``test``/``trial``. There is no writer.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Sequence
from pathlib import Path

from scoring.corpus import PairRecord
from scoring.errors import FormatError
from scoring.formats._common import IdRegistry, check_tokens, decode, raw_lines, split_from_name
from scoring.text import tokenize

_INPUT = re.compile(r"^STS\.input\.(?P<name>.+)\.txt$")
COLUMNS = ("s1", "s2")
_NAMING = (
    "expected an input file named STS.input.<subcorpus>.txt (its scores in "
    "STS.gs.<subcorpus>.txt beside it)"
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
    for path in input_files(paths):
        yield from _read_pair_of_files(path, ids, split)


def _read_pair_of_files(
    path: Path, ids: IdRegistry, given_split: str | None
) -> Iterator[PairRecord]:
    match = _INPUT.match(path.name)
    if match is None:
        raise FormatError(
            _NAMING,
            path=path,
            field="(file name)",
        )
    subcorpus = match.group("name")
    gold_path = path.with_name(f"STS.gs.{subcorpus}.txt")
    if not gold_path.exists():
        raise FormatError(
            f"the gold scores {gold_path.name} are missing beside the input file",
            path=gold_path,
            field="score",
        )
    split = given_split or split_from_name(path.parent.name)
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
        pair_id = f"{subcorpus}-{split}:{number}" if split else f"{subcorpus}:{number}"
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
