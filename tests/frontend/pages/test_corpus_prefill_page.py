"""A corpus's prefill tab, rendered on the server: the aligner's options as a form, running it
(only changed options are sent; bad ones are refused on their field), and the runs with their
scores, paged, sorted and live while one runs."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client

from annotate.models import Corpus, Job
from annotate.services.corpora import corpus_archive
from tests.annotate.factories import make_corpus, make_learnable_pair, make_pair
from tests.frontend.pages.forms import form_values

pytestmark = pytest.mark.django_db


@pytest.fixture
def corpus() -> Corpus:
    corpus = make_corpus("pre")
    for _ in range(2):
        make_pair(corpus)
    return corpus


def _run(corpus: Corpus, **fields: Any) -> Job:
    fields.setdefault("status", Job.Status.SUCCEEDED)
    fields.setdefault("parameters", {"aligner": "identity", "trigger": "request", "options": {}})
    return Job.objects.create(kind="prefill", corpus=corpus, **fields)


def _rows(html: str) -> list[int]:
    return [int(found) for found in re.findall(r'data-job="(\d+)"', html)]


def _text(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def test_each_run_shows_what_it_wrote_and_its_scores_against_the_gold(
    admin_client: Client, corpus: Corpus
) -> None:
    scores = {"precision": 0.9, "recall": 0.5, "f1": 0.643, "undefined": []}
    _run(
        corpus,
        parameters={"aligner": "em", "trigger": "request", "options": {"model1_iterations": 3}},
        result={
            "prefilled_pairs": 12,
            "skipped_started_pairs": 3,
            "links": 140,
            "warnings": [],
            "evaluation": {
                "pairs": 7,
                "trained_on_gold": False,
                "all_links": scores,
                "non_identical": {"precision": None, "recall": None, "f1": None, "undefined": []},
            },
        },
    )
    html = admin_client.get(f"/corpora/{corpus.pk}/prefill/").content.decode()
    row = _text(html.split('data-job="')[1].split("</tr>")[0])
    assert "em model1_iterations=3" in row
    assert "12 3 140 7 0.900 0.500 0.643 undefined" in row


@pytest.mark.parametrize(
    ("precision", "recall", "reason"),
    [
        (None, 0.0, "the prefill has no sure link between different words on these gold pairs"),
        (0.5, None, "the gold of these pairs has no sure link between different words"),
        (None, None, "neither the prefill nor the gold of these pairs has a sure link between"),
        (0.0, 0.0, "no link between different words matched"),
    ],
)
def test_an_undefined_f1_says_why(
    admin_client: Client, corpus: Corpus, precision: Any, recall: Any, reason: str
) -> None:
    """The em prefill of the demo corpus links no different words on its gold pairs: its
    non-identical F1 is undefined, and the cell says which count was empty."""
    scores = {"precision": precision, "recall": recall, "f1": None, "undefined": ["f1"]}
    defined = {"precision": 1.0, "recall": 0.6, "f1": 0.75, "undefined": []}
    evaluation = {"pairs": 4, "trained_on_gold": False, "all_links": defined}
    evaluation["non_identical"] = scores
    _run(
        corpus,
        result={
            "prefilled_pairs": 4,
            "skipped_started_pairs": 0,
            "links": 9,
            "evaluation": evaluation,
        },
    )
    html = admin_client.get(f"/corpora/{corpus.pk}/prefill/").content.decode()
    row = html.split('data-job="')[1].split("</tr>")[0]
    assert "0.750" in row
    titles = re.findall(r'class="undefined" title="([^"]*)"', row)
    assert len(titles) == 1 and titles[0].startswith(reason), titles


def test_a_run_without_gold_or_result_says_so_instead_of_zeros(
    admin_client: Client, corpus: Corpus
) -> None:
    _run(corpus, result={"prefilled_pairs": 2, "skipped_started_pairs": 0, "links": 4})
    _run(corpus, status=Job.Status.FAILED, error="the aligner ran out of memory")
    html = admin_client.get(f"/corpora/{corpus.pk}/prefill/").content.decode()
    failed, finished = html.split('data-job="')[1:3]
    assert "the aligner ran out of memory" in failed and "— — —" in _text(failed)
    assert "no gold" in finished


def test_a_cancelled_run_says_how_much_it_wrote_and_claims_no_gold_figure(
    admin_client: Client, corpus: Corpus
) -> None:
    _run(
        corpus,
        status=Job.Status.CANCELLED,
        result={"aligner": "supervised", "prefilled_pairs": 1400, "links": 30211},
    )
    html = admin_client.get(f"/corpora/{corpus.pk}/prefill/").content.decode()
    row = _text(html.split('data-job="')[1].split("</tr>")[0])
    assert "1,400" in row and "30,211" in row
    assert "no gold" not in row


def test_runs_are_paged_ten_at_a_time_newest_first_and_sort_by_status(
    admin_client: Client, corpus: Corpus
) -> None:
    runs = [_run(corpus) for _ in range(11)]
    first = admin_client.get(f"/corpora/{corpus.pk}/prefill/").content.decode()
    assert _rows(first) == [job.pk for job in runs[::-1][:10]]
    second = admin_client.get(f"/corpora/{corpus.pk}/prefill/?page=2").content.decode()
    assert _rows(second) == [runs[0].pk] and "11–11 of 11 runs" in second
    Job.objects.filter(pk=runs[4].pk).update(status=Job.Status.FAILED)
    by_status = admin_client.get(f"/corpora/{corpus.pk}/prefill/?sort=status").content.decode()
    assert _rows(by_status)[0] == runs[4].pk


def test_the_runs_fragment_is_live_while_a_run_is_queued_or_running(
    admin_client: Client, corpus: Corpus
) -> None:
    running = _run(corpus, status=Job.Status.RUNNING, progress=40, message="training em")
    html = admin_client.get(f"/corpora/{corpus.pk}/prefill/?fragment=runs").content.decode()
    assert html.lstrip().startswith('<div data-fragment="runs" data-live')
    assert "<html" not in html and "training em" in html and 'value="40"' in html
    Job.objects.filter(pk=running.pk).update(status=Job.Status.SUCCEEDED)
    html = admin_client.get(f"/corpora/{corpus.pk}/prefill/?fragment=runs").content.decode()
    assert "data-live" not in html


def test_a_running_prefill_is_cancelled_from_its_row_and_the_tab_comes_back(
    admin_client: Client, corpus: Corpus
) -> None:
    done = _run(corpus)
    running = _run(corpus, status=Job.Status.RUNNING, progress=40)
    html = admin_client.get(f"/corpora/{corpus.pk}/prefill/").content.decode()
    assert f'action="/jobs/{running.pk}/cancel/"' in html
    assert f'action="/jobs/{done.pk}/cancel/"' not in html
    response = admin_client.post(
        f"/jobs/{running.pk}/cancel/", {"next": f"/corpora/{corpus.pk}/prefill/?fragment=runs"}
    )
    assert response["Location"] == f"/corpora/{corpus.pk}/prefill/"
    assert Job.objects.get(pk=running.pk).status == Job.Status.CANCELLED


def test_the_figures_are_a_fragment_that_follows_the_runs(
    admin_client: Client, corpus: Corpus
) -> None:
    html = admin_client.get(f"/corpora/{corpus.pk}/prefill/?fragment=tiles").content.decode()
    assert html.lstrip().startswith(
        '<div class="counts" id="prefill-tiles" data-fragment="tiles" data-follows="runs">'
    )
    assert "<html" not in html and "of 2 pairs prefilled" in html


def test_no_run_yet_is_an_empty_state_that_says_where_a_prefill_came_from(
    admin_client: Client, corpus: Corpus
) -> None:
    html = admin_client.get(f"/corpora/{corpus.pk}/prefill/").content.decode()
    assert "No prefill run yet" in html and 'id="runs-table"' not in html
    assert "prefill came with the corpus" in html  # the pairs were made prefilled
    bare = make_corpus("bare")
    make_pair(bare, prefill=None)
    html = admin_client.get(f"/corpora/{bare.pk}/prefill/").content.decode()
    assert "No prefill run yet" in html and "came with the corpus" not in html


def test_the_form_shows_the_chosen_aligners_options_at_their_defaults(
    admin_client: Client, corpus: Corpus
) -> None:
    em = admin_client.get(f"/corpora/{corpus.pk}/prefill/").content.decode()
    assert 'name="opt_model1_iterations"' in em and 'name="aligner" value="em"' in em
    lexical = admin_client.get(f"/corpora/{corpus.pk}/prefill/?aligner=lexical").content.decode()
    assert 'name="aligner" value="lexical"' in lexical
    assert 'name="opt_model1_iterations"' not in lexical
    supervised = admin_client.get(f"/corpora/{corpus.pk}/prefill/?aligner=supervised")
    assert b'name="retrain_every"' in supervised.content


def test_running_a_prefill_queues_it_with_only_the_changed_options(
    admin_client: Client, corpus: Corpus
) -> None:
    form = admin_client.get(f"/corpora/{corpus.pk}/prefill/").content.decode()
    posted = form_values(form, "prefill-form")
    assert len(posted) > 10 and posted["aligner"] == ["em"]
    posted["opt_model1_iterations"] = ["2"]
    response = admin_client.post(f"/corpora/{corpus.pk}/prefill/run/", posted, follow=True)
    assert response.redirect_chain == [(f"/corpora/{corpus.pk}/prefill/?aligner=em", 302)]
    job = Job.objects.get(kind="prefill")
    assert job.parameters["aligner"] == "em"
    assert job.parameters["options"] == {"model1_iterations": 2}
    assert f"Prefill #{job.pk} queued" in response.content.decode()


def test_a_bad_option_is_refused_on_its_field_and_queues_nothing(
    admin_client: Client, corpus: Corpus
) -> None:
    response = admin_client.post(
        f"/corpora/{corpus.pk}/prefill/run/",
        {"aligner": "em", "opt_model1_iterations": "many"},
    )
    assert response.status_code == 400
    errors = response.content.decode().split('id="prefill-errors"')[1].split("</div>")[0]
    assert "Nothing was started." in errors
    assert "<li><b>model1 iterations</b>: Enter a whole number.</li>" in errors
    assert not Job.objects.exists()


def test_an_option_the_aligner_rejects_is_shown_and_queues_nothing(
    admin_client: Client, corpus: Corpus
) -> None:
    response = admin_client.post(
        f"/corpora/{corpus.pk}/prefill/run/", {"aligner": "em", "opt_model1_iterations": "-3"}
    )
    assert response.status_code == 400
    assert "model1_iterations" in response.content.decode()
    assert not Job.objects.exists()


def test_an_option_above_its_bound_is_refused_under_its_field_naming_the_range(
    admin_client: Client, corpus: Corpus
) -> None:
    response = admin_client.post(
        f"/corpora/{corpus.pk}/prefill/run/", {"aligner": "supervised", "opt_trees": "1000000000"}
    )
    assert response.status_code == 400
    errors = response.content.decode().split('id="prefill-errors"')[1].split("</div>")[0]
    assert (
        "<li><b>trees</b>: option &#x27;trees&#x27; of aligner &#x27;supervised&#x27; must be "
        "in [1, 2000], got 1000000000</li>"
    ) in errors
    assert not Job.objects.exists()


def test_an_unknown_aligner_is_refused(admin_client: Client, corpus: Corpus) -> None:
    response = admin_client.post(f"/corpora/{corpus.pk}/prefill/run/", {"aligner": "oracle"})
    assert response.status_code == 400
    assert "there is no aligner &#x27;oracle&#x27;" in response.content.decode()
    assert not Job.objects.exists()


def test_retraining_is_set_with_the_run(admin_client: Client, corpus: Corpus) -> None:
    make_learnable_pair(corpus)  # finished work to learn from
    response = admin_client.post(
        f"/corpora/{corpus.pk}/prefill/run/",
        {"aligner": "supervised", "retrain_every": "25"},
        follow=True,
    )
    corpus.refresh_from_db()
    assert (corpus.prefill_aligner, corpus.prefill_retrain_every) == ("supervised", 25)
    assert "supervised retrains after every 25 newly finished pairs." in response.content.decode()
    bad = admin_client.post(
        f"/corpora/{corpus.pk}/prefill/run/", {"aligner": "supervised", "retrain_every": "-1"}
    )
    assert bad.status_code == 400
    assert "Retrain automatically after every N newly finished pairs" in bad.content.decode()
    assert Job.objects.count() == 1


def test_a_supervised_prefill_without_finished_work_is_refused_and_keeps_no_setting(
    admin_client: Client, corpus: Corpus
) -> None:
    response = admin_client.post(
        f"/corpora/{corpus.pk}/prefill/run/", {"aligner": "supervised", "retrain_every": "25"}
    )
    assert response.status_code == 400
    errors = _text(response.content.decode().split('id="prefill-errors"')[1].split("</div>")[0])
    assert (
        "the supervised aligner learns from finished work (submitted annotations or gold "
        "alignments, the trial pairs&#x27; keys left out), and corpus “pre” has none "
        "yet"
    ) in errors
    assert not Job.objects.exists()
    corpus.refresh_from_db()
    assert (corpus.prefill_aligner, corpus.prefill_options) == ("", {})
    assert "retrains after every" not in response.content.decode()


def test_retraining_is_switched_off_without_queuing_a_prefill(
    admin_client: Client, corpus: Corpus
) -> None:
    make_learnable_pair(corpus)
    admin_client.post(
        f"/corpora/{corpus.pk}/prefill/run/", {"aligner": "supervised", "retrain_every": "25"}
    )
    assert Job.objects.count() == 1
    page = admin_client.get(f"/corpora/{corpus.pk}/prefill/").content.decode()
    assert f'action="/corpora/{corpus.pk}/prefill/retraining-off/"' in page
    response = admin_client.post(f"/corpora/{corpus.pk}/prefill/retraining-off/", follow=True)
    corpus.refresh_from_db()
    assert (corpus.prefill_aligner, corpus.prefill_options) == ("", {})
    assert Job.objects.count() == 1, "no prefill was queued to switch it off"
    html = response.content.decode()
    assert "Automatic retraining is off." in html
    assert "retraining-off" not in html


def test_the_retraining_figure_counts_pairs_finished_since_the_last_run(
    admin_client: Client, corpus: Corpus
) -> None:
    make_learnable_pair(corpus)
    admin_client.post(
        f"/corpora/{corpus.pk}/prefill/run/", {"aligner": "supervised", "retrain_every": "25"}
    )
    state = 'id="retraining-state">'
    page = admin_client.get(f"/corpora/{corpus.pk}/prefill/").content.decode()
    assert page.split(state)[1].startswith("0 finished since its last run")
    make_pair(corpus, gold=[(0, 0, True)])
    page = admin_client.get(f"/corpora/{corpus.pk}/prefill/").content.decode()
    assert page.split(state)[1].startswith("1 finished since its last run")


def test_retraining_on_a_corpus_whose_every_pair_is_finished_says_it_cannot_come(
    admin_client: Client,
) -> None:
    """An imported corpus with gold on every pair: no pair can be newly finished, so the page
    says that retraining will not come instead of promising it."""
    corpus = make_corpus("all-gold")
    for _ in range(2):
        make_learnable_pair(corpus)
    admin_client.post(
        f"/corpora/{corpus.pk}/prefill/run/", {"aligner": "supervised", "retrain_every": "5"}
    )
    page = _text(admin_client.get(f"/corpora/{corpus.pk}/prefill/").content.decode())
    assert "retrains after every 5 finished pairs" in page
    assert "but every pair is already finished: run it again above to retrain" in page
    assert "finished since its last run" not in page


def test_the_live_runs_fragment_counts_no_pair_and_still_says_where_a_prefill_came_from(
    admin_client: Client, corpus: Corpus
) -> None:
    """Refreshed every two seconds while a run is queued: counting the prefilled pairs went
    through every pair of the corpus each time."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    bare = make_corpus("bare")
    make_pair(bare, prefill=None)
    for shown, says in ((corpus, True), (bare, False)):
        with CaptureQueriesContext(connection) as queries:
            html = admin_client.get(f"/corpora/{shown.pk}/prefill/?fragment=runs").content
        assert (b"came with the corpus" in html) is says
        assert not any("COUNT" in q["sql"] and "sentencepair" in q["sql"] for q in queries)


