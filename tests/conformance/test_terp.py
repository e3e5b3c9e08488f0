"""TERp against TERp 1.0's own regression sample (conformance/terp).

The sample is TERp's ``test/`` run: nine newstest2009 segments (``sample.hyp.sgm`` against
``sample.ref.sgm``) scored by ``bin/terpa`` with the phrase table ``sample.pt.txt``, WordNet 3.0
and the shift stop-word list. ``terpa.simple.param`` is the parameter dump of that run,
``terpa.simple.pra`` its per-segment edit sequences and ``terpa.simple.sample.seg.scr`` its
segment scores (``set sys doc seg score ref_len``). Paths inside the parameter file point at the
original machine; the test gives the local stop list and phrase table instead.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from scoring.edit.terp import (
    Terp,
    TerpAlignment,
    read_params,
    read_phrase_table,
    read_sgml,
    read_shift_stop_words,
)


@dataclass(frozen=True)
class PraSegment:
    ref_tokens: str
    hyp_tokens: str
    hyp_after_shift: str
    alignment: str
    shifts: list[tuple[int, int, int, int]]
    phrases: list[tuple[float, float, str, str]]
    num_edits: float
    num_words: float


def _read_pra(path: Path) -> dict[tuple[str, str], PraSegment]:
    out: dict[tuple[str, str], PraSegment] = {}
    for block in path.read_text().split("Sentence ID: ")[1:]:
        head = re.match(r"\[(.*?)\]\[(\d+)\]", block)
        assert head is not None

        def line(name: str, text: str = block) -> str:
            found = re.search(rf"^{name}: (.*)$", text, re.M)
            assert found is not None, name
            return found.group(1)

        score = re.search(r"^Score: \S+ \((\S+) / (\S+)\)$", block, re.M)
        assert score is not None
        out[(head.group(1), str(int(head.group(2))))] = PraSegment(
            ref_tokens=line("Reference"),
            hyp_tokens=line("Hypothesis"),
            hyp_after_shift=line("Hypothesis After Shift"),
            alignment=re.fullmatch(r"\((.*)\)", line("Alignment")).group(1),  # type: ignore[union-attr]
            shifts=[
                tuple(int(x) for x in m)  # type: ignore[misc]
                for m in re.findall(r"^  \[(\d+), (\d+), (-?\d+)/(-?\d+)\]", block, re.M)
            ],
            phrases=[
                (float(a), float(b), c, d)
                for a, b, c, d in re.findall(
                    r"^  NewCost: (\S+) OrigCost: (\S+) <p>(.*)</p> <p>(.*)</p>$", block, re.M
                )
            ],
            num_edits=float(score.group(1)),
            num_words=float(score.group(2)),
        )
    return out


@pytest.fixture(scope="module")
def sample(shared_data: Path) -> Path:
    return shared_data / "conformance/terp"


@pytest.fixture(scope="module")
def results(sample: Path) -> dict[tuple[str, str], TerpAlignment]:
    params = read_params(sample / "terpa.simple.param")
    terp = Terp(
        params,
        phrase_table=read_phrase_table(sample / "sample.pt.txt"),
        shift_stop_words=read_shift_stop_words(sample / "shift_word_stop_list.txt", params),
    )
    hyps = read_sgml(sample / "sample.hyp.sgm")
    refs = read_sgml(sample / "sample.ref.sgm")
    assert sorted(hyps) == sorted(refs) and len(hyps) == 9
    return {key: terp.align(hyps[key], refs[key]) for key in hyps}


@pytest.fixture(scope="module")
def pra(sample: Path) -> dict[tuple[str, str], PraSegment]:
    return _read_pra(sample / "terpa.simple.pra")


def test_segment_scores_equal_terps_within_1e_3(
    results: dict[tuple[str, str], TerpAlignment], sample: Path
) -> None:
    rows = [
        line.split("\t")
        for line in (sample / "terpa.simple.sample.seg.scr").read_text().splitlines()
    ]
    assert len(rows) == 9
    for _set, _sys, doc, seg, score, ref_len in rows:
        got = results[(doc, seg)]
        assert got.score == pytest.approx(float(score), abs=1e-3), (doc, seg)
        assert got.ref_len == float(ref_len)


def test_system_score_equals_terps(
    results: dict[tuple[str, str], TerpAlignment], sample: Path
) -> None:
    _set, _sys, score, words = (sample / "terpa.simple.sample.sys.scr").read_text().split("\t")
    edits = sum(a.num_edits for a in results.values())
    total = sum(a.ref_len for a in results.values())
    assert total == float(words)
    assert edits / total == pytest.approx(float(score), abs=1e-6)


def test_tokens_equal_terps_normalization(
    results: dict[tuple[str, str], TerpAlignment], pra: dict[tuple[str, str], PraSegment]
) -> None:
    for key, gold in pra.items():
        assert " ".join(results[key].ref) == gold.ref_tokens, key
        assert " ".join(results[key].hyp) == gold.hyp_tokens, key


def test_edit_sequences_equal_terps(
    results: dict[tuple[str, str], TerpAlignment], pra: dict[tuple[str, str], PraSegment]
) -> None:
    assert sorted(results) == sorted(pra)
    diffs = []
    for key, gold in pra.items():
        got = results[key]
        mine = (got.ops, " ".join(got.hyp_after_shifts))
        if mine != (gold.alignment, gold.hyp_after_shift):
            diffs.append(f"{key}\n  TERp: ({gold.alignment})\n  ours: ({got.ops})")
    assert not diffs, "\n".join(diffs)


def test_shifts_equal_terps(
    results: dict[tuple[str, str], TerpAlignment], pra: dict[tuple[str, str], PraSegment]
) -> None:
    for key, gold in pra.items():
        got = [(s.start, s.end, s.moveto, s.newloc) for s in results[key].shifts]
        assert got == gold.shifts, key


def test_phrase_substitutions_and_their_adjusted_costs_equal_terps(
    results: dict[tuple[str, str], TerpAlignment], pra: dict[tuple[str, str], PraSegment]
) -> None:
    used = 0
    for key, gold in pra.items():
        got = [
            (cost, entry.prob, " ".join(entry.ref), " ".join(entry.hyp))
            for entry, cost in results[key].phrases
        ]
        assert got == gold.phrases, key
        assert results[key].num_edits == pytest.approx(gold.num_edits, abs=5e-4)
        used += len(got)
    assert used == 3
