"""The sentence encoder fine-tuned into a link scorer (a cross-encoder), in numpy.

The frozen encoder (:mod:`scoring.neural.encoder`) reads each sentence alone, so a word's
vector cannot
depend on the other sentence: "the" before "president" in one sentence and "the" before
"leader" in the other look no more alike than any two "the"s. The aligners that reach 92 F1 on
RTE-2 fine-tune an encoder on the alignment task itself (Lan et al. 2021 fine-tune SpanBERT).
:func:`fine_tune` does that for MiniLM, with numpy alone:

- the pair is read as one sequence, ``[CLS] source [SEP] target [SEP]`` with token types 0 and
  1 (BERT's sentence-pair input), so attention runs across the two sentences;
- the embeddings stay as trained (and any layers below the :data:`TRAINED_LAYERS` top ones;
  their output for each training pair is computed once); the layers above and a head are
  trained. On RTE-2 (5-fold) training all six layers scored 87.3 sure-link F1 alone against
  86.0 for the top three;
- a word's vector is the mean of its pieces' vectors at the last layer; the head scores a cell
  ``(i, j)`` as ``a · cos(s_i, t_j) + (s_i W_s) · (t_j W_t) / √D + b``; the loss is the binary
  cross-entropy of every cell against the gold sure links (mean over a pair's cells, then over
  the pairs of a batch);
- AdamW (Loshchilov & Hutter 2019) with a linear warm-up and decay, no dropout, a fixed seed
  for the order of the pairs: the same data gives the same model.

The backward pass is written out by hand (attention, GELU, layer norm); the tests compare it
with finite differences in float64. :class:`LinkScorer` holds the trained weights as plain
arrays (:meth:`LinkScorer.arrays`), so a saved aligner model stays numbers only.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
from scipy.special import erf

from scoring.errors import FormatError, InputError, ModelError, OptionsError
from scoring.neural.encoder import Encoder

F32 = npt.NDArray[np.float32]
#: float32 in use, float64 in the gradient tests
Array = npt.NDArray[Any]
Params = dict[str, npt.NDArray[Any]]

#: Layers fine-tuned (the top ones; the embeddings and any layers below stay frozen).
TRAINED_LAYERS = 6
#: Width of the head's projections of the word vectors.
HEAD_WIDTH = 128
#: Word pieces kept of each sentence of a pair (so ``[CLS] s [SEP] t [SEP]`` fits 512 positions).
MAX_SIDE_PIECES = 253
#: A layer's weights, by name (:meth:`LinkScorer.arrays` keys them ``layer{k}.{name}``).
LAYER_KEYS = (
    "qkv", "qkv_bias", "out", "out_bias", "norm1_gain", "norm1_bias",
    "up", "up_bias", "down", "down_bias", "norm2_gain", "norm2_bias",
)  # fmt: skip
HEAD_KEYS = ("head_source", "head_target", "head_scale", "head_bias")


# --- one transformer layer, forward with a cache and backward -----------------------------------


def _norm_forward(
    x: Array, gain: Array, bias: Array, eps: float
) -> tuple[Array, tuple[Array, Array]]:
    mean = x.mean(axis=-1, keepdims=True)
    rstd = 1.0 / np.sqrt(((x - mean) ** 2).mean(axis=-1, keepdims=True) + eps)
    xhat = (x - mean) * rstd
    return xhat * gain + bias, (xhat, rstd)


def _norm_backward(
    dy: Array, cache: tuple[Array, Array], gain: Array
) -> tuple[Array, Array, Array]:
    """Gradients of the layer norm's input, gain and bias."""
    xhat, rstd = cache
    dxhat = dy * gain
    dx = rstd * (
        dxhat
        - dxhat.mean(axis=-1, keepdims=True)
        - xhat * (dxhat * xhat).mean(axis=-1, keepdims=True)
    )
    return dx, (dy * xhat).sum(axis=0), dy.sum(axis=0)


