"""Exceptions raised by :mod:`scoring`: one base class and a few kinds.

=========================  ==================================================================
kind                       raised when
=========================  ==================================================================
:class:`InputError`        the data given cannot be used: tokens, pairs, targets, arrays of
                           the wrong shape (names the file, line and field when there is one)
:class:`FormatError`       an input file or a saved model cannot be read (always names where)
:class:`AlignmentError`    an alignment is malformed: a link outside the sentence, S not in P
:class:`ModelError`        a model cannot do what is asked: not trained, trained on other
                           features, a combination of settings it does not support
:class:`OptionsError`      an option is unknown or its value is out of range (names the
                           option, the value and what is allowed)
:class:`ResourceMissingError`  a linguistic resource is not installed (says how to install it)
:class:`UndefinedError`    a measure or a fit is undefined on this input (an empty
                           reference for NIST, no edits to fit Pr(edit) on)
=========================  ==================================================================

Every kind but :class:`ResourceMissingError` is also a :class:`ValueError`. The CLI and the web
app print ``str(error)`` as is; the web app maps each kind to an HTTP status in one place.
"""

from __future__ import annotations

from pathlib import Path


class ScoringError(Exception):
    """Base class of every error :mod:`scoring` raises on bad input, options or resources."""


class InputError(ScoringError, ValueError):
    """The data given cannot be used. ``path``, ``line`` (1-based) and ``field``, when known,
    say where; ``str(error)`` starts with them (``path:line: field 'name': message``)."""

    def __init__(
        self,
        message: str,
        *,
        path: str | Path | None = None,
        line: int | None = None,
        field: str | None = None,
    ) -> None:
        self.message = message
        self.path = str(path) if path is not None else None
        self.line = line
        self.field = field
        super().__init__(str(self))

    def __str__(self) -> str:
        parts = []
        if self.path is not None:
            parts.append(self.path + (f":{self.line}" if self.line is not None else ""))
        elif self.line is not None:
            parts.append(f"line {self.line}")
        if self.field:
            parts.append(f"field '{self.field}'")
        return ": ".join([*parts, self.message])


class FormatError(InputError):
    """A corpus file or a saved model cannot be read. Names the file, the 1-based line and the
    field."""


class AlignmentError(InputError):
    """An alignment is malformed: a link outside the sentence, S not within P, bad syntax."""


class ModelError(ScoringError, ValueError):
    """A model cannot do what is asked: it is not trained, was trained on other features, or
    does not support this combination of settings."""


class OptionsError(ModelError):
    """An option of an aligner or scorer is unknown or out of range. ``option`` names it (or
    is empty for a rule that joins several options); ``value`` is the value refused."""

    def __init__(self, message: str, *, option: str = "", value: object = None) -> None:
        super().__init__(message)
        self.option = option
        self.value = value


class ResourceMissingError(ScoringError):
    """A linguistic resource (WordNet, a tagger, PPDB) is not installed.

    The message includes the exact command that installs it.
    """


class UndefinedError(ScoringError, ValueError):
    """A measure or a fit is undefined on this input: NIST against an empty reference, an edit
    model with no pair to fit on."""
