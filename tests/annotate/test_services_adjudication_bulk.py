"""A bulk accept takes the majority of the pairs whose annotators agree completely as their gold,
through the adjudicator's own save, never touching a pair with gold or one whose annotators
disagree, skipping (and counting) what changed meanwhile; its undo clears what it wrote."""

from __future__ import annotations

from typing import Any

import pytest

from annotate import roles
from annotate.exceptions import Conflict, DomainError
from annotate.jobs_runtime import job_run
from annotate.models import GoldAlignment, GoldEvent, Job, PairDisagreement, SentencePair
from annotate.selectors.adjudication import (
    AdjudicationFilters,
    gold_history,
    pairs_agreed_waiting,
)
from annotate.services import adjudication_bulk
from annotate.services.adjudication import StaleGold, gold_save
from annotate.services.adjudication_bulk import (
    adjudication_accept,
    adjudication_accept_job_create,
    adjudication_accept_undo,
    adjudication_accept_undo_job_create,
    agreed_pairs,
)
from annotate.services.annotations import annotation_reopen
from annotate.services.corpora import (
    CorpusArchived,
    corpus_archive,
    corpus_import_records,
    corpus_restore,
)
from tests.annotate.factories import make_user
from tests.annotate.records import make_record

pytestmark = pytest.mark.django_db


@pytest.fixture
def carol() -> Any:
    return make_user("carol", roles.ADJUDICATOR)


def _import(pairs: dict[str, dict[str, str]], **extra: Any) -> dict[str, SentencePair]:
    records = [
        make_record(name, "a b c", "a b c", prefill=None, annotations=found, **extra.get(name, {}))
        for name, found in pairs.items()
    ]
    corpus_import_records(corpus_name="c", records=records)
    return {pair.external_id: pair for pair in SentencePair.objects.all()}


def _gold(pair: SentencePair) -> list[tuple[int, int, bool]] | None:
    gold = GoldAlignment.objects.filter(pair=pair).first()
    return None if gold is None else sorted(gold.links.values_list("i", "j", "sure"))


def test_only_pairs_whose_annotators_agree_completely_are_candidates() -> None:
    pairs = _import(
        {
            "same": {"A": "0-0 1?1", "B": "0-0 1?1"},
            "kind": {"A": "0-0 1?1", "B": "0-0 1-1"},
            "triple": {"A": "0-0", "B": "0-0", "C": "0-0 2-2"},  # no tie, but C differs
            "empty": {"A": "", "B": ""},
            "single": {"A": "0-0"},
        }
    )
    agreed = set(pairs_agreed_waiting(AdjudicationFilters()).values_list("pair_id", flat=True))
    assert agreed == {pairs["same"].pk, pairs["empty"].pk}
    assert PairDisagreement.objects.get(pair=pairs["kind"]).lowest_f1 == 1.0  # same cells
    assert [found.pair.pk for found in agreed_pairs(sorted(agreed))] == sorted(agreed)


def test_it_writes_the_majority_through_the_gold_save_and_logs_the_job(carol: Any) -> None:
    pairs = _import({"same": {"A": "0-0 1?1", "B": "0-0 1?1"}, "kind": {"A": "0-0", "B": "0?0"}})
    result = adjudication_accept(filters=AdjudicationFilters(), adjudicator=carol, job_id=77)
    assert result["matched"] == 1 and result["accepted"] == 1
    assert result["skipped"] == {"adjudicated_meanwhile": 0, "annotations_changed": 0}
    assert _gold(pairs["same"]) == [(0, 0, True), (1, 1, False)]
    assert _gold(pairs["kind"]) is None
    gold = GoldAlignment.objects.get(pair=pairs["same"])
    assert (gold.source, gold.adjudicator, gold.version) == ("adjudicated", carol, 1)
    event = GoldEvent.objects.get(pair=pairs["same"])
    assert (event.kind, event.actor, event.job_id) == ("adjudicated", carol, 77)
    assert gold_history(pairs["same"])["events"][0]["job"] == 77
    assert PairDisagreement.objects.get(pair=pairs["same"]).gold_source == "adjudicated"
    # run again: nothing left to accept
    again = adjudication_accept(filters=AdjudicationFilters(), adjudicator=carol)
    assert again["matched"] == 0 and GoldEvent.objects.count() == 1


def test_a_pair_with_any_gold_is_never_touched(carol: Any) -> None:
    pairs = _import(
        {
            "imported": {"A": "0-0", "B": "0-0"},
            "adjudicated": {"A": "1-1", "B": "1-1"},
        },
        imported={"gold": "2-2"},
    )
    gold_save(pair=pairs["adjudicated"], links={(0, 2): True}, adjudicator=carol, base_version=0)
    result = adjudication_accept(filters=AdjudicationFilters(), adjudicator=carol)
    assert result["matched"] == 0
    assert _gold(pairs["imported"]) == [(2, 2, True)]
    assert _gold(pairs["adjudicated"]) == [(0, 2, True)]