def layer_forward(p: Params, x: Array, heads: int, eps: float) -> tuple[Array, tuple[Any, ...]]:
    """BERT's post-norm layer (as :meth:`Encoder.layer_forward`) and what its backward needs."""
    n, hidden = x.shape
    d = hidden // heads
    scale = 1.0 / math.sqrt(d)
    qkv = x @ p["qkv"] + p["qkv_bias"]
    q, k, v = (
        qkv[:, s * hidden : (s + 1) * hidden].reshape(n, heads, d).transpose(1, 0, 2)
        for s in range(3)
    )
    scores = (q @ k.transpose(0, 2, 1)) * scale
    scores -= scores.max(axis=-1, keepdims=True)
    weights = np.exp(scores)
    weights /= weights.sum(axis=-1, keepdims=True)
    context = (weights @ v).transpose(1, 0, 2).reshape(n, hidden)
    y1, norm1 = _norm_forward(
        x + context @ p["out"] + p["out_bias"], p["norm1_gain"], p["norm1_bias"], eps
    )
    up = y1 @ p["up"] + p["up_bias"]
    cdf = 0.5 * (1.0 + erf(up / math.sqrt(2.0)))
    gelu = (up * cdf).astype(x.dtype)
    y2, norm2 = _norm_forward(
        y1 + gelu @ p["down"] + p["down_bias"], p["norm2_gain"], p["norm2_bias"], eps
    )
    return y2, (x, q, k, v, weights, context, norm1, y1, up, cdf, gelu, norm2)


def layer_backward(
    p: Params, cache: tuple[Any, ...], dy: Array, heads: int
) -> tuple[Array, Params]:
    """Gradient of the layer's input and of each of its weights, given the output's."""
    x, q, k, v, weights, context, norm1, y1, up, cdf, gelu, norm2 = cache
    n, hidden = x.shape
    d = hidden // heads
    scale = 1.0 / math.sqrt(d)
    g: Params = {}
    dz2, g["norm2_gain"], g["norm2_bias"] = _norm_backward(dy, norm2, p["norm2_gain"])
    g["down"] = gelu.T @ dz2
    g["down_bias"] = dz2.sum(axis=0)
    pdf = np.exp(-0.5 * up * up) / math.sqrt(2.0 * math.pi)
    dup = ((dz2 @ p["down"].T) * (cdf + up * pdf)).astype(x.dtype)
    g["up"] = y1.T @ dup
    g["up_bias"] = dup.sum(axis=0)
    dy1 = dup @ p["up"].T + dz2
    dz1, g["norm1_gain"], g["norm1_bias"] = _norm_backward(dy1, norm1, p["norm1_gain"])
    g["out"] = context.T @ dz1
    g["out_bias"] = dz1.sum(axis=0)
    dcontext = (dz1 @ p["out"].T).reshape(n, heads, d).transpose(1, 0, 2)
    dweights = dcontext @ v.transpose(0, 2, 1)
    dv = weights.transpose(0, 2, 1) @ dcontext
    dscores = weights * (dweights - (dweights * weights).sum(axis=-1, keepdims=True)) * scale
    dq = dscores @ k
    dk = dscores.transpose(0, 2, 1) @ q
    dqkv = np.concatenate(
        [t.transpose(1, 0, 2).reshape(n, hidden) for t in (dq, dk, dv)], axis=1
    ).astype(x.dtype)
    g["qkv"] = x.T @ dqkv
    g["qkv_bias"] = dqkv.sum(axis=0)
    dx = dz1 + dqkv @ p["qkv"].T
    return dx, g


# --- the head -----------------------------------------------------------------------------------


def head_forward(
    p: Params, top: Array, pool_source: Array, pool_target: Array
) -> tuple[npt.NDArray[Any], tuple[Any, ...]]:
    """``(n, m)`` link logits from the top layer's piece vectors ``(T, H)`` and the pooling
    matrices ``(n, T)``, ``(m, T)`` that average each word's pieces: a learnt multiple of the
    two word vectors' cosine plus a bilinear term and a bias."""
    width = p["head_source"].shape[1]
    s, t = pool_source @ top, pool_target @ top
    s_norm = np.maximum(np.linalg.norm(s, axis=1, keepdims=True), 1e-6)
    t_norm = np.maximum(np.linalg.norm(t, axis=1, keepdims=True), 1e-6)
    cosine = (s / s_norm) @ (t / t_norm).T
    us, ut = s @ p["head_source"], t @ p["head_target"]
    logits = p["head_scale"][0] * cosine + (us @ ut.T) / math.sqrt(width) + p["head_bias"][0]
    return logits, (s, t, s_norm, t_norm, cosine, us, ut)


