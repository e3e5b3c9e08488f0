"""Prefill aligners: one interface, a registry by name, saved models.

``get_aligner("lexical", ppdb=PATH)``, ``get_aligner("em")``; see :mod:`scoring.aligners.base`.
"""

from scoring.aligners.base import (
    Aligner,
    AlignerError,
    AlignerOutput,
    available_aligners,
    get_aligner,
)

__all__ = ["Aligner", "AlignerError", "AlignerOutput", "available_aligners", "get_aligner"]
