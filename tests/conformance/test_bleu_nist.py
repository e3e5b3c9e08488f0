"""BLEU and NIST against mteval-v13a's own output on 1,000 WMT17 en-de pairs (bleu_nist).

mteval-v13a.pl ran with ``-c --metricsMATR`` (case kept, its default 13a tokenization, smoothed
segment BLEU, NIST information from the whole reference set). ``*-seg.scr`` lines are
``setid<TAB>sysid<TAB>docid<TAB>segid<TAB>score``, ``*-sys.scr`` lines
``setid<TAB>sysid<TAB>score``.
Perl prints numbers with 15 significant digits, so the figures carry about 1e-15 relative rounding:
far inside the 1e-9 tolerance. Perl also sums the information of a segment's n-grams in hash
order, which differs between runs in the last bits; that too is far inside it.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from scoring.mt.metrics import NgramStats, bleu, ngram_stats, nist, read_mteval_sgml, tokenize_13a

TOLERANCE = 1e-9


@pytest.fixture(scope="module")
def folder(shared_data: Path) -> Path:
    return shared_data / "conformance/bleu_nist"


@pytest.fixture(scope="module")
def seg_ids(folder: Path) -> list[str]:
    tst = read_mteval_sgml(folder / "tst.sgm")
    ref = read_mteval_sgml(folder / "ref.sgm")
    assert [(s.doc_id, s.seg_id) for s in tst] == [(s.doc_id, s.seg_id) for s in ref]
    assert len(tst) == 1000
    return [s.seg_id for s in tst]


@pytest.fixture(scope="module")
def stats(folder: Path) -> NgramStats:
    tst = read_mteval_sgml(folder / "tst.sgm")
    ref = read_mteval_sgml(folder / "ref.sgm")
    return ngram_stats([tokenize_13a(s.text) for s in tst], [tokenize_13a(s.text) for s in ref])


def read_seg_scores(path: Path) -> dict[str, float]:
    out = {}
    for line in path.read_text().splitlines():
        set_id, sys_id, doc_id, seg_id, score = line.split("\t")
        assert (set_id, sys_id, doc_id) == ("t", "sys", "d1")
        out[seg_id] = float(score)
    return out


def read_sys_score(path: Path) -> float:
    set_id, sys_id, score = path.read_text().strip().split("\t")
    assert (set_id, sys_id) == ("t", "sys")
    return float(score)


def test_segment_bleu_equals_mtevals(folder: Path, seg_ids: list[str], stats: NgramStats) -> None:
    gold = read_seg_scores(folder / "BLEU-seg.scr")
    expected = np.array([gold[k] for k in seg_ids])
    ours = bleu(stats, order=4)
    worst = int(np.argmax(np.abs(ours - expected)))
    assert abs(ours[worst] - expected[worst]) < TOLERANCE, (seg_ids[worst], ours[worst])


def test_segment_nist_equals_mtevals(folder: Path, seg_ids: list[str], stats: NgramStats) -> None:
    gold = read_seg_scores(folder / "NIST-seg.scr")
    expected = np.array([gold[k] for k in seg_ids])
    ours = nist(stats, order=5)
    worst = int(np.argmax(np.abs(ours - expected)))
    assert abs(ours[worst] - expected[worst]) < TOLERANCE, (seg_ids[worst], ours[worst])


def test_system_bleu_and_nist_equal_mtevals(folder: Path, stats: NgramStats) -> None:
    total = stats.total()
    assert abs(bleu(total)[0] - read_sys_score(folder / "BLEU-sys.scr")) < TOLERANCE
    assert abs(nist(total)[0] - read_sys_score(folder / "NIST-sys.scr")) < TOLERANCE


def test_the_no_brevity_penalty_variant_differs_only_where_the_hypothesis_is_short(
    stats: NgramStats,
) -> None:
    with_bp = bleu(stats)
    without = bleu(stats, brevity_penalty=False)
    short = stats.hyp_len < stats.ref_len
    assert short.any() and (~short).any()
    np.testing.assert_array_equal(with_bp[~short], without[~short])
    penalty = np.exp(1 - stats.ref_len[short] / stats.hyp_len[short])
    np.testing.assert_allclose(with_bp[short], without[short] * penalty, rtol=1e-13)
