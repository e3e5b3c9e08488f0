"""Adding annotations and gold alignments to the pairs a corpus holds: matched by id, tokens
checked, conflicts refused, all or nothing; agreement and adjudication see the added work."""

from __future__ import annotations

import io
import threading
from collections.abc import Callable
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.db import connection

from annotate.models import (
    Annotation,
    AnnotationEvent,
    AnnotationLink,
    Assignment,
    Corpus,
    GoldAlignment,
    GoldEvent,
    GoldLink,
    PairDisagreement,
    SentencePair,
)
from annotate.selectors.adjudication import AdjudicationFilters, pairs_for_adjudication
from annotate.services import import_onto
from annotate.services.agreement import agreement_inputs
from annotate.services.annotations import annotation_open, annotation_reopen, annotation_save
from annotate.services.corpora import corpus_import_records
from annotate.services.import_onto import corpus_import_onto, corpus_import_onto_records
from annotate.services.import_stage import CorpusImportError
from annotate.services.uploads import corpus_import_files
from tests.annotate.factories import make_user
from tests.annotate.records import make_record

pytestmark = [pytest.mark.django_db, pytest.mark.postgres]

RTE2 = "rte2-alignments"


def _counts() -> tuple[int, ...]:
    return tuple(
        model.objects.count()
        for model in (
            SentencePair,
            Assignment,
            Annotation,
            AnnotationLink,
            AnnotationEvent,
            GoldAlignment,
            GoldLink,
            GoldEvent,
            PairDisagreement,
        )
    )


def _corpus_with_alice() -> Corpus:
    corpus_import_records(
        corpus_name="c",
        records=[
            make_record("p1", annotations={"alice": "1-1 2-2"}),
            make_record("p2", annotations={"alice": "0-0"}),
        ],
    )
    return Corpus.objects.get(name="c")


def test_bobs_annotations_are_added_as_submitted_work_with_their_event() -> None:
    _corpus_with_alice()
    report = corpus_import_onto_records(
        corpus_name="c",
        records=[make_record("p1", annotations={"bob": "1-1 3-4"}), make_record("p2")],
    )
    assert (report.onto_existing, report.pairs, report.annotated_pairs) == (True, 2, 1)
    assert (report.annotations, report.created_users) == (1, ["bob"])
    assignment = Assignment.objects.get(annotator__username="bob")
    assert assignment.status == "submitted" and assignment.submitted_at is not None
    assert assignment.pair.external_id == "p1"
    annotation = assignment.annotation
    assert sorted(annotation.links.values_list("i", "j")) == [(1, 1), (3, 4)]
    assert annotation.link_count == 2
    # its edits against the pair's prefill (1-1 3-4 4-5 5-6): 4-5 and 5-6 removed
    assert annotation.prefill_edits == 2
    event = annotation.events.get()
    assert (event.version, event.kind, event.added) == (1, "imported", [[1, 1, "S"], [3, 4, "S"]])
    assert SentencePair.objects.count() == 2  # no pair added
    row = PairDisagreement.objects.get(pair__external_id="p1")
    assert row.submitted == 2


def test_an_open_assignment_without_work_is_taken_over() -> None:
    corpus = _corpus_with_alice()
    bob = make_user("bob")
    pair = corpus.pairs.get(external_id="p2")
    planned = Assignment.objects.create(pair=pair, annotator=bob)
    corpus_import_onto_records(
        corpus_name="c", records=[make_record("p2", annotations={"bob": "0-0"})]
    )
    planned.refresh_from_db()
    assert planned.status == "submitted" and planned.annotation.link_count == 1
    assert Assignment.objects.filter(annotator=bob).count() == 1


def test_the_same_file_imported_again_adds_what_a_cut_short_import_left_out() -> None:
    """A worker killed mid-write leaves the batches it committed: importing the file again
    counts those as unchanged and adds the rest."""
    _corpus_with_alice()
    records = [
        make_record("p1", annotations={"bob": "1-1"}, gold="1-1"),
        make_record("p2", annotations={"bob": "0-0"}, gold="0-0"),
    ]
    corpus_import_onto_records(corpus_name="c", records=records[:1])  # the committed batch
    report = corpus_import_onto_records(corpus_name="c", records=records)
    assert (report.annotations, report.annotations_unchanged) == (1, 1)
    assert (report.gold_alignments, report.gold_unchanged) == (1, 1)
    assert Annotation.objects.filter(assignment__annotator__username="bob").count() == 2


