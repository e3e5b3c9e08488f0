"""Archiving, restoring and deleting a corpus: an archived corpus keeps everything and leaves
the queues and lists; a deletion is confirmed by the corpus's name, never removes work the
confirmation did not show, and removes everything of the corpus and nothing else."""

from __future__ import annotations

import re
from typing import Any

import pytest

from annotate import jobs_runtime as jobs
from annotate import roles
from annotate.exceptions import Conflict, DomainError
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
    Job,
    ScorerModel,
    SentencePair,
)
from annotate.selectors.adjudication import pairs_for_adjudication
from annotate.selectors.corpora import corpora_listed, corpora_overview, corpus_contents
from annotate.selectors.workspace import (
    next_open_assignment,
    queue_corpora,
    queue_of,
    queue_summary,
)
from annotate.services import corpora
from annotate.services.annotations import annotation_open, annotation_save, annotation_submit
from annotate.services.corpora import (
    WORK_COUNTS,
    corpus_archive,
    corpus_delete,
    corpus_restore,
)
from annotate.services.prefill import prefills_retrain_due
from tests.annotate.factories import make_assignment, make_corpus, make_pair, make_user
from tests.annotate.records import make_record

pytestmark = [pytest.mark.django_db, pytest.mark.postgres]


def _submitted(pair: SentencePair, user: Any) -> Assignment:
    assignment = make_assignment(pair, user)
    annotation_open(assignment=assignment, actor=user)
    annotation_submit(assignment=assignment, actor=user, base_version=1)
    return assignment


@pytest.fixture
def people() -> dict[str, Any]:
    return {
        "alice": make_user("alice", roles.ANNOTATOR),
        "bob": make_user("bob", roles.ANNOTATOR),
        "admin": make_user("admin", roles.ADMIN),
    }


def _work(corpus: Corpus, people: dict[str, Any]) -> None:
    """Two pairs annotated by alice and bob (one submitted by both, with gold), one open."""
    both = make_pair(corpus, gold=[(0, 0, True)])
    _submitted(both, people["alice"])
    _submitted(both, people["bob"])
    started = make_assignment(make_pair(corpus), people["alice"])
    annotation_open(assignment=started, actor=people["alice"])
    Assignment.objects.filter(pk=started.pk).update(status=Assignment.Status.IN_PROGRESS)


def test_an_archived_corpus_leaves_queues_and_lists_and_comes_back_as_it_was(
    people: dict[str, Any],
) -> None:
    kept, archived = make_corpus("kept"), make_corpus("old")
    _work(archived, people)
    mine = make_assignment(make_pair(kept), people["alice"])
    before = queue_summary(people["alice"])
    assert before.counts == {"new": 1, "in_progress": 1, "submitted": 1}
    assert pairs_for_adjudication().count() == 1

    assert corpus_archive(corpus=archived) is True
    assert corpus_archive(corpus=archived) is False  # archived already: nothing changes

    summary = queue_summary(people["alice"])
    assert summary.counts == {"new": 1, "in_progress": 0, "submitted": 0}
    assert summary.continue_id is None and summary.next_id == mine.pk
    assert [a.pk for a in queue_of(people["alice"]).assignments] == [mine.pk]
    assert [name for _, name, _ in queue_corpora(people["alice"])] == ["kept"]
    assert pairs_for_adjudication().count() == 0
    assert [c.name for c in corpora_overview()] == ["kept"]
    assert [c.name for c in corpora_overview(archived=True)] == ["old"]
    assert [c.name for c in corpora_listed()] == ["kept"]
    assert [c.name for c in corpora_listed(archived=True)] == ["old"]
    assert next_open_assignment(user=people["alice"], after=mine) == mine.pk

    assert corpus_restore(corpus=archived) is True
    assert corpus_restore(corpus=archived) is False
    assert queue_summary(people["alice"]) == before
    assert pairs_for_adjudication().count() == 1
    assert Annotation.objects.filter(assignment__pair__corpus=archived).count() == 3


def test_an_archived_corpus_is_not_retrained(people: dict[str, Any]) -> None:
    corpus = make_corpus("learning")
    Corpus.objects.filter(pk=corpus.pk).update(
        prefill_aligner="supervised", prefill_retrain_every=1
    )
    _work(corpus, people)
    corpus_archive(corpus=corpus)
    assert prefills_retrain_due() == []
    assert not Job.objects.filter(kind="prefill").exists()


