"""``python -m scoring compare``: precision, recall, F1 (and AER) of one alignment file against
another.

    python -m scoring compare --source S.txt --target T.txt --test A.txt --reference B.txt
        [--level word|phrase] [--kind ...] [--keep-identical] [--json]

Corpus figures are micro averages (counts summed over lines before dividing); undefined values
(empty denominators) print as ``undefined`` (``null`` in JSON).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from scoring.alignment.metrics import ComparePair, corpus_scores
from scoring.cli.phrases import (
    MAX_LENGTH_HELP,
    add_file_arguments,
    fmt,
    read_alignments,
    read_sentences,
)
from scoring.cli.streams import input_file
from scoring.errors import FormatError


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "compare",
        help="precision/recall/F1 of a test alignment against a reference",
        description=(
            "Score the test alignment against the reference over words (Cohn et al. 2008, Eq. 2; "
            "also AER) or over phrase pairs (Eq. 3). Lexically identical pairs are left out "
            "unless --keep-identical."
        ),
    )
    add_file_arguments(parser)
    parser.add_argument("--test", required=True, type=input_file, help="Pharaoh links being scored")
    parser.add_argument(
        "--reference", required=True, type=input_file, help="reference Pharaoh links"
    )
    parser.add_argument("--level", choices=("word", "phrase"), default="word")
    parser.add_argument(
        "--kind",
        default=None,
        help=(
            "word: mixed (Eq. 2, default), possible (P vs P) or sure (S vs S); "
            "phrase: possible (pairs from P, default) or sure"
        ),
    )
    parser.add_argument("--keep-identical", action="store_true")
    parser.add_argument("--max-length", type=int, default=None, metavar="K", help=MAX_LENGTH_HELP)
    parser.add_argument("--no-boundary-rule", action="store_true")
    parser.add_argument("--json", action="store_true", help="write JSON with per-line scores")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    kind = args.kind or ("mixed" if args.level == "word" else "possible")
    allowed = ("mixed", "possible", "sure") if args.level == "word" else ("possible", "sure")
    if kind not in allowed:
        raise FormatError(
            f"{kind!r} is not a {args.level}-level kind; choose one of {', '.join(allowed)}",
            field="--kind",
        )
    if args.max_length is not None and args.max_length < 1:
        raise FormatError("must be at least 1", field="--max-length")
    sources, targets = read_sentences(args.source, args.target)
    tests = read_alignments(args.test, sources, targets, field="--test", source_path=args.source)
    refs = read_alignments(
        args.reference, sources, targets, field="--reference", source_path=args.source
    )
    pairs = [
        ComparePair(src, tgt, test, ref, key=str(number))
        for number, (src, tgt, test, ref) in enumerate(
            zip(sources, targets, tests, refs, strict=True), start=1
        )
    ]
    result = corpus_scores(
        pairs,
        level=args.level,
        kind=kind,
        exclude_identical=not args.keep_identical,
        boundary_rule=not args.no_boundary_rule,
        max_length=args.max_length,
    )
    if args.json:
        data = result.to_dict()
        data["options"] = {
            "exclude_identical": not args.keep_identical,
            "boundary_rule": not args.no_boundary_rule,
            "max_length": args.max_length,
        }
        json.dump(data, sys.stdout)
        sys.stdout.write("\n")
        return 0
    overall = result.overall
    print(f"level: {args.level}   kind: {kind}   pairs: {len(pairs)}")
    print(
        f"{'precision':>10} {'recall':>10} {'F1':>10}"
        + (f" {'AER':>10}" if overall.with_aer else "")
    )
    line = f"{fmt(overall.precision):>10} {fmt(overall.recall):>10} {fmt(overall.f1):>10}"
    if overall.with_aer:
        line += f" {fmt(overall.aer):>10}"
    print(line)
    print("counts: " + ", ".join(f"{k}={v}" for k, v in result.counts.to_dict().items()))
    return 0
