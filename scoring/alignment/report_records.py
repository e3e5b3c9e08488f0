"""The agreement report's typed records, its one JSON form and its one CSV form.

:func:`scoring.alignment.reports.build_report` returns a :class:`CorpusReport`; its
:meth:`~scoring.records.Record.to_dict` is the JSON the web app stores as a job's result and
serves, and :meth:`CorpusReport.from_dict` reads that JSON back (the web app's CSV download
reads a stored report so; keys added around it, such as ``corpus``, are left out).
:meth:`CorpusReport.csv_rows` gives every figure as one row of the
long-format CSV that :func:`report_to_csv` writes.

Reports stored before null-link agreement, the standard statistics, the ranking and the chance
model were added read with those empty (and the prefill chance model, the only one then).

JSON layout (``{group}`` is a sub-corpus, ``(none)`` or ``overall``)::

    signature        ReportSignature: what was computed and how (params, seed, J, ...)
    annotators       [name, ...]
    edit_models      {annotator: {kind: EditModel}}: each annotator's Pr(edit) lines
    annotator_pairs  [PairReport]: per candidate/reference pair, Tables 3 and 4, Figure 4
                     and null-link agreement, each by group
    table5           [PrefillReport]: each annotator against the prefill, by group
    standard         {group: StandardAgreement}: Fleiss' κ and Krippendorff's α
    pair_ranking     [RankedPair]: pairs by their lowest link F1, least agreement first
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from scoring.alignment.agreement import AgreementParams, LengthBin
from scoring.alignment.edit_model import EditModel
from scoring.alignment.kappa import StandardAgreement
from scoring.alignment.metrics import PhraseCounts, Scores, WordCounts
from scoring.records import Record

#: One row of the CSV form: table, candidate, reference, group, column, measure, value, note.
CsvRow = tuple[str, str, str, str, str, str, float | None, str]
CSV_COLUMNS = ("table", "candidate", "reference", "group", "column", "measure", "value", "note")
_MEASURES = ("precision", "recall", "f1")


@dataclass(frozen=True, slots=True)
class ChanceCorrected(Record):
    """Ĉ of one column (``poss`` or ``sure``) of Table 3 or 4 with π̂, π̂0 and the pairs behind
    them. A kind that was not computed has ``pairs = None`` and only ``c_hat`` (``None``) and
    its ``undefined_reason`` in JSON."""

    c_hat: float | None
    undefined_reason: str
    pi_hat: float | None = None
    pi0_hat: float | None = None
    pairs: int | None = None
    pairs_used: int | None = None
    estimator: str | None = None
    pooled: dict[str, float | None] | None = None
    paper: dict[str, float | None] | None = None

    def to_dict(self) -> dict[str, Any]:
        if self.pairs is None:
            return {"c_hat": self.c_hat, "undefined_reason": self.undefined_reason}
        return {
            "c_hat": self.c_hat,
            "pi_hat": self.pi_hat,
            "pi0_hat": self.pi0_hat,
            "pairs": self.pairs,
            "pairs_used": self.pairs_used,
            "undefined_reason": self.undefined_reason,
            "estimator": self.estimator,
            "pooled": self.pooled,
            "paper": self.paper,
        }


@dataclass(frozen=True, slots=True)
class WordTable(Record):
    """One group of Table 3 (words): P vs P (``poss``), S vs S (``sure``), Equation 2
    (``eq2``), Ĉ of ``poss`` and ``sure``, and the summed counts. While the report leaves
    identical links out (the paper's way), ``with_identical`` holds the same three scores over
    every link (empty otherwise)."""

    pairs: int
    poss: Scores
    sure: Scores
    eq2: Scores
    c_hat: dict[str, ChanceCorrected]
    counts: WordCounts
    with_identical: dict[str, Scores] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class PhraseTable(Record):
    """One group of Table 4 (atomic phrase pairs): pairs extracted from P (``poss``) and from S
    (``sure``), Ĉ of each, and the summed counts by kind (``possible``, ``sure``);
    ``with_identical`` as in :class:`WordTable`."""

    pairs: int
    poss: Scores
    sure: Scores
    c_hat: dict[str, ChanceCorrected]
    counts: dict[str, PhraseCounts]
    with_identical: dict[str, Scores] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class NullLinks(Record):
    """F1 between two annotators' unaligned words, ``2·|both| / (|a| + |b|)``."""

    f1: float | None
    both: int
    only_candidate: int
    only_reference: int
    undefined_reason: str


@dataclass(frozen=True, slots=True)
class PairReport(Record):
    """Everything measured between one candidate and one reference annotator, by group:
    Tables 3 and 4, Figure 4 (``{group: {"phrase_all" | "phrase_atomic": [LengthBin]}}``)
    and null-link agreement."""

    candidate: str
    reference: str
    pairs: int
    pairs_in_chance_model: int
    table3: dict[str, WordTable]
    table4: dict[str, PhraseTable]
    figure4: dict[str, dict[str, list[LengthBin]]]
    null_links: dict[str, NullLinks] = field(default_factory=dict)

    def csv_rows(self) -> Iterator[CsvRow]:
        who = (self.candidate, self.reference)
        tables: tuple[tuple[str, Mapping[str, WordTable | PhraseTable]], ...] = (
            ("table3", self.table3),
            ("table4", self.table4),
        )
        for name, table in tables:
            for group, row in table.items():
                columns = [("poss", row.poss), ("sure", row.sure)]
                if isinstance(row, WordTable):
                    columns.append(("eq2", row.eq2))
                columns += [
                    (f"{column}:with_identical", scores)
                    for column, scores in row.with_identical.items()
                ]
                for column, scores in columns:
                    for measure in _MEASURES:
                        yield (name, *who, group, column, measure, getattr(scores, measure), "")
                for column, c in row.c_hat.items():
                    yield (name, *who, group, column, "c_hat", c.c_hat, c.undefined_reason)
        for group, series in self.figure4.items():
            for items, bins in series.items():
                for b in bins:
                    high = b.max_length_exclusive
                    label = f"{items}:{b.min_length}-{'' if high is None else high - 1}"
                    for measure in ("pi_hat", "pi0_hat", "c_hat"):
                        value = getattr(b, measure)
                        note = b.undefined_reason if value is None else ""
                        yield ("figure4", *who, group, label, measure, value, note)
        for group, null in self.null_links.items():
            yield ("null_links", *who, group, "unaligned", "f1", null.f1, null.undefined_reason)


@dataclass(frozen=True, slots=True)
class PrefillGroup(Record):
    """One group of Table 5: the prefill (candidate) against one annotator (reference), words
    (``poss``, ``sure``, ``eq2``) and phrases (``poss``, ``sure``); ``with_identical`` holds the
    same over every link and phrase pair (``{"words": …, "phrases": …}``) while the report
    leaves identical ones out."""

    pairs: int
    words: dict[str, Scores]
    phrases: dict[str, Scores]
    with_identical: dict[str, dict[str, Scores]] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class PrefillReport(Record):
    """Table 5 for one annotator, by group."""

    annotator: str
    candidate: str
    groups: dict[str, PrefillGroup]

    def csv_rows(self) -> Iterator[CsvRow]:
        for group, row in self.groups.items():
            sections = [("words", row.words, ""), ("phrases", row.phrases, "")]
            sections += [
                (level, columns, ":with_identical") for level, columns in row.with_identical.items()
            ]
            for level, columns, suffix in sections:
                for column, scores in columns.items():
                    for measure in _MEASURES:
                        value = getattr(scores, measure)
                        yield (
                            "table5",
                            "prefill",
                            self.annotator,
                            group,
                            f"{level}:{column}{suffix}",
                            measure,
                            value,
                            "",
                        )


@dataclass(frozen=True, slots=True)
class RankedPair(Record):
    """A pair two or more annotators annotated, with the link F1 of each two of them
    (``"a|b"``) and the lowest."""

    id: str
    subcorpus: str
    annotators: list[str]
    f1: dict[str, float]
    min_f1: float
    metadata: dict[str, Any]


@dataclass(frozen=True, slots=True)
class ReportSignature(Record):
    """What the report is and every setting behind its numbers."""

    report: str
    version: str
    params: AgreementParams
    seed: int
    samples: int
    length_edges: list[int]
    word_columns: str
    phrase_columns: str
    chance_model: str = "prefill"
    chance_model_description: str = ""
    resamples: int = 0
    #: Why the chance model was chosen (:func:`scoring.alignment.reports.choose_chance_model`).
    chance_model_reason: str = ""


@dataclass(frozen=True, slots=True)
class CorpusReport(Record):
    """Cohn, Callison-Burch & Lapata (2008) Tables 3-5 and Figure 4 for a corpus, with Fleiss'
    κ, Krippendorff's α, null-link agreement and the pairs ranked by agreement."""

    signature: ReportSignature
    annotators: list[str]
    edit_models: dict[str, dict[str, EditModel]]
    annotator_pairs: list[PairReport]
    table5: list[PrefillReport]
    standard: dict[str, StandardAgreement] = field(default_factory=dict)
    pair_ranking: list[RankedPair] = field(default_factory=list)

    def csv_rows(self) -> Iterator[CsvRow]:
        """Every figure of the report, one row each (see :func:`report_to_csv`)."""
        for pair in self.annotator_pairs:
            yield from pair.csv_rows()
        for group, row in self.standard.items():
            everyone = "+".join(row.raters)
            for key, stat in (
                ("fleiss_kappa", row.fleiss_kappa),
                ("krippendorff_alpha", row.krippendorff_alpha),
            ):
                note = stat.undefined_reason or f"{row.n_items} items in {row.n_pairs} pairs"
                yield ("standard", everyone, everyone, group, "brockett", key, stat.value, note)
                low, high = stat.ci95 or (None, None)
                for bound, value in (("ci95_low", low), ("ci95_high", high)):
                    yield (
                        "standard",
                        everyone,
                        everyone,
                        group,
                        "brockett",
                        f"{key}_{bound}",
                        value,
                        stat.ci_undefined_reason,
                    )
        for entry in self.table5:
            yield from entry.csv_rows()


#: First characters that make a spreadsheet read a cell as a formula (or split it): OWASP's
#: list for CSV injection.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def spreadsheet_text(text: str) -> str:
    """``text`` made safe as a text cell of a CSV file a spreadsheet opens: a cell starting
    with a character of :data:`FORMULA_STARTS` gets a leading ``'`` (OWASP's advice), so an
    annotator named ``=HYPERLINK(…)`` is shown as text, not run."""
    return f"'{text}" if text.startswith(FORMULA_STARTS) else text


def report_to_csv(report: CorpusReport) -> str:
    """The report as long-format CSV, one measure per row (:meth:`CorpusReport.csv_rows`).

    Columns: ``table, candidate, reference, group, column, measure, value, note``. Undefined values
    are empty with ``note = undefined`` (or the reason); Figure 4 rows use ``column =
    <items>:<bin>``. The text cells (names of annotators and sub-corpora among them) go through
    :func:`spreadsheet_text`; ``value`` is a number (``-0.25`` stays a number).
    """
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for *cells, value, note in report.csv_rows():
        text = [spreadsheet_text(str(cell)) for cell in cells]
        if value is None:
            writer.writerow([*text, "", spreadsheet_text(note or "undefined")])
        else:
            writer.writerow([*text, repr(float(value)), spreadsheet_text(note)])
    return buffer.getvalue()
