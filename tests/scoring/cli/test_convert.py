"""``python -m scoring convert``: end to end on the shared Edinburgh++ files."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from scoring.cli import main
from tests.paths import ROOT


def test_jacana_to_pharaoh_to_jsonl_and_back_is_stable(
    shared_data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = shared_data / "edinburgh"
    sure, both = folder / "gold.train.sure.json", folder / "gold.train.sure+poss.json"
    assert main(["convert", "--from", "jacana", "--to", "pharaoh", str(sure), str(both),
                 "--output", str(tmp_path / "ph")]) == 0  # fmt: skip
    printed = capsys.readouterr()
    assert "converted 714 pairs from jacana to pharaoh" in printed.err
    assert printed.out == ""  # stdout holds only what --output /dev/stdout writes
    assert main(["convert", "--from", "pharaoh", "--to", "jsonl", str(tmp_path / "ph"),
                 "--output", str(tmp_path / "c.jsonl")]) == 0  # fmt: skip
    assert main(["convert", "--from", "jsonl", "--to", "pharaoh", str(tmp_path / "c.jsonl"),
                 "--output", str(tmp_path / "ph2")]) == 0  # fmt: skip
    for name in ("source.txt", "target.txt", "alignment.txt", "ids.txt"):
        assert (tmp_path / "ph" / name).read_bytes() == (tmp_path / "ph2" / name).read_bytes()
    lines = (tmp_path / "c.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(lines) == 714
    assert json.loads(lines[0])["id"] == "news-common:2143"


def test_it_writes_the_chosen_annotator(tmp_path: Path) -> None:
    source = tmp_path / "in"
    source.mkdir()
    (source / "source.txt").write_text("a b\n")
    (source / "target.txt").write_text("c d\n")
    (source / "alignment.txt").write_text("0-0 1?1\n")
    assert main(["convert", "--from", "pharaoh", "--to", "jacana", str(source),
                 "--as-annotator", "alice", "--annotator", "alice",
                 "--output", str(tmp_path / "out.json")]) == 0  # fmt: skip
    (item,) = json.loads((tmp_path / "out.json").read_text())
    assert (item["sureAlign"], item["possibleAlign"]) == ("0-0", "1-1")


def test_pairs_without_an_alignment_are_written_with_none_and_the_summary_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    msrp = tmp_path / "msr.txt"
    msrp.write_text(
        "Quality\t#1 ID\t#2 ID\t#1 String\t#2 String\n1\t1\t2\ta b\ta c\n0\t3\t4\td e\tf g\n",
        encoding="utf-8",
    )
    assert main(["convert", "--from", "msrp", "--to", "pharaoh", str(msrp),
                 "--output", str(tmp_path / "ph")]) == 0  # fmt: skip
    assert "(2 pairs had no alignment and were written with none" in capsys.readouterr().err
    assert (tmp_path / "ph" / "alignment.txt").read_text() == "\n\n"


def test_bad_input_prints_one_line_exits_2_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text(
        '{"id": "p", "source_tokens": ["a"], "target_tokens": ["b"]}\n'
        '{"id": "p", "source_tokens": ["a"], "target_tokens": ["b"]}\n'
    )
    output = tmp_path / "out.jsonl"
    code = main(["convert", "--from", "jsonl", "--to", "jsonl", str(bad), "--output", str(output)])
    error = capsys.readouterr().err
    assert code == 2
    assert error == f"error: {bad}:2: field 'id': duplicate id 'p' (first used on line 1)\n"
    assert not output.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.jsonl"]


@pytest.mark.parametrize(("fmt", "output"), [("pharaoh", "new/ph"), ("jsonl", "new/run/c.jsonl")])
def test_bad_input_leaves_no_folder_made_for_the_output(
    fmt: str, output: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "p", "source_tokens": ["a"], "target_tokens": ["b"]}\n{"id": \n')
    code = main(["convert", "--from", "jsonl", "--to", fmt, str(bad),
                 "--output", str(tmp_path / output)])  # fmt: skip
    assert code == 2
    assert f"{bad}:2: field '(json)'" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.jsonl"]


def test_an_unknown_format_names_the_option(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["convert", "--from", "csv", "--to", "jsonl", "x.csv", "--output", "y"])
    assert code == 2
    assert "x.csv: field '--from': unknown format 'csv'; known formats:" in capsys.readouterr().err


def test_it_runs_as_python_dash_m_scoring(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "scoring", "convert", "--help"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0
    assert "--from FORMAT" in result.stdout
