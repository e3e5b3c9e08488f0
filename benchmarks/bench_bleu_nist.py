"""Benchmark: sentence BLEU and NIST on the 1,000 WMT17 pairs, scoring.mt.metrics vs nltk.

Run as ``.venv/bin/python -m benchmarks.bench_bleu_nist``. Both sides get the same
mteval-13a tokens (tokenization is not timed); ours includes the statistics stage (word ids,
clipped matches, and for NIST the n-gram information over the whole reference set) in every
timing. nltk's
``sentence_bleu`` (4-grams, unsmoothed) and ``sentence_nist`` (5-grams, information from the
segment's own reference) are called once per pair. Timed in this process: best CPU time of three
interleaved rounds, after numba compilation. Exits 1 unless both speed-ups reach 10×.
"""

from __future__ import annotations

import sys
import warnings

from nltk.translate.bleu_score import sentence_bleu
from nltk.translate.nist_score import sentence_nist

from benchmarks.paths import data_dir
from benchmarks.results import Row, save
from benchmarks.timing import interleaved_best
from scoring.mt.metrics import bleu, ngram_stats, nist, read_mteval_sgml, tokenize_13a

TARGET = 10.0


def main() -> int:
    folder = data_dir() / "conformance/bleu_nist"
    hyps = [tokenize_13a(s.text) for s in read_mteval_sgml(folder / "tst.sgm")]
    refs = [tokenize_13a(s.text) for s in read_mteval_sgml(folder / "ref.sgm")]
    pairs = list(zip(hyps, refs, strict=True))
    n = len(pairs)

    def nltk_bleu() -> list[float]:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return [float(sentence_bleu([r], h)) for h, r in pairs]

    def nltk_nist() -> list[float]:
        return [float(sentence_nist([r], h, n=5)) for h, r in pairs]

    def ours_bleu() -> object:
        return bleu(ngram_stats(hyps, refs, information=False), order=4)

    def ours_nist() -> object:
        return nist(ngram_stats(hyps, refs), order=5)

    ours_bleu()
    ours_nist()
    t_nb, t_ob, t_nn, t_on = interleaved_best(3, nltk_bleu, ours_bleu, nltk_nist, ours_nist)
    results = {
        "BLEU": (t_nb, t_ob, "sentence_bleu"),
        "NIST": (t_nn, t_on, "sentence_nist"),
    }
    ok = True
    print(f"segments: {n}")
    for name, (t_peer, t_ours, peer_name) in results.items():
        ratio = t_peer / t_ours
        ok = ok and ratio >= TARGET
        print(f"{name}: nltk {peer_name}: {n / t_peer:10.1f} seg/s ({t_peer * 1e3:.1f} ms CPU)")
        print(f"{name}: scoring.mt.metrics:  {n / t_ours:10.1f} seg/s ({t_ours * 1e3:.1f} ms CPU)")
        print(f"{name}: speed-up {ratio:.1f}x (target >= {TARGET:.0f}x)")
    save(
        "bench_bleu_nist",
        [
            Row(
                f"sentence {name}, {n:,} WMT17 segments",
                n / t_ours,
                "seg/s",
                f"nltk {peer_name}",
                n / t_peer,
                t_peer / t_ours,
                f"≥ {TARGET:.0f}×",
                t_peer / t_ours >= TARGET,
            )
            for name, (t_peer, t_ours, peer_name) in results.items()
        ],
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
