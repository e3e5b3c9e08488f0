"""The command line on the inputs people really give it: a folder for a file, a zip of the web
app's export, a blank line, a misspelt annotator. Each is one line naming the file (and line),
exit status 2, no traceback and no output file."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from scoring import formats, resources
from scoring.aligners import get_aligner
from scoring.cli import main
from scoring.cli.align import read_gold
from tests.paths import ROOT


def _pharaoh(folder: Path, alignment: str = "0-0 1?1\n") -> Path:
    folder.mkdir()
    (folder / "source.txt").write_text("a b\n")
    (folder / "target.txt").write_text("c d\n")
    (folder / "alignment.txt").write_text(alignment)
    return folder


def _jsonl(path: Path, **fields: object) -> Path:
    record = {"id": "p1", "source_tokens": ["a", "b"], "target_tokens": ["c", "d"], **fields}
    path.write_text(json.dumps(record) + "\n", encoding="utf-8")
    return path


def _error(capsys: pytest.CaptureFixture[str]) -> str:
    return capsys.readouterr().err


def test_convert_to_an_existing_folder_is_an_error_not_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = _pharaoh(tmp_path / "in")
    (tmp_path / "out").mkdir()
    code = main(["convert", "--from", "pharaoh", "--to", "jsonl", str(source),
                 "--output", str(tmp_path / "out")])  # fmt: skip
    assert code == 2
    assert _error(capsys) == (
        f"error: {tmp_path / 'out'}: field '--output': the output path is a directory; the "
        "jsonl format writes one file: give its name\n"
    )
    assert list((tmp_path / "out").iterdir()) == []
    assert not list(tmp_path.glob(".*partial"))


@pytest.mark.parametrize("fmt", ["multimwa", "jacana", "pharaoh"])
def test_a_zip_of_an_export_says_unzip_it(
    fmt: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    archive = tmp_path / "sample-all.zip"
    with zipfile.ZipFile(archive, "w") as handle:
        handle.writestr("gold.tsv", "p1\ta b\tN/A\tc d\tN/A\t1\t1\t0-0\t\n")
    code = main(["convert", "--from", fmt, "--to", "jsonl", str(archive),
                 "--output", str(tmp_path / "o.jsonl")])  # fmt: skip
    assert code == 2
    assert "this is a zip archive" in _error(capsys)
    assert not (tmp_path / "o.jsonl").exists()


@pytest.mark.parametrize("fmt", ["multimwa", "jsonl"])
def test_a_zip_cut_short_says_it_is_damaged_not_unzip_it(
    fmt: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    archive = tmp_path / "sample-all.zip"
    with zipfile.ZipFile(archive, "w") as handle:
        handle.writestr("gold.tsv", "p1\ta b\tN/A\tc d\tN/A\t1\t1\t0-0\t\n" * 20)
    archive.write_bytes(archive.read_bytes()[:-30])  # its directory at the end is gone
    code = main(["convert", "--from", fmt, "--to", "jsonl", str(archive),
                 "--output", str(tmp_path / "o.jsonl")])  # fmt: skip
    assert code == 2
    error = _error(capsys)
    assert "cannot be opened as one: it is cut short or damaged" in error, error
    assert "unzip it" not in error
    assert not (tmp_path / "o.jsonl").exists()


def test_a_chosen_alignment_writes_only_the_pairs_that_have_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    gold = {"sure": [[0, 0]], "possible": []}
    corpus = tmp_path / "c.jsonl"
    lines = [
        {"id": "p1", "source_tokens": ["a"], "target_tokens": ["b"], "gold_alignment": gold},
        {"id": "p2", "source_tokens": ["a"], "target_tokens": ["b"]},
    ]
    corpus.write_text("".join(json.dumps(line) + "\n" for line in lines))
    out = tmp_path / "gold.tsv"
    assert main(["convert", "--from", "jsonl", "--to", "multimwa", "--gold", str(corpus),
                 "--output", str(out)]) == 0  # fmt: skip
    assert "converted 1 pairs" in capsys.readouterr().err
    assert out.read_text().splitlines() == ["p1\ta\tN/A\tb\tN/A\t1\t1\t0-0\t"]


def test_an_annotator_nobody_is_named_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = _pharaoh(tmp_path / "in")
    out = tmp_path / "o.tsv"
    code = main(["convert", "--from", "pharaoh", "--to", "multimwa", str(source),
                 "--as-annotator", "alice", "--annotator", "Alice",
                 "--output", str(out)])  # fmt: skip
    assert code == 2
    error = _error(capsys)
    assert "annotator 'Alice'" in error and "submitted alignments: alice" in error
    assert not out.exists()


def test_several_annotators_without_a_choice_is_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    links = {"sure": [[0, 0]], "possible": [], "status": "submitted"}
    corpus = _jsonl(tmp_path / "c.jsonl", annotations={"A": links, "B": links})
    code = main(["convert", "--from", "jsonl", "--to", "pharaoh", str(corpus),
                 "--output", str(tmp_path / "ph")])  # fmt: skip
    assert code == 2
    assert "2 annotators (A, B)" in _error(capsys)
    assert not (tmp_path / "ph" / "alignment.txt").exists()


def test_phrases_on_an_empty_file_is_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    empty = tmp_path / "e.txt"
    empty.write_text("")
    code = main(["phrases", "--source", str(empty), "--target", str(empty),
                 "--alignment", str(empty)])  # fmt: skip
    assert code == 2
    assert "field '--source': the file holds no sentence" in _error(capsys)


@pytest.mark.parametrize("command", ["phrases", "compare"])
def test_an_empty_line_between_sentences_is_refused_naming_its_line(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "s.txt"
    source.write_text("a b\n\nc d\n")
    target = tmp_path / "t.txt"
    target.write_text("a b\nx\nc d\n")
    links = tmp_path / "a.txt"
    links.write_text("0-0\n\n0-0\n")
    files = ["--source", str(source), "--target", str(target)]
    more = (
        ["--alignment", str(links)]
        if command == "phrases"
        else ["--test", str(links), "--reference", str(links)]
    )
    assert main([command, *files, *more]) == 2
    assert "s.txt:2: field '--source': empty sentence" in _error(capsys)


@pytest.mark.parametrize("command", ["phrases", "compare", "score"])
def test_a_sentence_longer_than_an_aligner_aligns_is_refused_naming_its_line(
    command: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    long = " ".join(f"w{i}" for i in range(100_000))
    source, target, links = tmp_path / "s.txt", tmp_path / "t.txt", tmp_path / "a.txt"
    source.write_text(f"a b\n{long}\n")
    target.write_text("a b\nc d\n")
    links.write_text("0-0\n\n")
    pairs = tmp_path / "pairs.tsv"
    pairs.write_text(f"a b\tc d\n{long}\tc d\n")
    model = tmp_path / "m.json"
    model.write_text("{}")
    argv = {
        "phrases": ["--source", str(source), "--target", str(target), "--alignment", str(links)],
        "compare": ["--source", str(source), "--target", str(target), "--test", str(links),
                    "--reference", str(links)],
        "score": ["--model", str(model), "--input", str(pairs)],
    }[command]  # fmt: skip
    monkeypatch.setattr("scoring.cli.scorers.load_scorer", lambda path: None)  # read first
    code = main([command, *argv])
    assert code == 2
    where = (
        f"{pairs}:2: field 'sentence 1'" if command == "score" else f"{source}:2: field '--source'"
    )
    assert _error(capsys) == (
        f"error: {where}: the sentence has 100,000 tokens; at most 1,000 are accepted\n"
    )


def test_align_to_a_folder_is_an_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = _pharaoh(tmp_path / "in")
    code = main(["align", "--aligner", "identity", "--source", str(source / "source.txt"),
                 "--target", str(source / "target.txt"), "--output", str(source)])  # fmt: skip
    assert code == 2
    assert "the output path is a directory" in _error(capsys)


def test_score_refuses_a_blank_line_between_pairs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pairs = tmp_path / "train.tsv"
    pairs.write_text("the cat sat\ta cat sat\t4\nhe left\tshe stayed\t1\n" * 3)
    model = tmp_path / "m.json"
    assert main(["train", "--kind", "perp", "--input", str(pairs), "--output", str(model),
                 "--option", "epochs=2"]) == 0  # fmt: skip
    capsys.readouterr()
    test = tmp_path / "test.tsv"
    test.write_text("the cat sat\ta cat sat\n\nhe left\tshe stayed\n\n\n")
    assert main(["score", "--model", str(model), "--input", str(test)]) == 2
    assert f"{test}:2: field '--input': the line is blank" in _error(capsys)
    test.write_text("the cat sat\ta cat sat\nhe left\tshe stayed\n\n\n")  # blank end: fine
    assert main(["score", "--model", str(model), "--input", str(test)]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 2


@pytest.mark.parametrize(
    ("damage", "where"),
    [
        (lambda d: d.update(kind="pfsm"), "field 'format': expected 'scoring.pfsm'"),
        (lambda d: d["model"].update(weights=d["model"]["weights"][:5]), "field 'weights'"),
        (lambda d: d["model"].update(weights=["x"] * 36), "field 'model': malformed PERP model"),
        (lambda d: d["model"].pop("features"), "field 'model': malformed PERP model"),
        (lambda d: d.update(task="classification"), "field 'task': the perp scorer does"),
        (lambda d: d["options"].update(epochs="many"), "field 'options': option 'epochs'"),
    ],
)
def test_a_damaged_scorer_model_is_refused_naming_its_file(
    damage: Any, where: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pairs = tmp_path / "train.tsv"
    pairs.write_text("the cat sat\ta cat sat\t4\nhe left\tshe stayed\t1\n" * 3)
    model = tmp_path / "m.json"
    assert main(["train", "--kind", "perp", "--input", str(pairs), "--output", str(model),
                 "--option", "epochs=2"]) == 0  # fmt: skip
    capsys.readouterr()
    data = json.loads(model.read_text())
    damage(data)
    model.write_text(json.dumps(data))
    assert main(["score", "--model", str(model), "--input", str(pairs)]) == 2
    captured = capsys.readouterr()
    assert captured.err.startswith(f"error: {model}: {where}")
    assert captured.out == ""


def test_train_names_the_line_of_a_bad_target_or_byte(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pairs = tmp_path / "train.tsv"
    pairs.write_text("the cat sat\ta cat sat\nhe left\tshe stayed\n")
    targets = tmp_path / "train.gs"
    model = tmp_path / "m.json"
    for text, task, expected in [
        ("4\nnan\n", "regression", "train.gs:2: field '--targets': 'nan' is not a finite number"),
        ("1\n3\n", "classification", "train.gs:2: field '--targets': '3': a classification"),
    ]:
        targets.write_text(text)
        code = main(["train", "--kind", "mt", "--task", task, "--input", str(pairs),
                     "--targets", str(targets), "--output", str(model)])  # fmt: skip
        assert code == 2
        assert expected in _error(capsys)
    pairs.write_bytes(b"the cat sat\ta cat sat\nhe left\tshe caf\xe9\n")
    targets.write_text("4\n1\n")
    code = main(["train", "--kind", "perp", "--input", str(pairs), "--targets", str(targets),
                 "--output", str(model)])  # fmt: skip
    assert code == 2
    assert (
        "train.tsv:2: field '--input': the byte 0xE9 after 'he left\\tshe caf' is not UTF-8 "
        "text (the text seems to be saved as Windows-1252 or Latin-1)"
    ) in _error(capsys)
    assert not model.exists()


_UTF16 = "the cat sat\n".encode("utf-16")  # with its byte order mark, as a spreadsheet saves


@pytest.mark.parametrize(
    ("command", "field"),
    [
        ("phrases", "--source"),
        ("align", "--source"),
        ("score", "--input"),
        ("train", "--input"),
        ("align-gold", "--gold"),
    ],
)
@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (_UTF16, 'the file is saved as UTF-16 (a spreadsheet\'s "Unicode text"); save it as UTF-8'),
        (
            b"the caf\xe9 sat\n",
            "the byte 0xE9 after 'the caf' is not UTF-8 text (the text seems to be saved as "
            "Windows-1252 or Latin-1); save the file as UTF-8",
        ),
    ],
)
def test_text_that_is_not_utf8_is_named_as_the_corpus_readers_name_it(
    command: str,
    field: str,
    data: bytes,
    expected: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    good = tmp_path / "good.txt"
    good.write_text("the cat sat\n")
    bad = tmp_path / "bad.txt"
    tsv = data.replace(b" sat", b"\tsat") if command in ("score", "train") else data
    bad.write_bytes(tsv)
    model = tmp_path / "m.json"
    out = str(tmp_path / "out.txt")
    args = {
        "phrases": ["phrases", "--source", str(bad), "--target", str(good),
                    "--alignment", str(good)],
        "align": ["align", "--aligner", "identity", "--source", str(bad), "--target", str(good),
                  "--output", out],
        "score": ["score", "--model", str(model), "--input", str(bad)],
        "train": ["train", "--kind", "perp", "--input", str(bad), "--output", str(model)],
        "align-gold": ["align", "--aligner", "supervised", "--gold", str(bad), "--source",
                       str(good), "--target", str(good), "--output", out],
    }[command]  # fmt: skip
    if command == "score":
        pairs = tmp_path / "pairs.tsv"
        pairs.write_text("the cat sat\ta cat sat\t4\nhe left\tshe stayed\t1\n" * 3)
        assert main(["train", "--kind", "perp", "--input", str(pairs), "--output", str(model),
                     "--option", "epochs=2"]) == 0  # fmt: skip
        capsys.readouterr()
    assert main(args) == 2
    assert _error(capsys) == f"error: {bad}:1: field '{field}': {expected}\n"
    assert not (tmp_path / "out.txt").exists()


def test_train_checks_output_and_test_file_before_training(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pairs = tmp_path / "train.tsv"
    pairs.write_text("the cat sat\ta cat sat\t4\nhe left\tshe stayed\t1\n")
    code = main(["train", "--kind", "perp", "--input", str(pairs), "--output", str(tmp_path)])
    assert code == 2
    assert "the output path is a directory" in _error(capsys)
    empty = tmp_path / "test.tsv"
    empty.write_text("")
    model = tmp_path / "m.json"
    code = main(["train", "--kind", "perp", "--input", str(pairs), "--test", str(empty),
                 "--output", str(model)])  # fmt: skip
    assert code == 2
    assert "test.tsv:1: field '--test': the file has no pairs" in _error(capsys)
    assert not model.exists()


def test_a_closed_pipe_ends_quietly(tmp_path: Path) -> None:
    source = tmp_path / "s.txt"
    source.write_text("the cat sat on the mat\n" * 2000)
    alignment = tmp_path / "a.txt"
    alignment.write_text("0-0 1-1 2-2 3-3 4-4 5-5\n" * 2000)
    command = [sys.executable, "-m", "scoring", "phrases", "--source", str(source),
               "--target", str(source), "--alignment", str(alignment)]  # fmt: skip
    process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert process.stdout is not None and process.stderr is not None
    process.stdout.readline()
    process.stdout.close()
    stderr = process.stderr.read().decode()
    process.wait(timeout=120)
    assert "Traceback" not in stderr


def test_an_unknown_option_is_reported_with_the_commands_usage(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _pharaoh(tmp_path / "in")
    with pytest.raises(SystemExit) as stopped:
        main(["phrases", "--source", str(folder / "source.txt"),
              "--target", str(folder / "target.txt"),
              "--alignment", str(folder / "alignment.txt"), "--max-lenght", "3"])  # fmt: skip
    assert stopped.value.code == 2
    error = _error(capsys)
    # the usage of `phrases`, which lists the option meant, not the top level's
    assert error.startswith("usage: scoring phrases")
    assert "--max-length K" in error
    assert "scoring phrases: error: unrecognized arguments: --max-lenght 3" in error


def test_an_aligner_model_given_as_a_scorer_model_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _pharaoh(tmp_path / "in")
    model = tmp_path / "em.npz"
    code = main(["align", "--aligner", "identity", "--source", str(folder / "source.txt"),
                 "--target", str(folder / "target.txt"), "--output", str(tmp_path / "a.txt"),
                 "--save-model", str(model)])  # fmt: skip
    assert code == 0
    capsys.readouterr()
    pairs = tmp_path / "pairs.tsv"
    pairs.write_text("a b\tc d\n", encoding="utf-8")
    assert main(["score", "--model", str(model), "--input", str(pairs)]) == 2
    assert "em.npz: field '--model': not a JSON model file (not UTF-8 text" in _error(capsys)
    assert main(["align", "--aligner", "identity", "--model", str(pairs),
                 "--source", str(folder / "source.txt"), "--target", str(folder / "target.txt"),
                 "--output", str(tmp_path / "b.txt")])  == 2  # fmt: skip
    error = _error(capsys)
    assert "pairs.tsv: field '--model': not a saved aligner model (an .npz archive" in error
    assert "pickle" not in error


@pytest.fixture
def without_wordfreq(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """An environment without the ``wordfreq`` package (the machine's own package index may
    lack it): importing it fails, and no frequency looked up before is remembered."""
    from scoring.edit import perp_features

    monkeypatch.setitem(sys.modules, "wordfreq", None)
    perp_features._frequency.cache_clear()
    resources._word_frequency_lookup.cache_clear()
    yield
    perp_features._frequency.cache_clear()
    resources._word_frequency_lookup.cache_clear()


@pytest.mark.usefixtures("without_wordfreq")
@pytest.mark.parametrize("kind", ["perp", "combined"])
def test_training_without_wordfreq_names_the_package_to_install(
    kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pairs = tmp_path / "train.tsv"
    lines = [f"a man eats {i}\ta man is eating {i}\t{i % 5}\n" for i in range(12)]
    pairs.write_text("".join(lines), encoding="utf-8")
    options = ["--option", "groups=perp"] if kind == "combined" else []
    code = main(["train", "--kind", kind, "--input", str(pairs),
                 "--output", str(tmp_path / "m.json"), *options])  # fmt: skip
    assert code == 2
    error = _error(capsys)
    assert "pip install wordfreq" in error
    assert "Traceback" not in error
    assert not (tmp_path / "m.json").exists()


@pytest.mark.parametrize(
    ("kind", "values", "refusal"),
    [
        ("perp", [3.0] * 6, "every target is 3; a scorer learns nothing from a single value"),
        ("mt", [1.0, 2.0, 3.0, 4.0], "5-fold cross-validation needs ≥ 10 pairs, got 4"),
    ],
)
def test_targets_a_scorer_cannot_train_on_are_refused_naming_their_file(
    kind: str, values: list[float], refusal: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pairs = tmp_path / "train.tsv"
    pairs.write_text("".join(f"a man eats {i}\ta man is eating\n" for i in values), "utf-8")
    targets = tmp_path / "train.gs"
    targets.write_text("".join(f"{value}\n" for value in values), "utf-8")
    code = main(["train", "--kind", kind, "--input", str(pairs), "--targets", str(targets),
                 "--output", str(tmp_path / "m.json")])  # fmt: skip
    assert code == 2
    assert _error(capsys) == f"error: {targets}: field '--targets': {refusal}\n"
    assert not (tmp_path / "m.json").exists()


@pytest.mark.parametrize(
    ("command", "where"),
    [
        ("phrases --source s.txt --target t.txt --alignment a.txt", "t.txt:3: field '--target'"),
        ("phrases --source s.txt --target s.txt --alignment a.txt", "a.txt:3: field '--alignment'"),
        ("align --aligner identity --source s.txt --target t.txt --output out.txt",
         "t.txt:3: field '--target'"),
        ("train --kind perp --input pairs.tsv --targets three.gs --output out.txt",
         "three.gs:3: field '--targets'"),
        ("train --kind perp --input pairs.tsv --targets one.gs --output out.txt",
         "one.gs:2: field '--targets'"),
    ],
)  # fmt: skip
def test_files_of_unequal_length_are_refused_naming_the_first_line_without_a_partner(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    command: str,
    where: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "s.txt").write_text("a b\nc d\n")
    (tmp_path / "t.txt").write_text("a b\nc d\ne f\n")
    (tmp_path / "a.txt").write_text("0-0\n1-1\n0-1\n")
    (tmp_path / "one.gs").write_text("3\n")
    (tmp_path / "three.gs").write_text("3\n2\n1\n")
    (tmp_path / "pairs.tsv").write_text("a b\tc d\ne f\tg h\n")
    assert main(command.split()) == 2
    error = _error(capsys)
    assert error.startswith(f"error: {where}: ")
    assert "the files must be line-aligned" in error
    assert not (tmp_path / "out.txt").exists()


@pytest.mark.parametrize(
    ("command", "where"),
    [
        ("train --kind perp --input pairs.tsv --output out.json", "pairs.tsv: field '--targets'"),
        ("train --kind perp --input empty.tsv --targets one.gs --output out.json",
         "empty.tsv:1: field '--input'"),
        ("train --kind perp --input scored.tsv --test pairs.tsv --output out.json",
         "pairs.tsv: field '--test-targets'"),
    ],
)  # fmt: skip
def test_missing_pairs_or_targets_name_the_option_to_give(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    command: str,
    where: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pairs.tsv").write_text("a b\tc d\ne f\tg h\n")
    (tmp_path / "scored.tsv").write_text("a b\tc d\t1\ne f\tg h\t3\n")
    (tmp_path / "empty.tsv").write_text("\n")
    (tmp_path / "one.gs").write_text("3\n")
    assert main(command.split()) == 2
    assert _error(capsys).startswith(f"error: {where}: ")
    assert not (tmp_path / "out.json").exists()


@pytest.mark.parametrize(
    ("command", "where"),
    [
        ("phrases --source long.txt --target s.txt --alignment a.txt",
         "long.txt:2: field '--source'"),
        ("align --aligner identity --source long.txt --target s.txt --output out.txt",
         "long.txt:2: field '--source'"),
        ("train --kind perp --input long.tsv --targets two.gs --output out.txt",
         "long.tsv:2: field '--input'"),
    ],
)  # fmt: skip
def test_a_line_longer_than_the_readers_limit_is_refused_before_it_is_processed(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    command: str,
    where: str,
) -> None:
    # a 20 MB line of one word took the scorers' word lookups out of memory, with a traceback
    monkeypatch.setattr(formats, "MAX_LINE_BYTES", 100)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "s.txt").write_text("a b\nc d\n")
    (tmp_path / "a.txt").write_text("0-0\n1-1\n")
    (tmp_path / "long.txt").write_text("a b\n" + "x" * 101 + "\n")
    (tmp_path / "long.tsv").write_text("a b\tc d\n" + "x" * 101 + "\tc d\n")
    (tmp_path / "two.gs").write_text("3\n2\n")
    assert main(command.split()) == 2
    assert _error(capsys) == f"error: {where}: the line is longer than 100 bytes\n"
    assert not (tmp_path / "out.txt").exists()


def test_as_annotator_with_a_format_that_names_its_annotators_names_the_option(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = _jsonl(tmp_path / "in.jsonl")
    output = tmp_path / "out.jsonl"
    args = ["convert", "--from", "jsonl", "--to", "jsonl", "--as-annotator", "x"]
    assert main([*args, "--output", str(output), str(source)]) == 2
    error = _error(capsys)
    assert error.startswith(f"error: {source}: field '--as-annotator': the jsonl format ")
    assert "jacana, multimwa, pharaoh" in error
    assert not output.exists()


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("align --aligner nope --source s.txt --target t.txt --output a.txt",
         "error: field '--aligner': unknown aligner 'nope'; known aligners: "),
        ("align --aligner em --model s.txt --source s.txt --target t.txt --output a.txt",
         "error: s.txt: field '--model': not a saved aligner model"),
        ("align --aligner em --model missing.npz --source s.txt --target t.txt --output a.txt",
         "error: missing.npz: field '--model': no such model file"),
        ("score --model tr.gs --input pairs.tsv",
         "error: tr.gs:2: field '--model': not a JSON model file (Extra data)"),
        ("evaluate-aligner --aligner identity --gold-format pharaoh --folds 100000 gold",
         "error: field '--folds': 100000 folds but only 2 gold pairs"),
        ("evaluate-aligner --aligner nope --gold-format pharaoh gold",
         "error: field '--aligner': unknown aligner 'nope'"),
    ],
)  # fmt: skip
def test_an_error_of_an_option_names_the_option_the_file_and_the_line(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    command: str,
    expected: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "s.txt").write_text("a b\nc d\n")
    (tmp_path / "t.txt").write_text("a b\nc\n")
    (tmp_path / "tr.gs").write_text("3\n4\n")
    (tmp_path / "pairs.tsv").write_text("a b\tc d\n")
    gold = _pharaoh(tmp_path / "gold", "0-0 1?1\n0-0\n")
    (gold / "source.txt").write_text("a b\nc d\n")
    (gold / "target.txt").write_text("c d\ne\n")
    assert main(command.split()) == 2
    assert _error(capsys).startswith(expected)


def _pipe(text: str) -> str:
    """A ``/dev/fd/N`` path reading ``text`` from a pipe, as bash's ``<(…)`` gives one."""
    read, write = os.pipe()
    os.write(write, text.encode())
    os.close(write)
    return f"/dev/fd/{read}"


