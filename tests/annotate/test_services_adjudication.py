"""Gold saves are versioned like annotation saves: a save names the version it was made on, a
stale one is a conflict carrying the current gold and changes nothing, and every change is a row
of the append-only gold event log."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import DatabaseError, transaction

from annotate import roles
from annotate.models import GoldAlignment, GoldEvent
from annotate.services.adjudication import StaleGold, gold_save
from annotate.services.annotations import InvalidLinks
from annotate.services.corpora import corpus_import_records
from tests.annotate.factories import make_pair, make_user
from tests.annotate.records import make_record

pytestmark = pytest.mark.django_db


@pytest.fixture
def carol() -> Any:
    return make_user("carol", roles.ADJUDICATOR)


@pytest.fixture
def dave() -> Any:
    return make_user("dave", roles.ADJUDICATOR)


def _links(gold: GoldAlignment) -> list[tuple[int, int, bool]]:
    return sorted(gold.links.values_list("i", "j", "sure"))


def _events(pair: Any) -> list[tuple[int, str, str, list, list]]:
    return [
        (e.version, e.kind, e.actor.username if e.actor else None, e.added, e.removed)
        for e in GoldEvent.objects.filter(pair=pair).select_related("actor")
    ]


def test_the_first_save_makes_version_one_and_logs_it(carol: Any) -> None:
    pair = make_pair(prefill=None)
    result = gold_save(
        pair=pair, links={(0, 0): True, (1, 1): False}, adjudicator=carol, base_version=0
    )
    assert result.changed and result.gold.version == 1
    assert _links(result.gold) == [(0, 0, True), (1, 1, False)]
    assert _events(pair) == [(1, "adjudicated", "carol", [[0, 0, "S"], [1, 1, "P"]], [])]


def test_a_save_on_the_current_version_makes_the_next_and_logs_the_difference(carol: Any) -> None:
    pair = make_pair(prefill=None)
    gold_save(pair=pair, links={(0, 0): True, (1, 1): False}, adjudicator=carol, base_version=None)
    result = gold_save(
        pair=pair, links={(1, 1): True, (2, 3): False}, adjudicator=carol, base_version=1
    )
    assert result.gold.version == 2
    assert _links(result.gold) == [(1, 1, True), (2, 3, False)]
    assert _events(pair)[1] == (2, "adjudicated", "carol", [[1, 1, "S"], [2, 3, "P"]], [[0, 0]])


def test_a_save_from_a_stale_view_is_a_conflict_with_the_current_gold_and_changes_nothing(
    carol: Any, dave: Any
) -> None:
    pair = make_pair(prefill=None)
    gold_save(pair=pair, links={(0, 0): True}, adjudicator=carol, base_version=0)
    # carol and dave both load version 1; carol saves first
    gold_save(pair=pair, links={(0, 0): True, (1, 1): True}, adjudicator=carol, base_version=1)
    with pytest.raises(StaleGold) as caught:
        gold_save(pair=pair, links={(4, 4): False}, adjudicator=dave, base_version=1)
    assert caught.value.status_code == 409
    assert "version 2 was saved by carol" in caught.value.message
    server = caught.value.extra["server"]
    assert server["links"] == [[0, 0, "S"], [1, 1, "S"]]
    assert (server["version"], server["adjudicator"], server["origin"]) == (
        2,
        "carol",
        "adjudicated",
    )
    assert server["updated_at"]
    gold = GoldAlignment.objects.get(pair=pair)
    assert (gold.version, gold.adjudicator, _links(gold)) == (
        2,
        carol,
        [(0, 0, True), (1, 1, True)],
    )
    assert [e[0] for e in _events(pair)] == [1, 2]


def test_two_first_saves_of_a_pair_without_gold_conflict_too(carol: Any, dave: Any) -> None:
    pair = make_pair(prefill=None)
    gold_save(pair=pair, links={(0, 0): True}, adjudicator=carol, base_version=0)
    with pytest.raises(StaleGold):
        gold_save(pair=pair, links={(1, 1): True}, adjudicator=dave, base_version=0)
    assert _links(GoldAlignment.objects.get(pair=pair)) == [(0, 0, True)]


def test_a_version_the_pair_never_had_is_a_conflict(carol: Any) -> None:
    pair = make_pair(prefill=None)
    with pytest.raises(StaleGold, match="has no gold alignment"):
        gold_save(pair=pair, links={(0, 0): True}, adjudicator=carol, base_version=3)
    assert not GoldAlignment.objects.exists()


def test_a_retried_save_that_already_went_through_is_harmless(carol: Any) -> None:
    pair = make_pair(prefill=None)
    gold_save(pair=pair, links={(0, 0): True}, adjudicator=carol, base_version=0)
    again = gold_save(pair=pair, links={(0, 0): True}, adjudicator=carol, base_version=0)
    assert not again.changed and again.gold.version == 1
    same = gold_save(pair=pair, links={(0, 0): True}, adjudicator=carol, base_version=1)
    assert not same.changed and same.gold.version == 1
    assert len(_events(pair)) == 1


def test_accepting_imported_gold_as_it_is_makes_it_adjudicated(carol: Any) -> None:
    pair = make_pair(prefill=None, gold=[(0, 0, True)])
    result = gold_save(pair=pair, links={(0, 0): True}, adjudicator=carol, base_version=1)
    assert result.changed
    assert (result.gold.version, result.gold.source) == (2, "adjudicated")
    assert _events(pair) == [
        (1, "imported", None, [[0, 0, "S"]], []),
        (2, "adjudicated", "carol", [], []),
    ]


def test_links_outside_the_pair_change_nothing(carol: Any) -> None:
    pair = make_pair(prefill=None)
    with pytest.raises(InvalidLinks):
        gold_save(pair=pair, links={(99, 0): True}, adjudicator=carol, base_version=0)
    assert not GoldAlignment.objects.exists() and not GoldEvent.objects.exists()


def test_the_gold_event_log_is_append_only(carol: Any) -> None:
    pair = make_pair(prefill=None)
    gold_save(pair=pair, links={(0, 0): True}, adjudicator=carol, base_version=0)
    event = GoldEvent.objects.get()
    with pytest.raises(DatabaseError, match="append-only"), transaction.atomic():
        GoldEvent.objects.filter(pk=event.pk).update(added=[])


def test_an_import_logs_version_one_of_each_gold_alignment() -> None:
    corpus_import_records(corpus_name="c", records=[make_record("p1", gold="1-1 3?4")])
    gold = GoldAlignment.objects.get()
    assert gold.version == 1
    assert _events(gold.pair) == [(1, "imported", None, [[1, 1, "S"], [3, 4, "P"]], [])]


def test_more_links_than_an_alignment_may_have_change_nothing(carol: Any) -> None:
    from annotate.services.annotations import MAX_LINKS

    words = " ".join(f"w{k}" for k in range(101))
    pair = make_pair(source=words, target=words, prefill=None)
    links = {(i, j): True for i in range(101) for j in range(100)}
    assert len(links) == MAX_LINKS + 100
    with pytest.raises(InvalidLinks, match="at most 10,000"):
        gold_save(pair=pair, links=links, adjudicator=carol, base_version=0)
    assert not GoldAlignment.objects.exists()


def test_an_import_with_an_alignment_over_the_link_limit_imports_nothing() -> None:
    from annotate.services.import_stage import CorpusImportError

    words = " ".join(f"w{k}" for k in range(101))
    gold = " ".join(f"{i}-{j}" for i in range(101) for j in range(100))
    record = make_record("big", words, words, prefill=None, gold=gold)
    with pytest.raises(CorpusImportError, match="pair 'big': the gold has 10,100 links"):
        corpus_import_records(corpus_name="c", records=[make_record("ok"), record])
    assert not GoldAlignment.objects.exists()
