"""``rte2``: the MSR word alignments of the RTE-2 corpus (Brockett 2007, MSR-TR-2007-77).

One file per annotator (``RTE2_dev_A.align.txt``, ``…_B…``, ``…_C…``); each holds, per pair,
three lines::

    # sentence pair 1
    ECB spokeswoman , Regina Schueller , declined to comment on a report in Italy 's La ...
    NULL ({ / / }) Regina ({ 4 p1 p2 / / }) Shueller ({ 5 p1 p2 / / }) works ({ / / }) ...

The second line is the text T, the third the hypothesis H, both Penn-Treebank tokenized; each
hypothesis word is followed by ``({ … / / })``, the 1-based indices of the text words it is
linked to. An index prefixed by ``p`` is a POSSIBLE link, the others are SURE; ``4 p1 p2`` is a
sure link to text word 4 and possible links to words 1 and 2 (report, "Data format"). The
``/ /`` part is unused. The leading ``NULL`` word is an artefact of the annotation tool; its list
(text words aligned to nothing) is kept per annotator in ``metadata["rte2"]["null"]``.

:func:`read_rte2` reads the files of one set (any number of annotators, usually three) into one
record per pair: ``source_tokens`` = T, ``target_tokens`` = H without ``NULL``, links 0-based
``(i, j)`` = (text index, hypothesis index), and ``annotations[letter]`` for the annotator letter
of each file name. Pair ids are ``<split>:<n>`` (``dev:1``), the split coming from the file name.
A file through a pipe (``<(…)``, ``/dev/stdin``) has no name to read: the pipes are annotators
``A``, ``B``, ``C``… in the order given (the letters named files leave), without a split.

Irregularities of the distributed files, handled on purpose:

- Files start with one or more byte-order marks, and stray BOMs sit inside the first tokens
  (``\\ufeffECB``); every U+FEFF is removed.
- Lines end in CRLF, with or without a trailing space.
- Annotator C's dev file writes the final ``.`` of 41 sentences as ``..``; tokens that differ
  between annotators at the same position are decided by majority (ties: the first annotator in
  letter order), and each annotator's variants are kept in ``metadata["rte2"]["token_variants"]``.
- The last line of annotator C's dev file lacks the closing ``)`` of its final ``({ 23 / / })``;
  a line cut short like that is accepted and noted in ``metadata["rte2"]["repairs"]``.

Token *counts* that disagree between annotators, pair headers out of step, an index outside the
text or anything else malformed raise :class:`~scoring.errors.FormatError` naming file, line and
field. Raw texts are the detokenized tokens. There is no writer.
"""

from __future__ import annotations

import re
import string
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from scoring.alignment.links import Alignment, Link
from scoring.corpus import AnnotationRecord, PairRecord
from scoring.errors import FormatError
from scoring.formats._common import (
    BOM,
    IdRegistry,
    check_tokens,
    decode,
    raw_lines,
    split_from_name,
    unnamed,
)
from scoring.text import detokenize

_FILE_NAME = re.compile(r"_(?P<letter>[A-Za-z])(?:\.align)?(?:\.txt)?$")
_HEADER = re.compile(r"^#\s*sentence pair\s+(?P<number>[0-9]+)\s*$")
_INDEX = re.compile(r"^(?P<possible>p?)(?P<index>[0-9]+)$")


@dataclass(slots=True)
class _Block:
    """One pair as one annotator's file has it."""

    number: int
    header_line: int
    text: list[str]
    hypothesis: list[str]
    sure: set[Link] = field(default_factory=set)
    possible: set[Link] = field(default_factory=set)
    null_sure: list[int] = field(default_factory=list)
    null_possible: list[int] = field(default_factory=list)
    repairs: list[str] = field(default_factory=list)


def annotator_letter(path: Path) -> str:
    """The annotator letter of a file name such as ``RTE2_dev_B.align.txt`` (``"B"``)."""
    match = _FILE_NAME.search(path.name)
    if match is None:
        raise FormatError(
            "cannot tell the annotator from the file name; expected a name ending in "
            "'_<letter>.align.txt' such as RTE2_dev_A.align.txt",
            path=path,
            field="(file name)",
        )
    return match.group("letter").upper()


def read(paths: Sequence[Path]) -> Iterator[PairRecord]:
    """Registry entry point: :func:`read_rte2` as an iterator."""
    return iter(read_rte2(paths))


