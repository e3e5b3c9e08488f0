"""Phrase tables: counts of atomic and composite phrase pairs over a corpus, against a
plain-Python count of the consistent phrase pairs."""

from __future__ import annotations

import os
import stat
from itertools import combinations_with_replacement
from pathlib import Path

import pytest

from scoring.alignment.links import Alignment
from scoring.alignment.phrase_table import (
    HEADER,
    phrase_table_build,
    phrase_table_rows,
    write_phrase_table,
)


def _consistent(links: set[tuple[int, int]], i1: int, i2: int, j1: int, j2: int) -> bool:
    inside = [(i, j) for i, j in links if i1 <= i <= i2 and j1 <= j <= j2]
    if not inside:
        return False
    for i, j in links:
        if (i1 <= i <= i2) != (j1 <= j <= j2):
            return False
    aligned_src = {i for i, _ in links}
    aligned_tgt = {j for _, j in links}
    # Cohn et al.'s boundary rule: no unaligned word at either end of either span
    return all(b in aligned_src for b in (i1, i2)) and all(b in aligned_tgt for b in (j1, j2))


def _reference(source: list[str], target: list[str], links: set[tuple[int, int]]) -> set[tuple]:
    spans = set()
    for i1, i2 in combinations_with_replacement(range(len(source)), 2):
        for j1, j2 in combinations_with_replacement(range(len(target)), 2):
            if _consistent(links, i1, i2, j1, j2):
                spans.add((" ".join(source[i1 : i2 + 1]), " ".join(target[j1 : j2 + 1])))
    return spans


def test_every_consistent_phrase_pair_is_counted_once_per_place_it_occurs() -> None:
    source, target = "the big cat sat".split(), "a large cat was sitting".split()
    links = {(0, 0), (1, 1), (2, 2), (3, 3), (3, 4)}
    alignment = Alignment.from_links(4, 5, links, links)
    table = phrase_table_build([(source, target, alignment)] * 2, keep_identical=True)
    assert set(table) == _reference(source, target, links)
    assert all(count.total == 2 for count in table.values()), "the pair occurs twice"
    assert table[("cat", "cat")].atomic == 2
    assert table[("the big", "a large")].composite == 2
    assert table[("sat", "was sitting")].atomic == 2


def test_identical_phrase_pairs_are_left_out_unless_asked() -> None:
    source, target = "the cat sat".split(), "The cat slept".split()
    alignment = Alignment.from_pharaoh("0-0 1-1 2-2", 3, 3)
    kept = phrase_table_build([(source, target, alignment)], keep_identical=True)
    dropped = phrase_table_build([(source, target, alignment)])
    assert ("the cat", "The cat") in kept and ("the cat", "The cat") not in dropped
    assert ("cat sat", "cat slept") in dropped


def test_sure_links_only_and_a_length_bound() -> None:
    source, target = "a b c".split(), "x y z".split()
    alignment = Alignment.from_pharaoh("0-0 1?1 2-2", 3, 3)
    sure = phrase_table_build([(source, target, alignment)], use="sure", keep_identical=True)
    assert ("b", "y") not in sure
    short = phrase_table_build([(source, target, alignment)], max_length=1)
    assert {len(s.split()) for s, _ in short} == {1}


def test_the_file_is_tsv_with_a_header_most_frequent_first(tmp_path: Path) -> None:
    alignment = Alignment.from_pharaoh("0-0 1-1", 2, 2)
    table = phrase_table_build(
        [
            ("a b".split(), "x y".split(), alignment),
            ("a".split(), "x".split(), Alignment.from_pharaoh("0-0", 1, 1)),
        ]
    )
    out = tmp_path / "phrases.tsv"
    assert write_phrase_table(table, out) == len(table)
    lines = out.read_text(encoding="utf-8").splitlines()
    assert lines[0].split("\t") == list(HEADER)
    assert lines[1] == "a\tx\t2\t0\t2"
    assert [tuple(line.split("\t")) for line in lines[1:]] == [
        tuple(str(v) for v in row) for row in phrase_table_rows(table)
    ]
    assert list(tmp_path.iterdir()) == [out], "no temporary file is left"


def test_the_file_has_the_umask_permissions_of_every_other_export(tmp_path: Path) -> None:
    """Not mkstemp's owner-only 0600: the web process serving an export's download may run as
    another user (in the workers' group) than the worker that wrote it."""
    table = phrase_table_build([("a".split(), "x".split(), Alignment.from_pharaoh("0-0", 1, 1))])
    out = tmp_path / "phrases.tsv"
    previous = os.umask(0o022)
    try:
        write_phrase_table(table, out)
    finally:
        os.umask(previous)
    assert stat.S_IMODE(out.stat().st_mode) == 0o644


def test_tokens_a_spreadsheet_reads_as_formulas_are_written_verbatim(tmp_path: Path) -> None:
    """A phrase table is training data: ``=`` and ``-`` are words, not formulas to disarm."""
    source, target = ["=", "-", "@home"], ["+1", "minus", "at"]
    table = phrase_table_build(
        [(source, target, Alignment.from_pharaoh("0-0 1-1 2-2", 3, 3))], max_length=1
    )
    out = tmp_path / "phrases.tsv"
    write_phrase_table(table, out)
    rows = {tuple(line.split("\t")[:2]) for line in out.read_text("utf-8").splitlines()[1:]}
    assert rows == {("=", "+1"), ("-", "minus"), ("@home", "at")}


@pytest.mark.parametrize("use", ["possible", "sure"])
def test_an_empty_alignment_adds_nothing(use: str) -> None:
    assert (
        phrase_table_build([("a".split(), "b".split(), Alignment.from_pharaoh("", 1, 1))], use=use)
        == {}
    )
