"""Chance-corrected agreement Ĉ (scoring.alignment.agreement): the paper's figures, a
plain-Python Monte
Carlo reference, the estimators, chunking and seeding."""

from __future__ import annotations

import json
import math
import random
from typing import Any

import numpy as np
import pytest

from scoring.alignment.agreement import (
    LEVELS,
    AgreementPair,
    AgreementParams,
    PairStats,
    aggregate,
    aggregate_all,
    chance_corrected,
    chance_corrected_agreement,
    fit_models,
    length_bins,
    pair_seed_sequence,
    pair_statistics,
)
from scoring.alignment.edit_model import EditModel, edit_count, fit_edit_model
from scoring.alignment.links import Alignment
from scoring.errors import ScoringError
from tests.scoring import paper_example as fig2
from tests.scoring.alignment.phrase_reference import reference_pairs

# --- the paper's worked figures (§3) -----------------------------------------------------------


def test_eight_edited_cells_of_a_12_by_13_matrix_give_pr_edit_5_13_percent() -> None:
    model = fit_edit_model([(12, 13, 8)], annotator="A")
    assert round(model.probability(12, 13) * 100, 2) == 5.13
    model_b = fit_edit_model([(12, 13, 9)], annotator="B")
    assert round(model_b.probability(12, 13) * 100, 2) == 5.77


def test_pi_hat_4_of_7_with_pi0_0_147_gives_c_0_497() -> None:
    # The paper rounds π̂ = 4/7 to 0.571 before dividing: (0.571 − 0.147) / 0.853 = 0.497.
    c_rounded, why = chance_corrected(0.571, 0.147)
    assert round(c_rounded or 0, 3) == 0.497 and why == ""
    c_exact, _ = chance_corrected(4 / 7, 0.147)
    assert c_exact == pytest.approx(0.497, abs=1e-3)


def test_pi_hat_4_of_7_with_pi0_0_259_gives_c_0_421_not_the_printed_0_442() -> None:
    # The paper prints Ĉ = 0.442 here, but its own Equation 5 gives (0.571 − 0.259) / 0.741 =
    # 0.421 (0.422 with the exact 4/7): a misprint, since the first example (0.497) checks out.
    c_rounded, _ = chance_corrected(0.571, 0.259)
    assert round(c_rounded or 0, 3) == 0.421
    c_exact, _ = chance_corrected(4 / 7, 0.259)
    assert round(c_exact or 0, 3) == 0.422


def test_no_edits_by_either_annotator_leave_c_undefined_and_say_so() -> None:
    a = fig2.ANNOTATOR_A
    pair = AgreementPair("fig2", fig2.SOURCE, fig2.TARGET, a, a, a)
    report = chance_corrected_agreement([pair], params=AgreementParams(samples=5))
    result = report.results["possible"]["phrase_atomic"]
    assert result.pi0_hat == 1.0
    assert result.c_hat is None
    assert "−∞" in result.undefined_reason
    assert (
        json.loads(json.dumps(report.to_dict()))["results"]["possible"]["phrase_atomic"]["c_hat"]
        is None
    )


def test_editing_every_cell_also_makes_chance_agreement_perfect() -> None:
    # §3: with Pr(edit) = 1 for both, only the two full sentences form a phrase pair.
    empty = Alignment.empty(3, 4)
    one = Alignment.from_links(3, 4, sure=[(0, 1)])
    pair = AgreementPair("k", ["a", "b", "c"], ["w", "x", "y", "z"], empty, one, one)
    always = {k: EditModel("A", k, 1.0, 0.0, 1) for k in ("possible", "sure")}
    report = chance_corrected_agreement(
        [pair], params=AgreementParams(samples=3), models_a=always, models_b=always
    )
    assert report.results["possible"]["phrase_atomic"].pi0_hat == 1.0
    assert report.results["possible"]["phrase_atomic"].c_hat is None


