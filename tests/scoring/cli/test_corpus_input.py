"""``scoring train`` and ``scoring score`` read a JSONL corpus, the web app's export, as the web
app trains on it: each pair's own tokens, its gold score or label, the pairs of one split."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scoring.cli import main
from scoring.scorers.base import load_scorer

_PAIRS = [
    (["the", "cat", "sat", "."], ["a", "cat", "sat", "down", "."], 4.0),
    (["he", "left", "early"], ["she", "stayed", "late"], 1.0),
    (["it", "rained", "all", "day"], ["rain", "fell", "all", "day"], 3.5),
    (["prices", "rose"], ["prices", "went", "up"], 4.5),
]


def _corpus(path: Path) -> Path:
    lines = []
    for number, (source, target, score) in enumerate(_PAIRS * 2):
        split = "train" if number < 6 else "test"
        lines.append(
            json.dumps(
                {
                    "id": f"p{number}",
                    "source_tokens": source,
                    "target_tokens": target,
                    "gold_score": score + number / 10 if split == "train" else score,
                    "split": split,
                }
            )
        )
    lines.append(json.dumps({"id": "unscored", "source_tokens": ["x"], "target_tokens": ["y"],
                             "split": "train"}))  # fmt: skip
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_a_jsonl_corpus_trains_on_its_splits_pairs_that_have_the_target(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    corpus = _corpus(tmp_path / "corpus.jsonl")
    model = tmp_path / "m.json"
    assert main(["train", "--kind", "perp", "--input", str(corpus), "--split", "train",
                 "--test", str(corpus), "--test-split", "test", "--output", str(model),
                 "--option", "epochs=3", "--json"]) == 0  # fmt: skip
    report = json.loads(capsys.readouterr().out)
    assert report["train"]["n"] == 6, "the train split's pairs with a gold score"
    assert report["test"]["n"] == 2
    # the pairs' own tokens, as a TSV of those tokens gives them
    tsv = tmp_path / "test.tsv"
    tsv.write_text("".join(f"{' '.join(s)}\t{' '.join(t)}\n" for s, t, _ in _PAIRS[2:]))
    assert main(["score", "--model", str(model), "--input", str(corpus), "--split", "test"]) == 0
    from_corpus = capsys.readouterr().out
    assert main(["score", "--model", str(model), "--input", str(tsv)]) == 0
    assert from_corpus == capsys.readouterr().out
    # scoring takes every pair of the split, with a gold score or without
    assert main(["score", "--model", str(model), "--input", str(corpus), "--split", "train"]) == 0
    assert len(capsys.readouterr().out.split()) == 7
    scorer = load_scorer(model)
    expected = scorer.predict([(s, t) for s, t, _ in _PAIRS[2:]])
    assert [float(v) for v in from_corpus.split()] == [float(v) for v in expected]


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["--split", "dev"], "corpus.jsonl: field '--split': no pair of split 'dev'; the file's "
                             "splits: test, train"),
        (["--split", "train", "--targets", "{tsv}"], "test.tsv: field '--targets': a .jsonl "
                                                     "corpus holds its pairs' targets"),
        (["--task", "classification", "--kind", "mt"], "corpus.jsonl: field '--input': training "
                                                       "needs targets: no pair has a gold label"),
        (["--test-split", "test"], "field '--test': --test-split chooses pairs of --test"),
    ],
)  # fmt: skip
def test_a_jsonl_corpus_without_what_training_needs_is_refused_naming_the_option(
    args: list[str], expected: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    corpus = _corpus(tmp_path / "corpus.jsonl")
    tsv = tmp_path / "test.tsv"
    tsv.write_text("1\n")
    model = tmp_path / "m.json"
    kind = [] if "--kind" in args else ["--kind", "perp"]
    given = [a.replace("{tsv}", str(tsv)) for a in args]
    assert main(["train", *kind, "--input", str(corpus), "--output", str(model), *given]) == 2
    assert expected in capsys.readouterr().err
    assert not model.exists()


def test_a_split_of_a_tsv_file_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tsv = tmp_path / "pairs.tsv"
    tsv.write_text("the cat sat\ta cat sat\t4\nhe left\tshe stayed\t1\n" * 3)
    code = main(["train", "--kind", "perp", "--input", str(tsv), "--split", "train",
                 "--output", str(tmp_path / "m.json")])  # fmt: skip
    assert code == 2
    assert "pairs.tsv: field '--split': a split chooses pairs of a .jsonl corpus" in (
        capsys.readouterr().err
    )
