"""``python -m scoring phrases``: list the phrase pairs an alignment licenses.

    python -m scoring phrases --source S.txt --target T.txt --alignment A.txt [--max-length K]
        [--no-boundary-rule] [--use possible|sure] [--json]

Files are line-aligned: one tokenized sentence per line (tokens separated by spaces) and one
Pharaoh line per pair (``i-j`` sure, ``i?j`` possible, 0-based). This module also holds the
line-file readers the ``compare`` and ``agreement`` commands share; every error names the file,
the 1-based line and the field.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from scoring import formats
from scoring.aligners.options import MAX_LENGTH
from scoring.alignment.links import Alignment
from scoring.alignment.phrases import extract_phrase_pairs_batch, identical_mask, phrase_text
from scoring.cli.streams import input_file
from scoring.errors import AlignmentError, FormatError

BOM = "\ufeff"


def check_line_bytes(raw: bytes, *, path: Path, line: int, field: str) -> None:
    """A line longer than the corpus readers' limit is refused before it is decoded or split:
    one word of 20 MB took the scorers' word lookups out of memory."""
    if len(raw) > formats.MAX_LINE_BYTES:
        raise FormatError(
            f"the line is longer than {formats.MAX_LINE_BYTES:,} bytes",
            path=path,
            line=line,
            field=field,
        )


def _lines(path: Path, field: str) -> list[str]:
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise FormatError("file not found", path=path, field=field) from None
    except OSError as error:
        raise FormatError(
            f"cannot read the file: {error.strerror}", path=path, field=field
        ) from None
    lines = raw.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    out = []
    for number, line in enumerate(lines, start=1):
        check_line_bytes(line, path=path, line=number, field=field)
        text = formats.decode_line(line, path=path, line=number, field=field)
        out.append(text.replace(BOM, ""))
    return out


#: The most tokens of a sentence the commands read: the longest an aligner aligns. Phrase pairs,
#: agreement and the scorers grow with the square of a sentence's length or faster (one line of
#: 3,000 tokens took 14 GB in ``phrases``; one of 100,000 failed to allocate in ``phrases`` and
#: ``score``), so a longer one is refused naming its line instead.
MAX_SENTENCE_TOKENS = MAX_LENGTH


#: ``--max-length``'s help: its default differs from the web app's phrase-table export's.
MAX_LENGTH_HELP = (
    "the longest phrase, in tokens on either side (default: no limit; the web app's "
    "phrase-table export and Moses extract: 7)"
)


def check_sentence_length(tokens: list[str], *, path: Path, line: int, field: str) -> None:
    if len(tokens) > MAX_SENTENCE_TOKENS:
        raise FormatError(
            f"the sentence has {len(tokens):,} tokens; at most {MAX_SENTENCE_TOKENS:,} are "
            "accepted",
            path=path,
            line=line,
            field=field,
        )


def check_line_counts(path: Path, count: int, other: Path, other_count: int, *, field: str) -> None:
    """``path`` must hold as many lines as ``other``, the file it is line-aligned with; the
    error names ``path`` at its first line without a partner, or the first line it lacks."""
    if count == other_count:
        return
    if count > other_count:
        message = f"no partner for this line: {other} has {_lines_text(other_count)}"
    else:
        message = f"the file ends after {_lines_text(count)} but {other} has {other_count}"
    raise FormatError(
        f"{message}; the files must be line-aligned",
        path=path,
        line=min(count, other_count) + 1,
        field=field,
    )


def _lines_text(count: int) -> str:
    return f"{count} line" + ("" if count == 1 else "s")


def read_tokens(path: Path, *, field: str) -> list[list[str]]:
    """One tokenized sentence per line (tokens split on whitespace); an empty line is a
    :class:`FormatError`, as in every command's sentence files."""
    sentences = [line.split() for line in _lines(path, field)]
    for number, tokens in enumerate(sentences, start=1):
        if not tokens:
            raise FormatError("empty sentence", path=path, line=number, field=field)
        check_sentence_length(tokens, path=path, line=number, field=field)
    return sentences


def read_alignments(
    path: Path,
    sources: list[list[str]],
    targets: list[list[str]],
    *,
    field: str,
    source_path: Path,
) -> list[Alignment]:
    """One Pharaoh line per pair, checked against the sentence lengths."""
    lines = _lines(path, field)
    check_line_counts(path, len(lines), source_path, len(sources), field=field)
    out = []
    for number, (line, src, tgt) in enumerate(zip(lines, sources, targets, strict=True), start=1):
        try:
            out.append(Alignment.from_pharaoh(line, len(src), len(tgt)))
        except AlignmentError as error:  # a link outside the pair names the pair's size
            raise FormatError(str(error), path=path, line=number, field=field) from None
    return out


