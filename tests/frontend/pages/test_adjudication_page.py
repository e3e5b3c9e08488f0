"""The adjudication list, rendered on the server: pages with a total, filters, search, the
sort by disagreement, links that carry the list to each pair, and who may open it."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client

from annotate import roles
from annotate.models import Corpus, SentencePair
from annotate.services.adjudication import gold_save
from annotate.services.corpora import corpus_import_records
from scoring.alignment.links import Alignment
from scoring.corpus import AnnotationRecord
from tests.annotate.factories import make_pair, make_user
from tests.annotate.records import make_record

pytestmark = pytest.mark.django_db


def _import(corpus: str, pairs: dict[str, dict[str, str]], **extra: Any) -> None:
    records = []
    for pair_id, work in pairs.items():
        record = make_record(pair_id, "a b c d", "a b c d", prefill=None, **extra)
        for name, links in work.items():
            record.annotations[name] = AnnotationRecord(
                alignment=Alignment.from_pharaoh(links, 4, 4)
            )
        records.append(record)
    corpus_import_records(corpus_name=corpus, records=records)


@pytest.fixture
def carol() -> Client:
    client = Client()
    client.force_login(make_user("carol", roles.ADJUDICATOR))
    return client


def _rows(client: Client, query: str = "") -> tuple[list[str], str]:
    response = client.get(f"/adjudication/{query}")
    assert response.status_code == 200
    html = response.content.decode()
    ids = dict(SentencePair.objects.values_list("pk", "external_id"))
    return [ids[int(pk)] for pk in re.findall(r'data-pair="(\d+)"', html)], html


def test_the_list_is_paged_on_the_server_past_five_hundred_with_a_total(carol: Client) -> None:
    _import("rte", {f"dev:{k}": {"A": "0-0", "B": "0-0 1-1"} for k in range(560)})
    rows, html = _rows(carol)
    assert len(rows) == 50 and rows[0] == "dev:0"
    assert "1–50 of 560 pairs · page 1 of 12" in html
    rows, html = _rows(carol, "?page=11")
    assert rows[0] == "dev:500"
    assert "501–550 of 560 pairs" in html
    rows, _ = _rows(carol, "?page=12")
    assert rows == [f"dev:{k}" for k in range(550, 560)]


def test_sorting_by_disagreement_shows_the_lowest_f1_first_and_sorts_back(carol: Client) -> None:
    _import(
        "c",
        {
            "agree": {"A": "0-0 1-1", "B": "0-0 1-1"},
            "apart": {"A": "0-0", "B": "1-1"},
            "half": {"A": "0-0 1-1", "B": "0-0"},
        },
    )
    rows, html = _rows(carol, "?sort=disagreement")
    assert rows == ["apart", "half", "agree"]
    assert ">0.00<" in html and ">0.67<" in html and ">1.00<" in html
    assert 'aria-sort="ascending"' in html
    rows, _ = _rows(carol, "?sort=-disagreement")
    assert rows == ["agree", "half", "apart"]
    rows, _ = _rows(carol, "?sort=shuffled")  # an unknown order falls back to corpus order
    assert rows == ["agree", "apart", "half"]


def test_filters_and_search_narrow_the_list_on_the_server(carol: Client) -> None:
    _import("news", {"n1": {"A": "0-0", "B": "0-0"}}, subcorpus="mtc", split="dev")
    _import("news", {"n2": {"A": "0-0", "C": "1-1"}}, subcorpus="leagues", split="test")
    _import("novels", {"v1": {"B": "0-0", "C": "0-0"}}, subcorpus="mtc", split="dev")
    SentencePair.objects.filter(external_id="n2").update(source_text="the council met")
    gold_save(
        pair=SentencePair.objects.get(external_id="v1"),
        links={},
        adjudicator=make_user("dave", roles.ADJUDICATOR),
        base_version=0,
    )
    news = Corpus.objects.get(name="news").pk
    assert _rows(carol, f"?corpus={news}")[0] == ["n1", "n2"]
    assert _rows(carol, "?subcorpus=mtc")[0] == ["n1", "v1"]
    assert _rows(carol, "?split=test")[0] == ["n2"]
    assert _rows(carol, "?annotator=C")[0] == ["n2", "v1"]
    assert _rows(carol, "?status=adjudicated")[0] == ["v1"]
    assert _rows(carol, "?status=waiting&annotator=B")[0] == ["n1"]
    assert _rows(carol, "?q=council")[0] == ["n2"]
    assert _rows(carol, "?q=V1")[0] == ["v1"]
    rows, html = _rows(carol, "?q=nothing-like-it")
    assert rows == [] and "No pair here" in html
    # a value the pairs do not have is left out, not an error
    assert _rows(carol, "?subcorpus=sports")[0] == ["n1", "n2", "v1"]
    # so is a corpus that is no id: a digit int() refuses, more digits than an id has
    for corpus in ("²", "9" * 30):
        rows, html = _rows(carol, f"?corpus={corpus}")
        assert rows == ["n1", "n2", "v1"] and ">mtc<" in html and ">leagues<" in html


def test_the_corpus_filter_offers_only_corpora_in_use(carol: Client) -> None:
    """An archived corpus's pairs leave the list: offered as a filter, it showed "No pair
    here" for a corpus of 2,400 waiting pairs."""
    from annotate.services.corpora import corpus_archive

    _import("kept", {"dev:1": {"A": "0-0", "B": "1-1"}})
    _import("shelved", {"dev:1": {"A": "0-0", "B": "1-1"}})
    corpus_archive(corpus=Corpus.objects.get(name="shelved"))
    _, html = _rows(carol)
    options = re.findall(r'<option value="\d+"[^>]*>([^<]+)</option>', html)
    assert "kept" in options and "shelved" not in options


