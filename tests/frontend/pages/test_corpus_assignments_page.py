"""A corpus's assignments tab, rendered on the server: who the plan form ticks (never an imported
account, not even after a plan named one), planning a selection, handing over open work, bad
input refused on its field with nothing queued, and the plans with what they did, live while one
runs."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from annotate import jobs_runtime as jobs
from annotate import roles
from annotate.models import Assignment, Corpus, Job
from annotate.services import annotations
from annotate.services.corpora import corpus_import_records
from tests.annotate.factories import make_user
from tests.annotate.records import make_record
from tests.frontend.pages.forms import form_values

pytestmark = pytest.mark.django_db


@pytest.fixture
def corpus(fast_passwords: None) -> Corpus:
    """Eight pairs (news and novels, dev and test) annotated by the imported A, B and C; alice
    and bob sign in with a password."""
    records = [
        make_record(
            f"dev:{k}",
            prefill=None,
            annotations={"A": "1-1", "B": "1-1", "C": "1-1"},
            subcorpus=("news", "novels")[k % 2],
            split=("dev", "test")[k // 4],
        )
        for k in range(8)
    ]
    corpus_import_records(corpus_name="rte", records=records)
    for name in ("alice", "bob"):
        make_user(name, roles.ANNOTATOR, password="a-long-Password-1")
    return Corpus.objects.get(name="rte")


def _page(client: Client, corpus: Corpus) -> str:
    return client.get(f"/corpora/{corpus.pk}/assignments/").content.decode()


def _plan(client: Client, corpus: Corpus, **changes: Any) -> Any:
    values = form_values(_page(client, corpus), "plan-form")
    for name, value in changes.items():
        values[name] = value if isinstance(value, list) else [str(value)]
    return client.post(f"/corpora/{corpus.pk}/assignments/plan/", values)


def _run_queued() -> None:
    for job in Job.objects.filter(status=Job.Status.PENDING):
        assert jobs.job_run(job_id=job.pk, worker="here") == Job.Status.SUCCEEDED


def test_the_plan_form_ticks_the_people_and_never_the_imported_accounts(
    admin_client: Client, corpus: Corpus
) -> None:
    make_user("dora", roles.ANNOTATOR)  # invited: no password yet
    html = _page(admin_client, corpus)
    assert form_values(html, "plan-form")["annotators"] == ["alice", "bob"]
    people = html.split('id="plan-annotators"')[1].split("</fieldset>")[0]
    for name in ("A", "B", "C"):
        label = people.split(f'value="{name}"')[1].split("</label>")[0]
        assert ">imported</span>" in label
    assert ">no password yet</span>" in people.split('value="dora"')[1].split("</label>")[0]


def test_a_lone_annotator_starts_without_a_doubly_annotated_share_and_plans_as_is(
    admin_client: Client, corpus: Corpus
) -> None:
    assert form_values(_page(admin_client, corpus), "plan-form")["double_percent"] == ["20"]
    User.objects.get(username="bob").delete()
    values = form_values(_page(admin_client, corpus), "plan-form")
    assert values["annotators"] == ["alice"] and values["double_percent"] == ["0"]
    assert _plan(admin_client, corpus).status_code == 302


def test_planning_k_2_for_alice_and_bob_gives_every_pair_both_whatever_a_b_c_did(
    admin_client: Client, corpus: Corpus
) -> None:
    response = _plan(admin_client, corpus, annotators=["alice", "bob"], per_pair=2, seed=4)
    assert response.status_code == 302
    job = Job.objects.get(kind="assignments_plan")
    assert job.parameters["annotators"] == ["alice", "bob"] and job.seed == 4
    _run_queued()
    planned = Assignment.objects.filter(annotator__username__in=["alice", "bob"])
    assert planned.count() == 16
    html = _page(admin_client, corpus)
    done = re.sub(r"\s+", " ", html.split('class="plan-done"')[1].split("</td>")[0])
    assert "Created 16 assignments on 8 pairs (seed 4)" in done
    assert "Open work in this corpus now: alice 8, bob 8." in done


def test_a_plans_open_work_is_listed_by_name_whatever_order_the_database_keeps(
    admin_client: Client, corpus: Corpus
) -> None:
    _plan(admin_client, corpus, annotators=["alice", "bob"], per_pair=2, seed=4)
    _run_queued()
    job = Job.objects.get(kind="assignments_plan")
    job.result["load"] = {"bob": 8, "alice": 8}  # PostgreSQL's jsonb keeps keys by length
    job.save()
    html = _page(admin_client, corpus)
    done = re.sub(r"\s+", " ", html.split('class="plan-done"')[1].split("</td>")[0])
    assert "Open work in this corpus now: alice 8, bob 8." in done


def test_a_batch_of_a_sub_corpus_and_split_is_planned_and_the_form_remembers_it(
    admin_client: Client, corpus: Corpus
) -> None:
    response = _plan(
        admin_client,
        corpus,
        annotators=["alice", "bob"],
        per_pair=1,
        double_percent=0,
        subcorpus="news",
        split="dev",
        batch=1,
    )
    assert response.status_code == 302
    _run_queued()
    assert list(
        Assignment.objects.filter(annotator__username__in=["alice", "bob"]).values_list(
            "pair__external_id", flat=True
        )
    ) == ["dev:0"]
    again = form_values(_page(admin_client, corpus), "plan-form")
    assert (again["subcorpus"], again["split"], again["batch"]) == (["news"], ["dev"], ["1"])
    assert again["annotators"] == ["alice", "bob"]


def test_an_imported_account_named_in_the_last_plan_is_not_ticked_again(
    admin_client: Client, corpus: Corpus
) -> None:
    assert _plan(admin_client, corpus, annotators=["A", "alice"], per_pair=1).status_code == 302
    assert form_values(_page(admin_client, corpus), "plan-form")["annotators"] == ["alice"]


@pytest.mark.parametrize(
    ("changes", "field", "message"),
    [
        (
            {"annotators": ["alice"], "per_pair": 2},
            "Annotators",
            "only 1 chosen: choose 1 more, or lower K to 1",
        ),
        ({"annotators": []}, "Annotators", "This field is required."),
        ({"per_pair": 0}, "Annotators per pair (K)", "greater than or equal to 1"),
        ({"double_percent": 120}, "Doubly annotated share (%)", "less than or equal to 100"),
        ({"min_length": 9, "max_length": 3}, "Longest length", "above the longest"),
        (
            {"min_length": 50},
            "Shortest length",
            "matches the selection (length ≥ 50): the shorter sentences of its pairs are 6–6 "
            "tokens long; choose lengths within them",
        ),
        (
            {"subcorpus": "news", "min_length": 7, "max_length": 9},
            "Longest length",
            "(sub-corpus news · length 7–9): the shorter sentences of its pairs of sub-corpus "
            "news are 6–6 tokens long",
        ),
        ({"subcorpus": "sports"}, "Sub-corpus", "Select a valid choice"),
        ({"batch": 0}, "At most (pairs)", "greater than or equal to 1"),
        ({"batch": 10**30}, "At most (pairs)", "less than or equal to 10000000"),
        ({"min_length": 10**30}, "Shortest length", "less than or equal to 1000000"),
        ({"max_length": 10**30}, "Longest length", "less than or equal to 1000000"),
        ({"seed": -1}, "Seed", "greater than or equal to 0"),
    ],
)
def test_a_bad_plan_is_refused_on_its_field_and_queues_nothing(
    admin_client: Client, corpus: Corpus, changes: dict[str, Any], field: str, message: str
) -> None:
    response = _plan(admin_client, corpus, **changes)
    assert response.status_code == 400
    errors = response.content.decode().split('id="plan-errors"')[1].split("</div>")[0]
    assert f"<b>{field}</b>: " in errors and message in errors, errors
    assert (
        not Job.objects.exists()
        and not Assignment.objects.exclude(annotator__username__in=["A", "B", "C"]).exists()
    )


def test_handing_over_open_work_moves_it_to_the_people_ticked(
    admin_client: Client, corpus: Corpus
) -> None:
    _plan(admin_client, corpus, annotators=["alice"], per_pair=1, double_percent=0)
    _run_queued()
    values = form_values(_page(admin_client, corpus), "handover-form")
    assert values["annotator"] == ["alice"] and "to" not in values
    values["to"] = ["bob"]
    response = admin_client.post(f"/corpora/{corpus.pk}/assignments/hand-over/", values)
    assert response.status_code == 302
    _run_queued()
    assert Assignment.objects.filter(annotator__username="bob").count() == 8
    assert "Moved 8 assignments." in _page(admin_client, corpus)


def test_a_hand_over_that_leaves_started_work_says_how_to_move_it(
    admin_client: Client, corpus: Corpus
) -> None:
    _plan(admin_client, corpus, annotators=["alice"], per_pair=1, double_percent=0)
    _run_queued()
    alice = User.objects.get(username="alice")
    for assignment in Assignment.objects.filter(annotator=alice).order_by("pk")[:3]:
        annotations.annotation_open(assignment=assignment, actor=alice)
        annotations.annotation_save(
            assignment=assignment, actor=alice, base_version=1, links={(0, 0): True}
        )
    values = form_values(_page(admin_client, corpus), "handover-form")
    values["to"] = ["bob"]
    admin_client.post(f"/corpora/{corpus.pk}/assignments/hand-over/", values)
    _run_queued()
    page = _page(admin_client, corpus)
    assert "Moved 5 assignments; 3 in progress stay with their saved work" in page
    assert Assignment.objects.filter(annotator=alice, status="in_progress").count() == 3


def test_a_hand_over_to_nobody_is_refused_and_queues_nothing(
    admin_client: Client, corpus: Corpus
) -> None:
    _plan(admin_client, corpus, annotators=["alice"], per_pair=1, double_percent=0)
    _run_queued()
    response = admin_client.post(
        f"/corpora/{corpus.pk}/assignments/hand-over/", {"annotator": "alice"}
    )
    assert response.status_code == 400
    errors = response.content.decode().split('id="handover-errors"')[1].split("</div>")[0]
    assert "<b>To</b>: This field is required." in errors
    same = admin_client.post(
        f"/corpora/{corpus.pk}/assignments/hand-over/", {"annotator": "alice", "to": ["alice"]}
    )
    assert same.status_code == 400
    assert "other than the one handing over" in same.content.decode()
    assert Job.objects.filter(kind="assignments_hand_over").count() == 0


def test_the_summary_and_progress_are_live_fragments_while_a_plan_runs(
    admin_client: Client, corpus: Corpus
) -> None:
    _plan(admin_client, corpus, annotators=["alice", "bob"], per_pair=1)
    for name in ("summary", "progress"):
        html = admin_client.get(f"/corpora/{corpus.pk}/assignments/?fragment={name}").content
        assert html.decode().lstrip().startswith(f'<div data-fragment="{name}" data-live')
    _run_queued()
    summary = admin_client.get(f"/corpora/{corpus.pk}/assignments/?fragment=summary").content
    assert b"data-live" not in summary and b"<html" not in summary
    progress = admin_client.get(f"/corpora/{corpus.pk}/assignments/?fragment=progress")
    assert b'data-annotator="alice"' in progress.content


def test_the_two_forms_are_fragments_that_follow_the_plans(
    admin_client: Client, corpus: Corpus
) -> None:
    for name in ("plan", "handover"):
        html = admin_client.get(f"/corpora/{corpus.pk}/assignments/?fragment={name}").content
        assert (
            html.decode()
            .lstrip()
            .startswith(
                f'<section class="card" aria-labelledby="{name}-title" data-fragment="{name}" '
                'data-follows="summary">'
            )
        )
        assert f'id="{name}-form"'.encode() in html or b"Nobody has open work here" in html


def test_progress_per_annotator_marks_imported_accounts_and_explains_a_missing_edit_rate(
    admin_client: Client, corpus: Corpus
) -> None:
    html = _page(admin_client, corpus)
    row = html.split('data-annotator="A"')[1].split("</tr>")[0]
    assert "imported" in row and "—<span" in row  # no prefill in this corpus: no edit rate
    assert "none of this annotator's submitted pairs has a prefill" in row
    assert "2 of 8 submitted" not in row and "8 of 8 submitted" in row


def test_a_plan_reported_before_selections_existed_still_reads(
    admin_client: Client, corpus: Corpus
) -> None:
    Job.objects.create(
        kind="assignments_plan",
        corpus=corpus,
        status=Job.Status.SUCCEEDED,
        parameters={"annotators": ["alice"], "per_pair": 1, "double_fraction": 0.0},
        result={"created": 8, "seed": 3, "doubled_pairs": 0, "load": {"alice": 8}},
    )
    html = _page(admin_client, corpus)
    done = re.sub(r"\s+", " ", html.split('class="plan-done"')[1].split("</td>")[0])
    assert "Created 8 assignments (seed 3)." in done and "alice 8" in done


def test_a_plans_doubled_share_is_named_only_where_it_can_act(
    admin_client: Client, corpus: Corpus
) -> None:
    for per_pair in (1, 2):
        Job.objects.create(
            kind="assignments_plan",
            corpus=corpus,
            status=Job.Status.SUCCEEDED,
            parameters={
                "annotators": ["alice", "bob"],
                "per_pair": per_pair,
                "double_fraction": 0.2,
            },
            result={"created": 8, "seed": 3, "doubled_pairs": 0, "load": {"alice": 8}},
        )
    html = re.sub(r"\s+", " ", _page(admin_client, corpus))
    assert "K = 1 · 20% doubled" in html, "with one annotator a pair, the share is doubled"
    assert "K = 2 · 20% doubled" not in html, "with two, every pair is: the share does nothing"


def test_the_page_reads_as_many_queries_for_thirty_more_people_with_work(
    admin_client: Client, corpus: Corpus
) -> None:
    with CaptureQueriesContext(connection) as few:
        _page(admin_client, corpus)
    pairs = list(corpus.pairs.all())
    for k in range(30):  # no password yet: each is looked up for imported work
        person = make_user(f"p{k:02d}", roles.ANNOTATOR)
        Assignment.objects.bulk_create(Assignment(pair=pair, annotator=person) for pair in pairs)
    with CaptureQueriesContext(connection) as many:
        html = _page(admin_client, corpus)
    assert len(many) == len(few) <= 25, [query["sql"] for query in many]
    assert 'data-annotator="p29"' in html
    assert "p29 (8 open)" in html and "p29</a>" in html


def test_an_imported_account_no_longer_a_candidate_is_still_marked_imported(
    admin_client: Client, corpus: Corpus
) -> None:
    User.objects.filter(username="A").update(is_active=False)
    html = _page(admin_client, corpus)
    assert 'value="A"' not in html.split('id="plan-annotators"')[1].split("</fieldset>")[0]
    row = html.split('data-annotator="A"')[1].split("</tr>")[0]
    assert ">imported</span>" in row and ">deactivated</span>" in row


def test_a_corpus_without_assignments_says_so_instead_of_an_undefined_share(
    admin_client: Client,
) -> None:
    corpus_import_records(corpus_name="fresh", records=[make_record("p:0", prefill=None)])
    page = _page(admin_client, Corpus.objects.get(name="fresh"))
    tiles = page[page.index('id="tiles"') : page.index('class="grid-2')]
    assert "no assignments yet" in tiles and "undefined" not in tiles


def _fragment(html: str, name: str) -> str:
    """The element ``data-fragment=name`` of a page, to its closing tag at the same depth."""
    start = html.index(f'<div data-fragment="{name}"')
    depth, at = 0, start
    for tag in re.finditer(r"<(/?)div\b[^>]*>", html[start:]):
        depth += -1 if tag.group(1) else 1
        if depth == 0:
            at = start + tag.end()
            break
    return html[start:at]


def test_each_live_fragment_reads_only_what_it_shows_and_shows_what_the_page_does(
    admin_client: Client, corpus: Corpus
) -> None:
    """The page refreshes its live fragments every two seconds while a job runs: each
    recomputing the whole tab (the progress figures, the forms' people, the last plan) was
    seconds of SQL a refresh at 100,000 pairs."""
    _plan(admin_client, corpus, annotators=["alice", "bob"], per_pair=1)
    page = _page(admin_client, corpus)
    url = f"/corpora/{corpus.pk}/assignments/?fragment="
    with CaptureQueriesContext(connection) as summary_queries:
        summary = admin_client.get(f"{url}summary").content.decode()
    with CaptureQueriesContext(connection) as progress_queries:
        progress = admin_client.get(f"{url}progress").content.decode()
    assert summary.strip() == _fragment(page, "summary").strip()
    assert progress.strip() == _fragment(page, "progress").strip()
    summary_sql = " ".join(query["sql"] for query in summary_queries)
    assert "prefill_edits" not in summary_sql and "active_seconds" not in summary_sql
    progress_sql = " ".join(query["sql"] for query in progress_queries)
    assert '"annotate_job"."result" AS' not in progress_sql, "the jobs' results are the summary's"
    with CaptureQueriesContext(connection) as plan_queries:
        admin_client.get(f"{url}plan")
    assert not any("active_seconds" in query["sql"] for query in plan_queries)


def test_a_plan_in_an_archived_corpus_is_refused_on_the_form(
    admin_client: Client, corpus: Corpus
) -> None:
    values = form_values(_page(admin_client, corpus), "plan-form")
    admin_client.post(f"/corpora/{corpus.pk}/archive/")
    answer = admin_client.post(f"/corpora/{corpus.pk}/assignments/plan/", values)
    assert answer.status_code == 400
    assert "is archived: restore it before planning assignments" in answer.content.decode()
    assert not Job.objects.filter(kind="assignments_plan").exists()


def test_the_forms_of_an_archived_corpus_are_disabled_and_say_why(
    admin_client: Client, corpus: Corpus
) -> None:
    admin_client.post(f"/corpora/{corpus.pk}/archive/")
    html = _page(admin_client, corpus)
    notice = (
        "Restore it to plan, hand over or release work, set the queue order, prefill or import "
        "into it."
    )
    assert notice in html
    assert 'id="plan-submit"' in html
    for button in ("plan-submit", "handover-submit", "release-submit"):  # those shown
        if f'id="{button}"' in html:
            assert re.search(rf'<button[^>]*\bdisabled\b[^>]*id="{button}"', html), button
    prefill = admin_client.get(f"/corpora/{corpus.pk}/prefill/").content.decode()
    assert re.search(r'<button[^>]*\bdisabled\b[^>]*id="prefill-submit"', prefill)
    # the queue order is refused too, and its button points at the notice that says so
    assert notice in prefill
    assert re.search(
        r'<button[^>]*\bdisabled aria-describedby="archived-notice"[^>]*id="queue-order-submit"',
        prefill,
    )


@pytest.mark.parametrize(("typed", "shown"), [("20", "20"), ("7", "7"), ("12.5", "12.5")])
def test_the_plan_form_shows_the_last_plans_share_as_it_was_typed(
    admin_client: Client, corpus: Corpus, typed: str, shown: str
) -> None:
    _plan(admin_client, corpus, annotators=["alice", "bob"], per_pair=1, double_percent=typed)
    values = form_values(_page(admin_client, corpus), "plan-form")
    assert (values["double_percent"], values["per_pair"]) == ([shown], ["1"])


def test_the_hand_over_offers_under_to_everyone_but_the_one_handing_over(
    admin_client: Client, corpus: Corpus
) -> None:
    _plan(admin_client, corpus, annotators=["alice", "bob"], per_pair=1, double_percent=0)
    _run_queued()
    html = _page(admin_client, corpus)
    chosen = html.split('id="handover-from"')[1].split("</select>")[0]
    assert chosen.index('value="alice"') < chosen.index('value="bob"'), "alice comes first"
    to = html.split('id="handover-to"')[1].split("</div>")[0]
    assert '<label hidden><input type="checkbox" name="to" value="alice" disabled>' in to
    assert '<label><input type="checkbox" name="to" value="bob">' in to
    assert form_values(html, "handover-form").get("to", []) == []


def test_a_hand_over_to_its_own_annotator_with_others_is_refused_and_moves_nothing(
    admin_client: Client, corpus: Corpus
) -> None:
    """Naming the one handing over among the others was dropped silently; now it is an error
    under To, the form chooses bob again and alice is not offered."""
    _plan(admin_client, corpus, annotators=["alice", "bob"], per_pair=1, double_percent=0)
    _run_queued()
    before = sorted(Assignment.objects.values_list("pk", "annotator__username"))
    response = admin_client.post(
        f"/corpora/{corpus.pk}/assignments/hand-over/",
        {"annotator": "bob", "to": ["alice", "bob"]},
    )
    assert response.status_code == 400
    html = response.content.decode()
    errors = html.split('id="handover-errors"')[1].split("</div>")[0]
    assert (
        "bob is handing over and cannot take their own work: choose annotators other than the "
        "one handing over; nothing was moved"
    ) in errors
    to = html.split('id="handover-to"')[1].split("</div>")[0]
    assert '<label hidden><input type="checkbox" name="to" value="bob" disabled>' in to
    assert '<input type="checkbox" name="to" value="alice" checked>' in to
    assert not Job.objects.filter(kind="assignments_hand_over").exists()
    assert sorted(Assignment.objects.values_list("pk", "annotator__username")) == before