def test_the_corpus_list_counts_pairs_annotators_open_and_done_work_and_gold(
    people: dict[str, Any],
) -> None:
    corpus = make_corpus("counted")
    _work(corpus, people)
    make_pair(corpus)
    make_corpus("empty")
    rows = {c.name: c for c in corpora_listed()}
    row = rows["counted"]
    assert (row.n_pairs, row.n_annotators, row.n_open, row.n_submitted, row.n_gold) == (
        3,
        2,
        1,
        2,
        1,
    )
    empty = rows["empty"]
    assert (empty.n_pairs, empty.n_annotators, empty.n_open, empty.n_submitted) == (0, 0, 0, 0)
    assert [c.name for c in corpora_listed(search="COUNT")] == ["counted"]


def test_the_contents_count_everything_a_deletion_removes(people: dict[str, Any]) -> None:
    corpus = make_corpus("full")
    _work(corpus, people)
    Job.objects.create(kind="corpus_stats", corpus=corpus, status=Job.Status.SUCCEEDED)
    ScorerModel.objects.create(kind="perp", name="m", corpus=corpus)
    contents = corpus_contents(corpus)
    assert contents.pairs == 2 and contents.prefilled_pairs == 2
    assert (contents.assignments, contents.open_assignments) == (3, 1)
    assert (contents.annotations, contents.annotators) == (3, 2)
    assert (contents.gold_alignments, contents.adjudicated_gold) == (1, 0)  # an imported gold
    assert (contents.jobs, contents.scorer_models) == (1, 1)
    assert contents.has_work
    assert not corpus_contents(make_corpus("bare")).has_work


def test_a_deletion_needs_the_corpus_name_typed_and_changes_nothing_without_it(
    people: dict[str, Any],
) -> None:
    corpus = make_corpus("precious")
    _work(corpus, people)
    for typed in ("", "Precious", "precious!", "other"):
        with pytest.raises(DomainError, match="type the corpus name") as error:
            corpus_delete(corpus=corpus, confirm=typed, owner=people["admin"])
        assert error.value.extra == {"field": "confirm"}
    corpus.refresh_from_db()
    assert corpus.archived_at is None
    assert not Job.objects.filter(kind="corpus_delete").exists()


def test_work_added_after_the_confirmation_was_shown_stops_the_deletion(
    people: dict[str, Any],
) -> None:
    corpus = make_corpus("growing")
    _work(corpus, people)
    seen = {"annotations": 2, "gold_alignments": 1, "assignments": 3}  # one annotation fewer
    seen["saved_changes"] = corpus_contents(corpus).saved_changes
    with pytest.raises(Conflict, match="annotations: 2 shown, 3 now"):
        corpus_delete(corpus=corpus, confirm="growing", seen=seen, owner=people["admin"])
    corpus.refresh_from_db()
    assert corpus.archived_at is None
    assert not Job.objects.filter(kind="corpus_delete").exists()


def test_a_save_after_the_confirmation_was_shown_stops_the_deletion_though_no_count_grew(
    people: dict[str, Any],
) -> None:
    corpus = make_corpus("edited")
    pair = make_pair(corpus)
    assignment = make_assignment(pair, people["alice"])
    annotation_open(assignment=assignment, actor=people["alice"])
    contents = corpus_contents(corpus)
    seen = {name: getattr(contents, name) for name in WORK_COUNTS}
    annotation_save(
        assignment=assignment, actor=people["alice"], base_version=1, links={(0, 0): True}
    )
    with pytest.raises(Conflict, match=f"saved changes: {seen['saved_changes']} shown, "):
        corpus_delete(corpus=corpus, confirm="edited", seen=seen, owner=people["admin"])
    assert not Job.objects.filter(kind="corpus_delete").exists()


