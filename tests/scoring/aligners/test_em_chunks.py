"""EM's training data laid out and its E-steps run in chunks, its M-step in place: the same
model as in one piece, and a ``progress`` that raises (a cancelled job) stops the training
between two chunks."""

from __future__ import annotations

import numpy as np
import pytest

from scoring.aligners import em
from scoring.aligners.em import EMAligner, _layout
from scoring.aligners.em_kernels import model1_estep, normalize_lexicon, union_sorted
from scoring.aligners.options import EMOptions


def _corpus(rng: np.random.Generator, pairs: int = 60) -> list[tuple[list[str], list[str]]]:
    out = []
    for _ in range(pairs):
        src = [f"w{k}" for k in rng.integers(0, 15, size=int(rng.integers(1, 9)))]
        tgt = [w if rng.random() < 0.7 else f"v{rng.integers(0, 6)}" for w in src]
        out.append((src, tgt[::-1] if rng.random() < 0.3 else tgt))
    return out


def test_union_sorted_merges_two_sets_of_distinct_values() -> None:
    rng = np.random.default_rng(1)
    for _ in range(50):
        a = np.unique(rng.integers(0, 40, size=int(rng.integers(0, 30))))
        b = np.unique(rng.integers(0, 40, size=int(rng.integers(0, 30))))
        np.testing.assert_array_equal(union_sorted(a, b), np.union1d(a, b))


@pytest.mark.parametrize("add", [0.0, 0.5])
def test_the_lexicon_m_step_in_place_equals_numpy_bit_for_bit(add: float) -> None:
    rng = np.random.default_rng(5)
    size = 9
    keys = np.unique(rng.integers(0, size * size, size=50))
    group = keys // size
    members = np.bincount(group, minlength=size).astype(np.float64)
    counts = rng.random(keys.size) * rng.integers(0, 2, size=keys.size)
    totals = np.bincount(group, weights=counts, minlength=size)
    expected = np.maximum(
        (counts + add) / np.maximum(totals[group] + add * members[group], 1e-300), 0.05
    )
    out = normalize_lexicon(counts, keys, size, members, add, 0.05)
    assert out is counts
    np.testing.assert_array_equal(out, expected)


@pytest.mark.parametrize("chunk_cells", [1, 7, 1 << 22])
def test_the_layout_made_in_chunks_is_the_layout_of_all_cells_at_once(
    monkeypatch: pytest.MonkeyPatch, chunk_cells: int
) -> None:
    monkeypatch.setattr(em, "LAYOUT_CELLS", chunk_cells)
    rng = np.random.default_rng(2)
    size = 12
    cond = [rng.integers(1, size, size=int(rng.integers(1, 6))) for _ in range(25)]
    gen = [rng.integers(1, size, size=int(rng.integers(1, 6))) for _ in range(25)]
    cond_len, gen_len, cells, cell_off, keys = _layout(cond, gen, size)
    raw = np.concatenate(
        [
            (np.append(c, 0)[None, :] * size + g[:, None]).ravel()
            for c, g in zip(cond, gen, strict=True)
        ]
    )
    ref_keys, ref_cells = np.unique(raw, return_inverse=True)
    np.testing.assert_array_equal(keys, ref_keys)
    assert cells.dtype == np.int32
    np.testing.assert_array_equal(cells, ref_cells)
    np.testing.assert_array_equal(cell_off[1:] - cell_off[:-1], gen_len * (cond_len + 1))


def _fit(pairs: list[tuple[list[str], list[str]]], options: EMOptions) -> EMAligner:
    return EMAligner(options).fit(pairs)


@pytest.mark.parametrize("training", ["independent", "agreement"])
def test_an_e_step_in_chunks_of_one_pair_trains_the_model_of_one_chunk_bit_for_bit(
    monkeypatch: pytest.MonkeyPatch, training: str
) -> None:
    pairs = _corpus(np.random.default_rng(3))
    options = EMOptions(model1_iterations=2, hmm_iterations=3, training=training, learn_null=True)
    monkeypatch.setattr(em, "FIRST_CHUNK", 10**9)
    whole = _fit(pairs, options)
    monkeypatch.setattr(em, "FIRST_CHUNK", 1)
    monkeypatch.setattr(em, "CHUNK_SECONDS", 0.0)  # every chunk one pair
    chunked = _fit(pairs, options)
    for a, b in zip(whole.directions, chunked.directions, strict=True):
        np.testing.assert_array_equal(a.keys, b.keys)
        np.testing.assert_array_equal(a.prob, b.prob)
    for x, y in zip(whole.jumps + whole.bounds, chunked.jumps + chunked.bounds, strict=True):
        np.testing.assert_array_equal(x, y)
    assert whole.p_null == chunked.p_null
    strip = {k: v for k, v in whole.log.items() if k != "seconds"}
    assert strip == {k: v for k, v in chunked.log.items() if k != "seconds"}
    for source, target in pairs:
        assert whole.align(source, target) == chunked.align(source, target)


def test_a_progress_that_raises_stops_the_training_between_two_chunks(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A cancelled job's ``progress`` raises: the training stops after the chunk under way, not
    at the end of the E-step."""
    monkeypatch.setattr(em, "FIRST_CHUNK", 5)
    monkeypatch.setattr(em, "CHUNK_SECONDS", 0.0)
    steps: list[int] = []

    def counted(*args: object) -> float:
        steps.append(1)
        return model1_estep(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(em, "model1_estep", counted)
    stages: list[str] = []

    class Cancelled(Exception):
        pass

    def progress(fraction: float, stage: str) -> None:
        stages.append(stage)
        if len(steps) >= 4:
            raise Cancelled

    with pytest.raises(Cancelled):
        EMAligner(EMOptions()).fit(_corpus(np.random.default_rng(4)), progress=progress)
    assert len(steps) == 4, "two chunks, both directions, then it stopped"
    assert stages[-1] == "IBM Model 1 iteration 1 of 5: 6 of 60 pairs"  # chunks of 5 and 1


def test_chunks_are_sized_to_take_about_chunk_seconds(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each chunk is sized from the time the one before took (here 10 ms a pair: 25 pairs for
    a quarter of a second), growing at most twofold."""

    class Clock:
        now = 0.0

        def perf_counter(self) -> float:
            return self.now

    clock = Clock()
    monkeypatch.setattr(em, "time", clock)
    monkeypatch.setattr(em, "FIRST_CHUNK", 4)
    monkeypatch.setattr(em, "CHUNK_SECONDS", 0.25)
    sizes = []
    for a, b in EMAligner()._chunks(200, 200, 0.0, 1, "step"):
        sizes.append(b - a)
        clock.now += 0.01 * (b - a)
    assert sizes[:4] == [4, 8, 16, 25]
    assert set(sizes[4:-1]) == {25}


def test_the_layout_reports_its_progress_chunk_by_chunk(monkeypatch: pytest.MonkeyPatch) -> None:
    """Laying out a large corpus takes a while before the first E-step: a cancel stops it."""
    monkeypatch.setattr(em, "LAYOUT_CELLS", 50)
    stages: list[str] = []

    class Cancelled(Exception):
        pass

    def progress(fraction: float, stage: str) -> None:
        stages.append(stage)
        if len(stages) == 3:
            raise Cancelled

    with pytest.raises(Cancelled):
        EMAligner(EMOptions()).fit(_corpus(np.random.default_rng(6)), progress=progress)
    assert all(stage.startswith("laying out 60 pairs, direction 1 of 2: ") for stage in stages)