def read_rte2(paths: Sequence[Path]) -> list[PairRecord]:
    """The pairs of one RTE-2 set, one record per pair with one annotation per file.

    The files are read completely before anything is returned (a set is 800 pairs), so a
    mismatch between annotators anywhere is reported before any record is used.
    """
    paths = [Path(path) for path in paths]
    if not paths:
        raise FormatError("the rte2 format needs at least one annotator file", field="(paths)")
    by_letter: dict[str, Path] = {}
    streams = [path for path in paths if unnamed(path)]
    for path in paths:
        if path in streams:
            continue
        letter = annotator_letter(path)
        if letter in by_letter:
            raise FormatError(
                f"annotator {letter} is given twice (also {by_letter[letter]})",
                path=path,
                field="(file name)",
            )
        by_letter[letter] = path
    # A pipe has no name to take the letter from: the pipes are annotators A, B, C… in the
    # order given, of the letters the named files leave.
    free = [letter for letter in string.ascii_uppercase if letter not in by_letter]
    if len(streams) > len(free):
        raise FormatError(
            f"{len(streams)} annotator files through pipes, but only {len(free)} annotator "
            "letters are left for them",
            path=streams[len(free)],
            field="(file name)",
        )
    by_letter.update(zip(free, streams, strict=False))
    letters = sorted(by_letter)
    blocks = {letter: _read_file(by_letter[letter]) for letter in letters}
    first = letters[0]
    count = len(blocks[first])
    for letter in letters[1:]:
        if len(blocks[letter]) != count:
            raise FormatError(
                f"annotator {letter}'s file has {len(blocks[letter])} pairs but annotator "
                f"{first}'s has {count}",
                path=by_letter[letter],
                line=(
                    blocks[letter][count].header_line
                    if len(blocks[letter]) > count
                    else _end_line(blocks[letter])
                ),
                field="# sentence pair",
            )

    split = split_from_name(by_letter[first].name)
    records: list[PairRecord] = []
    for position in range(count):
        per = {letter: blocks[letter][position] for letter in letters}
        reference = per[first]
        for letter in letters[1:]:
            _check_agreement(reference, per[letter], by_letter[first], letter, by_letter[letter])
        source, source_variants = _vote([per[letter].text for letter in letters], letters)
        target, target_variants = _vote([per[letter].hypothesis for letter in letters], letters)
        n, m = len(source), len(target)
        pair_id = f"{split}:{reference.number}" if split else str(reference.number)
        meta: dict[str, Any] = {
            "pair": reference.number,
            "null": {
                letter: {"sure": per[letter].null_sure, "possible": per[letter].null_possible}
                for letter in letters
            },
        }
        variants: dict[str, dict[str, dict[str, str]]] = {}
        for side, found in (("source", source_variants), ("target", target_variants)):
            for letter, changes in found.items():
                variants.setdefault(letter, {})[side] = changes
        if variants:
            meta["token_variants"] = variants
        repairs = {letter: per[letter].repairs for letter in letters if per[letter].repairs}
        if repairs:
            meta["repairs"] = repairs
        records.append(
            PairRecord(
                id=pair_id,
                source_tokens=source,
                target_tokens=target,
                source_text=detokenize(source),
                target_text=detokenize(target),
                split=split,
                annotations={
                    letter: AnnotationRecord(
                        alignment=Alignment.from_links(
                            n, m, per[letter].sure, per[letter].possible
                        ),
                        origin=(str(by_letter[letter]), None, "(file name)"),
                    )
                    for letter in letters
                },
                metadata={"rte2": meta},
                origin=(str(by_letter[first]), reference.header_line),
            )
        )
    return records


def _end_line(blocks: list[_Block]) -> int:
    return blocks[-1].header_line + 3 if blocks else 1


def _check_agreement(
    reference: _Block, other: _Block, reference_path: Path, letter: str, path: Path
) -> None:
    if other.number != reference.number:
        raise FormatError(
            f"pair {other.number} is where {reference_path.name} has pair {reference.number}; "
            "the annotator files must hold the same pairs in the same order",
            path=path,
            line=other.header_line,
            field="# sentence pair",
        )
    for offset, name, mine, theirs in (
        (1, "text", other.text, reference.text),
        (2, "hypothesis", other.hypothesis, reference.hypothesis),
    ):
        if len(mine) != len(theirs):
            raise FormatError(
                f"pair {other.number}: annotator {letter}'s {name} has {len(mine)} tokens but "
                f"{reference_path.name} (line {reference.header_line + offset}) has "
                f"{len(theirs)}; the annotators must share one tokenization",
                path=path,
                line=other.header_line + offset,
                field=name,
            )


def _vote(
    versions: list[list[str]], letters: list[str]
) -> tuple[list[str], dict[str, dict[str, str]]]:
    """Per position, the token most annotators wrote (ties: first letter) and the variants."""
    chosen: list[str] = []
    variants: dict[str, dict[str, str]] = {}
    for position, candidates in enumerate(zip(*versions, strict=True)):
        if all(token == candidates[0] for token in candidates):
            chosen.append(candidates[0])
            continue
        counts = Counter(candidates)
        best = max(candidates, key=lambda token: counts[token])  # first maximum wins ties
        chosen.append(best)
        for letter, token in zip(letters, candidates, strict=True):
            if token != best:
                variants.setdefault(letter, {})[str(position)] = token
    return chosen, variants


