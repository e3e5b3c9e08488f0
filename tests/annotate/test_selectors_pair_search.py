"""The pairs' search (pair list, annotator's queue, adjudication list) over the stored
``search_text``: the same pairs as ``icontains`` on the id and each text, kept by every write."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.db.models import F, Q, QuerySet, Value
from django.db.models.functions import Concat
from django.test import Client
from django.test.utils import CaptureQueriesContext

from annotate.models import Assignment, Corpus, SentencePair
from annotate.selectors.adjudication import AdjudicationFilters, pairs_for_adjudication
from annotate.selectors.corpora import corpus_annotators, corpus_facets, corpus_pairs_filtered
from annotate.selectors.workspace import queue_listed
from annotate.services.corpora import corpus_import_records
from tests.annotate.factories import make_assignment, make_corpus, make_pair, make_user
from tests.annotate.records import make_record

pytestmark = [pytest.mark.django_db, pytest.mark.postgres]

#: (id, source, target): cases, non-ASCII letters, LIKE's wildcards, a newline inside a text.
TEXTS = [
    ("Alpha-1", "The Cat sat", "le chat"),
    ("b_2", "100% sure", "back\\slash here"),
    ("c3", "İstanbul and ıi", "Straße STRASSE"),
    ("d4", "ÉCOLE été", "ǅemal ﬁne"),
    ("e5", "first line\nsecond line", "end"),
    ("x", "y begins", "z"),
]
TERMS = [
    "cat", "CAT", "alpha-1", "a-1", "%", "100%", "_", "b_", "\\", "slash", "i", "I", "İ", "ı",
    "istanbul", "ß", "SS", "strasse", "straße", "é", "É", "école", "ǆ", "ǅ", "ﬁ", "FI",
    "line\nsecond", "x\ny", "sat\nle", "e\nend", "1\nthe", " ", "z", "nothing",
]  # fmt: skip


def _per_column(term: str) -> Q:
    """The search as ``icontains`` on each column."""
    return (
        Q(external_id__icontains=term)
        | Q(source_text__icontains=term)
        | Q(target_text__icontains=term)
    )


@pytest.fixture
def corpus() -> Corpus:
    corpus = make_corpus("search")
    for external_id, source, target in TEXTS:
        make_pair(corpus, source, target, external_id=external_id, prefill=None)
    return corpus


def _ids(pairs: QuerySet[SentencePair]) -> list[str]:
    return sorted(pairs.values_list("external_id", flat=True))


@pytest.mark.parametrize("term", TERMS)
def test_a_search_finds_the_pairs_icontains_on_each_column_finds(corpus: Corpus, term: str) -> None:
    found = _ids(corpus_pairs_filtered(corpus, search=term))
    assert found == _ids(SentencePair.objects.filter(corpus=corpus).filter(_per_column(term)))


def test_a_term_with_a_newline_never_matches_across_the_id_and_the_texts(corpus: Corpus) -> None:
    # "x\ny" is the id and the source's start, joined in search_text; "line\nsecond" is in a text
    assert _ids(corpus_pairs_filtered(corpus, search="x\ny")) == []
    assert _ids(corpus_pairs_filtered(corpus, search="sat\nle")) == []
    assert _ids(corpus_pairs_filtered(corpus, search="LINE\nSecond")) == ["e5"]


def test_case_is_ignored_and_wildcards_are_literal(corpus: Corpus) -> None:
    assert _ids(corpus_pairs_filtered(corpus, search="tHE cAT")) == ["Alpha-1"]
    assert _ids(corpus_pairs_filtered(corpus, search="0%")) == ["b_2"]
    assert _ids(corpus_pairs_filtered(corpus, search="a_p")) == []
    assert _ids(corpus_pairs_filtered(corpus, search="k\\s")) == ["b_2"]


def test_the_search_compares_the_stored_column_not_each_upper_cased_text(corpus: Corpus) -> None:
    with CaptureQueriesContext(connection) as queries:
        list(corpus_pairs_filtered(corpus, search="cat"))
    (sql,) = [q["sql"] for q in queries.captured_queries]
    assert "search_text" in sql and sql.count("LIKE") == 1


def test_the_queue_and_the_adjudication_list_search_the_same_way() -> None:
    # each pair submitted by two annotators: in their queues and ready for adjudication
    both = {"s1": "", "s2": ""}
    records = [make_record(i, s, t, prefill=None, annotations=both) for i, s, t in TEXTS]
    corpus_import_records(corpus_name="adjudicated", records=records)
    pairs = SentencePair.objects.filter(corpus__name="adjudicated")
    annotator = get_user_model().objects.get(username="s1")
    for term in TERMS:
        expected = _ids(pairs.filter(_per_column(term)))
        queue = queue_listed(annotator, search=term)
        assert sorted(queue.values_list("pair__external_id", flat=True)) == expected, term
        listed = pairs_for_adjudication(AdjudicationFilters(search=term))
        assert sorted(listed.values_list("pair__external_id", flat=True)) == expected, term
    with CaptureQueriesContext(connection) as queries:
        list(queue_listed(annotator, search="cat"))
        list(pairs_for_adjudication(AdjudicationFilters(search="cat")))
    searches = [q["sql"] for q in queries.captured_queries if "'cat'" in q["sql"]]
    assert len(searches) == 2
    assert all("search_text" in sql and 'source_text")' not in sql for sql in searches)


def _search_text(pair: SentencePair) -> str:
    return SentencePair.objects.values_list("search_text", flat=True).get(pk=pair.pk)


def test_every_write_of_a_pair_keeps_its_search_text() -> None:
    """The column is the database's (generated): creates, bulk creates, the import's raw
    inserts, updates of a row or of a queryset and the admin's form all leave it right."""
    corpus = make_corpus()
    created = make_pair(corpus, "Le chat", "the cat", external_id="one", prefill=None)
    assert _search_text(created) == "ONE\nLE CHAT\nTHE CAT"
    (bulk,) = SentencePair.objects.bulk_create(
        [
            SentencePair(
                corpus=corpus,
                external_id="two",
                source_text="a b",
                target_text="c",
                source_tokens=["a", "b"],
                target_tokens=["c"],
                n_source=2,
                n_target=1,
                position=1,
            )
        ]
    )
    assert _search_text(bulk) == "TWO\nA B\nC"
    corpus_import_records(
        corpus_name="imported", records=[make_record("i1", "x y", "z w", prefill=None)]
    )
    imported = SentencePair.objects.get(corpus__name="imported")
    assert _search_text(imported) == "I1\nX Y\nZ W"
    created.source_text = "Der Hund"
    created.save()
    assert _search_text(created) == "ONE\nDER HUND\nTHE CAT"
    SentencePair.objects.filter(pk=bulk.pk).update(
        external_id="renamed", target_text=Concat(F("target_text"), Value("!"))
    )
    assert _search_text(bulk) == "RENAMED\nA B\nC!"
    admin = get_user_model().objects.create_superuser("root", password="x")
    client = Client()
    client.force_login(admin)
    url = f"/admin/annotate/sentencepair/{created.pk}/change/"
    form = {
        "corpus": corpus.pk,
        "external_id": "one",
        "subcorpus": "",
        "split": "train",
        "source_text": "Die Katze",
        "target_text": "the cat",
        "gold_score": "",
        "gold_label": "",
        "metadata": "{}",
    }
    response = client.post(url, form)
    assert response.status_code == 302, response.content[:2000]
    assert _search_text(created) == "ONE\nDIE KATZE\nTHE CAT"
    assert _ids(corpus_pairs_filtered(corpus, search="katze")) == ["one"]


