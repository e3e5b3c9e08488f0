"""Agreement reports in the layout of Cohn, Callison-Burch & Lapata (2008), §3.

For a corpus (a list of :class:`~scoring.corpus.PairRecord`) and two or more annotators, taken
pairwise (the first of a pair is the candidate, the second the reference, as the paper treats one
annotator as the gold standard):

- **Table 3** (words) and **Table 4** (atomic phrase pairs): precision, recall and F1 in a
  ``poss`` and a ``sure`` column, plus Ĉ for each, per sub-corpus and overall. Word columns compare
  ``P`` with ``P`` and ``S`` with ``S``; Equation 2's mixed word scores are given as ``eq2``.
  Phrase columns use pairs extracted from ``P`` and from ``S`` (Equation 3). Ĉ is over the
  non-identical links (Table 3) or atomic phrase pairs (Table 4) of ``P`` and of ``S``.
- **Figure 4**: π̂, π̂0 and Ĉ per bin of the shorter sentence's length, over phrase pairs of ``P``;
  the paper's caption says "using all phrase pairs, atomic and composite", so both the ``all`` and
  the ``atomic`` series are given.
- **Table 5**: each annotator against the automatic prefill (the prefill is the candidate, the
  annotator the reference); Ĉ is not given, since the prefill is what π̂0 is sampled from (the
  paper's footnote 15).

Lexically identical pairs are left out unless ``params.exclude_identical`` is off.

The report is a :class:`~scoring.alignment.report_records.CorpusReport` (typed records, one
JSON form, one CSV form). Work can be split for Celery: fit the edit models once
(:func:`fit_report_models`), compute the Monte Carlo statistics per chunk of records
(:func:`report_statistics`, JSON-able), then build the report from all chunks
(:func:`build_report` with ``statistics=``). The numbers equal those of a
single :func:`build_report` call bit for bit.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any

from scoring import __version__
from scoring.alignment.agreement import (
    AgreementPair,
    AgreementParams,
    AgreementResult,
    LengthBin,
    PairStats,
    aggregate,
    fit_models,
    length_bins,
    pair_statistics,
)
from scoring.alignment.edit_model import EditModel
from scoring.alignment.kappa import agreement_with_intervals, brockett_blocks
from scoring.alignment.links import Alignment
from scoring.alignment.metrics import (
    PhraseCounts,
    Scores,
    WordCounts,
    phrase_counts,
    phrase_scores,
    word_counts,
    word_scores,
)
from scoring.alignment.report_records import (
    ChanceCorrected,
    CorpusReport,
    NullLinks,
    PairReport,
    PhraseTable,
    PrefillGroup,
    PrefillReport,
    RankedPair,
    ReportSignature,
    WordTable,
)
from scoring.corpus import LENGTH_BIN_STARTS, PairRecord
from scoring.errors import InputError

REPORT_VERSION = "1"
OVERALL = "overall"
NO_SUBCORPUS = "(none)"
#: Figure 4's bins: the project's one binning of lengths (:data:`scoring.corpus.LENGTH_BIN_STARTS`).
DEFAULT_LENGTH_EDGES: tuple[int, ...] = LENGTH_BIN_STARTS[1:]
ReportProgress = Callable[[str, int, int], None]


def _check(records: Sequence[PairRecord], annotators: Sequence[str]) -> None:
    if len(annotators) < 2:
        raise InputError("an agreement report needs at least two annotators")
    if len(set(annotators)) != len(annotators):
        raise InputError(f"annotator names repeat: {list(annotators)}")
    seen: set[str] = set()
    for record in records:
        if record.id in seen:
            raise InputError(f"pair id {record.id!r} appears twice")
        seen.add(record.id)
    for name in annotators:
        if not any(name in r.annotations for r in records):
            raise InputError(f"annotator {name!r} has annotated none of the pairs")


def annotator_pairs(annotators: Sequence[str]) -> list[tuple[str, str]]:
    """Every pair of annotators, in the given order (candidate first, reference second)."""
    return list(combinations(annotators, 2))


#: How π̂0 is sampled. ``prefill``: each annotator's edits of the automatic prefill (Cohn et al.
#: 2008, §3). ``density``: the same Monte Carlo from an empty alignment, so each annotator's
#: Pr(edit) becomes their link density (links per cell, fitted against ``N + M``): chance is two
#: annotators linking cells at random at their own rates. Why a report uses one or the other is
#: its own sentence (:class:`ChanceModelChoice`), never part of these descriptions.
CHANCE_MODELS: dict[str, str] = {
    "prefill": "edits of the automatic prefill (Cohn et al. 2008, §3)",
    "density": "random links at each annotator's own link density",
}
CHOSEN_FOR_REPORT = "chosen for this report"


@dataclass(frozen=True, slots=True)
class ChanceModelChoice:
    """The chance model a report uses and, in a sentence, why."""

    name: str
    reason: str


def _plural(count: int, noun: str) -> str:
    return f"{count:,} {noun}{'' if count == 1 else 's'}"


def chance_model_refusal(requested: str, *, any_prefill: bool) -> str:
    """Why a report cannot use the chance model ``requested``, or ``""`` when it can:
    ``any_prefill`` says whether any pair the report's annotators worked on has a prefill.
    ``auto`` always can (it falls back to link density); ``prefill`` needs a prefill. A web
    request checks this before it queues a job, :func:`choose_chance_model` when the job runs."""
    if requested == "auto":
        return ""
    if requested not in CHANCE_MODELS:
        choices = ", ".join(["auto", *CHANCE_MODELS])
        return f"chance model must be one of {choices}, got {requested!r}"
    if requested == "prefill" and not any_prefill:
        return (
            "the prefill chance model needs a prefill, and none of the annotated pairs has one: "
            "prefill the corpus first, or use the density chance model"
        )
    return ""


def choose_chance_model(
    records: Sequence[PairRecord],
    annotators: Sequence[str],
    requested: str = "auto",
    *,
    made_without_prefill: Collection[tuple[str, str]] = (),
) -> ChanceModelChoice:
    """The chance model of a report and the reason for it.

    ``requested="auto"`` takes ``prefill`` only when every pair one of ``annotators`` worked on
    has a prefill and every annotation of theirs was made from it; otherwise ``density``, saying
    which condition failed. ``made_without_prefill`` names the ``(record id, annotator)``
    annotations that were not made from their pair's prefill (imported before it existed, or
    started before it was written): their differences from it are not edits of it, so the
    prefill's Pr(edit) would be fitted on something nobody did. An explicit name is checked and
    kept; the reason then says it was chosen, and warns about such annotations.
    """
    wanted = set(annotators)
    worked = [r for r in records if wanted & r.annotations.keys()]
    annotations = [(r.id, name) for r in worked for name in r.annotations if name in wanted]
    made_without = set(made_without_prefill)
    without = [key for key in annotations if key in made_without]
    stale = (
        f"{_plural(len(without), 'annotation')} of {len(annotations):,} were made without the "
        f"prefill (imported or started before it existed), e.g. {without[0][1]}'s on pair "
        f"{without[0][0]}"
        if without
        else ""
    )
    if requested != "auto":
        refusal = chance_model_refusal(
            requested, any_prefill=any(r.prefill is not None for r in worked)
        )
        if refusal:
            raise InputError(refusal)
        warning = f"; {stale}" if requested == "prefill" and stale else ""
        return ChanceModelChoice(requested, f"{CHOSEN_FOR_REPORT}{warning}")
    missing = sum(r.prefill is None for r in worked)
    if not worked or missing == len(worked):
        return ChanceModelChoice("density", "no annotated pair has a prefill")
    if missing:
        verb = "has" if missing == 1 else "have"
        return ChanceModelChoice(
            "density", f"{missing:,} of {_plural(len(worked), 'annotated pair')} {verb} no prefill"
        )
    if stale:
        return ChanceModelChoice("density", stale)
    return ChanceModelChoice(
        "prefill", "every annotated pair has a prefill, and every annotation started from it"
    )


def resolve_chance_model(
    records: Sequence[PairRecord], annotators: Sequence[str], requested: str = "auto"
) -> str:
    """The name :func:`choose_chance_model` picks (an explicit name is checked and kept)."""
    return choose_chance_model(records, annotators, requested).name


def _chance_start(record: PairRecord, chance_model: str) -> Alignment | None:
    if chance_model == "density":
        return Alignment.empty(len(record.source_tokens), len(record.target_tokens))
    return record.prefill


def fit_report_models(
    records: Sequence[PairRecord],
    annotators: Sequence[str],
    *,
    kinds: Sequence[str],
    chance_model: str = "prefill",
) -> dict[str, dict[str, EditModel]]:
    """Each annotator's Pr(edit) lines, fitted on every pair they annotated that has a start
    alignment under ``chance_model`` (the prefill, or an empty one)."""
    models: dict[str, dict[str, EditModel]] = {}
    for name in annotators:
        observations = [
            (r.annotations[name].alignment, start)
            for r in records
            if name in r.annotations and (start := _chance_start(r, chance_model)) is not None
        ]
        models[name] = fit_models(observations, annotator=name, kinds=kinds)
    return models


def _doubly(records: Sequence[PairRecord], a: str, b: str) -> list[PairRecord]:
    return [r for r in records if a in r.annotations and b in r.annotations]


def _agreement_pairs(
    records: Iterable[PairRecord], a: str, b: str, chance_model: str
) -> list[AgreementPair]:
    return [
        AgreementPair(
            r.id,
            r.source_tokens,
            r.target_tokens,
            start,
            r.annotations[a].alignment,
            r.annotations[b].alignment,
        )
        for r in records
        if a in r.annotations
        and b in r.annotations
        and (start := _chance_start(r, chance_model)) is not None
    ]


def report_statistics(
    records: Sequence[PairRecord],
    annotators: Sequence[str],
    *,
    models: Mapping[str, Mapping[str, EditModel]],
    params: AgreementParams,
    progress: ReportProgress | None = None,
    threads: int | None = None,
    chance_model: str = "prefill",
) -> list[dict[str, Any]]:
    """Monte Carlo statistics of a chunk of records for every annotator pair (JSON-able).

    ``threads`` is passed to :func:`scoring.alignment.agreement.pair_statistics` (1 inside a
    Celery worker process that shares the machine with others). ``progress("monte_carlo",
    done, total)`` counts pairs over every annotator pair; it is called within a pair too (see
    :func:`~scoring.alignment.agreement.pair_statistics`) and may raise to stop the work.
    """
    out: list[dict[str, Any]] = []
    todo = [
        (a, b, _agreement_pairs(records, a, b, chance_model))
        for a, b in annotator_pairs(annotators)
    ]
    total = sum(len(pairs) for _, _, pairs in todo)
    done_before = 0
    for a, b, pairs in todo:

        def step(done: int, _total: int, offset: int = done_before) -> None:
            if progress is not None:
                progress("monte_carlo", offset + done, total)

        stats = pair_statistics(
            pairs,
            models_a=models[a],
            models_b=models[b],
            params=params,
            annotator_a=a,
            annotator_b=b,
            progress=step,
            threads=threads,
        )
        out.extend({"annotators": [a, b], **st.to_dict()} for st in stats)
        done_before += len(pairs)
    return out


def _groups(records: Sequence[PairRecord]) -> dict[str, list[PairRecord]]:
    groups: dict[str, list[PairRecord]] = {}
    for record in records:
        groups.setdefault(record.subcorpus or NO_SUBCORPUS, []).append(record)
    ordered = {name: groups[name] for name in sorted(groups)}
    ordered[OVERALL] = list(records)
    return ordered


_PairCounts = tuple[WordCounts, dict[str, PhraseCounts]]


def _counts(
    pairs: Iterable[tuple[str, PairRecord, Alignment, Alignment]],
    params: AgreementParams,
    cache: dict[tuple[str, str, bool], _PairCounts],
    *,
    exclude_identical: bool | None = None,
) -> _PairCounts:
    """Summed word and phrase counts, leaving identical links and phrase pairs out as
    ``params`` says unless ``exclude_identical`` is given; per-pair counts are cached under
    ``(who, record id, exclude_identical)``."""
    leave_out = params.exclude_identical if exclude_identical is None else exclude_identical
    words = WordCounts()
    phrases = {"possible": PhraseCounts(), "sure": PhraseCounts()}
    for who, record, candidate, reference in pairs:
        key = (who, record.id, leave_out)
        if key not in cache:
            wc = word_counts(
                candidate,
                reference,
                record.source_tokens,
                record.target_tokens,
                exclude_identical=leave_out,
            )
            pcs = {
                kind: phrase_counts(
                    candidate,
                    reference,
                    record.source_tokens,
                    record.target_tokens,
                    kind=kind,
                    exclude_identical=leave_out,
                    boundary_rule=params.boundary_rule,
                    max_length=params.max_length,
                )
                for kind in phrases
            }
            cache[key] = (wc, pcs)
        wc, pcs = cache[key]
        words = words + wc
        for kind in phrases:
            phrases[kind] = phrases[kind] + pcs[kind]
    return words, phrases


def _c_hat(
    stats: Sequence[PairStats], params: AgreementParams, kind: str, level: str
) -> ChanceCorrected:
    if kind not in params.kinds:
        return ChanceCorrected(c_hat=None, undefined_reason=f"kind {kind!r} was not computed")
    res: AgreementResult = aggregate(stats, params=params, kind=kind, level=level)
    return ChanceCorrected(
        c_hat=res.c_hat,
        undefined_reason=res.undefined_reason,
        pi_hat=res.pi_hat,
        pi0_hat=res.pi0_hat,
        pairs=res.pairs,
        pairs_used=res.pairs_used,
        estimator=res.estimator,
        pooled=res.pooled,
        paper=res.paper,
    )


def _word_scores(words: WordCounts) -> dict[str, Scores]:
    return {
        "poss": word_scores(words, "possible"),
        "sure": word_scores(words, "sure"),
        "eq2": word_scores(words, "mixed"),
    }


def _phrase_scores(phrases: Mapping[str, PhraseCounts]) -> dict[str, Scores]:
    return {
        "poss": phrase_scores(phrases["possible"]),
        "sure": phrase_scores(phrases["sure"]),
    }


def _with_identical(
    compared: Sequence[tuple[str, PairRecord, Alignment, Alignment]],
    params: AgreementParams,
    cache: dict[tuple[str, str, bool], _PairCounts],
) -> _PairCounts | None:
    """The counts over every link and phrase pair, identical ones included, when the report
    leaves those out; ``None`` when it keeps them already."""
    if not params.exclude_identical:
        return None
    return _counts(compared, params, cache, exclude_identical=False)


def build_report(
    records: Sequence[PairRecord],
    annotators: Sequence[str],
    *,
    params: AgreementParams | None = None,
    models: Mapping[str, Mapping[str, EditModel]] | None = None,
    statistics: Iterable[Mapping[str, Any]] | None = None,
    length_edges: Sequence[int] = DEFAULT_LENGTH_EDGES,
    progress: ReportProgress | None = None,
    threads: int | None = None,
    chance_model: str = "auto",
    chance_model_reason: str = "",
    resamples: int = 1000,
) -> CorpusReport:
    """The Table 3 / Table 4 / Figure 4 / Table 5 report as typed records, with Fleiss' κ and
    Krippendorff's α (bootstrap intervals over ``resamples`` resamples of the pairs), null-link
    agreement and the pairs ranked by agreement.

    ``statistics``: the concatenated output of :func:`report_statistics` over chunks; when
    omitted the Monte Carlo runs here. ``chance_model``: see :data:`CHANCE_MODELS` (``auto``
    chooses by :func:`choose_chance_model`); ``chance_model_reason`` says why a model named
    here was chosen (the signature keeps it). ``progress(stage, done, total)`` is called as work
    proceeds (stages ``"monte_carlo"``, ``"tables"``).

    While ``params.exclude_identical`` leaves identical links and phrase pairs out (the paper's
    way), every group of Tables 3–5 also carries ``with_identical``: the same scores over every
    link and phrase pair.
    """
    params = params or AgreementParams()
    _check(records, annotators)
    choice = choose_chance_model(records, annotators, chance_model)
    chance_model = choice.name
    if chance_model_reason:
        choice = ChanceModelChoice(chance_model, chance_model_reason)
    if models is None:
        models = fit_report_models(
            records, annotators, kinds=params.kinds, chance_model=chance_model
        )
    if statistics is None:
        statistics = report_statistics(
            records,
            annotators,
            models=models,
            params=params,
            progress=progress,
            threads=threads,
            chance_model=chance_model,
        )
    by_pair: dict[tuple[str, str], list[PairStats]] = {}
    for item in statistics:
        names = item["annotators"]
        by_pair.setdefault((str(names[0]), str(names[1])), []).append(PairStats.from_dict(item))

    cache: dict[tuple[str, str, bool], _PairCounts] = {}
    pair_reports: list[PairReport] = []
    pairs_of_annotators = annotator_pairs(annotators)
    steps = len(pairs_of_annotators) + len(annotators)
    step = 0
    for a, b in pairs_of_annotators:
        stats = by_pair.get((a, b), [])
        both = _doubly(records, a, b)
        table3: dict[str, WordTable] = {}
        table4: dict[str, PhraseTable] = {}
        figure4: dict[str, dict[str, list[LengthBin]]] = {}
        null: dict[str, NullLinks] = {}
        for group, members in _groups(both).items():
            keys = {r.id for r in members}
            group_stats = [st for st in stats if st.key in keys]
            compared = [
                (f"{a}|{b}", r, r.annotations[a].alignment, r.annotations[b].alignment)
                for r in members
            ]
            words, phrases = _counts(compared, params, cache)
            every = _with_identical(compared, params, cache)
            table3[group] = WordTable(
                pairs=len(members),
                poss=word_scores(words, "possible"),
                sure=word_scores(words, "sure"),
                eq2=word_scores(words, "mixed"),
                c_hat={
                    "poss": _c_hat(group_stats, params, "possible", "word"),
                    "sure": _c_hat(group_stats, params, "sure", "word"),
                },
                counts=words,
                with_identical=_word_scores(every[0]) if every else {},
            )
            table4[group] = PhraseTable(
                pairs=len(members),
                poss=phrase_scores(phrases["possible"]),
                sure=phrase_scores(phrases["sure"]),
                c_hat={
                    "poss": _c_hat(group_stats, params, "possible", "phrase_atomic"),
                    "sure": _c_hat(group_stats, params, "sure", "phrase_atomic"),
                },
                counts=dict(phrases),
                with_identical=_phrase_scores(every[1]) if every else {},
            )
            null[group] = null_link_agreement(members, a, b)
            if "possible" in params.kinds:
                figure4[group] = {
                    level: length_bins(
                        group_stats,
                        params=params,
                        kind="possible",
                        level=level,
                        edges=length_edges,
                    )
                    for level in ("phrase_all", "phrase_atomic")
                }
        pair_reports.append(
            PairReport(
                candidate=a,
                reference=b,
                pairs=len(both),
                pairs_in_chance_model=len({st.key for st in stats}),
                table3=table3,
                table4=table4,
                figure4=figure4,
                null_links=null,
            )
        )
        step += 1
        if progress is not None:
            progress("tables", step, steps)

    table5: list[PrefillReport] = []
    for name in annotators:
        mine = [r for r in records if name in r.annotations and r.prefill is not None]
        per_group: dict[str, PrefillGroup] = {}
        for group, members in _groups(mine).items():
            compared = [
                (f"prefill|{name}", r, r.prefill, r.annotations[name].alignment)
                for r in members
                if r.prefill is not None
            ]
            words, phrases = _counts(compared, params, cache)
            every = _with_identical(compared, params, cache)
            per_group[group] = PrefillGroup(
                pairs=len(members),
                words=_word_scores(words),
                phrases=_phrase_scores(phrases),
                with_identical=(
                    {"words": _word_scores(every[0]), "phrases": _phrase_scores(every[1])}
                    if every
                    else {}
                ),
            )
        table5.append(PrefillReport(annotator=name, candidate="prefill", groups=per_group))
        step += 1
        if progress is not None:
            progress("tables", step, steps)

    return CorpusReport(
        signature=ReportSignature(
            report="Cohn, Callison-Burch & Lapata (2008) Tables 3-5, Figure 4",
            version=f"scoring {__version__} / report {REPORT_VERSION}",
            params=params,
            seed=params.seed,
            samples=params.samples,
            length_edges=list(length_edges),
            word_columns="poss: P vs P, sure: S vs S, eq2: Equation 2 (A_S vs B_P, A_P vs B_S)",
            phrase_columns="pairs extracted from P (poss) and S (sure); Equation 3",
            chance_model=chance_model,
            chance_model_description=CHANCE_MODELS[chance_model],
            resamples=resamples,
            chance_model_reason=choice.reason,
        ),
        annotators=list(annotators),
        edit_models={name: dict(by_kind) for name, by_kind in models.items()},
        annotator_pairs=pair_reports,
        table5=table5,
        standard={
            group: agreement_with_intervals(
                brockett_blocks(members, annotators),
                annotators,
                items_label=BROCKETT_ITEMS,
                resamples=resamples,
                seed=params.seed,
            )
            for group, members in _groups(records).items()
        },
        pair_ranking=pair_ranking(records, annotators),
    )


BROCKETT_ITEMS = (
    "Brockett (2007): every link some annotator made, every target word some annotator left "
    "unaligned, and one NULL item per pair"
)


def null_link_agreement(records: Sequence[PairRecord], a: str, b: str) -> NullLinks:
    """F1 between two annotators' *unaligned* words (source and target words without a link in
    ``P``), counts summed over the pairs: ``2·|both| / (|a| + |b|)``. Undefined when neither
    left a word unaligned."""
    only_a = only_b = both = 0
    for record in records:
        left = []
        for name in (a, b):
            alignment = record.annotations[name].alignment
            src = {i for i, _ in alignment.possible}
            tgt = {j for _, j in alignment.possible}
            left.append(
                {("s", i) for i in range(alignment.n_source) if i not in src}
                | {("t", j) for j in range(alignment.n_target) if j not in tgt}
            )
        both += len(left[0] & left[1])
        only_a += len(left[0] - left[1])
        only_b += len(left[1] - left[0])
    total = 2 * both + only_a + only_b
    return NullLinks(
        f1=None if total == 0 else 2 * both / total,
        both=both,
        only_candidate=only_a,
        only_reference=only_b,
        undefined_reason="" if total else "neither annotator left a word unaligned",
    )


def pair_ranking(records: Sequence[PairRecord], annotators: Sequence[str]) -> list[RankedPair]:
    """Every pair two or more of ``annotators`` annotated, least agreement first: the lowest
    link F1 (over ``P``, sure and possible alike) between any two of them."""
    rows: list[RankedPair] = []
    for record in records:
        names = [n for n in annotators if n in record.annotations]
        if len(names) < 2:
            continue
        scores: dict[str, float] = {}
        for a, b in combinations(names, 2):
            pa = record.annotations[a].alignment.possible
            pb = record.annotations[b].alignment.possible
            total = len(pa) + len(pb)
            scores[f"{a}|{b}"] = 1.0 if total == 0 else 2 * len(pa & pb) / total
        rows.append(
            RankedPair(
                id=record.id,
                subcorpus=record.subcorpus or NO_SUBCORPUS,
                annotators=names,
                f1=scores,
                min_f1=min(scores.values()),
                metadata=dict(record.metadata),
            )
        )
    rows.sort(key=lambda row: (row.min_f1, row.id))
    return rows
