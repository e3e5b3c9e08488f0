"""Long trainings tell a progress callable the share done and their stage at every step."""

from __future__ import annotations

import re

import numpy as np
import pytest
from sklearn.ensemble import HistGradientBoostingClassifier

from scoring.aligners import get_aligner
from scoring.aligners.supervised import SupervisedAligner, clear_caches
from scoring.aligners.trees import TreeEnsemble, fit_trees
from scoring.alignment.links import Alignment
from scoring.edit.perp import Perp
from scoring.mt.classifier import MtClassifier
from scoring.pfsm import PFSMScorer
from scoring.progress import progress_part
from scoring.scorers.options import PerpOptions, PFSMOptions, SvmOptions
from tests.scoring.scorers.test_scorers import PAIRS


class Recorder:
    """A progress callable that keeps every report."""

    def __init__(self) -> None:
        self.calls: list[tuple[float, str]] = []

    def __call__(self, fraction: float, stage: str) -> None:
        self.calls.append((fraction, stage))

    @property
    def fractions(self) -> list[float]:
        return [fraction for fraction, _ in self.calls]

    def stages(self, pattern: str) -> list[str]:
        return [stage for _, stage in self.calls if re.fullmatch(pattern, stage)]


def assert_moves_forward(recorder: Recorder) -> None:
    fractions = recorder.fractions
    assert fractions == sorted(fractions), "the share done never goes back"
    assert all(0.0 <= f <= 1.0 for f in fractions)


def _pairs() -> list[tuple[list[str], list[str]]]:
    return [(a.split(), b.split()) for a, b, _ in PAIRS]


def test_a_part_of_the_work_reports_within_its_span_after_its_prefix() -> None:
    whole = Recorder()
    part = progress_part(whole, 0.2, 0.6, "EM: ")
    assert part is not None
    part(0.0, "start")
    part(0.5, "half")
    part(1.5, "beyond")  # clipped to the part's end
    assert whole.calls == [(0.2, "EM: start"), (0.4, "EM: half"), (0.6, "EM: beyond")]
    assert progress_part(None, 0.0, 1.0) is None


def test_em_training_reports_every_iteration_of_both_models() -> None:
    recorder = Recorder()
    aligner = get_aligner("em", model1_iterations=3, hmm_iterations=2)
    aligner.fit(_pairs(), progress=recorder)
    assert_moves_forward(recorder)
    assert recorder.stages(r"IBM Model 1 iteration \d of 3 done") == [
        f"IBM Model 1 iteration {k} of 3 done" for k in (1, 2, 3)
    ]
    assert recorder.stages(r"HMM iteration \d of 2 done") == [
        "HMM iteration 1 of 2 done",
        "HMM iteration 2 of 2 done",
    ]
    assert recorder.calls[-1][0] == 1.0
    assert aligner.progress is None, "the callable is not kept after training"


def test_a_progress_callable_that_raises_stops_the_training() -> None:
    class Stop(Exception):
        pass

    def stop_at_the_second_report(fraction: float, stage: str) -> None:
        if fraction > 0:
            raise Stop(stage)

    aligner = get_aligner("em", model1_iterations=3, hmm_iterations=2)
    with pytest.raises(Stop, match=r"IBM Model 1 iteration 1 of 3: \d+ of 8 pairs"):
        aligner.fit(_pairs(), progress=stop_at_the_second_report)
    assert not aligner.trained


def _gold_corpus() -> tuple[list[tuple[list[str], list[str]]], list[Alignment | None]]:
    rng = np.random.default_rng(5)
    words = ["cat", "dog", "bird", "house", "tree", "river", "stone", "cloud"]
    pairs: list[tuple[list[str], list[str]]] = []
    gold: list[Alignment | None] = []
    for _ in range(12):
        shared = [str(w) for w in rng.choice(words, size=3, replace=False)]
        src, tgt = [*shared, "the"], [*reversed(shared), "a"]
        links = [(i, j) for i, a in enumerate(src) for j, b in enumerate(tgt) if a == b]
        pairs.append((src, tgt))
        gold.append(Alignment.from_links(len(src), len(tgt), sure=links))
    return pairs, gold


def test_supervised_training_reports_em_the_features_and_each_tree() -> None:
    pairs, gold = _gold_corpus()
    clear_caches()  # a cached EM model would skip its stage
    options = {"wordnet": False, "pos": False, "trees": 6, "em_hmm_iterations": 1}
    options |= {"learning_rate": 0.3, "min_samples_leaf": 5}
    recorder = Recorder()
    reported = get_aligner("supervised", **options)
    reported.fit(pairs, gold, progress=recorder)
    assert_moves_forward(recorder)
    assert recorder.stages(r"EM: HMM iteration 1 of 1 done")
    assert recorder.stages(r"features \d+/12") == [f"features {k}/12" for k in range(12)]
    assert recorder.stages(r"link trees: tree \d of 6") == [
        f"link trees: tree {k} of 6" for k in range(1, 7)
    ]
    stages = [stage for _, stage in recorder.calls]
    first = {
        kind: next(i for i, s in enumerate(stages) if s.startswith(kind))
        for kind in ("EM", "features", "link trees")
    }
    assert first["EM"] < first["features"] < first["link trees"]

    silent = get_aligner("supervised", **options).fit(pairs, gold)
    source, target = pairs[0]
    assert isinstance(reported, SupervisedAligner) and isinstance(silent, SupervisedAligner)
    np.testing.assert_array_equal(
        reported.probabilities(source, target), silent.probabilities(source, target)
    )