def read_sentences(source: Path, target: Path) -> tuple[list[list[str]], list[list[str]]]:
    sources = read_tokens(source, field="--source")
    if not sources:
        raise FormatError("the file holds no sentence", path=source, field="--source")
    targets = read_tokens(target, field="--target")
    check_line_counts(target, len(targets), source, len(sources), field="--target")
    return sources, targets


def add_file_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--source", required=True, type=input_file, help="tokenized source, one per line"
    )
    parser.add_argument(
        "--target", required=True, type=input_file, help="tokenized target, one per line"
    )


def fmt(value: float | None) -> str:
    """A score for the human-readable tables: 4 decimals, or ``undefined``."""
    return "undefined" if value is None else f"{value:.4f}"


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "phrases",
        help="list the phrase pairs of word alignments, atomic or composite",
        description=(
            "Extract every phrase pair consistent with each alignment (Och et al. 1999) with Cohn "
            "et al.'s (2008) rule of no unaligned word on a span boundary, and label it atomic or "
            "composite."
        ),
    )
    add_file_arguments(parser)
    parser.add_argument(
        "--alignment", required=True, type=input_file, help="Pharaoh links, one line per pair"
    )
    parser.add_argument("--max-length", type=int, default=None, metavar="K", help=MAX_LENGTH_HELP)
    parser.add_argument(
        "--no-boundary-rule",
        action="store_true",
        help="allow unaligned words on span boundaries (the standard SMT heuristic)",
    )
    parser.add_argument(
        "--use",
        choices=("possible", "sure"),
        default="possible",
        help="extract from P (sure or possible links, default) or from the sure links only",
    )
    parser.add_argument("--json", action="store_true", help="write JSON instead of a table")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    if args.max_length is not None and args.max_length < 1:
        raise FormatError("must be at least 1", field="--max-length")
    sources, targets = read_sentences(args.source, args.target)
    alignments = read_alignments(
        args.alignment, sources, targets, field="--alignment", source_path=args.source
    )
    entries = _entries(
        sources,
        targets,
        alignments,
        use=args.use,
        boundary_rule=not args.no_boundary_rule,
        max_length=args.max_length,
    )
    if args.json:
        # Written a sentence at a time (the phrase pairs of a large corpus do not fit in
        # memory at once), as json.dump writes the whole document.
        options = {
            "use": args.use,
            "boundary_rule": not args.no_boundary_rule,
            "max_length": args.max_length,
        }
        sys.stdout.write(f'{{"options": {json.dumps(options)}, "sentences": [')
        for k, entry in enumerate(entries):
            sys.stdout.write((", " if k else "") + json.dumps(entry, ensure_ascii=False))
        sys.stdout.write("]}\n")
        return 0
    for entry in entries:
        pairs_list: list[dict[str, Any]] = entry["pairs"]
        atomic_count = sum(1 for p in pairs_list if p["atomic"])
        print(f"# line {entry['line']}: {len(pairs_list)} phrase pairs, {atomic_count} atomic")
        for p in pairs_list:
            label = "atomic" if p["atomic"] else "composite"
            if p["identical"]:
                label += ",identical"
            s1, s2 = p["source_span"]
            t1, t2 = p["target_span"]
            print(f"{p['source']} ||| {p['target']} ||| {s1}-{s2} {t1}-{t2} ||| {label}")
    return 0


#: Sentences extracted at a time: memory stays flat however long the files.
CHUNK = 1000


def _entries(
    sources: list[list[str]],
    targets: list[list[str]],
    alignments: list[Alignment],
    **options: Any,
) -> Iterator[dict[str, Any]]:
    """Each sentence's phrase pairs, extracted :data:`CHUNK` sentences at a time."""
    for start in range(0, len(alignments), CHUNK):
        batch = extract_phrase_pairs_batch(alignments[start : start + CHUNK], **options)
        end = start + len(batch)
        chunk = zip(sources[start:end], targets[start:end], batch, strict=True)
        for number, (src, tgt, pairs) in enumerate(chunk, start=start + 1):
            identical = identical_mask(pairs.spans, src, tgt)
            rows = []
            for span, atomic, same in zip(
                pairs.spans.tolist(), pairs.atomic, identical, strict=True
            ):
                s_text, t_text = phrase_text(span, src, tgt)
                rows.append(
                    {
                        "source_span": span[:2],
                        "target_span": span[2:],
                        "source": s_text,
                        "target": t_text,
                        "atomic": bool(atomic),
                        "identical": bool(same),
                    }
                )
            yield {"line": number, "pairs": rows}