def test_the_queue_order_is_set_on_the_prefill_tab(admin_client: Client, corpus: Corpus) -> None:
    """An admin without the Django admin chooses whether planned pairs open least sure first."""
    page = admin_client.get(f"/corpora/{corpus.pk}/prefill/").content.decode()
    assert f'action="/corpora/{corpus.pk}/prefill/queue-order/"' in page
    assert '<option value="position" selected>corpus order</option>' in page
    response = admin_client.post(
        f"/corpora/{corpus.pk}/prefill/queue-order/", {"order": "least_sure"}, follow=True
    )
    corpus.refresh_from_db()
    assert corpus.queue_order == Corpus.QueueOrder.LEAST_SURE
    html = _text(response.content.decode())
    assert "now open in least sure prefill first" in html
    assert not Job.objects.exists(), "setting the order queues nothing"


def test_an_unknown_queue_order_is_named_and_changes_nothing(
    admin_client: Client, corpus: Corpus
) -> None:
    response = admin_client.post(
        f"/corpora/{corpus.pk}/prefill/queue-order/", {"order": "random"}, follow=True
    )
    corpus.refresh_from_db()
    assert corpus.queue_order == Corpus.QueueOrder.POSITION
    assert "The queue order was not changed" in response.content.decode()
    assert "not &#x27;random&#x27;" in response.content.decode()


