"""RTE-2 dev alignments (Brockett 2007), three annotators: Fleiss' κ as Brockett computed it, and
pairwise word/phrase precision/recall/F1 and Ĉ with an identity-only prefill.

The identity prefill (lowercase-identical tokens linked, sure) stands in for the lexical aligner of
the aligner issue until that exists.
"""

from __future__ import annotations

from itertools import combinations
from pathlib import Path

import pytest

from scoring.alignment.agreement import AgreementPair, AgreementParams, chance_corrected_agreement
from scoring.alignment.kappa import brockett_items, cell_agreement, fleiss_kappa
from scoring.alignment.links import Alignment
from scoring.alignment.metrics import ComparePair, corpus_scores, phrase_counts
from scoring.corpus import PairRecord
from scoring.formats.rte2 import read_rte2

ANNOTATORS = ["A", "B", "C"]


@pytest.fixture(scope="module")
def records(shared_data: Path) -> list[PairRecord]:
    folder = shared_data / "rte2-alignments"
    recs = read_rte2([folder / f"RTE2_dev_{a}.align.txt" for a in ANNOTATORS])
    for r in recs:
        links = [
            (i, j)
            for i, s in enumerate(r.source_tokens)
            for j, t in enumerate(r.target_tokens)
            if s.lower() == t.lower()
        ]
        r.prefill = Alignment.from_links(len(r.source_tokens), len(r.target_tokens), sure=links)
    return recs


def test_brocketts_recipe_gives_13163_items_and_fleiss_kappa_0_7336(records) -> None:
    assert len(records) == 800
    items = brockett_items(records, ANNOTATORS)
    assert items.shape == (13163, 3)
    kappa = fleiss_kappa(items, raters=ANNOTATORS)
    assert round(kappa.value or 0, 4) == 0.7336
    assert round(kappa.value or 0, 5) == 0.73364
    summary = cell_agreement(records, ANNOTATORS, items="brockett")
    assert summary["fleiss_kappa"]["value"] == kappa.value


@pytest.mark.parametrize(("a", "b"), list(combinations(ANNOTATORS, 2)))
def test_pairwise_word_and_phrase_scores_and_c_hat(records, a: str, b: str) -> None:
    pairs = [
        ComparePair(
            r.source_tokens,
            r.target_tokens,
            r.annotations[a].alignment,
            r.annotations[b].alignment,
            r.id,
        )
        for r in records
    ]
    # Word level, Equation 2, against the sets computed right here.
    sure_in_poss = sure = 0
    for p in pairs:

        def keep(links: frozenset, p: ComparePair = p) -> set:
            return {(i, j) for i, j in links if p.source[i].lower() != p.target[j].lower()}

        a_s, b_p = keep(p.candidate.sure), keep(p.reference.possible)
        sure_in_poss += len(a_s & b_p)
        sure += len(a_s)
    words = corpus_scores(pairs, level="word", kind="mixed")
    assert words.overall.precision == sure_in_poss / sure
    assert 0.5 < (words.overall.f1 or 0) <= 1.0

    phrases = corpus_scores(pairs, level="phrase", kind="possible")
    assert 0.3 < (phrases.overall.f1 or 0) <= 1.0

    # Ĉ: the numba kernel's observed π̂ must equal the set-based counts of scoring.alignment.metrics.
    agreement_pairs = [
        AgreementPair(
            r.id,
            r.source_tokens,
            r.target_tokens,
            r.prefill,
            r.annotations[a].alignment,
            r.annotations[b].alignment,
        )
        for r in records
        if r.prefill is not None
    ]
    report = chance_corrected_agreement(
        agreement_pairs,
        params=AgreementParams(samples=10, seed=2007, kinds=("possible",)),
        annotator_a=a,
        annotator_b=b,
    )
    both = low = 0
    for p in pairs:
        c = phrase_counts(p.candidate, p.reference, p.source, p.target, kind="possible")
        both += c.atomic_agreement
        low += min(c.candidate_atomic, c.reference_atomic)
    result = report.results["possible"]["phrase_atomic"]
    assert result.pooled["pi_hat"] == both / low
    assert result.c_hat is not None and result.pi0_hat is not None
    assert result.pi0_hat < (result.pi_hat or 0)
    assert 0.0 < result.c_hat <= 1.0
