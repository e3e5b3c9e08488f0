"""``python -m scoring convert``: convert a corpus between file formats without the web app.

    python -m scoring convert --from jacana --to pharaoh \\
        gold.train.sure.json gold.train.sure+poss.json --output edinburgh-train/

Reading streams into writing; the output appears only when every input pair was read and
written, so a bad input leaves nothing behind.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from scoring.cli.streams import input_file, output_file
from scoring.corpus import PairRecord
from scoring.errors import FormatError
from scoring.files import STDOUT
from scoring.formats import (
    FORMATS,
    AlignmentSelector,
    default_alignment,
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
        type=input_file,
        metavar="INPUT",
        help="input files or directories (jacana: the sure file, then its sure+poss file)",
    )
    parser.add_argument(
        "--output", required=True, type=output_file, help="output file or directory"
    )
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
    if target.output_kind == "directory" and args.output == STDOUT:
        raise FormatError(
            f"the {target.name} format writes a folder of files, not one stream: give the "
            "folder's name, not '-'",
            field="--output",
        )
    if target.output_kind == "file" and args.output.is_dir():
        raise FormatError(
            f"the output path is a directory; the {target.name} format writes one file: give "
            "its name",
            path=args.output,
            field="--output",
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
    if args.as_annotator is not None and "annotator" not in source.options:
        readers = sorted(name for name, spec in FORMATS.items() if "annotator" in spec.options)
        raise FormatError(
            f"the {source.name} format cannot be read as one annotator's work (its files name "
            f"their annotators, or hold no alignment); --as-annotator is for "
            f"{', '.join(readers)}",
            path=args.inputs[0],
            field="--as-annotator",
        )
    options = {} if args.as_annotator is None else {"annotator": args.as_annotator}
    records: Iterable[PairRecord] = source.read(args.inputs, **options)
    if target.selects_alignment:
        if selector is None:
            records = _DefaultChecked(records, args.inputs[0])
        else:
            records = _Holding(records, selector, _chosen(args), args.inputs[0])
    counter = _Counter(records)
    target.write(counter, args.output, alignment=selector)
    note = ""
    if isinstance(records, _Holding) and records.left_out:
        note = f" ({records.left_out} pairs without {_chosen(args)} left out)"
    elif isinstance(records, _DefaultChecked) and records.unaligned:
        note = (
            f" ({records.unaligned} pairs had no alignment and were written with none: read "
            "back, their alignment has no link)"
        )
    # on stderr, as align's: an --output of /dev/stdout holds the converted corpus alone
    print(
        f"converted {counter.count} pairs from {source.name} to {target.name}: {args.output}{note}",
        file=sys.stderr,
    )
    return 0


def _chosen(args: argparse.Namespace) -> str:
    if args.annotator is not None:
        return f"the submitted alignment of annotator {args.annotator!r}"
    return "a prefill" if args.prefill else "a gold alignment"


class _Holding:
    """The records that have the chosen alignment, as the web app's export writes them: a file
    of one alignment per pair cannot tell a pair without it from one whose alignment has no
    link, so such a pair written with no links would read back as an empty alignment. A choice
    that no pair has (a misspelt annotator) is an error, before any output appears."""

    def __init__(
        self, records: Iterable[PairRecord], select: AlignmentSelector, chosen: str, path: Path
    ) -> None:
        self._records, self._select, self._chosen, self._path = records, select, chosen, path
        self.left_out = 0

    def __iter__(self) -> Iterator[PairRecord]:
        written = 0
        annotators: set[str] = set()
        for record in self._records:
            if self._select(record) is None:
                self.left_out += 1
                annotators.update(
                    name for name, a in record.annotations.items() if a.status == "submitted"
                )
                continue
            written += 1
            yield record
        if not written:
            known = ", ".join(sorted(annotators)) or "none"
            raise FormatError(
                f"no pair of the input has {self._chosen} (annotators with submitted "
                f"alignments: {known}); nothing written",
                path=self._path,
                field="--annotator/--prefill/--gold",
            )


class _DefaultChecked:
    """Without a choice the writer takes the gold, the only annotation or the prefill; a pair
    with several annotators' alignments and neither gold nor prefill has no such alignment, and
    writing it with no links would lose every annotator's work without a word. A pair with no
    alignment at all (an MSRP or STS file) is written with no links and counted, for the
    summary to say so: read back, it is a pair whose alignment has no link."""

    def __init__(self, records: Iterable[PairRecord], path: Path) -> None:
        self._records, self._path = records, path
        self.unaligned = 0

    def __iter__(self) -> Iterator[PairRecord]:
        for record in self._records:
            if (
                record.gold_alignment is None
                and record.prefill is None
                and len(record.annotations) > 1
            ):
                raise FormatError(
                    f"pair {record.id!r} has the alignments of {len(record.annotations)} "
                    f"annotators ({', '.join(sorted(record.annotations))}) and no gold: choose "
                    "one with --annotator NAME",
                    path=self._path,
                    field="--annotator",
                )
            if default_alignment(record) is None:
                self.unaligned += 1
            yield record


class _Counter:
    """Passes records through and counts them."""

    def __init__(self, records: Iterable[PairRecord]) -> None:
        self._records = records
        self.count = 0

    def __iter__(self) -> Iterator[PairRecord]:
        for record in self._records:
            self.count += 1
            yield record