def head_backward(
    p: Params,
    cache: tuple[Any, ...],
    dlogits: npt.NDArray[Any],
    pool_source: Array,
    pool_target: Array,
) -> tuple[Array, Params]:
    """Gradient of the top layer's output and of the head's weights, given the logits'."""
    s, t, s_norm, t_norm, cosine, us, ut = cache
    root = math.sqrt(p["head_source"].shape[1])
    dus = (dlogits @ ut) / root
    dut = (dlogits.T @ us) / root
    dtype = p["head_bias"].dtype
    g: Params = {
        "head_source": s.T @ dus,
        "head_target": t.T @ dut,
        "head_scale": np.array([(dlogits * cosine).sum()], dtype=dtype),
        "head_bias": np.array([dlogits.sum()], dtype=dtype),
    }
    dcos = dlogits * p["head_scale"][0]
    ns, nt = s / s_norm, t / t_norm
    dns, dnt = dcos @ nt, dcos.T @ ns
    ds = (dns - ns * (dns * ns).sum(axis=1, keepdims=True)) / s_norm + dus @ p["head_source"].T
    dt = (dnt - nt * (dnt * nt).sum(axis=1, keepdims=True)) / t_norm + dut @ p["head_target"].T
    dtop = pool_source.T @ ds + pool_target.T @ dt
    return dtop.astype(s.dtype), g


def cell_loss(
    logits: npt.NDArray[Any], labels: npt.NDArray[Any], mask: npt.NDArray[np.bool_]
) -> tuple[float, npt.NDArray[Any]]:
    """Mean binary cross-entropy over the ``mask``ed cells and its gradient in the logits."""
    count = max(int(mask.sum()), 1)
    z = np.where(mask, logits, 0.0)
    loss = np.where(mask, np.logaddexp(0.0, z) - labels * z, 0.0).sum() / count
    grad = np.where(mask, 1.0 / (1.0 + np.exp(-z)) - labels, 0.0) / count
    return float(loss), grad.astype(logits.dtype)


# --- pairs as one piece sequence ----------------------------------------------------------------


@dataclass(frozen=True)
class PairInput:
    """A pair as ``[CLS] source [SEP] target [SEP]``: piece ids, token types, and the matrices
    that average each word's pieces (a zero row for a word without pieces)."""

    ids: list[int]
    types: list[int]
    pool_source: F32
    pool_target: F32

    @property
    def mask(self) -> npt.NDArray[np.bool_]:
        """Cells whose two words both have pieces."""
        out: npt.NDArray[np.bool_] = (self.pool_source.sum(axis=1) > 0)[:, None] & (
            self.pool_target.sum(axis=1) > 0
        )
        return out


def pair_input(model: Encoder, source: Sequence[str], target: Sequence[str]) -> PairInput:
    """The piece sequence of a pair; each side keeps at most :data:`MAX_SIDE_PIECES` pieces
    (later words get a zero pooling row, so no score)."""
    tok = model.tokenizer
    ids, types = [tok.cls], [0]
    sides = []
    for kind, words in enumerate((source, target)):
        pieces: list[int] = []
        owners: list[int] = []
        for k, word in enumerate(words):
            for basic in tok.basic(word):
                found = tok.pieces(basic)
                pieces += found
                owners += [k] * len(found)
        pieces, owners = pieces[:MAX_SIDE_PIECES], owners[:MAX_SIDE_PIECES]
        sides.append((len(ids), owners, len(words)))
        ids += [*pieces, tok.sep]
        types += [kind] * (len(pieces) + 1)
    pools = []
    for start, owners, count in sides:
        pool = np.zeros((count, len(ids)), dtype=np.float32)
        pool[owners, np.arange(start, start + len(owners))] = 1.0
        pools.append(pool / np.maximum(pool.sum(axis=1, keepdims=True), 1.0))
    return PairInput(ids, types, pools[0], pools[1])


# --- the scorer and its training ----------------------------------------------------------------