def test_gold_is_added_where_a_pair_has_none_and_left_where_it_is_the_same() -> None:
    corpus_import_records(
        corpus_name="c", records=[make_record("p1", gold="1-1"), make_record("p2")]
    )
    report = corpus_import_onto_records(
        corpus_name="c", records=[make_record("p1", gold="1-1"), make_record("p2", gold="0-0")]
    )
    assert (report.gold_alignments, report.gold_unchanged, report.annotations) == (1, 1, 0)
    gold = GoldAlignment.objects.get(pair__external_id="p2")
    assert (gold.source, gold.version) == ("imported", 1)
    assert list(gold.links.values_list("i", "j", "sure")) == [(0, 0, True)]
    assert GoldEvent.objects.filter(pair=gold.pair).get().kind == "imported"
    assert GoldAlignment.objects.get(pair__external_id="p1").version == 1


def test_a_gold_after_a_cleared_one_takes_the_next_version() -> None:
    corpus_import_records(corpus_name="c", records=[make_record("p1")])
    pair = SentencePair.objects.get()
    GoldEvent.objects.create(pair=pair, version=1, kind=GoldEvent.Kind.IMPORTED, added=[])
    GoldEvent.objects.create(pair=pair, version=2, kind=GoldEvent.Kind.CLEARED, removed=[])
    corpus_import_onto_records(corpus_name="c", records=[make_record("p1", gold="1-1")])
    assert GoldAlignment.objects.get().version == 3
    assert sorted(GoldEvent.objects.values_list("version", flat=True)) == [1, 2, 3]


def _refused(records: list, match: str) -> CorpusImportError:
    before = _counts()
    with pytest.raises(CorpusImportError, match=match) as caught:
        corpus_import_onto_records(corpus_name="c", records=records)
    assert _counts() == before
    assert "nothing was imported" in caught.value.message
    return caught.value


def test_an_annotator_with_work_on_a_pair_is_a_conflict_naming_file_line_and_pair() -> None:
    _corpus_with_alice()
    fine = make_record("p2", annotations={"bob": "0-0"})
    clash = make_record("p1", annotations={"alice": "1-1", "bob": "0-0"})
    clash.origin = ("/uploads/x/round2.jsonl", 7)
    error = _refused([fine, clash], r"pair 'p1': annotator 'alice' has an annotation")
    assert (error.extra["file"], error.extra["line"]) == ("round2.jsonl", 7)
    assert error.extra["field"] == "annotation by alice"
    assert not get_user_model().objects.filter(username="bob").exists()


def test_a_differing_gold_is_a_conflict() -> None:
    corpus_import_records(corpus_name="c", records=[make_record("p1", gold="1-1")])
    _refused([make_record("p1", gold="2-2")], r"pair 'p1': it has a gold alignment \(imported")


def test_tokens_that_differ_are_refused_naming_the_field() -> None:
    _corpus_with_alice()
    other = make_record("p1", target="a dog was sitting on the mat", annotations={"bob": "0-0"})
    other.origin = ("/in/b.jsonl", 3)
    error = _refused([other], r"target tokens differ .*token 2 is 'dog' in the file and 'cat'")
    assert (error.extra["file"], error.extra["line"], error.extra["field"]) == (
        "b.jsonl",
        3,
        "target tokens",
    )


def test_ids_not_in_the_corpus_are_refused_and_named() -> None:
    _corpus_with_alice()
    _refused(
        [make_record(pid, annotations={"bob": "0-0"}) for pid in ("p1", "p9", "p8")],
        r"2 pair ids of the file are not in corpus “c”: 'p9', 'p8'",
    )


def test_a_missing_or_archived_corpus_is_refused() -> None:
    with pytest.raises(CorpusImportError, match="no corpus named “nope”"):
        corpus_import_onto_records(corpus_name="nope", records=[make_record("p1")])
    corpus = _corpus_with_alice()
    Corpus.objects.filter(pk=corpus.pk).update(archived_at="2026-01-01T00:00Z")
    with pytest.raises(Exception, match="archived"):
        corpus_import_onto_records(corpus_name="c", records=[make_record("p1")])


def test_a_file_with_nothing_to_add_is_refused() -> None:
    _corpus_with_alice()
    _refused([make_record("p1")], "holds no annotation and no gold alignment")


def test_the_chosen_annotator_alone_is_added_from_a_file_of_several() -> None:
    _corpus_with_alice()
    report = corpus_import_onto_records(
        corpus_name="c",
        records=[make_record("p1", annotations={"alice": "2-2", "bob": "1-1"})],
        only="bob",
    )
    assert report.annotations == 1
    _refused_only = pytest.raises(CorpusImportError, match="holds no annotation by 'carol'")
    with _refused_only:
        corpus_import_onto_records(
            corpus_name="c", records=[make_record("p2", annotations={"bob": "0-0"})], only="carol"
        )


