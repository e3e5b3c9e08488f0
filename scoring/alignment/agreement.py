"""Chance-corrected agreement Ĉ with a Monte Carlo π̂0 (Cohn et al. 2008, §3).

For two annotators A and B, over sentence pairs ``i = 1..I`` (Cohn et al., Equations 5–7, after
Kupper & Hafner 1989)::

    Ĉ = (π̂ − π̂0) / (1 − π̂0)

where ``A_i``/``B_i`` are the sets compared on pair ``i``: the non-identical atomic phrase pairs
extracted from each annotator's alignment (Table 4), or the non-identical links (Table 3). Both
are computed from ``P`` ("Poss", the paper's ``A^p_atom``) and, for the "Sure" columns, from ``S``.

Two estimators of π̂ and π̂0 are computed from the same statistics:

- ``"paper"`` (default) — Equations 5 and 7 as printed: the mean over pairs of
  ``|A_i ∩ B_i| / min(|A_i|, |B_i|)``, and for π̂0 the mean over pairs of the mean over samples
  ``j`` of the same ratio. A ratio with an empty denominator (one side has no item) is undefined
  and left out of its mean; how many were left out is reported.
- ``"pooled"`` — ``Σ_i |A_i ∩ B_i| / Σ_i min(|A_i|, |B_i|)``, and for π̂0 the
  intersections and minima summed over pairs and samples.

π̂0 samples alignments from each annotator's prior: start from the automatic prefill and flip each
of the ``N×M`` cells independently with ``Pr(edit | r, N, M)``, a linear function of ``N + M``
fitted by least squares to the annotator's observed edit rates (cells that differ from the
prefill / ``N·M``) and clipped to [0, 1]; then extract phrase pairs and compare, ``J`` times per
pair (default 1,000).

Reproducibility: the random stream of a pair is derived from ``(seed, pair key, annotators,
kind)`` through :class:`numpy.random.SeedSequence`, so the per-pair statistics do not depend on how
pairs are split into chunks; aggregation sums integers exactly and floats with :func:`math.fsum`,
so a chunked run (Celery group/chord: :func:`pair_statistics` per chunk, then
:func:`aggregate`) is bit-identical to a single run (:func:`chance_corrected_agreement`).
"""

from __future__ import annotations

import hashlib
import math
import os
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import asdict, dataclass, field
from functools import partial
from typing import Any, ClassVar, Literal

import numpy as np

from scoring import __version__
from scoring.alignment.agreement_kernels import pair_kernel
from scoring.alignment.edit_model import (
    EditModel,
    alignment_matrix,
    edit_count,
    fit_edit_model,
)
from scoring.alignment.links import Alignment
from scoring.alignment.phrases import identity_matrix
from scoring.corpus import LENGTH_BIN_STARTS
from scoring.errors import AlignmentError, InputError, ModelError
from scoring.options import SEED, Choices, Constraint, Interval, Options
from scoring.records import Record

AGREEMENT_VERSION = "1"
Kind = Literal["possible", "sure"]
Estimator = Literal["paper", "pooled"]
KINDS: tuple[Kind, ...] = ("possible", "sure")
# Item sets compared, in the order of the kernel's output rows.
LEVELS: tuple[str, ...] = ("word", "phrase_atomic", "phrase_all")
ProgressCallback = Callable[[int, int], None]
#: The most Monte Carlo samples J per pair (default 1,000): a chunk of 50 pairs takes about a
#: second at J = 1,000, so a chunk task stays within minutes at the most.
MAX_SAMPLES = 100_000
#: Monte Carlo samples of one pair drawn between two progress points: at J = 100,000 a pair of
#: RTE-2 (about 40 × 10 tokens) takes seconds, so a callback that stops the work (a cancelled
#: job) is not called only once per pair; a batch of a pair that size takes some 30 ms.
SAMPLE_BATCH = 2_000
#: How often ``progress`` is called while a pair computes on several threads (seconds).
PROGRESS_WAIT_SECONDS = 0.25
#: The longest phrase ``max_length`` may name: four times the longest sentence an import accepts.
MAX_PHRASE_LENGTH = 1_000


# --- parameters, inputs and statistics ---------------------------------------------------------


