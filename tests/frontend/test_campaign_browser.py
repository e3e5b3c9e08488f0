"""A whole annotation campaign on RTE-2 dev (Brockett 2007), run from the pages in headless
chromium with a real Celery worker, PostgreSQL and a real broker (``make test-integration``):
import, prefill, a plan for two annotators, annotation in the workspace and through the API,
adjudication (paging, the disagreement order, accept majority, a conflict between two
adjudicators), the gold exported and imported back, a scorer trained, and an agreement report
downloaded as CSV."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import pytest
import requests

from annotate import roles
from annotate.models import (
    Annotation,
    Assignment,
    AutoAlignment,
    Corpus,
    GoldAlignment,
    Job,
    PairDisagreement,
    ScorerModel,
    SentencePair,
)
from scoring.alignment.report_records import CSV_COLUMNS, CorpusReport
from tests.annotate.factories import make_user
from tests.frontend.conftest import SCREENSHOTS
from tests.integration.conftest import broker_urls, start_worker  # noqa: F401

pytestmark = [pytest.mark.integration, pytest.mark.browser, pytest.mark.django_db(transaction=True)]

CORPUS = "RTE-2 dev"
BATCH = 100
PASSWORD = "campaign-password-1"
#: Jobs on a loaded two-core machine: the import, prefill and report take a minute or two.
JOB_TIMEOUT_MS = 240_000


def shot(page: Any, name: str, *, full_page: bool = False) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"campaign_{name}.png"), full_page=full_page)


def import_rte2(page: Any, url: str, files: list[Path]) -> Corpus:
    """Step 1: the import form, then the job's report in the list beside it."""
    page.goto(f"{url}/corpora/")
    page.fill("#id_corpus", CORPUS)
    page.select_option("#id_format", "rte2")
    page.set_input_files("#id_files", [str(f) for f in files])
    with page.expect_navigation():
        page.click("#upload-submit")
    assert "Importing 3 files into RTE-2 dev" in page.inner_text(".messages")
    entry = page.locator("#import-jobs li").first
    entry.locator(".success, .errors").wait_for(timeout=JOB_TIMEOUT_MS)
    report = entry.inner_text()
    assert "Imported 800 pairs into RTE-2 dev, 2,400 annotations" in report, report
    assert "new annotator accounts: A, B, C" in report
    page.reload()
    row = page.locator("#corpora-table tr", has_text=CORPUS)
    assert row.locator("td").nth(1).inner_text() == "800"
    assert row.locator("td").nth(2).inner_text() == "3"  # A, B and C
    shot(page, "corpora")
    corpus = Corpus.objects.get(name=CORPUS)
    assert SentencePair.objects.filter(corpus=corpus).count() == 800
    imported = Assignment.objects.filter(pair__corpus=corpus)
    assert set(imported.values_list("annotator__username", flat=True)) == {"A", "B", "C"}
    return corpus


def prefill(page: Any, url: str, corpus: Corpus) -> None:
    """Step 2: the em aligner chosen on the prefill tab, run, followed until it ends."""
    page.goto(f"{url}/corpora/{corpus.pk}/")
    page.click("nav.tabs a:has-text('Prefill')")
    with page.expect_navigation():
        page.select_option("#choose-aligner", "em")  # the choice form submits itself
    assert page.inner_text("#prefill-submit") == "Run em prefill"
    with page.expect_navigation():
        page.click("#prefill-submit")
    assert "Prefill #" in page.inner_text(".messages")
    page.wait_for_selector(
        "#runs-table tbody tr .badge.succeeded, #runs-table tbody tr .badge.failed",
        timeout=JOB_TIMEOUT_MS,
    )
    job = Job.objects.get(corpus=corpus, kind="prefill")
    assert job.status == "succeeded", job.error
    row = page.locator("#runs-table tbody tr").first
    assert row.locator("td").nth(3).inner_text() == "800"  # every pair prefilled
    page.reload()
    assert "800" in page.inner_text("#prefill-tiles .count:first-child b")
    shot(page, "prefill")
    assert (
        AutoAlignment.objects.filter(pair__corpus=corpus).values("pair").distinct().count() == 800
    )


