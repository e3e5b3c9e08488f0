"""Property tests (hypothesis) of the file formats and the metrics.

Formats: every writable format reads back what it wrote, for any records hypothesis builds;
every reader, given arbitrary bytes, either reads them or raises :class:`FormatError` naming
the file (never another exception). Metrics: scores lie in [0, 1] or are undefined, never both
0 and undefined; an alignment agrees perfectly with itself; swapping candidate and reference
swaps precision and recall; every extracted phrase pair is consistent with the alignment and
the smallest ones are atomic.
"""

from __future__ import annotations

import json
import string
import tempfile
from pathlib import Path

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from scoring.alignment.links import Alignment
from scoring.alignment.metrics import phrase_counts, phrase_scores, word_counts, word_scores
from scoring.alignment.phrases import extract_phrase_pairs
from scoring.corpus import AnnotationRecord, PairRecord
from scoring.errors import FormatError, ScoringError
from scoring.formats import get_format, select_annotator
from tests.scoring.strategies import SETTINGS, alignments

TOKEN = st.text(alphabet=string.ascii_letters + "'.,-", min_size=1, max_size=6)


@st.composite
def records(draw: st.DrawFn, index: int = 0) -> PairRecord:
    source = draw(st.lists(TOKEN, min_size=1, max_size=7))
    target = draw(st.lists(TOKEN, min_size=1, max_size=7))
    n, m = len(source), len(target)
    return PairRecord(
        id=f"p{index}",
        source_tokens=source,
        target_tokens=target,
        source_text=" ".join(source),
        target_text=" ".join(target),
        annotations={"ann": AnnotationRecord(alignment=draw(alignments(n, m)))},
        prefill=draw(st.none() | alignments(n, m)),
        gold_alignment=draw(st.none() | alignments(n, m)),
    )


@st.composite
def corpora(draw: st.DrawFn) -> list[PairRecord]:
    size = draw(st.integers(1, 4))
    return [draw(records(k)) for k in range(size)]


def _roundtrip(name: str, items: list[PairRecord], **read_options: str) -> list[PairRecord]:
    spec = get_format(name)
    with tempfile.TemporaryDirectory() as tmp:
        output = Path(tmp) / ("out" if spec.output_kind == "directory" else f"out.{name}")
        select = None if name == "jsonl" else select_annotator("ann")
        spec.write(items, output, alignment=select)
        return list(spec.read([output], **read_options))


@SETTINGS
@given(corpora())
def test_jsonl_reads_back_every_field(items: list[PairRecord]) -> None:
    back = _roundtrip("jsonl", items)
    assert [(r.id, r.source_tokens, r.target_tokens) for r in back] == [
        (r.id, r.source_tokens, r.target_tokens) for r in items
    ]
    for old, new in zip(items, back, strict=True):
        assert new.annotations["ann"].alignment == old.annotations["ann"].alignment
        assert new.prefill == old.prefill and new.gold_alignment == old.gold_alignment


@SETTINGS
@given(corpora(), st.sampled_from(["pharaoh", "jacana"]))
def test_single_alignment_formats_read_back_the_alignment_they_wrote(
    items: list[PairRecord], name: str
) -> None:
    back = _roundtrip(name, items, annotator="ann")
    assert [r.source_tokens for r in back] == [r.source_tokens for r in items]
    assert [r.annotations["ann"].alignment for r in back] == [
        r.annotations["ann"].alignment for r in items
    ]


READERS = {
    "jsonl": ["corpus.jsonl"],
    "jacana": ["gold.train.sure.json"],
    "msrp": ["msr_paraphrase_train.txt"],
    "rte2": ["RTE2_dev_A.align.txt"],
    "sts": ["STS.input.MSRpar.txt", "STS.gs.MSRpar.txt"],
    "pharaoh": ["source.txt", "target.txt", "alignment.txt"],
}
CHUNKS = st.sampled_from(
    [
        b"",
        b"\n",
        b"\t",
        b"{",
        b"}",
        b"[",
        b"]",
        b'"',
        b"0-1 ",
        b"2?3 ",
        b"1-1-S",
        b" ",
        b"\xff",
        b"\xef\xbb\xbf",
        b"({ 1 2 p3 })",
        b"NULL",
        b"a b c",
        b"1\t2\t3\t",
        b"5.0",
        b'{"id": "x"',
        b'"sureAlign": "0-0"',
        "é".encode(),
        b"\r\n",
        b"-1",
        b"99999999999999999999",
    ]
)


