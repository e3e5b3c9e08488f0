"""One agreement report as the agreement tab shows it, after Cohn, Callison-Burch & Lapata
(2008): Tables 3–5 and Figure 4, Fleiss' κ and Krippendorff's α, null-link agreement and the
pairs annotators agree on least, each saying what it rests on.

A report is a job's stored result (a dict, :func:`scoring.alignment.reports.build_report`); this
module turns it into rows and cells the templates write out, since a template cannot look a dict
up by a variable key. Nothing is computed again: every figure is the report's own.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from frontend.charts import LineChart, line_chart
from scoring.alignment.reports import CHANCE_MODELS, OVERALL
from scoring.corpus import length_bin_label

#: Rows of the table of the pairs annotators agree on least.
DISAGREEMENTS_SHOWN = 25
#: Items of Tables 3–5: the paper's (identical links and phrase pairs left out) or every one.
ITEMS = ("non_identical", "all")
LEVELS = {"phrase_all": "all phrase pairs (atomic and composite)", "phrase_atomic": "atomic"}


def group_name(group: str) -> str:
    return "Overall" if group == OVERALL else group


def ordered_groups(groups: Mapping[str, Any]) -> list[str]:
    """Sub-corpora first, overall last; a corpus without sub-corpora shows overall alone."""
    subs = [g for g in groups if g != OVERALL]
    overall = [g for g in groups if g == OVERALL]
    if subs == ["(none)"] and overall:
        return overall
    return [*subs, *overall]


@dataclass
class Cell:
    """A figure of a table: its value (``None`` is undefined, with ``reason``), shown as a
    percentage or with three decimals, and a note under it (what it rests on)."""

    value: float | None
    percent: bool = False
    reason: str = ""
    note: str = ""
    title: str = ""


@dataclass
class Row:
    label: str
    cells: list[Cell]
    css: str = ""


@dataclass
class Section:
    label: str
    rows: list[Row]


@dataclass
class PaperTable:
    """Table 3 or 4: sub-corpora as columns, Possible and Sure as sections of P, R, F1, Ĉ."""

    caption: str
    headers: list[tuple[str, int]]
    sections: list[Section]


def _c_hat_cell(c: Mapping[str, Any], pairs: int, level: str) -> Cell:
    used = c.get("pairs_used")
    note = f"over {used:,} of {pairs:,} pairs" if used is not None else ""
    title = (
        f"π̂ {c['pi_hat']:.3f}, π̂0 {c['pi0_hat']:.3f}. "
        if c.get("pi_hat") is not None and c.get("pi0_hat") is not None
        else ""
    )
    if used is not None:
        title += (
            f"{c.get('pairs', 0):,} pairs in the chance model; Ĉ averages the {used:,} where "
            f"both annotators have {level}."
        )
    return Cell(c.get("c_hat"), reason=c.get("undefined_reason", ""), note=note, title=title)


def paper_table(table: Mapping[str, Any], caption: str, items: str, level: str) -> PaperTable:
    """``items="all"`` shows the scores over every link (``with_identical``) where the report
    has them; Ĉ stays over the non-identical ones, as the paper's."""
    groups = ordered_groups(table)
    sections = []
    for key, name in (("poss", "Possible"), ("sure", "Sure")):
        rows = []
        for measure, text in (("precision", "Precision"), ("recall", "Recall"), ("f1", "F1")):
            cells = []
            for g in groups:
                scores = table[g].get("with_identical", {}) if items == "all" else table[g]
                value = scores.get(key, {}).get(measure)
                cells.append(Cell(value, percent=True, reason="empty denominator"))
            rows.append(Row(text, cells))
        rows.append(
            Row(
                "Ĉ" if items != "all" else "Ĉ (non-identical)",
                [_c_hat_cell(table[g]["c_hat"][key], table[g]["pairs"], level) for g in groups],
                css="c-hat",
            )
        )
        sections.append(Section(name, rows))
    return PaperTable(
        caption=caption,
        headers=[(group_name(g), table[g]["pairs"]) for g in groups],
        sections=sections,
    )


@dataclass
class Figure:
    """Figure 4 of one annotator pair: the chart, and the choices of group and items."""

    chart: LineChart | None
    groups: list[tuple[str, str]]
    group: str
    level: str
    pairs: int
    trimmed: str = ""
    bins: list[dict[str, Any]] = field(default_factory=list)

    @property
    def level_text(self) -> str:
        return LEVELS[self.level]


