"""``python -m scoring align``: word-align tokenized sentence pairs with a prefill aligner.

    python -m scoring align --aligner em --source S.txt --target T.txt --output A.txt
    python -m scoring align --aligner em --model em.npz --source S.txt --target T.txt --output A.txt
    python -m scoring align --aligner lexical --option ppdb=ppdb.tsv --source S.txt ...

``S.txt`` and ``T.txt`` hold one tokenized sentence a line (tokens separated by spaces), line by
line in step. ``A.txt`` receives one Pharaoh line per pair: ``i-j`` sure, ``i?j`` possible
(0-based). ``--confidence C.txt`` also writes ``i-j:confidence`` per link. An aligner that learns
(``em``) without ``--model`` is trained on the input pairs first; ``--save-model`` keeps it.
Any file may be ``-``: standard input or output (one file each).
The ``supervised`` aligner also learns from gold: ``--gold G.txt`` holds the Pharaoh gold of the
first pairs (its N lines are the first N pairs' gold; the aligner trains on every pair's tokens
and on that gold, then aligns every pair).
The output is written to a temporary file renamed into place, so an error leaves nothing behind.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any, BinaryIO

from scoring import formats
from scoring.aligners.base import (
    Aligner,
    TokenPair,
    aligner_class,
    available_aligners,
    get_aligner,
    parse_option_strings,
)
from scoring.alignment.links import Alignment
from scoring.cli.fields import naming
from scoring.cli.outputs import check_output_file, write_atomic
from scoring.cli.phrases import check_line_bytes, check_line_counts
from scoring.cli.streams import input_file, output_file
from scoring.errors import FormatError, InputError, OptionsError
from scoring.files import STDOUT
from scoring.options import options_help


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "align",
        help="word-align tokenized sentence pairs (Pharaoh output)",
        description=__doc__,
        epilog=aligner_options_help(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--aligner", required=True, help=f"aligner name: {', '.join(available_aligners())}"
    )
    parser.add_argument(
        "--model", type=input_file, help="a model saved by --save-model (or save())"
    )
    parser.add_argument(
        "--source", required=True, type=input_file, help="tokenized source sentences"
    )
    parser.add_argument(
        "--target", required=True, type=input_file, help="tokenized target sentences"
    )
    parser.add_argument(
        "--output", required=True, type=output_file, help="Pharaoh alignments to write"
    )
    parser.add_argument(
        "--confidence", type=output_file, help="also write per-link confidences here"
    )
    parser.add_argument("--save-model", type=output_file, help="save the trained model here")
    parser.add_argument(
        "--gold",
        type=input_file,
        help="Pharaoh gold alignments of the first input pairs, one a line, for an aligner "
        "that learns from gold (supervised)",
    )
    parser.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="aligner option, repeatable (e.g. ppdb=PATH, hmm_iterations=5)",
    )
    parser.set_defaults(handler=run)


def aligner_options_help() -> str:
    """Every aligner's ``--option`` names, types, defaults and allowed values."""
    return options_help(
        {name: aligner_class(name).options_class for name in available_aligners()},
        what="aligner",
    )


def _open(path: Path, field: str) -> BinaryIO:
    """``path`` opened for reading: any readable path, a pipe (``<(…)``) as well as a file."""
    try:
        return path.open("rb")
    except FileNotFoundError:
        raise FormatError("no such file", path=path, field=field) from None
    except OSError as error:
        raise FormatError(
            f"cannot read the file: {error.strerror}", path=path, field=field
        ) from None


def read_tokenized(path: Path, field: str) -> list[list[str]]:
    """One tokenized sentence per line; an empty line or undecodable bytes is a FormatError."""
    out: list[list[str]] = []
    with _open(path, field) as handle:
        for number, raw in enumerate(handle, start=1):
            check_line_bytes(raw.rstrip(b"\r\n"), path=path, line=number, field=field)
            tokens = formats.decode_line(raw, path=path, line=number, field=field).split()
            if not tokens:
                raise FormatError("empty sentence", path=path, line=number, field=field)
            out.append(tokens)
    if not out:
        raise FormatError("the file holds no sentence", path=path, field=field)
    return out