def test_trees_fitted_with_progress_are_those_of_a_plain_fit() -> None:
    rng = np.random.default_rng(0)
    x = rng.normal(size=(2000, 4))
    y = (x[:, 0] + x[:, 1] * x[:, 2] + rng.normal(scale=0.5, size=2000) > 0).astype(np.int64)
    weight = rng.uniform(0.5, 2.0, size=2000)

    def model() -> HistGradientBoostingClassifier:
        return HistGradientBoostingClassifier(
            max_iter=12, max_leaf_nodes=7, min_samples_leaf=20, early_stopping=False, random_state=1
        )

    recorder = Recorder()
    reported = fit_trees(model(), x, y, weight, recorder)
    plain = TreeEnsemble.from_sklearn(model().fit(x, y, sample_weight=weight))
    stages = [f"tree {k} of 12" for k in range(1, 13)]
    assert [stage for _, stage in recorder.calls] == ["binning 2,000 cells", *stages]
    assert recorder.fractions == [k / 12 for k in range(13)]
    for key, array in plain.arrays().items():
        np.testing.assert_array_equal(reported.arrays()[key], array, err_msg=key)
    assert reported.baseline == plain.baseline


def test_perp_training_reports_each_epoch_and_learns_the_same_weights() -> None:
    pairs = [(a, b) for a, b, _ in PAIRS]
    scores = [y for _, _, y in PAIRS]
    options = PerpOptions(epochs=4, seed=2)
    recorder = Recorder()
    reported = Perp(options).fit(pairs, scores, progress=recorder)
    assert_moves_forward(recorder)
    epochs = recorder.stages(r"epoch \d of 4, mean squared error [0-9.e+-]+")
    assert [stage.split(",")[0] for stage in epochs] == [f"epoch {k} of 4" for k in range(1, 5)]
    assert recorder.calls[0] == (0.0, f"TERp tables of {len(pairs)} pairs")
    silent = Perp(options).fit(pairs, scores)
    np.testing.assert_array_equal(reported.weights, silent.weights)
    assert reported.history["epoch_mse"] == silent.history["epoch_mse"]


def test_pfsm_training_reports_its_l_bfgs_iterations() -> None:
    pairs = _pairs()
    scores = [y for _, _, y in PAIRS]
    recorder = Recorder()
    scorer = PFSMScorer(PFSMOptions(cutoff=0)).fit(pairs, scores, progress=recorder)
    assert_moves_forward(recorder)
    iterations = recorder.stages(r"L-BFGS iteration \d+ \(at most 300\)")
    assert len(iterations) == scorer.training["iterations"] >= 2
    assert iterations[0] == "L-BFGS iteration 1 (at most 300)"


def test_the_svm_grid_search_reports_every_fit() -> None:
    rng = np.random.default_rng(1)
    x = rng.normal(size=(60, 3))
    y = (x[:, 0] > 0).astype(np.int64)
    options = SvmOptions(folds=3, c_grid=(1.0, 10.0), gamma_factors=(0.5, 1.0))
    recorder = Recorder()
    reported = MtClassifier(["a", "b", "c"], options).fit(x, y, progress=recorder)
    assert recorder.stages(r"SVM grid search: fit \d+ of 12") == [
        f"SVM grid search: fit {k} of 12" for k in range(1, 13)
    ]
    assert_moves_forward(recorder)
    silent = MtClassifier(["a", "b", "c"], options).fit(x, y)
    assert reported.hyperparameters == silent.hyperparameters
    assert reported.cv_score == silent.cv_score


def test_a_progress_callable_that_raises_stops_the_svm_grid_search_at_once() -> None:
    class Stop(Exception):
        pass

    fits: list[str] = []

    def stop_at_the_third_fit(fraction: float, stage: str) -> None:
        fits.append(stage)
        if len(fits) == 3:
            raise Stop(stage)

    rng = np.random.default_rng(1)
    x = rng.normal(size=(60, 3))
    y = (x[:, 0] > 0).astype(np.int64)
    options = SvmOptions(folds=3, c_grid=(1.0, 10.0), gamma_factors=(0.5, 1.0))
    model = MtClassifier(["a", "b", "c"], options)
    with pytest.raises(Stop, match="fit 3 of 12"):
        model.fit(x, y, progress=stop_at_the_third_fit)
    assert fits == [f"SVM grid search: fit {k} of 12" for k in (1, 2, 3)], "no fit after the stop"
