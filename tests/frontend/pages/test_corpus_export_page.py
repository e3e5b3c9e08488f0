"""A corpus's export tab, rendered on the server: the form (alignments the corpus lacks are
unavailable, saying why), building an export (bad choices refused on their field, nothing
queued) and the list of exports with their files, paged and live while one is built."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client

from annotate.models import Corpus, Job
from annotate.services.corpora import corpus_import_records
from tests.annotate.records import make_record
from tests.frontend.pages.forms import form_values

pytestmark = pytest.mark.django_db


@pytest.fixture
def corpus() -> Corpus:
    records = [make_record(f"p{k}", annotations={"alice": "1-1"}) for k in range(2)]
    corpus_import_records(corpus_name="exp", records=records)
    return Corpus.objects.get(name="exp")


def _export(corpus: Corpus, **fields: Any) -> Job:
    fields.setdefault("status", Job.Status.SUCCEEDED)
    fields.setdefault("parameters", {"format": "jsonl", "which": "all"})
    return Job.objects.create(kind="export", corpus=corpus, **fields)


def _rows(html: str) -> list[int]:
    return [int(found) for found in re.findall(r'data-job="(\d+)"', html)]


def _post(client: Client, corpus: Corpus, **changes: str) -> Any:
    form = client.get(f"/corpora/{corpus.pk}/export/").content.decode()
    values = form_values(form, "export-form")
    values.update({name: [value] for name, value in changes.items()})
    return client.post(f"/corpora/{corpus.pk}/export/run/", values)


def test_the_form_offers_what_the_corpus_has_and_says_why_not_the_rest(
    admin_client: Client, corpus: Corpus
) -> None:
    html = admin_client.get(f"/corpora/{corpus.pk}/export/").content.decode()
    before, after = html.split('id="which-gold"')
    gold = before.rsplit("<label", 1)[1] + after.split("</label>")[0]
    assert "disabled" in gold and "this corpus has no adjudicated gold" in gold
    assert '<option value="alice"' in html
    assert form_values(html, "export-form")["format"] == ["jsonl"]


def test_building_the_default_export_queues_it_and_goes_back_to_the_list(
    admin_client: Client, corpus: Corpus
) -> None:
    response = _post(admin_client, corpus)
    assert response.status_code == 302 and response["Location"] == f"/corpora/{corpus.pk}/export/"
    job = Job.objects.get(kind="export")
    assert job.parameters == {"format": "jsonl", "which": "all"}
    page = admin_client.get(response["Location"]).content.decode()
    assert f"Export #{job.pk} queued" in page and _rows(page) == [job.pk]


def test_one_annotators_phrase_table_carries_its_options(
    admin_client: Client, corpus: Corpus
) -> None:
    response = _post(
        admin_client,
        corpus,
        format="phrases",
        which="annotator",
        annotator="alice",
        use="sure",
        max_length="4",
        keep_identical="on",
    )
    assert response.status_code == 302
    assert Job.objects.get().parameters == {
        "format": "phrases",
        "which": "annotator",
        "annotator": "alice",
        "use": "sure",
        "max_length": 4,
        "keep_identical": True,
    }


@pytest.mark.parametrize(
    ("changes", "field", "message"),
    [
        ({"which": "annotator", "annotator": "alice"}, "Alignments", "jsonl keeps every alignment"),
        ({"format": "pharaoh", "which": "gold"}, "Alignments", "has no gold alignment"),
        ({"format": "phrases", "max_length": "0"}, "Longest phrase (tokens)", "greater than"),
        ({"format": "tmx"}, "Format", "Select a valid choice"),
        ({"format": "pharaoh", "which": "annotator", "annotator": "zed"}, "Annotator", "no work"),
    ],
)
def test_a_bad_choice_is_refused_on_its_field_and_queues_nothing(
    admin_client: Client, corpus: Corpus, changes: dict[str, str], field: str, message: str
) -> None:
    response = _post(admin_client, corpus, **changes)
    assert response.status_code == 400
    errors = response.content.decode().split('id="export-errors"')[1].split("</div>")[0]
    assert f"<b>{field}</b>: " in errors and message in errors
    assert not Job.objects.exists()


def test_a_finished_export_links_to_its_file_and_tells_its_size(
    admin_client: Client, corpus: Corpus
) -> None:
    done = _export(corpus, result={"file": "exp-jsonl-all.jsonl", "pairs": 2, "bytes": 2048})
    failed = _export(corpus, status=Job.Status.FAILED, error="disk full")
    html = admin_client.get(f"/corpora/{corpus.pk}/export/").content.decode()
    assert _rows(html) == [failed.pk, done.pk]
    row = html.split(f'data-job="{done.pk}"')[1].split("</tr>")[0]
    assert f'href="/api/jobs/{done.pk}/download/" download>Download exp-jsonl-all.jsonl' in row
    assert "2.0\xa0KB" in row
    assert "disk full" in html.split(f'data-job="{failed.pk}"')[1].split("</tr>")[0]


def test_the_list_pages_and_is_live_while_an_export_is_built(
    admin_client: Client, corpus: Corpus
) -> None:
    exports = [_export(corpus) for _ in range(11)]
    second = admin_client.get(f"/corpora/{corpus.pk}/export/?page=2").content.decode()
    assert _rows(second) == [exports[0].pk] and "11–11 of 11 exports" in second
    Job.objects.filter(pk=exports[-1].pk).update(status=Job.Status.PENDING)
    fragment = admin_client.get(f"/corpora/{corpus.pk}/export/?fragment=exports").content.decode()
    assert fragment.lstrip().startswith('<div data-fragment="exports" data-live')
    assert "No worker is running" in fragment


def test_an_export_being_built_is_cancelled_from_its_row(
    admin_client: Client, corpus: Corpus
) -> None:
    done = _export(corpus)
    building = _export(corpus, status=Job.Status.PENDING)
    html = admin_client.get(f"/corpora/{corpus.pk}/export/").content.decode()
    assert f'action="/jobs/{building.pk}/cancel/"' in html
    assert f'action="/jobs/{done.pk}/cancel/"' not in html


def test_no_export_yet_is_an_empty_state(admin_client: Client, corpus: Corpus) -> None:
    html = admin_client.get(f"/corpora/{corpus.pk}/export/").content.decode()
    assert "No export yet" in html
