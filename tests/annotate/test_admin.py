"""The Django admin: every model registered; jobs can be cancelled from the job list."""

from __future__ import annotations

import pytest
from django.apps import apps
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from annotate.models import Corpus, Job, JobChunk

pytestmark = pytest.mark.django_db


def test_every_model_of_the_app_is_in_the_admin_on_its_own_or_inline() -> None:
    inline = {i.model for model_admin in admin.site._registry.values() for i in model_admin.inlines}
    missing = [
        m.__name__
        for m in apps.get_app_config("annotate").get_models()
        if not admin.site.is_registered(m) and m not in inline
    ]
    assert missing == []


def test_an_admin_cancels_pending_and_running_jobs_but_not_finished_ones() -> None:
    pending = Job.objects.create(kind="corpus_stats")
    running = Job.objects.create(kind="corpus_stats", status=Job.Status.RUNNING)
    done = Job.objects.create(kind="corpus_stats", status=Job.Status.SUCCEEDED)
    client = Client()
    client.force_login(get_user_model().objects.create_superuser("root", "r@example.org", "x"))
    response = client.post(
        "/admin/annotate/job/",
        {"action": "cancel_jobs", "_selected_action": [pending.pk, running.pk, done.pk]},
        follow=True,
    )
    assert "2 job(s) cancelled" in response.content.decode()
    statuses = [Job.objects.get(pk=j.pk).status for j in (pending, running, done)]
    assert statuses == ["cancelled", "cancelled", "succeeded"]


def test_the_workers_heartbeats_are_listed_but_cannot_be_added_or_changed() -> None:
    from django.utils import timezone

    from annotate.models import WorkerHeartbeat
    from annotate.services.workers import worker_heartbeat_beat

    worker_heartbeat_beat(hostname="celery@a", pid=7, started_at=timezone.now())
    row = WorkerHeartbeat.objects.get()
    client = Client()
    client.force_login(get_user_model().objects.create_superuser("root", "r@example.org", "x"))
    assert "celery@a" in client.get("/admin/annotate/workerheartbeat/").content.decode()
    assert client.get("/admin/annotate/workerheartbeat/add/").status_code == 403
    response = client.post(
        f"/admin/annotate/workerheartbeat/{row.pk}/change/", {"hostname": "x", "pid": 1}
    )
    assert response.status_code == 403
    assert WorkerHeartbeat.objects.get().hostname == "celery@a"


def _staff() -> Client:
    client = Client()
    client.force_login(get_user_model().objects.create_superuser("staff", "s@example.org", "x"))
    return client


def test_an_alignments_page_shows_its_first_links_only() -> None:
    from annotate import roles
    from annotate.admin import LINKS_SHOWN
    from annotate.services.annotations import annotation_open, annotation_save
    from tests.annotate.factories import make_assignment, make_pair, make_user

    words = " ".join(f"w{k}" for k in range(20))
    alice = make_user("alice", roles.ANNOTATOR)
    assignment = make_assignment(make_pair(source=words, target=words, prefill=None), alice)
    annotation = annotation_open(assignment=assignment, actor=alice)
    links = {(i, j): True for i in range(20) for j in range(20)}
    annotation_save(assignment=assignment, actor=alice, base_version=1, links=links)
    page = _staff().get(f"/admin/annotate/annotation/{annotation.pk}/change/")
    assert page.status_code == 200
    assert page.context["inline_admin_formsets"][0].formset.total_form_count() == LINKS_SHOWN
    assert f"links (the first {LINKS_SHOWN})" in page.content.decode().lower()


@pytest.mark.parametrize("model", ["annotationevent", "assignment", "annotation", "job"])
def test_a_list_page_costs_the_same_queries_for_five_rows_as_for_thirty(model: str) -> None:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from annotate import roles
    from annotate.services.annotations import annotation_open
    from tests.annotate.factories import make_assignment, make_pair, make_user

    client = _staff()

    def queries() -> int:
        with CaptureQueriesContext(connection) as captured:
            assert client.get(f"/admin/annotate/{model}/").status_code == 200
        return len(captured)

    def add(count: int) -> None:
        for _ in range(count):
            user = make_user(f"u{get_user_model().objects.count()}", roles.ANNOTATOR)
            annotation_open(assignment=make_assignment(make_pair(), user), actor=user)
            Job.objects.create(kind="corpus_stats", owner=user)

    add(5)
    few = queries()
    add(25)
    assert queries() == few


