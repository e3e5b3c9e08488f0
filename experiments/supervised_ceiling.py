"""What limits the ``supervised`` aligner on a gold set: data, tree settings, a stage.

Run: ``.venv/bin/python -m experiments.supervised_ceiling RESULTS.json [--data NAME]
[--large-encoder]``.

The cell features (:meth:`SupervisedAligner.features`) do not depend on the fold: the EM model
and the word frequencies are learnt from every pair's tokens, never from gold. So they are
computed once per data set, and each question below only refits the trees
(:meth:`SupervisedAligner.fit_ensemble`, the product's own fitting and numba predictor) on the
5 folds of :mod:`experiments.aligner_results` (seed 0), scored by the literature metric
(sure links, P and R averaged over pairs) against the set's reference (RTE-2: the 2-of-3
majority of sure links):

- **learning curve**: the trees trained on a seeded quarter, half, three quarters and all of the
  other folds' pairs. A flat curve says more annotated pairs would not raise the score;
- **tree settings**: the defaults (200 trees, learning rate 0.1, 100 cells per leaf) against
  500 trees, 0.05 and 40;
- **two stages** (Sultan et al. 2015): a second ensemble over the features plus, from the first
  stage's cross-fitted probabilities, the cell's own, the best other cell of its row and of its
  column, the gaps to them, the row's and column's other probability mass and links, and the
  eight neighbouring cells'. The first-stage probability of a training pair comes from trees that
  saw neither its fold nor the evaluated one.

The fine-tuned cross-encoder (``fine_tune_epochs``) is left out: it is blended after the trees
and costs 20 minutes per set.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from experiments.aligner_results import PPDB, SEED, datasets
from scoring.aligners.evaluation import (
    SetCounts,
    fold_assignment,
    literature_scores,
    references,
    training_gold,
)
from scoring.aligners.options import SupervisedOptions
from scoring.aligners.supervised import SupervisedAligner

F64 = npt.NDArray[np.float64]
FOLDS = 5
FRACTIONS = (0.25, 0.5, 0.75, 1.0)
TREE_SETTINGS: dict[str, dict[str, Any]] = {
    "defaults": {},
    "500 trees, rate 0.05, leaf 40": {"trees": 500, "learning_rate": 0.05, "min_samples_leaf": 40},
}
#: (row, column) offsets of the eight neighbours whose first-stage probability is a feature
NEIGHBOURS = tuple((a, b) for a in (-1, 0, 1) for b in (-1, 0, 1) if (a, b) != (0, 0))


class CellTable:
    """Every cell of every pair of a set, in pair order: features, labels, reference."""

    def __init__(self, name: str, large_encoder: bool) -> None:
        records = datasets()[name]
        pairs = [(list(r.source_tokens), list(r.target_tokens)) for r in records]
        gold = [training_gold(r) for r in records]
        refs = references(records)
        reference = refs["majority"] if "majority" in refs else refs["gold"]
        self.options: dict[str, Any] = {"ppdb": str(PPDB), "large_encoder": large_encoder}
        aligner = SupervisedAligner(SupervisedOptions.from_dict(self.options))
        aligner.fit(pairs, gold)  # learns EM and word frequencies from every pair's tokens
        self.shapes = [(len(s), len(t)) for s, t in pairs]
        sizes = [n * m for n, m in self.shapes]
        self.offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
        self.x = np.concatenate([aligner.features(s, t) for s, t in pairs])
        labels = [g.sure_matrix().reshape(-1) for g in gold if g is not None]
        if len(labels) != len(pairs):
            raise SystemExit(f"{name}: every pair needs a gold alignment for this benchmark")
        self.y = np.concatenate(labels).astype(np.int64)
        self.reference = [a.sure for a in reference]
        self.fold = fold_assignment(len(pairs), FOLDS, SEED)
        self.cell_fold = np.repeat(self.fold, sizes)
        self.cell_pair = np.repeat(np.arange(len(pairs)), sizes)

    def pair_cells(self, k: int) -> slice:
        return slice(int(self.offsets[k]), int(self.offsets[k + 1]))

    def score(self, probability: F64) -> dict[str, float | None]:
        """Literature P, R and F1 (sure links: probability ≥ 0.5) against the reference."""
        counts = []
        for k, (n, m) in enumerate(self.shapes):
            cells = probability[self.pair_cells(k)].reshape(n, m) >= 0.5
            predicted = frozenset((int(i), int(j)) for i, j in np.argwhere(cells))
            counts.append(SetCounts.of(predicted, self.reference[k]))
        scores = literature_scores(counts)
        return {key: scores[key] for key in ("precision", "recall", "f1")}

    def fit_predict(
        self,
        train: npt.NDArray[np.bool_],
        test: npt.NDArray[np.bool_],
        x: F64 | None = None,
        **options: Any,
    ) -> F64:
        """Trees fitted on the ``train`` cells, their probabilities for the ``test`` cells."""
        x = self.x if x is None else x
        aligner = SupervisedAligner(SupervisedOptions.from_dict({**self.options, **options}))
        ensemble, _ = aligner.fit_ensemble(x[train], self.y[train])
        return ensemble.predict(x[test])

    def cross_validate(self, x: F64 | None = None, fraction: float = 1.0, **options: Any) -> F64:
        """Each fold's cells scored by trees trained on (a seeded ``fraction`` of the pairs
        of) the other folds."""
        rng = np.random.default_rng(SEED)
        out = np.zeros(self.y.size)
        for fold in range(FOLDS):
            others = np.flatnonzero(self.fold != fold)
            chosen = rng.choice(others, round(fraction * others.size), replace=False)
            train = np.isin(self.cell_pair, chosen)
            test = self.cell_fold == fold
            out[test] = self.fit_predict(train, test, x, **options)
        return out


def second_stage_features(table: CellTable, probability: F64) -> F64:
    """Per cell, from first-stage probabilities: own, the best other of row and column, the
    gaps, the other mass and links of row and column, and the eight neighbours."""
    out = np.zeros((probability.size, 9 + len(NEIGHBOURS)))
    for k, (n, m) in enumerate(table.shapes):
        p = probability[table.pair_cells(k)].reshape(n, m)
        columns = [p]
        for axis in (1, 0):
            ordered = np.sort(p, axis=axis)
            best = np.take(ordered, [-1], axis=axis)
            second = np.take(ordered, [-2], axis=axis) if p.shape[axis] > 1 else 0.0 * best
            other = np.where(p >= best, second, best)
            columns += [other, p - other]
        links = p >= 0.5
        columns += [p.sum(axis=1, keepdims=True) - p, p.sum(axis=0, keepdims=True) - p]
        columns += [
            links.sum(axis=1, keepdims=True) - links,
            links.sum(axis=0, keepdims=True) - links,
        ]
        padded = np.pad(p, 1)
        columns += [padded[1 + a : 1 + a + n, 1 + b : 1 + b + m] for a, b in NEIGHBOURS]
        out[table.pair_cells(k)] = np.stack(
            [np.broadcast_to(c, (n, m)).reshape(-1) for c in columns], axis=1
        )
    return out


def two_stage(table: CellTable, first: F64) -> F64:
    """Cross-validated second-stage probabilities; ``first`` holds the first stage's."""
    # (the other left-out fold, the scored fold) → probabilities from trees that saw neither
    inner: dict[tuple[int, int], F64] = {}
    for a, b in itertools.combinations(range(FOLDS), 2):
        train = (table.cell_fold != a) & (table.cell_fold != b)
        for scored in (a, b):
            test = table.cell_fold == scored
            inner[(a + b - scored, scored)] = table.fit_predict(train, test)
    out = np.zeros(table.y.size)
    for fold in range(FOLDS):
        stage_one = first.copy()  # the evaluated fold keeps the trees trained on all others
        for other in range(FOLDS):
            if other != fold:
                stage_one[table.cell_fold == other] = inner[(fold, other)]
        x = np.concatenate([table.x, second_stage_features(table, stage_one)], axis=1)
        train, test = table.cell_fold != fold, table.cell_fold == fold
        out[test] = table.fit_predict(train, test, x)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("output", type=Path, help="where to write the JSON results")
    parser.add_argument("--data", default="rte2_dev", choices=sorted(datasets()))
    parser.add_argument("--large-encoder", action="store_true", help="option large_encoder")
    args = parser.parse_args(argv)

    started = time.time()
    table = CellTable(args.data, args.large_encoder)
    print(
        f"{args.data}: {len(table.shapes)} pairs, {table.y.size} cells, features in "
        f"{time.time() - started:.0f} s",
        flush=True,
    )
    results: dict[str, Any] = {"data": args.data, "options": table.options, "seed": SEED}

    def report(section: str, label: str, probability: F64) -> None:
        scores = table.score(probability)
        results.setdefault(section, {})[label] = scores
        f1, p, r = (100 * (scores[key] or 0.0) for key in ("f1", "precision", "recall"))
        print(
            f"{section:16} {label:32} F1 {f1:5.2f}  P {p:5.2f}  R {r:5.2f}  "
            f"({time.time() - started:.0f} s)",
            flush=True,
        )

    first = table.cross_validate()
    for fraction in FRACTIONS:
        pairs = round(fraction * np.count_nonzero(table.fold != 0))
        probability = first if fraction == 1.0 else table.cross_validate(fraction=fraction)
        report("learning curve", f"{fraction:.2f} of the training pairs (~{pairs})", probability)
    for label, options in TREE_SETTINGS.items():
        report("tree settings", label, table.cross_validate(**options) if options else first)
    report("two stages", "first stage", first)
    report("two stages", "second stage", two_stage(table, first))
    args.output.write_text(json.dumps(results, indent=1, sort_keys=True) + "\n")
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
