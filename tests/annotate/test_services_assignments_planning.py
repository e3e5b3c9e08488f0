"""Planning on real corpora: a selection of pairs (sub-corpus, split, lengths, a batch), K counted
among the chosen people only, open work counted per corpus, and the accounts an import made."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone

from annotate import roles
from annotate.exceptions import Conflict, DomainError
from annotate.models import Assignment, Corpus
from annotate.selectors.assignments import plan_candidates
from annotate.services import assignments
from annotate.services.assignments import (
    PlanSelection,
    assignments_plan,
    assignments_plan_job_create,
)
from annotate.services.corpora import corpus_import_records
from tests.annotate.factories import make_assignment, make_corpus, make_pair, make_user
from tests.annotate.records import make_record

pytestmark = pytest.mark.django_db

SHORT = ("a b c", "a b c d")  # shorter sentence: 3 tokens
LONG = ("a b c d e f g h", "a b c d e f g h i")  # 8 tokens


@pytest.fixture
def team() -> list[Any]:
    return [make_user(name, roles.ANNOTATOR) for name in ("alice", "bob")]


def _corpus(*shapes: tuple[str, str, str, tuple[str, str]]) -> Corpus:
    """Pairs of (external id, sub-corpus, split, (source, target)), in corpus order."""
    corpus = make_corpus()
    for external_id, subcorpus, split, (source, target) in shapes:
        pair = make_pair(corpus, source, target, split=split, external_id=external_id, prefill=None)
        pair.subcorpus = subcorpus
        pair.save(update_fields=["subcorpus"])
    return corpus


def _planned(corpus: Corpus) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for pair, name in Assignment.objects.filter(pair__corpus=corpus).values_list(
        "pair__external_id", "annotator__username"
    ):
        out.setdefault(pair, set()).add(name)
    return out


@pytest.fixture
def imported() -> Corpus:
    """Six pairs annotated by the imported accounts A, B and C; three news, three novels."""
    records = [
        make_record(
            f"dev:{k}",
            annotations={"A": "1-1", "B": "1-1 3-4", "C": "4-5"},
            subcorpus=("news", "novels")[k % 2],
            split=("dev", "test")[k // 3],
        )
        for k in range(6)
    ]
    corpus_import_records(corpus_name="rte", records=records)
    return Corpus.objects.get(name="rte")


def test_k_counts_only_the_chosen_people_so_imported_annotators_do_not_fill_the_quota(
    imported: Corpus, team: list[Any]
) -> None:
    report = assignments_plan(corpus=imported, annotators=team, per_pair=2, seed=1)
    assert report.created == 12
    assert all({"alice", "bob"} <= names for names in _planned(imported).values())
    assert (report.selected, report.covered, report.planned) == (6, 0, 6)


def test_a_pair_that_already_has_k_of_the_chosen_people_is_left_alone(team: list[Any]) -> None:
    corpus = _corpus(("p0", "", "", SHORT), ("p1", "", "", SHORT), ("p2", "", "", SHORT))
    alice = team[0]
    for user in team:
        make_assignment(corpus.pairs.get(external_id="p0"), user)
    make_assignment(corpus.pairs.get(external_id="p1"), alice)
    report = assignments_plan(corpus=corpus, annotators=team, per_pair=2, seed=4)
    assert report.created == 3 and report.covered == 1
    assert _planned(corpus) == {name: {"alice", "bob"} for name in ("p0", "p1", "p2")}


def test_a_sub_corpus_and_a_split_narrow_the_plan(imported: Corpus, team: list[Any]) -> None:
    selection = PlanSelection(subcorpus="news", split="dev")
    report = assignments_plan(
        corpus=imported, annotators=team, per_pair=1, seed=2, selection=selection
    )
    assert report.selected == 2 and report.created == 2
    planned = {pair for pair, names in _planned(imported).items() if names & {"alice", "bob"}}
    assert planned == {"dev:0", "dev:2"}
    assert report.selection == "sub-corpus news · split dev"


def test_a_length_range_takes_pairs_by_their_shorter_sentence(team: list[Any]) -> None:
    corpus = _corpus(
        ("s", "", "", SHORT), ("l", "", "", LONG), ("m", "", "", ("a b c d e", LONG[1]))
    )
    report = assignments_plan(
        corpus=corpus,
        annotators=team[:1],
        seed=0,
        selection=PlanSelection(min_length=4, max_length=8),
    )
    assert set(_planned(corpus)) == {"l", "m"} and report.selected == 2
    only_short = PlanSelection(max_length=3)
    assignments_plan(corpus=corpus, annotators=team[1:], seed=0, selection=only_short)
    assert _planned(corpus)["s"] == {"bob"}
    assert only_short.describe() == "length ≤ 3"


def test_a_batch_takes_the_first_pairs_in_corpus_order_that_still_need_people(
    team: list[Any],
) -> None:
    corpus = _corpus(*[(f"p{k}", "", "", SHORT) for k in range(6)])
    make_assignment(corpus.pairs.get(external_id="p1"), team[0])
    first = assignments_plan(
        corpus=corpus, annotators=team[:1], seed=0, selection=PlanSelection(batch=3)
    )
    assert first.created == 3 and first.planned == 3
    assert set(_planned(corpus)) == {"p0", "p1", "p2", "p3"}
    second = assignments_plan(
        corpus=corpus, annotators=team[:1], seed=0, selection=PlanSelection(batch=3)
    )
    assert second.created == 2 and set(_planned(corpus)) == {f"p{k}" for k in range(6)}


def test_the_doubly_annotated_share_is_a_share_of_the_batch(team: list[Any]) -> None:
    corpus = _corpus(*[(f"p{k}", "", "", SHORT) for k in range(20)])
    report = assignments_plan(
        corpus=corpus,
        annotators=team,
        per_pair=1,
        double_fraction=0.5,
        seed=5,
        selection=PlanSelection(batch=10),
    )
    sizes = Counter(len(names) for names in _planned(corpus).values())
    assert report.doubled_pairs == 5 and sizes == {1: 5, 2: 5} and report.created == 15


def test_open_work_is_counted_in_this_corpus_only(team: list[Any]) -> None:
    alice = team[0]
    elsewhere = _corpus(*[(f"o{k}", "", "", SHORT) for k in range(5)])
    for pair in elsewhere.pairs.all():
        make_assignment(pair, alice)
    corpus = _corpus(*[(f"p{k}", "", "", SHORT) for k in range(4)])
    report = assignments_plan(corpus=corpus, annotators=team, per_pair=1, seed=3)
    assert report.load == {"alice": 2, "bob": 2}, "alice's five pairs elsewhere do not weigh"


def test_the_job_refuses_a_selection_that_cannot_hold_naming_the_field(
    imported: Corpus, team: list[Any]
) -> None:
    cases = [
        (PlanSelection(subcorpus="sports"), "subcorpus", "no sub-corpus 'sports'"),
        (PlanSelection(split="train"), "split", "no split 'train'"),
        (PlanSelection(min_length=9, max_length=4), "max_length", "above the longest"),
        (PlanSelection(min_length=40), "min_length", "no pair of corpus “rte” matches"),
        (PlanSelection(batch=0), "batch", "batch must be at least 1"),
    ]
    for selection, field, message in cases:
        with pytest.raises(DomainError, match=message) as caught:
            assignments_plan_job_create(corpus=imported, annotators=["alice"], selection=selection)
        assert caught.value.extra.get("field") == field, selection


def test_the_job_keeps_its_selection_and_the_run_reports_it(
    imported: Corpus, team: list[Any]
) -> None:
    from annotate.services.assignments import assignments_plan_run

    job = assignments_plan_job_create(
        corpus=imported,
        annotators=["alice", "bob"],
        per_pair=2,
        seed=9,
        selection=PlanSelection(subcorpus="novels", batch=2),
    )
    assert job.parameters["selection"] == {"subcorpus": "novels", "batch": 2}
    result = assignments_plan_run.runner(job, lambda percent, message: None)
    assert result["created"] == 4 and result["planned"] == 2
    assert result["load"] == {"alice": 2, "bob": 2}
    assert result["selection"] == "sub-corpus novels · a batch of 2 pairs"


def test_accounts_an_import_made_are_candidates_marked_imported_and_not_ticked(
    imported: Corpus, team: list[Any]
) -> None:
    make_user("invited", roles.ANNOTATOR)  # no password yet, nothing imported
    make_user("carol", roles.ADJUDICATOR)
    root = make_user("root")
    root.is_superuser = True
    root.save()
    signed_in = ("alice", "bob", "root")
    get_user_model().objects.filter(username__in=signed_in).update(last_login=timezone.now())
    candidates = {c.username: c for c in plan_candidates(imported)}
    assert set(candidates) == {"A", "B", "C", "alice", "bob", "invited", "root"}
    assert {name for name, c in candidates.items() if c.imported} == {"A", "B", "C"}
    assert {name for name, c in candidates.items() if not c.signs_in} == {"A", "B", "C", "invited"}
    assert {name for name, c in candidates.items() if c.ticked} == {"alice", "bob"}
    assert candidates["A"].open_here == 0


def test_an_imported_account_that_got_a_password_is_a_person_again(imported: Corpus) -> None:
    a = Assignment.objects.filter(annotator__username="A").first().annotator
    a.set_password("a-long-Password-1")
    a.save()
    again = {c.username: c for c in plan_candidates(imported)}["A"]
    assert not again.imported and again.signs_in and again.ticked


def test_with_k_of_two_or_more_no_pair_is_counted_as_doubled(team: list[Any]) -> None:
    corpus = _corpus(*[(f"p{k}", "", "", SHORT) for k in range(4)])
    report = assignments_plan(
        corpus=corpus, annotators=team, per_pair=2, double_fraction=0.5, seed=1
    )
    assert report.doubled_pairs == 0 and report.created == 8


def test_an_assignment_added_by_another_change_while_planning_is_a_conflict_not_a_crash(
    team: list[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    corpus = _corpus(("p1", "news", "", SHORT), ("p2", "news", "", SHORT))
    load = assignments._open_load

    def handed_over_meanwhile(*args: Any, **options: Any) -> Any:
        # after the plan read who holds what: idle work released gives p1 to alice
        make_assignment(pair=corpus.pairs.get(external_id="p1"), annotator=team[0])
        return load(*args, **options)

    monkeypatch.setattr(assignments, "_open_load", handed_over_meanwhile)
    with pytest.raises(Conflict, match="changed while this plan was made"):
        assignments_plan(corpus=corpus, annotators=team, per_pair=2, seed=1)
    assert _planned(corpus) == {}  # the plan rolled back (with the stand-in, in its transaction)