def plan(page: Any, url: str, corpus: Corpus) -> None:
    """Step 3: a batch of 100 pairs with K = 2 for alice and bob; the imported A, B, C are
    listed as imported and left unticked."""
    page.goto(f"{url}/corpora/{corpus.pk}/assignments/")
    people = page.locator("#plan-annotators label")
    shown = {label.inner_text().split()[0]: label for label in people.all()}
    assert set(shown) == {"A", "B", "C", "alice", "bob"}
    for name in "ABC":
        badge = shown[name].locator(".badge.imported-account")
        assert badge.inner_text() == "imported"
        assert badge.get_attribute("title").startswith("made by an import: no password")
        assert not shown[name].locator("input").is_checked()
    for name in ("alice", "bob"):
        assert "imported" not in shown[name].inner_text()
        assert shown[name].locator("input").is_checked()
    page.fill("#plan-per_pair", "2")
    page.fill("#plan-batch", str(BATCH))
    page.fill("#plan-seed", "7")
    # The window as the admin sees it: a full-page capture resizes the window for a moment,
    # and chromium can then drop the next click.
    page.locator("#plan-submit").scroll_into_view_if_needed()
    shot(page, "plan_form")
    with page.expect_navigation():
        page.click("#plan-submit")
    assert "Plan #" in page.inner_text(".messages")
    done = page.locator("#work-table .plan-done")
    done.wait_for(timeout=JOB_TIMEOUT_MS)
    assert done.inner_text().startswith("Created 200 assignments on 100 pairs"), done.inner_text()
    page.reload()
    rows = {
        row.get_attribute("data-annotator"): row
        for row in page.locator("#annotators-table tbody tr").all()
    }
    for name in ("alice", "bob"):
        assert rows[name].locator("td").nth(1).inner_text() == "100"  # assigned
        assert rows[name].locator("td").nth(2).inner_text() == "100"  # left
    shot(page, "assignments", full_page=True)
    planned = Assignment.objects.filter(
        pair__corpus=corpus, annotator__username__in=["alice", "bob"]
    )
    assert planned.count() == 200
    assert planned.values("pair").distinct().count() == 100
    first_pairs = SentencePair.objects.filter(corpus=corpus).order_by("position")[:BATCH]
    assert set(planned.values_list("pair_id", flat=True)) == {p.pk for p in first_pairs}


READY = "#workspace[data-ready=true]"
LINKS = "window.__workspace.model.links()"


def annotate_in_the_workspace(page: Any, url: str, user: Any, rating: str) -> Assignment:
    """Step 4, in the browser: the queue's next pair, a few cells set from the keyboard (keys.js:
    arrows move, s sure, p possible, x clear), Enter and the submit dialog."""
    page.goto(f"{url}/")
    page.click("#open-next")
    page.wait_for_selector(READY)
    assignment = Assignment.objects.get(pk=int(page.get_attribute("#workspace", "data-assignment")))
    assert assignment.annotator == user
    assert assignment.pair.position == 0  # the plan's first pair comes first
    before = {(i, j): kind for i, j, kind in page.evaluate(LINKS)}
    # Arrows move on the screen; a long text against a short hypothesis may open transposed.
    transposed = page.evaluate("window.__workspace.view.transposed")

    def cell(row: int, col: int) -> tuple[int, int]:
        return (col, row) if transposed else (row, col)

    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("s")  # row 1, column 1: sure
    page.keyboard.press("ArrowRight")
    page.keyboard.press("p")  # row 1, column 2: possible
    page.keyboard.press("ArrowUp")
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("x")  # the first cell cleared
    expected = {**before, cell(1, 1): "S", cell(1, 2): "P"}
    expected.pop(cell(0, 0), None)
    assert expected != before
    assert {(i, j): kind for i, j, kind in page.evaluate(LINKS)} == expected
    page.wait_for_function(
        "() => document.querySelector('#save-status').textContent.startsWith('Saved · v')"
        " && document.querySelector('#save-status').textContent !== 'Saved · v1'"
    )
    shot(page, f"workspace_{user.username}")
    page.keyboard.press("Enter")
    page.locator("#submit-rating").fill(rating)
    page.locator("#submit-confirm").click()
    page.wait_for_url(lambda address: f"/work/{assignment.pk}/" not in address)
    page.wait_for_selector(READY)
    assignment.refresh_from_db()
    assert assignment.status == Assignment.Status.SUBMITTED
    annotation = Annotation.objects.get(assignment=assignment)
    assert annotation.rating == float(rating)
    stored = {
        (i, j): "S" if sure else "P"
        for i, j, sure in annotation.links.values_list("i", "j", "sure")
    }
    assert stored == expected
    return assignment


