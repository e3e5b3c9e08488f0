"""The corpora page, rendered on the server: the list with its counts, search, archived filter,
sort and pages; the import form and the job it starts; archiving, restoring, and deleting after
a typed confirmation that states what would be deleted."""

from __future__ import annotations

import io
import json
import re
import zipfile
from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from annotate import jobs_runtime as jobs
from annotate import roles
from annotate.models import Assignment, Corpus, Job, SentencePair
from annotate.selectors.corpora import corpus_contents
from annotate.services.annotations import annotation_open, annotation_submit
from annotate.services.corpora import corpus_import_records
from tests.annotate.factories import make_assignment, make_corpus, make_pair, make_user
from tests.annotate.records import make_record

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin() -> Client:
    client = Client()
    client.force_login(make_user("admin", roles.ADMIN))
    return client


@pytest.fixture
def upload_dir(settings: Any, tmp_path: Path) -> Path:
    settings.UPLOAD_DIR = tmp_path / "uploads"
    return Path(settings.UPLOAD_DIR)


def _names(html: str) -> list[str]:
    return re.findall(
        r'<tr data-corpus="\d+">\s*<td[^>]*><a href="/corpora/\d+/"><b>([^<]+)</b>', html
    )


def _worked(corpus: Corpus) -> None:
    """Two annotators' submitted work on one pair with gold, and an open assignment."""
    pair = make_pair(corpus, gold=[(0, 0, True)])
    for name in ("alice", "bob"):
        user = make_user(f"{name}-{corpus.pk}", roles.ANNOTATOR)
        assignment = make_assignment(pair, user)
        annotation_open(assignment=assignment, actor=user)
        annotation_submit(assignment=assignment, actor=user, base_version=1)
    make_assignment(make_pair(corpus))


def test_each_corpus_shows_its_pairs_annotators_open_and_submitted_work_and_gold(
    admin: Client,
) -> None:
    _worked(make_corpus("rte"))
    make_corpus("empty")
    html = admin.get("/corpora/").content.decode()
    assert _names(html) == ["empty", "rte"]
    row = html.split("<b>rte</b>", 1)[1].split("</tr>", 1)[0]
    assert re.findall(r'<td class="num">(\d+)</td>', row) == ["2", "3", "1", "2", "1"]


def test_search_archived_filter_and_sort_are_done_on_the_server(admin: Client) -> None:
    small, big = make_corpus("small news"), make_corpus("big novels")
    for _ in range(3):
        make_pair(big)
    make_pair(small)
    old = make_corpus("old news")
    Corpus.objects.filter(pk=old.pk).update(archived_at="2024-01-01T00:00:00Z")
    assert _names(admin.get("/corpora/?q=NEWS").content.decode()) == ["small news"]
    archived = admin.get("/corpora/?show=archived").content.decode()
    assert _names(archived) == ["old news"] and "Restore</button>" in archived
    assert "Archive</button>" not in archived
    assert _names(admin.get("/corpora/?sort=-pairs").content.decode()) == [
        "big novels",
        "small news",
    ]
    assert "1 archived →" in admin.get("/corpora/").content.decode()


def test_sorting_by_a_count_pages_every_corpus_in_that_order_ties_by_age(admin: Client) -> None:
    corpora = Corpus.objects.bulk_create(Corpus(name=f"c{k:02d}") for k in range(53))
    for corpus in (corpora[7], corpora[3]):
        make_pair(corpus)
    make_pair(corpora[3])
    names = _names(admin.get("/corpora/?sort=-pairs").content.decode())
    assert names[:4] == ["c03", "c07", "c00", "c01"] and len(names) == 50
    last = admin.get("/corpora/?sort=pairs&page=2").content.decode()
    assert _names(last) == ["c52", "c07", "c03"] and "51–53 of 53 corpora" in last


