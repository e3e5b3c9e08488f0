"""``-`` as a file argument of ``python -m scoring``: standard input for an input, standard
output for an output, in every command; a stream given twice is refused."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from scoring.aligners.base import read_model_file
from scoring.cli import build_parser, main
from scoring.cli.streams import directory, input_file, output_file
from scoring.files import STDIN, STDOUT, atomic_output
from tests.paths import ROOT


def _run(
    args: list[str], cwd: Path, stdin: bytes = b"", stdout: int | None = subprocess.PIPE
) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "scoring", *args],
        cwd=cwd,
        input=stdin,
        stdout=stdout,
        stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        check=False,
    )


def _sentences(tmp_path: Path) -> tuple[Path, Path]:
    source, target = tmp_path / "s.txt", tmp_path / "t.txt"
    source.write_text("a b c\nd e\n", encoding="utf-8")
    target.write_text("a c\nd e f\n", encoding="utf-8")
    return source, target


def test_every_file_argument_of_every_command_takes_a_dash() -> None:
    parser = build_parser()
    commands = parser._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    file_arguments = []
    for name, command in commands.items():
        for action in command._actions:
            assert action.type is not Path, f"{name} {action.dest}: use input_file/output_file"
            if action.type in (input_file, output_file):
                file_arguments.append((name, action.dest))
    assert len(file_arguments) >= 27
    assert input_file("-") == STDIN and output_file("-") == STDOUT
    assert input_file("x.txt") == Path("x.txt") == output_file("x.txt")


def test_a_dash_input_is_standard_input(tmp_path: Path) -> None:
    _, target = _sentences(tmp_path)
    (tmp_path / "a.txt").write_text("0-0 2-1\n0-0 1?1\n", encoding="utf-8")
    result = _run(
        ["phrases", "--source", "-", "--target", str(target), "--alignment", "a.txt"],
        tmp_path,
        stdin=b"a b c\nd e\n",
    )
    assert result.returncode == 0, result.stderr
    assert b"a b c ||| a c ||| 0-2 0-1 ||| atomic" in result.stdout


def test_a_dash_output_is_standard_output_and_no_file_named_dash(tmp_path: Path) -> None:
    record = {"id": "p1", "source_tokens": ["a", "b"], "target_tokens": ["c", "d"]}
    corpus = json.dumps(record).encode() + b"\n"
    result = _run(
        ["convert", "--from", "jsonl", "--to", "jsonl", "-", "--output", "-"], tmp_path, corpus
    )
    assert result.returncode == 0, result.stderr
    assert [json.loads(line)["id"] for line in result.stdout.splitlines()] == ["p1"]
    assert b"converted 1 pairs" in result.stderr  # the summary stays off the output
    assert not (tmp_path / "-").exists()


def test_align_writes_alignments_to_a_redirected_stdout_and_leaves_dev_stdout_alone(
    tmp_path: Path,
) -> None:
    source, target = _sentences(tmp_path)
    out = tmp_path / "out.txt"
    with out.open("wb") as handle:
        command = ["align", "--aligner", "em", "--source", str(source), "--target", str(target)]
        result = _run([*command, "--output", "-"], tmp_path, stdout=handle.fileno())
    assert result.returncode == 0, result.stderr
    assert len(out.read_text(encoding="utf-8").splitlines()) == 2
    assert not (tmp_path / "-").exists()
    assert Path("/dev/stdout").is_symlink()


def test_a_dev_fd_link_to_a_regular_file_is_written_in_place(tmp_path: Path) -> None:
    held = tmp_path / "held.txt"
    descriptor = os.open(held, os.O_WRONLY | os.O_CREAT)
    try:
        with atomic_output(Path(f"/dev/fd/{descriptor}")) as handle:
            handle.write("0-0\n")
    finally:
        os.close(descriptor)
    assert held.read_text(encoding="utf-8") == "0-0\n"


def test_a_model_saved_to_standard_output_is_read_back_from_standard_input(
    tmp_path: Path,
) -> None:
    source, target = _sentences(tmp_path)
    files = ["--source", str(source), "--target", str(target)]
    saved = _run(
        ["align", "--aligner", "em", *files, "--output", "a.txt", "--save-model", "-"], tmp_path
    )
    assert saved.returncode == 0, saved.stderr
    (tmp_path / "m.npz").write_bytes(saved.stdout)
    header, _ = read_model_file(tmp_path / "m.npz")
    assert header["aligner"] == "em"
    loaded = _run(
        ["align", "--aligner", "em", "--model", "-", *files, "--output", "-"],
        tmp_path,
        stdin=saved.stdout,
    )
    assert loaded.returncode == 0, loaded.stderr
    assert loaded.stdout.decode() == (tmp_path / "a.txt").read_text(encoding="utf-8")


def test_a_binary_model_is_not_written_to_a_terminal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    source, target = _sentences(tmp_path)
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    code = main(["align", "--aligner", "em", "--source", str(source), "--target", str(target),
                 "--output", str(tmp_path / "a.txt"), "--save-model", "-"])  # fmt: skip
    assert code == 2
    err = capsys.readouterr().err
    assert "field '--save-model': the model is a binary .npz archive" in err
    assert "training" not in err  # refused before any work
    assert not (tmp_path / "a.txt").exists()


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (
            ["--source", "-", "--target", "-", "--output", "a.txt"],
            "given for --source and --target",
        ),
        (
            ["--source", "s.txt", "--target", "t.txt", "--output", "-", "--confidence", "-"],
            "given for --output and --confidence",
        ),
    ],
)
def test_a_stream_given_twice_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], options: list[str], message: str
) -> None:
    assert main(["align", "--aligner", "em", *options]) == 2
    assert f"error: '-' (standard {'input' if '--source' in message else 'output'}) is " in (
        err := capsys.readouterr().err
    )
    assert message in err


def test_a_scorer_trained_to_standard_output_reports_on_standard_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pairs = tmp_path / "pairs.tsv"
    pairs.write_text("a b\tc d\t1\nx y\tx z\t3\nq r s\tq r t\t4\n", encoding="utf-8")
    assert main(["train", "--kind", "perp", "--input", str(pairs), "--output", "-"]) == 0
    printed = capsys.readouterr()
    assert json.loads(printed.out)["kind"] == "perp"
    assert "saved perp model to" in printed.err


def test_rte2_and_sts_read_a_dash_as_a_pipe(shared_data: Path, tmp_path: Path) -> None:
    folder = shared_data / "rte2-alignments"
    a, b, c = (folder / f"RTE2_dev_{letter}.align.txt" for letter in "ABC")
    result = _run(
        ["convert", "--from", "rte2", "--to", "jsonl", str(a), "-", str(c), "--output", "-"],
        tmp_path,
        stdin=b.read_bytes(),
    )
    assert result.returncode == 0, result.stderr
    first = json.loads(result.stdout.splitlines()[0])
    assert sorted(first["annotations"]) == ["A", "B", "C"]
    sts = shared_data / "sts2012" / "train"
    result = _run(
        [
            "convert",
            "--from",
            "sts",
            "--to",
            "jsonl",
            "-",
            str(sts / "STS.gs.MSRpar.txt"),
            "--output",
            "-",
        ],
        tmp_path,
        stdin=(sts / "STS.input.MSRpar.txt").read_bytes(),
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout.splitlines()[0])["gold_score"] == 4.0


def test_a_folder_format_refuses_a_dash_output(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["convert", "--from", "jsonl", "--to", "pharaoh", "in.jsonl", "--output", "-"]) == 2
    assert "the pharaoh format writes a folder of files, not one stream" in capsys.readouterr().err


def test_a_folder_argument_refuses_a_dash() -> None:
    with pytest.raises(argparse.ArgumentTypeError, match="cannot be a folder"):
        directory("-")