def test_each_row_opens_its_pair_with_the_lists_filters_and_order(carol: Client) -> None:
    _import("c", {"p": {"A": "0-0", "B": "1-1"}})
    pair = SentencePair.objects.get()
    _, html = _rows(carol, "?sort=disagreement&status=waiting&page=1")
    assert f'href="/adjudicate/{pair.pk}/?sort=disagreement&amp;status=waiting"' in html
    assert ">Adjudicate<" in html


def test_the_pair_page_links_back_to_the_page_of_the_list_that_holds_it(carol: Client) -> None:
    # pairs 0..119: F1 1.0 for even k, 0.0 for odd k; pages of 50
    _import(
        "rte",
        {f"dev:{k:03}": {"A": "0-0", "B": "0-0" if k % 2 == 0 else "1-1"} for k in range(120)},
    )
    ids = dict(SentencePair.objects.values_list("external_id", "pk"))

    def back(pair: str, query: str = "") -> str:
        response = carol.get(f"/adjudicate/{ids[pair]}/{query}")
        assert response.status_code == 200
        found = re.search(r'id="back-to-list" href="([^"]*)"', response.content.decode())
        assert found is not None
        return found.group(1).replace("&amp;", "&")

    assert back("dev:000") == "/adjudication/"
    assert back("dev:049") == "/adjudication/"
    assert back("dev:050") == "/adjudication/?page=2"
    assert back("dev:119", "?page=1") == "/adjudication/?page=3"  # where it is, not where it was
    # in the list's filters and order: the 60 odd pairs (F1 0) first, then the even ones
    assert back("dev:001", "?sort=disagreement") == "/adjudication/?sort=disagreement"
    assert back("dev:110", "?sort=disagreement") == "/adjudication/?sort=disagreement&page=3"
    assert back("dev:011", "?sort=-disagreement") == "/adjudication/?sort=-disagreement&page=3"
    assert back("dev:101", "?q=dev:1&sort=id") == "/adjudication/?q=dev%3A1&sort=id"
    # filtered out (no longer waiting): the page where it would be
    gold_save(
        pair=SentencePair.objects.get(external_id="dev:075"),
        links={},
        adjudicator=make_user("dave", roles.ADJUDICATOR),
        base_version=0,
    )
    assert back("dev:075", "?status=waiting") == "/adjudication/?status=waiting&page=2"