def rating_of(pair: SentencePair, offset: float) -> float:
    """A 0–5 similarity rating: the share of the hypothesis's words found in the text."""
    text = {token.lower() for token in pair.source_tokens}
    hypothesis = [token.lower() for token in pair.target_tokens]
    share = sum(token in text for token in hypothesis) / max(len(hypothesis), 1)
    return min(5.0, round(10 * share) / 2 + offset)


def api_session(url: str, username: str) -> requests.Session:
    """A session signed in through the login page, sending its CSRF token as the pages do."""
    session = requests.Session()
    session.get(f"{url}/login/").raise_for_status()
    answer = session.post(
        f"{url}/login/",
        data={
            "username": username,
            "password": PASSWORD,
            "csrfmiddlewaretoken": session.cookies["csrftoken"],
            "next": "/",
        },
        headers={"Referer": f"{url}/login/"},
    )
    answer.raise_for_status()
    assert answer.url == f"{url}/", answer.url
    session.headers["X-CSRFToken"] = session.cookies["csrftoken"]
    return session


def annotate_through_the_api(url: str, user: Any, copy_of: str, offset: float) -> int:
    """Step 4, the rest of the user's pairs through the API: open, save the links annotator
    ``copy_of`` imported for the pair, submit with a rating. Returns how many."""
    session = api_session(url, user.username)
    open_work = Assignment.objects.filter(annotator=user).exclude(
        status=Assignment.Status.SUBMITTED
    )
    done = 0
    for assignment in open_work.select_related("pair").order_by("pair__position"):
        base = f"{url}/api/assignments/{assignment.pk}"
        opened = session.post(f"{base}/open/")
        opened.raise_for_status()
        version = opened.json()["annotation"]["version"]
        source = Annotation.objects.get(
            assignment__pair=assignment.pair, assignment__annotator__username=copy_of
        )
        links = [
            [i, j, "S" if sure else "P"]
            for i, j, sure in source.links.values_list("i", "j", "sure")
        ]
        saved = session.put(f"{base}/annotation/", json={"version": version, "links": links})
        assert saved.status_code == 200, saved.text
        body = {"version": saved.json()["version"], "rating": rating_of(assignment.pair, offset)}
        submitted = session.post(f"{base}/submit/", json=body)
        assert submitted.status_code == 200, submitted.text
        done += 1
    return done


ADJUDICATION_READY = "#adjudication[data-ready=true]"
GOLD_LINKS = "window.__adjudication.model.links()"


def gold_saved(page: Any, version: int) -> None:
    page.wait_for_selector(f"#save-status:has-text('Gold saved · v{version}')")


def shown_rows(page: Any) -> list[tuple[int, str]]:
    """The adjudication list's rows on the page: pair id and the lowest F1 as shown."""
    return [
        (int(row.get_attribute("data-pair")), row.locator("td").nth(3).inner_text())
        for row in page.locator("#adj-table tbody tr").all()
    ]