def test_the_queue_order_of_an_archived_corpus_is_refused_as_the_api_refuses_it(
    admin_client: Client, corpus: Corpus
) -> None:
    corpus_archive(corpus=corpus)
    page = admin_client.get(f"/corpora/{corpus.pk}/prefill/").content.decode()
    assert 'disabled aria-describedby="archived-notice" id="queue-order-submit"' in page
    response = admin_client.post(
        f"/corpora/{corpus.pk}/prefill/queue-order/", {"order": "least_sure"}, follow=True
    )
    corpus.refresh_from_db()
    assert corpus.queue_order == Corpus.QueueOrder.POSITION
    html = _text(response.content.decode())
    assert (
        "The queue order was not changed: corpus “pre” is archived: restore it before "
        "changing its queue order"
    ) in html.replace("&#x27;", "'")


def test_choosing_another_aligner_after_a_refused_run_opens_the_tab_not_the_run_address(
    admin_client: Client, corpus: Corpus
) -> None:
    # The refused run is answered at the address it was posted to, which takes posts only: the
    # aligner choice (a GET form sent as soon as the select changes) must name the tab.
    run_url = f"/corpora/{corpus.pk}/prefill/run/"
    refused = admin_client.post(run_url, {"aligner": "em", "opt_model1_iterations": "many"})
    assert refused.status_code == 400
    form = re.search(r'<form id="aligner-choice"[^>]*>', refused.content.decode())
    assert form is not None
    action = re.search(r'action="([^"]*)"', form.group(0))
    target = action.group(1) if action and action.group(1) else run_url
    chosen = admin_client.get(target, {"aligner": "identity"})
    assert chosen.status_code == 200
    assert "Run identity prefill" in chosen.content.decode()


