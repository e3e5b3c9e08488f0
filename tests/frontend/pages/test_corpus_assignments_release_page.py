"""Releasing idle work from a corpus's assignments tab: the form queues a release of this corpus
only, which hands its idle pairs in progress to another annotator and leaves other corpora's
alone; bad hours are refused on the field with nothing queued; the job is listed with what it
did."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone

from annotate import jobs_runtime as jobs
from annotate import roles
from annotate.models import Assignment, Corpus, Job
from tests.annotate.factories import make_assignment, make_corpus, make_pair, make_user
from tests.frontend.pages.forms import form_values

pytestmark = pytest.mark.django_db


@pytest.fixture
def world() -> dict[str, Any]:
    """Alice left a pair in progress untouched for four days in ``here`` and in ``elsewhere``;
    bob is the other annotator."""
    here, elsewhere = make_corpus("here"), make_corpus("elsewhere")
    alice = make_user("alice", roles.ANNOTATOR)
    make_user("bob", roles.ANNOTATOR)
    long_ago = timezone.now() - timedelta(days=4)
    idle = [make_assignment(make_pair(corpus), alice) for corpus in (here, elsewhere)]
    Assignment.objects.filter(pk__in=[a.pk for a in idle]).update(
        status=Assignment.Status.IN_PROGRESS, started_at=long_ago, last_activity_at=long_ago
    )
    return {"here": here, "mine": idle[0], "theirs": idle[1]}


def _page(client: Client, corpus: Corpus) -> str:
    return client.get(f"/corpora/{corpus.pk}/assignments/").content.decode()


def _release(client: Client, corpus: Corpus, **changes: Any) -> Any:
    values = form_values(_page(client, corpus), "release-form")
    values.update({name: [str(value)] for name, value in changes.items()})
    return client.post(f"/corpora/{corpus.pk}/assignments/release/", values)


def test_the_release_form_starts_at_72_hours_and_says_what_it_does(
    admin_client: Client, world: dict[str, Any]
) -> None:
    html = _page(admin_client, world["here"])
    assert form_values(html, "release-form")["idle_hours"] == ["72"]
    form = re.sub(r"\s+", " ", html.split('id="release-form"')[1].split("</form>")[0])
    assert "Release idle work" in form
    assert "accounts an import made never get them" in form
    assert "The saved work moves with the pair" in form


def test_the_form_queues_a_release_of_this_corpus_that_frees_its_idle_pair_only(
    admin_client: Client, world: dict[str, Any]
) -> None:
    response = _release(admin_client, world["here"])
    assert response.status_code == 302
    assert response["Location"] == f"/corpora/{world['here'].pk}/assignments/"
    job = Job.objects.get()
    assert (job.kind, job.corpus_id, job.parameters) == (
        "assignments_release",
        world["here"].pk,
        {"idle_hours": 72.0},
    )
    assert jobs.job_run(job_id=job.pk, worker="here") == Job.Status.SUCCEEDED
    mine = Assignment.objects.get(pk=world["mine"].pk)
    theirs = Assignment.objects.get(pk=world["theirs"].pk)
    assert (mine.annotator.username, theirs.annotator.username) == ("bob", "alice")
    html = re.sub(r"\s+", " ", _page(admin_client, world["here"]))
    assert "Plans, hand-overs and releases" in html
    row = html.split(f'data-job="{job.pk}"')[1].split("</tr>")[0]
    assert "release" in row and "idle ≥ 72 h" in row
    assert "Released 1 assignment." in row


def test_a_release_that_finds_no_one_else_says_the_pairs_stay(
    admin_client: Client, world: dict[str, Any]
) -> None:
    Job.objects.create(
        kind="assignments_release",
        corpus=world["here"],
        status=Job.Status.SUCCEEDED,
        parameters={"idle_hours": 1.5},
        result={"released": 2, "stuck": 3},
    )
    html = re.sub(r"\s+", " ", _page(admin_client, world["here"]))
    assert "idle ≥ 1.5 h" in html
    assert "Released 2 assignments; 3 stay (every other annotator" in html


@pytest.mark.parametrize(
    ("hours", "message"),
    [
        (0, "greater than or equal to 1"),
        (-3, "greater than or equal to 1"),
        (10**6, "less than or equal to 8760"),
        ("soon", "Enter a number."),
        ("", "This field is required."),
    ],
)
def test_bad_idle_hours_are_refused_on_the_field_and_queue_nothing(
    admin_client: Client, world: dict[str, Any], hours: Any, message: str
) -> None:
    response = _release(admin_client, world["here"], idle_hours=hours)
    assert response.status_code == 400
    errors = response.content.decode().split('id="release-errors"')[1].split("</div>")[0]
    assert "<b>Idle for at least (hours)</b>: " in errors and message in errors, errors
    assert not Job.objects.exists()
    assert Assignment.objects.get(pk=world["mine"].pk).annotator.username == "alice"