def adjudication_list(page: Any, url: str, corpus: Corpus) -> list[int]:
    """Step 5, the list: every RTE-2 pair waits (A, B and C submitted all 800), paged past row
    500 and sorted by disagreement. Returns the first page's pair ids in that order."""
    page.goto(f"{url}/")
    page.click("header a:has-text('Adjudication'), nav a:has-text('Adjudication')")
    page.wait_for_selector("#adj-table")
    assert page.inner_text(".pager .muted") == "1–50 of 800 pairs · page 1 of 16"
    for _ in range(10):
        with page.expect_navigation():
            page.click(".pager a[rel=next]")
    assert page.inner_text(".pager .muted") == "501–550 of 800 pairs · page 11 of 16"
    shown = [int(pk) for pk, _ in shown_rows(page)]
    by_position = SentencePair.objects.filter(corpus=corpus).order_by("position")
    assert shown == list(by_position.values_list("pk", flat=True)[500:550])
    shot(page, "adjudication_page11")

    with page.expect_navigation():
        page.click("#adj-table th a.sort:has-text('Lowest F1')")
    assert page.get_attribute("#adj-table th:nth-child(4)", "aria-sort") == "ascending"
    assert page.inner_text(".pager .muted") == "1–50 of 800 pairs · page 1 of 16"
    first = shown_rows(page)
    values = [float(text) for _, text in first]
    assert values == sorted(values), values
    lowest = dict(
        PairDisagreement.objects.filter(corpus=corpus).values_list("pair_id", "lowest_f1")
    )
    ids = [pk for pk, _ in first]
    assert [lowest[pk] for pk in ids] == sorted(lowest[pk] for pk in ids)
    rest = [value for pk, value in lowest.items() if pk not in set(ids)]
    assert max(lowest[pk] for pk in ids) <= min(rest)  # no pair left out disagrees more
    shot(page, "adjudication_sorted")
    with page.expect_navigation():
        page.click(".pager a[rel=next]")
    second = [float(text) for _, text in shown_rows(page)]
    assert values[-1] <= second[0] and second == sorted(second)
    page.go_back()
    return ids


def expected_majority(page: Any, url: str, pair_id: int) -> dict[tuple[int, int], str]:
    """The gold that accepting the server's majority for the whole of an empty gold gives: its
    links, and each tie on the kind of a link as possible (``adjudication_state.js``)."""
    body = page.request.get(f"{url}/api/pairs/{pair_id}/adjudication/").json()
    majority = body["majority"]
    assert len(majority["annotators"]) >= 3
    links = {(i, j): kind for i, j, kind in majority["links"]}
    for i, j in majority["kind_ties"]:
        links.setdefault((i, j), "P")
    return links


def gold_links(pair_id: int) -> dict[tuple[int, int], str]:
    gold = GoldAlignment.objects.get(pair_id=pair_id)
    return {(i, j): "S" if sure else "P" for i, j, sure in gold.links.values_list("i", "j", "sure")}


def gold_in_db(pair_id: int) -> tuple[int, str, dict[tuple[int, int], str]]:
    gold = GoldAlignment.objects.select_related("adjudicator").get(pair_id=pair_id)
    return gold.version, gold.adjudicator.username, gold_links(pair_id)


def accept_majority(page: Any, url: str, pair_id: int, who: str) -> dict[tuple[int, int], str]:
    """Step 5, one pair: accept the majority for the whole pair, read what changed, reload and
    find the gold saved."""
    page.click(f"#adj-table tr[data-pair='{pair_id}'] a.btn")
    page.wait_for_selector(ADJUDICATION_READY)
    assert "sort=disagreement" in page.url  # the pair remembers the list it came from
    expected = expected_majority(page, url, pair_id)
    assert expected, "the pair with the most disagreement still has a majority"
    assert page.inner_text("#save-status") == "No gold yet"
    page.click("button[data-action=accept-all]")
    page.wait_for_selector("#adj-message:has-text('Majority accepted')")
    message = page.inner_text("#adj-message")
    assert message.startswith(f"Majority accepted for the whole pair: {len(expected)} link"), (
        message
    )
    gold_saved(page, 1)
    page.wait_for_selector("#history li b:has-text('v1')")
    shot(page, "adjudicate")
    page.reload()
    page.wait_for_selector(ADJUDICATION_READY)
    gold_saved(page, 1)
    assert {(i, j): kind for i, j, kind in page.evaluate(GOLD_LINKS)} == expected
    history = page.locator("#history li").first.inner_text()
    assert history.startswith(f"v1 {who}"), history
    assert gold_in_db(pair_id) == (1, who, expected)
    return expected