def test_a_run_cancelled_from_the_page_refusing_a_second_run_returns_to_the_tab(
    admin_client: Client, corpus: Corpus
) -> None:
    # The refusal says "wait for it to end, or cancel it" at the address the form was posted
    # to, which takes posts only: the cancel button must bring the user back to the tab.
    running = _run(corpus, status=Job.Status.RUNNING, progress=40)
    refused = admin_client.post(f"/corpora/{corpus.pk}/prefill/run/", {"aligner": "identity"})
    assert refused.status_code == 400
    html = refused.content.decode()
    assert "or cancel it" in html
    cancel = html.split(f'action="/jobs/{running.pk}/cancel/"')[1].split("</form>")[0]
    after = re.search(r'name="next" value="([^"]*)"', cancel)
    assert after is not None
    response = admin_client.post(f"/jobs/{running.pk}/cancel/", {"next": after.group(1)})
    assert Job.objects.get(pk=running.pk).status == Job.Status.CANCELLED
    assert admin_client.get(response["Location"]).status_code == 200


def test_restoring_from_the_page_refusing_a_run_on_an_archived_corpus_returns_to_the_tab(
    admin_client: Client, corpus: Corpus
) -> None:
    corpus_archive(corpus=corpus)
    refused = admin_client.post(f"/corpora/{corpus.pk}/prefill/run/", {"aligner": "identity"})
    assert refused.status_code == 400
    restore = refused.content.decode().split(f'action="/corpora/{corpus.pk}/restore/"')[1]
    after = re.search(r'name="next" value="([^"]*)"', restore.split("</form>")[0])
    assert after is not None
    response = admin_client.post(f"/corpora/{corpus.pk}/restore/", {"next": after.group(1)})
    corpus.refresh_from_db()
    assert corpus.archived_at is None
    assert admin_client.get(response["Location"]).status_code == 200