def test_the_edit_model_is_a_clipped_least_squares_line_in_n_plus_m() -> None:
    # Rates 0.1 at N+M = 4 and 0.0 at N+M = 8: rate = 0.2 − 0.025 (N+M).
    model = fit_edit_model([(2, 2, 0), (2, 2, 0), (4, 4, 0)], annotator="r")
    assert model.slope == 0.0 and model.intercept == 0.0
    model = fit_edit_model([(2, 2, 0), (4, 4, 0), (2, 2, 1), (2, 2, 0)], annotator="r")
    xs, ys = [4, 8, 4, 4], [0, 0, 0.25, 0]
    slope = np.polyfit(xs, ys, 1)[0]
    assert model.slope == pytest.approx(slope)
    assert model.probability(100, 100) == 0.0  # clipped below
    assert EditModel("r", "possible", 2.0, 0.0, 1).probability(1, 1) == 1.0  # clipped above


def test_edit_count_counts_cells_that_differ_from_the_prefill() -> None:
    prefill = Alignment.from_links(2, 2, sure=[(0, 0)])
    annotation = Alignment.from_links(2, 2, sure=[(1, 1)], possible=[(0, 0)])
    assert edit_count(annotation, prefill, "possible") == 1
    assert edit_count(annotation, prefill, "sure") == 2


# --- Monte Carlo against a plain-Python reference ---------------------------------------------


def _reference_items(
    matrix: np.ndarray, src: list[str], tgt: list[str], exclude_identical: bool
) -> tuple[set, set, set]:
    links = {(int(i), int(j)) for i, j in np.argwhere(matrix)}

    def identical(i1: int, i2: int, j1: int, j2: int) -> bool:
        left = [w.lower() for w in src[i1 : i2 + 1]]
        return left == [w.lower() for w in tgt[j1 : j2 + 1]]

    words = {(i, j) for i, j in links if not (exclude_identical and identical(i, i, j, j))}
    pairs = reference_pairs(links, len(src), len(tgt))
    kept = {p: a for p, a in pairs.items() if not (exclude_identical and identical(*p))}
    return words, {p for p, a in kept.items() if a}, set(kept)


def _reference_flip(prefill: np.ndarray, p: float, rng: np.random.Generator) -> np.ndarray:
    # The documented sampler: each cell flips independently with probability p, flip positions
    # found by geometric skips over the cells in row-major order.
    out = prefill.copy()
    cells = out.size
    if p <= 0:
        return out
    if p >= 1:
        return ~out
    pos = -1
    while True:
        pos += int(rng.geometric(p))
        if pos >= cells:
            return out
        out.flat[pos] = ~out.flat[pos]


def _random_pair(rng: np.random.Generator, key: str) -> AgreementPair:
    n, m = (int(v) for v in rng.integers(2, 7, size=2))
    vocab = ["a", "b", "c", "d", "e", "f"]
    src = [vocab[int(k)] for k in rng.integers(0, 6, n)]
    tgt = [vocab[int(k)] for k in rng.integers(0, 6, m)]
    pre = rng.random((n, m)) < 0.25

    def edited() -> Alignment:
        p = pre ^ (rng.random((n, m)) < 0.2)
        return Alignment.from_matrices(p & (rng.random((n, m)) < 0.5), p)

    return AgreementPair(key, src, tgt, Alignment.from_matrices(pre), edited(), edited())


def test_the_kernel_matches_a_plain_python_monte_carlo_sample_by_sample() -> None:
    rng = np.random.default_rng(3)
    pairs = [_random_pair(rng, f"pair-{k}") for k in range(12)]
    models = {k: EditModel("A", k, 0.15, 0.0, 1) for k in ("possible", "sure")}
    models_b = {k: EditModel("B", k, 0.05, 0.01, 1) for k in ("possible", "sure")}
    params = AgreementParams(samples=25, seed=11)
    stats = pair_statistics(pairs, models_a=models, models_b=models_b, params=params)
    by_key = {(s.key, s.kind): s for s in stats}
    for pair in pairs:
        for kind in ("possible", "sure"):
            pick = (
                (lambda al: al.possible_matrix())
                if kind == "possible"
                else (lambda al: al.sure_matrix())
            )
            n, m = len(pair.source), len(pair.target)
            p_a = models[kind].probability(n, m)
            p_b = models_b[kind].probability(n, m)
            gen = np.random.default_rng(pair_seed_sequence(11, pair.key, "A", "B", kind))
            observed = [
                (len(x & y), min(len(x), len(y)))
                for x, y in zip(
                    _reference_items(pick(pair.a), pair.source, pair.target, True),
                    _reference_items(pick(pair.b), pair.source, pair.target, True),
                    strict=True,
                )
            ]
            sums = [[0, 0, 0] for _ in LEVELS]
            ratios = [0.0 for _ in LEVELS]
            for _ in range(params.samples):
                sample_a = _reference_flip(pick(pair.prefill), p_a, gen)
                sample_b = _reference_flip(pick(pair.prefill), p_b, gen)
                items_a = _reference_items(sample_a, pair.source, pair.target, True)
                items_b = _reference_items(sample_b, pair.source, pair.target, True)
                for k, (x, y) in enumerate(zip(items_a, items_b, strict=True)):
                    both, low = len(x & y), min(len(x), len(y))
                    sums[k][0] += both
                    sums[k][1] += low
                    if low:
                        sums[k][2] += 1
                        ratios[k] += both / low
            got = by_key[(pair.key, kind)]
            assert [got.observed[lv] for lv in LEVELS] == [tuple(o) for o in observed]
            assert [got.sampled[lv] for lv in LEVELS] == [tuple(s) for s in sums]
            assert [got.ratio_sum[lv] for lv in LEVELS] == pytest.approx(ratios, abs=1e-12)