def conflict(first: Any, second: Any, url: str, pair_id: int) -> None:
    """Step 6: two adjudicators open one pair; the first accepts the majority, the second's
    change then meets the conflict banner and merges."""
    for page in (first, second):
        page.goto(f"{url}/adjudicate/{pair_id}/?sort=disagreement")
        page.wait_for_selector(ADJUDICATION_READY)
    first.keyboard.press("Shift+A")
    gold_saved(first, 1)
    majority = {(i, j): kind for i, j, kind in first.evaluate(GOLD_LINKS)}
    pair = SentencePair.objects.get(pk=pair_id)
    cells = ((i, j) for i in range(pair.n_source) for j in range(pair.n_target))
    empty = next(cell for cell in cells if cell not in majority)
    second.locator(f"#grid tbody tr:nth-child({empty[0] + 1}) td:nth-child({empty[1] + 2})").click()
    banner = second.locator("#conflict")
    banner.wait_for(state="visible")
    text = banner.inner_text()
    assert "version 1 was saved by carol" in text and "Nothing is lost until you choose" in text
    assert "Conflict" in second.inner_text("#save-status")
    shot(second, "adjudication_conflict")
    second.get_by_role("button", name="Merge both").click()
    gold_saved(second, 2)
    assert gold_in_db(pair_id) == (2, "dave", {**majority, empty: "S"})


def jacana_links(item: dict[str, str]) -> dict[tuple[int, int], str]:
    links: dict[tuple[int, int], str] = {}
    for key, kind in (("sureAlign", "S"), ("possibleAlign", "P")):
        for link in item[key].split():
            i, j = link.split("-")
            links[(int(i), int(j))] = kind
    return links


def export_gold(page: Any, url: str, corpus: Corpus, tmp_path: Path) -> Path:
    """Step 7: the adjudicated gold as jacana JSON, built by the worker and downloaded."""
    page.goto(f"{url}/corpora/{corpus.pk}/")
    page.click("nav.tabs a:has-text('Export')")
    page.check("input[name=format][value=jacana]")
    page.check("#which-gold")
    with page.expect_navigation():
        page.click("#export-submit")
    assert "Export #" in page.inner_text(".messages")
    link = page.locator("#exports-table tbody tr").first.locator("a[download]")
    link.wait_for(timeout=JOB_TIMEOUT_MS)
    row = page.locator("#exports-table tbody tr").first.locator("td")
    assert row.nth(2).inner_text() == "gold"
    assert row.nth(4).inner_text() == "2"  # the pairs with gold, not every pair of the corpus
    shot(page, "export", full_page=True)
    with page.expect_download() as download:
        link.click()
    saved = tmp_path / download.value.suggested_filename
    download.value.save_as(saved)
    assert saved.name == "RTE-2-dev-jacana-gold.json"
    return saved


def reimport_gold(page: Any, url: str, exported: Path) -> Corpus:
    """Step 7, back: the exported file imported as a new corpus, its links as the gold."""
    page.goto(f"{url}/corpora/")
    page.fill("#id_corpus", "RTE-2 dev gold")
    page.select_option("#id_format", "jacana")
    page.set_input_files("#id_files", [str(exported)])
    with page.expect_navigation():
        page.click("#upload-submit")
    entry = page.locator("#import-jobs li").first
    entry.locator(".success, .errors").wait_for(timeout=JOB_TIMEOUT_MS)
    report = entry.inner_text()
    assert "Imported 2 pairs into RTE-2 dev gold, 2 gold alignments." in report, report
    shot(page, "reimport")
    return Corpus.objects.get(name="RTE-2 dev gold")


