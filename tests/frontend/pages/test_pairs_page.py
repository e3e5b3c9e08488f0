"""A corpus's Pairs tab, rendered on the server: every filter, the search, the sorts, the
pages, the empty state, a bad filter, and who may open it."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from annotate import roles
from annotate.models import Assignment, Corpus, SentencePair
from annotate.services.annotations import annotation_open, annotation_submit
from tests.annotate.factories import make_assignment, make_corpus, make_pair, make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin() -> Client:
    client = Client()
    client.force_login(make_user("admin", roles.ADMIN))
    return client


def _ids(html: str) -> list[str]:
    return re.findall(r'<tr data-pair="\d+">\s*<td class="">(?:<a [^>]*>)?([^<]+)<', html)


@pytest.fixture
def corpus() -> Corpus:
    """Five pairs: sub-corpora news/novels/none, splits train/test, lengths 2 to 6."""
    corpus = make_corpus("rte")
    specs = [
        ("n1", "news", "train", "the senate voted today", "senators voted"),
        ("n2", "news", "test", "a dog barked at night loudly", "the dog barked all night long"),
        ("v1", "novels", "train", "she read", "she was reading"),
        ("v2", "novels", "train", "the old man and the sea", "an old man at sea"),
        ("x1", "", "", "plain words here", "plain words"),
    ]
    for external_id, subcorpus, split, source, target in specs:
        pair = make_pair(corpus, source, target, split=split, external_id=external_id, prefill=None)
        SentencePair.objects.filter(pk=pair.pk).update(subcorpus=subcorpus)
    return corpus


def _pair(corpus: Corpus, external_id: str) -> SentencePair:
    return SentencePair.objects.get(corpus=corpus, external_id=external_id)


def test_it_lists_the_pairs_in_corpus_order_with_their_annotators_and_gold(
    admin: Client, corpus: Corpus
) -> None:
    alice, bob = make_user("alice", roles.ANNOTATOR), make_user("bob", roles.ANNOTATOR)
    done = make_assignment(_pair(corpus, "n2"), alice)
    annotation_open(assignment=done, actor=alice)
    annotation_submit(assignment=done, actor=alice, base_version=1)
    make_assignment(_pair(corpus, "n2"), bob)
    html = admin.get(f"/corpora/{corpus.pk}/pairs/").content.decode()
    assert _ids(html) == ["n1", "n2", "v1", "v2", "x1"]
    row = html.split(f'data-pair="{_pair(corpus, "n2").pk}"', 1)[1].split("</tr>", 1)[0]
    assert f'href="/adjudicate/{_pair(corpus, "n2").pk}/"' in row
    unannotated = html.split(f'data-pair="{_pair(corpus, "x1").pk}"', 1)[1].split("</tr>", 1)[0]
    assert f'href="/adjudicate/{_pair(corpus, "x1").pk}/"' in unannotated  # imported gold, say
    assert '<span title="submitted / assigned">1 / 2</span>' in row
    assert "the dog barked all night long" in row


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("subcorpus=news", ["n1", "n2"]),
        ("subcorpus=(none)", ["x1"]),
        ("split=test", ["n2"]),
        ("split=(none)", ["x1"]),
        ("q=DOG", ["n2"]),
        ("q=v2", ["v2"]),
        ("q=senators", ["n1"]),
        ("min_length=4", ["n2", "v2"]),
        ("max_length=2", ["n1", "v1", "x1"]),
        ("min_length=3&max_length=3", []),
        ("subcorpus=novels&split=train&q=sea", ["v2"]),
    ],
)
def test_each_filter_narrows_the_list_on_the_server(
    admin: Client, corpus: Corpus, query: str, expected: list[str]
) -> None:
    response = admin.get(f"/corpora/{corpus.pk}/pairs/?{query}")
    assert response.status_code == 200
    assert _ids(response.content.decode()) == expected


def test_status_and_annotator_filters_follow_the_assignments(admin: Client, corpus: Corpus) -> None:
    alice, bob = make_user("alice", roles.ANNOTATOR), make_user("bob", roles.ANNOTATOR)
    make_assignment(_pair(corpus, "n1"), alice)
    started = make_assignment(_pair(corpus, "v1"), bob)
    Assignment.objects.filter(pk=started.pk).update(status=Assignment.Status.IN_PROGRESS)
    make_pair(corpus, external_id="g1", gold=[(0, 0, True)])
    base = f"/corpora/{corpus.pk}/pairs/"
    assert _ids(admin.get(f"{base}?annotator=alice").content.decode()) == ["n1"]
    assert _ids(admin.get(f"{base}?status=in_progress").content.decode()) == ["v1"]
    assert _ids(admin.get(f"{base}?status=adjudicated").content.decode()) == ["g1"]
    unassigned = _ids(admin.get(f"{base}?status=unassigned").content.decode())
    assert unassigned == ["n2", "v2", "x1", "g1"]
    options = admin.get(base).content.decode()
    assert '<option value="alice">alice</option>' in options
    assert '<option value="(none)">(none)</option>' in options


def test_columns_sort_both_ways(admin: Client, corpus: Corpus) -> None:
    base = f"/corpora/{corpus.pk}/pairs/"
    assert _ids(admin.get(f"{base}?sort=-id").content.decode()) == ["x1", "v2", "v1", "n2", "n1"]
    by_length = _ids(admin.get(f"{base}?sort=length").content.decode())
    assert by_length[:3] == ["n1", "v1", "x1"] and by_length[-1] == "n2"
    assert _ids(admin.get(f"{base}?sort=-length").content.decode())[0] == "n2"
    html = admin.get(f"{base}?sort=subcorpus&q=e").content.decode()
    assert 'aria-sort="ascending"><a class="sort" href="?sort=-subcorpus&amp;q=e">' in html.replace(
        "q=e&amp;sort=-subcorpus", "sort=-subcorpus&amp;q=e"
    )


def test_it_pages_fifty_pairs_at_a_time(admin: Client) -> None:
    corpus = make_corpus("big")
    SentencePair.objects.bulk_create(
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
    first = admin.get(f"/corpora/{corpus.pk}/pairs/").content.decode()
    assert len(_ids(first)) == 50 and "1–50 of 53 pairs" in first
    second = admin.get(f"/corpora/{corpus.pk}/pairs/?page=2").content.decode()
    assert _ids(second) == ["p050", "p051", "p052"]


def test_an_empty_list_says_whether_the_corpus_or_the_filters_are_empty(
    admin: Client, corpus: Corpus
) -> None:
    empty = make_corpus("empty")
    assert (
        "<strong>No pairs yet</strong>" in admin.get(f"/corpora/{empty.pk}/pairs/").content.decode()
    )
    narrowed = admin.get(f"/corpora/{corpus.pk}/pairs/?q=zzz").content.decode()
    assert "<strong>No pair matches</strong>" in narrowed and ">Clear</a>" in narrowed


@pytest.mark.parametrize(
    ("query", "label", "message", "kept"),
    [
        ("min_length=-1", "Shorter length ≥", "greater than or equal to 0", None),
        ("max_length=many", "≤", "Enter a whole number.", None),
        ("status=lost", "Status", "Select a valid choice.", None),
        ("annotator=nobody&q=dog", "Annotator", "Select a valid choice.", ["n2"]),
    ],
)
def test_a_bad_filter_is_named_and_left_out(
    admin: Client, corpus: Corpus, query: str, label: str, message: str, kept: list[str] | None
) -> None:
    response = admin.get(f"/corpora/{corpus.pk}/pairs/?{query}")
    assert response.status_code == 400
    html = response.content.decode()
    errors = html.split('id="filter-errors"', 1)[1].split("</div>", 1)[0]
    assert f"<b>{label}</b>" in errors and message in errors
    assert _ids(html) == (kept or ["n1", "n2", "v1", "v2", "x1"])


def test_a_reversed_length_range_is_named_in_a_sentence_and_its_longest_length_left_out(
    admin: Client, corpus: Corpus
) -> None:
    response = admin.get(f"/corpora/{corpus.pk}/pairs/?min_length=5&max_length=2")
    assert response.status_code == 400
    html = response.content.decode()
    errors = html.split('id="filter-errors"', 1)[1].split("</div>", 1)[0]
    assert errors == "><p>The longest length (2) is below the shortest (5).</p>"
    assert _ids(html) == ["n2", "v2"]


def test_a_missing_corpus_is_a_404(admin: Client) -> None:
    assert admin.get("/corpora/999999/pairs/").status_code == 404


@pytest.mark.parametrize(
    ("role", "expected"),
    [(roles.ANNOTATOR, 403), (roles.ADJUDICATOR, 403), (roles.ADMIN, 200), (None, 302)],
)
def test_only_admins_open_the_pairs_tab(corpus: Corpus, role: str | None, expected: int) -> None:
    client = Client()
    if role:
        client.force_login(make_user("someone", role))
    assert client.get(f"/corpora/{corpus.pk}/pairs/").status_code == expected


def test_an_archived_corpus_s_tabs_say_so_and_offer_to_restore_it(
    admin: Client, corpus: Corpus
) -> None:
    assert 'id="archived-notice"' not in admin.get(f"/corpora/{corpus.pk}/pairs/").content.decode()
    Corpus.objects.filter(pk=corpus.pk).update(archived_at="2025-03-04T10:00:00Z")
    html = admin.get(f"/corpora/{corpus.pk}/pairs/").content.decode()
    notice = html.split('id="archived-notice"', 1)[1].split("</div>", 1)[0]
    assert "Archived on 4 Mar 2025" in notice
    assert f'action="/corpora/{corpus.pk}/restore/"' in notice
    assert _ids(html) == ["n1", "n2", "v1", "v2", "x1"]  # its pairs are all still there
