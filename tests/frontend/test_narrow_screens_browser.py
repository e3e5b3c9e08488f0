"""Laptops (1024 px), tablets (768 px) and phones (390 px) in headless chromium: no page runs
past the screen's edge, a table's last column stays in view where the page says it does, and
the adjudication grid keeps its rows on a tablet."""

from __future__ import annotations

from typing import Any

import pytest

from annotate import roles
from annotate.models import Assignment, SentencePair
from annotate.services.corpora import corpus_import_records
from tests.annotate.factories import make_assignment, make_corpus, make_pair, make_user
from tests.annotate.records import make_record

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SIDEWAYS = "document.documentElement.scrollWidth - document.documentElement.clientWidth"


def _right_edge(page: Any, selector: str) -> float:
    return page.locator(selector).first.evaluate("e => e.getBoundingClientRect().right")


@pytest.mark.parametrize(
    ("path", "width"),
    [("/", 390), ("/scorers/", 768), ("/scorers/", 1024)],
)
def test_no_page_runs_past_the_screens_edge(
    page_for: Any, live_server: Any, path: str, width: int
) -> None:
    alice = make_user("alice", roles.ANNOTATOR)
    make_assignment(make_pair(make_corpus("sample")), alice)
    page = page_for(alice, viewport=(width, 844))
    page.goto(f"{live_server.url}{path}")
    page.wait_for_load_state("networkidle")
    assert page.evaluate(SIDEWAYS) <= 0
    logout = page.get_by_role("button", name="Log out")
    assert _right_edge(page, "header.topbar form") <= width
    assert logout.is_visible()


def test_a_phone_shows_each_queued_pairs_status_and_a_readable_sentence(
    page_for: Any, live_server: Any
) -> None:
    alice = make_user("alice", roles.ANNOTATOR)
    for k in range(3):
        make_assignment(make_pair(make_corpus(f"c{k}"), external_id=f"mtc-00{k}"), alice)
    page = page_for(alice, viewport=(390, 844))
    page.goto(f"{live_server.url}/")
    status = page.locator("#queue-table tbody tr:first-child td:visible", has_text="new")
    assert status.count() == 1
    assert status.evaluate("e => e.getBoundingClientRect().right") <= 390
    sentence = page.locator("#queue-table tbody tr:first-child td.clip").first
    assert sentence.evaluate("e => e.getBoundingClientRect().width") >= 120


def test_the_pairs_tab_at_1024_px_shows_its_last_column_and_ids_on_one_line(
    page_for: Any, live_server: Any
) -> None:
    corpus = make_corpus("sample")
    long = " ".join(["paraphrase"] * 30)
    for k in range(3):
        make_pair(corpus, long, long, external_id=f"novels-01{k}", prefill=None)
    page = page_for(make_user("admin", roles.ADMIN), viewport=(1024, 768))
    page.goto(f"{live_server.url}/corpora/{corpus.pk}/pairs/")
    wrap = page.locator("#pairs-table").locator("xpath=..")
    assert wrap.evaluate("e => e.scrollWidth - e.clientWidth") <= 0
    pair_id = page.locator("#pairs-table tbody tr:first-child td:first-child a")
    assert pair_id.evaluate("e => e.getClientRects().length") == 1


def test_the_adjudication_grid_on_a_tablet_shows_a_fourteen_word_pairs_rows(
    page_for: Any, live_server: Any
) -> None:
    words = " ".join(f"w{k}" for k in range(14))
    links = " ".join(f"{k}-{k}" for k in range(14))
    record = make_record(
        "tab", words, words, prefill=None, annotations={"alice": links, "bob": links}
    )
    corpus_import_records(corpus_name="sample", records=[record])
    pair = SentencePair.objects.get(external_id="tab")
    assert Assignment.objects.filter(pair=pair, status="submitted").count() == 2
    page = page_for(make_user("carol", roles.ADJUDICATOR), viewport=(768, 1024))
    page.goto(f"{live_server.url}/adjudicate/{pair.pk}/")
    page.wait_for_selector("#adjudication[data-ready=true]")
    wrap = page.locator("#adjudication .grid-wrap")
    shown = wrap.evaluate("e => e.clientHeight")
    table = page.locator("#grid").evaluate("e => e.getBoundingClientRect().height")
    assert shown >= min(table, 0.6 * 1024), (shown, table)
    # the annotators' panel is still there, under the grid
    assert page.locator(".adj-side").is_visible()


def _inside_its_table(page: Any, selector: str) -> float:
    """How far the element sticks out past the right edge of its table's scrolling wrapper."""
    return page.locator(selector).first.evaluate(
        "e => e.getBoundingClientRect().right"
        " - e.closest('.table-wrap').getBoundingClientRect().right"
    )


def _report_running_and_export_done(corpus: Any, admin: Any, export: dict[str, Any]) -> None:
    """The jobs page's two kinds of row with an action: a running agreement report (Cancel)
    and a finished export (Download)."""
    from annotate.models import Job

    Job.objects.create(
        kind="agreement_report",
        corpus=corpus,
        owner=admin,
        status=Job.Status.RUNNING,
        progress=40,
        parameters={"annotators": ["alice", "bob"], "samples": 1000, "chunk_pairs": 50},
    )
    Job.objects.create(
        kind="export",
        corpus=corpus,
        owner=admin,
        status=Job.Status.SUCCEEDED,
        progress=100,
        result=export,
        parameters={"format": "jsonl", "which": "all"},
    )