def _read_file(path: Path) -> list[_Block]:
    blocks: list[_Block] = []
    ids = IdRegistry()
    lines = raw_lines(path)
    for number, raw in lines:
        header = decode(raw, path=path, line=number, field="# sentence pair").replace(BOM, "")
        if not header.strip():
            continue
        match = _HEADER.match(header)
        if match is None:
            raise FormatError(
                f"expected a '# sentence pair N' line, found {header[:40]!r}",
                path=path,
                line=number,
                field="# sentence pair",
            )
        pair_number = int(match.group("number"))
        ids.add(str(pair_number), path=path, line=number, field="# sentence pair")
        text_row = next(lines, None)
        hyp_row = next(lines, None)
        if text_row is None or hyp_row is None:
            raise FormatError(
                f"pair {pair_number} is cut short: a pair is a header, a text line and a "
                "hypothesis line",
                path=path,
                line=number + (1 if text_row is None else 2),
                field="text" if text_row is None else "hypothesis",
            )
        text = decode(text_row[1], path=path, line=text_row[0], field="text").replace(BOM, "")
        tokens = text.split()
        if not tokens:
            raise FormatError("the text has no tokens", path=path, line=text_row[0], field="text")
        check_tokens(tokens, path=path, line=text_row[0], field="text")
        hypothesis = decode(hyp_row[1], path=path, line=hyp_row[0], field="hypothesis")
        block = _Block(number=pair_number, header_line=number, text=tokens, hypothesis=[])
        _parse_hypothesis(hypothesis.replace(BOM, ""), block, path=path, line=hyp_row[0])
        blocks.append(block)
    if not blocks:
        raise FormatError("the file holds no pairs", path=path, line=1, field="# sentence pair")
    return blocks


def _parse_hypothesis(text: str, block: _Block, *, path: Path, line: int) -> None:
    """Fill ``block`` from a hypothesis line ``NULL ({ … / / }) word ({ 4 p1 / / }) …``."""
    pieces = text.split()
    n = len(block.text)
    position = 0
    k = 0
    while k < len(pieces):
        word = pieces[k]
        field = "hypothesis" if position == 0 else f"hypothesis word #{position} {word!r}"
        if k + 1 >= len(pieces) or pieces[k + 1] != "({":
            raise FormatError(
                f"word {word!r} is not followed by its link list '({{ … }})'",
                path=path,
                line=line,
                field=field,
            )
        k += 2
        inner: list[str] = []
        while k < len(pieces) and pieces[k] != "})":
            inner.append(pieces[k])
            k += 1
        if k < len(pieces):
            k += 1
        elif inner and inner[-1] == "}":
            inner.pop()
            block.repairs.append(f"line {line}: closing ')' of the last link list missing")
        else:
            raise FormatError(
                f"the link list of {word!r} is not closed with '}})'",
                path=path,
                line=line,
                field=field,
            )
        if "/" in inner:
            slash = inner.index("/")
            if any(piece != "/" for piece in inner[slash:]):
                raise FormatError(
                    f"unexpected {' '.join(inner[slash:])!r} after the link indices",
                    path=path,
                    line=line,
                    field=field,
                )
            inner = inner[:slash]
        if position == 0:
            if word != "NULL":
                raise FormatError(
                    f"the hypothesis must start with the tool's NULL word, found {word!r}",
                    path=path,
                    line=line,
                    field="hypothesis",
                )
        else:
            block.hypothesis.append(word)
        for piece in inner:
            match = _INDEX.match(piece)
            if match is None:
                raise FormatError(
                    f"link {piece!r} is not a text index ('12') or a possible one ('p12')",
                    path=path,
                    line=line,
                    field=field,
                )
            index = int(match.group("index"))
            if not 1 <= index <= n:
                raise FormatError(
                    f"link {piece!r} is outside the text (1-based indices 1..{n})",
                    path=path,
                    line=line,
                    field=field,
                )
            is_possible = bool(match.group("possible"))
            if position == 0:
                (block.null_possible if is_possible else block.null_sure).append(index - 1)
            else:
                link = (index - 1, position - 1)
                (block.possible if is_possible else block.sure).add(link)
        position += 1
    if position == 0:
        raise FormatError("the hypothesis line is empty", path=path, line=line, field="hypothesis")
    if not block.hypothesis:
        raise FormatError(
            "the hypothesis has no words after NULL", path=path, line=line, field="hypothesis"
        )
    block.null_sure.sort()
    block.null_possible.sort()