def test_each_cell_flips_with_the_modelled_probability() -> None:
    # Prefill empty, B edits every cell (its sample is the full grid): Σ_j |A_j ∩ B_j| then counts
    # A's flipped cells, whose mean must be p·N·M.
    n, m, samples, p = 6, 7, 4000, 0.13
    src = [f"s{k}" for k in range(n)]
    tgt = [f"t{k}" for k in range(m)]
    empty = Alignment.empty(n, m)
    pair = AgreementPair("flip", src, tgt, empty, empty, empty)
    stats = pair_statistics(
        [pair],
        models_a={"possible": EditModel("A", "possible", p, 0.0, 1)},
        models_b={"possible": EditModel("B", "possible", 1.0, 0.0, 1)},
        params=AgreementParams(samples=samples, kinds=("possible",)),
    )
    flips = stats[0].sampled["word"][0] / samples
    sd = math.sqrt(n * m * p * (1 - p) / samples)
    assert abs(flips - n * m * p) < 5 * sd


# --- estimators and aggregation ----------------------------------------------------------------


def _stats(
    key: str, observed: tuple[int, int], sampled: tuple[int, int, int], ratio: float
) -> PairStats:
    return PairStats(
        key=key, kind="possible", n_source=5, n_target=5, p_a=0.1, p_b=0.1,
        observed={lv: observed for lv in LEVELS},
        sampled={lv: sampled for lv in LEVELS},
        ratio_sum={lv: ratio for lv in LEVELS},
    )  # fmt: skip


def test_the_paper_estimator_averages_ratios_and_the_pooled_one_sums_counts() -> None:
    # Pair 1: 1 of min 2 observed; samples give ratios summing to 0.5 over 2 valid samples.
    # Pair 2: 3 of 3; samples 1.0 over 4 valid. Paper π̂ = (0.5 + 1) / 2 = 0.75 and
    # π̂0 = (0.25 + 0.25) / 2 = 0.25; pooled π̂ = 4/5, π̂0 = (2 + 3) / (8 + 12).
    stats = [_stats("1", (1, 2), (2, 8, 2), 0.5), _stats("2", (3, 3), (3, 12, 4), 1.0)]
    paper = aggregate(stats, params=AgreementParams(), kind="possible", level="word")
    assert (paper.pi_hat, paper.pi0_hat) == (0.75, 0.25)
    assert paper.c_hat == pytest.approx((0.75 - 0.25) / 0.75)
    pooled = aggregate(
        stats, params=AgreementParams(estimator="pooled"), kind="possible", level="word"
    )
    assert (pooled.pi_hat, pooled.pi0_hat) == (0.8, 0.25)
    assert pooled.paper == paper.paper and paper.pooled["pi_hat"] == 0.8


def test_pairs_where_one_side_has_no_item_are_left_out_of_the_papers_mean() -> None:
    stats = [_stats("1", (0, 0), (0, 0, 0), 0.0), _stats("2", (2, 4), (1, 8, 4), 0.8)]
    result = aggregate(stats, params=AgreementParams(), kind="possible", level="word")
    assert result.pi_hat == 0.5 and result.pi0_hat == 0.2
    assert (result.pairs, result.pairs_used) == (2, 1)


