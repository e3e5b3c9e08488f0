"""The home page, rendered on the server: the queue's filters, search, sort and pages, what
opens next, the adjudicator's waiting pairs, the admin's corpora and jobs with their live
fragment, and recomputing a corpus's statistics."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client

from annotate import roles
from annotate.models import Assignment, Job, SentencePair
from annotate.services.annotations import annotation_open, annotation_submit
from annotate.services.corpora import corpus_archive
from tests.annotate.factories import make_assignment, make_corpus, make_pair, make_user

pytestmark = pytest.mark.django_db


def _client(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _rows(html: str) -> list[str]:
    """The pair ids of the queue's rows, in order."""
    table = (
        html.split('id="queue-table"', 1)[1].split("</table>", 1)[0]
        if "queue-table" in html
        else ""
    )
    return re.findall(r'<a href="/work/\d+/">([^<]+)</a>', table)


@pytest.fixture
def alice() -> Any:
    return make_user("alice", roles.ANNOTATOR)


def _pair(corpus: Any, external_id: str, source: str = "a dog barked", **kw: Any) -> SentencePair:
    return make_pair(corpus, source, "so it was", external_id=external_id, prefill=None, **kw)


def test_the_queue_lists_my_pairs_in_queue_order_with_counts_and_what_opens_next(
    alice: Any,
) -> None:
    news, novels = make_corpus("news"), make_corpus("novels")
    second = make_assignment(_pair(novels, "v1"), alice)
    first = make_assignment(_pair(news, "n1"), alice)
    make_assignment(_pair(news, "theirs"), make_user("bob", roles.ANNOTATOR))
    html = _client(alice).get("/").content.decode()
    assert _rows(html) == ["n1", "v1"]
    assert f'id="open-next" href="/work/{first.pk}/"' in html
    assert 'id="continue"' not in html
    assert re.search(r'data-status="new" href="\?status=new"><b>2</b>', html)
    Assignment.objects.filter(pk=second.pk).update(status=Assignment.Status.IN_PROGRESS)
    html = _client(alice).get("/").content.decode()
    # the pair in progress opens next: one button, saying so
    assert re.search(
        rf'id="open-next" href="/work/{second.pk}/"[^>]*>Continue where I stopped', html
    )
    assert html.count(f'href="/work/{second.pk}/"') == 2  # the button and the queue's row


def test_status_corpus_and_search_filter_the_queue_on_the_server(alice: Any) -> None:
    news, novels = make_corpus("news"), make_corpus("novels")
    make_assignment(_pair(news, "n1", "the senate voted"), alice)
    make_assignment(_pair(news, "n2", "a dog barked"), alice)
    done = make_assignment(_pair(novels, "v1", "a dog slept"), alice)
    Assignment.objects.filter(pk=done.pk).update(status=Assignment.Status.SUBMITTED)
    client = _client(alice)
    assert _rows(client.get(f"/?corpus={news.pk}").content.decode()) == ["n1", "n2"]
    assert _rows(client.get("/?status=submitted").content.decode()) == ["v1"]
    assert _rows(client.get("/?q=DOG").content.decode()) == ["n2", "v1"]
    assert _rows(client.get("/?q=n1").content.decode()) == ["n1"]
    assert _rows(client.get(f"/?q=dog&corpus={novels.pk}").content.decode()) == ["v1"]
    page = client.get(f"/?corpus={news.pk}").content.decode()
    assert f'<option value="{news.pk}" selected>news (2)</option>' in page


def test_a_filter_matching_nothing_says_so_and_offers_to_clear(alice: Any) -> None:
    make_assignment(_pair(make_corpus("news"), "n1"), alice)
    html = _client(alice).get("/?q=nothing-like-this").content.decode()
    assert "No pair matches" in html and "Change or clear the filters." in html
    assert '<a class="btn" href="/">Clear</a>' in html


def test_an_empty_queue_says_nobody_assigned_anything_yet(alice: Any) -> None:
    html = _client(alice).get("/").content.decode()
    assert "Your queue is empty" in html and "No pairs are assigned to you yet" in html
    assert 'id="open-next"' not in html and 'id="queue-filters"' not in html
    assert "frontend/next_key.js" not in html  # no next pair, no key to open it


