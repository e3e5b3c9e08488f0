"""Sending a pair back to "waiting for adjudication": its gold goes for every reader (the list,
the page, exports, prefill training), its history keeps the change as a ``cleared`` event, a
stale clear is a conflict, and a later save goes on from the next version."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from annotate import jobs_runtime, roles
from annotate.exceptions import Conflict
from annotate.models import Corpus, GoldAlignment, GoldEvent, GoldLink, PairDisagreement
from annotate.selectors.adjudication import (
    AdjudicationFilters,
    adjudication_of,
    adjudication_page,
    gold_history,
)
from annotate.services.adjudication import StaleGold, gold_clear, gold_save
from annotate.services.corpora import corpus_import_records
from annotate.services.exports import export_job_create
from annotate.services.prefill import _finished_work
from scoring.alignment.links import Alignment
from tests.annotate.factories import make_user
from tests.annotate.records import make_record

pytestmark = pytest.mark.django_db


@pytest.fixture
def carol() -> Any:
    return make_user("carol", roles.ADJUDICATOR)


@pytest.fixture
def corpus() -> Corpus:
    """p1 and p2 are ready for adjudication (two submitted annotations each)."""
    corpus_import_records(
        corpus_name="c",
        records=[
            make_record("p1", annotations={"A": "1-1 3-4", "B": "1-1 2-3"}),
            make_record("p2", annotations={"A": "0-0", "B": "0-0"}),
        ],
    )
    return Corpus.objects.get(name="c")


def _adjudicated(corpus: Corpus, carol: Any) -> Any:
    """p1 with the gold an adjudicator saved (v1) and changed (v2)."""
    pair = corpus.pairs.get(external_id="p1")
    gold_save(pair=pair, links={(1, 1): True, (3, 4): False}, adjudicator=carol, base_version=0)
    gold_save(pair=pair, links={(1, 1): True}, adjudicator=carol, base_version=1)
    return pair


def _statuses(corpus: Corpus, status: str | None = None) -> dict[str, str]:
    rows, _ = adjudication_page(
        AdjudicationFilters(corpus=corpus.pk, status=status), page=1, per_page=50
    )
    return {row.external_id: row.status for row in rows}


def test_a_cleared_pair_waits_again_and_its_gold_is_gone_for_the_page(
    corpus: Corpus, carol: Any
) -> None:
    pair = _adjudicated(corpus, carol)
    assert _statuses(corpus, "adjudicated") == {"p1": "adjudicated"}
    result = gold_clear(pair=pair, actor=carol, base_version=2)
    assert result.changed and result.version == 3
    assert _statuses(corpus) == {"p1": "waiting", "p2": "waiting"}
    assert _statuses(corpus, "waiting") == {"p1": "waiting", "p2": "waiting"}
    assert _statuses(corpus, "adjudicated") == {}
    assert PairDisagreement.objects.get(pair=pair).gold_source == ""
    assert adjudication_of(pair)["gold"] is None
    assert not GoldAlignment.objects.filter(pair=pair).exists()
    assert not GoldLink.objects.filter(gold__pair=pair).exists()


def test_the_history_keeps_every_version_and_the_clear_with_who_and_when(
    corpus: Corpus, carol: Any
) -> None:
    pair = _adjudicated(corpus, carol)
    gold_clear(pair=pair, actor=carol, base_version=2)
    history = gold_history(pair)
    assert history["total"] == 3
    cleared = history["events"][0]
    assert (cleared["version"], cleared["kind"], cleared["actor"]) == (3, "cleared", "carol")
    assert (cleared["set"], cleared["cleared"], cleared["removed"]) == (0, 1, [[1, 1]])
    assert cleared["created_at"]
    assert [e["version"] for e in history["events"]] == [3, 2, 1]


def test_a_gold_export_leaves_the_cleared_pair_out(
    corpus: Corpus, carol: Any, settings: Any, tmp_path: Path
) -> None:
    settings.EXPORT_DIR = tmp_path / "exports"
    pair = _adjudicated(corpus, carol)
    gold_save(
        pair=corpus.pairs.get(external_id="p2"),
        links={(0, 0): True},
        adjudicator=carol,
        base_version=0,
    )
    gold_clear(pair=pair, actor=carol, base_version=2)
    job = export_job_create(corpus=corpus, format_name="pharaoh", which="gold")
    jobs_runtime.job_run(job_id=job.pk, worker="test")
    job.refresh_from_db()
    assert job.status == "succeeded", job.error
    assert job.result["pairs"] == 1  # p2 alone: p1 is not written as an empty gold


def test_prefill_training_learns_the_majority_of_a_cleared_pair_not_an_empty_gold(
    corpus: Corpus, carol: Any
) -> None:
    pair = corpus.pairs.get(external_id="p1")
    gold_save(pair=pair, links={}, adjudicator=carol, base_version=0)  # the undone accept
    assert _finished_work(corpus)[pair.pk].sure == frozenset()
    gold_clear(pair=pair, actor=carol, base_version=1)
    majority = Alignment.from_pharaoh("1-1", pair.n_source, pair.n_target)
    assert _finished_work(corpus)[pair.pk].sure == majority.sure


def test_a_clear_from_a_stale_view_is_a_conflict_and_changes_nothing(
    corpus: Corpus, carol: Any
) -> None:
    pair = _adjudicated(corpus, carol)
    with pytest.raises(StaleGold) as caught:
        gold_clear(pair=pair, actor=make_user("dave", roles.ADJUDICATOR), base_version=1)
    assert caught.value.status_code == 409
    assert "version 2 was saved by carol" in caught.value.message
    assert caught.value.extra["server"]["version"] == 2
    assert caught.value.extra["server"]["links"] == [[1, 1, "S"]]
    assert GoldAlignment.objects.get(pair=pair).version == 2
    assert GoldEvent.objects.filter(pair=pair).count() == 2
    assert _statuses(corpus, "adjudicated") == {"p1": "adjudicated"}


def test_clearing_a_pair_without_gold_changes_nothing(corpus: Corpus, carol: Any) -> None:
    pair = _adjudicated(corpus, carol)
    gold_clear(pair=pair, actor=carol, base_version=2)
    again = gold_clear(pair=pair, actor=carol, base_version=2)  # a retried request
    assert not again.changed and again.version == 3
    never = gold_clear(pair=corpus.pairs.get(external_id="p2"), actor=carol, base_version=1)
    assert not never.changed and never.version == 0
    assert GoldEvent.objects.count() == 3


def test_a_save_after_a_clear_goes_on_from_the_next_version(corpus: Corpus, carol: Any) -> None:
    pair = _adjudicated(corpus, carol)
    gold_clear(pair=pair, actor=carol, base_version=2)
    result = gold_save(pair=pair, links={(0, 0): True}, adjudicator=carol, base_version=3)
    assert result.changed and result.gold.version == 4
    assert _statuses(corpus, "adjudicated") == {"p1": "adjudicated"}
    events = list(GoldEvent.objects.filter(pair=pair).values_list("version", "kind", "added"))
    assert events[-2:] == [(3, "cleared", []), (4, "adjudicated", [[0, 0, "S"]])]
    again = gold_clear(pair=pair, actor=carol, base_version=4)
    assert again.version == 5


def test_a_save_from_a_view_before_the_clear_is_a_conflict_naming_it(
    corpus: Corpus, carol: Any
) -> None:
    pair = _adjudicated(corpus, carol)
    gold_clear(pair=pair, actor=carol, base_version=2)
    with pytest.raises(StaleGold, match="sent back to waiting by carol") as caught:
        gold_save(pair=pair, links={(0, 0): True}, adjudicator=carol, base_version=2)
    assert "save it on version 3" in caught.value.message
    assert caught.value.extra["server"] == {
        "links": [],
        "version": 3,
        "adjudicator": "carol",
        "updated_at": GoldEvent.objects.get(pair=pair, version=3).created_at.isoformat(),
        "origin": "cleared",
        "job": None,
    }
    assert not GoldAlignment.objects.filter(pair=pair).exists()


def test_a_save_from_a_view_without_gold_is_a_conflict_once_a_gold_came_and_went(
    corpus: Corpus, carol: Any
) -> None:
    """A page opened before the pair's first gold still names version 0: once that gold was
    saved and sent back to waiting, its save is told of the clear instead of making a new gold
    (it did, silently: 0 was "no gold" before and after the clear)."""
    pair = _adjudicated(corpus, carol)
    gold_clear(pair=pair, actor=carol, base_version=2)
    dave = make_user("dave", roles.ADJUDICATOR)
    for base in (0, None):
        with pytest.raises(StaleGold, match="sent back to waiting by carol") as caught:
            gold_save(pair=pair, links={(2, 3): False}, adjudicator=dave, base_version=base)
        assert caught.value.extra["server"]["version"] == 3
    assert not GoldAlignment.objects.filter(pair=pair).exists()
    assert GoldEvent.objects.filter(pair=pair).count() == 3
    assert adjudication_of(pair)["cleared"]["version"] == 3  # what the page names instead
    saved = gold_save(pair=pair, links={(2, 3): False}, adjudicator=dave, base_version=3)
    assert saved.changed and saved.gold.version == 4
    assert adjudication_of(pair)["cleared"] is None


def test_a_pair_that_never_had_gold_is_saved_on_version_0_and_shows_no_clear(
    corpus: Corpus, carol: Any
) -> None:
    pair = corpus.pairs.get(external_id="p2")
    assert adjudication_of(pair)["cleared"] is None
    with pytest.raises(StaleGold, match="this pair has no gold alignment"):
        gold_save(pair=pair, links={(0, 0): True}, adjudicator=carol, base_version=2)
    assert gold_save(pair=pair, links={(0, 0): True}, adjudicator=carol, base_version=0).changed


def test_an_imported_gold_can_be_cleared_too(carol: Any) -> None:
    corpus_import_records(
        corpus_name="g",
        records=[make_record("p1", annotations={"A": "0-0", "B": "0-0"}, gold="1-1")],
    )
    pair = Corpus.objects.get(name="g").pairs.get()
    assert gold_clear(pair=pair, actor=carol, base_version=1).version == 2
    assert [e["kind"] for e in gold_history(pair)["events"]] == ["cleared", "imported"]
    assert not GoldAlignment.objects.exists()


def test_a_trial_pairs_gold_cannot_be_cleared(carol: Any) -> None:
    """Its gold is the key of the feedback its annotators were shown: clearing it took the
    feedback away from those who had submitted and made the pair an ordinary one."""
    corpus_import_records(
        corpus_name="t",
        records=[make_record("p1", gold="1-1", split="trial")],
    )
    pair = Corpus.objects.get(name="t").pairs.get()
    with pytest.raises(Conflict, match="trial pair"):
        gold_clear(pair=pair, actor=carol, base_version=1)
    assert GoldAlignment.objects.filter(pair=pair).exists()
    assert not GoldEvent.objects.filter(kind=GoldEvent.Kind.CLEARED).exists()
