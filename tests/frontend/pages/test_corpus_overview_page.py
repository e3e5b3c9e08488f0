"""A corpus's overview tab, rendered on the server: figures, the histogram of lengths in the
corpus pages' one binning, annotators (imported accounts marked), sub-corpora and splits."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from annotate.models import Corpus
from annotate.services.corpora import corpus_import_records
from scoring.corpus import length_bin_labels
from tests.annotate.factories import make_corpus
from tests.annotate.records import make_record

pytestmark = pytest.mark.django_db


@pytest.fixture
def corpus() -> Corpus:
    records = [
        make_record(
            f"p{k}",
            source=" ".join(["w"] * (3 + 5 * k)),
            target=" ".join(["v"] * (4 + 5 * k)),
            prefill=None,
            annotations={"A": "0-0"},
            subcorpus=("news", "")[k % 2],
            split="dev",
        )
        for k in range(3)
    ]
    corpus_import_records(corpus_name="over", records=records)
    return Corpus.objects.get(name="over")


def test_it_shows_the_corpus_figures_in_tiles(admin_client: Client, corpus: Corpus) -> None:
    html = admin_client.get(f"/corpora/{corpus.pk}/").content.decode()
    tiles = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html.split('id="tiles"')[1][:800]))
    assert "3 pairs" in tiles and "3 annotations" in tiles and "0 prefilled pairs" in tiles
    assert f"{3 + 4 + 8 + 9 + 13 + 14:,} tokens" in tiles


def test_the_histogram_is_svg_drawn_on_the_server_in_the_one_binning(
    admin_client: Client, corpus: Corpus
) -> None:
    html = admin_client.get(f"/corpora/{corpus.pk}/").content.decode()
    chart = html.split('id="length-chart"')[1].split("</svg>")[0]
    bars = re.findall(r"<title>([^<]+): (\d+)</title>", chart)
    assert [label for label, _ in bars] == length_bin_labels()
    counts = dict(bars)
    assert (counts["1–5"], counts["6–10"], counts["11–15"]) == ("1", "1", "1")
    main = html.split("<main")[1].split("</main>")[0]
    assert "tokens in the shorter sentence" in chart and "<script" not in main


def test_annotators_made_by_an_import_are_marked_and_link_to_their_pairs(
    admin_client: Client, corpus: Corpus
) -> None:
    html = admin_client.get(f"/corpora/{corpus.pk}/").content.decode()
    row = html.split('data-annotator="A"')[1].split("</tr>")[0]
    assert f'href="/corpora/{corpus.pk}/pairs/?annotator=A"' in row
    assert "imported" in row


def test_sub_corpora_and_splits_are_counted_and_the_unlabelled_one_is_named(
    admin_client: Client, corpus: Corpus
) -> None:
    html = admin_client.get(f"/corpora/{corpus.pk}/").content.decode()
    subs = html.split('id="subcorpora-table"')[1].split("</table>")[0]
    assert re.findall(r">([^<>]+)</a></td><td class=\"num\">(\d+)<", subs) == [
        ("(none)", "1"),
        ("news", "2"),
    ]
    assert "?subcorpus=%28none%29" in subs
    splits = html.split('id="splits-table"')[1].split("</table>")[0]
    assert '>dev</a></td><td class="num">3<' in splits


def test_an_empty_corpus_says_so_instead_of_drawing_nothing(admin_client: Client) -> None:
    corpus = make_corpus("empty")
    html = admin_client.get(f"/corpora/{corpus.pk}/").content.decode()
    assert "No pairs" in html and "Nobody is assigned yet" in html
    assert "<svg" not in html.split("<main")[1]


def test_the_histograms_values_are_in_a_table_for_screen_readers(
    admin_client: Client, corpus: Corpus
) -> None:
    # the chart is an image to assistive technology, which reads its label but not its bars
    html = admin_client.get(f"/corpora/{corpus.pk}/").content.decode()
    table = html.split('id="length-chart"')[1].split("</svg>")[1].split("</table>")[0]
    assert "<caption>Pairs by the length of their shorter sentence</caption>" in table
    assert '<th scope="col">tokens in the shorter sentence</th>' in table
    rows = re.findall(r'<tr><th scope="row">([^<]+)</th><td>(\d+)</td></tr>', table)
    assert [label for label, _ in rows] == length_bin_labels()
    assert dict(rows)["6–10"] == "1"