def test_every_bad_option_of_a_post_is_refused_on_its_field_at_once(
    admin_client: Client, corpus: Corpus
) -> None:
    response = admin_client.post(
        f"/corpora/{corpus.pk}/prefill/run/",
        {"aligner": "em", "opt_p_null": "1", "opt_max_jump": "100000", "opt_floor": "0.5"},
    )
    assert response.status_code == 400
    errors = response.content.decode().split('id="prefill-errors"')[1].split("</div>")[0]
    assert "<b>p null</b>" in errors and "<b>max jump</b>" in errors
    assert "floor" not in errors  # a good option among them is not refused
    assert not Job.objects.exists()


def test_a_rule_joining_options_is_checked_on_the_options_that_pass_alone(
    admin_client: Client, corpus: Corpus
) -> None:
    # possible_threshold 0.6 alone breaks "possible ≤ sure" against the default sure 0.5; with
    # sure_threshold 0.9 it is fine, so only trees is refused
    response = admin_client.post(
        f"/corpora/{corpus.pk}/prefill/run/",
        {
            "aligner": "supervised",
            "opt_possible_threshold": "0.6",
            "opt_sure_threshold": "0.9",
            "opt_trees": "1000000000",
        },
    )
    assert response.status_code == 400
    errors = response.content.decode().split('id="prefill-errors"')[1].split("</div>")[0]
    assert "<b>trees</b>" in errors and "threshold" not in errors


def test_a_due_retraining_says_the_periodic_check_starts_it_and_how_often(
    admin_client: Client, corpus: Corpus, settings: Any
) -> None:
    settings.PREFILL_RETRAIN_CHECK_SECONDS = 300
    make_learnable_pair(corpus)
    admin_client.post(
        f"/corpora/{corpus.pk}/prefill/run/", {"aligner": "supervised", "retrain_every": "1"}
    )
    state = 'id="retraining-state">'
    page = admin_client.get(f"/corpora/{corpus.pk}/prefill/").content.decode()
    assert page.split(state)[1].startswith("0 finished since its last run</div>")
    make_pair(corpus, gold=[(0, 0, True)])
    page = admin_client.get(f"/corpora/{corpus.pk}/prefill/").content.decode()
    assert page.split(state)[1].startswith(
        "1 finished since its last run: due, it starts at the next check (every 5 minutes)"
    )