def test_whole_pair_reads_leave_the_search_text_out() -> None:
    make_pair(make_corpus())
    with CaptureQueriesContext(connection) as queries:
        list(SentencePair.objects.all())
    assert "search_text" not in queries.captured_queries[0]["sql"]


def test_the_pair_lists_annotators_are_who_has_work_in_the_corpus_whatever_the_pair_ids() -> None:
    """Pairs of two corpora made alternately interleave their ids: the corpus's range of ids
    then holds the other corpus's pairs, whose annotators are not the corpus's."""
    first, second, third = make_corpus("first"), make_corpus("second"), make_corpus("empty")
    both, only_second, nobody = make_user("both"), make_user("Only-second"), make_user("idle")
    del nobody
    for index in range(3):
        mine = make_pair(first, external_id=f"f{index}", prefill=None)
        theirs = make_pair(second, external_id=f"s{index}", prefill=None)
        if index == 2:
            make_assignment(mine, both)
        make_assignment(theirs, only_second)
    assert corpus_annotators(first) == ["both"]
    assert corpus_annotators(second) == ["Only-second"]
    assert corpus_annotators(third) == []
    # not interleaved: a corpus made after the others
    fourth = make_corpus("fourth")
    make_assignment(make_pair(fourth, prefill=None), only_second)
    make_assignment(make_pair(fourth, prefill=None), both)
    assert corpus_annotators(fourth) == ["Only-second", "both"]
    work = Assignment.objects.filter(pair__corpus=fourth)
    expected = sorted(set(work.values_list("annotator__username", flat=True)))
    assert corpus_annotators(fourth) == expected


def test_the_pair_lists_annotators_are_found_without_reading_the_corpuss_assignments() -> None:
    corpus = make_corpus()
    annotator = make_user("a1")
    for index in range(3):
        make_assignment(make_pair(corpus, prefill=None, external_id=f"p{index}"), annotator)
    with CaptureQueriesContext(connection) as queries:
        assert corpus_facets(corpus)["annotators"] == ["a1"]
    reads = [q["sql"] for q in queries.captured_queries if "annotate_assignment" in q["sql"]]
    assert reads
    for sql in reads:
        assert "DISTINCT" not in sql and "GROUP BY" not in sql, sql
        assert "EXISTS" in sql, sql