def test_a_deletion_job_deletes_nothing_when_a_save_came_while_it_waited(
    people: dict[str, Any],
) -> None:
    corpus = make_corpus("saved-late")
    assignment = make_assignment(make_pair(corpus), people["alice"])
    annotation_open(assignment=assignment, actor=people["alice"])
    job = corpus_delete(corpus=corpus, confirm="saved-late", owner=people["admin"])
    annotation_save(  # the workspace still open by its address
        assignment=assignment, actor=people["alice"], base_version=1, links={(0, 0): True}
    )
    jobs.job_run(job_id=job.pk, worker="test")
    job.refresh_from_db()
    assert job.status == Job.Status.FAILED and "saved changes" in job.error
    assert Annotation.objects.get(assignment=assignment).version == 2


def test_a_corpus_with_a_queued_or_running_job_is_not_deleted(people: dict[str, Any]) -> None:
    corpus = make_corpus("busy")
    make_pair(corpus)
    running = Job.objects.create(kind="prefill", corpus=corpus, status=Job.Status.RUNNING)
    with pytest.raises(Conflict, match=f"job #{running.pk} \\(prefill\\) of “busy” is running"):
        corpus_delete(corpus=corpus, confirm="busy", owner=people["admin"])
    assert not Job.objects.filter(kind="corpus_delete").exists()


def test_a_confirmed_deletion_archives_at_once_and_its_job_removes_the_corpus_and_only_it(
    people: dict[str, Any],
) -> None:
    doomed, other = make_corpus("doomed"), make_corpus("other")
    _work(doomed, people)
    _work(other, people)
    Job.objects.create(kind="corpus_stats", corpus=doomed, status=Job.Status.SUCCEEDED)
    scorer = ScorerModel.objects.create(kind="perp", name="trained", corpus=doomed)
    before = {
        model: model.objects.count()
        for model in (
            SentencePair,
            Assignment,
            Annotation,
            AnnotationLink,
            AnnotationEvent,
            GoldAlignment,
            GoldLink,
            GoldEvent,
            AutoAlignment,
            AutoLink,
        )
    }
    seen = {"annotations": 3, "gold_alignments": 1, "assignments": 3}
    seen["saved_changes"] = corpus_contents(doomed).saved_changes
    job = corpus_delete(corpus=doomed, confirm=" doomed ", seen=seen, owner=people["admin"])
    doomed.refresh_from_db()
    assert doomed.archived_at is not None  # out of every queue while the job waits
    assert job.kind == "corpus_delete" and job.corpus is None and job.owner == people["admin"]
    assert job.parameters == {"corpus": "doomed", "corpus_id": doomed.pk, **seen}

    jobs.job_run(job_id=job.pk, worker="test")
    job.refresh_from_db()
    assert job.status == Job.Status.SUCCEEDED, job.error
    assert job.result["annotations"] == 3 and job.result["pairs"] == 2
    assert not Corpus.objects.filter(pk=doomed.pk).exists()
    assert not Job.objects.filter(kind="corpus_stats").exists()
    scorer.refresh_from_db()
    assert scorer.corpus is None  # the trained model stays
    for model, count in before.items():
        # each corpus held half of every kind of row; the other corpus keeps all of its own
        assert model.objects.count() == count // 2, model.__name__
        assert model.objects.count() > 0
    assert SentencePair.objects.filter(corpus=other).count() == 2


def test_a_deletion_job_deletes_nothing_when_work_arrived_while_it_waited(
    people: dict[str, Any],
) -> None:
    corpus = make_corpus("late")
    pair = make_pair(corpus)
    job = corpus_delete(corpus=corpus, confirm="late", owner=people["admin"])
    _submitted(pair, people["bob"])  # opened by its address before the job ran
    jobs.job_run(job_id=job.pk, worker="test")
    job.refresh_from_db()
    assert job.status == Job.Status.FAILED
    assert "work was added to “late”" in job.error and "stays archived" in job.error
    corpus.refresh_from_db()
    assert corpus.archived_at is not None
    assert Annotation.objects.filter(assignment__pair=pair).count() == 1


