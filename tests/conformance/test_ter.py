"""TER against tercom 0.8.0's own output on 1,000 WMT17 en-de pairs (conformance/ter).

``tercom-0.8.0.out.ter`` is tercom's ``-o ter`` file: two header lines, then one line per
segment, ``<id>:1 <num_edits> <ref_len> <TER>``, the ids ``s0`` … ``s999`` numbering the pairs of
the JSON file in order. tercom ran with its defaults (lowercasing, whitespace tokenization, beam
20, shifts of at most 10 words over at most 50 positions).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from scoring.edit.ter import TerParams, ter, ter_batch


@pytest.fixture(scope="module")
def wmt_pairs(shared_data: Path) -> tuple[list[str], list[str]]:
    pairs = json.loads((shared_data / "conformance/ter/wmt17_ende_1000pairs.json").read_text())
    return [p["hyp"] for p in pairs], [p["ref"] for p in pairs]


@pytest.fixture(scope="module")
def tercom_rows(shared_data: Path) -> np.ndarray:
    lines = (shared_data / "conformance/ter/tercom-0.8.0.out.ter").read_text().splitlines()
    assert lines[0].startswith("Hypothesis File:") and lines[1].startswith("Reference File:")
    rows = {}
    for line in lines[2:]:
        seg_id, edits, ref_len, score = line.split()
        assert seg_id.startswith("s") and seg_id.endswith(":1")
        rows[int(seg_id[1:-2])] = (float(edits), float(ref_len), float(score))
    assert sorted(rows) == list(range(1000))
    return np.array([rows[k] for k in range(1000)])


def test_edit_counts_equal_tercoms_on_all_1000_pairs(
    wmt_pairs: tuple[list[str], list[str]], tercom_rows: np.ndarray
) -> None:
    stats = ter_batch(*wmt_pairs)
    wrong = np.nonzero(stats.num_edits != tercom_rows[:, 0])[0]
    assert wrong.size == 0, [(int(k), stats.num_edits[k], tercom_rows[k, 0]) for k in wrong[:10]]
    assert np.array_equal(stats.ref_len, tercom_rows[:, 1])
    np.testing.assert_allclose(stats.scores, tercom_rows[:, 2], rtol=0, atol=1e-15)


def test_the_single_segment_api_gives_the_same_edits_and_a_consistent_edit_sequence(
    wmt_pairs: tuple[list[str], list[str]], tercom_rows: np.ndarray
) -> None:
    for k, (hyp, ref) in enumerate(zip(*wmt_pairs, strict=True)):
        result = ter(hyp, ref)
        assert result.num_edits == tercom_rows[k, 0], k
        n_edits = sum(result.count(c) for c in "SID") + len(result.shifts)
        assert n_edits == result.num_edits, k
        assert sorted(result.hyp_after_shifts) == sorted(result.hyp), k


def test_lowercasing_matters_on_this_data(
    wmt_pairs: tuple[list[str], list[str]], tercom_rows: np.ndarray
) -> None:
    # Guards the conformance test itself: case-sensitive scoring must disagree with tercom.
    cased = ter_batch(*wmt_pairs, params=TerParams(lowercase=False))
    assert (cased.num_edits != tercom_rows[:, 0]).sum() > 100
