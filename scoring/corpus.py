"""In-memory records of a corpus, shared by every file format and by the web app's services.

A :class:`PairRecord` is everything the project knows about one sentence pair: texts, tokens,
gold score or label, the automatic prefill, each annotator's alignment and the adjudicated gold
alignment. Format readers (:mod:`scoring.formats`) yield them; writers consume them. The
``jsonl`` format stores every field, so a corpus survives export → import unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from scoring.alignment.links import Alignment, Link


@dataclass(slots=True)
class AnnotationRecord:
    """One annotator's work on a pair."""

    alignment: Alignment
    status: str = "submitted"
    flags: tuple[str, ...] = ()
    rating: float | None = None
    comment: str = ""
    #: Where the annotator's name was read, for error messages: (file, 1-based line or None,
    #: field). Not part of the annotation: records compare equal without it.
    origin: tuple[str, int | None, str] | None = field(default=None, compare=False, repr=False)


@dataclass(slots=True)
class PairRecord:
    """One sentence pair with its tokens, gold values and alignments (0-based token indices)."""

    id: str
    source_tokens: list[str]
    target_tokens: list[str]
    source_text: str = ""
    target_text: str = ""
    subcorpus: str = ""
    split: str = ""
    gold_score: float | None = None
    gold_label: int | None = None
    prefill: Alignment | None = None
    prefill_aligner: str = ""
    prefill_confidence: dict[Link, float] = field(default_factory=dict)
    annotations: dict[str, AnnotationRecord] = field(default_factory=dict)
    gold_alignment: Alignment | None = None
    metadata: dict[str, Any] = field(default_factory=dict)

    @property
    def shape(self) -> tuple[int, int]:
        return (len(self.source_tokens), len(self.target_tokens))
