"""An annotation campaign simulated on a gold corpus: how many cells the annotators change.

The gold alignments play the annotators (an oracle that submits exactly the gold). The pairs of
the *pool* are served one at a time in queue order, each with the prefill it has when it is
served, and submitted; the prefill aligner is retrained every ``retrain_every`` submissions as
the product's retraining does it: trained on every pair of the corpus (EM needs them all) with
the gold of the submitted pairs, then prefilling every pair not submitted yet. Before the first
retraining the pairs carry the ``first`` prefill (an aligner that learns no gold).

A fixed *held-out* set of pairs is in the corpus (its tokens train EM) but never submitted: its
corrections after each retraining are the learning curve, comparable across queue orders.

Queue orders: ``"corpus"`` serves the pool in corpus order; ``"least-sure"`` serves next the
pool pair whose prefill is least sure (the most expected corrections,
:func:`~scoring.aligners.corrections.uncertainty`), as the product's queue option does.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from scoring.aligners.base import Aligner, AlignerOutput, TokenPair
from scoring.aligners.corrections import Corrections, corrections, uncertainty
from scoring.aligners.evaluation import evaluate_predictions
from scoring.alignment.links import Alignment
from scoring.errors import InputError, OptionsError, ScoringError

ORDERS = ("corpus", "least-sure")


@dataclass
class Checkpoint:
    """The state of the campaign right after a retraining on ``submitted`` pairs."""

    submitted: int
    seconds: float
    heldout_three_state: float
    heldout_linked: float
    heldout_none_share: float
    heldout_f1: float
    error: str = ""


@dataclass
class CampaignResult:
    """Per pool pair served, its corrections (in serving order), and the checkpoints."""

    aligner: str
    order: str
    retrain_every: int
    served: list[int] = field(default_factory=list)
    three_state: list[int] = field(default_factory=list)
    linked: list[int] = field(default_factory=list)
    checkpoints: list[Checkpoint] = field(default_factory=list)

    def summary(self) -> dict[str, Any]:
        """Means over the campaign and the learning curve, JSON-ready."""
        n = max(1, len(self.served))
        retrains = [c.seconds for c in self.checkpoints if c.submitted > 0]
        return {
            "aligner": self.aligner,
            "order": self.order,
            "retrain_every": self.retrain_every,
            "pool_pairs": len(self.served),
            "campaign_three_state": sum(self.three_state) / n,
            "campaign_linked": sum(self.linked) / n,
            "campaign_none_share": sum(v == 0 for v in self.three_state) / n,
            "retrain_seconds_max": max(retrains, default=0.0),
            "retrain_seconds_mean": float(np.mean(retrains)) if retrains else 0.0,
            "retrain_seconds_median": float(np.median(retrains)) if retrains else 0.0,
            "curve": [asdict(c) for c in self.checkpoints],
        }


def _heldout_figures(
    pairs: Sequence[TokenPair],
    gold: Sequence[Alignment],
    outputs: dict[int, AlignerOutput],
    heldout: Sequence[int],
) -> tuple[float, float, float, float]:
    counts = [corrections(outputs[k].alignment, gold[k]) for k in heldout]
    total = sum(counts, Corrections(0, 0))
    report = evaluate_predictions(
        [pairs[k] for k in heldout],
        [outputs[k].alignment for k in heldout],
        [gold[k] for k in heldout],
        aligner="",
        gold_name="gold",
        phrases=False,
    ).to_dict()
    n = len(heldout)
    return (
        total.three_state / n,
        total.linked / n,
        sum(c.three_state == 0 for c in counts) / n,
        float(report["literature"]["f1"] or 0.0),
    )


def simulate_campaign(
    make: Callable[[], Aligner],
    pairs: Sequence[TokenPair],
    gold: Sequence[Alignment],
    *,
    heldout: Sequence[int],
    retrain_every: int = 50,
    order: str = "corpus",
    first: Aligner | None = None,
    progress: Callable[[str], None] | None = None,
) -> CampaignResult:
    """Run the campaign (module docstring) for the aligner ``make()`` builds afresh at every
    retraining, as a prefill job does; ``first`` prefills before the first retraining (default:
    the aligner itself, trained without gold, when it learns no gold; else an empty grid)."""
    if order not in ORDERS:
        raise OptionsError(f"order must be one of {', '.join(ORDERS)}, not {order!r}")
    if retrain_every < 1:
        raise OptionsError(f"retrain_every must be at least 1, not {retrain_every}")
    if len(gold) != len(pairs):
        raise InputError(f"{len(gold)} gold alignments for {len(pairs)} pairs")
    held = sorted(set(heldout))
    if not held:
        raise InputError("the campaign needs held-out pairs for its learning curve")
    pool = [k for k in range(len(pairs)) if k not in set(held)]
    probe = make()
    result = CampaignResult(aligner=probe.name, order=order, retrain_every=retrain_every)
    say = progress or (lambda _: None)

    def prefill_all(aligner: Aligner, todo: Sequence[int]) -> dict[int, AlignerOutput]:
        return {k: aligner.align(*pairs[k]) for k in todo}

    def checkpoint(submitted: int, seconds: float, error: str = "") -> None:
        three, linked, none, f1 = _heldout_figures(pairs, gold, outputs, held)
        result.checkpoints.append(Checkpoint(submitted, seconds, three, linked, none, f1, error))
        say(
            f"{result.aligner} {order}: {submitted} submitted, retrain {seconds:.1f} s, held-out "
            f"{three:.2f} / {linked:.2f} corrections per pair, F1 {f1:.3f}"
        )

    started = time.perf_counter()
    if first is None:
        first = probe if not probe.uses_gold else _EmptyPrefill()
    if not first.trained and not first.uses_gold:
        first.fit(list(pairs))
    outputs = prefill_all(first, range(len(pairs)))
    checkpoint(0, time.perf_counter() - started)

    remaining = list(pool)
    submitted: list[int] = []
    last_trained = 0
    while remaining:
        due = len(submitted) - last_trained >= retrain_every
        if probe.uses_gold and due:
            last_trained = len(submitted)
            done = set(submitted)
            started = time.perf_counter()
            error = ""
            try:
                aligner = make()
                aligner.fit(
                    list(pairs), [gold[k] if k in done else None for k in range(len(pairs))]
                )
                outputs.update(prefill_all(aligner, remaining + held))
            except ScoringError as failure:  # the job fails; the prefill stays as it was
                error = str(failure)
            checkpoint(len(submitted), time.perf_counter() - started, error)
        if order == "least-sure":
            pick = max(remaining, key=lambda k: (uncertainty(outputs[k]), -k))
        else:
            pick = remaining[0]
        remaining.remove(pick)
        served = corrections(outputs[pick].alignment, gold[pick])
        result.served.append(pick)
        result.three_state.append(served.three_state)
        result.linked.append(served.linked)
        submitted.append(pick)
    return result


class _EmptyPrefill(Aligner):
    """No link at all: what an annotator starts from without a prefill."""

    name = "empty"

    def _align(self, source: list[str], target: list[str]) -> AlignerOutput:
        return AlignerOutput(Alignment.empty(len(source), len(target)), {})