def test_a_pair_sent_back_to_waiting_is_accepted_on_the_version_of_its_clear(carol: Any) -> None:
    from annotate.services.adjudication import gold_clear

    pair = _import({"p": {"A": "0-0", "B": "0-0"}})["p"]
    gold_save(pair=pair, links={(1, 1): True}, adjudicator=carol, base_version=0)
    gold_clear(pair=pair, actor=carol, base_version=1)
    result = adjudication_accept(filters=AdjudicationFilters(), adjudicator=carol)
    assert result["accepted"] == 1
    assert GoldAlignment.objects.get(pair=pair).version == 3
    assert _gold(pair) == [(0, 0, True)]


def test_the_filters_choose_the_pairs(carol: Any) -> None:
    pairs = _import(
        {"x1": {"A": "0-0", "B": "0-0"}, "y1": {"A": "1-1", "B": "1-1"}},
        y1={"subcorpus": "mtc"},
    )
    result = adjudication_accept(filters=AdjudicationFilters(subcorpus="news"), adjudicator=carol)
    assert result["accepted"] == 1
    assert _gold(pairs["x1"]) == [(0, 0, True)] and _gold(pairs["y1"]) is None
    none = adjudication_accept(filters=AdjudicationFilters(status="adjudicated"), adjudicator=carol)
    assert none["matched"] == 0