def test_a_bad_filter_is_refused_naming_it_and_the_queue_stays_whole(alice: Any) -> None:
    make_assignment(_pair(make_corpus("news"), "n1"), alice)
    response = _client(alice).get("/?status=lost&corpus=abc")
    assert response.status_code == 400
    html = response.content.decode()
    assert "<b>status:</b>" in html and "<b>corpus:</b>" in html
    assert _rows(html) == ["n1"]


def test_the_queue_sorts_by_status_and_pages_fifty_at_a_time(alice: Any) -> None:
    corpus = make_corpus("long")
    rows = SentencePair.objects.bulk_create(
        SentencePair(
            corpus=corpus,
            external_id=f"p{k:03d}",
            source_text="a b",
            target_text="a b",
            source_tokens=["a", "b"],
            target_tokens=["a", "b"],
            n_source=2,
            n_target=2,
            position=k,
        )
        for k in range(53)
    )
    made = Assignment.objects.bulk_create(Assignment(pair=p, annotator=alice) for p in rows)
    Assignment.objects.filter(pk=made[40].pk).update(status=Assignment.Status.SUBMITTED)
    client = _client(alice)
    first = client.get("/").content.decode()
    assert _rows(first) == [f"p{k:03d}" for k in range(50)]
    assert "1–50 of 53 pairs" in first
    second = client.get("/?page=2").content.decode()
    assert _rows(second) == ["p050", "p051", "p052"]
    by_status = _rows(client.get("/?sort=-status").content.decode())
    assert by_status[0] == "p040"  # "submitted" sorts after "new"; reversed, it comes first


def test_an_archived_corpus_leaves_the_queue(alice: Any) -> None:
    kept, old = make_corpus("kept"), make_corpus("old")
    make_assignment(_pair(kept, "k1"), alice)
    make_assignment(_pair(old, "o1"), alice)
    corpus_archive(corpus=old)
    html = _client(alice).get("/").content.decode()
    assert _rows(html) == ["k1"]
    assert "old (" not in html
    assert re.search(r'data-status="new" href="\?status=new"><b>1</b>', html)


def test_adjudicators_see_the_pairs_waiting_for_them_and_annotators_do_not(alice: Any) -> None:
    bob = make_user("bob", roles.ANNOTATOR)
    pair = _pair(make_corpus("news"), "twice")
    for user in (alice, bob):
        assignment = make_assignment(pair, user)
        annotation_open(assignment=assignment, actor=user)
        annotation_submit(assignment=assignment, actor=user, base_version=1)
    carol = _client(make_user("carol", roles.ADJUDICATOR)).get("/").content.decode()
    assert (
        f'<a href="/adjudicate/{pair.pk}/?status=waiting&amp;sort=disagreement">twice</a>' in carol
    )
    assert 'id="corpora-table"' not in carol  # the admin's lists are not hers
    assert "Waiting for adjudication" not in _client(alice).get("/").content.decode()


def test_the_home_page_lists_the_first_ten_waiting_pairs_and_links_to_the_rest(
    alice: Any,
) -> None:
    bob = make_user("bob", roles.ANNOTATOR)
    corpus = make_corpus("news")
    pairs = [_pair(corpus, f"w{k:02d}") for k in range(11)]
    for pair in pairs:
        for user in (alice, bob):
            assignment = make_assignment(pair, user)
            annotation_open(assignment=assignment, actor=user)
            annotation_submit(assignment=assignment, actor=user, base_version=1)
    html = _client(make_user("carol", roles.ADJUDICATOR)).get("/").content.decode()
    shown = re.findall(
        r'<a href="/adjudicate/\d+/\?status=waiting&amp;sort=disagreement">(w\d+)</a>', html
    )
    assert shown == [f"w{k:02d}" for k in range(10)]
    assert "The first 10 are shown: every waiting pair →" in html


def test_admins_see_corpora_with_counts_and_recent_jobs(alice: Any) -> None:
    admin = make_user("admin", roles.ADMIN)
    corpus = make_corpus("news")
    make_assignment(_pair(corpus, "n1"), alice)
    _pair(corpus, "n2", gold=[(0, 0, True)])
    job = Job.objects.create(
        kind="corpus_stats", corpus=corpus, status=Job.Status.FAILED, error="no"
    )
    html = _client(admin).get("/").content.decode()
    row = html.split('data-corpus="news"', 1)[1].split("</tr>", 1)[0]
    assert re.findall(r'class="num">(\d+)<', row) == ["2", "1", "1", "0", "1"]
    assert "not computed yet" in row
    assert f'data-job="{job.pk}"' in html and "corpus statistics" in html
    assert '<div class="errors-inline small">no</div>' in html


