"""The fine-tuned link scorer: hand-written gradients against finite differences, the pair
input, and training on real weights."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from scoring.errors import FormatError, InputError, ModelError, OptionsError
from scoring.neural import encoder, finetune

F64 = np.ndarray


@pytest.fixture(scope="module")
def model() -> encoder.Encoder:
    return encoder.load()


def _numeric_gradient(loss: Callable[[], float], array: F64, step: float = 1e-6) -> F64:
    out = np.zeros_like(array)
    for index in np.ndindex(array.shape):
        kept = array[index]
        array[index] = kept + step
        above = loss()
        array[index] = kept - step
        below = loss()
        array[index] = kept
        out[index] = (above - below) / (2 * step)
    return out


def _random_layer(rng: np.random.Generator, hidden: int, inner: int) -> finetune.Params:
    def normal(*shape: int, scale: float = 0.5) -> F64:
        return scale * rng.standard_normal(shape)

    return {
        "qkv": normal(hidden, 3 * hidden),
        "qkv_bias": normal(3 * hidden, scale=0.1),
        "out": normal(hidden, hidden),
        "out_bias": normal(hidden, scale=0.1),
        "norm1_gain": 1 + normal(hidden, scale=0.1),
        "norm1_bias": normal(hidden, scale=0.1),
        "up": normal(hidden, inner),
        "up_bias": normal(inner, scale=0.1),
        "down": normal(inner, hidden),
        "down_bias": normal(hidden, scale=0.1),
        "norm2_gain": 1 + normal(hidden, scale=0.1),
        "norm2_bias": normal(hidden, scale=0.1),
    }


def test_the_layer_backward_pass_matches_finite_differences() -> None:
    rng = np.random.default_rng(0)
    params = _random_layer(rng, hidden=8, inner=16)
    x = rng.standard_normal((5, 8))
    direction = rng.standard_normal((5, 8))

    def loss() -> float:
        return float((finetune.layer_forward(params, x, 2, 1e-12)[0] * direction).sum())

    _, cache = finetune.layer_forward(params, x, 2, 1e-12)
    dx, grads = finetune.layer_backward(params, cache, direction, 2)
    np.testing.assert_allclose(dx, _numeric_gradient(loss, x), atol=1e-7)
    assert set(grads) == set(finetune.LAYER_KEYS)
    for name in finetune.LAYER_KEYS:
        np.testing.assert_allclose(
            grads[name], _numeric_gradient(loss, params[name]), atol=1e-7, err_msg=name
        )


def test_the_head_and_loss_backward_pass_matches_finite_differences() -> None:
    rng = np.random.default_rng(1)
    head = {
        "head_source": rng.standard_normal((8, 4)),
        "head_target": rng.standard_normal((8, 4)),
        "head_scale": np.array([2.0]),
        "head_bias": np.array([0.3]),
    }
    top = rng.standard_normal((6, 8))
    pool_source = np.abs(rng.standard_normal((3, 6)))
    pool_target = np.abs(rng.standard_normal((2, 6)))
    labels = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    mask = np.ones((3, 2), dtype=bool)
    mask[2, 1] = False

    def loss() -> float:
        logits, _ = finetune.head_forward(head, top, pool_source, pool_target)
        return finetune.cell_loss(logits, labels, mask)[0]

    logits, cache = finetune.head_forward(head, top, pool_source, pool_target)
    _, dlogits = finetune.cell_loss(logits, labels, mask)
    assert dlogits[2, 1] == 0.0  # a masked cell adds nothing
    dtop, grads = finetune.head_backward(head, cache, dlogits, pool_source, pool_target)
    np.testing.assert_allclose(dtop, _numeric_gradient(loss, top), atol=1e-7)
    for name in finetune.HEAD_KEYS:
        np.testing.assert_allclose(
            grads[name], _numeric_gradient(loss, head[name]), atol=1e-7, err_msg=name
        )


def test_the_cell_loss_is_the_mean_cross_entropy_of_the_unmasked_cells() -> None:
    logits = np.array([[0.0, 2.0], [-1.0, 5.0]])
    labels = np.array([[1.0, 0.0], [0.0, 1.0]])
    mask = np.array([[True, True], [True, False]])
    expected = (np.log(2.0) + np.log1p(np.exp(2.0)) + np.log1p(np.exp(-1.0))) / 3
    assert finetune.cell_loss(logits, labels, mask)[0] == pytest.approx(expected)


def test_the_training_forward_pass_is_the_encoders(model: encoder.Encoder) -> None:
    ids, _ = model.tokenizer.encode_words("The clerk smiled at the visitors .".split())
    x = model.hidden_states(ids, layers=model.depth - 1)[-1]
    params = finetune.initial_params(model, 1, seed=0)
    top = model.depth - 1
    layer = {name: params[f"layer{top}.{name}"] for name in finetune.LAYER_KEYS}
    ours, _ = finetune.layer_forward(layer, x, model.heads, model.eps)
    np.testing.assert_allclose(ours, model.hidden_states(ids)[-1], atol=2e-5)


def test_a_pair_is_one_sequence_with_two_token_types(model: encoder.Encoder) -> None:
    tok = model.tokenizer
    pair = finetune.pair_input(model, ["The", "unaffable", "clerk"], ["A", "—", "clerk"])
    una = list(tok.pieces("unaffable"))
    assert len(una) == 3
    the, a, clerk = tok.pieces("the")[0], tok.pieces("a")[0], tok.pieces("clerk")[0]
    assert pair.ids == [tok.cls, the, *una, clerk, tok.sep, a, tok.pieces("—")[0], clerk, tok.sep]
    assert pair.types == [0] * 7 + [1] * 4
    assert pair.pool_source[1, 2:5].tolist() == pytest.approx([1 / 3] * 3)
    assert pair.pool_target[2].argmax() == 9


def test_words_past_the_piece_limit_get_no_score(
    model: encoder.Encoder, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(finetune, "MAX_SIDE_PIECES", 2)
    pair = finetune.pair_input(model, ["one", "two", "three"], ["one", "two"])
    assert len(pair.ids) == 1 + 3 + 3
    assert pair.mask.tolist() == [[True, True], [True, True], [False, False]]
    scorer = finetune.LinkScorer(model, finetune.initial_params(model, 1, seed=0))
    logits = scorer.logits(["one", "two", "three"], ["one", "two"])
    assert np.isnan(logits[2]).all() and not np.isnan(logits[:2]).any()


PAIRS = [
    ("the cat sat on the mat".split(), "a cat was sitting on a rug".split()),
    ("he bought a car yesterday".split(), "yesterday he purchased an automobile".split()),
    ("the man quickly ran home".split(), "the guy hurried home".split()),
    ("stocks fell sharply on monday".split(), "shares dropped steeply monday".split()),
]


def _gold(source: list[str], target: list[str]) -> np.ndarray:
    synonyms = {
        ("cat", "cat"), ("sat", "sitting"), ("mat", "rug"), ("on", "on"), ("he", "he"),
        ("bought", "purchased"), ("car", "automobile"), ("yesterday", "yesterday"),
        ("man", "guy"), ("ran", "hurried"), ("home", "home"), ("the", "the"),
        ("stocks", "shares"), ("fell", "dropped"), ("sharply", "steeply"), ("monday", "monday"),
    }  # fmt: skip
    return np.array([[float((a, b) in synonyms) for b in target] for a in source])


def test_fine_tuning_lowers_the_loss_and_fits_the_training_links(model: encoder.Encoder) -> None:
    labels = [_gold(s, t) for s, t in PAIRS]
    losses: list[float] = []
    scorer = finetune.fine_tune(
        model, PAIRS, labels, layers=1, epochs=30, batch=2, learning_rate=3e-4,
        head_learning_rate=1e-2, progress=lambda step, steps, loss: losses.append(loss),
    )  # fmt: skip
    assert len(losses) == 60
    assert np.mean(losses[-4:]) < 0.5 * np.mean(losses[:4])
    for (source, target), gold in zip(PAIRS, labels, strict=True):
        predicted = scorer.logits(source, target) > 0
        assert (predicted == (gold > 0)).mean() > 0.95, (source, target)


def test_fine_tuning_is_deterministic_for_a_seed(model: encoder.Encoder) -> None:
    labels = [_gold(s, t) for s, t in PAIRS]
    first = finetune.fine_tune(model, PAIRS, labels, layers=1, epochs=1, batch=2, seed=3)
    second = finetune.fine_tune(model, PAIRS, labels, layers=1, epochs=1, batch=2, seed=3)
    for key, value in first.arrays().items():
        np.testing.assert_array_equal(value, second.arrays()[key], err_msg=key)


def test_fine_tuning_names_a_gold_matrix_of_the_wrong_shape(model: encoder.Encoder) -> None:
    labels = [_gold(s, t) for s, t in PAIRS]
    labels[2] = labels[2][:, :-1]
    with pytest.raises(InputError, match=r"pair 2: gold matrix of shape \(5, 3\)"):
        finetune.fine_tune(model, PAIRS, labels, layers=1)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"layers": 0}, "layers to fine-tune must be in 1..6, got 0"),
        ({"layers": 7}, "layers to fine-tune must be in 1..6, got 7"),
        ({"epochs": 0}, "epochs and batch must be at least 1"),
    ],
)
def test_fine_tuning_rejects_bad_settings(
    model: encoder.Encoder, kwargs: dict[str, Any], message: str
) -> None:
    labels = [_gold(s, t) for s, t in PAIRS]
    with pytest.raises(OptionsError, match=message):
        finetune.fine_tune(model, PAIRS, labels, **kwargs)


def test_fine_tuning_needs_pairs(model: encoder.Encoder) -> None:
    with pytest.raises(InputError, match="at least one pair"):
        finetune.fine_tune(model, [], [])


def test_a_scorer_refuses_weights_that_do_not_fit_the_encoder(model: encoder.Encoder) -> None:
    params = finetune.initial_params(model, 2, seed=0)
    del params["layer4.qkv"]
    with pytest.raises(FormatError, match=r"lack layer4\.qkv"):
        finetune.LinkScorer(model, params)
    lower = {
        k.replace("layer5.", "layer3."): v
        for k, v in finetune.initial_params(model, 1, seed=0).items()
    }
    with pytest.raises(ModelError, match=r"\[3\] are not the top layers"):
        finetune.LinkScorer(model, lower)
