"""The per-pair feature store on disk, and the supervised aligner's prefills with and without it."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from scoring.aligners import feature_store, supervised
from scoring.aligners.base import Aligner
from scoring.aligners.feature_store import PARTIAL, PARTIAL_AGE, FeatureStore
from scoring.aligners.options import SupervisedOptions
from scoring.aligners.supervised import BASE_FEATURES, SupervisedAligner
from scoring.alignment.links import Alignment

SOURCE, TARGET = ["the", "cat", "sat"], ["a", "cat", "sits", "down"]


def _matrix(seed: int, rows: int = 12, columns: int = 5) -> np.ndarray:
    return np.random.default_rng(seed).random((rows, columns), dtype=np.float32)


def test_a_stored_matrix_reads_back_for_its_key_and_tokens_only(tmp_path: Path) -> None:
    store = FeatureStore(tmp_path, 10**6)
    value = _matrix(0)
    store.put("model-1", SOURCE, TARGET, value)
    np.testing.assert_array_equal(store.get("model-1", SOURCE, TARGET, 5), value)
    assert store.get("model-2", SOURCE, TARGET, 5) is None
    assert store.get("model-1", SOURCE, [*TARGET[:-1], "up"], 5) is None
    # the tokens are not run together: ["a b"] and ["a", "b"] are other pairs
    assert store.path("k", ["a b"], ["c"]) != store.path("k", ["a", "b"], ["c"])


def test_a_file_that_is_not_the_expected_matrix_is_a_miss_and_goes(tmp_path: Path) -> None:
    store = FeatureStore(tmp_path, 10**6)
    store.put("k", SOURCE, TARGET, _matrix(0))
    path = store.path("k", SOURCE, TARGET)
    assert store.get("k", SOURCE, TARGET, 6) is None  # another number of columns
    assert not path.exists()
    store.put("k", SOURCE, TARGET, _matrix(0))
    path.write_bytes(path.read_bytes()[:100])  # cut short
    assert store.get("k", SOURCE, TARGET, 5) is None
    assert not path.exists()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"not a numpy file at all")
    assert store.get("k", SOURCE, TARGET, 5) is None
    assert not path.exists()


def test_pruning_keeps_the_store_within_its_bound_removing_the_least_recently_used(
    tmp_path: Path,
) -> None:
    one = _matrix(0).nbytes + 128  # the .npy header
    store = FeatureStore(tmp_path, 10 * one)
    pairs = [([f"w{k}"], [f"v{k}"] * 12) for k in range(10)]
    for k, (source, target) in enumerate(pairs):
        store.put("k", source, target, _matrix(k))
        os.utime(store.path("k", source, target), (1000.0 + k, 1000.0 + k))
    assert store.prune() == 0  # within the bound
    assert store.get("k", *pairs[0], 5) is not None  # used now: the most recent
    for k in range(10, 14):
        store.put("k", ["x"], [f"y{k}"] * 12, _matrix(k))
    assert store.size() <= 10 * one
    assert store.get("k", *pairs[0], 5) is not None
    assert store.get("k", *pairs[1], 5) is None  # the oldest went first


def test_pruning_removes_the_unfinished_files_of_writers_that_died(tmp_path: Path) -> None:
    store = FeatureStore(tmp_path, 10**6)
    (tmp_path / "ab").mkdir()
    old = tmp_path / "ab" / f"x.1.2{PARTIAL}"
    new = tmp_path / "ab" / f"y.1.2{PARTIAL}"
    old.write_bytes(b"half")
    new.write_bytes(b"half")
    os.utime(old, (1000.0, 1000.0))
    assert store.prune(now=1000.0 + PARTIAL_AGE + 1) == 1
    assert not old.exists() and new.exists()


def test_a_reader_sees_the_whole_matrix_while_others_write_it_again(tmp_path: Path) -> None:
    store = FeatureStore(tmp_path, 10**8)
    value = _matrix(0, rows=len(SOURCE) * len(TARGET), columns=400)
    store.put("k", SOURCE, TARGET, value)
    stop = threading.Event()
    seen: list[np.ndarray | None] = []

    def write() -> None:
        while not stop.is_set():
            store.put("k", SOURCE, TARGET, value)

    writers = [threading.Thread(target=write) for _ in range(2)]
    for thread in writers:
        thread.start()
    try:
        for _ in range(300):
            seen.append(store.get("k", SOURCE, TARGET, 400))
    finally:
        stop.set()
        for thread in writers:
            thread.join()
    # never half a file, nor none: each writer renames a whole file over the old one
    assert all(found is not None and np.array_equal(found, value) for found in seen)
    assert not list(tmp_path.glob(f"*/*{PARTIAL}"))


# --- the supervised aligner with the store -------------------------------------------------------


def _corpus() -> tuple[list[tuple[list[str], list[str]]], list[Alignment | None]]:
    rng = np.random.default_rng(5)
    words = ["cat", "dog", "bird", "house", "tree", "river", "stone", "cloud", "field", "road"]
    fillers = ["the", "a", "of", "in", "on"]
    pairs: list[tuple[list[str], list[str]]] = []
    gold: list[Alignment | None] = []
    for k in range(40):
        shared = [str(w) for w in rng.choice(words, size=3, replace=False)]
        src = shared + [str(w) for w in rng.choice(fillers, size=2)]
        tgt = [str(w) for w in rng.permutation(shared)] + [str(rng.choice(words))]
        links = [(i, j) for i, a in enumerate(src) for j, b in enumerate(tgt) if a == b]
        pairs.append((src, tgt))
        gold.append(Alignment.from_links(len(src), len(tgt), sure=links) if k < 30 else None)
    return pairs, gold


OPTIONS = SupervisedOptions(wordnet=False, pos=False, trees=20, learning_rate=0.1)


@pytest.fixture
def no_store() -> Iterator[None]:
    supervised.clear_caches()
    feature_store.use(None)
    yield
    supervised.clear_caches()
    feature_store.use(None)


def _prefill(aligner: Aligner, pairs: list[tuple[list[str], list[str]]]) -> list[object]:
    return [
        (o.sure, o.possible, o.confidence, o.warnings, o.metadata)
        for o in (aligner.align(s, t) for s, t in pairs)
    ]


def test_prefills_are_identical_with_and_without_the_store_cold_or_warm(
    tmp_path: Path, no_store: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    pairs, gold = _corpus()
    without = SupervisedAligner(OPTIONS)
    without.fit(pairs, gold)
    expected = _prefill(without, pairs)
    without.save(tmp_path / "without.npz")
    expected_loaded = _prefill(Aligner.load(tmp_path / "without.npz"), pairs)
    assert expected_loaded == expected

    # a fresh process's state, the store empty: computed and stored
    supervised.clear_caches()
    store = FeatureStore(tmp_path / "store", 10**9)
    feature_store.use(store)
    cold = SupervisedAligner(OPTIONS)
    cold.fit(pairs, gold)
    assert _prefill(cold, pairs) == expected
    assert len(list((tmp_path / "store").glob("*/*.npy"))) == len(pairs)
    cold.save(tmp_path / "model.npz")

    # another process's state, the store full: nothing computed, the same prefills, from the
    # model trained again (a retraining) and from the saved model (a chunk)
    supervised.clear_caches()

    def computed(*args: object) -> None:
        raise AssertionError("features computed although stored")

    monkeypatch.setattr(SupervisedAligner, "_compute_features", computed)
    warm = SupervisedAligner(OPTIONS)
    warm.fit(pairs, gold)
    assert _prefill(warm, pairs) == expected
    loaded = Aligner.load(tmp_path / "model.npz")
    assert isinstance(loaded, SupervisedAligner)
    assert loaded._stored_key() == warm._stored_key() == cold._stored_key()
    assert _prefill(loaded, pairs) == expected


def test_the_stored_features_are_keyed_by_the_em_model_and_the_options(
    tmp_path: Path, no_store: None
) -> None:
    pairs, gold = _corpus()
    feature_store.use(FeatureStore(tmp_path, 10**9))
    first = SupervisedAligner(OPTIONS)
    first.fit(pairs, gold)
    other_corpus = SupervisedAligner(OPTIONS)
    other_corpus.fit([*pairs, (["one", "more"], ["pair"])], [*gold, None])
    other_options = SupervisedAligner(replace(OPTIONS, seed=1, kind_trees=10))
    other_options.fit(pairs, gold)
    other_features = SupervisedAligner(replace(OPTIONS, encoder=False))
    other_features.fit(pairs, gold)
    assert first._stored_key() != other_corpus._stored_key()
    # the trees' options do not change a pair's features; the encoder's do
    assert first._stored_key() == other_options._stored_key()
    assert first._stored_key() != other_features._stored_key()
    assert BASE_FEATURES > 0