def test_a_single_alignment_file_becomes_the_chosen_annotators_work(tmp_path: Path) -> None:
    _corpus_with_alice()
    folder = tmp_path / "bob"
    folder.mkdir()
    (folder / "source.txt").write_text("the cat sat on the mat\n")
    (folder / "target.txt").write_text("a cat was sitting on the mat\n")
    (folder / "alignment.txt").write_text("1-1 2?3\n")
    (folder / "ids.txt").write_text("p2\n")
    report = corpus_import_onto(
        corpus_name="c", format_name="pharaoh", paths=[folder], annotator="bob"
    )
    assert (report.annotations, report.gold_alignments) == (1, 0)
    links = AnnotationLink.objects.filter(annotation__assignment__annotator__username="bob")
    assert sorted(links.values_list("i", "j", "sure")) == [(1, 1, True), (2, 3, False)]


def test_rte2_annotator_b_onto_a_makes_pairs_both_selectors_see(shared_data: Path) -> None:
    folder = shared_data / RTE2
    corpus_import_files(
        corpus_name="rte", format_name="rte2", paths=[folder / "RTE2_dev_A.align.txt"]
    )
    corpus = Corpus.objects.get(name="rte")
    assert not PairDisagreement.objects.filter(corpus=corpus).exists()
    call_command(
        "import_corpus",
        "--corpus",
        "rte",
        "--format",
        "rte2",
        "--onto-existing",
        str(folder / "RTE2_dev_B.align.txt"),
    )
    assert corpus.pairs.count() == 800
    assert Annotation.objects.filter(assignment__annotator__username="B").count() == 800
    records, _ = agreement_inputs(corpus, ["A", "B"])
    assert len(records) == 800
    assert all(set(record.annotations) == {"A", "B"} for record in records)
    listed = pairs_for_adjudication(AdjudicationFilters(corpus=corpus.pk))
    assert listed.count() == 800
    assert set(listed.values_list("submitted", flat=True)) == {2}
    # C's dev file writes some tokens otherwise (e.g. '..' ending pair dev:9's text)
    before = _counts()
    with pytest.raises(CorpusImportError, match=r"pair 'dev:9': its source tokens differ") as e:
        corpus_import_files(
            corpus_name="rte",
            format_name="rte2",
            paths=[folder / "RTE2_dev_C.align.txt"],
            onto_existing=True,
        )
    assert e.value.extra["file"] == "RTE2_dev_C.align.txt" and e.value.extra["line"]
    assert _counts() == before
    # B again: every annotation is B's already, the same: nothing to add, nothing refused
    report = corpus_import_files(
        corpus_name="rte",
        format_name="rte2",
        paths=[folder / "RTE2_dev_B.align.txt"],
        onto_existing=True,
    )
    assert (report.annotations, report.annotations_unchanged) == (0, 800)
    assert _counts() == before


def test_added_work_counts_as_made_without_the_pairs_prefill() -> None:
    _corpus_with_alice()
    corpus_import_onto_records(
        corpus_name="c", records=[make_record("p1", annotations={"bob": "1-1"})]
    )
    _, made_without = agreement_inputs(Corpus.objects.get(name="c"), ["alice", "bob"])
    assert ("p1", "bob") in made_without
    assert ("p1", "alice") not in made_without


def test_a_sub_corpus_or_split_is_refused_in_this_mode(tmp_path: Path) -> None:
    _corpus_with_alice()
    with pytest.raises(CorpusImportError, match="sub-corpus applies to new pairs"):
        corpus_import_files(
            corpus_name="c",
            format_name="jsonl",
            paths=[tmp_path / "x.jsonl"],
            subcorpus="news",
            onto_existing=True,
        )


def test_an_identical_annotation_is_unchanged_and_a_different_one_a_conflict() -> None:
    _corpus_with_alice()
    report = corpus_import_onto_records(
        corpus_name="c",
        records=[
            make_record("p1", annotations={"alice": "1-1 2-2", "bob": "1-1"}),
            make_record("p2", annotations={"alice": "0-0"}),
        ],
    )
    assert (report.annotations, report.annotations_unchanged, report.annotated_pairs) == (1, 2, 1)
    assert Annotation.objects.filter(assignment__annotator__username="alice").count() == 2
    error = _refused(
        [make_record("p2", annotations={"alice": "0-0 1-1"})],
        r"pair 'p2': annotator 'alice' has an annotation of it in the corpus already "
        r"\(submitted, 1 links, the file's 2 differ\)",
    )
    assert error.extra["field"] == "annotation by alice"
    alice = Assignment.objects.get(annotator__username="alice", pair__external_id="p2")
    alice.status = Assignment.Status.IN_PROGRESS
    alice.save()
    _refused(
        [make_record("p2", annotations={"alice": "0-0"})],
        r"the file's status is submitted",
    )


