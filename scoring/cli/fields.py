"""Errors of the command line name the option they come from.

The library's readers know the file and the line of a fault but not which option named the file;
the command does. ``with naming("--model"):`` around a call gives an error raised inside that
names no field of its own the option's name, so every message has the one shape
``path:line: field '--option': message`` that :func:`scoring.cli.main` prints.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from scoring.errors import InputError, ModelError


@contextlib.contextmanager
def naming(field: str) -> Iterator[None]:
    """Re-raise an :class:`InputError` without a field, or a :class:`ModelError` (an unknown
    aligner, a model of another kind), as the same fault of the option ``field``. An error
    that already names a field (a model file's own ``format`` entry) is left as it is."""
    try:
        yield
    except InputError as error:
        if error.field:
            raise
        raise type(error)(error.message, path=error.path, line=error.line, field=field) from error
    except ModelError as error:
        raise InputError(str(error), field=field) from error