@dataclass(frozen=True, slots=True)
class AgreementParams(Options):
    """Everything that determines the numbers, recorded in every result's signature: the
    Monte Carlo ``samples`` J and ``seed``, the ``kinds`` of alignment compared, whether
    lexically identical items are left out, the no-unaligned-boundary rule, the longest phrase
    (``None``: any) and the estimator of π̂ and π̂0 (see :mod:`scoring.options`)."""

    owner: ClassVar[str] = "the agreement"
    constraints: ClassVar[Mapping[str, Constraint]] = {
        "samples": Interval(1, MAX_SAMPLES),
        "seed": SEED,
        "kinds": Choices(KINDS),
        "max_length": Interval(1, MAX_PHRASE_LENGTH),
        "estimator": Choices(("paper", "pooled")),
    }

    samples: int = 1000
    seed: int = 0
    kinds: tuple[str, ...] = KINDS
    exclude_identical: bool = True
    boundary_rule: bool = True
    max_length: int | None = None
    estimator: str = "paper"


@dataclass(frozen=True, slots=True)
class AgreementPair:
    """One doubly annotated sentence pair: tokens, the automatic prefill, both alignments."""

    key: str
    source: Sequence[str]
    target: Sequence[str]
    prefill: Alignment
    a: Alignment
    b: Alignment

    def __post_init__(self) -> None:
        shape = (len(self.source), len(self.target))
        for name, alignment in (("prefill", self.prefill), ("a", self.a), ("b", self.b)):
            if alignment.shape != shape:
                raise AlignmentError(
                    f"pair {self.key!r}: the {name} alignment is "
                    f"{alignment.n_source}×{alignment.n_target} but the tokens are "
                    f"{shape[0]}×{shape[1]}"
                )


