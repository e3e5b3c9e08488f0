"""An import reads and checks every record before it writes, and writes a batch per transaction
into a hidden staging corpus, so other users' writes wait a batch at most; it stays all or
nothing."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.db import connection

from annotate.models import (
    Annotation,
    AnnotationEvent,
    AnnotationLink,
    Assignment,
    AutoAlignment,
    AutoLink,
    Corpus,
    GoldAlignment,
    GoldEvent,
    GoldLink,
    PairDisagreement,
    SentencePair,
)
from annotate.services import corpora
from annotate.services.corpora import BATCH_SIZE, READ_REPORT_EVERY, corpus_import
from annotate.services.corpora import corpus_import_records as import_records
from annotate.services.import_stage import CorpusImportError
from scoring.corpus import PairRecord
from tests.annotate.records import make_record

pytestmark = pytest.mark.postgres

#: More than two batches, so that a late record is read after earlier batches were staged.
PAIRS = 2 * BATCH_SIZE + 500
TABLES = (
    Corpus,
    SentencePair,
    PairDisagreement,
    AutoAlignment,
    AutoLink,
    GoldAlignment,
    GoldEvent,
    GoldLink,
    Assignment,
    Annotation,
    AnnotationLink,
    AnnotationEvent,
)


def _records(count: int = PAIRS, prefix: str = "p") -> Iterator[PairRecord]:
    for k in range(count):
        yield make_record(
            f"{prefix}{k}",
            annotations={"alice": "1-1 2-2", "bob": "1-1"},
            gold="0-0" if k % 2 else None,
        )


def _counts() -> dict[str, int]:
    users = get_user_model().objects.count()
    counts = {model.__name__: model.objects.count() for model in TABLES}
    return {"users": users, **counts, "Corpus": Corpus.all_objects.count()}  # staging ones too


def _seed() -> None:
    """A corpus with one pair and its work, which a refused import must leave as it is."""
    import_records(corpus_name="big", records=_records(1, prefix="seed"))


@pytest.mark.django_db(transaction=True)
def test_no_transaction_is_open_while_records_are_read_or_progress_is_reported() -> None:
    during: list[bool] = []

    def watched() -> Iterator[PairRecord]:
        for record in _records():
            during.append(connection.in_atomic_block)
            yield record

    reported: list[tuple[int, bool]] = []
    written: list[tuple[int, int, bool]] = []
    report = import_records(
        corpus_name="big",
        records=watched(),
        progress=lambda pairs: reported.append((pairs, connection.in_atomic_block)),
        written=lambda pairs, total: written.append((pairs, total, connection.in_atomic_block)),
    )
    assert len(during) == PAIRS and not any(during)
    every = list(range(READ_REPORT_EVERY, PAIRS + 1, READ_REPORT_EVERY))
    expected = every if every[-1] == PAIRS else [*every, PAIRS]
    assert reported == [(pairs, False) for pairs in expected], "every hundred pairs read"
    assert written == [
        (BATCH_SIZE, PAIRS, False),
        (2 * BATCH_SIZE, PAIRS, False),
        (PAIRS, PAIRS, False),
    ]
    assert report.pairs == PAIRS
    assert report.annotations == 2 * PAIRS
    assert report.gold_alignments == PAIRS // 2
    assert SentencePair.objects.filter(corpus__name="big").count() == PAIRS
    assert PairDisagreement.objects.count() == PAIRS  # two submitted annotations each


@pytest.mark.django_db(transaction=True)
def test_another_user_saves_while_a_large_import_is_being_read() -> None:
    """The save runs on its own connection while the import reads its records (and waits for
    it): before, the import held the write lock from its first record and the save waited for
    the database's busy timeout, then failed."""
    _seed()
    outcome: dict[str, Any] = {}
    asked, answered = threading.Event(), threading.Event()

    def save_elsewhere() -> None:
        asked.wait(30)
        _save_elsewhere(outcome)
        answered.set()

    def paused() -> Iterator[PairRecord]:
        for k, record in enumerate(_records()):
            if k == BATCH_SIZE + 10:  # a batch is staged; the import is still reading
                asked.set()
                answered.wait(10)
            yield record

    other = threading.Thread(target=save_elsewhere)
    other.start()
    try:
        report = import_records(corpus_name="big", records=paused())
    finally:
        asked.set()
        other.join(30)
    assert outcome["save"] == "saved"
    assert outcome["seconds"] < 2
    assert report.pairs == PAIRS
    assert Corpus.objects.get(name="big").description == "edited meanwhile"