def figure4(pair: Mapping[str, Any], group: str, level: str) -> Figure:
    """π̂, π̂0 and Ĉ by the length of the shorter sentence (the corpus pages' one binning).
    Bins with no pair before the first and after the last are left off the axis."""
    series_by_group = pair.get("figure4", {})
    groups = ordered_groups(series_by_group)
    if group not in series_by_group:
        group = OVERALL if OVERALL in series_by_group else (groups[0] if groups else "")
    level = level if level in LEVELS else "phrase_all"
    bins = series_by_group.get(group, {}).get(level, [])
    filled = [k for k, b in enumerate(bins) if b["pairs"]]
    choices = [(g, group_name(g)) for g in groups]
    if not filled:
        return Figure(None, choices, group, level, 0)
    shown = bins[filled[0] : filled[-1] + 1]
    labels = [length_bin_label(b["min_length"], b["max_length_exclusive"]) for b in shown]
    trimmed = ""
    longest = shown[-1]["max_length_exclusive"]
    if filled[-1] + 1 < len(bins) and longest is not None:
        trimmed = f"No shorter sentence here is longer than {longest - 1} tokens."
    lowest = min([0.0, *(b["c_hat"] for b in shown if b["c_hat"] is not None)])
    chart = line_chart(
        [(text, f"n = {b['pairs']:,}") for text, b in zip(labels, shown, strict=True)],
        [
            ("π̂ observed", [b["pi_hat"] for b in shown], False),
            ("π̂0 chance", [b["pi0_hat"] for b in shown], True),
            ("Ĉ chance-corrected", [b["c_hat"] for b in shown], False),
        ],
        x_label="length of the shorter sentence (tokens); n = pairs in the bin",
        y_label="agreement",
        title=f"Figure 4: π̂, π̂0 and Ĉ by length, {group_name(group)}, {LEVELS[level]}",
        y_min=lowest,
        y_max=1.0,
    )
    table = [{**b, "label": text} for text, b in zip(labels, shown, strict=True)]
    return Figure(chart, choices, group, level, sum(b["pairs"] for b in shown), trimmed, table)


@dataclass
class ReportView:
    """Everything the report section shows of one report, for one annotator pair."""

    report: dict[str, Any]
    pair_index: int
    items: str
    figure: Figure
    tables: list[PaperTable] = field(default_factory=list)
    standard: list[Row] = field(default_factory=list)
    standard_headers: list[str] = field(default_factory=list)
    null_links: list[Row] = field(default_factory=list)
    null_headers: list[str] = field(default_factory=list)
    table5_headers: list[str] = field(default_factory=list)
    table5: list[Row] = field(default_factory=list)
    disagreements: list[dict[str, Any]] = field(default_factory=list)

    @property
    def signature(self) -> dict[str, Any]:
        return dict(self.report.get("signature", {}))

    @property
    def chance_description(self) -> str:
        """What the chance model is, in the words of this version (a report keeps the words of
        the version that made it)."""
        name = str(self.signature.get("chance_model", "prefill"))
        return CHANCE_MODELS.get(name, str(self.signature.get("chance_model_description", name)))

    @property
    def pair(self) -> dict[str, Any]:
        return dict(self.report["annotator_pairs"][self.pair_index])

    @property
    def tabs(self) -> list[tuple[int, str, int]]:
        """Each pair of annotators: its index, its name and how many pairs both annotated."""
        return [
            (k, f"{p['candidate']} vs {p['reference']}", int(p.get("pairs") or 0))
            for k, p in enumerate(self.report["annotator_pairs"])
        ]

    @property
    def has_all_items(self) -> bool:
        table = self.report["annotator_pairs"][self.pair_index]["table3"]
        return any(row.get("with_identical") for row in table.values())

    @property
    def identical_left_out(self) -> bool:
        return bool(self.signature.get("params", {}).get("exclude_identical", True))

    @property
    def items_text(self) -> str:
        if self.items == "all" or not self.identical_left_out:
            return "all links"
        return "non-identical links"

    @property
    def edit_models(self) -> list[dict[str, Any]]:
        """Each annotator's fitted Pr(edit | N, M) lines, the chance model's parameters."""
        out = []
        for name, kinds in self.report.get("edit_models", {}).items():
            for kind, model in kinds.items():
                out.append({"annotator": name, "kind": kind, **model})
        return out

    @property
    def ranked(self) -> int:
        return len(self.report.get("pair_ranking", []))