def test_a_pair_adjudicated_between_the_read_and_the_write_is_skipped_and_counted(
    carol: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    pairs = _import({"p": {"A": "0-0", "B": "0-0"}, "q": {"A": "1-1", "B": "1-1"}})
    dave = make_user("dave", roles.ADJUDICATOR)
    read = adjudication_bulk.agreed_pairs

    def read_then_someone_saves(ids: list[int]) -> Any:
        found = read(ids)
        gold_save(pair=pairs["p"], links={(2, 2): False}, adjudicator=dave, base_version=0)
        return found

    monkeypatch.setattr(adjudication_bulk, "agreed_pairs", read_then_someone_saves)
    result = adjudication_accept(filters=AdjudicationFilters(), adjudicator=carol)
    assert result["accepted"] == 1
    assert result["skipped"]["adjudicated_meanwhile"] == 1
    assert _gold(pairs["p"]) == [(2, 2, False)]  # dave's gold stands
    assert GoldAlignment.objects.get(pair=pairs["p"]).adjudicator == dave


def test_a_pair_whose_annotation_was_reopened_meanwhile_is_skipped(
    carol: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    pairs = _import({"p": {"A": "0-0", "B": "0-0", "C": "0-0"}})
    read = adjudication_bulk.agreed_pairs

    def read_then_reopen(ids: list[int]) -> Any:
        found = read(ids)
        assignment = pairs["p"].assignments.get(annotator__username="C")
        annotation_reopen(assignment=assignment, actor=assignment.annotator)
        return found

    monkeypatch.setattr(adjudication_bulk, "agreed_pairs", read_then_reopen)
    result = adjudication_accept(filters=AdjudicationFilters(), adjudicator=carol)
    assert result["accepted"] == 0
    assert result["skipped"]["annotations_changed"] == 1
    assert _gold(pairs["p"]) is None


def test_the_job_is_refused_when_nothing_would_be_accepted(carol: Any) -> None:
    _import({"kind": {"A": "0-0", "B": "0?0"}})
    with pytest.raises(DomainError, match="nothing to accept"):
        adjudication_accept_job_create(filters=AdjudicationFilters(), owner=carol)


def test_the_job_runs_claims_once_and_records_its_result(carol: Any) -> None:
    pairs = _import({"p": {"A": "0-0", "B": "0-0"}, "q": {"A": "1-1", "B": "2-2"}})
    corpus = pairs["p"].corpus
    job = adjudication_accept_job_create(filters=AdjudicationFilters(corpus=corpus.pk), owner=carol)
    assert job.parameters == {"filters": {"corpus": corpus.pk}, "expected": 1, "owner": carol.pk}
    assert job.corpus == corpus and job.kind == "adjudication_accept"
    assert job_run(job_id=job.pk, worker="test") == Job.Status.SUCCEEDED
    assert job_run(job_id=job.pk, worker="test") == Job.Status.SUCCEEDED  # not claimed twice
    job.refresh_from_db()
    assert job.result["accepted"] == 1 and job.result["matched"] == 1
    assert GoldEvent.objects.get(pair=pairs["p"]).job_id == job.pk
    assert GoldEvent.objects.count() == 1


def test_undo_clears_each_gold_the_job_wrote_unless_it_changed_since(carol: Any) -> None:
    pairs = _import({"p": {"A": "0-0", "B": "0-0"}, "q": {"A": "1-1", "B": "1-1"}})
    job = adjudication_accept_job_create(filters=AdjudicationFilters(), owner=carol)
    job_run(job_id=job.pk, worker="test")
    gold_save(pair=pairs["q"], links={(2, 2): True}, adjudicator=carol, base_version=1)
    job.refresh_from_db()
    undo = adjudication_accept_undo_job_create(job=job, owner=carol)
    assert job_run(job_id=undo.pk, worker="test") == Job.Status.SUCCEEDED
    undo.refresh_from_db()
    assert undo.result == {
        "job": job.pk,
        "written": 2,
        "cleared": 1,
        "skipped": {"gold_changed_since": 1, "corpus_archived": 0},
    }
    assert _gold(pairs["p"]) is None and _gold(pairs["q"]) == [(2, 2, True)]
    cleared = GoldEvent.objects.filter(pair=pairs["p"]).order_by("version").last()
    assert (cleared.kind, cleared.job_id) == ("cleared", undo.pk)
    # undone pairs wait again and a second undo changes nothing
    assert adjudication_accept_undo(accept_job_id=job.pk, actor=carol)["cleared"] == 0


def test_undo_keeps_the_golds_of_a_corpus_archived_while_it_runs_until_undone_again(
    carol: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The corpus is archived between two of the undo's batches: the golds left are kept and
    counted, and the accept may be undone again once the corpus is restored."""
    pairs = _import({"p": {"A": "0-0", "B": "0-0"}, "q": {"A": "1-1", "B": "1-1"}})
    job = adjudication_accept_job_create(filters=AdjudicationFilters(), owner=carol)
    job_run(job_id=job.pk, worker="test")
    job.refresh_from_db()
    undo = adjudication_accept_undo_job_create(job=job, owner=carol)
    monkeypatch.setattr(adjudication_bulk, "WRITE_BATCH", 1)
    batch = adjudication_bulk._undo_batch
    batches = []

    def archive_after_the_first(*args: Any) -> Any:
        if batches:
            corpus_archive(corpus=pairs["q"].corpus)
        batches.append(args)
        return batch(*args)

    monkeypatch.setattr(adjudication_bulk, "_undo_batch", archive_after_the_first)
    assert job_run(job_id=undo.pk, worker="test") == Job.Status.SUCCEEDED
    undo.refresh_from_db()
    assert undo.result["cleared"] == 1
    assert undo.result["skipped"] == {"gold_changed_since": 0, "corpus_archived": 1}
    assert _gold(pairs["p"]) is None and _gold(pairs["q"]) == [(1, 1, True)]
    with pytest.raises(CorpusArchived):
        adjudication_accept_undo_job_create(job=job, owner=carol)
    corpus_restore(corpus=pairs["q"].corpus)
    again = adjudication_accept_undo_job_create(job=job, owner=carol)
    monkeypatch.setattr(adjudication_bulk, "_undo_batch", batch)
    assert job_run(job_id=again.pk, worker="test") == Job.Status.SUCCEEDED
    assert _gold(pairs["q"]) is None
    with pytest.raises(Conflict, match=f"was undone by #{again.pk} already"):
        adjudication_accept_undo_job_create(job=job, owner=carol)


def test_undo_waits_for_the_job_to_end(carol: Any) -> None:
    _import({"p": {"A": "0-0", "B": "0-0"}})
    job = adjudication_accept_job_create(filters=AdjudicationFilters(), owner=carol)
    with pytest.raises(Conflict, match="still pending"):
        adjudication_accept_undo_job_create(job=job, owner=carol)


def test_each_transaction_stops_at_its_time_and_leaves_sqlites_lock_free_as_long(
    carol: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    pairs = _import({f"p{k}": {"A": f"{k % 3}-0", "B": f"{k % 3}-0"} for k in range(5)})
    monkeypatch.setattr(adjudication_bulk, "WRITE_SECONDS", 0.0)  # one gold a transaction
    pauses: list[float] = []
    monkeypatch.setattr(adjudication_bulk.time, "sleep", pauses.append)
    reports: list[str] = []
    result = adjudication_accept(
        filters=AdjudicationFilters(),
        adjudicator=carol,
        progress=lambda percent, message: reports.append(message),
    )
    assert result["accepted"] == 5
    assert all(_gold(pair) is not None for pair in pairs.values())
    assert reports == [f"{k} of 5 pairs: {k} accepted" for k in range(1, 6)]
    assert len(pauses) == 5 and all(pause > 0 for pause in pauses)  # the tests run on SQLite


def test_an_accept_undone_or_being_undone_is_not_undone_again(carol: Any) -> None:
    """Another tab's Undo, or an admin's, once an undo is queued or done: refused naming it
    (it would clear nothing and report every gold as changed since)."""
    _import({"p": {"A": "0-0", "B": "0-0"}})
    job = adjudication_accept_job_create(filters=AdjudicationFilters(), owner=carol)
    job_run(job_id=job.pk, worker="test")
    job.refresh_from_db()
    undo = adjudication_accept_undo_job_create(job=job, owner=carol)
    admin = make_user("admin", roles.ADMIN)
    with pytest.raises(Conflict, match=f"undo #{undo.pk}"):
        adjudication_accept_undo_job_create(job=job, owner=admin)
    job_run(job_id=undo.pk, worker="test")
    with pytest.raises(Conflict, match=f"undone by #{undo.pk}"):
        adjudication_accept_undo_job_create(job=job, owner=carol)
    Job.objects.filter(pk=undo.pk).update(status=Job.Status.FAILED)
    assert adjudication_accept_undo_job_create(job=job, owner=carol).pk != undo.pk


@pytest.mark.parametrize("change", ["demoted", "deactivated"])
def test_a_job_whose_adjudicator_lost_the_role_since_writes_nothing(
    carol: Any, change: str
) -> None:
    """Queued, then its adjudicator is made an annotator only or deactivated before it runs:
    no gold is saved in their name."""
    _import({"p": {"A": "0-0", "B": "0-0"}})
    job = adjudication_accept_job_create(filters=AdjudicationFilters(), owner=carol)
    if change == "demoted":
        carol.groups.clear()
    else:
        carol.is_active = False
        carol.save()
    assert job_run(job_id=job.pk, worker="test") == Job.Status.FAILED
    job.refresh_from_db()
    assert "carol" in job.error and "adjudicator" in job.error
    assert not GoldAlignment.objects.exists()


def test_a_stale_save_names_the_bulk_accept_or_undo_that_changed_the_gold(carol: Any) -> None:
    pair = _import({"same": {"A": "0-0", "B": "0-0"}})["same"]
    dave = make_user("dave", roles.ADJUDICATOR)
    adjudication_accept(filters=AdjudicationFilters(), adjudicator=carol, job_id=77)
    with pytest.raises(StaleGold) as caught:
        gold_save(pair=pair, links={(1, 1): True}, adjudicator=dave, base_version=0)
    assert "version 1 was accepted in bulk by carol (job #77) at " in caught.value.message
    assert caught.value.extra["server"]["job"] == 77
    adjudication_accept_undo(accept_job_id=77, actor=carol, job_id=78)
    with pytest.raises(StaleGold) as caught:
        gold_save(pair=pair, links={(1, 1): True}, adjudicator=dave, base_version=1)
    assert "sent back to waiting in bulk by carol (job #78) at " in caught.value.message
    assert caught.value.extra["server"]["job"] == 78
    gold_save(pair=pair, links={(2, 2): True}, adjudicator=carol, base_version=2)
    with pytest.raises(StaleGold) as caught:  # a person's own save is named as theirs
        gold_save(pair=pair, links={(1, 1): True}, adjudicator=dave, base_version=2)
    assert "version 3 was saved by carol at " in caught.value.message
    assert caught.value.extra["server"]["job"] is None


def test_a_corpus_takes_one_bulk_accept_at_a_time_whoever_presses(carol: Any) -> None:
    corpus_id = _import({"same": {"A": "0-0", "B": "0-0"}})["same"].corpus_id
    dave = make_user("dave", roles.ADJUDICATOR)
    first = adjudication_accept_job_create(
        filters=AdjudicationFilters(corpus=corpus_id), owner=carol
    )
    for filters in (AdjudicationFilters(corpus=corpus_id), AdjudicationFilters()):
        with pytest.raises(Conflict, match=f"carol's bulk accept #{first.pk} of corpus “c” is"):
            adjudication_accept_job_create(filters=filters, owner=dave)
    Job.objects.filter(pk=first.pk).update(status=Job.Status.SUCCEEDED)
    second = adjudication_accept_job_create(filters=AdjudicationFilters(), owner=dave)
    with pytest.raises(Conflict, match=f"dave's bulk accept #{second.pk} of every corpus"):
        adjudication_accept_job_create(filters=AdjudicationFilters(corpus=corpus_id), owner=carol)