def test_the_jobs_cancel_and_download_are_in_view_at_1024_px(
    page_for: Any, live_server: Any
) -> None:

    corpus = make_corpus("sample")
    admin = make_user("admin", roles.ADMIN)
    _report_running_and_export_done(corpus, admin, {"file": "sample.jsonl"})
    page = page_for(admin, viewport=(1024, 768))
    page.goto(f"{live_server.url}/jobs/")
    cancel = "#jobs-table button:has-text('Cancel')"
    assert _inside_its_table(page, cancel) <= 0
    table = page.locator("#jobs-table")
    assert table.evaluate("t => t.scrollWidth - t.parentElement.clientWidth") <= 0


def test_the_corpora_archive_and_delete_are_in_view_at_1024_px(
    page_for: Any, live_server: Any
) -> None:
    corpus = make_corpus("sample")
    corpus.description = "Sample paraphrase pairs written for the project (news, mtc, novels)."
    corpus.prefill_aligner = "supervised"
    corpus.save()
    make_pair(corpus)
    page = page_for(make_user("admin", roles.ADMIN), viewport=(1024, 768))
    page.goto(f"{live_server.url}/corpora/")
    for name in ("Archive", "Delete…"):
        assert _inside_its_table(page, f"#corpora-table :text-is('{name}')") <= 0, name


def test_the_key_map_opens_at_its_top_in_a_768_px_high_window(
    page_for: Any, live_server: Any
) -> None:
    alice = make_user("alice", roles.ANNOTATOR)
    assignment = make_assignment(make_pair(), alice)
    page = page_for(alice, viewport=(1024, 768))
    page.goto(f"{live_server.url}/work/{assignment.pk}/")
    page.wait_for_selector("#workspace[data-ready=true]")
    page.keyboard.press("?")
    dialog = page.locator("#keymap-dialog")
    dialog.wait_for(state="visible")
    assert dialog.evaluate("d => d.scrollHeight > d.clientHeight")  # taller than the window
    assert dialog.evaluate("d => d.scrollTop") == 0
    title = page.locator("#keymap-title").evaluate("e => e.getBoundingClientRect().top")
    assert title >= dialog.evaluate("d => d.getBoundingClientRect().top")
    close = page.get_by_role("button", name="Close").first
    assert close.evaluate("b => b === document.activeElement")
    bottom = close.evaluate("b => b.getBoundingClientRect().bottom")
    assert bottom <= dialog.evaluate("d => d.getBoundingClientRect().bottom")
    page.keyboard.press("Escape")
    assert not dialog.is_visible()


def test_the_workspace_moves_and_submit_wrap_together_on_a_tablet(
    page_for: Any, live_server: Any
) -> None:
    """At 768 px the toolbar wraps: Previous stayed on the first row, at its right end, and
    Next and Submit went to the start of the second."""
    alice = make_user("alice", roles.ANNOTATOR)
    assignment = make_assignment(make_pair(), alice)
    page = page_for(alice, viewport=(768, 1024))
    page.goto(f"{live_server.url}/work/{assignment.pk}/")
    page.wait_for_selector("#workspace[data-ready=true]")
    tops = [
        page.locator(f".toolbar [data-action={action}]").evaluate(
            "e => Math.round(e.getBoundingClientRect().top)"
        )
        for action in ("previous", "next", "submit")
    ]
    assert len(set(tops)) == 1, tops


def _sideways(page: Any, table: str) -> float:
    return page.locator(table).evaluate("t => t.scrollWidth - t.closest('.table-wrap').clientWidth")


def test_a_tablet_shows_the_actions_of_the_users_jobs_adjudication_corpora_and_exports(
    page_for: Any, live_server: Any
) -> None:

    admin = make_user("admin", roles.ADMIN, roles.ADJUDICATOR)
    for name in ("alice", "bob"):
        user = make_user(name, roles.ANNOTATOR)
        user.email = f"{name}@example.org"
        user.save()
    records = [
        make_record(
            f"news-00{k}",
            "The city council approved the new budget on Tuesday after a three-hour debate .",
            "After debating for three hours , councillors passed the new budget on Tuesday .",
            prefill=None,
            annotations={"alice": "0-0 1-1", "bob": "0-0 2-2"},
        )
        for k in range(3)
    ]
    corpus_import_records(corpus_name="sample", records=records)
    corpus = SentencePair.objects.first().corpus
    _report_running_and_export_done(
        corpus, admin, {"file": "sample-jsonl-all.jsonl", "pairs": 36, "bytes": 31_232}
    )
    corpus.description = "Sample paraphrase pairs written for the project (news, mtc, novels)."
    corpus.save()
    page = page_for(admin, viewport=(768, 1024))
    for path, table in (
        ("/users/", "#users-table"),
        ("/jobs/", "#jobs-table"),
        ("/adjudication/", "#adj-table"),
        ("/corpora/", "#corpora-table"),
        (f"/corpora/{corpus.pk}/export/", "#exports-table"),
    ):
        page.goto(f"{live_server.url}{path}")
        assert _sideways(page, table) <= 0, path
    page.goto(f"{live_server.url}/adjudication/")
    pair_id = page.locator("#adj-table tbody tr:first-child td:first-child a")
    assert pair_id.evaluate("e => e.getClientRects().length") == 1