def read_gold(path: Path, pairs: list[TokenPair], aligner: Aligner) -> list[Alignment | None]:
    """``--gold``: the Pharaoh gold of the first pairs, ``None`` for the pairs after them."""
    if not aligner.uses_gold:
        raise OptionsError(
            f"the '{aligner.name}' aligner does not learn from gold alignments; --gold is for "
            "the supervised aligner"
        )
    if aligner.trained:
        raise OptionsError("--gold trains a new model: leave out --model, or --gold")
    with _open(path, "--gold") as handle:
        raw = handle.read()
    rows = raw.split(b"\n")
    if rows and not rows[-1]:
        rows.pop()
    lines = [
        formats.decode_line(row, path=path, line=number, field="--gold")
        for number, row in enumerate(rows, start=1)
    ]
    if len(lines) > len(pairs):
        raise FormatError(
            f"{len(lines)} gold alignments for {len(pairs)} input pairs",
            path=path,
            line=len(pairs) + 1,
            field="--gold",
        )
    gold: list[Alignment | None] = [None] * len(pairs)
    for number, (line, (s, t)) in enumerate(zip(lines, pairs, strict=False), start=1):
        try:
            gold[number - 1] = Alignment.from_pharaoh(line, len(s), len(t))
        except InputError as error:
            raise FormatError(error.message, path=path, line=number, field="--gold") from error
    return gold


def load_or_build(name: str, model: Path | None, options: list[str]) -> Aligner:
    """The aligner of ``--aligner``/``--model``/``--option``; the model must be of that aligner."""
    with naming("--aligner"):
        klass = aligner_class(name)
    parsed = parse_option_strings(name, options)
    if model is None:
        return get_aligner(name, **parsed)
    if parsed:
        raise OptionsError("--option cannot change a saved model; retrain instead")
    with naming("--model"):
        return klass.load(model)


def _write_atomic(path: Path, lines: list[str]) -> None:
    write_atomic(path, "".join(line + "\n" for line in lines))


def run(args: argparse.Namespace) -> int:
    check_output_file(args.output)
    if args.confidence is not None:
        check_output_file(args.confidence, "--confidence")
    if args.save_model is not None:
        check_output_file(args.save_model, "--save-model")
        if args.save_model == STDOUT and sys.stdout.isatty():
            raise FormatError(
                "the model is a binary .npz archive, not for a terminal: redirect standard "
                "output to a file or a pipe, or give a file name",
                field="--save-model",
            )
    aligner = load_or_build(args.aligner, args.model, args.option)
    sources = read_tokenized(args.source, "--source")
    targets = read_tokenized(args.target, "--target")
    check_line_counts(args.target, len(targets), args.source, len(sources), field="--target")
    pairs: list[TokenPair] = list(zip(sources, targets, strict=True))
    max_length = aligner.options.max_length
    for number, (s, t) in enumerate(pairs, start=1):
        for path, tokens, field in ((args.source, s, "--source"), (args.target, t, "--target")):
            if len(tokens) > max_length:
                raise FormatError(
                    f"{len(tokens)} tokens, more than the aligner's max_length={max_length} "
                    "(raise it with --option max_length=N)",
                    path=path,
                    line=number,
                    field=field,
                )
    gold = None if args.gold is None else read_gold(args.gold, pairs, aligner)
    if aligner.uses_gold and not aligner.trained and gold is None:
        raise OptionsError(
            f"the '{aligner.name}' aligner learns from gold alignments: give the gold of the "
            "first pairs with --gold G.txt, or a trained model with --model"
        )
    if aligner.needs_training and not aligner.trained:
        print(f"training '{aligner.name}' on {len(pairs)} pairs ...", file=sys.stderr)
        aligner.fit(pairs, gold)
    if args.save_model == STDOUT:
        aligner.write(sys.stdout.buffer)
        sys.stdout.buffer.flush()
    elif args.save_model is not None:
        aligner.save(args.save_model)
    lines: list[str] = []
    confidence_lines: list[str] = []
    warnings: set[str] = set()
    for number, (s, t) in enumerate(pairs, start=1):
        try:
            output = aligner.align(s, t)
        except InputError as error:
            raise FormatError(
                str(error), path=args.source, line=number, field="--source"
            ) from error
        lines.append(output.alignment.to_pharaoh())
        confidence_lines.append(
            " ".join(
                f"{i}-{j}:{output.confidence[(i, j)]:.4f}"
                for i, j in sorted(output.alignment.possible)
            )
        )
        warnings.update(output.warnings)
    for warning in sorted(warnings):
        print(f"warning: {warning}", file=sys.stderr)
    _write_atomic(args.output, lines)
    if args.confidence is not None:
        _write_atomic(args.confidence, confidence_lines)
    print(f"aligned {len(pairs)} pairs with '{aligner.name}': {args.output}", file=sys.stderr)
    return 0