class LinkScorer:
    """A fine-tuned cross-encoder: ``p(i, j)`` that source word ``i`` and target word ``j`` are
    a sure link. ``params`` holds the trained layers (``layer{k}.{name}``) and the head."""

    def __init__(self, model: Encoder, params: Params) -> None:
        self.model = model
        self.params = params
        self.trained_layers = sorted(
            {int(key.split(".")[0][5:]) for key in params if key.startswith("layer")}
        )
        expected = list(range(model.depth - len(self.trained_layers), model.depth))
        if not self.trained_layers or self.trained_layers != expected:
            raise ModelError(
                f"the fine-tuned layers {self.trained_layers} are not the top layers of a "
                f"{model.depth}-layer encoder"
            )
        missing = [
            key
            for key in (*HEAD_KEYS, *(f"layer{k}.{n}" for k in expected for n in LAYER_KEYS))
            if key not in params
        ]
        if missing:
            raise FormatError(f"the fine-tuned weights lack {', '.join(missing[:3])}")
        if params["head_source"].shape[0] != model.hidden:
            raise ModelError(
                f"the fine-tuned head reads {params['head_source'].shape[0]}-wide vectors, "
                f"the encoder gives {model.hidden}"
            )

    @property
    def frozen_layers(self) -> int:
        return self.model.depth - len(self.trained_layers)

    def layer(self, k: int) -> Params:
        return {name: self.params[f"layer{k}.{name}"] for name in LAYER_KEYS}

    def base(self, pair: PairInput) -> F32:
        """Output of the frozen part (embeddings and lower layers) for a pair."""
        states = self.model.hidden_states(pair.ids, pair.types, layers=self.frozen_layers)
        out: F32 = states[-1]
        return out

    def logits(self, source: Sequence[str], target: Sequence[str]) -> npt.NDArray[np.float64]:
        """``(n, m)`` link logits; NaN where a word has no word piece."""
        pair = pair_input(self.model, source, target)
        x = self.base(pair)
        for k in self.trained_layers:
            x, _ = layer_forward(self.layer(k), x, self.model.heads, self.model.eps)
        logits, _ = head_forward(self.params, x, pair.pool_source, pair.pool_target)
        return np.where(pair.mask, logits, np.nan).astype(np.float64)

    def arrays(self) -> Params:
        return dict(self.params)


def initial_params(model: Encoder, layers: int, seed: int) -> Params:
    """The pretrained top ``layers`` layers and a head that starts from the cosine alone (a small
    random bilinear term; even odds at a cosine of 0.7)."""
    if not 1 <= layers <= model.depth:
        raise OptionsError(f"layers to fine-tune must be in 1..{model.depth}, got {layers}")
    params: Params = {}
    for k in range(model.depth - layers, model.depth):
        w = model.layers[k]
        values = (
            w.qkv, w.qkv_bias, w.out, w.out_bias, *w.norm1,
            w.up, w.up_bias, w.down, w.down_bias, *w.norm2,
        )  # fmt: skip
        for name, value in zip(LAYER_KEYS, values, strict=True):
            params[f"layer{k}.{name}"] = np.array(value, dtype=np.float32)
    rng = np.random.default_rng(seed)
    for side in ("head_source", "head_target"):
        params[side] = (0.02 * rng.standard_normal((model.hidden, HEAD_WIDTH))).astype(np.float32)
    # a cosine of 0.7 starts at even odds
    params["head_scale"] = np.array([10.0], dtype=np.float32)
    params["head_bias"] = np.array([-7.0], dtype=np.float32)
    return params


@dataclass
class _Example:
    base: F32
    pair: PairInput
    labels: F32


