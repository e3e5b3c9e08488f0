"""The corpus page's figures, against the same figures counted row by row in Python."""

from __future__ import annotations

from collections import Counter

import pytest

from annotate.models import Annotation, Assignment, Corpus, SentencePair
from annotate.selectors.corpora import LENGTH_BINS, corpus_overview
from annotate.services.corpora import corpus_import_records
from tests.annotate.factories import make_assignment, make_user
from tests.annotate.records import make_record

pytestmark = pytest.mark.django_db

SHORT = "the cat sat"
LONG = " ".join(["word"] * 12)


def _corpus() -> Corpus:
    records = [
        make_record("a", SHORT, LONG, prefill="0-0", annotations={"ann1": "0-0", "ann2": "1-1"}),
        make_record(
            "b",
            LONG,
            LONG,
            prefill="0-0",
            subcorpus="mtc",
            split="test",
            annotations={"ann1": "2-2"},
        ),
        make_record("c", SHORT, SHORT, prefill=None, subcorpus="mtc", gold="0-0"),
        make_record(
            "d", LONG, SHORT, prefill="0-0", subcorpus="", split="dev", annotations={"ann2": ""}
        ),
        make_record("e", SHORT + " " + LONG, LONG, prefill="1-1", split="test"),
    ]
    corpus_import_records(corpus_name="figures", records=records)
    corpus = Corpus.objects.get(name="figures")
    # Work without an annotation yet, and a pair of another corpus that must not count.
    make_assignment(SentencePair.objects.get(corpus=corpus, external_id="e"), make_user("ann3"))
    corpus_import_records(corpus_name="other", records=[make_record("x", annotations={"ann1": ""})])
    return corpus


def _bin(shorter: int) -> str:
    low = max(b for b in LENGTH_BINS if b <= shorter)
    following = [b for b in LENGTH_BINS if b > low]
    return f"{low}–{following[0] - 1}" if following else f"{low}+"


def test_the_corpus_figures_equal_a_count_of_its_rows() -> None:
    corpus = _corpus()
    pairs = list(SentencePair.objects.filter(corpus=corpus))
    assignments = list(Assignment.objects.filter(pair__corpus=corpus).select_related("annotator"))
    annotations = list(Annotation.objects.filter(assignment__pair__corpus=corpus))
    histogram = Counter(_bin(min(p.n_source, p.n_target)) for p in pairs)

    figures = corpus_overview(corpus)

    assert figures["pairs"] == len(pairs) == 5
    assert figures["tokens"] == sum(p.n_source + p.n_target for p in pairs)
    assert figures["length_histogram"] == [
        {"label": label, "count": histogram[label]} for label in (_bin(low) for low in LENGTH_BINS)
    ]
    assert figures["subcorpora"] == [
        {"subcorpus": name, "pairs": count}
        for name, count in sorted(Counter(p.subcorpus for p in pairs).items())
    ]
    assert figures["splits"] == [
        {"split": name, "pairs": count}
        for name, count in sorted(Counter(p.split for p in pairs).items())
    ]
    by_annotator = sorted({a.annotator.username for a in assignments})
    assert figures["annotators"] == [
        {
            "username": name,
            "assigned": sum(a.annotator.username == name for a in assignments),
            "submitted": sum(
                a.annotator.username == name and a.status == Assignment.Status.SUBMITTED
                for a in assignments
            ),
            "in_progress": sum(
                a.annotator.username == name and a.status == Assignment.Status.IN_PROGRESS
                for a in assignments
            ),
        }
        for name in by_annotator
    ]
    assert figures["annotations"] == len(annotations) == 4
    links = sum(a.link_count or 0 for a in annotations)
    assert figures["links_per_annotation"] == round(links / len(annotations), 2)
    assert figures["prefilled_pairs"] == sum(p.prefills.exists() for p in pairs) == 4
    assert figures["gold_alignments"] == sum(hasattr(p, "gold") for p in pairs) == 1


def test_an_empty_corpus_has_zero_figures_and_no_average() -> None:
    corpus = Corpus.objects.create(name="empty")
    figures = corpus_overview(corpus)
    assert figures["pairs"] == figures["tokens"] == figures["annotations"] == 0
    assert figures["links_per_annotation"] is None
    assert figures["subcorpora"] == figures["splits"] == figures["annotators"] == []
    assert all(row["count"] == 0 for row in figures["length_histogram"])  # type: ignore[attr-defined]


def test_the_labels_and_prefill_counts_of_a_corpus_agree_with_its_rows() -> None:
    from annotate.models import AutoAlignment, GoldAlignment
    from annotate.selectors.corpora import corpus_labels, corpus_prefill_counts

    corpus = _corpus()
    pairs = SentencePair.objects.filter(corpus=corpus)
    assert corpus_labels(corpus) == {
        "subcorpora": sorted(set(pairs.values_list("subcorpus", flat=True))),
        "splits": sorted(set(pairs.values_list("split", flat=True))),
    }
    assert corpus_prefill_counts(corpus) == {
        "pairs": pairs.count(),
        "prefilled_pairs": len(
            set(AutoAlignment.objects.filter(pair__corpus=corpus).values_list("pair", flat=True))
        ),
        "gold_alignments": GoldAlignment.objects.filter(pair__corpus=corpus).count(),
    }


def test_annotators_are_counted_by_id_and_listed_by_name_whatever_their_ids() -> None:
    """Grouped by username, every assignment of the corpus was joined to its account and
    sorted by name: a quarter of a second per figure at 100,000 pairs."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from annotate.selectors.corpora import corpus_facets

    corpus = _corpus()
    pair = SentencePair.objects.get(corpus=corpus, external_id="a")
    make_assignment(pair, make_user("Zed"))
    make_assignment(pair, make_user("aaron"))
    with CaptureQueriesContext(connection) as queries:
        names = [row["username"] for row in corpus_overview(corpus)["annotators"]]
        facets = corpus_facets(corpus)["annotators"]
    expected = list(
        Assignment.objects.filter(pair__corpus=corpus)
        .order_by("annotator__username")
        .values_list("annotator__username", flat=True)
        .distinct()
    )
    assert names == facets == expected and len(expected) == 5
    grouped = [q["sql"] for q in queries if "GROUP BY" in q["sql"] or "DISTINCT" in q["sql"]]
    assert not any("username" in sql for sql in grouped if "annotate_assignment" in sql)


def test_the_pair_lists_sub_corpora_and_splits_are_read_in_one_pass() -> None:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from annotate.selectors.corpora import corpus_facets

    corpus = _corpus()
    with CaptureQueriesContext(connection) as queries:
        facets = corpus_facets(corpus)
    pairs = SentencePair.objects.filter(corpus=corpus)
    assert facets["subcorpora"] == sorted(set(pairs.values_list("subcorpus", flat=True)))
    assert facets["splits"] == sorted(set(pairs.values_list("split", flat=True)))
    assert len(facets["subcorpora"]) == len(facets["splits"]) == 3
    read = [q["sql"] for q in queries if 'FROM "annotate_sentencepair"' in q["sql"]]
    labels = [sql for sql in read if '"subcorpus"' in sql]
    assert len(labels) == 1, labels
