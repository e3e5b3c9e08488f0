"""Command line for :mod:`scoring` (``scoring`` once installed, or ``python -m scoring``): one
sub-command per module in ``COMMANDS``.

Each module defines ``register(subparsers)``, which adds its parser and sets
``handler=<function(args) -> int>`` as the parser default. Errors the user caused
(:class:`~scoring.errors.ScoringError`, and a file the system will not open or write, such as a
folder given for a file) are printed as one line and exit with status 2; a reader that closes the
output early (``| head``) ends the command quietly; nothing else is caught, so a bug still shows
its traceback. A file argument given as ``-`` is standard input or output
(:mod:`scoring.cli.streams`).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from scoring import __version__
from scoring.cli import (
    agreement,
    align,
    compare,
    convert,
    evaluate_aligner,
    install_encoder,
    phrases,
    scorers,
    warm,
)
from scoring.cli.streams import check_streams
from scoring.errors import ScoringError

COMMANDS = (
    convert,
    align,
    evaluate_aligner,
    phrases,
    compare,
    agreement,
    scorers,
    install_encoder,
    warm,
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="scoring",
        description="Paraphrase alignment tools: phrase pairs, agreement, aligners, scorers.",
    )
    parser.add_argument("--version", action="version", version=f"scoring {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for command in COMMANDS:
        command.register(subparsers)
    for command_parser in subparsers.choices.values():
        command_parser.set_defaults(command_parser=command_parser)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args, unknown = parser.parse_known_args(argv)
    if unknown:
        # argparse would report them with the top-level usage, which lists no option of the
        # command: the command's own parser reports them with its usage instead
        command_parser = getattr(args, "command_parser", parser)
        command_parser.error(f"unrecognized arguments: {' '.join(unknown)}")
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.print_help(sys.stderr)
        return 2
    try:
        check_streams(args)
        return int(handler(args))
    except ScoringError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # The reader of stdout went away (``scoring phrases ... | head``): stop without a
        # traceback, and keep Python's flush at exit from raising the same error again.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1
    except OSError as error:
        if error.filename is None:
            raise
        print(f"error: {error.filename}: {error.strerror}", file=sys.stderr)
        return 2
