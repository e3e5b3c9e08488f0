"""The lossless jsonl format: every field survives, output is canonical, bad lines are named."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scoring.alignment.links import Alignment
from scoring.corpus import AnnotationRecord, PairRecord
from scoring.errors import FormatError
from scoring.formats import get_format, jsonl
from scoring.formats.rte2 import read_rte2
from tests.scoring.formats._helpers import assert_points_at


def full_record(pair_id: str = "news-common:1") -> PairRecord:
    """A record with every field set, including awkward values."""
    source = ["The", "cat", "sat", "."]
    target = ["A", "cat", "was", "sitting", "."]
    return PairRecord(
        id=pair_id,
        source_tokens=source,
        target_tokens=target,
        source_text="The cat sat.",
        target_text="A cat was sitting — “really”.",
        subcorpus="news",
        split="train",
        gold_score=3.8,
        gold_label=1,
        prefill=Alignment.from_links(4, 5, sure=[(1, 1), (3, 4)], possible=[(2, 2), (2, 3)]),
        prefill_aligner="giza++ 1.0.7",
        prefill_confidence={(1, 1): 0.93, (3, 4): 1.0, (2, 2): 1 / 3},
        annotations={
            "bob": AnnotationRecord(
                alignment=Alignment.from_links(4, 5, sure=[(3, 4), (1, 1)], possible=[(0, 0)]),
                status="in_progress",
                flags=("bad_tokenization", "not_paraphrase"),
                rating=4.5,
                comment='tricky "was sitting"\nsecond line',
            ),
            "alice": AnnotationRecord(alignment=Alignment.empty(4, 5)),
        },
        gold_alignment=Alignment.from_links(4, 5, sure=[(1, 1)], possible=[(2, 3)]),
        metadata={"jacana": {"partition": "common"}, "numbers": [1, 2.5, None]},
    )


def write_lines(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def minimal(**fields: object) -> str:
    data: dict[str, object] = {"id": "p1", "source_tokens": ["a", "b"], "target_tokens": ["c"]}
    data.update(fields)
    return json.dumps(data)


def test_every_field_survives_a_write_and_a_read(tmp_path: Path) -> None:
    records = [full_record("a"), full_record("b")]
    output = tmp_path / "corpus.jsonl"
    jsonl.write(records, output)
    assert list(jsonl.read([output])) == records


def test_export_import_export_is_byte_identical(tmp_path: Path) -> None:
    first = tmp_path / "first.jsonl"
    second = tmp_path / "second.jsonl"
    jsonl.write([full_record("a"), full_record("b")], first)
    jsonl.write(jsonl.read([first]), second)
    assert first.read_bytes() == second.read_bytes()


def test_output_is_one_sorted_compact_line_per_pair(tmp_path: Path) -> None:
    output = tmp_path / "corpus.jsonl"
    jsonl.write([full_record()], output)
    text = output.read_text(encoding="utf-8")
    assert text.endswith("}\n") and text.count("\n") == 1
    data = json.loads(text)
    assert list(data) == sorted(data)
    assert data["prefill"]["sure"] == [[1, 1], [3, 4]]
    assert data["prefill"]["possible"] == [[2, 2], [2, 3]]  # P − S only
    assert data["prefill"]["confidence"] == [[1, 1, 0.93], [2, 2, 1 / 3], [3, 4, 1.0]]
    assert data["annotations"]["bob"]["flags"] == ["bad_tokenization", "not_paraphrase"]
    assert "“really”" in text  # UTF-8, not \\u escapes


def test_a_minimal_line_reads_with_defaults(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "c.jsonl", [minimal()])
    (record,) = jsonl.read([path])
    assert record == PairRecord(
        id="p1", source_tokens=["a", "b"], target_tokens=["c"], source_text="a b", target_text="c"
    )


def test_a_line_without_its_texts_gets_the_detokenized_tokens_and_keeps_an_empty_one(
    tmp_path: Path,
) -> None:
    # Else a corpus imported from tokens alone lists no words and its word search finds nothing.
    lines = [
        minimal(source_tokens=["He", "said", "``", "no", "''", "."], target_tokens=["No", "."]),
        minimal(id="p2", source_text="", target_text=""),
    ]
    first, second = jsonl.read([write_lines(tmp_path / "c.jsonl", lines)])
    assert (first.source_text, first.target_text) == ('He said "no".', "No.")
    assert (second.source_text, second.target_text) == ("", "")  # a written file reads as written


def test_a_link_listed_as_sure_and_possible_is_sure(tmp_path: Path) -> None:
    line = minimal(gold_alignment={"sure": [[0, 0]], "possible": [[0, 0], [1, 0]]})
    (record,) = jsonl.read([write_lines(tmp_path / "c.jsonl", [line])])
    assert record.gold_alignment == Alignment.from_links(2, 1, [(0, 0)], [(1, 0)])


def test_integer_confidences_read_as_floats(tmp_path: Path) -> None:
    line = minimal(prefill={"sure": [[0, 0]], "possible": [[1, 0]], "confidence": [[1, 0, 1]]})
    (record,) = jsonl.read([write_lines(tmp_path / "c.jsonl", [line])])
    assert record.prefill_confidence == {(1, 0): 1.0}
    assert type(record.prefill_confidence[(1, 0)]) is float


def test_blank_lines_are_skipped(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "c.jsonl", [minimal(), "", minimal(id="p2"), "   "])
    assert [record.id for record in jsonl.read([path])] == ["p1", "p2"]


# --- bad input -------------------------------------------------------------------------------


def read_error(path: Path) -> FormatError:
    with pytest.raises(FormatError) as caught:
        list(jsonl.read([path]))
    return caught.value


def test_it_rejects_links_outside_the_sentence(tmp_path: Path) -> None:
    line = minimal(annotations={"alice": {"sure": [[0, 0]], "possible": [[2, 0]]}})
    path = write_lines(tmp_path / "c.jsonl", [minimal(id="p0"), line])
    error = read_error(path)
    assert_points_at(error, path, 2, "annotations.alice.possible[0]")
    assert "outside the sentence pair" in str(error)


def test_it_rejects_a_confidence_for_a_link_the_prefill_lacks(tmp_path: Path) -> None:
    line = minimal(prefill={"sure": [[0, 0]], "confidence": [[1, 0, 0.5]]})
    path = write_lines(tmp_path / "c.jsonl", [line])
    assert_points_at(read_error(path), path, 1, "prefill.confidence[0]")


def test_it_rejects_duplicate_ids(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "c.jsonl", [minimal(), minimal(id="p2"), minimal()])
    error = read_error(path)
    assert_points_at(error, path, 3, "id")
    assert "duplicate id 'p1' (first used on line 1)" in str(error)


def test_it_rejects_duplicate_ids_across_files(tmp_path: Path) -> None:
    first = write_lines(tmp_path / "a.jsonl", [minimal()])
    second = write_lines(tmp_path / "b.jsonl", [minimal()])
    with pytest.raises(FormatError) as caught:
        list(jsonl.read([first, second]))
    assert_points_at(caught.value, second, 1, "id")


def test_it_rejects_an_empty_file(tmp_path: Path) -> None:
    path = tmp_path / "empty.jsonl"
    path.write_bytes(b"")
    error = read_error(path)
    assert_points_at(error, path, 1, "(file)")
    assert "empty" in str(error)


def test_it_rejects_a_file_of_blank_lines(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "blank.jsonl", ["", ""])
    assert_points_at(read_error(path), path, 1, "id")


def test_it_rejects_non_utf8_bytes_naming_the_field(tmp_path: Path) -> None:
    path = tmp_path / "latin1.jsonl"
    good = minimal().encode()
    bad = minimal(source_text="caf\u00e9").encode().replace(b"caf\\u00e9", b"caf\xe9")
    path.write_bytes(good.replace(b'"p1"', b'"p0"') + b"\n" + bad + b"\n")
    error = read_error(path)
    assert_points_at(error, path, 2, "source_text")
    assert "UTF-8" in str(error)


@pytest.mark.parametrize(
    ("line", "field"),
    [
        ("{not json", "(json)"),
        ("[1, 2]", "(json)"),
        (json.dumps({"source_tokens": ["a"], "target_tokens": ["b"]}), "id"),
        (minimal(source_tokens=[]), "source_tokens"),
        (minimal(target_tokens=["ok", ""]), "target_tokens[1]"),
        # no other format could write them (the Pharaoh export of such a corpus failed)
        (minimal(source_tokens=["New York"]), "source_tokens[0]"),
        (minimal(target_tokens=["ok", "a\tb"]), "target_tokens[1]"),
        (minimal(target_tokens=["ok", "line\n"]), "target_tokens[1]"),
        (minimal(target_tokens=["\u00a0"]), "target_tokens[0]"),
        (minimal(gold_score="high"), "gold_score"),
        (minimal(gold_label=True), "gold_label"),
        (minimal(gold_label=0.5), "gold_label"),
        (minimal(colour="red"), "colour"),
        (minimal(annotations={"alice": {"sure": [[0]]}}), "annotations.alice.sure[0]"),
        (minimal(annotations={"alice": {"rating": 7}}), "annotations.alice.rating"),
        (minimal(annotations={"alice": {"status": "done"}}), "annotations.alice.status"),
        (minimal(annotations={"alice": {"sure": [], "extra": 1}}), "annotations.alice.extra"),
        (minimal(annotations={"alice": {"flags": "unsure"}}), "annotations.alice.flags"),
        (
            minimal(annotations={"alice": {"flags": ["not_paraphrase", "unsure"]}}),
            "annotations.alice.flags[1]",
        ),
        (minimal(gold_alignment={"sure": [[-1, 0]]}), "gold_alignment.sure[0]"),
        (minimal(gold_alignment={"sure": [[0, 0], [True, 0]]}), "gold_alignment.sure[1]"),
        (
            minimal(prefill={"sure": [[0, 0]], "confidence": [[0, 0, "hi"]]}),
            "prefill.confidence[0]",
        ),
        (minimal(metadata=[1]), "metadata"),
        (
            '{"id": "p1", "source_tokens": ["a"], "target_tokens": ["b"], "gold_score": NaN}',
            "(json)",
        ),
    ],
)
def test_it_names_the_field_of_a_bad_value(tmp_path: Path, line: str, field: str) -> None:
    path = write_lines(tmp_path / "c.jsonl", [line])
    assert_points_at(read_error(path), path, 1, field)


def test_it_refuses_an_alignment_choice_because_it_writes_them_all(tmp_path: Path) -> None:
    with pytest.raises(FormatError) as caught:
        jsonl.write([full_record()], tmp_path / "c.jsonl", alignment=lambda r: r.prefill)
    assert caught.value.field == "alignment"


def test_a_failing_write_leaves_no_file(tmp_path: Path) -> None:
    output = tmp_path / "c.jsonl"
    bad = full_record("b")
    bad.metadata = {"not json": object()}
    with pytest.raises(FormatError):
        jsonl.write([full_record("a"), bad], output)
    assert list(tmp_path.iterdir()) == []


def test_the_registry_reads_it_lazily(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "c.jsonl", [minimal(), "{broken"])
    records = get_format("jsonl").read([path])
    assert next(records).id == "p1"  # the bad second line is not reached yet
    with pytest.raises(FormatError):
        next(records)


def test_the_rte2_set_survives_jsonl_byte_for_byte(shared_data: Path, tmp_path: Path) -> None:
    """Real records: three annotations per pair and nested metadata (NULL links, variants)."""
    records = read_rte2(sorted((shared_data / "rte2-alignments").glob("RTE2_dev_*.align.txt")))
    first, second = tmp_path / "first.jsonl", tmp_path / "second.jsonl"
    jsonl.write(records, first)
    again = list(jsonl.read([first]))
    jsonl.write(again, second)
    assert again == records
    assert first.read_bytes() == second.read_bytes()


def test_an_unknown_flag_is_refused_naming_the_known_ones(tmp_path: Path) -> None:
    """Flags are a closed set, as statuses are: one the web app does not know would be kept
    by the import and then lost when its annotator submitted the pair again."""
    path = write_lines(tmp_path / "c.jsonl", [minimal(annotations={"bob": {"flags": ["Unsure"]}})])
    error = read_error(path)
    assert_points_at(error, path, 1, "annotations.bob.flags[0]")
    assert "unknown flag 'Unsure'" in str(error) and "bad_tokenization, not_paraphrase" in str(
        error
    )


def test_the_known_flags_read_in_any_order_and_once_each(tmp_path: Path) -> None:
    flags = ["not_paraphrase", "bad_tokenization"]
    path = write_lines(tmp_path / "c.jsonl", [minimal(annotations={"bob": {"flags": flags}})])
    (record,) = jsonl.read([path])
    assert record.annotations["bob"].flags == ("not_paraphrase", "bad_tokenization")
    twice = write_lines(
        tmp_path / "d.jsonl", [minimal(annotations={"bob": {"flags": flags + flags[:1]}})]
    )
    assert_points_at(read_error(twice), twice, 1, "annotations.bob.flags[2]")


def test_a_cut_short_line_says_what_is_wrong_without_a_dangling_position(tmp_path: Path) -> None:
    path = tmp_path / "x.jsonl"
    path.write_text('{"id": "p1", "source_tokens": ["a", "b\n', encoding="utf-8")
    message = str(read_error(path))
    assert message.endswith("not valid JSON (column 37): Unterminated string"), message
