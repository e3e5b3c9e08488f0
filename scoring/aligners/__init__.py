"""Prefill aligners: one interface, a registry by name, typed options, saved models.

``get_aligner("lexical", ppdb=PATH)``, ``get_aligner("em")``, or ``EMAligner(EMOptions(...))``;
see :mod:`scoring.aligners.base` and :mod:`scoring.aligners.options`.
"""

from scoring.aligners.base import (
    Aligner,
    AlignerOutput,
    available_aligners,
    get_aligner,
)

__all__ = ["Aligner", "AlignerOutput", "available_aligners", "get_aligner"]