def test_align_reads_its_sentences_from_pipes_as_train_reads_its_targets(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    output = tmp_path / "a.txt"
    code = main(["align", "--aligner", "identity", "--source", _pipe("a b\nc d\n"),
                 "--target", _pipe("a b\nc e\n"), "--output", str(output)])  # fmt: skip
    assert code == 0, _error(capsys)
    assert output.read_text().splitlines() == ["0-0 1-1", "0-0"]


def test_align_reads_its_gold_from_a_pipe() -> None:
    pairs = [(["a", "b"], ["a", "b"]), (["c"], ["c"])]
    gold = read_gold(Path(_pipe("0-0 1?1\n")), pairs, get_aligner("supervised"))
    assert gold[0] is not None and gold[0].to_pharaoh() == "0-0 1?1"
    assert gold[1] is None


def test_align_still_says_a_missing_file_is_missing_naming_the_option(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "s.txt"
    source.write_text("a b\n")
    args = ["align", "--aligner", "supervised", "--source", str(source), "--target", str(source)]
    code = main([*args, "--gold", str(tmp_path / "g.txt"), "--output", str(tmp_path / "a.txt")])
    assert code == 2
    assert _error(capsys).startswith(f"error: {tmp_path / 'g.txt'}: field '--gold': no such file")


_MULTIMWA = "p1\ta b\tN/A\tc d\tN/A\t1\t1\t0-0\t1-1\n"
_JACANA_SURE = '[{"id": "news:1", "source": "a b", "target": "c d", "sureAlign": "0-0"}]'
_JACANA_BOTH = (
    '[{"id": "news:1", "source": "a b", "target": "c d", "sureAlign": "0-0 1-1", '
    '"possibleAlign": ""}]'
)


@pytest.mark.parametrize(
    ("fmt", "texts"),
    [
        ("multimwa", [_MULTIMWA]),
        ("jsonl", ['{"id": "p1", "source_tokens": ["a", "b"], "target_tokens": ["c", "d"]}\n']),
        ("msrp", ["Quality\t#1 ID\t#2 ID\t#1 String\t#2 String\n1\t1\t2\ta b\tc d\n"]),
        ("jacana", [_JACANA_SURE, _JACANA_BOTH]),
    ],
)
def test_convert_reads_its_inputs_from_pipes_as_from_files(
    fmt: str, texts: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = []
    for number, text in enumerate(texts):
        files.append(tmp_path / f"in{number}")
        files[-1].write_text(text)
    from_files, from_pipes = tmp_path / "files.jsonl", tmp_path / "pipes.jsonl"
    assert main(["convert", "--from", fmt, "--to", "jsonl", *map(str, files),
                 "--output", str(from_files)]) == 0, _error(capsys)  # fmt: skip
    assert main(["convert", "--from", fmt, "--to", "jsonl", *map(_pipe, texts),
                 "--output", str(from_pipes)]) == 0, _error(capsys)  # fmt: skip
    assert from_pipes.read_text() == from_files.read_text()
    (line,) = from_pipes.read_text().splitlines()
    assert json.loads(line)["source_tokens"] == ["a", "b"]


def test_a_zip_through_a_pipe_still_says_unzip_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    archive = tmp_path / "sample-all.zip"
    with zipfile.ZipFile(archive, "w") as handle:
        handle.writestr("gold.tsv", _MULTIMWA)
    for fmt in ("multimwa", "jacana"):
        read, write = os.pipe()
        os.write(write, archive.read_bytes())
        os.close(write)
        code = main(["convert", "--from", fmt, "--to", "jsonl", f"/dev/fd/{read}",
                     "--output", str(tmp_path / "o.jsonl")])  # fmt: skip
        assert code == 2
        assert "this is a zip archive" in _error(capsys)
    assert not (tmp_path / "o.jsonl").exists()


def test_evaluate_aligner_reads_its_gold_from_pipes(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["evaluate-aligner", "--aligner", "identity", "--gold-format", "jacana",
                 _pipe(_JACANA_SURE), _pipe(_JACANA_BOTH), "--no-phrases", "--json"])  # fmt: skip
    assert code == 0, _error(capsys)
    report = json.loads(capsys.readouterr().out)
    assert report["references"]


_RTE2 = "# sentence pair 1\nThe cat sat .\nNULL ({ / / }) cat ({ 2 p1 / / }) sat ({ 3 / / })\n"
_RTE2_B = _RTE2.replace("({ 3 / / })", "({ 3 p4 / / })")


def test_convert_reads_rte2_annotator_files_from_pipes_lettered_in_order(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A pipe has no file name to take the annotator letter from: the pipes are A, B, … in
    the order given, of the letters the named files leave (here the named file is A)."""
    named = tmp_path / "set_A.align.txt"
    named.write_text(_RTE2)
    (tmp_path / "set_B.align.txt").write_text(_RTE2_B)
    (tmp_path / "set_C.align.txt").write_text(_RTE2)
    from_files, from_pipes = tmp_path / "files.jsonl", tmp_path / "pipes.jsonl"
    files = [str(tmp_path / f"set_{letter}.align.txt") for letter in "ABC"]
    assert main(["convert", "--from", "rte2", "--to", "jsonl", *files,
                 "--output", str(from_files)]) == 0, _error(capsys)  # fmt: skip
    assert main(["convert", "--from", "rte2", "--to", "jsonl", _pipe(_RTE2_B), str(named),
                 _pipe(_RTE2), "--output", str(from_pipes)]) == 0, _error(capsys)  # fmt: skip
    assert from_pipes.read_text() == from_files.read_text()
    (line,) = from_pipes.read_text().splitlines()
    record = json.loads(line)
    assert sorted(record["annotations"]) == ["A", "B", "C"]
    assert record["annotations"]["A"]["possible"] == [[0, 0]]
    assert record["annotations"]["B"]["possible"] == [[0, 0], [3, 1]]
    assert record["id"] == "1"


def test_convert_reads_an_sts_input_and_its_gold_scores_from_pipes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A pipe has no name to find its gold scores by: they come through the path after it."""
    pairs, scores = "the cat sat\ta cat sat\nhe left\tshe stayed\n", "4.2\n1\n"
    folder = tmp_path / "news"  # a name that says no split
    folder.mkdir()
    (folder / "STS.input.news.txt").write_text(pairs)
    (folder / "STS.gs.news.txt").write_text(scores)
    from_files, from_pipes = tmp_path / "files.jsonl", tmp_path / "pipes.jsonl"
    assert main(["convert", "--from", "sts", "--to", "jsonl", str(folder / "STS.input.news.txt"),
                 "--output", str(from_files)]) == 0, _error(capsys)  # fmt: skip
    assert main(["convert", "--from", "sts", "--to", "jsonl", _pipe(pairs), _pipe(scores),
                 "--output", str(from_pipes)]) == 0, _error(capsys)  # fmt: skip
    files = [json.loads(line) for line in from_files.read_text().splitlines()]
    piped = [json.loads(line) for line in from_pipes.read_text().splitlines()]
    assert [(r["id"], r["subcorpus"]) for r in piped] == [("1", ""), ("2", "")]
    assert [(r["id"], r["subcorpus"]) for r in files] == [("news:1", "news"), ("news:2", "news")]
    for record in files + piped:
        del record["id"], record["subcorpus"]
    assert piped == files and piped[0]["gold_score"] == 4.2
    # the gold scores may be a file too; an input without them says where they go
    assert main(["convert", "--from", "sts", "--to", "jsonl", _pipe(pairs),
                 str(folder / "STS.gs.news.txt"), "--output", str(from_pipes)]) == 0  # fmt: skip
    capsys.readouterr()
    lonely = _pipe(pairs)
    assert main(["convert", "--from", "sts", "--to", "jsonl", lonely,
                 "--output", str(tmp_path / "o.jsonl")]) == 2  # fmt: skip
    assert _error(capsys).startswith(
        f"error: {lonely}: field 'score': an STS input through a pipe needs its gold scores after "
        "it"
    )
    assert not (tmp_path / "o.jsonl").exists()


@pytest.mark.parametrize("command", ["compare", "agreement"])
def test_a_link_outside_the_pair_states_the_sentence_sizes_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    (tmp_path / "s.txt").write_text("a b c\n", encoding="utf-8")
    (tmp_path / "t.txt").write_text("a c\n", encoding="utf-8")
    (tmp_path / "good.txt").write_text("0-0\n", encoding="utf-8")
    (tmp_path / "bad.txt").write_text("0-5\n", encoding="utf-8")
    files = ["--source", str(tmp_path / "s.txt"), "--target", str(tmp_path / "t.txt")]
    if command == "compare":
        files += ["--test", str(tmp_path / "bad.txt"), "--reference", str(tmp_path / "good.txt")]
    else:
        files += ["--prefill", str(tmp_path / "bad.txt")]
        files += ["--annotation", str(tmp_path / "good.txt")] * 2
    assert main([command, *files]) == 2
    error = _error(capsys)
    assert "link 0-5 is outside the 3×2 sentence pair (source indices 0..2, target 0..1)\n" in error
    assert "tokens" not in error


@pytest.mark.parametrize("command", ["phrases", "compare", "agreement"])
def test_max_length_says_its_default_is_not_the_exports(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # the same alignments give a longer phrase table here than from the web app's export
    with pytest.raises(SystemExit):
        main([command, "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    assert (
        "--max-length K the longest phrase, in tokens on either side (default: no limit; the "
        "web app's phrase-table export and Moses extract: 7)"
    ) in help_text
