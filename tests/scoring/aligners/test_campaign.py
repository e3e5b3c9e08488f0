"""The campaign simulation: gold corpora as annotators, the prefill retrained as they submit."""

from __future__ import annotations

import numpy as np
import pytest

from scoring.aligners import get_aligner
from scoring.aligners.base import Aligner, AlignerOutput
from scoring.aligners.campaign import simulate_campaign
from scoring.alignment.links import Alignment
from scoring.errors import InputError, OptionsError


def _corpus(size: int) -> tuple[list[tuple[list[str], list[str]]], list[Alignment]]:
    """Pairs whose gold links are the identical content words; "the" is never linked."""
    rng = np.random.default_rng(5)
    words = ["cat", "dog", "bird", "house", "tree", "river", "stone", "cloud", "field", "road"]
    pairs, gold = [], []
    for _ in range(size):
        shared = [str(w) for w in rng.choice(words, size=3, replace=False)]
        src = ["the", *shared]
        tgt = ["the", *(str(w) for w in rng.permutation(shared))]
        links = [(i, j) for i, a in enumerate(src) for j, b in enumerate(tgt) if a == b != "the"]
        pairs.append((src, tgt))
        gold.append(Alignment.from_links(len(src), len(tgt), sure=links))
    return pairs, gold


def test_an_aligner_that_learns_no_gold_is_trained_once_and_served_as_it_is() -> None:
    pairs, gold = _corpus(12)
    result = simulate_campaign(
        lambda: get_aligner("identity"), pairs, gold, heldout=[10, 11], retrain_every=4
    )
    assert result.served == list(range(10))
    # identity links "the"-"the", which the gold leaves empty: one correction per pair
    assert result.three_state == result.linked == [1] * 10
    [start] = result.checkpoints
    assert start.submitted == 0 and start.heldout_three_state == 1.0
    summary = result.summary()
    assert summary["campaign_three_state"] == 1.0 and summary["campaign_none_share"] == 0.0


def test_a_learning_aligner_is_retrained_every_n_submissions_and_learns_the_gold() -> None:
    pairs, gold = _corpus(36)
    held = list(range(30, 36))

    def make() -> Aligner:
        return get_aligner(
            "supervised",
            wordnet=False,
            pos=False,
            encoder=False,
            trees=20,
            learning_rate=0.1,
            min_samples_leaf=5,
            em_hmm_iterations=2,
        )

    result = simulate_campaign(
        make, pairs, gold, heldout=held, retrain_every=10, first=get_aligner("identity")
    )
    assert [c.submitted for c in result.checkpoints] == [0, 10, 20]
    assert result.three_state[:10] == [1] * 10  # served with the identity prefill
    last = result.checkpoints[-1]
    assert last.heldout_three_state == 0.0 and last.heldout_none_share == 1.0
    assert sum(result.three_state[20:]) == 0
    # the figures are the corrections of the prefill each pair was served with
    assert len(result.served) == 30 and sorted(result.served) == list(range(30))


def test_least_sure_first_serves_the_most_expected_corrections_next() -> None:
    pairs, gold = _corpus(16)
    doubt = {(tuple(s), tuple(t)): float(k % 5) for k, (s, t) in enumerate(pairs)}

    class Doubtful(Aligner):
        """The identity links, with a doubt of its own per pair."""

        name = "doubtful"

        def _align(self, source: list[str], target: list[str]) -> AlignerOutput:
            out = get_aligner("identity").align(source, target)
            expected = doubt[(tuple(source), tuple(target))]
            return AlignerOutput(
                out.alignment, out.confidence, metadata={"expected_corrections": expected}
            )

    result = simulate_campaign(Doubtful, pairs, gold, heldout=[0], order="least-sure")
    # the most expected corrections first; among equals, corpus order
    assert result.served == sorted(range(1, 16), key=lambda k: (-(k % 5), k))


def test_a_campaign_needs_held_out_pairs_and_a_known_order() -> None:
    pairs, gold = _corpus(4)
    identity = lambda: get_aligner("identity")  # noqa: E731
    with pytest.raises(InputError, match="held-out"):
        simulate_campaign(identity, pairs, gold, heldout=[])
    with pytest.raises(OptionsError, match="order must be one of corpus, least-sure"):
        simulate_campaign(identity, pairs, gold, heldout=[0], order="random")