def test_a_corpus_is_not_deleted_through_the_django_admin() -> None:
    corpus = Corpus.objects.create(name="kept")
    client = Client()
    client.force_login(get_user_model().objects.create_superuser("root", password=None))
    assert client.get(f"/admin/annotate/corpus/{corpus.pk}/delete/").status_code == 403
    listing = client.get("/admin/annotate/corpus/?archived_at__isempty=1").content.decode()
    assert "kept" in listing and 'value="delete_selected"' not in listing
    assert Corpus.objects.filter(pk=corpus.pk).exists()


def test_a_gold_alignment_is_only_viewed_in_the_django_admin() -> None:
    """Its changes go through the adjudication page and its history: one added here reused
    version 1 of a pair whose history had it (each later save of the gold was a 500), one
    deleted or moved to another pair left no trace in the gold history."""
    from annotate import roles
    from annotate.models import GoldAlignment, GoldEvent
    from annotate.services.adjudication import gold_clear, gold_save
    from tests.annotate.factories import make_pair, make_user

    carol = make_user("carol", roles.ADJUDICATOR)
    pair, other = make_pair(prefill=None), make_pair(prefill=None)
    gold_save(pair=pair, links={(0, 0): True}, adjudicator=carol, base_version=0)
    gold_clear(pair=pair, actor=carol, base_version=1)
    gold = gold_save(pair=other, links={(1, 1): True}, adjudicator=carol, base_version=0).gold
    client = _staff()
    assert client.get(f"/admin/annotate/goldalignment/{gold.pk}/change/").status_code == 200
    assert client.get("/admin/annotate/goldalignment/add/").status_code == 403
    assert client.post("/admin/annotate/goldalignment/add/", {"pair": pair.pk}).status_code == 403
    assert client.get(f"/admin/annotate/goldalignment/{gold.pk}/delete/").status_code == 403
    moved = client.post(f"/admin/annotate/goldalignment/{gold.pk}/change/", {"pair": pair.pk})
    assert moved.status_code == 403
    listing = client.get("/admin/annotate/goldalignment/").content.decode()
    assert 'value="delete_selected"' not in listing
    assert list(GoldAlignment.objects.values_list("pair_id", "version")) == [(other.pk, 1)]
    assert GoldEvent.objects.filter(pair=pair).count() == 2
    # the page's save of the cleared pair goes on from its history
    saved = gold_save(pair=pair, links={(1, 1): False}, adjudicator=carol, base_version=2)
    assert saved.gold.version == 3


def test_a_list_filtered_by_a_number_the_database_cannot_hold_is_the_list_again() -> None:
    """``?assignment=99999999999999999999`` on a list was an ``OverflowError`` binding the
    number (SQLite), a server error; the admin answers a filter it cannot apply with the list
    again (``?e=1``)."""
    client = Client()
    client.force_login(get_user_model().objects.create_superuser("root", "r@example.org", "x"))
    huge = "9" * 25
    tried = []
    for model in admin.site._registry:
        meta = model._meta
        url = reverse(f"admin:{meta.app_label}_{meta.model_name}_changelist")
        for field in meta.get_fields():
            if not field.is_relation or field.one_to_many:
                continue
            response = client.get(url, {field.name: huge})
            assert response.status_code in (200, 302), (url, field.name, response.status_code)
            if response.status_code == 302:
                assert response["Location"] == f"{url}?e=1"
                assert client.get(response["Location"]).status_code == 200
            tried.append(f"{meta.model_name}.{field.name}")
    assert {"annotation.assignment", "group.permissions", "user.groups"} <= set(tried)


def test_a_jobs_page_in_the_admin_shows_its_chunks_computing_read_only() -> None:
    job = Job.objects.create(kind="agreement", status=Job.Status.RUNNING)
    JobChunk.objects.create(job=job, key=41, worker="celery@box", started_at=timezone.now())
    client = Client()
    client.force_login(get_user_model().objects.create_superuser("root", "r@example.org", "x"))
    html = client.get(reverse("admin:annotate_job_change", args=[job.pk])).content.decode()
    assert "celery@box" in html and "41" in html
    assert 'name="chunks_computing-0-worker"' not in html  # read only
