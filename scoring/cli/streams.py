"""``-`` on the command line: standard input for every input file, standard output for every
output file. Each command declares its file arguments with :func:`input_file` or
:func:`output_file` as their argparse ``type``; :func:`check_streams` refuses a command line that
gives ``-`` twice for the same stream, since standard input can be read once and two outputs on
standard output would run into each other."""

from __future__ import annotations

import argparse
from pathlib import Path

from scoring.errors import FormatError
from scoring.files import STDIN, STDOUT


def input_file(text: str) -> Path:
    """An input file argument: ``-`` is standard input."""
    return STDIN if text == "-" else Path(text)


def output_file(text: str) -> Path:
    """An output file argument: ``-`` is standard output."""
    return STDOUT if text == "-" else Path(text)


def directory(text: str) -> Path:
    """A folder argument: ``-`` names no stream a folder can be made of."""
    if text == "-":
        raise argparse.ArgumentTypeError("'-' (standard input/output) cannot be a folder")
    return Path(text)


#: The positional file arguments, by ``dest``, as their usage names them.
_POSITIONALS = {"inputs": "INPUT", "gold_files": "GOLD"}


def check_streams(args: argparse.Namespace) -> None:
    """No stream is given twice."""
    uses: dict[Path, list[str]] = {STDIN: [], STDOUT: []}
    for name, value in vars(args).items():
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, Path) and item in uses:
                uses[item].append(_option(name))
    for stream, what, why in (
        (STDIN, "standard input", "it can be read once"),
        (STDOUT, "standard output", "two outputs would run into each other"),
    ):
        if len(uses[stream]) > 1:
            raise FormatError(f"'-' ({what}) is given for {' and '.join(uses[stream])}: {why}")


def _option(dest: str) -> str:
    """The command-line spelling of an argument's ``dest``: positionals keep their name."""
    return _POSITIONALS.get(dest, "--" + dest.replace("_", "-"))
