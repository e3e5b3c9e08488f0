"""The adjudication list's bulk accept: the count of agreed pairs of the filtered list in the
form and its confirmation, the job queued for exactly that list, its progress and result in a
live fragment, the undo, and who may post them."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client

from annotate import roles
from annotate.jobs_runtime import job_run
from annotate.models import Corpus, GoldAlignment, Job, SentencePair
from annotate.services.corpora import corpus_archive, corpus_import_records, corpus_restore
from tests.annotate.factories import make_user
from tests.annotate.records import make_record

pytestmark = pytest.mark.django_db


def _import(pairs: dict[str, dict[str, str]], subcorpus: str = "news") -> None:
    records = [
        make_record(name, "a b c", "a b c", prefill=None, annotations=work, subcorpus=subcorpus)
        for name, work in pairs.items()
    ]
    corpus_import_records(corpus_name="c", records=records)


@pytest.fixture
def carol() -> Client:
    client = Client()
    client.force_login(make_user("carol", roles.ADJUDICATOR))
    return client


def _agreed_world() -> None:
    _import({"a1": {"A": "0-0", "B": "0-0"}, "a2": {"A": "1?1", "B": "1?1"}})
    _import({"m1": {"A": "0-0", "B": "2-2"}}, subcorpus="mtc")
    corpus_import_records(
        corpus_name="c",
        records=[
            make_record(
                "g1",
                "a b c",
                "a b c",
                prefill=None,
                gold="0-0",
                annotations={"A": "0-0", "B": "0-0"},
                subcorpus="mtc",
            )
        ],
    )


def test_the_form_counts_the_agreed_pairs_without_gold_of_the_filtered_list(
    carol: Client,
) -> None:
    _agreed_world()
    html = carol.get("/adjudication/").content.decode()
    assert re.search(r'id="bulk-count"><b>2</b> pairs', html)
    assert 'data-confirm="Accept the majority as the gold of 2 pairs of this list?' in html
    assert "Accept 2 agreed pairs" in html
    html = carol.get("/adjudication/?subcorpus=mtc").content.decode()
    assert 'id="bulk-none"' in html and "bulk-form" not in html


def test_posting_queues_one_job_for_the_list_and_the_fragment_shows_its_result(
    carol: Client,
) -> None:
    _agreed_world()
    response = carol.post("/adjudication/accept-agreed/", {"list_query": "subcorpus=news&sort=-id"})
    assert response.status_code == 302
    assert response["Location"] == "/adjudication/?subcorpus=news&sort=-id"
    job = Job.objects.get(kind="adjudication_accept")
    assert job.parameters == {
        "filters": {"subcorpus": "news"},
        "expected": 2,
        "owner": job.owner_id,
    }
    fragment = carol.get("/adjudication/?subcorpus=news&fragment=bulk").content.decode()
    assert fragment.lstrip().startswith('<section class="card bulk-accept"')
    assert "data-live" in fragment and f'data-job="{job.pk}"' in fragment
    assert 'id="bulk-busy"' in fragment and 'id="bulk-submit"' not in fragment
    again = carol.post("/adjudication/accept-agreed/", {"list_query": ""}, follow=True)
    assert f"your bulk accept #{job.pk} is still pending" in again.content.decode()
    assert Job.objects.count() == 1
    job_run(job_id=job.pk, worker="test")
    fragment = carol.get("/adjudication/?subcorpus=news&fragment=bulk").content.decode()
    assert "data-live" not in fragment
    assert "Accepted 2 of 2 pairs." in fragment
    assert f'id="bulk-undo-{job.pk}"' in fragment and 'id="bulk-none"' in fragment
    listed = carol.get("/adjudication/?subcorpus=news&fragment=list").content.decode()
    assert listed.count("badge adjudicated") == 2
    assert GoldAlignment.objects.filter(source="adjudicated").count() == 2


def test_nothing_to_accept_is_said_and_queues_nothing(carol: Client) -> None:
    _agreed_world()
    response = carol.post(
        "/adjudication/accept-agreed/", {"list_query": "subcorpus=mtc"}, follow=True
    )
    assert "nothing to accept" in response.content.decode()
    assert not Job.objects.exists()


def test_undo_sends_the_accepted_pairs_back_to_waiting(carol: Client) -> None:
    _agreed_world()
    carol.post("/adjudication/accept-agreed/", {"list_query": ""})
    job = Job.objects.get(kind="adjudication_accept")
    job_run(job_id=job.pk, worker="test")
    queued = carol.post(f"/adjudication/accept-agreed/{job.pk}/undo/", follow=True)
    undo = Job.objects.get(kind="adjudication_accept_undo")
    assert f"Undo #{undo.pk} queued" in queued.content.decode()
    job_run(job_id=undo.pk, worker="test")
    assert not GoldAlignment.objects.filter(source="adjudicated").exists()
    fragment = carol.get("/adjudication/?fragment=bulk").content.decode()
    # One number per job, each said with what it is (not "Undo of bulk accept #1 #2").
    assert f"Undo #{undo.pk} of bulk accept #{job.pk}</span>" in fragment
    assert "Sent 2 of 2 golds back to waiting." in fragment
    assert f'id="bulk-undo-{job.pk}"' not in fragment  # undone once
    assert "Accept 2 agreed pairs" in fragment


@pytest.mark.parametrize("ended", ["failed", "cancelled"])
def test_an_accept_whose_undo_failed_or_was_cancelled_is_offered_the_undo_again(
    carol: Client, ended: str
) -> None:
    """The service takes another undo of such an accept (nothing was undone, or part of it);
    the page must offer it too, or the golds can only be sent back one pair at a time."""
    _agreed_world()
    carol.post("/adjudication/accept-agreed/", {"list_query": ""})
    job = Job.objects.get(kind="adjudication_accept")
    job_run(job_id=job.pk, worker="test")
    carol.post(f"/adjudication/accept-agreed/{job.pk}/undo/")
    Job.objects.filter(kind="adjudication_accept_undo").update(status=ended)
    fragment = carol.get("/adjudication/?fragment=bulk").content.decode()
    assert f'id="bulk-undo-{job.pk}"' in fragment
    assert carol.post(f"/adjudication/accept-agreed/{job.pk}/undo/").status_code == 302
    again = Job.objects.filter(kind="adjudication_accept_undo").exclude(status=ended).get()
    job_run(job_id=again.pk, worker="test")
    assert not GoldAlignment.objects.filter(source="adjudicated").exists()
    fragment = carol.get("/adjudication/?fragment=bulk").content.decode()
    assert f'id="bulk-undo-{job.pk}"' not in fragment  # undone now


def test_an_undo_in_an_archived_corpus_is_refused_and_one_that_kept_golds_is_offered_again(
    carol: Client,
) -> None:
    _agreed_world()
    carol.post("/adjudication/accept-agreed/", {"list_query": ""})
    job = Job.objects.get(kind="adjudication_accept")
    job_run(job_id=job.pk, worker="test")
    corpus = Corpus.objects.get(name="c")
    corpus_archive(corpus=corpus)
    refused = carol.post(f"/adjudication/accept-agreed/{job.pk}/undo/", follow=True)
    assert "archived corpus \u201cc\u201d: restore it" in refused.content.decode()
    assert not Job.objects.filter(kind="adjudication_accept_undo").exists()
    assert GoldAlignment.objects.filter(source="adjudicated").count() == 2
    corpus_restore(corpus=corpus)
    # an undo during which the corpus was archived kept the golds it had not reached
    Job.objects.create(
        kind="adjudication_accept_undo",
        owner=job.owner,
        status=Job.Status.SUCCEEDED,
        parameters={"job": job.pk},
        result={
            "job": job.pk,
            "written": 2,
            "cleared": 0,
            "skipped": {"gold_changed_since": 0, "corpus_archived": 2},
        },
    )
    fragment = carol.get("/adjudication/?fragment=bulk").content.decode()
    assert "kept 2 of a corpus archived meanwhile (restore it, then undo" in fragment
    assert f'id="bulk-undo-{job.pk}"' in fragment


def test_another_adjudicators_job_cannot_be_undone(carol: Client) -> None:
    _agreed_world()
    carol.post("/adjudication/accept-agreed/", {"list_query": ""})
    job = Job.objects.get(kind="adjudication_accept")
    job_run(job_id=job.pk, worker="test")
    dave = Client()
    dave.force_login(make_user("dave", roles.ADJUDICATOR))
    assert dave.post(f"/adjudication/accept-agreed/{job.pk}/undo/").status_code == 404
    assert not Job.objects.filter(kind="adjudication_accept_undo").exists()


EXPECTED = {roles.ANNOTATOR: 403, roles.ADJUDICATOR: 302, roles.ADMIN: 302, None: 302}


@pytest.mark.parametrize("role", list(EXPECTED))
def test_who_may_start_and_undo_a_bulk_accept(role: Any) -> None:
    _agreed_world()
    owner = make_user("owner", roles.ADMIN)
    finished = Job.objects.create(kind="adjudication_accept", owner=owner, status="succeeded")
    client = Client()
    if role is not None:
        client.force_login(make_user("someone", role))
    start = client.post("/adjudication/accept-agreed/", {"list_query": ""})
    # as if a worker had run what it queued (one bulk job of a user at a time)
    Job.objects.exclude(pk=finished.pk).update(status="succeeded")
    undo = client.post(f"/adjudication/accept-agreed/{finished.pk}/undo/")
    if role == roles.ADJUDICATOR:  # another's job: not found; their own start: queued
        assert (start.status_code, undo.status_code) == (302, 404)
        assert Job.objects.filter(kind="adjudication_accept").count() == 2
        return
    assert start.status_code == EXPECTED[role] and undo.status_code == EXPECTED[role]
    if role is None:
        assert start["Location"].startswith("/login/?next=")
    queued = Job.objects.exclude(pk=finished.pk).count()
    assert queued == (2 if role == roles.ADMIN else 0)  # an admin undoes any job
    assert client.get("/adjudication/accept-agreed/").status_code == 405
    assert SentencePair.objects.count() == 4


@pytest.mark.parametrize(
    "list_query",
    ["corpus=999999", "corpus=x", "subcorpus=gone", "annotator=nobody", "status=all"],
)
def test_a_filter_the_list_cannot_have_is_refused_not_dropped(
    carol: Client, list_query: str
) -> None:
    """A filter that is not (or no longer) one of the list's choices, from a tab left open while
    a corpus was archived or an annotator removed, or typed, must not widen the accept to
    every pair of every corpus."""
    _agreed_world()
    response = carol.post("/adjudication/accept-agreed/", {"list_query": list_query}, follow=True)
    assert not Job.objects.filter(kind="adjudication_accept").exists()
    assert "nothing was accepted" in response.content.decode()


def test_the_form_posts_only_the_filters_its_count_was_made_with(carol: Client) -> None:
    """A list address with a filter the list left out (counted without it) posts without it,
    so that pressing the button accepts what the count says instead of being refused."""
    _agreed_world()
    html = carol.get("/adjudication/?corpus=999999&status=bogus&sort=-id").content.decode()
    assert re.search(r'id="bulk-count"><b>2</b> pairs', html)
    posted = re.search(r'id="bulk-form".*?name="list_query" value="([^"]*)"', html, re.S)
    assert posted is not None and posted.group(1) == "sort=-id"
    carol.post("/adjudication/accept-agreed/", {"list_query": "sort=-id"})
    assert Job.objects.get(kind="adjudication_accept").parameters["expected"] == 2
