"""A corpus's agreement tab, rendered on the server: the reports with their chance model, its
reason and its parameters; a report read as the paper prints it, saying what each figure rests
on; running one, bad input refused on its field with nothing queued."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from html import unescape
from typing import Any

import pytest
from django.test import Client

from annotate import roles
from annotate.models import Corpus, Job
from annotate.services.corpora import corpus_import_records
from scoring.alignment.agreement import AgreementParams
from scoring.alignment.reports import CHANCE_MODELS, build_report
from scoring.corpus import length_bin_labels
from tests.annotate.agreement_data import agreement_records
from tests.annotate.factories import make_user
from tests.frontend.pages.forms import form_values

pytestmark = pytest.mark.django_db

NAMES = ["ann1", "ann2"]
REASON = "24 annotations of 48 were made without the prefill (imported or started before it)"


@pytest.fixture(scope="module")
def records() -> list[Any]:
    return agreement_records(24)


@pytest.fixture(scope="module")
def report(records: list[Any]) -> dict[str, Any]:
    built = build_report(
        records,
        NAMES,
        params=AgreementParams(samples=10, seed=2),
        chance_model="density",
        chance_model_reason=REASON,
    )
    return json.loads(json.dumps(built.to_dict()))


@pytest.fixture
def corpus(records: list[Any]) -> Corpus:
    corpus_import_records(corpus_name="agr", records=records)
    return Corpus.objects.get(name="agr")


def _report_job(corpus: Corpus, report: dict[str, Any] | None, **fields: Any) -> Job:
    fields.setdefault("status", Job.Status.SUCCEEDED)
    fields.setdefault(
        "parameters",
        {
            "annotators": NAMES,
            "samples": 10,
            "chance_model": "density",
            "chance_model_requested": "auto",
            "chance_model_reason": REASON,
            "edit_models": {"ann1": {"possible": [0.041, 0.0002, 24]}},
        },
    )
    return Job.objects.create(
        kind="agreement_report", corpus=corpus, seed=2, result=report, **fields
    )


def _rows(html: str) -> list[int]:
    return [int(found) for found in re.findall(r'data-job="(\d+)"', html)]


def _section(html: str, element_id: str, end: str = "</section>") -> str:
    return html.split(f'id="{element_id}"')[1].split(end)[0]


def _text(html: str) -> str:
    return unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", html)))


def test_the_reports_list_states_each_reports_chance_model_reason_and_parameters(
    admin_client: Client, corpus: Corpus, report: dict[str, Any]
) -> None:
    done = _report_job(corpus, report)
    waiting = _report_job(
        corpus,
        None,
        status=Job.Status.PENDING,
        parameters={"annotators": NAMES, "samples": 10, "chance_model": "auto"},
    )
    html = admin_client.get(f"/corpora/{corpus.pk}/agreement/").content.decode()
    assert _rows(html) == [waiting.pk, done.pk]
    row = _text(html.split(f'data-job="{done.pk}"')[1].split("</tr>")[0])
    assert "density" in row and REASON in row
    assert "ann1: 4.10% + 0.020% · (N + M), 24 pairs" in row
    assert "decided when it runs" in html.split(f'data-job="{waiting.pk}"')[1].split("</tr>")[0]


def test_the_report_says_which_chance_model_why_and_its_fitted_lines(
    admin_client: Client, corpus: Corpus, report: dict[str, Any]
) -> None:
    job = _report_job(corpus, report)
    html = admin_client.get(f"/corpora/{corpus.pk}/agreement/").content.decode()
    card = _text(_section(html, "chance-model", "</div>\n\n"))
    assert f"Chance model: {CHANCE_MODELS['density']}" in card
    assert "no prefill in the corpus" not in html
    assert f"Why: {REASON}." in card
    lines = _section(html, "edit-models", "</table>")
    model = report["edit_models"]["ann2"]["sure"]
    assert f"{model['intercept']:.5f}" in lines and f">{model['n_pairs']}<" in lines
    assert f'href="/api/jobs/{job.pk}/result/?format=csv" download>Download CSV' in html


def test_tables_3_and_4_say_they_count_non_identical_links_and_what_c_hat_rests_on(
    admin_client: Client, corpus: Corpus, report: dict[str, Any]
) -> None:
    _report_job(corpus, report)
    html = admin_client.get(f"/corpora/{corpus.pk}/agreement/").content.decode()
    table3 = _section(html, "table3")
    assert "Table 3 · words · non-identical links" in table3
    overall = report["annotator_pairs"][0]["table3"]["overall"]
    c_hat = overall["c_hat"]["poss"]
    assert f"{c_hat['c_hat']:.3f}" in table3
    assert f"over {c_hat['pairs_used']} of {overall['pairs']} pairs" in table3
    assert f"{100 * overall['poss']['f1']:.1f}%" in table3
    assert "Table 4 · atomic phrase pairs · non-identical phrase pairs" in html


def test_all_links_show_the_scores_with_identical_links_and_keep_c_hat_non_identical(
    admin_client: Client, corpus: Corpus, report: dict[str, Any]
) -> None:
    job = _report_job(corpus, report)
    html = admin_client.get(f"/corpora/{corpus.pk}/agreement/?report={job.pk}&items=all")
    table3 = _section(html.content.decode(), "table3")
    overall = report["annotator_pairs"][0]["table3"]["overall"]
    assert "Table 3 · words · all links" in table3
    assert f"{100 * overall['with_identical']['poss']['f1']:.1f}%" in table3
    assert "Ĉ (non-identical)" in table3
    assert f"{overall['c_hat']['poss']['c_hat']:.3f}" in table3
    assert "Table 5 · each annotator against the prefill" in html.content.decode()


def test_kappa_and_alpha_say_how_many_items_and_pairs_they_rest_on(
    admin_client: Client, corpus: Corpus, report: dict[str, Any]
) -> None:
    _report_job(corpus, report)
    html = admin_client.get(f"/corpora/{corpus.pk}/agreement/").content.decode()
    standard = _text(_section(html, "standard-card"))
    overall = report["standard"]["overall"]
    assert f"{overall['fleiss_kappa']['value']:.3f}" in standard
    assert (
        f"{overall['n_items']:,} items in {overall['n_pairs']:,} pairs annotated by all of "
        "ann1, ann2"
    ) in standard


def test_figure_4_is_an_svg_in_the_one_binning_with_a_legend_and_choices(
    admin_client: Client, corpus: Corpus, report: dict[str, Any]
) -> None:
    job = _report_job(corpus, report)
    html = admin_client.get(f"/corpora/{corpus.pk}/agreement/").content.decode()
    figure = _section(html, "figure4-card")
    assert figure.count("data-series=") == 3
    assert "π̂ observed" in figure and "π̂0 chance" in figure and "Ĉ chance-corrected" in figure
    shown = re.findall(r'text-anchor="middle">([0-9+–]+)</text>', figure)
    labels = length_bin_labels()
    assert shown and shown == labels[labels.index(shown[0]) : labels.index(shown[0]) + len(shown)]
    news = admin_client.get(
        f"/corpora/{corpus.pk}/agreement/?report={job.pk}&group=news&level=phrase_atomic"
    ).content.decode()
    assert "by length, news, atomic" in news
    bins = report["annotator_pairs"][0]["figure4"]["news"]["phrase_atomic"]
    assert f"{sum(b['pairs'] for b in bins)} pairs" in _text(_section(news, "figure4-card"))


def test_the_least_agreed_pairs_open_in_adjudication(
    admin_client: Client, corpus: Corpus, report: dict[str, Any]
) -> None:
    ranking = report["pair_ranking"]
    ranking[0]["metadata"] = {"pk": 4242}
    _report_job(corpus, report)
    html = admin_client.get(f"/corpora/{corpus.pk}/agreement/").content.decode()
    table = _section(html, "disagreements-card")
    # in the corpus's adjudication list, least agreed first: `n` goes on to the next of them
    assert f'href="/adjudicate/4242/?corpus={corpus.pk}&amp;sort=disagreement">compare' in table
    assert f"{len(ranking)} pairs ranked" in _text(table)


def test_an_older_report_opens_from_the_list_and_an_unknown_one_is_said(
    admin_client: Client, corpus: Corpus, report: dict[str, Any]
) -> None:
    older = _report_job(corpus, report)
    newer = _report_job(corpus, report)
    default = admin_client.get(f"/corpora/{corpus.pk}/agreement/").content.decode()
    assert f"Report #{newer.pk}" in default and f'href="?report={older.pk}"' in default
    assert (
        f"Report #{older.pk}"
        in admin_client.get(f"/corpora/{corpus.pk}/agreement/?report={older.pk}").content.decode()
    )
    missing = admin_client.get(f"/corpora/{corpus.pk}/agreement/?report=999999").content
    assert b"There is no finished report #999999 of this corpus." in missing


def test_the_reports_fragment_pages_and_is_live_while_a_report_runs(
    admin_client: Client, corpus: Corpus
) -> None:
    reports = [_report_job(corpus, None, status=Job.Status.FAILED) for _ in range(11)]
    second = admin_client.get(f"/corpora/{corpus.pk}/agreement/?page=2").content.decode()
    assert _rows(second) == [reports[0].pk]
    Job.objects.filter(pk=reports[-1].pk).update(status=Job.Status.RUNNING, progress=30)
    fragment = admin_client.get(f"/corpora/{corpus.pk}/agreement/?fragment=reports").content
    assert fragment.decode().lstrip().startswith('<div data-fragment="reports" data-live')
    assert b"<html" not in fragment


def test_a_running_report_is_cancelled_from_its_row(admin_client: Client, corpus: Corpus) -> None:
    done = _report_job(corpus, None)
    running = _report_job(corpus, None, status=Job.Status.RUNNING, progress=5)
    html = admin_client.get(f"/corpora/{corpus.pk}/agreement/?fragment=reports").content.decode()
    assert f'action="/jobs/{running.pk}/cancel/"' in html
    assert f'action="/jobs/{done.pk}/cancel/"' not in html


def test_the_report_is_a_fragment_that_follows_the_reports(
    admin_client: Client, corpus: Corpus, report: dict[str, Any]
) -> None:
    empty = admin_client.get(f"/corpora/{corpus.pk}/agreement/?fragment=report").content
    assert empty.decode().split() == [
        "<div",
        'data-fragment="report"',
        'data-follows="reports">',
        "</div>",
    ]
    job = _report_job(corpus, report)
    html = admin_client.get(f"/corpora/{corpus.pk}/agreement/?fragment=report").content.decode()
    assert html.lstrip().startswith('<div data-fragment="report" data-follows="reports">')
    assert f"Report #{job.pk}" in html and 'id="figure4"' in html and "<html" not in html
    asked = admin_client.get(f"/corpora/{corpus.pk}/agreement/?report=999999&fragment=report")
    assert b'id="report"' not in asked.content
    page = admin_client.get(f"/corpora/{corpus.pk}/agreement/").content.decode()
    assert "There is no finished report" not in page, "a fragment's answer says nothing later"


def test_the_message_of_a_queued_report_names_its_job_for_the_page_to_follow(
    admin_client: Client, corpus: Corpus
) -> None:
    page = admin_client.get(f"/corpora/{corpus.pk}/agreement/").content.decode()
    values = form_values(page, "run-form")
    answer = admin_client.post(f"/corpora/{corpus.pk}/agreement/run/", values, follow=True)
    job = Job.objects.get(kind="agreement_report")
    html = answer.content.decode()
    assert (
        f'<li class="notice success" data-notice-job="{job.pk}" data-what="Report">'
        f"Report #{job.pk} queued; its progress is shown below.</li>"
    ) in html
    assert re.search(rf'<tr data-job="{job.pk}" data-job-status="{job.status}">', html)


def test_no_report_yet_is_an_empty_state(admin_client: Client, corpus: Corpus) -> None:
    html = admin_client.get(f"/corpora/{corpus.pk}/agreement/").content.decode()
    assert "No report yet" in html and 'id="report"' not in html


def test_without_two_annotators_who_submitted_the_run_button_is_off_and_says_why(
    admin_client: Client, records: list[Any]
) -> None:
    bare = [replace(record, annotations={}) for record in records]
    corpus_import_records(corpus_name="fresh", records=bare)
    corpus = Corpus.objects.get(name="fresh")
    html = admin_client.get(f"/corpora/{corpus.pk}/agreement/").content.decode()
    button = html.split('id="run-submit"')[1].split(">")[0]
    assert "disabled" in button
    assert "nobody has submitted work here so far" in _text(html)


def test_running_a_report_queues_it_for_the_people_ticked(
    admin_client: Client, corpus: Corpus
) -> None:
    page = admin_client.get(f"/corpora/{corpus.pk}/agreement/").content.decode()
    values = form_values(page, "run-form")
    assert values["annotators"] == NAMES, "ann3's work is in progress, not submitted"
    values |= {"samples": ["50"], "seed": ["9"], "chance_model": ["prefill"]}
    response = admin_client.post(f"/corpora/{corpus.pk}/agreement/run/", values)
    assert response.status_code == 302
    job = Job.objects.get(kind="agreement_report")
    assert job.parameters["annotators"] == NAMES and job.parameters["samples"] == 50
    assert job.parameters["chance_model"] == "prefill" and job.seed == 9
    assert job.parameters["subcorpora"] == []  # every sub-corpus ticked: the whole corpus


def test_the_form_starts_from_the_settings_of_the_users_last_report(
    admin_client: Client, corpus: Corpus
) -> None:
    page = admin_client.get(f"/corpora/{corpus.pk}/agreement/").content.decode()
    values = form_values(page, "run-form")
    assert values["samples"] == ["1000"] and values["seed"] == ["0"]
    values |= {"samples": ["50"], "seed": ["9"], "chance_model": ["prefill"]}
    admin_client.post(f"/corpora/{corpus.pk}/agreement/run/", values)
    job = Job.objects.get(kind="agreement_report")
    job.parameters |= {"chance_model": "density", "chance_model_requested": "prefill"}
    job.save()  # the worker records the model it chose beside the one asked for
    again = form_values(
        admin_client.get(f"/corpora/{corpus.pk}/agreement/").content.decode(), "run-form"
    )
    assert again["samples"] == ["50"] and again["seed"] == ["9"]
    assert again["chance_model"] == ["prefill"] and again["annotators"] == NAMES
    other = Client()
    other.force_login(make_user("admin2", roles.ADMIN))
    theirs = form_values(other.get(f"/corpora/{corpus.pk}/agreement/").content.decode(), "run-form")
    assert theirs["samples"] == ["1000"], "another admin starts from the defaults"


@pytest.mark.parametrize(
    ("changes", "field", "message"),
    [
        ({"annotators": ["ann1"]}, "Annotators", "Choose at least two annotators."),
        ({"subcorpora": []}, "Sub-corpora", "Choose at least one sub-corpus."),
        ({"samples": ["0"]}, "Samples J", "Ensure this value is greater than or equal to 1."),
        ({"seed": ["x"]}, "Seed", "Enter a whole number."),
        ({"chance_model": ["coin"]}, "Chance model", "Select a valid choice"),
    ],
)
def test_a_bad_report_request_is_refused_on_its_field_and_queues_nothing(
    admin_client: Client, corpus: Corpus, changes: dict[str, list[str]], field: str, message: str
) -> None:
    page = admin_client.get(f"/corpora/{corpus.pk}/agreement/").content.decode()
    values = form_values(page, "run-form") | changes
    response = admin_client.post(f"/corpora/{corpus.pk}/agreement/run/", values)
    assert response.status_code == 400
    errors = response.content.decode().split('id="run-errors"')[1].split("</div>")[0]
    assert f"<b>{field}</b>: {message}" in errors, errors
    assert not Job.objects.exists()


def test_the_prefill_model_on_a_corpus_without_prefill_is_refused_on_its_field(
    admin_client: Client, records: list[Any]
) -> None:
    bare = [replace(record, prefill=None) for record in records]
    corpus_import_records(corpus_name="bare", records=bare)
    corpus = Corpus.objects.get(name="bare")
    page = admin_client.get(f"/corpora/{corpus.pk}/agreement/").content.decode()
    values = form_values(page, "run-form") | {"chance_model": ["prefill"]}
    response = admin_client.post(f"/corpora/{corpus.pk}/agreement/run/", values)
    assert response.status_code == 400
    errors = unescape(response.content.decode().split('id="run-errors"')[1].split("</div>")[0])
    assert (
        "<b>Chance model</b>: the prefill chance model needs a prefill, and none of the "
        "annotated pairs has one"
    ) in errors, errors
    assert not Job.objects.exists()


def test_a_report_whose_job_lacks_parameters_is_listed_with_dashes(
    admin_client: Client, corpus: Corpus, report: dict[str, Any]
) -> None:
    job = _report_job(corpus, report, parameters={})
    response = admin_client.get(f"/corpora/{corpus.pk}/agreement/")
    assert response.status_code == 200
    row = _text(response.content.decode().split(f'data-job="{job.pk}"')[1].split("</tr>")[0])
    assert "—" in row and f"Report #{job.pk}" in response.content.decode()


def test_annotators_with_no_pair_in_common_are_said_and_not_opened_first(
    admin_client: Client, corpus: Corpus, report: dict[str, Any]
) -> None:
    """Every annotator is ticked by default, and some share no pair: their tab says so, and
    the report opens on the first tab whose figures are defined."""
    apart = {**report["annotator_pairs"][0], "candidate": "ann3", "reference": "ann1", "pairs": 0}
    shared = report["annotator_pairs"][0]
    job = _report_job(corpus, {**report, "annotator_pairs": [apart, shared]})
    html = admin_client.get(f"/corpora/{corpus.pk}/agreement/").content.decode()
    tabs = _section(html, "pair-tabs", "</nav>")
    current = _text(tabs.split('aria-current="page"')[1].split("</a>")[0])
    assert f"ann1 vs ann2 {shared['pairs']} pairs" in current
    assert "ann3 vs ann1 none in common" in _text(tabs)
    assert 'id="no-shared-pairs"' not in html
    apart_html = admin_client.get(
        f"/corpora/{corpus.pk}/agreement/", {"report": job.pk, "pair": 0}
    ).content.decode()
    notice = _text(_section(apart_html, "no-shared-pairs", "</p>"))
    assert "ann3 and ann1 annotated no pair in common" in notice


@pytest.mark.parametrize("number", ["²", "٣", "9" * 30, "9" * 5000])
def test_a_report_or_tab_number_that_is_no_id_is_said_like_an_unknown_report(
    admin_client: Client, corpus: Corpus, report: dict[str, Any], number: str
) -> None:
    _report_job(corpus, report)
    page = f"/corpora/{corpus.pk}/agreement/"
    missing = admin_client.get(page, {"report": number})
    assert missing.status_code == 200
    assert f"There is no finished report #{number} of this corpus." in missing.content.decode()
    assert admin_client.get(page, {"fragment": "reports", "report": number}).status_code == 200
    shown = admin_client.get(page, {"pair": number})  # the first pair's tab, as without one
    assert shown.status_code == 200 and "Table 3" in shown.content.decode()


def test_table5_counts_each_annotators_own_pairs_when_they_differ(
    admin_client: Client, corpus: Corpus, report: dict[str, Any]
) -> None:
    # alice annotated 4 pairs and bob 5: a header "(4)" over both rows says bob's row rests on
    # alice's pairs
    uneven = json.loads(json.dumps(report))
    first, second = uneven["table5"][:2]
    for group in second["groups"].values():
        group["pairs"] = first["groups"][next(iter(first["groups"]))]["pairs"] + 1
    _report_job(corpus, uneven)
    table5 = _section(
        admin_client.get(f"/corpora/{corpus.pk}/agreement/").content.decode(), "table5"
    )
    headers = re.findall(r'<th colspan="3" scope="colgroup">([^<]+)</th>', table5)
    assert headers and not any("(" in header for header in headers)
    for entry in (first, second):
        pairs = entry["groups"][next(iter(entry["groups"]))]["pairs"]
        assert f"over {pairs} pairs" in table5


def test_table5_keeps_the_shared_count_in_its_header(
    admin_client: Client, corpus: Corpus, report: dict[str, Any]
) -> None:
    _report_job(corpus, report)
    table5 = _section(
        admin_client.get(f"/corpora/{corpus.pk}/agreement/").content.decode(), "table5"
    )
    pairs = report["table5"][0]["groups"][next(iter(report["table5"][0]["groups"]))]["pairs"]
    assert f"({pairs})</th>" in table5 and "over " not in table5
