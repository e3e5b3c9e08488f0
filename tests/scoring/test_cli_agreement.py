"""The researchers' commands ``python -m scoring phrases | compare | agreement``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scoring.alignment.agreement import AgreementPair, AgreementParams, chance_corrected_agreement
from scoring.alignment.links import Alignment
from scoring.alignment.metrics import ComparePair, corpus_scores
from scoring.alignment.phrases import extract_phrase_pairs
from scoring.cli import build_parser, main
from scoring.cli import phrases as phrases_cli
from tests.scoring import paper_example as fig2

SECOND_SOURCE = ["the", "cat", "sat"]
SECOND_TARGET = ["a", "cat", "sat", "down"]


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    second_a = Alignment.from_links(3, 4, sure=[(0, 0), (1, 1)], possible=[(2, 2), (2, 3)])
    second_b = Alignment.from_links(3, 4, sure=[(0, 0), (1, 1), (2, 2)])
    prefill = [
        Alignment.from_links(12, 13, sure=[(1, 2), (2, 3), (6, 6), (11, 12)]),
        Alignment.from_links(3, 4, sure=[(1, 1), (2, 2)]),
    ]
    contents = {
        "source": [fig2.SOURCE_TEXT, " ".join(SECOND_SOURCE)],
        "target": [fig2.TARGET_TEXT, " ".join(SECOND_TARGET)],
        "a": [fig2.ANNOTATOR_A.to_pharaoh(), second_a.to_pharaoh()],
        "b": [fig2.ANNOTATOR_B.to_pharaoh(), second_b.to_pharaoh()],
        "prefill": [p.to_pharaoh() for p in prefill],
    }
    paths = {}
    for name, lines in contents.items():
        path = tmp_path / f"{name}.txt"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        paths[name] = path
    return paths


def _run(capsys: pytest.CaptureFixture[str], *argv: object) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_the_three_commands_are_registered() -> None:
    help_text = build_parser().format_help()
    for name in ("phrases", "compare", "agreement"):
        assert name in help_text


def test_phrases_lists_every_pair_with_its_label(files, capsys) -> None:
    code, out, _ = _run(
        capsys, "phrases", "--source", files["source"], "--target", files["target"],
        "--alignment", files["a"], "--json",
    )  # fmt: skip
    assert code == 0
    data = json.loads(out)
    first = data["sentences"][0]["pairs"]
    expected = extract_phrase_pairs(fig2.ANNOTATOR_A)
    assert [p["source_span"] + p["target_span"] for p in first] == expected.spans.tolist()
    assert [p["atomic"] for p in first] == expected.atomic.tolist()
    assert {"source": "reached an", "target": "arrived at a"}.items() <= next(
        p for p in first if p["source"] == "reached an"
    ).items()
    code, out, _ = _run(
        capsys, "phrases", "--source", files["source"], "--target", files["target"],
        "--alignment", files["a"], "--max-length", "1",
    )  # fmt: skip
    assert code == 0
    assert "reached ||| arrived ||| 7-7 7-7 ||| atomic" in out
    assert "reached an |||" not in out


def test_phrases_written_a_chunk_at_a_time_are_the_whole_documents_bytes(
    files, capsys, monkeypatch
) -> None:
    argv = ["phrases", "--source", files["source"], "--target", files["target"]]
    argv += ["--alignment", files["a"], "--json"]
    _, whole, _ = _run(capsys, *argv)
    monkeypatch.setattr(phrases_cli, "CHUNK", 1)
    _, chunked, _ = _run(capsys, *argv)
    assert chunked == whole
    data = json.loads(chunked)
    assert whole == json.dumps(data, ensure_ascii=False) + "\n"
    assert [s["line"] for s in data["sentences"]] == [1, 2]


def test_compare_prints_the_metrics_modules_scores(files, capsys) -> None:
    code, out, _ = _run(
        capsys, "compare", "--source", files["source"], "--target", files["target"],
        "--test", files["a"], "--reference", files["b"], "--json",
    )  # fmt: skip
    assert code == 0
    data = json.loads(out)
    pairs = [
        ComparePair(fig2.SOURCE, fig2.TARGET, fig2.ANNOTATOR_A, fig2.ANNOTATOR_B, "1"),
        ComparePair(
            SECOND_SOURCE,
            SECOND_TARGET,
            Alignment.from_links(3, 4, sure=[(0, 0), (1, 1)], possible=[(2, 2), (2, 3)]),
            Alignment.from_links(3, 4, sure=[(0, 0), (1, 1), (2, 2)]),
            "2",
        ),
    ]
    assert data["overall"] == corpus_scores(pairs).overall.to_dict()
    assert len(data["per_pair"]) == 2
    code, out, _ = _run(
        capsys, "compare", "--source", files["source"], "--target", files["target"],
        "--test", files["a"], "--reference", files["b"], "--level", "phrase",
    )  # fmt: skip
    expected = corpus_scores(pairs, level="phrase").overall
    assert code == 0 and f"{expected.precision:.4f}" in out and "AER" not in out


def test_agreement_matches_the_library_and_is_reproducible(files, capsys) -> None:
    argv = [
        "agreement", "--source", files["source"], "--target", files["target"],
        "--prefill", files["prefill"], "--annotation", files["a"], "--annotation", files["b"],
        "--samples", "50", "--seed", "3", "--json",
    ]  # fmt: skip
    code, out, _ = _run(capsys, *argv)
    assert code == 0
    data = json.loads(out)
    prefill = [
        Alignment.from_links(12, 13, sure=[(1, 2), (2, 3), (6, 6), (11, 12)]),
        Alignment.from_links(3, 4, sure=[(1, 1), (2, 2)]),
    ]
    pairs = [
        AgreementPair(
            "1", fig2.SOURCE, fig2.TARGET, prefill[0], fig2.ANNOTATOR_A, fig2.ANNOTATOR_B
        ),
        AgreementPair(
            "2",
            SECOND_SOURCE,
            SECOND_TARGET,
            prefill[1],
            Alignment.from_links(3, 4, sure=[(0, 0), (1, 1)], possible=[(2, 2), (2, 3)]),
            Alignment.from_links(3, 4, sure=[(0, 0), (1, 1), (2, 2)]),
        ),
    ]
    library = chance_corrected_agreement(
        pairs, params=AgreementParams(samples=50, seed=3), annotator_a="a", annotator_b="b"
    )
    got = data["comparisons"][0]["agreement"]["results"]["possible"]["phrase_atomic"]
    assert got["c_hat"] == library.results["possible"]["phrase_atomic"].c_hat
    assert got["provenance"]["seed"] == 3 and got["provenance"]["samples"] == 50
    assert "seed:3" in got["signature"] and "J:50" in got["signature"]
    code, again, _ = _run(capsys, *argv)
    assert again == out
    code, table, _ = _run(capsys, *argv[:-1])
    assert code == 0 and "Ĉ" in table and "seed:3" in table


def test_agreement_needs_two_annotations(files, capsys) -> None:
    code, _, err = _run(
        capsys, "agreement", "--source", files["source"], "--target", files["target"],
        "--prefill", files["prefill"], "--annotation", files["a"],
    )  # fmt: skip
    assert code == 2 and "--annotation" in err


def test_a_link_outside_the_sentence_names_the_file_line_and_field(files, capsys) -> None:
    bad = files["a"].with_name("bad.txt")
    bad.write_text("0-0\n0-0 2-9\n", encoding="utf-8")
    code, _, err = _run(
        capsys, "compare", "--source", files["source"], "--target", files["target"],
        "--test", bad, "--reference", files["b"],
    )  # fmt: skip
    assert code == 2
    assert f"{bad}:2: field '--test'" in err and "2-9" in err and "outside" in err


def test_malformed_pharaoh_names_the_file_line_and_field(files, capsys) -> None:
    bad = files["a"].with_name("bad.txt")
    bad.write_text("0-0 0:1\n0-0\n", encoding="utf-8")
    code, _, err = _run(
        capsys, "phrases", "--source", files["source"], "--target", files["target"],
        "--alignment", bad,
    )  # fmt: skip
    assert code == 2 and f"{bad}:1: field '--alignment'" in err and "0:1" in err


def test_files_with_different_line_counts_are_refused(files, capsys) -> None:
    short = files["a"].with_name("short.txt")
    short.write_text("0-0\n", encoding="utf-8")
    code, _, err = _run(
        capsys, "agreement", "--source", files["source"], "--target", files["target"],
        "--prefill", short, "--annotation", files["a"], "--annotation", files["b"],
    )  # fmt: skip
    assert code == 2 and f"{short}:2: field '--prefill'" in err and "ends after 1 line" in err
    code, _, err = _run(
        capsys, "compare", "--source", files["source"], "--target", short,
        "--test", files["a"], "--reference", files["b"],
    )  # fmt: skip
    assert code == 2 and "--target" in err


def test_a_missing_file_is_a_clear_error(files, capsys, tmp_path) -> None:
    code, _, err = _run(
        capsys, "phrases", "--source", tmp_path / "nope.txt", "--target", files["target"],
        "--alignment", files["a"],
    )  # fmt: skip
    assert code == 2 and "nope.txt" in err and "not found" in err


def test_the_table_signs_each_block_with_every_kind_and_item_its_rows_hold(files, capsys) -> None:
    code, table, _ = _run(
        capsys, "agreement", "--source", files["source"], "--target", files["target"],
        "--prefill", files["prefill"], "--annotation", files["a"], "--annotation", files["b"],
        "--samples", "20", "--seed", "3",
    )  # fmt: skip
    assert code == 0
    signatures = [line.strip() for line in table.splitlines() if "signature:" in line]
    assert len(signatures) == 1
    assert "|kind:possible,sure|items:word,phrase_atomic|" in signatures[0]
    assert "|J:20|seed:3|" in signatures[0]