def test_a_large_corpus_goes_a_batch_per_transaction_and_a_save_meanwhile_stops_it(
    people: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Other users' writes wait a batch at most; work saved in the corpus while it is being
    deleted (its assignment still opens by its address) stops the deletion, and the pairs not
    deleted yet stay, with that work, in the archived corpus."""
    monkeypatch.setattr(corpora, "BATCH_SIZE", 2)
    corpus = make_corpus("large")
    pairs = [make_pair(corpus) for _ in range(5)]
    late = make_assignment(pairs[4], people["alice"])
    annotation_open(assignment=late, actor=people["alice"])
    job = corpus_delete(corpus=corpus, confirm="large", owner=people["admin"])
    seen: list[int] = []
    delete = corpora._pairs_delete

    def watched(pairs: Any) -> None:
        seen.append(SentencePair.objects.filter(corpus=corpus).count())
        delete(pairs)
        if len(seen) == 2:  # alice saves between the second and the third batch
            annotation_save(
                assignment=late, actor=people["alice"], base_version=1, links={(0, 0): True}
            )

    monkeypatch.setattr(corpora, "_pairs_delete", watched)
    jobs.job_run(job_id=job.pk, worker="test")
    job.refresh_from_db()
    assert job.status == Job.Status.FAILED
    assert "4 of its 5 pairs were deleted" in job.error, job.error
    assert seen == [5, 3]
    assert list(SentencePair.objects.filter(corpus=corpus)) == [pairs[4]]
    assert Annotation.objects.get(assignment=late).version == 2
    corpus.refresh_from_db()
    assert corpus.archived_at is not None


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("name", "code"),
    [("news\u202eswen", "U+202E"), ("news\r\nX-Other: 1", "U+000D"), ("a\u200bb", "U+200B")],
)
def test_a_corpus_name_with_an_invisible_or_control_character_is_refused(
    name: str, code: str
) -> None:
    with pytest.raises(DomainError, match=re.escape(code)) as caught:
        corpora.corpus_create(name=name)
    assert caught.value.extra == {"field": "name"}
    with pytest.raises(DomainError, match=re.escape(code)) as caught:
        corpora.corpus_import_records(corpus_name=name, records=[make_record("p0")])
    assert caught.value.extra == {"field": "corpus"}
    assert not Corpus.all_objects.exists()


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("record", "overrides", "what"),
    [
        (make_record("p\u202e0"), {}, "id"),
        (make_record("p0", subcorpus="news\u202e"), {}, "sub-corpus"),
        (make_record("p0", split="tr\u200bain"), {}, "split"),
        (make_record("p0"), {"subcorpus": "a\u2066b"}, "sub-corpus"),
    ],
)
def test_a_pair_id_sub_corpus_or_split_with_an_invisible_character_is_refused(
    record: Any, overrides: dict[str, str], what: str
) -> None:
    """They are shown on the pages as the corpus name is: a bidirectional override showed the
    rest of the line (" · train" after a sub-corpus) reversed."""
    with pytest.raises(DomainError, match=f"its {what} holds the invisible or control"):
        corpora.corpus_import_records(corpus_name="c", records=[record], **overrides)
    assert not SentencePair.objects.exists()


def _aligned_by(name: str) -> Any:
    record = make_record("p0")
    record.prefill_aligner = name
    return record


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("record", "overrides", "message"),
    [
        (make_record("p" * 201), {}, "its id has 201 characters; at most 200 are kept"),
        (make_record("p0", subcorpus="n" * 101), {}, "its sub-corpus has 101 characters; at most"),
        (make_record("p0", split="t" * 51), {}, "its split has 51 characters; at most 50 are kept"),
        (_aligned_by("a" * 101), {}, "its prefill's aligner has 101 characters; at most 100"),
        (_aligned_by("ali\u202e"), {}, "its prefill's aligner holds the invisible or control"),
    ],
)
def test_a_name_longer_than_its_column_is_refused_naming_the_pair(
    record: Any, overrides: dict[str, str], message: str
) -> None:
    """SQLite stored a 300-character pair id in its 200-character column; PostgreSQL failed
    the whole import with a DataError that named no file, line or pair."""
    with pytest.raises(DomainError, match=re.escape(message)):
        corpora.corpus_import_records(corpus_name="c", records=[record], **overrides)
    assert not SentencePair.objects.exists()


@pytest.mark.django_db
def test_a_corpus_name_of_any_script_is_kept() -> None:
    assert corpora.corpus_create(name=" Übersetzungen 翻訳 ").name == "Übersetzungen 翻訳"