def test_a_full_jsonl_export_reimports_onto_its_corpus_as_unchanged(tmp_path: Path) -> None:
    corpus_import_records(
        corpus_name="c",
        records=[
            make_record("p1", annotations={"alice": "1-1 2-2", "bob": "1-1"}, gold="1-1"),
            make_record("p2", annotations={"alice": "0-0"}),
        ],
    )
    annotation = Annotation.objects.get(assignment__annotator__username="bob")
    annotation.comment, annotation.flags = "unsure", ["not_paraphrase"]
    annotation.save()
    out = tmp_path / "c.jsonl"
    call_command("export_corpus", "--corpus", "c", "--format", "jsonl", "--output", str(out))
    before = _counts()
    report = corpus_import_files(
        corpus_name="c", format_name="jsonl", paths=[out], onto_existing=True
    )
    assert (report.annotations, report.annotations_unchanged) == (0, 3)
    assert (report.gold_alignments, report.gold_unchanged) == (0, 1)
    assert _counts() == before
    out_text = io.StringIO()
    call_command(
        "import_corpus",
        "--corpus",
        "c",
        "--format",
        "jsonl",
        "--onto-existing",
        str(out),
        stdout=out_text,
    )
    assert out_text.getvalue().startswith(
        "added 0 annotations to 0 of the 2 pairs of the file in corpus “c”, 0 gold alignments "
        "(3 of the file's annotations and the gold of 1 pair were the corpus's already)"
    )
    # a comment the file gives that differs is a conflict: the file's would be lost
    out.write_text(out.read_text().replace('"unsure"', '"sure"'))
    with pytest.raises(CorpusImportError, match="the comment differs"):
        corpus_import_files(corpus_name="c", format_name="jsonl", paths=[out], onto_existing=True)


def _between_batches(monkeypatch: pytest.MonkeyPatch, *steps: Callable[[], None]) -> list[bool]:
    """Write a pair per batch and run ``steps[k]`` after the k-th batch, where the import lets
    other writers in; returns whether a transaction was open at each pause."""
    monkeypatch.setattr(import_onto, "BATCH_SIZE", 1)
    open_then: list[bool] = []

    def pause() -> None:
        open_then.append(connection.in_atomic_block)
        if len(open_then) <= len(steps):
            steps[len(open_then) - 1]()

    monkeypatch.setattr(import_onto, "let_others_write", pause, raising=False)
    return open_then


def _three_pairs() -> list:
    return [make_record(f"p{k}", annotations={"bob": "0-0"}, gold="1-1") for k in (1, 2, 3)]