def test_the_counts_are_grouped_queries_never_one_subquery_per_corpus(admin: Client) -> None:
    """Counted per corpus in correlated subqueries, each count joined every assignment to its
    pair again for every corpus listed: a second of SQL at 100,000 pairs."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    for name in ("a", "b", "c"):
        _worked(make_corpus(name))
    with CaptureQueriesContext(connection) as queries:
        html = admin.get("/corpora/?sort=-submitted").content.decode()
        admin.get("/corpora/")
    assert _names(html) == ["a", "b", "c"]
    counting = [q["sql"] for q in queries if "annotate_assignment" in q["sql"]]
    assert len(counting) == 2
    assert not any('"annotate_corpus"' in sql for sql in counting)


def test_the_imports_fragment_counts_no_corpus(admin: Client) -> None:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    _worked(make_corpus("rte"))
    with CaptureQueriesContext(connection) as queries:
        assert admin.get("/corpora/?fragment=imports").status_code == 200
    assert not any("annotate_assignment" in q["sql"] for q in queries)


def test_the_list_pages_fifty_corpora_at_a_time(admin: Client) -> None:
    Corpus.objects.bulk_create(Corpus(name=f"c{k:02d}") for k in range(53))
    assert len(_names(admin.get("/corpora/").content.decode())) == 50
    second = admin.get("/corpora/?page=2").content.decode()
    assert _names(second) == ["c50", "c51", "c52"] and "51–53 of 53 corpora" in second


@pytest.mark.parametrize(
    ("query", "title"),
    [
        ("", "No corpus yet"),
        ("?show=archived", "No archived corpus"),
        ("?q=x", "No corpus matches"),
    ],
)
def test_an_empty_list_says_why(admin: Client, query: str, title: str) -> None:
    assert f"<strong>{title}</strong>" in admin.get(f"/corpora/{query}").content.decode()


def _jsonl(count: int) -> bytes:
    lines = [
        json.dumps({"id": f"p{k}", "source_tokens": ["a", "b"], "target_tokens": ["c"]})
        for k in range(count)
    ]
    return ("\n".join(lines) + "\n").encode()


def test_an_upload_queues_an_import_which_the_page_then_follows(
    admin: Client, upload_dir: Path
) -> None:
    files = [SimpleUploadedFile("pairs.jsonl", _jsonl(3))]
    response = admin.post(
        "/corpora/import/", {"corpus": " fresh ", "format": "jsonl", "files": files}
    )
    assert response.status_code == 302 and response["Location"] == "/corpora/"
    job = Job.objects.get(kind="corpus_import")
    assert job.parameters["corpus"] == "fresh" and job.parameters["files"] == ["pairs.jsonl"]
    page = admin.get("/corpora/").content.decode()
    assert f"Importing 1 file into fresh: job #{job.pk}." in page
    assert f'data-notice-job="{job.pk}" data-what="Import"' in page  # the page follows the job
    imports = admin.get("/corpora/?fragment=imports").content.decode()
    assert imports.lstrip().startswith('<div data-fragment="imports" data-live')
    assert f'data-job="{job.pk}"' in imports and "corpus import of <b>fresh</b>" in imports

    jobs.job_run(job_id=job.pk, worker="test")
    imports = admin.get("/corpora/?fragment=imports").content.decode()
    assert "data-live" not in imports
    corpus = Corpus.objects.get(name="fresh")
    assert f'Imported 3 pairs into <a href="/corpora/{corpus.pk}/">fresh</a>' in imports
    assert "fresh" in _names(admin.get("/corpora/?fragment=corpora").content.decode())


def test_an_import_still_reading_shows_a_moving_bar_not_zero_percent(
    admin: Client, upload_dir: Path
) -> None:
    """Reading a file knows no total (40,000 pairs read for 45 s): a bar standing at 0% looked
    stalled beside the count of pairs read. Until there is a share to show, it is
    indeterminate; writing shows its share."""
    files = [SimpleUploadedFile("pairs.jsonl", _jsonl(3))]
    admin.post("/corpora/import/", {"corpus": "big", "format": "jsonl", "files": files})
    job = Job.objects.get(kind="corpus_import")
    Job.objects.filter(pk=job.pk).update(
        status=Job.Status.RUNNING, progress=0, message="read and checked 7,500 pairs"
    )
    imports = admin.get("/corpora/?fragment=imports").content.decode()
    bar = re.search(r"<progress[^>]*>", imports)
    assert bar is not None and "value=" not in bar.group(0), bar
    assert "read and checked 7,500 pairs" in imports and "0%" not in imports

    Job.objects.filter(pk=job.pk).update(progress=40, message="wrote 1,000 of 3 pairs")
    imports = admin.get("/corpora/?fragment=imports").content.decode()
    assert '<progress class="bar" value="40" max="100"' in imports and "40%" in imports


def test_an_import_followed_on_the_page_can_be_cancelled_there_and_stores_nothing(
    admin: Client, upload_dir: Path
) -> None:
    """A 20 MB import reads for seconds before it writes: the page that follows it offers its
    Cancel (it was only on the Jobs page), and back on the page it shows cancelled."""
    files = [SimpleUploadedFile("pairs.jsonl", _jsonl(3))]
    admin.post("/corpora/import/", {"corpus": "big", "format": "jsonl", "files": files})
    job = Job.objects.get(kind="corpus_import")
    imports = admin.get("/corpora/?fragment=imports").content.decode()
    cancel = f'action="/jobs/{job.pk}/cancel/"'
    assert cancel in imports
    assert 'name="next" value="/corpora/?fragment=imports"' in imports

    response = admin.post(f"/jobs/{job.pk}/cancel/", {"next": "/corpora/?fragment=imports"})
    assert response.status_code == 302 and response["Location"] == "/corpora/"
    jobs.job_run(job_id=job.pk, worker="test")
    imports = admin.get("/corpora/?fragment=imports").content.decode()
    assert "cancelled" in imports and cancel not in imports
    assert not Corpus.objects.filter(name="big").exists()
    assert not SentencePair.objects.exists()


def test_an_import_of_one_of_each_says_so_in_the_singular(admin: Client, upload_dir: Path) -> None:
    line = {
        "id": "p0",
        "source_tokens": ["a", "b"],
        "target_tokens": ["c"],
        "annotations": {"ann1": {"sure": [[0, 0]], "possible": [], "status": "submitted"}},
        "gold_alignment": {"sure": [[1, 0]], "possible": []},
    }
    files = [SimpleUploadedFile("one.jsonl", json.dumps(line).encode() + b"\n")]
    admin.post("/corpora/import/", {"corpus": "single", "format": "jsonl", "files": files})
    jobs.job_run(job_id=Job.objects.get(kind="corpus_import").pk, worker="test")
    imports = admin.get("/corpora/?fragment=imports").content.decode()
    corpus = Corpus.objects.get(name="single")
    assert (
        f'Imported 1 pair into <a href="/corpora/{corpus.pk}/">single</a>, 1 annotation, '
        "1 gold alignment; new annotator accounts: ann1." in imports
    )


def test_an_import_of_an_all_export_zip_says_which_alignment_it_took_and_which_it_left(
    admin: Client, upload_dir: Path
) -> None:
    # an "all" export's zip holds every alignment; one import takes one (the gold here), and
    # the report says so, else the others look imported and the annotators' work lost
    line = "p0\ta b\tN/A\tc\tN/A\t1\t1\t{}\t\n"
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("annotator-alice.tsv", line.format("0-0"))
        archive.writestr("gold.tsv", line.format("1-0"))
        archive.writestr("prefill.tsv", line.format("0-0 1-0"))
    files = [SimpleUploadedFile("c-multimwa-all.zip", buffer.getvalue())]
    admin.post("/corpora/import/", {"corpus": "again", "format": "multimwa", "files": files})
    jobs.job_run(job_id=Job.objects.get(kind="corpus_import").pk, worker="test")
    imports = admin.get("/corpora/?fragment=imports").content.decode()
    assert "1 gold alignment" in imports
    assert (
        "Only the <b>gold</b> alignment of c-multimwa-all.zip was imported; it also holds "
        "annotator-alice, prefill, left out." in imports
    )


def test_the_form_adds_annotations_to_existing_pairs_and_the_list_says_how_many(
    admin: Client, upload_dir: Path
) -> None:
    corpus_import_records(corpus_name="rte", records=[make_record("p1"), make_record("p2")])
    record = make_record("p1")
    line = {
        "id": "p1",
        "source_tokens": record.source_tokens,
        "target_tokens": record.target_tokens,
        "annotations": {"bob": {"sure": [[0, 0]], "possible": [], "status": "submitted"}},
    }
    page = admin.get("/corpora/").content.decode()
    assert 'name="onto_existing"' in page and "Add annotations to existing pairs" in page
    files = [SimpleUploadedFile("bob.jsonl", json.dumps(line).encode() + b"\n")]
    body = {"corpus": "rte", "format": "jsonl", "files": files, "onto_existing": "on"}
    response = admin.post("/corpora/import/", body)
    assert response.status_code == 302
    job = Job.objects.get(kind="corpus_import")
    assert job.parameters["onto_existing"] is True
    page = admin.get("/corpora/").content.decode()
    assert f"Adding the annotations of 1 file into rte: job #{job.pk}." in page
    jobs.job_run(job_id=job.pk, worker="test")
    imports = admin.get("/corpora/?fragment=imports").content.decode()
    corpus = Corpus.objects.get(name="rte")
    assert (
        f'Added 1 annotation to 1 pair of <a href="/corpora/{corpus.pk}/">rte</a> '
        "(1 pair in the file); new annotator accounts: bob." in imports
    ), imports
    assert SentencePair.objects.filter(corpus=corpus).count() == 2


def test_adding_annotations_to_a_corpus_that_is_not_there_is_refused_on_the_form(
    admin: Client, upload_dir: Path
) -> None:
    files = [SimpleUploadedFile("pairs.jsonl", _jsonl(1))]
    body = {"corpus": "nope", "format": "jsonl", "files": files, "onto_existing": "on"}
    response = admin.post("/corpora/import/", body)
    assert response.status_code == 400
    assert "there is no corpus named “nope”" in response.content.decode()
    assert not Job.objects.exists()


def test_a_failed_import_shows_its_error_under_the_form(admin: Client, upload_dir: Path) -> None:
    bad = b'{"id": "p1", "source_tokens": ["a"], "target_tokens": []}\n'
    admin.post(
        "/corpora/import/",
        {"corpus": "bad", "format": "jsonl", "files": [SimpleUploadedFile("bad.jsonl", bad)]},
    )
    job = Job.objects.get(kind="corpus_import")
    jobs.job_run(job_id=job.pk, worker="test")
    imports = admin.get("/corpora/?fragment=imports").content.decode()
    assert '<p class="errors m-0" role="alert">' in imports and "bad.jsonl" in imports
    assert not Corpus.objects.filter(name="bad").exists()


@pytest.mark.parametrize(
    ("fields", "field", "message"),
    [
        ({"format": "jsonl"}, "files", "This field is required."),
        ({"format": "nope", "files": True}, "format", "Select a valid choice."),
        ({"format": "jsonl", "files": True, "corpus": ""}, "corpus", "This field is required."),
        (
            {"format": "jsonl", "files": True, "annotator": "alice"},
            "annotator",
            "annotator does not apply to the jsonl format",
        ),
    ],
)
def test_bad_import_input_is_shown_on_its_field_and_stores_nothing(
    admin: Client, upload_dir: Path, fields: dict[str, Any], field: str, message: str
) -> None:
    make_corpus("listed")
    body = {"corpus": "x", **fields}
    if body.pop("files", None):
        body["files"] = [SimpleUploadedFile("pairs.jsonl", _jsonl(1))]
    response = admin.post("/corpora/import/?sort=-pairs", body)
    assert response.status_code == 400
    html = response.content.decode()
    errors = re.findall(
        r'<span class="errors" role="alert" id="id_(\w+)_errors">([^<]*)</span>', html
    )
    assert [name for name, _ in errors] == [field] and message in errors[0][1]
    assert 'href="/corpora/?sort=pairs"' in html  # the list's links still lead to the list
    assert not Job.objects.exists()
    assert not upload_dir.exists() or [p.name for p in upload_dir.iterdir()] == ["incoming"]


def test_the_annotator_field_names_the_formats_that_take_an_annotator(admin: Client) -> None:
    # sts takes an option (its split) but no annotator: named here, it would be refused
    html = admin.get("/corpora/").content.decode()
    helptext = re.search(r'<span class="help" id="id_annotator_helptext">([^<]*)</span>', html)
    assert helptext is not None
    assert "(jacana, multimwa, pharaoh)" in helptext.group(1), helptext.group(1)


def test_a_pharaoh_zip_lacking_a_file_is_refused_under_the_files_field(
    admin: Client, upload_dir: Path
) -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("c-pharaoh-gold/source.txt", "a b\n")
    files = [SimpleUploadedFile("c-pharaoh-gold.zip", buffer.getvalue())]
    response = admin.post("/corpora/import/", {"corpus": "x", "format": "pharaoh", "files": files})
    assert response.status_code == 400
    assert (
        '<span class="errors" role="alert" id="id_files_errors">c-pharaoh-gold.zip lacks '
        "target.txt" in response.content.decode()
    )
    assert not Job.objects.exists()


def test_an_empty_file_among_several_is_refused_by_its_name(
    admin: Client, upload_dir: Path
) -> None:
    files = [
        SimpleUploadedFile("gold.train.sure.json", b"[]"),
        SimpleUploadedFile("gold.train.sure+poss.json", b""),
    ]
    response = admin.post("/corpora/import/", {"corpus": "x", "format": "jacana", "files": files})
    assert response.status_code == 400
    assert (
        '<span class="errors" role="alert" id="id_files_errors">gold.train.sure+poss.json is '
        "empty" in response.content.decode()
    )
    assert not Job.objects.exists()


def test_an_upload_over_the_limit_is_refused_before_it_is_stored(
    admin: Client, upload_dir: Path, settings: Any
) -> None:
    settings.MAX_UPLOAD_BYTES = 100
    files = [SimpleUploadedFile("pairs.jsonl", _jsonl(20))]
    response = admin.post("/corpora/import/", {"corpus": "x", "format": "jsonl", "files": files})
    assert response.status_code == 413
    page = response.content.decode()
    assert "at most 100 are accepted" in page and 'href="/corpora/"' in page
    assert not Job.objects.exists()


def test_archiving_and_restoring_go_back_to_the_list_with_a_message(admin: Client) -> None:
    corpus = make_corpus("rte")
    archived = admin.post(f"/corpora/{corpus.pk}/archive/", {"next": "/corpora/?q=r"}, follow=True)
    assert archived.redirect_chain == [("/corpora/?q=r", 302)]
    assert "Archived “rte”: it is out of the queues and lists" in archived.content.decode()
    corpus.refresh_from_db()
    assert corpus.archived_at is not None
    again = admin.post(f"/corpora/{corpus.pk}/archive/", follow=True).content.decode()
    assert "“rte” was archived already." in again
    restored = admin.post(f"/corpora/{corpus.pk}/restore/", follow=True).content.decode()
    assert "Restored “rte”: it is back in the queues and lists." in restored
    corpus.refresh_from_db()
    assert corpus.archived_at is None
    assert (
        "“rte” was not archived."
        in admin.post(f"/corpora/{corpus.pk}/restore/", follow=True).content.decode()
    )
    assert admin.post("/corpora/999999/archive/").status_code == 404


def test_the_confirmation_states_exactly_what_would_be_deleted(admin: Client) -> None:
    corpus = make_corpus("rte")
    _worked(corpus)
    Job.objects.create(kind="export", corpus=corpus, status=Job.Status.SUCCEEDED)
    html = admin.get(f"/corpora/{corpus.pk}/delete/").content.decode()
    counts = dict(
        re.findall(
            r'<tr data-count="(\w+)"[^>]*><th scope="row">[^<]+</th><td class="num">(\d+)</td>',
            html,
        )
    )
    assert counts == {
        "pairs": "2",
        "annotations": "2",
        "gold_alignments": "1",
        "assignments": "3",
        "saved_changes": str(corpus_contents(corpus).saved_changes),
        "jobs": "1",
        "scorer_models": "0",
    }
    assert "by 2 annotators" in html and "This corpus holds people's work." in html
    for name, value in (("annotations", 2), ("gold_alignments", 1), ("assignments", 3)):
        assert f'name="{name}" value="{value}"' in html
    assert "Archive it instead" in html


def _confirm(corpus: Corpus, typed: str, **seen: int) -> dict[str, Any]:
    counts = {"annotations": 2, "gold_alignments": 1, "assignments": 3}
    counts["saved_changes"] = corpus_contents(corpus).saved_changes
    return {"confirm": typed, **counts, **seen}


def test_the_confirmation_says_the_deletion_goes_a_batch_at_a_time(admin: Client) -> None:
    """The job deletes a batch of pairs per transaction and stops at work saved meanwhile,
    leaving the rest archived; the page said one transaction that deletes nothing."""
    corpus = make_corpus("rte")
    _worked(corpus)
    html = admin.get(f"/corpora/{corpus.pk}/delete/").content.decode()
    assert "in one transaction" not in html
    assert "deletes nothing if work was added meanwhile" not in html
    assert "a batch of pairs at a time" in html
    assert "stay in the archived corpus" in html


def test_a_wrong_name_deletes_nothing_and_says_what_to_type(admin: Client) -> None:
    corpus = make_corpus("rte")
    _worked(corpus)
    for typed in ("", "RTE", "rte2"):
        response = admin.post(f"/corpora/{corpus.pk}/delete/", _confirm(corpus, typed))
        assert response.status_code == 400
        html = response.content.decode()
        assert '<span class="errors" role="alert">' in html
    assert "type the corpus name, “rte”, to delete it" in html
    corpus.refresh_from_db()
    assert corpus.archived_at is None and not Job.objects.filter(kind="corpus_delete").exists()


def test_work_added_since_the_page_was_shown_stops_the_deletion_and_shows_it(admin: Client) -> None:
    corpus = make_corpus("rte")
    _worked(corpus)
    response = admin.post(f"/corpora/{corpus.pk}/delete/", _confirm(corpus, "rte", annotations=1))
    assert response.status_code == 409
    html = response.content.decode()
    assert "annotations: 1 shown, 2 now" in html
    assert 'name="annotations" value="2"' in html  # the page now shows, and confirms, 2
    assert not Job.objects.filter(kind="corpus_delete").exists()


def test_a_count_beyond_any_row_id_deletes_nothing_and_is_refused(admin: Client) -> None:
    corpus = make_corpus("rte")
    _worked(corpus)
    response = admin.post(
        f"/corpora/{corpus.pk}/delete/", _confirm(corpus, "rte", annotations=10**30)
    )
    assert response.status_code == 400
    corpus.refresh_from_db()
    assert corpus.archived_at is None and not Job.objects.filter(kind="corpus_delete").exists()


def test_a_corpus_whose_job_runs_is_not_deleted(admin: Client) -> None:
    corpus = make_corpus("rte")
    _worked(corpus)
    running = Job.objects.create(kind="prefill", corpus=corpus, status=Job.Status.RUNNING)
    response = admin.post(f"/corpora/{corpus.pk}/delete/", _confirm(corpus, "rte"))
    assert response.status_code == 409
    assert f"job #{running.pk} (prefill) of “rte” is running" in response.content.decode()


def test_a_confirmed_deletion_hides_the_corpus_at_once_and_its_job_removes_it(
    admin: Client,
) -> None:
    corpus, other = make_corpus("rte"), make_corpus("msrp")
    _worked(corpus)
    _worked(other)
    response = admin.post(f"/corpora/{corpus.pk}/delete/", _confirm(corpus, "rte"), follow=True)
    assert response.redirect_chain == [("/corpora/", 302)]
    job = Job.objects.get(kind="corpus_delete")
    html = response.content.decode()
    assert f"Deleting “rte”: job #{job.pk} removes it" in html
    assert _names(html) == ["msrp"]
    jobs.job_run(job_id=job.pk, worker="test")
    assert not Corpus.objects.filter(pk=corpus.pk).exists()
    assert SentencePair.objects.filter(corpus=other).count() == 2
    assert Assignment.objects.filter(pair__corpus=other).count() == 3
    assert "Deleted rte." in admin.get("/corpora/?fragment=imports").content.decode()


CORPUS_ACTIONS = [
    ("get", "/corpora/"),
    ("get", "/corpora/?fragment=imports"),
    ("get", "/corpora/{corpus}/delete/"),
    ("post", "/corpora/import/"),
    ("post", "/corpora/{corpus}/archive/"),
    ("post", "/corpora/{corpus}/restore/"),
    ("post", "/corpora/{corpus}/delete/"),
]


@pytest.mark.parametrize(("method", "path"), CORPUS_ACTIONS)
@pytest.mark.parametrize("role", [roles.ANNOTATOR, roles.ADJUDICATOR, None])
def test_only_admins_reach_the_corpora_page_and_its_actions(
    role: str | None, method: str, path: str
) -> None:
    corpus = make_corpus("rte")
    make_pair(corpus)
    client = Client()
    if role:
        client.force_login(make_user("someone", role))
    url = path.format(corpus=corpus.pk)
    response = getattr(client, method)(url, {"confirm": "rte"} if method == "post" else None)
    if role:
        assert response.status_code == 403
        assert "This page is for corpus admins." in response.content.decode()
    else:
        assert response.status_code == 302 and response["Location"].startswith("/login/")
    corpus.refresh_from_db()
    assert corpus.archived_at is None and not Job.objects.exists()