def test_n_opens_the_first_waiting_pair_in_the_lists_order(carol: Client) -> None:
    _import(
        "c",
        {
            "agree": {"A": "0-0 1-1", "B": "0-0 1-1"},
            "apart": {"A": "0-0", "B": "1-1"},
            "half": {"A": "0-0 1-1", "B": "0-0"},
        },
    )
    ids = dict(SentencePair.objects.values_list("external_id", "pk"))
    _, html = _rows(carol, "?sort=disagreement")
    link = f'id="open-next" href="/adjudicate/{ids["apart"]}/?sort=disagreement"'
    assert link in html and "frontend/next_key.js" in html
    gold_save(
        pair=SentencePair.objects.get(external_id="apart"),
        links={},
        adjudicator=make_user("dave", roles.ADJUDICATOR),
        base_version=0,
    )
    _, html = _rows(carol, "?sort=disagreement&status=adjudicated")  # whatever the status shown
    assert f'id="open-next" href="/adjudicate/{ids["half"]}/' in html
    for pair in ("agree", "half"):
        gold_save(
            pair=SentencePair.objects.get(external_id=pair),
            links={},
            adjudicator=make_user(f"dave-{pair}", roles.ADJUDICATOR),
            base_version=0,
        )
    _, html = _rows(carol)
    assert 'id="open-next"' not in html and "next_key.js" not in html, "none waits"


def test_the_page_reads_a_fixed_number_of_queries_whatever_the_rows(
    carol: Client, django_assert_max_num_queries: Any
) -> None:
    _import("c", {f"p{k}": {"A": "0-0", "B": "1-1", "C": "0-0"} for k in range(80)})
    # with the first waiting pair (for N), and the bulk accept's count and last jobs
    with django_assert_max_num_queries(20):
        rows, _ = _rows(carol, "?sort=disagreement&annotator=A&status=waiting")
    assert len(rows) == 50


@pytest.mark.parametrize(
    ("role", "status"),
    [(roles.ANNOTATOR, 403), (roles.ADJUDICATOR, 200), (roles.ADMIN, 200), (None, 302)],
)
def test_the_list_and_the_pair_page_are_for_adjudicators_and_admins(
    role: str | None, status: int
) -> None:
    pair = make_pair()
    client = Client()
    if role is not None:
        client.force_login(make_user("someone", role))
    for url in ("/adjudication/", f"/adjudicate/{pair.pk}/"):
        assert client.get(url).status_code == status, url


def test_the_pair_page_links_to_the_pair_before_it_in_the_lists_filters_and_order(
    carol: Client,
) -> None:
    # F1 1.0 for even k, 0.0 for odd k
    _import("c", {f"p{k}": {"A": "0-0", "B": "0-0" if k % 2 == 0 else "1-1"} for k in range(6)})
    ids = dict(SentencePair.objects.values_list("external_id", "pk"))
    names = {pk: name for name, pk in ids.items()}

    def previous(pair: str, query: str = "") -> str | None:
        html = carol.get(f"/adjudicate/{ids[pair]}/{query}").content.decode()
        found = re.search(r'id="open-previous" href="/adjudicate/(\d+)/([^"]*)"', html)
        if found is None:
            assert 'id="open-previous" disabled' in html
            return None
        return names[int(found.group(1))] + found.group(2).replace("&amp;", "&")

    assert previous("p0") is None  # the first of the list
    assert previous("p3") == "p2"
    assert previous("p3", "?page=2") == "p2"  # the page is not carried
    # disagreement order: the odd pairs (F1 0) first, then the even ones, each by position
    assert previous("p0", "?sort=disagreement") == "p5?sort=disagreement"
    assert previous("p5", "?sort=disagreement&subcorpus=news") == (
        "p3?sort=disagreement&subcorpus=news"
    )
    assert previous("p4", "?sort=-id") == "p5?sort=-id"
    gold_save(
        pair=SentencePair.objects.get(external_id="p2"),
        links={},
        adjudicator=make_user("dave", roles.ADJUDICATOR),
        base_version=0,
    )
    assert previous("p3", "?status=waiting") == "p1?status=waiting"
    assert previous("p3") == "p2"  # every pair: the one adjudicated just before


def test_the_gold_save_indicator_is_seen_and_a_separate_region_speaks_for_it(
    carol: Client,
) -> None:
    # routine saves are not read out over the cursor; the announcer (savequeue.js) speaks up
    _import("rte", {"dev:000": {"A": "0-0", "B": "1-1"}})
    html = carol.get(f"/adjudicate/{SentencePair.objects.get().pk}/").content.decode()
    indicator = re.search(r'<span [^>]*id="save-status"[^>]*>', html)
    assert indicator is not None and "aria-live" not in indicator.group(0)
    assert "role=" not in indicator.group(0)
    assert (
        '<span class="visually-hidden" id="save-announce" role="status" aria-live="polite">' in html
    )
