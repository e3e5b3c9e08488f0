"""Moses ``extract`` regression data (shared/data/conformance/phrase_extract): 130 gold pairs."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from scoring.alignment.phrases import extract_phrase_pairs

Entry = tuple[int, str, str, frozenset[tuple[int, int]]]


@pytest.fixture(scope="module")
def moses(
    shared_data: Path,
) -> tuple[list[list[str]], list[list[str]], list[np.ndarray], list[Entry]]:
    folder = shared_data / "conformance" / "phrase_extract"
    fr = [line.split() for line in (folder / "fr").read_text("utf-8").splitlines()]
    en = [line.split() for line in (folder / "en").read_text("utf-8").splitlines()]
    matrices = []
    for k, line in enumerate((folder / "align.fr-en").read_text("utf-8").splitlines()):
        mat = np.zeros((len(fr[k]), len(en[k])), dtype=bool)
        for link in line.split():
            i, j = link.split("-")
            mat[int(i), int(j)] = True
        matrices.append(mat)
    # The gold file gives no sentence number; its last field is a per-sentence weight
    # (0.3 for the first pair, 0.7 for the second).
    weights = {"0.3": 0, "0.7": 1}
    gold: list[Entry] = []
    for line in (folder / "truth_extract").read_text("utf-8").splitlines():
        src, tgt, inner, weight = (part.strip() for part in line.split("|||"))
        links = frozenset((int(a), int(b)) for a, b in (tok.split("-") for tok in inner.split()))
        gold.append((weights[weight], src, tgt, links))
    return fr, en, matrices, gold


def _ours(
    fr: list[list[str]], en: list[list[str]], matrices: list[np.ndarray], *, boundary_rule: bool
) -> Counter[Entry]:
    found: Counter[Entry] = Counter()
    for k, mat in enumerate(matrices):
        pairs = extract_phrase_pairs(mat, boundary_rule=boundary_rule, max_length=7)
        for i1, i2, j1, j2 in pairs.spans.tolist():
            block = mat[i1 : i2 + 1, j1 : j2 + 1]
            inner = frozenset((int(i), int(j)) for i, j in np.argwhere(block))
            found[(k, " ".join(fr[k][i1 : i2 + 1]), " ".join(en[k][j1 : j2 + 1]), inner)] += 1
    return found


def test_without_the_boundary_rule_it_extracts_exactly_the_130_moses_pairs(moses) -> None:
    fr, en, matrices, gold = moses
    assert len(gold) == 130
    assert _ours(fr, en, matrices, boundary_rule=False) == Counter(gold)


def test_with_the_boundary_rule_it_keeps_exactly_the_gold_pairs_with_aligned_boundaries(
    moses,
) -> None:
    fr, en, matrices, gold = moses

    def boundaries_aligned(entry: Entry) -> bool:
        _, src, tgt, links = entry
        last_src, last_tgt = len(src.split()) - 1, len(tgt.split()) - 1
        rows = {i for i, _ in links}
        cols = {j for _, j in links}
        return {0, last_src} <= rows and {0, last_tgt} <= cols

    expected = Counter(entry for entry in gold if boundaries_aligned(entry))
    assert 0 < sum(expected.values()) < 130
    assert _ours(fr, en, matrices, boundary_rule=True) == expected
