"""import_corpus / export_corpus: the real data sets, round trips, every bad input."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from annotate.models import (
    Annotation,
    AnnotationEvent,
    AnnotationLink,
    Corpus,
    GoldAlignment,
    GoldLink,
    SentencePair,
)
from annotate.selectors.corpora import corpus_pair_records
from annotate.services.corpora import corpus_import_records
from scoring import formats
from scoring.alignment.phrase_table import phrase_table_build, write_phrase_table
from tests.annotate.records import make_record

pytestmark = [pytest.mark.django_db, pytest.mark.postgres]


def import_corpus(*args: str | Path) -> None:
    call_command("import_corpus", *[str(a) for a in args])


def export_corpus(*args: str | Path) -> None:
    call_command("export_corpus", *[str(a) for a in args])


def row_counts() -> tuple[int, ...]:
    return tuple(
        model.objects.count()
        for model in (Corpus, SentencePair, Annotation, AnnotationLink, GoldAlignment, GoldLink)
    )


# --- the real data sets ------------------------------------------------------------------------


def test_msrp_train_imports_4076_pairs_with_their_labels(shared_data: Path) -> None:
    import_corpus(
        "--corpus",
        "msrp",
        "--format",
        "msrp",
        "--split",
        "train",
        shared_data / "msrp" / "msr_paraphrase_train.txt",
    )
    pairs = SentencePair.objects.filter(corpus__name="msrp")
    assert pairs.count() == 4076
    assert set(pairs.values_list("gold_label", flat=True)) == {0, 1}
    assert set(pairs.values_list("split", flat=True)) == {"train"}
    first = pairs.order_by("position").first()
    assert first.source_tokens[:3] == ["Amrozi", "accused", "his"]


def test_sts_2012_train_imports_2234_pairs_over_three_files(shared_data: Path) -> None:
    train = shared_data / "sts2012" / "train"
    import_corpus("--corpus", "sts", "--format", "sts", *sorted(train.glob("STS.input.*.txt")))
    pairs = SentencePair.objects.filter(corpus__name="sts")
    assert pairs.count() == 2234
    assert set(pairs.values_list("subcorpus", flat=True)) == {"MSRpar", "MSRvid", "SMTeuroparl"}
    assert pairs.filter(gold_score__isnull=True).count() == 0


def test_rte2_dev_imports_800_pairs_with_three_annotations_each(shared_data: Path) -> None:
    rte = shared_data / "rte2-alignments"
    import_corpus("--corpus", "rte", "--format", "rte2", *sorted(rte.glob("RTE2_dev_*.align.txt")))
    assert SentencePair.objects.filter(corpus__name="rte").count() == 800
    annotations = Annotation.objects.filter(assignment__pair__corpus__name="rte")
    assert annotations.count() == 2400
    names = set(annotations.values_list("assignment__annotator__username", flat=True))
    assert names == {"A", "B", "C"}
    assert AnnotationLink.objects.filter(sure=False).exists(), "possible links are kept"
    assert AnnotationEvent.objects.filter(kind="imported").count() == 2400


def test_edinburgh_train_imports_714_pairs_with_sure_and_possible_gold(shared_data: Path) -> None:
    edinburgh = shared_data / "edinburgh"
    import_corpus(
        "--corpus",
        "edi",
        "--format",
        "jacana",
        edinburgh / "gold.train.sure.json",
        edinburgh / "gold.train.sure+poss.json",
    )
    assert SentencePair.objects.filter(corpus__name="edi").count() == 714
    assert GoldAlignment.objects.filter(pair__corpus__name="edi").count() == 714
    links = GoldLink.objects.filter(gold__pair__corpus__name="edi")
    assert links.filter(sure=True).exists() and links.filter(sure=False).exists()


def test_jacana_with_an_annotator_becomes_that_annotators_work(shared_data: Path) -> None:
    edinburgh = shared_data / "edinburgh"
    import_corpus(
        "--corpus",
        "edi",
        "--format",
        "jacana",
        "--annotator",
        "ed",
        edinburgh / "gold.train.sure.json",
        edinburgh / "gold.train.sure+poss.json",
    )
    assert GoldAlignment.objects.count() == 0
    assert Annotation.objects.filter(assignment__annotator__username="ed").count() == 714


# --- round trips -------------------------------------------------------------------------------


def sample_corpus() -> None:
    corpus_import_records(
        corpus_name="c",
        records=[
            make_record("a", annotations={"ann1": "0-0 1-1 2?2", "ann2": "1-1"}, gold="1-1 2?2"),
            make_record("b", "Hello , world !", "hi world", prefill="3?1", subcorpus="mtc"),
            make_record("c", prefill=None, split="test"),
        ],
    )


def test_jsonl_export_import_export_is_byte_identical(tmp_path: Path) -> None:
    sample_corpus()
    first, second = tmp_path / "one.jsonl", tmp_path / "two.jsonl"
    export_corpus("--corpus", "c", "--format", "jsonl", "--output", first)
    import_corpus("--corpus", "copy", "--format", "jsonl", first)
    export_corpus("--corpus", "copy", "--format", "jsonl", "--output", second)
    assert first.read_bytes() == second.read_bytes()
    assert b'"ann1"' in first.read_bytes() and b"bad_tokenization" in first.read_bytes()


@pytest.mark.parametrize("which", [["--annotator", "ann1"], ["--prefill"], ["--gold"]])
def test_pharaoh_export_import_export_is_byte_identical(tmp_path: Path, which: list[str]) -> None:
    sample_corpus()
    export_corpus("--corpus", "c", "--format", "pharaoh", "--output", tmp_path / "one", *which)
    import_corpus("--corpus", "copy", "--format", "pharaoh", tmp_path / "one")
    export_corpus("--corpus", "copy", "--format", "pharaoh", "--output", tmp_path / "two", "--gold")
    for name in ("source.txt", "target.txt", "alignment.txt"):
        assert (tmp_path / "one" / name).read_bytes() == (tmp_path / "two" / name).read_bytes()


def test_a_pharaoh_exports_zip_imports_as_its_folder_does(tmp_path: Path) -> None:
    """The web app downloads a Pharaoh export as a zip of its folder: the command reads it."""
    sample_corpus()
    export_corpus("--corpus", "c", "--format", "pharaoh", "--output", tmp_path / "one", "--gold")
    archive = tmp_path / "c-pharaoh-gold.zip"
    with zipfile.ZipFile(archive, "w") as out:
        for member in sorted((tmp_path / "one").iterdir()):
            out.write(member, f"c-pharaoh-gold/{member.name}")
    import_corpus("--corpus", "copy", "--format", "pharaoh", archive)
    export_corpus("--corpus", "copy", "--format", "pharaoh", "--output", tmp_path / "two", "--gold")
    for name in ("source.txt", "target.txt", "alignment.txt", "ids.txt"):
        assert (tmp_path / "one" / name).read_bytes() == (tmp_path / "two" / name).read_bytes()
    refused(
        "--corpus",
        "other",
        "--format",
        "jsonl",
        archive,
        match="c-pharaoh-gold.zip is a .zip archive, which the jsonl format does not read",
    )


def test_export_writes_the_chosen_alignment(tmp_path: Path) -> None:
    sample_corpus()
    export_corpus("--corpus", "c", "--format", "pharaoh", "--output", tmp_path / "p", "--prefill")
    lines = (tmp_path / "p" / "alignment.txt").read_text().splitlines()
    assert lines == ["1-1 3-4 4-5 5-6", "3?1"]  # pair c has no prefill: it is left out
    assert (tmp_path / "p" / "ids.txt").read_text().split() == ["a", "b"]


def test_a_phrase_table_export_is_the_export_jobs_table(tmp_path: Path) -> None:
    """``--format phrases`` writes the table the export job writes: the chosen alignment's
    phrase pairs, or every alignment's counted together, with the job's options."""
    sample_corpus()
    corpus = Corpus.objects.get(name="c")
    export_corpus("--corpus", "c", "--format", "phrases", "--output", tmp_path / "all.tsv")
    export_corpus(
        "--corpus", "c", "--format", "phrases", "--output", tmp_path / "gold.tsv", "--gold",
        "--use", "sure", "--max-length", "2", "--keep-identical",
    )  # fmt: skip
    selectors = [
        formats.select_annotator("ann1"),
        formats.select_annotator("ann2"),
        formats.select_prefill,
        formats.select_gold,
    ]
    records = list(corpus_pair_records(corpus))
    every = [
        (r.source_tokens, r.target_tokens, a)
        for r in records
        for a in (select(r) for select in selectors)
        if a is not None
    ]
    gold = [(r.source_tokens, r.target_tokens, r.gold_alignment) for r in records[:1]]
    expected = tmp_path / "expected.tsv"
    write_phrase_table(phrase_table_build(every), expected)
    assert (tmp_path / "all.tsv").read_bytes() == expected.read_bytes()
    write_phrase_table(
        phrase_table_build(gold, use="sure", max_length=2, keep_identical=True), expected
    )
    assert (tmp_path / "gold.tsv").read_bytes() == expected.read_bytes()


def test_a_phrase_table_export_with_bad_options_writes_nothing(tmp_path: Path) -> None:
    sample_corpus()
    out = tmp_path / "t.tsv"
    with pytest.raises(CommandError, match="max_length must be between 1 and 20"):
        export_corpus("--corpus", "c", "--format", "phrases", "--output", out, "--max-length", 0)
    with pytest.raises(CommandError, match="'nobody' has submitted no work in corpus “c”"):
        export_corpus(
            "--corpus", "c", "--format", "phrases", "--output", out, "--annotator", "nobody"
        )
    with pytest.raises(CommandError, match="apply to phrases only"):
        export_corpus("--corpus", "c", "--format", "jsonl", "--output", out, "--use", "sure")
    assert list(tmp_path.iterdir()) == []


# --- bad input: one clear message naming file, line and field; nothing written ---------------


def refused(*args: str | Path, match: str) -> None:
    before = row_counts()
    with pytest.raises(CommandError, match=match):
        import_corpus(*args)
    assert row_counts() == before, "a refused import must change nothing"


def test_a_wrong_column_count_is_refused_with_file_and_line(tmp_path: Path) -> None:
    bad = tmp_path / "msrp.txt"
    bad.write_text(
        "Quality\t#1 ID\t#2 ID\t#1 String\t#2 String\n"
        "1\t1\t2\tA cat sat .\tA cat was sitting .\n"
        "0\t3\t4\tonly four columns\n",
        encoding="utf-8",
    )
    refused("--corpus", "x", "--format", "msrp", bad, match=rf"{bad.name}:3")


def test_a_pair_of_10000_tokens_is_refused_and_nothing_stored(tmp_path: Path) -> None:
    good = {"id": "p1", "source_tokens": ["a", "b"], "target_tokens": ["a", "c"]}
    huge = {"id": "p2", "source_tokens": ["w"] * 10_000, "target_tokens": ["w"] * 10_000}
    path = tmp_path / "long.jsonl"
    path.write_text(json.dumps(good) + "\n" + json.dumps(huge) + "\n")
    refused("--corpus", "x", "--format", "jsonl", path, match=rf"{path.name}:2.*10,000 tokens")


def test_a_line_nested_100000_deep_is_refused_and_nothing_stored(tmp_path: Path) -> None:
    good = {"id": "p1", "source_tokens": ["a", "b"], "target_tokens": ["a", "c"]}
    path = tmp_path / "deep.jsonl"
    path.write_text(json.dumps(good) + "\n" + "[" * 100_000 + "]" * 100_000 + "\n")
    refused("--corpus", "x", "--format", "jsonl", path, match=rf"{path.name}:2.*nested too deeply")


def test_a_link_outside_the_sentence_is_refused(tmp_path: Path) -> None:
    directory = tmp_path / "ph"
    directory.mkdir()
    (directory / "source.txt").write_text("a b c\nd e\n")
    (directory / "target.txt").write_text("x y\nz\n")
    (directory / "alignment.txt").write_text("0-0 2-1\n1-3\n")
    refused("--corpus", "x", "--format", "pharaoh", directory, match=r"alignment\.txt:2.*1-3")


def test_token_counts_that_differ_between_annotators_are_refused(
    tmp_path: Path, shared_data: Path
) -> None:
    rte = shared_data / "rte2-alignments"
    copies = []
    for letter in "ABC":
        text = (rte / f"RTE2_dev_{letter}.align.txt").read_text(encoding="utf-8-sig")
        if letter == "C":  # one extra text token in pair 1 of annotator C's file
            lines = text.split("\n")
            lines[1] = lines[1] + " extra"
            text = "\n".join(lines)
        path = tmp_path / f"RTE2_dev_{letter}.align.txt"
        path.write_text(text, encoding="utf-8")
        copies.append(path)
    refused("--corpus", "x", "--format", "rte2", *copies, match=r"RTE2_dev_C\.align\.txt:2")


def test_non_utf8_bytes_are_refused(tmp_path: Path) -> None:
    bad = tmp_path / "c.jsonl"
    bad.write_bytes(b'{"id": "caf\xe9"}\n')
    refused("--corpus", "x", "--format", "jsonl", bad, match=rf"{bad.name}:1.*UTF-8")


def test_an_empty_file_is_refused(tmp_path: Path) -> None:
    bad = tmp_path / "empty.jsonl"
    bad.write_text("")
    refused("--corpus", "x", "--format", "jsonl", bad, match=rf"{bad.name}.*empty")


def test_duplicate_ids_are_refused(tmp_path: Path) -> None:
    sample_corpus()
    path = tmp_path / "c.jsonl"
    export_corpus("--corpus", "c", "--format", "jsonl", "--output", path)
    first = path.read_text().splitlines()[0]
    path.write_text(f"{first}\n{first}\n")
    refused("--corpus", "x", "--format", "jsonl", path, match=rf"{path.name}:2.*'a'")


def test_an_id_already_in_the_corpus_is_refused(tmp_path: Path) -> None:
    sample_corpus()
    path = tmp_path / "c.jsonl"
    export_corpus("--corpus", "c", "--format", "jsonl", "--output", path)
    refused(
        "--corpus",
        "c",
        "--format",
        "jsonl",
        path,
        match=rf"'a' \(in {path.name}, line 1\) already exists in corpus “c”",
    )


def test_a_pair_of_too_many_links_is_refused_naming_its_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "big.jsonl"
    words = [f"w{k}" for k in range(110)]
    everything = [[i, j] for i in range(110) for j in range(110)]
    path.write_text(
        json.dumps({"id": "fine", "source_tokens": ["a"], "target_tokens": ["a"]})
        + "\n"
        + json.dumps(
            {
                "id": "big",
                "source_tokens": words,
                "target_tokens": words,
                "gold_alignment": {"sure": everything, "possible": []},
            }
        )
        + "\n"
    )
    refused(
        "--corpus",
        "x",
        "--format",
        "jsonl",
        path,
        match=r"pair 'big' \(in big.jsonl, line 2\): the gold has 12,100 links",
    )


def test_an_unknown_format_is_refused_listing_the_known_ones(tmp_path: Path) -> None:
    refused("--corpus", "x", "--format", "xml", tmp_path, match="unknown format 'xml'.*jsonl")


def test_an_error_late_in_a_file_rolls_back_the_pairs_before_it(tmp_path: Path) -> None:
    good = "\t".join(["1", "1", "2", "A cat sat .", "A cat was sitting ."])
    lines = ["Quality\t#1 ID\t#2 ID\t#1 String\t#2 String"]
    lines += [good.replace("\t1\t2\t", f"\t{i}\t{i + 5000}\t") for i in range(2500)]
    lines.append("1\t9\t9\tno second sentence")
    bad = tmp_path / "long.txt"
    bad.write_text("\n".join(lines) + "\n", encoding="utf-8")
    refused("--corpus", "x", "--format", "msrp", bad, match=rf"{bad.name}:2502")


def test_annotator_is_refused_for_formats_that_name_their_own(shared_data: Path) -> None:
    refused(
        "--corpus",
        "x",
        "--format",
        "msrp",
        "--annotator",
        "u",
        shared_data / "msrp" / "msr_paraphrase_test.txt",
        match="does not apply",
    )


def test_export_of_an_unknown_corpus_is_refused(tmp_path: Path) -> None:
    with pytest.raises(CommandError, match="no corpus named “nope”"):
        export_corpus("--corpus", "nope", "--format", "jsonl", "--output", tmp_path / "x")


def test_export_to_a_read_only_format_is_refused(tmp_path: Path) -> None:
    sample_corpus()
    with pytest.raises(CommandError, match="cannot be written"):
        export_corpus("--corpus", "c", "--format", "msrp", "--output", tmp_path / "x")