def fine_tune(
    model: Encoder,
    pairs: Sequence[tuple[Sequence[str], Sequence[str]]],
    labels: Sequence[npt.NDArray[Any]],
    *,
    layers: int = TRAINED_LAYERS,
    epochs: int = 5,
    batch: int = 8,
    learning_rate: float = 1e-4,
    head_learning_rate: float = 1e-3,
    warmup: float = 0.1,
    weight_decay: float = 0.01,
    seed: int = 0,
    progress: Callable[[int, int, float], None] | None = None,
) -> LinkScorer:
    """Fine-tune the top ``layers`` layers and a head on pairs and their ``(n, m)`` gold sure
    matrices (see the module docstring); ``progress(step, steps, mean loss of the step)``."""
    if len(pairs) != len(labels):
        raise InputError(f"{len(labels)} gold matrices for {len(pairs)} pairs")
    if not pairs:
        raise InputError("fine-tuning needs at least one pair with a gold alignment")
    if epochs < 1 or batch < 1:
        raise OptionsError(f"epochs and batch must be at least 1, got {epochs} and {batch}")
    params = initial_params(model, layers, seed)
    scorer = LinkScorer(model, params)
    examples = []
    for k, ((source, target), gold) in enumerate(zip(pairs, labels, strict=True)):
        if np.shape(gold) != (len(source), len(target)):
            raise InputError(
                f"pair {k}: gold matrix of shape {np.shape(gold)} for "
                f"{len(source)} × {len(target)} words"
            )
        pair = pair_input(model, source, target)
        examples.append(_Example(scorer.base(pair), pair, np.asarray(gold, dtype=np.float32)))
    rng = np.random.default_rng(seed)
    per_epoch = math.ceil(len(examples) / batch)
    steps = per_epoch * epochs
    warm = max(1, int(warmup * steps))
    first = {key: np.zeros_like(v) for key, v in params.items()}
    second = {key: np.zeros_like(v) for key, v in params.items()}
    step = 0
    for _ in range(epochs):
        order = rng.permutation(len(examples))
        for start in range(0, len(order), batch):
            chosen = [examples[k] for k in order[start : start + batch]]
            grads = {key: np.zeros_like(v) for key, v in params.items()}
            total = 0.0
            for example in chosen:
                total += _accumulate(scorer, example, grads, 1.0 / len(chosen))
            step += 1
            factor = step / warm if step <= warm else max(0.0, (steps - step) / (steps - warm))
            _adamw(
                params,
                grads,
                first,
                second,
                step,
                factor,
                learning_rate,
                head_learning_rate,
                weight_decay,
            )
            if progress is not None:
                progress(step, steps, total / len(chosen))
    return scorer


def _accumulate(scorer: LinkScorer, example: _Example, grads: Params, weight: float) -> float:
    """Add ``weight`` × the gradient of one pair's loss to ``grads``; return the loss."""
    model = scorer.model
    x = example.base
    caches = []
    for k in scorer.trained_layers:
        x, cache = layer_forward(scorer.layer(k), x, model.heads, model.eps)
        caches.append(cache)
    pair = example.pair
    logits, head_cache = head_forward(scorer.params, x, pair.pool_source, pair.pool_target)
    loss, dlogits = cell_loss(logits, example.labels, pair.mask)
    dx, g = head_backward(
        scorer.params, head_cache, dlogits * weight, pair.pool_source, pair.pool_target
    )
    for key, value in g.items():
        grads[key] += value
    for k, cache in zip(reversed(scorer.trained_layers), reversed(caches), strict=True):
        dx, g = layer_backward(scorer.layer(k), cache, dx, model.heads)
        for name, value in g.items():
            grads[f"layer{k}.{name}"] += value
    return loss


def _adamw(
    params: Params,
    grads: Params,
    first: Params,
    second: Params,
    step: int,
    factor: float,
    learning_rate: float,
    head_learning_rate: float,
    weight_decay: float,
    beta1: float = 0.9,
    beta2: float = 0.999,
    eps: float = 1e-8,
) -> None:
    """One AdamW step (bias-corrected; decay on matrices only, as BERT's fine-tuning)."""
    c1 = 1.0 - beta1**step
    c2 = 1.0 - beta2**step
    for key, value in params.items():
        rate = factor * (head_learning_rate if key.startswith("head") else learning_rate)
        g = grads[key]
        first[key] = beta1 * first[key] + (1.0 - beta1) * g
        second[key] = beta2 * second[key] + (1.0 - beta2) * g * g
        if value.ndim == 2:
            value -= rate * weight_decay * value
        value -= (rate * (first[key] / c1) / (np.sqrt(second[key] / c2) + eps)).astype(value.dtype)