def test_the_overview_fragment_is_live_while_a_job_runs_and_is_for_admins(alice: Any) -> None:
    admin = _client(make_user("admin", roles.ADMIN))
    job = Job.objects.create(kind="export", status=Job.Status.RUNNING, progress=30)
    fragment = admin.get("/?fragment=overview").content.decode()
    assert fragment.lstrip().startswith('<section class="mt-4" data-fragment="overview" data-live')
    assert "<html" not in fragment and 'value="30"' in fragment
    Job.objects.filter(pk=job.pk).update(status=Job.Status.SUCCEEDED, progress=100)
    assert "data-live" not in admin.get("/?fragment=overview").content.decode()
    annotator = _client(alice).get("/?fragment=overview").content.decode()
    assert "<html" in annotator and 'data-fragment="overview"' not in annotator


def test_an_admin_recomputes_a_corpus_s_statistics_and_goes_back(alice: Any) -> None:
    corpus = make_corpus("news")
    admin = _client(make_user("admin", roles.ADMIN))
    response = admin.post(f"/corpora/{corpus.pk}/stats/", {"next": "/?fragment=overview&page=2"})
    assert response.status_code == 302 and response["Location"] == "/?page=2"
    job = Job.objects.get(kind="corpus_stats")
    assert job.corpus == corpus and job.status == Job.Status.PENDING
    home = admin.get("/").content.decode()
    assert f"Recomputing the statistics of “news”: job #{job.pk}." in home
    assert f'data-notice-job="{job.pk}" data-what="Statistics of “news”, job"' in home
    assert f'<tr data-job="{job.pk}" data-job-status="pending">' in home
    again = admin.post(f"/corpora/{corpus.pk}/stats/", follow=True)
    assert "(it was already queued)" in again.content.decode()
    assert Job.objects.filter(kind="corpus_stats").count() == 1
    assert admin.post("/corpora/999999/stats/").status_code == 404


@pytest.mark.parametrize(
    ("role", "expected"),
    [(roles.ANNOTATOR, 403), (roles.ADJUDICATOR, 403), (roles.ADMIN, 302), (None, 302)],
)
def test_only_admins_recompute_statistics(role: str | None, expected: int) -> None:
    corpus = make_corpus("news")
    client = _client(make_user("someone", role)) if role else Client()
    response = client.post(f"/corpora/{corpus.pk}/stats/")
    assert response.status_code == expected
    if role is None:
        assert response["Location"].startswith("/login/")
    assert Job.objects.filter(kind="corpus_stats").exists() == (role == roles.ADMIN)
    assert client.get(f"/corpora/{corpus.pk}/stats/").status_code in (405, 302)


@pytest.mark.parametrize("role", [roles.ANNOTATOR, roles.ADJUDICATOR, roles.ADMIN, None])
def test_the_home_page_is_for_everyone_signed_in(role: str | None) -> None:
    client = _client(make_user("someone", role)) if role else Client()
    response = client.get("/")
    assert response.status_code == (200 if role else 302)
    if role is None:
        assert response["Location"] == "/login/?next=/"


def test_the_statistics_button_says_compute_until_they_were_computed_once() -> None:
    corpus = make_corpus("news")
    admin = _client(make_user("admin", roles.ADMIN))
    assert ">Compute statistics</button>" in admin.get("/").content.decode()
    corpus.stats = {"pairs": 0}
    corpus.save(update_fields=["stats"])
    assert ">Recompute statistics</button>" in admin.get("/").content.decode()


def test_the_queue_says_where_n_opens_the_least_sure_pair_instead_of_the_next_row(
    alice: Any,
) -> None:
    news, novels = make_corpus("news"), make_corpus("novels")
    make_assignment(_pair(news, "n1"), alice)
    make_assignment(_pair(novels, "v1"), alice)
    html = _client(alice).get("/").content.decode()
    assert 'id="least-sure-note"' not in html
    assert "Your assigned pairs, in the order they come." in html
    news.queue_order = news.QueueOrder.LEAST_SURE
    news.save(update_fields=["queue_order"])
    html = _client(alice).get("/").content.decode()
    note = html.split('id="least-sure-note">', 1)[1].split("</p>", 1)[0]
    assert "In news," in note and "novels" not in note
    assert "in the order they come" not in html  # the list's order is not the order N opens
