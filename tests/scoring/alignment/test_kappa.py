"""Cohen's κ, Fleiss' κ, Krippendorff's α and the alignment item sets (scoring.alignment.kappa)."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score

from scoring.alignment.kappa import (
    brockett_items,
    cell_agreement,
    cell_ratings,
    cohen_kappa,
    fleiss_kappa,
    fleiss_kappa_from_counts,
    krippendorff_alpha_nominal,
)
from scoring.alignment.links import Alignment
from scoring.corpus import AnnotationRecord, PairRecord
from scoring.errors import ScoringError


def test_fleiss_kappa_reproduces_the_textbook_example() -> None:
    # Fleiss (1971) style worked example: 10 items, 14 raters, 5 categories → κ = 0.210.
    table = [
        [0, 0, 0, 0, 14],
        [0, 2, 6, 4, 2],
        [0, 0, 3, 5, 6],
        [0, 3, 9, 2, 0],
        [2, 2, 8, 1, 1],
        [7, 7, 0, 0, 0],
        [3, 2, 6, 3, 0],
        [2, 5, 3, 2, 2],
        [6, 5, 2, 1, 0],
        [0, 2, 2, 3, 7],
    ]
    result = fleiss_kappa_from_counts(table)
    assert round(result.observed or 0, 3) == 0.378  # P̄
    assert round(result.expected or 0, 3) == 0.213  # P̄e
    assert round(result.value or 0, 3) == 0.210
    assert result.statistic == "Fleiss' kappa"


def test_fleiss_kappa_from_ratings_equals_the_count_table_form() -> None:
    rng = np.random.default_rng(1)
    ratings = rng.integers(0, 3, size=(50, 4))
    counts = np.stack([(ratings == c).sum(axis=1) for c in range(3)], axis=1)
    assert fleiss_kappa(ratings).value == pytest.approx(fleiss_kappa_from_counts(counts).value)


def test_cohen_kappa_agrees_with_scikit_learn() -> None:
    rng = np.random.default_rng(2)
    a = rng.integers(0, 3, 200)
    b = np.where(rng.random(200) < 0.7, a, rng.integers(0, 3, 200))
    assert cohen_kappa(a, b).value == pytest.approx(cohen_kappa_score(a, b))


def test_krippendorff_alpha_reproduces_krippendorffs_nominal_example() -> None:
    # Krippendorff (2011), "Computing Krippendorff's alpha-reliability": 4 coders, 12 units,
    # missing values; nominal α = 0.743.
    m = -1
    coders = [
        [1, 2, 3, 3, 2, 1, 4, 1, 2, m, m, m],
        [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, m, 3],
        [m, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, m],
        [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, m],
    ]
    result = krippendorff_alpha_nominal(np.array(coders).T, categories=[str(c) for c in range(6)])
    assert round(result.value or 0, 3) == 0.743
    assert result.items == 11  # the unit rated once is not pairable


def test_a_single_category_everywhere_leaves_the_statistics_undefined() -> None:
    same = np.zeros((5, 3), dtype=int)
    assert fleiss_kappa(same).value is None
    assert "chance agreement is 1" in fleiss_kappa(same).undefined_reason
    assert cohen_kappa(same[:, 0], same[:, 1]).value is None
    assert krippendorff_alpha_nominal(same).value is None


def test_it_rejects_an_unknown_category_code() -> None:
    with pytest.raises(ScoringError, match="category code 3"):
        fleiss_kappa(np.array([[0, 3]]))


def test_it_rejects_items_with_different_numbers_of_ratings() -> None:
    with pytest.raises(ScoringError, match="same number"):
        fleiss_kappa_from_counts([[1, 1], [2, 1]])


def _record(n: int, m: int, alignments: dict[str, Alignment], **meta: object) -> PairRecord:
    return PairRecord(
        id="r",
        source_tokens=[f"t{k}" for k in range(n)],
        target_tokens=[f"h{k}" for k in range(m)],
        annotations={name: AnnotationRecord(al) for name, al in alignments.items()},
        metadata=dict(meta),
    )


def test_brockett_items_follow_his_recipe() -> None:
    # Text of 4 words, hypothesis of 3. A: sure (0,0), possible (1,1); B: sure (0,0), sure (2,1);
    # C: possible (0,0). Proposed links: (0,0), (1,1), (2,1) → 3 items; hypothesis tokens left
    # unaligned by someone: 1 (by C), 2 (by all) → 2 items; NULL → 1 item. Total 6.
    record = _record(
        4,
        3,
        {
            "A": Alignment.from_links(4, 3, sure=[(0, 0)], possible=[(1, 1)]),
            "B": Alignment.from_links(4, 3, sure=[(0, 0), (2, 1)]),
            "C": Alignment.from_links(4, 3, possible=[(0, 0)]),
        },
    )
    items = brockett_items([record], ["A", "B", "C"])
    assert items.tolist() == [
        [2, 2, 1],  # (0, 0)
        [1, 0, 0],  # (1, 1)
        [0, 2, 0],  # (2, 1)
        [0, 0, 0],  # hypothesis token 1's null link
        [0, 0, 0],  # hypothesis token 2's null link
        [0, 0, 0],  # the NULL token
    ]


def test_brockett_items_count_links_of_the_null_token() -> None:
    empty = Alignment.empty(3, 1)
    both = Alignment.from_links(3, 1, sure=[(0, 0)])
    null = {"A": {"sure": [2], "possible": []}, "B": {"sure": [], "possible": [2]}}
    record = _record(3, 1, {"A": both, "B": both}, rte2={"null": null})
    items = brockett_items([record], ["A", "B"])
    assert items.tolist() == [[2, 2], [2, 1], [0, 0]]
    assert len(brockett_items([_record(3, 1, {"A": empty, "B": empty})], ["A", "B"])) == 2


def test_cell_ratings_cover_every_cell_of_pairs_all_annotators_did() -> None:
    a = Alignment.from_links(2, 2, sure=[(0, 0)], possible=[(1, 1)])
    b = Alignment.from_links(2, 2, sure=[(0, 0)])
    done = _record(2, 2, {"A": a, "B": b})
    half = _record(2, 2, {"A": a})
    ratings = cell_ratings([done, half], ["A", "B"])
    assert ratings.tolist() == [[2, 2], [0, 0], [0, 0], [1, 0]]
    summary = cell_agreement([done], ["A", "B"])
    assert summary["n_items"] == 4
    assert summary["cohen_kappa"][0]["raters"] == ["A", "B"]
    assert summary["fleiss_kappa"]["statistic"] == "Fleiss' kappa"
    assert summary["krippendorff_alpha_nominal"]["statistic"] == "Krippendorff's alpha (nominal)"


def test_it_needs_two_annotators() -> None:
    with pytest.raises(ScoringError, match="two annotators"):
        cell_ratings([], ["A"])


def test_per_pair_statistics_give_the_same_kappa_and_alpha_as_the_whole_table() -> None:
    import numpy as np

    from scoring.alignment.kappa import (
        agreement_with_intervals,
        fleiss_kappa,
        krippendorff_alpha_nominal,
    )

    rng = np.random.default_rng(3)
    blocks = [rng.integers(0, 3, size=(int(rng.integers(0, 9)), 3)) for _ in range(40)]
    for block in blocks[::3]:  # raters mostly agree on some pairs
        block[:, 1] = block[:, 0]
    whole = np.concatenate(blocks)
    result = agreement_with_intervals(blocks, ["a", "b", "c"], items_label="test", seed=1)
    assert result.n_items == whole.shape[0] and result.n_pairs == 40
    assert result.fleiss_kappa.value == pytest.approx(fleiss_kappa(whole).value)
    alpha = krippendorff_alpha_nominal(whole).value
    assert result.krippendorff_alpha.value == pytest.approx(alpha)
    low, high = result.fleiss_kappa.ci95
    assert low <= result.fleiss_kappa.value <= high
    again = agreement_with_intervals(blocks, ["a", "b", "c"], items_label="test", seed=1)
    assert again == result  # seeded


def test_no_shared_items_is_undefined_with_a_reason_not_zero() -> None:
    import numpy as np

    from scoring.alignment.kappa import agreement_with_intervals

    result = agreement_with_intervals([], ["a", "b"], items_label="test")
    assert result.fleiss_kappa.value is None
    assert result.fleiss_kappa.undefined_reason == "no items shared by all annotators"
    same = agreement_with_intervals([np.zeros((4, 2), np.int64)], ["a", "b"], items_label="t")
    assert same.krippendorff_alpha.value is None
    assert "one category" in same.krippendorff_alpha.undefined_reason