def _late(bad: PairRecord) -> Iterator[PairRecord]:
    """PAIRS good records with ``bad`` among the last ones."""
    records = list(_records())
    records[-3] = bad
    return iter(records)


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("bad", "message"),
    [
        (make_record("p0"), "pair id 'p0' occurs twice in the input"),
        (
            make_record("p0-again", target="", prefill=None),
            "pair 'p0-again': a sentence has no tokens",
        ),
    ],
    ids=["repeated id", "empty sentence"],
)
def test_a_bad_record_late_in_the_input_changes_nothing(bad: PairRecord, message: str) -> None:
    _seed()
    before = _counts()
    with pytest.raises(CorpusImportError, match=message) as caught:
        import_records(corpus_name="big", records=_late(bad))
    assert "nothing was imported" in caught.value.message
    assert _counts() == before


@pytest.mark.django_db
def test_a_bad_line_late_in_a_file_changes_nothing_and_names_file_line_and_field(
    tmp_path: Path,
) -> None:
    _seed()
    before = _counts()
    path = tmp_path / "pairs.jsonl"
    lines = [
        json.dumps({"id": f"q{k}", "source_tokens": ["a", "b"], "target_tokens": ["c"]})
        for k in range(PAIRS)
    ]
    lines[PAIRS - 2] = json.dumps({"id": "bad", "source_tokens": ["a"], "target_tokens": []})
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(CorpusImportError) as caught:
        corpus_import(corpus_name="big", format_name="jsonl", paths=[path])
    assert caught.value.extra == {
        "file": "pairs.jsonl",
        "line": PAIRS - 1,
        "field": "target_tokens",
    }
    assert _counts() == before


@pytest.mark.django_db
def test_an_unknown_flag_is_refused_naming_line_and_field_and_changes_nothing(
    tmp_path: Path,
) -> None:
    """A flag the submit dialog does not offer was stored, exported, and then lost when the
    annotator submitted the pair again: refused like an unknown status."""
    _seed()
    before = _counts()
    path = tmp_path / "pairs.jsonl"
    good = {"id": "f1", "source_tokens": ["a"], "target_tokens": ["b"]}
    flagged = {**good, "id": "f2", "annotations": {"dora": {"flags": ["unsure"]}}}
    path.write_text(json.dumps(good) + "\n" + json.dumps(flagged) + "\n")
    with pytest.raises(CorpusImportError) as caught:
        corpus_import(corpus_name="big", format_name="jsonl", paths=[path])
    assert caught.value.extra == {
        "file": "pairs.jsonl",
        "line": 2,
        "field": "annotations.dora.flags[0]",
    }
    assert "unknown flag 'unsure'" in caught.value.message
    assert _counts() == before


@pytest.mark.django_db
def test_a_late_pair_id_already_in_the_corpus_is_refused_before_any_write() -> None:
    _seed()
    before = _counts()
    records = list(_records())
    records[-1] = make_record("seed0")
    with pytest.raises(CorpusImportError, match="pair id 'seed0' already exists in corpus “big”"):
        import_records(corpus_name="big", records=records)
    assert _counts() == before