@SETTINGS
@given(
    st.sampled_from(sorted(READERS)),
    st.lists(st.lists(CHUNKS, max_size=12).map(b"".join), min_size=3, max_size=3),
)
def test_readers_read_or_name_the_file_on_any_bytes(name: str, contents: list[bytes]) -> None:
    spec = get_format(name)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        files = READERS[name]
        for file_name, content in zip(files, contents, strict=False):
            (folder / file_name).write_bytes(content)
        paths = [folder] if spec.input_kind == "directory" else [folder / files[0]]
        try:
            for record in spec.read(paths):
                assert record.source_tokens and record.target_tokens
        except FormatError as error:
            assert tmp in str(error), f"the error names no file of the input: {error}"


@st.composite
def comparisons(draw: st.DrawFn) -> tuple[list[str], list[str], Alignment, Alignment]:
    source = draw(st.lists(st.sampled_from("a b c d the cat".split()), min_size=1, max_size=6))
    target = draw(st.lists(st.sampled_from("a b c e the dog".split()), min_size=1, max_size=6))
    n, m = len(source), len(target)
    return source, target, draw(alignments(n, m)), draw(alignments(n, m))


def _in_unit(value: float | None) -> bool:
    return value is None or 0.0 <= value <= 1.0


@SETTINGS
@given(comparisons(), st.booleans(), st.sampled_from(["mixed", "possible", "sure"]))
def test_word_scores_are_proportions_or_undefined(case, keep, kind) -> None:  # type: ignore[no-untyped-def]
    source, target, a, b = case
    scores = word_scores(word_counts(a, b, source, target, exclude_identical=not keep), kind)
    assert all(_in_unit(v) for v in (scores.precision, scores.recall, scores.f1, scores.aer))
    p, r = scores.precision, scores.recall
    if p is None or r is None:
        assert scores.f1 is None
    elif p + r > 0:
        assert scores.f1 is not None and min(p, r) <= scores.f1 <= max(p, r)


@SETTINGS
@given(comparisons(), st.sampled_from(["possible", "sure"]))
def test_swapping_the_alignments_swaps_precision_and_recall(case, kind) -> None:  # type: ignore[no-untyped-def]
    source, target, a, b = case
    forward = word_scores(word_counts(a, b, source, target), kind)
    backward = word_scores(word_counts(b, a, source, target), kind)
    assert forward.precision == backward.recall and forward.recall == backward.precision
    ab = phrase_scores(phrase_counts(a, b, source, target, kind=kind))
    ba = phrase_scores(phrase_counts(b, a, source, target, kind=kind))
    assert _in_unit(ab.precision) and _in_unit(ab.recall) and _in_unit(ba.f1)


@SETTINGS
@given(comparisons())
def test_an_alignment_agrees_with_itself_wherever_it_is_defined(case) -> None:  # type: ignore[no-untyped-def]
    source, target, a, _ = case
    for kind in ("possible", "sure"):
        words = word_scores(word_counts(a, a, source, target), kind)
        phrases = phrase_scores(phrase_counts(a, a, source, target, kind=kind))
        for value in (words.precision, words.recall, phrases.precision, phrases.recall):
            assert value in (None, 1.0)


@SETTINGS
@given(comparisons(), st.booleans())
def test_extracted_phrase_pairs_are_consistent_and_atomic_ones_are_among_them(
    case: tuple[list[str], list[str], Alignment, Alignment], boundary: bool
) -> None:
    _, _, a, _ = case
    pairs = extract_phrase_pairs(a, boundary_rule=boundary)
    links = a.possible
    for i1, i2, j1, j2 in pairs.spans.tolist():
        inside = [(i, j) for i, j in links if i1 <= i <= i2 and j1 <= j <= j2]
        assert inside, "a phrase pair holds a link"
        assert all((i1 <= i <= i2) == (j1 <= j <= j2) for i, j in links)
    assert pairs.atomic.dtype == np.bool_ and len(pairs.atomic) == len(pairs.spans)
    if len(pairs.spans):
        assert pairs.atomic.any(), "the smallest phrase pair is atomic"


def test_a_bad_json_value_is_a_format_error_not_a_crash(tmp_path: Path) -> None:
    path = tmp_path / "corpus.jsonl"
    path.write_text(json.dumps({"id": "p", "source_tokens": "ab", "target_tokens": ["c"]}) + "\n")
    try:
        list(get_format("jsonl").read([path]))
    except ScoringError as error:
        assert "corpus.jsonl" in str(error)
    else:
        raise AssertionError("a string of tokens must be refused")