MODEL = "mt-rte2-ratings"


def train_scorer(page: Any, url: str, corpus: Corpus) -> None:
    """Step 8: RTE-2's pairs carry no gold score or label; the annotators' 0–5 ratings are the
    target, and the MT-metric SVM (Finch, Hwang & Sumita 2005) the quickest scorer to train."""
    page.goto(f"{url}/")
    page.click("header a:has-text('Scorers'), nav a:has-text('Scorers')")
    with page.expect_navigation():
        page.select_option("#train-corpus-choice", label=CORPUS)  # the choice submits itself
    split = page.locator("#targets-table tr[data-split='dev'] td")
    assert [split.nth(k).inner_text() for k in range(5)] == ["dev", "800", "0", "0", "100"]
    assert page.input_value("#train-target") == "rating"  # the one target RTE-2 dev has
    assert page.input_value("#train-train_split") == "dev"
    page.select_option("#train-kind", "mt")
    page.fill("#train-name", MODEL)
    with page.expect_navigation():
        page.click("#train-submit")
    assert "Training #" in page.inner_text(".messages")
    page.wait_for_selector(
        "#training-table .badge.succeeded, #training-table .badge.failed", timeout=JOB_TIMEOUT_MS
    )
    job = Job.objects.get(kind="train_scorer")
    assert job.status == "succeeded", job.error
    model = ScorerModel.objects.get(name=MODEL)
    assert (model.kind, model.corpus, model.training["pairs"]) == ("mt", corpus, BATCH)
    pearson = model.evaluation["train"]["pearson"]
    shown = page.locator(f"#scorer-table tr[data-model='{MODEL}']").inner_text()
    assert f"Pearson {pearson:.4f}" in shown, shown
    job_row = page.locator(f"#training-table tr[data-job='{job.pk}']").inner_text()
    assert f"trained on 100 pairs · train: Pearson {pearson:.4f}" in job_row, job_row
    shot(page, "scorers", full_page=True)


def agreement_csv(page: Any, url: str, corpus: Corpus, tmp_path: Path) -> None:
    """Step 9: a report of alice and bob with J = 50, and its CSV downloaded and read."""
    page.goto(f"{url}/corpora/{corpus.pk}/agreement/")
    boxes = page.locator("#run-annotators input")
    assert {box.get_attribute("value") for box in boxes.all()} == {"A", "B", "C", "alice", "bob"}
    for name in "ABC":
        page.uncheck(f"#run-annotators input[value={name}]")
    page.fill("#run-samples", "50")
    page.fill("#run-seed", "11")
    with page.expect_navigation():
        page.click("#run-submit")
    page.wait_for_selector(
        "#reports-table .badge.succeeded, #reports-table .badge.failed", timeout=JOB_TIMEOUT_MS
    )
    job = Job.objects.get(kind="agreement_report")
    assert job.status == "succeeded", job.error
    with page.expect_navigation():
        page.click(f"#reports-table a[href='?report={job.pk}']")
    page.wait_for_selector("#table3 table.paper")
    assert page.inner_text("#report-title") == f"Report #{job.pk}"
    shot(page, "agreement", full_page=True)
    link = page.get_by_role("link", name="Download CSV")
    with page.expect_download() as caught:
        link.click()
    saved = tmp_path / caught.value.suggested_filename
    caught.value.save_as(saved)
    assert saved.name == f"agreement_report-{job.pk}.csv"
    with saved.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    assert rows[0] == list(CSV_COLUMNS)
    report = CorpusReport.from_dict(job.result)
    expected = list(report.csv_rows())
    assert len(rows) - 1 == len(expected)
    keys = [tuple(row[:6]) for row in rows[1:]]
    assert len(set(keys)) == len(keys), "one row per table, annotators, group, column, measure"
    assert {row[0] for row in rows[1:]} >= {"table3", "table4", "figure4", "table5"}
    for row, (*cells, value, _) in zip(rows[1:], expected, strict=True):
        assert row[:6] == [str(cell) for cell in cells]
        assert row[6] == ("" if value is None else repr(float(value)))
    f1 = {(row[3], row[4], row[5]): row[6] for row in rows[1:] if row[0] == "table3"}
    overall = float(f1[("overall", "poss", "f1")])
    assert f"{100 * overall:.1f}%" in page.inner_text("#table3")