@pytest.mark.django_db(transaction=True)
def test_the_write_lets_another_connection_write_between_batches(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A batch per transaction: between two, another connection writes at once (on SQLite
    the write lock is the database's; a save would wait for the whole import otherwise)."""
    corpus_import_records(corpus_name="c", records=[make_record(f"p{k}") for k in (1, 2, 3)])
    saved: list[str] = []

    def save_elsewhere() -> None:
        def save() -> None:
            try:
                Corpus.objects.filter(name="c").update(description="edited meanwhile")
                saved.append("saved")
            except Exception as error:  # the failure is what the test reports
                saved.append(repr(error))
            finally:
                connection.close()

        other = threading.Thread(target=save)
        other.start()
        other.join(30)

    open_then = _between_batches(monkeypatch, save_elsewhere, save_elsewhere)
    report = corpus_import_onto_records(corpus_name="c", records=_three_pairs())
    assert (report.annotations, report.gold_alignments) == (3, 3)
    assert saved == ["saved", "saved"]
    assert open_then == [False, False, False]
    assert Corpus.objects.get(name="c").description == "edited meanwhile"


@pytest.mark.django_db(transaction=True)
def test_a_conflict_between_batches_removes_what_the_import_wrote(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Bob opens pair p3 while the import writes p1: his annotation conflicts with the file's
    when the import reaches p3; it stops and removes its work on p1 and p2, keeping bob's."""
    corpus_import_records(corpus_name="c", records=[make_record(f"p{k}") for k in (1, 2, 3)])
    bob = make_user("bob")
    planned = Assignment.objects.create(
        pair=SentencePair.objects.get(external_id="p2"), annotator=bob
    )
    before = _counts()

    def bob_opens_p3() -> None:
        pair = SentencePair.objects.get(external_id="p3")
        annotation_open(assignment=Assignment.objects.create(pair=pair, annotator=bob), actor=bob)

    _between_batches(monkeypatch, bob_opens_p3)
    with pytest.raises(CorpusImportError, match=r"pair 'p3': annotator 'bob' has an annotation"):
        corpus_import_onto_records(corpus_name="c", records=_three_pairs())
    bobs = Annotation.objects.get(assignment__annotator=bob)
    assert (bobs.assignment.pair.external_id, bobs.version) == ("p3", 1)
    assert bobs.events.get().kind == "created"
    # what the import wrote is gone: p1's assignment, the annotations, the golds and events
    assert (
        _counts()
        == (
            before[0],
            before[1] + 1,  # bob's own on p3
            before[2] + 1,
            before[3] + len(bobs.links.all()),
            before[4] + 1,
            *before[5:],
        )
    )
    planned.refresh_from_db()  # taken over for p2, then given back as it was
    assert (planned.status, planned.submitted_at) == ("new", None)
    assert (
        not hasattr(planned, "annotation")
        or not Annotation.objects.filter(assignment=planned).exists()
    )


@pytest.mark.django_db(transaction=True)
def test_work_changed_after_the_import_wrote_it_is_kept_when_it_stops(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Bob corrects his imported p1 and an adjudicator saves p1's gold anew before the import
    fails at p3: both stay, the error names p1 and says the import is partly done; p2's
    imported work, untouched, goes."""
    corpus_import_records(corpus_name="c", records=[make_record(f"p{k}") for k in (1, 2, 3)])
    bob = make_user("bob")

    def bob_corrects_p1_and_opens_p3() -> None:
        assignment = Assignment.objects.get(annotator=bob, pair__external_id="p1")
        annotation_reopen(assignment=assignment, actor=bob)
        annotation_save(
            assignment=assignment, actor=bob, base_version=2, links={(0, 0): True, (1, 1): True}
        )
        GoldAlignment.objects.filter(pair__external_id="p1").update(version=2)
        pair = SentencePair.objects.get(external_id="p3")
        annotation_open(assignment=Assignment.objects.create(pair=pair, annotator=bob), actor=bob)

    _between_batches(monkeypatch, bob_corrects_p1_and_opens_p3)
    with pytest.raises(CorpusImportError) as caught:
        corpus_import_onto_records(corpus_name="c", records=_three_pairs())
    message = caught.value.message
    assert "pair 'p3': annotator 'bob' has an annotation" in message
    assert "partly imported" in message and "1 pair that someone changed" in message
    assert message.endswith(": 'p1')") and "nothing was imported" not in message
    assert caught.value.extra["partly_imported"] is True
    kept = Annotation.objects.get(assignment__annotator=bob, assignment__pair__external_id="p1")
    assert (kept.version, kept.assignment.status) == (3, "in_progress")
    assert GoldAlignment.objects.get().pair.external_id == "p1"
    assert not Annotation.objects.filter(assignment__pair__external_id="p2").exists()
    assert not Assignment.objects.filter(pair__external_id="p2").exists()
    assert not GoldEvent.objects.filter(pair__external_id="p2").exists()
    assert GoldEvent.objects.filter(pair__external_id="p1").count() == 1


@pytest.mark.django_db(transaction=True)
def test_a_gold_saved_between_batches_stops_the_import_and_its_new_accounts_go(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    corpus_import_records(corpus_name="c", records=[make_record(f"p{k}") for k in (1, 2, 3)])
    before = _counts()

    def adjudicator_saves_p3() -> None:
        gold = GoldAlignment.objects.create(pair=SentencePair.objects.get(external_id="p3"))
        GoldLink.objects.create(gold=gold, i=2, j=2, sure=True)

    _between_batches(monkeypatch, adjudicator_saves_p3)
    records = [make_record(f"p{k}", annotations={"carol": "0-0"}, gold="1-1") for k in (1, 2, 3)]
    with pytest.raises(CorpusImportError, match=r"pair 'p3': it has a gold alignment") as caught:
        corpus_import_onto_records(corpus_name="c", records=records)
    assert caught.value.message.endswith("(nothing was imported)")
    assert _counts() == (*before[:5], before[5] + 1, before[6] + 1, *before[7:])
    assert not get_user_model().objects.filter(username="carol").exists()