def _standard(report: Mapping[str, Any]) -> tuple[list[str], list[Row]]:
    standard = report.get("standard", {})
    groups = ordered_groups(standard)
    rows = []
    for key, text in (("fleiss_kappa", "Fleiss' κ"), ("krippendorff_alpha", "Krippendorff's α")):
        cells = []
        for g in groups:
            stat = standard[g][key]
            interval = stat.get("ci95")
            note = (
                f"95% CI {interval[0]:.3f} – {interval[1]:.3f}"
                if interval
                else stat.get("ci_undefined_reason", "")
            )
            cells.append(
                Cell(stat.get("value"), reason=stat.get("undefined_reason", ""), note=note)
            )
        rows.append(Row(text, cells))
    rows.append(
        Row(
            "rests on",
            [
                Cell(
                    None,
                    note=(
                        f"{standard[g]['n_items']:,} items in {standard[g]['n_pairs']:,} pairs "
                        f"annotated by all of {', '.join(standard[g]['raters'])}"
                    ),
                )
                for g in groups
            ],
            css="rests-on",
        )
    )
    return [group_name(g) for g in groups], rows


def _table5(report: Mapping[str, Any], items: str) -> tuple[list[str], list[Row]]:
    """Table 5's column headers and one row per annotator. Each annotator is measured on the
    pairs they annotated, so the count of pairs is in the header only when every annotator's
    is the same; else each row's F1 says its own."""
    entries = [t for t in report.get("table5", []) if any(g["pairs"] for g in t["groups"].values())]
    if not entries:
        return [], []
    groups = ordered_groups(entries[0]["groups"])
    counts = {g: [e["groups"].get(g, {}).get("pairs", 0) for e in entries] for g in groups}
    shared = {g: len(set(n)) == 1 for g, n in counts.items()}
    rows = []
    for entry in entries:
        cells: list[Cell] = []
        for g in groups:
            row = entry["groups"].get(g)
            if row is None:
                cells.extend(Cell(None, percent=True, reason="no pair") for _ in range(3))
                continue
            source = row.get("with_identical") or row if items == "all" else row
            scores = source["words"]["poss"]
            cells.extend(
                Cell(scores.get(m), percent=True, reason="empty denominator")
                for m in ("precision", "recall")
            )
            pairs = int(row.get("pairs", 0))
            note = "" if shared[g] else f"over {pairs:,} pair{'' if pairs == 1 else 's'}"
            cells.append(
                Cell(scores.get("f1"), percent=True, reason="empty denominator", note=note)
            )
        rows.append(Row(entry["annotator"], cells))
    headers = [
        f"{group_name(g)} ({counts[g][0]:,})" if shared[g] else group_name(g) for g in groups
    ]
    return headers, rows


def report_view(
    report: dict[str, Any], *, pair_index: int | None, items: str, group: str, level: str
) -> ReportView:
    """The report as the page shows it, on the tab ``pair_index`` (by default the first pair of
    annotators who annotated pairs in common)."""
    pairs = report.get("annotator_pairs", [])
    if pair_index is None or not 0 <= pair_index < len(pairs):
        shared = [k for k, p in enumerate(pairs) if p.get("pairs")]
        pair_index = shared[0] if shared else 0
    items = items if items in ITEMS else "non_identical"
    pair = pairs[pair_index]
    view = ReportView(report, pair_index, items, figure4(pair, group, level))
    if not view.has_all_items:
        view.items = items = "non_identical"  # a report that has only the one set of scores
    shown_items = view.items_text
    view.tables = [
        paper_table(
            pair["table3"], f"Table 3 · words · {shown_items}", items, "non-identical links"
        ),
        paper_table(
            pair["table4"],
            f"Table 4 · atomic phrase pairs · {shown_items.replace('links', 'phrase pairs')}",
            items,
            "atomic phrase pairs",
        ),
    ]
    view.standard_headers, view.standard = _standard(report)
    null = pair.get("null_links", {})
    view.null_headers = [group_name(g) for g in ordered_groups(null)]
    view.null_links = [
        Row(
            "F1 of unaligned words",
            [
                Cell(
                    null[g]["f1"],
                    reason=null[g].get("undefined_reason", ""),
                    note=f"{null[g]['both']:,} left unaligned by both",
                )
                for g in ordered_groups(null)
            ],
        )
    ]
    view.table5_headers, view.table5 = _table5(report, items)
    view.disagreements = report.get("pair_ranking", [])[:DISAGREEMENTS_SHOWN]
    return view