def test_a_research_group_runs_a_campaign_on_rte2_from_the_pages(
    page_for: Any,
    live_server: Any,
    start_worker: Any,  # noqa: F811
    settings: Any,
    tmp_path: Path,
    shared_data: Path,
) -> None:
    var = tmp_path / "var"  # the worker's VAR_DIR: uploads and exports are shared files
    settings.UPLOAD_DIR = var / "uploads"
    settings.EXPORT_DIR = var / "exports"
    worker = start_worker(broker_urls()[0])
    pages = []

    def page_of(user: Any) -> Any:
        pages.append(page_for(user, viewport=(1280, 800)))
        return pages[-1]

    page = page_of(make_user("admin", roles.ADMIN))
    url = live_server.url

    files = [shared_data / "rte2-alignments" / f"RTE2_dev_{x}.align.txt" for x in "ABC"]
    corpus = import_rte2(page, url, files)
    prefill(page, url, corpus)
    alice = make_user("alice", roles.ANNOTATOR, password=PASSWORD)
    bob = make_user("bob", roles.ANNOTATOR, password=PASSWORD)
    plan(page, url, corpus)

    for user, rating, copy_of, offset in ((alice, "3.5", "A", 0.0), (bob, "4", "C", 0.5)):
        annotate_in_the_workspace(page_of(user), url, user, rating)
        assert annotate_through_the_api(url, user, copy_of, offset) == BATCH - 1
    ours = Assignment.objects.filter(pair__corpus=corpus, annotator__in=[alice, bob])
    assert ours.filter(status=Assignment.Status.SUBMITTED).count() == 2 * BATCH

    carol = page_of(make_user("carol", roles.ADJUDICATOR))
    order = adjudication_list(carol, url, corpus)
    accept_majority(carol, url, order[0], "carol")
    conflict(carol, page_of(make_user("dave", roles.ADJUDICATOR)), url, order[1])

    exported = export_gold(page, url, corpus, tmp_path)
    items = {item["id"]: item for item in json.loads(exported.read_text(encoding="utf-8"))}
    copy = reimport_gold(page, url, exported)
    adjudicated = SentencePair.objects.filter(corpus=corpus, gold__isnull=False)
    golds = {pair.external_id: gold_links(pair.pk) for pair in adjudicated}
    assert set(golds) == {pair.external_id for pair in adjudicated.filter(pk__in=order[:2])}
    again = {
        pair.external_id: gold_links(pair.pk)
        for pair in SentencePair.objects.filter(corpus=copy, gold__isnull=False)
    }
    assert {pk: jacana_links(item) for pk, item in items.items()} == again == golds
    for pair in SentencePair.objects.filter(corpus=copy):
        original = adjudicated.get(external_id=pair.external_id)
        assert (pair.source_tokens, pair.target_tokens) == (
            original.source_tokens,
            original.target_tokens,
        )

    train_scorer(page, url, corpus)
    agreement_csv(page, url, corpus, tmp_path)

    assert worker.poll() is None, Path(worker.log_path).read_text()[-3000:]
    assert all(j.worker.startswith("itest0@") for j in Job.objects.all())
    assert [p.js_errors for p in pages] == [[]] * len(pages)
