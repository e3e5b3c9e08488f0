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

#: Where each bin of a pair's length starts, in tokens of its shorter sentence: 1–5, 6–10, …,
#: 26–30, 31–40, 41–60 and 61 or more. Every figure that bins pairs by length uses these (the
#: corpus page's histogram and the agreement report's Figure 4, after Cohn et al. 2008, §4), so
#: the two can be read side by side.
LENGTH_BIN_STARTS: tuple[int, ...] = (1, 6, 11, 16, 21, 26, 31, 41, 61)


def length_bin_label(low: int, high_exclusive: int | None) -> str:
    """``"6–10"`` for the bin ``[6, 11)``; ``"61+"`` for the open last bin."""
    return f"{low}+" if high_exclusive is None else f"{low}–{high_exclusive - 1}"


def length_bin_labels(starts: tuple[int, ...] = LENGTH_BIN_STARTS) -> list[str]:
    """The label of every bin that ``starts`` begin: ``["1–5", "6–10", …, "61+"]``."""
    return [
        length_bin_label(low, high) for low, high in zip(starts, (*starts[1:], None), strict=True)
    ]


#: The states of an annotator's work on a pair (the web app's assignment statuses).
ANNOTATION_STATUSES = ("new", "in_progress", "submitted")
#: What an annotator may flag a pair as when submitting it (the web app's submit dialog): a
#: closed set, so a file's flag the app does not know is refused rather than kept until the
#: pair's next submission drops it.
ANNOTATION_FLAGS = ("not_paraphrase", "bad_tokenization")


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
    #: Where the pair was read, for error messages: (file, 1-based line or None). Not part of
    #: the pair: records compare equal without it.
    origin: tuple[str, int | None] | None = field(default=None, compare=False, repr=False)

    @property
    def shape(self) -> tuple[int, int]:
        return (len(self.source_tokens), len(self.target_tokens))
