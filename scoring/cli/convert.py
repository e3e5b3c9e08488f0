"""``python -m scoring convert``: convert a corpus between file formats without the web app.

    python -m scoring convert --from jacana --to pharaoh \\
        gold.train.sure.json gold.train.sure+poss.json --output edinburgh-train/

Reading streams into writing; the output appears only when every input pair was read and
written, so a bad input leaves nothing behind.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from scoring.corpus import PairRecord
from scoring.errors import FormatError
from scoring.formats import (
    FORMATS,
    AlignmentSelector,
    get_format,
    select_annotator,
    select_gold,
    select_prefill,
    writable_formats,
)


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "convert",
        help="convert a corpus between file formats",
        description=(
            "Read a corpus in one format and write it in another. Formats: "
            + "; ".join(f"{name} ({spec.description})" for name, spec in FORMATS.items())
            + f". Writable: {', '.join(writable_formats())}."
        ),
    )
    parser.add_argument("--from", dest="source_format", required=True, metavar="FORMAT")
    parser.add_argument("--to", dest="target_format", required=True, metavar="FORMAT")
    parser.add_argument(
        "inputs",
        nargs="+",
        type=Path,
        metavar="INPUT",
        help="input files or directories (jacana: the sure file, then its sure+poss file)",
    )
    parser.add_argument("--output", required=True, type=Path, help="output file or directory")
    parser.add_argument(
        "--as-annotator",
        metavar="NAME",
        help="read a pharaoh/jacana alignment as annotator NAME's work instead of gold",
    )
    choice = parser.add_mutually_exclusive_group()
    choice.add_argument(
        "--annotator",
        metavar="NAME",
        help="write annotator NAME's submitted alignments (pharaoh, jacana, multimwa)",
    )
    choice.add_argument("--prefill", action="store_true", help="write the automatic prefill")
    choice.add_argument("--gold", action="store_true", help="write the gold alignment")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    source = get_format(args.source_format, path=args.inputs[0], field="--from")
    target = get_format(args.target_format, path=args.output, field="--to")
    if not target.writable:
        raise FormatError(
            f"the {target.name} format cannot be written; writable formats: "
            f"{', '.join(writable_formats())}",
            path=args.output,
            field="--to",
        )
    selector: AlignmentSelector | None = None
    if args.annotator is not None:
        selector = select_annotator(args.annotator)
    elif args.prefill:
        selector = select_prefill
    elif args.gold:
        selector = select_gold
    if selector is not None and not target.selects_alignment:
        raise FormatError(
            f"the {target.name} format writes every alignment; drop --annotator/--prefill/--gold",
            path=args.output,
            field="--to",
        )
    options = {} if args.as_annotator is None else {"annotator": args.as_annotator}
    counter = _Counter(source.read(args.inputs, **options))
    target.write(counter, args.output, alignment=selector)
    print(f"converted {counter.count} pairs from {source.name} to {target.name}: {args.output}")
    return 0


class _Counter:
    """Passes records through and counts them."""

    def __init__(self, records: Iterable[PairRecord]) -> None:
        self._records = records
        self.count = 0

    def __iter__(self) -> Iterator[PairRecord]:
        for record in self._records:
            self.count += 1
            yield record
