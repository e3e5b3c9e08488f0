"""Benchmark: pFSM and pPDA (jump limit 5) trained on STS-2012 MSRpar train, tested on MSRpar test.

Run: ``.venv/bin/python -m benchmarks.bench_pfsm``

Prints for each model the wall time of ``fit`` on the 750 training pairs (featurization, lattice
building and L-BFGS; WordNet, the PPDB table and the numba kernels are loaded by a warm-up run
first), the Pearson correlation on the 750 test pairs beside Wang & Cer's (2012) Table 1 (scheme
*Indi*:
trained on MSRpar train, tested on MSRpar test, with synonym and paraphrase features), and, as
the peer measured in the same run, one objective-and-gradient evaluation by walking the machine's
configurations directly (``walk.sweep``) against the same evaluation over the edge lists
that training uses. Exits 1 if a time target is missed.
"""

from __future__ import annotations

import sys
import time
from dataclasses import replace

import numpy as np

from benchmarks.paths import data_dir
from benchmarks.results import Row, save
from scoring.pfsm import PFSMScorer, walk
from scoring.pfsm.features import N_FEATURES, MatchTables
from scoring.pfsm.lattice import CompiledPairs, node_count
from scoring.scorers.options import PFSMOptions, PPDAOptions
from scoring.text import tokenize

STS = data_dir() / "sts2012"
PPDB = data_dir() / "ppdb" / "ppdb-1.0-xxxl-lexical.synonyms.tsv"
#: Wang & Cer 2012, Table 1, column MSRpar, rows pFSM_Indi and pPDA_Indi (Pearson).
PAPER = {"pfsm": 0.3795, "ppda": 0.4244}
TARGET_SECONDS = {"pfsm": 60.0, "ppda": 300.0}

Pairs = list[tuple[list[str], list[str]]]


def load(split: str, name: str) -> tuple[Pairs, np.ndarray]:
    lines = (STS / split / f"STS.input.{name}.txt").read_text(encoding="utf-8").splitlines()
    gold = (STS / split / f"STS.gs.{name}.txt").read_text(encoding="utf-8").split()
    pairs = []
    for line in lines:
        first, second = line.split("\t")[:2]
        pairs.append((tokenize(first), tokenize(second)))
    return pairs, np.array([float(g) for g in gold])


def direct_evaluation_seconds(model: PFSMScorer, pairs: Pairs, weights: np.ndarray) -> float:
    """One forward+backward pass over all pairs by walking configurations (the peer)."""
    tables = [model.match_tables(s, t) for s, t in pairs]
    for warm_up in (True, False):  # the first call may compile this signature
        started = time.perf_counter()
        _walk(model, tables[:1] if warm_up else tables, weights)
    return time.perf_counter() - started


def _walk(model: PFSMScorer, tables: list[MatchTables], weights: np.ndarray) -> None:
    for table in tables:
        n, m = table.shape
        size = node_count(n, m, model.jump_limit)
        alpha, beta = np.empty(size), np.empty(size)
        ids = np.empty(size, dtype=np.int64)
        walk.sweep(
            walk.MODE_BACKWARD, n, m, model.jump_limit, table.single, table.block, weights,
            alpha, beta, ids, np.zeros(N_FEATURES), np.zeros((0, 4), dtype=np.int64),
            np.zeros(2, dtype=np.int64),
        )  # fmt: skip


def edge_list_evaluation_seconds(
    model: PFSMScorer, pairs: Pairs, targets: np.ndarray, weights: np.ndarray
) -> float:
    compiled = CompiledPairs([model.match_tables(s, t) for s, t in pairs], model.jump_limit)
    started = time.perf_counter()
    compiled.squared_error(weights, 0.0, targets)
    return time.perf_counter() - started


def main() -> int:

    train, train_gold = load("train", "MSRpar")
    test, test_gold = load("test", "MSRpar")
    print(f"STS-2012 MSRpar: {len(train)} train pairs, {len(test)} test pairs; PPDB {PPDB.name}")
    failed = False
    rows = []
    for kind in ("pfsm", "ppda"):
        options = PPDAOptions(jump_limit=5) if kind == "ppda" else PFSMOptions()
        model = PFSMScorer(replace(options, paraphrase_table=str(PPDB)))
        PFSMScorer(options).fit(train[:3], train_gold[:3])  # warm-up
        started = time.perf_counter()
        model.fit(train, train_gold)
        seconds = time.perf_counter() - started
        pearson = float(np.corrcoef(model.score(test), test_gold)[0, 1])
        assert model.weights is not None
        direct = direct_evaluation_seconds(model, train, model.weights)
        edges = edge_list_evaluation_seconds(model, train, train_gold, model.weights)
        info = model.training
        rows.append((kind, seconds, pearson, info, direct, edges))
        if seconds > TARGET_SECONDS[kind]:
            failed = True
    print()
    print(
        f"{'model':<10}{'fit s':>8}{'target s':>10}{'featurize s':>13}{'iters':>7}{'feats':>7}"
        f"{'test r':>9}{'paper':>10}{'Δ':>8}"
    )
    for kind, seconds, pearson, info, _, _ in rows:
        name = "pFSM" if kind == "pfsm" else "pPDA j5"
        print(
            f"{name:<10}{seconds:>8.1f}{TARGET_SECONDS[kind]:>10.0f}"
            f"{info['seconds_featurize']:>13.1f}{info['iterations']:>7d}"
            f"{info['features_kept']:>7d}{pearson:>9.4f}{PAPER[kind]:>10.4f}"
            f"{pearson - PAPER[kind]:>+8.4f}"
        )
    print()
    print("peer: one objective+gradient evaluation over the 750 training pairs")
    for kind, _, _, _, direct, edges in rows:
        name = "pFSM" if kind == "pfsm" else "pPDA j5"
        print(
            f"  {name:<8} configuration walk {direct:7.2f} s, edge lists {edges:7.3f} s, "
            f"ratio {direct / edges:6.1f}×"
        )
    pfsm_seconds, ppda_seconds = rows[0][1], rows[1][1]
    print(f"pPDA j5 / pFSM fit time: {ppda_seconds / pfsm_seconds:.1f}×")
    save(
        "bench_pfsm",
        [
            Row(
                f"{'pFSM' if kind == 'pfsm' else 'pPDA j5'} training on STS MSRpar "
                f"(test r {pearson:.3f}, paper {PAPER[kind]:.3f})",
                seconds,
                "s",
                "configuration walk, one gradient",
                direct,
                direct / edges,
                f"≤ {TARGET_SECONDS[kind]:.0f} s",
                seconds <= TARGET_SECONDS[kind],
            )
            for kind, seconds, pearson, _, direct, edges in rows
        ],
    )
    if failed:
        print("FAILED: a time target was missed", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