@pytest.mark.django_db
def test_an_id_added_after_the_early_check_is_refused_at_the_hand_over(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The pair ids are checked again when the staged pairs are handed to the corpus: another
    import may have added the id meanwhile."""
    _seed()
    before = _counts()
    monkeypatch.setattr(corpora, "_check_against_database", lambda name, stage, importer: None)
    records = list(_records())
    records[-1] = make_record("seed0")
    with pytest.raises(CorpusImportError, match="pair id 'seed0' already exists"):
        import_records(corpus_name="big", records=records)
    assert _counts() == before


@pytest.mark.django_db
def test_a_late_new_annotator_with_a_refused_name_changes_nothing() -> None:
    _seed()
    before = _counts()
    bad = make_record("late", annotations={"new person": "1-1"})
    with pytest.raises(CorpusImportError, match="annotator name 'new person'"):
        import_records(corpus_name="big", records=_late(bad))
    assert _counts() == before


@pytest.mark.django_db
def test_a_refused_import_into_a_new_corpus_leaves_no_corpus() -> None:
    bad = make_record("late", annotations={"alice": "1-1"})
    bad.annotations["alice"].status = "finished"
    with pytest.raises(CorpusImportError, match="unknown status 'finished'"):
        import_records(corpus_name="fresh", records=_late(bad))
    assert not Corpus.objects.filter(name="fresh").exists()
    assert not get_user_model().objects.exists()


@pytest.mark.django_db
def test_an_import_adds_after_the_corpus_pairs_with_every_row() -> None:
    _seed()
    report = import_records(corpus_name="big", records=_records(3))
    assert (report.pairs, report.annotations, report.gold_alignments, report.prefills) == (
        3,
        6,
        1,
        3,
    )
    pairs = list(SentencePair.objects.filter(corpus__name="big").order_by("position"))
    assert [(p.external_id, p.position) for p in pairs] == [
        ("seed0", 0),
        ("p0", 1),
        ("p1", 2),
        ("p2", 3),
    ]
    p1 = pairs[2]
    assert p1.source_tokens == ["the", "cat", "sat", "on", "the", "mat"]
    assert (p1.gold_score, p1.gold_label, p1.subcorpus, p1.split) == (3.5, 1, "news", "train")
    assert p1.gold.source == "imported"
    assert [(g.i, g.j, g.sure) for g in p1.gold.links.all()] == [(0, 0, True)]
    assert p1.gold_events.get().added == [[0, 0, "S"]]
    prefill = p1.prefills.get()
    assert prefill.aligner == "identity"
    assert sorted((a.i, a.j, a.confidence) for a in prefill.links.all())[0] == (1, 1, 0.5)
    alice = p1.assignments.get(annotator__username="alice")
    assert alice.status == "submitted" and alice.submitted_at is not None
    annotation = alice.annotation
    assert (annotation.version, annotation.flags, annotation.rating) == (
        1,
        ["bad_tokenization"],
        4.0,
    )
    assert annotation.link_count == 2
    assert annotation.prefill_edits == 4  # 2-2 added; 3-4, 4-5 and 5-6 of the prefill gone
    assert annotation.events.get().added == [[1, 1, "S"], [2, 2, "S"]]
    disagreement = p1.disagreement
    assert (disagreement.submitted, disagreement.gold_source) == (2, "imported")
    assert disagreement.annotators == " ".join(
        ["", *sorted(str(pk) for pk in p1.assignments.values_list("annotator_id", flat=True)), ""]
    )


def _failing_at(batch: int) -> Any:
    """``staged_batch_write`` that fails on its ``batch``-th call (1-based)."""
    calls = 0
    write = corpora.staged_batch_write

    def failing(**kwargs: Any) -> Any:
        nonlocal calls
        calls += 1
        if calls == batch:
            raise CorpusImportError("the disk is full")
        return write(**kwargs)

    return failing


@pytest.mark.django_db
def test_a_failure_writing_a_late_batch_leaves_nothing_not_even_the_new_accounts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _seed()
    before = _counts()
    monkeypatch.setattr(corpora, "staged_batch_write", _failing_at(3))
    records = [make_record(f"n{k}", annotations={"newcomer": "1-1"}) for k in range(PAIRS)]
    with pytest.raises(CorpusImportError, match="the disk is full"):
        import_records(corpus_name="big", records=records)
    assert _counts() == before
    assert not get_user_model().objects.filter(username="newcomer").exists()


@pytest.mark.django_db(transaction=True)
def test_the_pairs_stay_hidden_and_other_writes_go_through_between_batches(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Between two batches no transaction is open: another user's save goes through at once,
    and nobody sees the pairs written so far until the last batch is handed over."""
    _seed()
    seen: dict[str, Any] = {}
    batches = corpora.ImportStage.__iter__

    def watched(stage: Any) -> Iterator[Any]:
        for k, batch in enumerate(batches(stage)):
            if k == 2:
                seen["in transaction"] = connection.in_atomic_block
                seen["big"] = SentencePair.objects.filter(corpus__name="big").count()
                seen["corpora"] = list(Corpus.objects.values_list("name", flat=True))
                seen["staged"] = SentencePair.objects.filter(corpus__importing=True).count()
                other = threading.Thread(target=_save_elsewhere, args=(seen,))
                other.start()
                other.join(30)
            yield batch

    monkeypatch.setattr(corpora.ImportStage, "__iter__", watched)
    report = import_records(corpus_name="big", records=_records())
    assert seen["in transaction"] is False
    assert (seen["big"], seen["corpora"], seen["staged"]) == (1, ["big"], 2 * BATCH_SIZE)
    assert seen["save"] == "saved" and seen["seconds"] < 2
    assert report.pairs == PAIRS and not report.created_corpus
    big = Corpus.objects.get(name="big")
    assert big.description == "edited meanwhile"
    assert big.pairs.count() == PAIRS + 1
    assert not Corpus.all_objects.filter(importing=True).exists()
    assert PairDisagreement.objects.filter(corpus=big).count() == PAIRS + 1
    assert list(
        PairDisagreement.objects.filter(corpus=big)
        .order_by("position")
        .values_list("position", flat=True)
    ) == list(range(PAIRS + 1))


def _save_elsewhere(seen: dict[str, Any]) -> None:
    """Another user's write, on its own connection: its outcome and how long it took."""
    started = time.monotonic()
    try:
        Corpus.objects.filter(name="big").update(description="edited meanwhile")
        seen["save"] = "saved"
    except Exception as error:  # the failure is what the test reports
        seen["save"] = repr(error)
    finally:
        seen["seconds"] = time.monotonic() - started
        connection.close()


@pytest.mark.django_db
def test_a_new_corpus_is_the_staging_corpus_renamed() -> None:
    report = import_records(corpus_name="fresh", records=_records(3), description="three")
    fresh = Corpus.objects.get(name="fresh")
    assert report.created_corpus
    assert (fresh.description, fresh.archived_at, fresh.stats) == ("three", None, {})
    assert [p.position for p in fresh.pairs.order_by("position")] == [0, 1, 2]


@pytest.mark.django_db
def test_the_staging_corpus_of_a_dead_import_goes_after_an_hour_with_its_accounts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A worker killed mid-import cannot clean up: the periodic clean-up does, once the
    staging corpus has had no new batch for an hour."""
    _seed()
    before = _counts()
    monkeypatch.setattr(corpora, "staged_batch_write", _failing_at(3))
    monkeypatch.setattr(corpora, "_staging_discard", lambda staging_id: None)  # killed
    records = [make_record(f"n{k}", annotations={"newcomer": "1-1"}) for k in range(PAIRS)]
    with pytest.raises(CorpusImportError):
        import_records(corpus_name="big", records=records)
    monkeypatch.undo()
    staging = Corpus.all_objects.get(importing=True)
    assert staging.pairs.count() == 2 * BATCH_SIZE
    assert not Corpus.objects.filter(importing=True).exists(), "hidden"
    now = staging.archived_at
    assert corpora.corpus_imports_abandoned_clean(now=now + timedelta(minutes=59)) == 0
    assert corpora.corpus_imports_abandoned_clean(now=now + timedelta(minutes=61)) == 1
    assert _counts() == before
    assert not get_user_model().objects.filter(username="newcomer").exists()


@pytest.mark.django_db
def test_an_account_an_admin_took_up_during_a_failed_import_stays(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The accounts an import makes are listed as soon as it starts writing; one an admin gave
    a password meanwhile is someone's now, and a failed import leaves it."""
    write = _failing_at(3)
    calls = 0

    def taken_up_then_failing(**kwargs: Any) -> Any:
        nonlocal calls
        calls += 1
        if calls == 2:
            newcomer = get_user_model().objects.get(username="newcomer")
            newcomer.set_password("a-long-Password-1")
            newcomer.save()
        return write(**kwargs)

    monkeypatch.setattr(corpora, "staged_batch_write", taken_up_then_failing)
    records = [make_record(f"n{k}", annotations={"newcomer": "1-1"}) for k in range(PAIRS)]
    with pytest.raises(CorpusImportError, match="the disk is full"):
        import_records(corpus_name="big", records=records)
    assert get_user_model().objects.filter(username="newcomer").exists()
    assert not SentencePair.objects.exists()


@pytest.mark.django_db
def test_the_imports_own_error_is_raised_when_its_clean_up_fails_too(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def unreachable(staging_id: int) -> None:
        raise RuntimeError("the database went away")

    monkeypatch.setattr(corpora, "staged_batch_write", _failing_at(2))
    monkeypatch.setattr(corpora, "_staging_discard", unreachable)
    with pytest.raises(CorpusImportError, match="the disk is full"):
        import_records(corpus_name="big", records=_records())
    assert Corpus.all_objects.filter(importing=True).count() == 1, "left for the clean-up"