def test_no_items_at_all_leave_everything_undefined() -> None:
    result = aggregate(
        [_stats("1", (0, 0), (0, 0, 0), 0.0)],
        params=AgreementParams(),
        kind="possible",
        level="phrase_atomic",
    )
    assert result.pi_hat is None and result.c_hat is None and "π̂" in result.undefined_reason


def _corpus(n_pairs: int, seed: int = 5) -> list[AgreementPair]:
    rng = np.random.default_rng(seed)
    return [_random_pair(rng, f"p{k:03d}") for k in range(n_pairs)]


def test_chunked_statistics_aggregate_to_bit_identical_results() -> None:
    pairs = _corpus(30)
    params = AgreementParams(samples=40, seed=123)
    models_a = fit_models(((p.a, p.prefill) for p in pairs), annotator="A")
    models_b = fit_models(((p.b, p.prefill) for p in pairs), annotator="B")
    single = chance_corrected_agreement(pairs, params=params, models_a=models_a, models_b=models_b)
    shuffled = pairs[:]
    random.Random(1).shuffle(shuffled)
    chunks = [shuffled[0:7], shuffled[7:19], shuffled[19:]]
    stats: list[PairStats] = []
    for chunk in reversed(chunks):
        chunk_stats = pair_statistics(chunk, models_a=models_a, models_b=models_b, params=params)
        # Chunk results travel as JSON between Celery workers.
        stats.extend(PairStats.from_dict(json.loads(json.dumps(s.to_dict()))) for s in chunk_stats)
    combined = aggregate_all(
        stats, params=params, annotator_a="A", annotator_b="B", models_a=models_a, models_b=models_b
    )
    assert json.dumps(combined.to_dict(per_pair=True), sort_keys=True) == json.dumps(
        single.to_dict(per_pair=True), sort_keys=True
    )
    assert single.results["possible"]["phrase_atomic"].c_hat is not None


def test_a_pair_given_in_two_chunks_is_an_error() -> None:
    stats = [_stats("1", (1, 2), (2, 8, 2), 0.5)] * 2
    with pytest.raises(ScoringError, match="two chunks"):
        aggregate(stats, params=AgreementParams(), kind="possible", level="word")


def test_the_same_seed_gives_the_same_numbers_and_another_seed_other_samples() -> None:
    pairs = _corpus(10)
    first = chance_corrected_agreement(pairs, params=AgreementParams(samples=30, seed=9))
    again = chance_corrected_agreement(pairs, params=AgreementParams(samples=30, seed=9))
    other = chance_corrected_agreement(pairs, params=AgreementParams(samples=30, seed=10))
    assert first.to_dict(per_pair=True) == again.to_dict(per_pair=True)
    key = ("possible", "phrase_all")
    assert first.results[key[0]][key[1]].pi0_hat != other.results[key[0]][key[1]].pi0_hat
    assert first.results[key[0]][key[1]].pi_hat == other.results[key[0]][key[1]].pi_hat


def test_results_carry_a_signature_with_seed_samples_and_parameters() -> None:
    report = chance_corrected_agreement(_corpus(3), params=AgreementParams(samples=7, seed=42))
    result = report.results["sure"]["word"]
    assert "J:7" in result.signature and "seed:42" in result.signature
    full = result.provenance
    assert full["seed"] == 42 and full["samples"] == 7
    assert full["params"]["estimator"] == "paper" and full["params"]["boundary_rule"] is True
    assert [m["annotator"] for m in full["edit_models"]] == ["A", "B"]


def test_progress_is_reported_per_pair() -> None:
    calls: list[tuple[int, int]] = []
    chance_corrected_agreement(
        _corpus(4), params=AgreementParams(samples=2), progress=lambda d, t: calls.append((d, t))
    )
    assert calls == [(1, 4), (2, 4), (3, 4), (4, 4)]


def test_length_bins_group_pairs_by_the_shorter_sentence() -> None:
    pairs = _corpus(20)
    report = chance_corrected_agreement(pairs, params=AgreementParams(samples=5))
    bins = length_bins(report.stats, params=report.params, edges=(3, 5))
    shorter = [min(len(p.source), len(p.target)) for p in pairs]
    assert [b.pairs for b in bins] == [
        sum(s < 3 for s in shorter),
        sum(3 <= s < 5 for s in shorter),
        sum(s >= 5 for s in shorter),
    ]
    assert bins[0].min_length == 1 and bins[-1].max_length_exclusive is None


