"""``python -m scoring align`` and ``python -m scoring evaluate-aligner``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scoring.aligners import get_aligner
from scoring.aligners.evaluation import evaluate_records
from scoring.alignment.links import Alignment
from scoring.cli import main
from scoring.formats import read_corpus


def _write(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    source = _write(tmp_path / "s.txt", ["The cat sat .", "a dog barked loudly"])
    target = _write(tmp_path / "t.txt", ["the cat was sitting .", "the dog barked"])
    return source, target


def test_align_writes_one_pharaoh_line_per_pair(files: tuple[Path, Path], tmp_path: Path) -> None:
    source, target = files
    output = tmp_path / "a.txt"
    confidence = tmp_path / "c.txt"
    code = main(
        [
            "align", "--aligner", "identity", "--source", str(source), "--target", str(target),
            "--output", str(output), "--confidence", str(confidence),
        ]
    )  # fmt: skip
    assert code == 0
    lines = output.read_text().splitlines()
    assert lines == ["0-0 1-1 3-4", "1-1 2-2"]
    assert Alignment.from_pharaoh(lines[0], 4, 5).sure == {(0, 0), (1, 1), (3, 4)}
    assert confidence.read_text().splitlines()[1] == "1-1:0.9500 2-2:0.9500"


def test_align_trains_em_saves_the_model_and_reuses_it(
    files: tuple[Path, Path], tmp_path: Path
) -> None:
    source, target = files
    first, second, model = tmp_path / "a1.txt", tmp_path / "a2.txt", tmp_path / "em.npz"
    common = ["--source", str(source), "--target", str(target)]
    args = ["align", "--aligner", "em", *common, "--option", "hmm_iterations=2"]
    assert main([*args, "--output", str(first), "--save-model", str(model)]) == 0
    assert model.is_file()
    reuse = ["align", "--aligner", "em", "--model", str(model), *common, "--output", str(second)]
    assert main(reuse) == 0
    assert first.read_text() == second.read_text()


def test_align_trains_the_supervised_aligner_on_the_gold_of_the_first_pairs(
    shared_data: Path, tmp_path: Path
) -> None:
    folder = shared_data / "edinburgh"
    records = list(
        read_corpus(
            "jacana", [folder / "gold.train.sure.json", folder / "gold.train.sure+poss.json"]
        )
    )[:30]
    source = _write(tmp_path / "s.txt", [" ".join(r.source_tokens) for r in records])
    target = _write(tmp_path / "t.txt", [" ".join(r.target_tokens) for r in records])
    gold = _write(tmp_path / "g.txt", [r.gold_alignment.to_pharaoh() for r in records[:20]])  # type: ignore[union-attr]
    common = ["--source", str(source), "--target", str(target)]
    fast = ["--option", "min_samples_leaf=10", "--option", "encoder=false"]
    output, model = tmp_path / "a.txt", tmp_path / "m.json"
    args = ["align", "--aligner", "supervised", *common, *fast, "--gold", str(gold)]
    assert main([*args, "--output", str(output), "--save-model", str(model)]) == 0
    lines = output.read_text().splitlines()
    assert len(lines) == 30 and all(lines), "every pair of the 30 gets links"
    again = tmp_path / "b.txt"
    reuse = ["align", "--aligner", "supervised", "--model", str(model), *common]
    assert main([*reuse, "--output", str(again)]) == 0
    assert again.read_text() == output.read_text()


def test_gold_is_refused_for_an_aligner_without_it_and_beyond_the_input(
    files: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source, target = files
    common = ["--source", str(source), "--target", str(target), "--output", str(tmp_path / "a")]
    gold = _write(tmp_path / "g.txt", ["0-0", "1-1", "0-0"])
    assert main(["align", "--aligner", "em", *common, "--gold", str(gold)]) == 2
    assert "the 'em' aligner does not learn from gold" in capsys.readouterr().err
    assert main(["align", "--aligner", "supervised", *common]) == 2
    assert "learns from gold alignments: give the gold of the first pairs with --gold" in (
        capsys.readouterr().err
    )
    assert main(["align", "--aligner", "supervised", *common, "--gold", str(gold)]) == 2
    assert (
        f"{gold}:3: field '--gold': 3 gold alignments for 2 input pairs" in capsys.readouterr().err
    )
    assert not (tmp_path / "a").exists()


def test_files_out_of_step_are_an_error_naming_the_file(
    files: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source, _ = files
    target = _write(tmp_path / "short.txt", ["the cat"])
    output = tmp_path / "a.txt"
    args = ["align", "--aligner", "identity", "--source", str(source)]
    code = main([*args, "--target", str(target), "--output", str(output)])
    assert code == 2
    err = capsys.readouterr().err
    assert "short.txt:2: field '--target': the file ends after 1 line but" in err
    assert not output.exists()


def test_an_empty_line_is_an_error_naming_file_line_and_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = _write(tmp_path / "s.txt", ["a b", ""])
    target = _write(tmp_path / "t.txt", ["a b", "c"])
    args = ["align", "--aligner", "identity", "--source", str(source), "--target", str(target)]
    assert main([*args, "--output", str(tmp_path / "a.txt")]) == 2
    assert "s.txt:2: field '--source': empty sentence" in capsys.readouterr().err


def test_a_500_token_sentence_is_an_error_naming_file_line_and_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = _write(tmp_path / "s.txt", ["a b", "c"])
    target = _write(tmp_path / "t.txt", ["a b", " ".join(["w"] * 500)])
    args = ["align", "--aligner", "lexical", "--source", str(source), "--target", str(target)]
    assert main([*args, "--output", str(tmp_path / "a.txt")]) == 2
    err = capsys.readouterr().err
    assert "t.txt:2: field '--target': 500 tokens" in err and "max_length=250" in err


def test_an_unknown_aligner_is_an_error_listing_the_known_ones(
    files: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source, target = files
    args = ["align", "--aligner", "giza", "--source", str(source), "--target", str(target)]
    assert main([*args, "--output", str(tmp_path / "a.txt")]) == 2
    err = capsys.readouterr().err
    assert "unknown aligner 'giza'" in err and "em, identity, lexical" in err


def test_evaluate_aligner_on_edinburgh_matches_the_library(
    shared_data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    gold = [
        shared_data / "edinburgh" / "gold.train.sure.json",
        shared_data / "edinburgh" / "gold.train.sure+poss.json",
    ]
    args = ["evaluate-aligner", "--aligner", "identity", "--gold-format", "jacana"]
    assert main([*args, *map(str, gold), "--no-phrases", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    direct = evaluate_records(
        lambda: get_aligner("identity"), list(read_corpus("jacana", gold)), phrases=False
    )
    assert report["pairs"] == 714
    got = report["references"]["gold"]
    want = direct["references"]["gold"]
    for key in ("literature", "literature_sure_only", "non_identical", "och_ney"):
        assert got[key]["f1"] == pytest.approx(want[key]["f1"])


def test_evaluate_aligner_reads_multimwa_gold_as_it_reads_the_same_corpus_in_jacana(
    shared_data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    jacana = [
        str(shared_data / "edinburgh" / "gold.train.sure.json"),
        str(shared_data / "edinburgh" / "gold.train.sure+poss.json"),
    ]
    multimwa = tmp_path / "edinburgh.tsv"
    convert = ["convert", "--from", "jacana", "--to", "multimwa", *jacana, "--output"]
    assert main([*convert, str(multimwa)]) == 0
    capsys.readouterr()
    reports = []
    for form, files in (("jacana", jacana), ("multimwa", [str(multimwa)])):
        args = ["evaluate-aligner", "--aligner", "identity", "--gold-format", form, *files]
        assert main([*args, "--no-phrases", "--json"]) == 0
        reports.append(json.loads(capsys.readouterr().out)["references"]["gold"])
    assert reports[0] == reports[1]


def test_evaluate_aligner_on_rte2_scores_each_annotator_and_the_majority(
    shared_data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    gold = [str(shared_data / "rte2-alignments" / f"RTE2_dev_{x}.align.txt") for x in "ABC"]
    args = ["evaluate-aligner", "--aligner", "identity", "--gold-format", "rte2", *gold]
    assert main([*args, "--no-phrases"]) == 0
    out = capsys.readouterr().out
    for name in ("against A", "against B", "against C", "against majority"):
        assert name in out
    assert out.count("literature metric, all predicted links") == 4


def test_evaluate_aligner_refuses_a_single_fold(
    shared_data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    gold = str(shared_data / "edinburgh" / "gold.train.sure.json")
    args = ["evaluate-aligner", "--aligner", "em", "--gold-format", "jacana", gold]
    assert main([*args, "--folds", "1"]) == 2
    assert "--folds must be at least 2" in capsys.readouterr().err