@dataclass(frozen=True, slots=True)
class PairStats:
    """Sufficient statistics of one pair for one kind (JSON-able through ``to_dict``).

    ``observed[level] = (|A ∩ B|, min(|A|, |B|))``; ``sampled[level] = (Σ_j ∩, Σ_j min,
    valid samples)``; ``ratio_sum[level]`` = Σ over valid samples of ∩/min.
    """

    key: str
    kind: str
    n_source: int
    n_target: int
    p_a: float
    p_b: float
    observed: dict[str, tuple[int, int]]
    sampled: dict[str, tuple[int, int, int]]
    ratio_sum: dict[str, float]

    def to_dict(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "kind": self.kind,
            "n_source": self.n_source,
            "n_target": self.n_target,
            "p_a": self.p_a,
            "p_b": self.p_b,
            "observed": {k: list(v) for k, v in self.observed.items()},
            "sampled": {k: list(v) for k, v in self.sampled.items()},
            "ratio_sum": dict(self.ratio_sum),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> PairStats:
        return cls(
            key=str(data["key"]),
            kind=str(data["kind"]),
            n_source=int(data["n_source"]),
            n_target=int(data["n_target"]),
            p_a=float(data["p_a"]),
            p_b=float(data["p_b"]),
            observed={k: (int(v[0]), int(v[1])) for k, v in data["observed"].items()},
            sampled={k: (int(v[0]), int(v[1]), int(v[2])) for k, v in data["sampled"].items()},
            ratio_sum={k: float(v) for k, v in data["ratio_sum"].items()},
        )


def pair_seed_sequence(
    seed: int, key: str, annotator_a: str, annotator_b: str, kind: str
) -> np.random.SeedSequence:
    """The random stream of one pair: ``SeedSequence(seed, spawn_key=sha256(identity))``."""
    identity = "\x1f".join((key, annotator_a, annotator_b, kind)).encode("utf-8")
    digest = hashlib.sha256(identity).digest()
    words = tuple(int.from_bytes(digest[k : k + 4], "little") for k in range(0, 32, 4))
    return np.random.SeedSequence(seed, spawn_key=words)


def _model_for(models: Mapping[str, EditModel], kind: str, who: str) -> EditModel:
    model = models.get(kind)
    if model is None:
        raise ModelError(f"no edit model for annotator {who} and kind {kind!r}")
    return model


def _one_pair(
    pair: AgreementPair,
    kind: str,
    *,
    models_a: Mapping[str, EditModel],
    models_b: Mapping[str, EditModel],
    params: AgreementParams,
    annotator_a: str,
    annotator_b: str,
    between: Callable[[], None] | None = None,
) -> PairStats:
    """One pair's statistics for one kind; the samples are drawn in batches of
    :data:`SAMPLE_BATCH`, with ``between()`` called after each batch but the last (it may raise
    to stop the computation). The numbers do not depend on the batches."""
    n, m = len(pair.source), len(pair.target)
    p_a = _model_for(models_a, kind, annotator_a).probability(n, m)
    p_b = _model_for(models_b, kind, annotator_b).probability(n, m)
    rng = np.random.default_rng(
        pair_seed_sequence(params.seed, pair.key, annotator_a, annotator_b, kind)
    )
    observed = np.zeros((3, 2), np.int64)
    sampled = np.zeros((3, 3), np.int64)
    ratio = np.zeros(3, np.float64)
    matrices = (
        alignment_matrix(pair.prefill, kind),
        alignment_matrix(pair.a, kind),
        alignment_matrix(pair.b, kind),
        identity_matrix(pair.source, pair.target),
    )
    for first in range(0, params.samples, SAMPLE_BATCH):
        if first and between is not None:
            between()
        pair_kernel(
            *matrices,
            p_a,
            p_b,
            min(SAMPLE_BATCH, params.samples - first),
            first > 0,
            params.exclude_identical,
            params.boundary_rule,
            0 if params.max_length is None else int(params.max_length),
            rng,
            observed,
            sampled,
            ratio,
        )
    return PairStats(
        key=pair.key,
        kind=kind,
        n_source=n,
        n_target=m,
        p_a=p_a,
        p_b=p_b,
        observed={lv: (int(observed[k, 0]), int(observed[k, 1])) for k, lv in enumerate(LEVELS)},
        sampled={
            lv: (int(sampled[k, 0]), int(sampled[k, 1]), int(sampled[k, 2]))
            for k, lv in enumerate(LEVELS)
        },
        ratio_sum={lv: float(ratio[k]) for k, lv in enumerate(LEVELS)},
    )


def default_threads() -> int:
    """Threads for :func:`pair_statistics`: the CPUs this process may use, at most 4."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        cpus = os.cpu_count() or 1
    return max(1, min(4, cpus))


def pair_statistics(
    pairs: Iterable[AgreementPair],
    *,
    models_a: Mapping[str, EditModel],
    models_b: Mapping[str, EditModel],
    params: AgreementParams,
    annotator_a: str = "A",
    annotator_b: str = "B",
    progress: ProgressCallback | None = None,
    threads: int | None = None,
) -> list[PairStats]:
    """Per-pair sufficient statistics for a chunk of pairs (the unit of parallel work).

    ``models_a``/``models_b`` map each kind (``"possible"``, ``"sure"``) to the annotator's
    :class:`EditModel`, fitted once on the whole corpus (:func:`fit_models`). ``progress`` is
    called as ``progress(done, total)`` after each pair, in order, and with the pairs done so
    far while a pair computes (between batches of :data:`SAMPLE_BATCH` samples, or every
    :data:`PROGRESS_WAIT_SECONDS` on several threads); it may raise to stop the computation,
    which then ends within a batch of samples. The numba kernel releases the GIL, so pairs run
    on ``threads`` threads (default :func:`default_threads`; pass 1 inside a Celery worker that
    already uses every core). Each pair has its own random stream, so the numbers do not depend
    on the thread count.
    """
    pair_list = list(pairs)
    total = len(pair_list)
    workers = default_threads() if threads is None else int(threads)
    if workers < 1:
        raise InputError(f"threads must be at least 1, got {threads}")

    def run(pair: AgreementPair, between: Callable[[], None] | None) -> list[PairStats]:
        return [
            _one_pair(
                pair,
                kind,
                models_a=models_a,
                models_b=models_b,
                params=params,
                annotator_a=annotator_a,
                annotator_b=annotator_b,
                between=between,
            )
            for kind in params.kinds
        ]

    stats: list[PairStats] = []
    if workers == 1 or total < 2:
        for done, pair in enumerate(pair_list):
            between = None if progress is None else partial(progress, done, total)
            stats.extend(run(pair, between))
            if progress is not None:
                progress(done + 1, total)
        return stats
    # The pool's threads never call ``progress``; once it raised, they stop at their next batch
    # and the pairs not yet started are dropped.
    stopped = threading.Event()

    def stop_if_stopped() -> None:
        if stopped.is_set():
            raise _Stopped

    with ThreadPoolExecutor(max_workers=workers) as pool:
        futures = [pool.submit(run, pair, stop_if_stopped) for pair in pair_list]
        try:
            for done, future in enumerate(futures, start=1):
                stats.extend(_result_reporting(future, progress, done - 1, total))
                if progress is not None:
                    progress(done, total)
        except BaseException:
            stopped.set()
            pool.shutdown(wait=True, cancel_futures=True)
            raise
    return stats


class _Stopped(Exception):
    """Stops a pool thread's pair once ``progress`` raised in the calling thread."""


def _result_reporting(
    future: Future[list[PairStats]], progress: ProgressCallback | None, done: int, total: int
) -> list[PairStats]:
    """The future's result; while it is not ready, ``progress(done, total)`` every
    :data:`PROGRESS_WAIT_SECONDS`, so a callback that stops the work is called within a pair."""
    while True:
        try:
            return future.result(timeout=None if progress is None else PROGRESS_WAIT_SECONDS)
        except FutureTimeout:
            progress(done, total)  # type: ignore[misc]  # a timeout needs a progress


# --- aggregation -------------------------------------------------------------------------------


def chance_corrected(pi_hat: float | None, pi0_hat: float | None) -> tuple[float | None, str]:
    """``Ĉ = (π̂ − π̂0) / (1 − π̂0)`` and why it is undefined (``""`` when it is defined).

    π̂0 = 1 (neither annotator is expected to change the prefill) makes Ĉ undefined; the paper
    writes −∞.
    """
    if pi_hat is None:
        return None, "π̂ is undefined: no pair has an item from both annotators"
    if pi0_hat is None:
        return None, "π̂0 is undefined: no sample has an item from both annotators"
    if pi0_hat >= 1.0:
        return None, "π̂0 = 1 (chance agreement is perfect); the paper reports Ĉ = −∞"
    return (pi_hat - pi0_hat) / (1.0 - pi0_hat), ""


@dataclass(frozen=True, slots=True)
class AgreementResult:
    """π̂, π̂0 and Ĉ for one kind and item set, with the counts behind them, a one-line
    signature and the full provenance."""

    kind: str
    level: str
    estimator: str
    pi_hat: float | None
    pi0_hat: float | None
    c_hat: float | None
    undefined_reason: str
    pairs: int
    pairs_used: int
    samples_used: int
    samples_total: int
    pooled: dict[str, float | None]
    paper: dict[str, float | None]
    signature: str = ""
    provenance: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _paper_estimates(
    stats: Sequence[PairStats], level: str
) -> tuple[float | None, float | None, int, int, int]:
    pair_ratios: list[float] = []
    sample_means: list[float] = []
    used = 0
    samples_used = 0
    samples_total = 0
    for st in stats:
        inter, low = st.observed[level]
        _, _, valid = st.sampled[level]
        if low == 0:
            continue
        used += 1
        pair_ratios.append(inter / low)
        samples_used += valid
        if valid > 0:
            sample_means.append(st.ratio_sum[level] / valid)
    pi_hat = math.fsum(pair_ratios) / len(pair_ratios) if pair_ratios else None
    pi0_hat = math.fsum(sample_means) / len(sample_means) if sample_means else None
    return pi_hat, pi0_hat, used, samples_used, samples_total


def _pooled_estimates(stats: Sequence[PairStats], level: str) -> tuple[float | None, float | None]:
    inter = sum(st.observed[level][0] for st in stats)
    low = sum(st.observed[level][1] for st in stats)
    s_inter = sum(st.sampled[level][0] for st in stats)
    s_low = sum(st.sampled[level][1] for st in stats)
    return (inter / low if low else None), (s_inter / s_low if s_low else None)


def signature(
    params: AgreementParams, *, kind: str | Sequence[str], level: str | Sequence[str]
) -> str:
    """A one-line record of the settings behind a Ĉ, stored with results (as TER's and BLEU's).

    Several results computed with the same settings share one signature that lists each of
    their kinds and levels (``kind:possible,sure|items:word,phrase_atomic``)."""
    kinds = kind if isinstance(kind, str) else ",".join(kind)
    levels = level if isinstance(level, str) else ",".join(level)
    return (
        f"Chat|kind:{kinds}|items:{levels}|est:{params.estimator}|J:{params.samples}"
        f"|seed:{params.seed}|boundary:{int(params.boundary_rule)}"
        f"|maxlen:{params.max_length or 0}|noident:{int(params.exclude_identical)}"
        f"|v:{__version__}.{AGREEMENT_VERSION}"
    )


def provenance(
    params: AgreementParams,
    *,
    kind: str,
    level: str,
    annotator_a: str,
    annotator_b: str,
    models: Sequence[EditModel] = (),
) -> dict[str, Any]:
    """What produced a number in full: versions, parameters, seed, J, the edit models and how
    the random streams are derived."""
    return {
        "statistic": "C_hat (Cohn, Callison-Burch & Lapata 2008, Eq. 5-7)",
        "version": f"scoring {__version__} / agreement {AGREEMENT_VERSION}",
        "kind": kind,
        "level": level,
        "annotators": [annotator_a, annotator_b],
        "params": params.to_dict(),
        "seed": params.seed,
        "samples": params.samples,
        "edit_models": [m.to_dict() for m in models],
        "rng": "numpy PCG64, SeedSequence(seed, spawn_key=sha256(pair key|A|B|kind))",
    }


def _ordered(stats: Iterable[PairStats]) -> list[PairStats]:
    seen: set[tuple[str, str]] = set()
    out = []
    for st in stats:
        ident = (st.key, st.kind)
        if ident in seen:
            raise InputError(f"pair {st.key!r} ({st.kind}) appears in two chunks")
        seen.add(ident)
        out.append(st)
    return sorted(out, key=lambda s: (s.kind, s.key))


def aggregate(
    stats: Iterable[PairStats],
    *,
    params: AgreementParams,
    kind: str,
    level: str,
    annotator_a: str = "A",
    annotator_b: str = "B",
    models: Sequence[EditModel] = (),
) -> AgreementResult:
    """π̂, π̂0 and Ĉ from per-pair statistics (from any number of chunks, in any order)."""
    if level not in LEVELS:
        raise InputError(f"level must be one of {', '.join(LEVELS)}, got {level!r}")
    chosen = [st for st in _ordered(stats) if st.kind == kind]
    paper_pi, paper_pi0, used, samples_used, _ = _paper_estimates(chosen, level)
    pooled_pi, pooled_pi0 = _pooled_estimates(chosen, level)
    paper_c, paper_why = chance_corrected(paper_pi, paper_pi0)
    pooled_c, pooled_why = chance_corrected(pooled_pi, pooled_pi0)
    if params.estimator == "paper":
        pi, pi0, c_hat, why = paper_pi, paper_pi0, paper_c, paper_why
    else:
        pi, pi0, c_hat, why = pooled_pi, pooled_pi0, pooled_c, pooled_why
    return AgreementResult(
        kind=kind,
        level=level,
        estimator=params.estimator,
        pi_hat=pi,
        pi0_hat=pi0,
        c_hat=c_hat,
        undefined_reason=why,
        pairs=len(chosen),
        pairs_used=used if params.estimator == "paper" else len(chosen),
        samples_used=samples_used,
        samples_total=len(chosen) * params.samples,
        pooled={"pi_hat": pooled_pi, "pi0_hat": pooled_pi0, "c_hat": pooled_c},
        paper={"pi_hat": paper_pi, "pi0_hat": paper_pi0, "c_hat": paper_c},
        signature=signature(params, kind=kind, level=level),
        provenance=provenance(
            params,
            kind=kind,
            level=level,
            annotator_a=annotator_a,
            annotator_b=annotator_b,
            models=models,
        ),
    )


def fit_models(
    observations: Iterable[tuple[Alignment, Alignment]],
    *,
    annotator: str,
    kinds: Sequence[str] = KINDS,
) -> dict[str, EditModel]:
    """Fit one annotator's :class:`EditModel` per kind from ``(annotation, prefill)`` pairs."""
    obs = list(observations)
    models: dict[str, EditModel] = {}
    for kind in kinds:
        rows = []
        for annotation, prefill in obs:
            edits = edit_count(annotation, prefill, kind)
            rows.append((annotation.n_source, annotation.n_target, edits))
        models[kind] = fit_edit_model(rows, annotator=annotator, kind=kind)
    return models


@dataclass(frozen=True, slots=True)
class AgreementReport:
    """Results for every kind × item set of one annotator pair, plus the per-pair statistics."""

    annotator_a: str
    annotator_b: str
    params: AgreementParams
    models_a: dict[str, EditModel]
    models_b: dict[str, EditModel]
    results: dict[str, dict[str, AgreementResult]]
    stats: list[PairStats]

    def to_dict(self, *, per_pair: bool = False) -> dict[str, Any]:
        out: dict[str, Any] = {
            "annotators": [self.annotator_a, self.annotator_b],
            "params": self.params.to_dict(),
            "edit_models": {
                self.annotator_a: {k: m.to_dict() for k, m in self.models_a.items()},
                self.annotator_b: {k: m.to_dict() for k, m in self.models_b.items()},
            },
            "results": {
                kind: {level: r.to_dict() for level, r in by_level.items()}
                for kind, by_level in self.results.items()
            },
        }
        if per_pair:
            out["per_pair"] = [s.to_dict() for s in self.stats]
        return out


def aggregate_all(
    stats: Iterable[PairStats],
    *,
    params: AgreementParams,
    annotator_a: str,
    annotator_b: str,
    models_a: Mapping[str, EditModel],
    models_b: Mapping[str, EditModel],
) -> AgreementReport:
    """Every kind × level of :func:`aggregate` at once."""
    ordered = _ordered(stats)
    results: dict[str, dict[str, AgreementResult]] = {}
    for kind in params.kinds:
        models = [m for m in (models_a.get(kind), models_b.get(kind)) if m is not None]
        results[kind] = {
            level: aggregate(
                ordered,
                params=params,
                kind=kind,
                level=level,
                annotator_a=annotator_a,
                annotator_b=annotator_b,
                models=models,
            )
            for level in LEVELS
        }
    return AgreementReport(
        annotator_a, annotator_b, params, dict(models_a), dict(models_b), results, ordered
    )


def chance_corrected_agreement(
    pairs: Sequence[AgreementPair],
    *,
    params: AgreementParams | None = None,
    annotator_a: str = "A",
    annotator_b: str = "B",
    models_a: Mapping[str, EditModel] | None = None,
    models_b: Mapping[str, EditModel] | None = None,
    progress: ProgressCallback | None = None,
) -> AgreementReport:
    """Ĉ for two annotators over ``pairs`` in one process.

    Without models, each annotator's Pr(edit) line is fitted on these pairs; pass models fitted on
    all of an annotator's pairs (:func:`fit_models`) to use more data, as the paper did.
    """
    params = params or AgreementParams()
    if not pairs:
        raise InputError("no doubly annotated pairs to measure agreement on")
    if models_a is None:
        models_a = fit_models(
            ((p.a, p.prefill) for p in pairs), annotator=annotator_a, kinds=params.kinds
        )
    if models_b is None:
        models_b = fit_models(
            ((p.b, p.prefill) for p in pairs), annotator=annotator_b, kinds=params.kinds
        )
    stats = pair_statistics(
        pairs,
        models_a=models_a,
        models_b=models_b,
        params=params,
        annotator_a=annotator_a,
        annotator_b=annotator_b,
        progress=progress,
    )
    return aggregate_all(
        stats,
        params=params,
        annotator_a=annotator_a,
        annotator_b=annotator_b,
        models_a=models_a,
        models_b=models_b,
    )


@dataclass(frozen=True, slots=True)
class LengthBin(Record):
    """π̂, π̂0 and Ĉ of the pairs whose shorter sentence has ``min_length`` to
    ``max_length_exclusive − 1`` tokens (``None``: no upper end), a point of Figure 4."""

    min_length: int
    max_length_exclusive: int | None
    pairs: int
    pi_hat: float | None
    pi0_hat: float | None
    c_hat: float | None
    undefined_reason: str


def length_bins(
    stats: Iterable[PairStats],
    *,
    params: AgreementParams,
    kind: str = "possible",
    level: str = "phrase_atomic",
    edges: Sequence[int] = LENGTH_BIN_STARTS[1:],
) -> list[LengthBin]:
    """π̂, π̂0 and Ĉ per bin of the shorter sentence's length (the paper's Figure 4).

    Bins are ``[1, e0)``, ``[e0, e1)``, …, ``[e_last, ∞)``; empty bins are kept (with no values).
    The default edges are the project's one binning of lengths,
    :data:`scoring.corpus.LENGTH_BIN_STARTS`.
    """
    ordered = [st for st in _ordered(stats) if st.kind == kind]
    bounds = [1, *edges]
    out: list[LengthBin] = []
    for b, low in enumerate(bounds):
        high = bounds[b + 1] if b + 1 < len(bounds) else None
        members = [
            st
            for st in ordered
            if min(st.n_source, st.n_target) >= low
            and (high is None or min(st.n_source, st.n_target) < high)
        ]
        res = aggregate(members, params=params, kind=kind, level=level)
        out.append(
            LengthBin(
                min_length=low,
                max_length_exclusive=high,
                pairs=len(members),
                pi_hat=res.pi_hat,
                pi0_hat=res.pi0_hat,
                c_hat=res.c_hat,
                undefined_reason=res.undefined_reason,
            )
        )
    return out