def test_it_rejects_bad_parameters() -> None:
    with pytest.raises(ScoringError, match="samples"):
        AgreementParams(samples=0)
    with pytest.raises(ScoringError, match="seed"):
        AgreementParams(seed=-1)
    with pytest.raises(ScoringError, match="estimator"):
        AgreementParams(estimator="mean")


def test_it_rejects_alignments_that_do_not_fit_the_tokens() -> None:
    with pytest.raises(ScoringError, match="prefill"):
        AgreementPair(
            "x", ["a"], ["b"], Alignment.empty(2, 1), Alignment.empty(1, 1), Alignment.empty(1, 1)
        )


def test_it_needs_a_prefilled_pair_to_fit_an_edit_model() -> None:
    with pytest.raises(ScoringError, match="fit"):
        fit_edit_model([], annotator="A")


def test_the_thread_count_does_not_change_the_numbers() -> None:
    pairs = _corpus(12)
    models_a = fit_models(((p.a, p.prefill) for p in pairs), annotator="A")
    models_b = fit_models(((p.b, p.prefill) for p in pairs), annotator="B")
    params = AgreementParams(samples=15, seed=4)
    runs = [
        pair_statistics(pairs, models_a=models_a, models_b=models_b, params=params, threads=t)
        for t in (1, 3)
    ]
    assert [s.to_dict() for s in runs[0]] == [s.to_dict() for s in runs[1]]
    with pytest.raises(ScoringError, match="threads"):
        pair_statistics(pairs, models_a=models_a, models_b=models_b, params=params, threads=0)


# --- stopping the Monte Carlo ------------------------------------------------------------------


def test_samples_drawn_in_batches_give_the_numbers_of_one_batch(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from scoring.alignment import agreement

    pairs = _corpus(4)
    models_a = fit_models(((p.a, p.prefill) for p in pairs), annotator="A")
    models_b = fit_models(((p.b, p.prefill) for p in pairs), annotator="B")
    params = AgreementParams(samples=23, seed=8)
    runs = []
    for batch in (1_000, 5):  # one batch; then 5 + 5 + 5 + 5 + 3
        monkeypatch.setattr(agreement, "SAMPLE_BATCH", batch)
        runs.append(pair_statistics(pairs, models_a=models_a, models_b=models_b, params=params))
    assert [s.to_dict() for s in runs[0]] == [s.to_dict() for s in runs[1]]


class _Stop(Exception):
    pass


@pytest.mark.parametrize("threads", [1, 2])
def test_a_progress_callback_that_raises_stops_the_samples_of_the_pair_it_is_in(
    monkeypatch: pytest.MonkeyPatch, threads: int
) -> None:
    """A job cancelled while a pair computes (seconds at J = 100,000) stops within a batch of
    samples, not after the pair, nor after the rest of the chunk."""
    from scoring.alignment import agreement

    monkeypatch.setattr(agreement, "SAMPLE_BATCH", 10, raising=False)
    monkeypatch.setattr(agreement, "PROGRESS_WAIT_SECONDS", 0.01, raising=False)
    drawn: list[int] = []  # the samples of each call of the kernel
    kernel = agreement.pair_kernel

    def counted(*args: Any) -> None:
        drawn.append(int(args[6]))
        kernel(*args)

    monkeypatch.setattr(agreement, "pair_kernel", counted)

    def cancelled(done: int, total: int) -> None:
        raise _Stop

    pairs = _corpus(6)
    models_a = fit_models(((p.a, p.prefill) for p in pairs), annotator="A")
    models_b = fit_models(((p.b, p.prefill) for p in pairs), annotator="B")
    params = AgreementParams(samples=20_000, seed=1)  # 2,000 batches of 10 per pair and kind
    with pytest.raises(_Stop):
        pair_statistics(
            pairs,
            models_a=models_a,
            models_b=models_b,
            params=params,
            progress=cancelled,
            threads=threads,
        )
    if threads == 1:
        assert drawn == [10]  # the first batch of the first pair
    else:  # the pool's threads go on until the calling thread notices, not to a pair's end
        assert 0 < sum(drawn) < 2 * 20_000
