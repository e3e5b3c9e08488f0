"""The scorers page lists trained models beside the papers' figures and scores a pair with one
of them (a GET form: it changes nothing); admins train a scorer on a corpus from it and follow
the job."""

from __future__ import annotations

import contextlib
import io
import re
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from annotate.models import Corpus, Job, ScorerModel
from annotate.services import scorers
from annotate.services.scorers import scorer_model_summary, scorer_score_texts, scorer_train
from scoring import cli as scoring_cli
from tests.annotate.test_services_scorers import corpus  # noqa: F401 - a fixture
from tests.frontend.pages.forms import form_values

pytestmark = pytest.mark.django_db


def test_strangers_are_sent_to_the_login_page() -> None:
    response = Client().get("/scorers/")
    assert response.status_code == 302 and "/login/" in response["Location"]


def test_it_lists_models_with_their_measures_and_the_papers_figures() -> None:
    ScorerModel.objects.create(
        kind="perp",
        name="perp-msrpar",
        training={"train_split": "train", "target": "gold_score", "pairs": 750},
        evaluation={"train": {"pearson": 0.71234}, "test": {"pearson": 0.62491, "spearman": None}},
    )
    client = Client()
    client.force_login(get_user_model().objects.create(username="reader"))
    page = client.get("/scorers/").content.decode()
    assert "perp-msrpar" in page and "Pearson 0.6249" in page and "Spearman undefined" in page
    assert "0.7808" in page, "PERP's ALL figure from Heilman & Madnani 2012, Table 2"
    assert "74.96" in page, "the MT-metric ALL figure from Finch, Hwang & Sumita 2005, Table 3"
    # as the papers print them, not as Python writes the floats (0.721, 74.2)
    assert '<td class="num">0.7210</td>' in page, "PERP on MSRvid"
    assert '<td class="num">0.5350</td>' in page, "pFSM on MSRvid, Wang & Cer 2012, Table 1"
    assert '<td class="num">74.20</td>' in page, "POS, Finch, Hwang & Sumita 2005, Table 3"
    assert 'id="score-form"' in page
    assert "<td>gold score (regression)</td>" in page and "gold_score" not in page


def test_without_models_it_says_how_to_train_one() -> None:
    client = Client()
    client.force_login(get_user_model().objects.create(username="reader"))
    page = client.get("/scorers/").content.decode()
    assert "No scorer has been trained yet" in page and 'id="score-form"' not in page


@pytest.fixture
def reader() -> Client:
    client = Client()
    client.force_login(get_user_model().objects.create(username="reader"))
    return client


@pytest.fixture
def model(corpus: Corpus) -> ScorerModel:  # noqa: F811 - the imported fixture
    return scorer_train(
        corpus=corpus,
        kind="pfsm",
        train_split="train",
        test_split=None,
        options={"cutoff": 0},
        name="m",
    )


def test_a_pair_is_scored_by_the_form_and_the_answer_shown(
    reader: Client, model: ScorerModel
) -> None:
    query = {
        "model": "m",
        "first": "a man is playing a guitar .",
        "second": "a man plays the guitar .",
    }
    response = reader.get("/scorers/", query)
    assert response.status_code == 200
    expected = scorer_score_texts(model=model, pairs=[[query["first"], query["second"]]])[0]
    html = response.content.decode()
    answer = html.split('<output id="score-result"', 1)[1].split("</output>", 1)[0]
    assert answer.endswith(f">similarity {expected:.3f}")
    assert 'value="a man plays the guitar ."' in html  # the form keeps it


def test_viewing_the_models_has_their_kinds_loaded_before_a_pair_is_scored(
    reader: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Whoever reads the list may score with one of them next: the web process loads what
    those kinds need in the background meanwhile, not inside the scoring request."""
    asked: list[set[str]] = []
    monkeypatch.setattr(scorers, "scorers_preload_start", lambda *, kinds: asked.append(set(kinds)))
    for kind, name in (("perp", "a"), ("mt", "b")):
        ScorerModel.objects.create(kind=kind, name=name, training={}, evaluation={})
    reader.get("/scorers/")
    assert asked == [{"perp", "mt"}]


@pytest.mark.parametrize(
    ("query", "field", "message"),
    [
        ({"model": "m", "first": "", "second": "b"}, "first", "This field is required."),
        ({"model": "gone", "first": "a", "second": "b"}, "model", "Select a valid choice."),
        ({"model": "m", "first": "w " * 300, "second": "b"}, "first", "sentence 1 has 300 tokens"),
    ],
)
def test_bad_input_is_shown_on_its_field_and_scores_nothing(
    reader: Client, model: ScorerModel, query: dict[str, str], field: str, message: str
) -> None:
    response = reader.get("/scorers/", query)
    assert response.status_code == 400
    html = response.content.decode()
    assert message in html.split(f'name="{field}"', 1)[1].split("</div>", 1)[0]
    assert 'id="score-result"' not in html


def test_a_pair_too_large_to_score_here_is_refused_in_the_pages_words(reader: Client) -> None:
    """The refusal names the pair as the page shows it (not the API's "pair 0") and the API's
    score jobs as the way to score it (the form has no body to send "the same body" of)."""
    ScorerModel.objects.create(kind="ppda", name="p", training={}, evaluation={})
    sentence = " ".join(f"w{i}" for i in range(17))
    response = reader.get("/scorers/", {"model": "p", "first": sentence, "second": sentence})
    assert response.status_code == 400
    html = response.content.decode()
    refusal = html.split('<div class="errors" role="alert">', 1)[1].split("</div>", 1)[0]
    assert refusal.startswith("the pair is 17 × 17 tokens: the ppda scorer scores pairs of at")
    assert "POST /api/score/jobs/" in refusal
    assert "pair 0" not in refusal and "same body" not in refusal and "in a request" not in refusal
    assert 'id="score-result"' not in html


def test_a_model_trained_on_the_pairs_without_a_split_says_so() -> None:
    ScorerModel.objects.create(
        kind="perp",
        name="no-split",
        training={"train_split": "", "target": "gold_score", "pairs": 750},
        evaluation={"train": {"pearson": 0.7}},
    )
    client = Client()
    client.force_login(get_user_model().objects.create(username="reader"))
    page = client.get("/scorers/").content.decode()
    row = page.split('<tr data-model="no-split">', 1)[1].split("</tr>", 1)[0]
    assert "<td>(none) (750 pairs)</td>" in row


def test_a_models_measures_are_one_a_line_so_a_narrow_table_breaks_between_them() -> None:
    """At 1024px the train and test columns broke "Pearson 0.7990, Spearman 0.7983" in four
    places; each measure is now a line of its own that does not break, and the table keeps
    within the page (the model file's link is under the model's name, not a column)."""
    ScorerModel.objects.create(
        kind="perp",
        name="two-measures",
        training={"train_split": "train", "target": "gold_score", "pairs": 9},
        evaluation={
            "train": {"pearson": 0.7, "spearman": 0.6},
            "test": {"pearson": None, "note": "constant predictions"},
        },
    )
    client = Client()
    client.force_login(get_user_model().objects.create(username="reader"))
    page = client.get("/scorers/").content.decode()
    row = page.split('<tr data-model="two-measures">', 1)[1].split("</tr>", 1)[0]
    cells = re.findall(r"<td[^>]*>(.*?)</td>", row)
    assert cells[5] == (
        '<div class="nowrap">Pearson 0.7000</div><div class="nowrap">Spearman 0.6000</div>'
    )
    assert cells[6] == (
        '<div class="nowrap">Pearson undefined</div>'
        '<div class="muted small">constant predictions</div>'
    )


# --- training from the page (admins) -------------------------------------------------------


def _post_training(client: Client, chosen: Corpus, **changes: str) -> Any:
    html = client.get("/scorers/", {"corpus": chosen.pk}).content.decode()
    values = form_values(html, "train-form")
    values.update({name: [value] for name, value in changes.items()})
    return client.post("/scorers/train/", values)


def test_an_admin_sees_each_split_with_the_pairs_that_have_each_target(
    admin_client: Client,
    corpus: Corpus,  # noqa: F811 - the imported fixture
) -> None:
    html = admin_client.get("/scorers/", {"corpus": corpus.pk}).content.decode()
    table = html.split('id="targets-table"', 1)[1].split("</table>", 1)[0]
    cells = re.findall(r'data-split="(\w+)"><td>\w+</td>((?:<td class="num">[\d,]+</td>)+)', table)
    counts = {split: re.findall(r">([\d,]+)<", row) for split, row in cells}
    # split: pairs, with a gold score, with a gold label, rated (the first three are rated)
    assert counts == {"test": ["8", "8", "0", "0"], "train": ["8", "8", "0", "3"]}
    values = form_values(html, "train-form")
    assert values["corpus"] == [str(corpus.pk)]
    # as many pairs in each split: trained on train, tested on test
    assert (values["target"], values["train_split"]) == (["gold_score"], ["train"])
    assert values["test_split"] == ["test"]


def test_a_corpus_of_labels_only_opens_the_form_on_a_scorer_that_classifies(
    admin_client: Client,
) -> None:
    from annotate.services.corpora import corpus_import_records
    from scoring.corpus import PairRecord

    corpus_import_records(
        corpus_name="labels",
        records=[
            PairRecord(id=f"p{k}", source_tokens=["a"], target_tokens=["b"], gold_label=k % 2)
            for k in range(4)
        ],
    )
    labels = Corpus.objects.get(name="labels")
    html = admin_client.get("/scorers/", {"corpus": labels.pk}).content.decode()
    values = form_values(html, "train-form")
    assert (values["kind"], values["target"]) == (["mt"], ["gold_label"])
    assert ">perp — TERp edit features · regression<" in html
    assert ">mt — MT metrics, RBF SVM · regression, classification<" in html


def test_annotators_see_the_models_but_not_the_training(
    reader: Client,
    corpus: Corpus,  # noqa: F811 - the imported fixture
) -> None:
    html = reader.get("/scorers/").content.decode()
    assert 'id="train-form"' not in html and 'id="training-table"' not in html
    response = reader.post("/scorers/train/", {"corpus": corpus.pk, "kind": "mt"})
    assert response.status_code == 403
    assert not Job.objects.filter(kind="train_scorer").exists()


@pytest.mark.parametrize("number", ["²", "9" * 30])
def test_a_corpus_that_is_no_id_is_said_and_nothing_is_queued(
    admin_client: Client, number: str
) -> None:
    response = admin_client.post("/scorers/train/", {"corpus": number, "kind": "mt"}, follow=True)
    assert response.status_code == 200
    assert f"There is no corpus #{number} in use to train on" in response.content.decode()
    assert not Job.objects.filter(kind="train_scorer").exists()


def test_the_form_queues_a_training_job_and_the_page_follows_it(
    admin_client: Client,
    corpus: Corpus,  # noqa: F811 - the imported fixture
) -> None:
    response = _post_training(
        admin_client, corpus, kind="pfsm", target="rating", train_split="train", test_split=""
    )
    assert response.status_code == 302
    assert response["Location"] == f"/scorers/?corpus={corpus.pk}"
    job = Job.objects.get(kind="train_scorer")
    assert job.corpus == corpus and job.owner.username == "admin"
    assert job.parameters == {
        "kind": "pfsm",
        "train_split": "train",
        "test_split": None,
        "target": "rating",
        "options": {},
        "name": None,
    }
    html = admin_client.get(response["Location"]).content.decode()
    assert f"Training #{job.pk} queued" in html
    fragment = admin_client.get("/scorers/", {"fragment": "training"}).content.decode().strip()
    assert fragment.startswith('<div data-fragment="training" data-live')
    assert f'data-job="{job.pk}"' in fragment and "annotators&#x27; mean rating" in fragment


def test_a_finished_job_shows_its_model_with_the_measures(
    admin_client: Client,
    model: ScorerModel,
) -> None:
    Job.objects.create(
        kind="train_scorer",
        status=Job.Status.SUCCEEDED,
        corpus=model.corpus,
        parameters={"kind": "pfsm", "train_split": "train", "target": "gold_score"},
        result=scorer_model_summary(model),
    )
    fragment = admin_client.get("/scorers/", {"fragment": "training"}).content.decode().strip()
    assert fragment.startswith('<div data-fragment="training" aria-live')  # nothing runs
    pearson = model.evaluation["train"]["pearson"]
    assert f"trained on {model.training['pairs']} pairs · train: Pearson {pearson:.4f}" in fragment
    assert 'data-model="m"' in fragment


def test_the_form_that_scores_a_pair_is_a_fragment_that_follows_the_training(
    admin_client: Client, model: ScorerModel
) -> None:
    html = admin_client.get("/scorers/", {"fragment": "score"}).content.decode()
    assert html.lstrip().startswith('<div data-fragment="score" data-follows="training">')
    assert 'id="score-form"' in html and '<option value="m">' in html and "<html" not in html


@pytest.mark.parametrize(
    ("changes", "field", "message"),
    [
        (
            {"target": "gold_label"},
            "target",
            "no pairs in split &#x27;train&#x27; with a gold label",
        ),
        ({"target": "rating", "test_split": "test"}, "test", "with an annotator&#x27;s rating"),
        ({"kind": "neural"}, "kind", "Select a valid choice"),
        ({"train_split": "dev"}, "train_split", "Select a valid choice"),
    ],
)
def test_a_choice_that_cannot_train_is_refused_on_its_field_and_queues_nothing(
    admin_client: Client,
    corpus: Corpus,  # noqa: F811 - the imported fixture
    changes: dict[str, str],
    field: str,
    message: str,
) -> None:
    response = _post_training(admin_client, corpus, **changes)
    assert response.status_code == 400
    html = response.content.decode()
    errors = html.split('id="train-errors"', 1)[1].split("</div>", 1)[0]
    assert message in errors
    assert not Job.objects.filter(kind="train_scorer").exists()


def test_the_training_form_opens_on_a_corpus_with_gold_values(
    admin_client: Client,
    corpus: Corpus,  # noqa: F811 - the imported fixture, "sts", with gold scores
) -> None:
    from annotate.services.corpora import corpus_import_records
    from scoring.corpus import PairRecord

    unscored = PairRecord(id="u1", source_tokens=["a", "b"], target_tokens=["a", "c"])
    corpus_import_records(corpus_name="a-unscored", records=[unscored])
    values = form_values(admin_client.get("/scorers/").content.decode(), "train-corpus")
    assert values["corpus"] == [str(corpus.pk)], "the first corpus by name has nothing to train on"
    unscored_pk = Corpus.objects.get(name="a-unscored").pk
    asked = admin_client.get(f"/scorers/?corpus={unscored_pk}").content.decode()
    assert form_values(asked, "train-corpus")["corpus"] == [str(unscored_pk)]


def test_a_training_its_scorer_could_only_fail_is_refused_on_the_split_and_queues_nothing(
    admin_client: Client,
) -> None:
    from annotate.services.corpora import corpus_import_records
    from scoring.corpus import PairRecord

    corpus_import_records(
        corpus_name="labelled",
        records=[
            PairRecord(
                id=f"p{label}",
                source_tokens=["a", "b"],
                target_tokens=["a", "c"],
                split="train",
                gold_label=label,
            )
            for label in (0, 1)
        ],
    )
    labelled = Corpus.objects.get(name="labelled")
    response = _post_training(
        admin_client, labelled, kind="mt", target="gold_label", train_split="train", test_split=""
    )
    assert response.status_code == 400
    errors = response.content.decode().split('id="train-errors"', 1)[1].split("</div>", 1)[0]
    assert (
        "the mt scorer cannot train on the 2 pairs of split &#x27;train&#x27; with a gold label: "
        "5-fold cross-validation needs ≥ 5 pairs of each label, got 1 of label 0 and 1 of label 1"
    ) in errors
    assert not Job.objects.filter(kind="train_scorer").exists()


def test_an_admin_downloads_a_model_that_the_command_line_scores_with(
    admin_client: Client, reader: Client, model: ScorerModel, tmp_path: Any
) -> None:
    page = admin_client.get("/scorers/").content.decode()
    assert f'href="/scorers/{model.pk}/model.json"' in page
    response = admin_client.get(f"/scorers/{model.pk}/model.json")
    assert response.status_code == 200
    assert response["Content-Disposition"] == 'attachment; filename="m.pfsm.json"'
    path = tmp_path / "m.pfsm.json"
    path.write_bytes(response.content)
    pairs = tmp_path / "pairs.tsv"
    pairs.write_text("a man is playing a guitar .\ta man plays the guitar .\n", encoding="utf-8")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert scoring_cli.main(["score", "--model", str(path), "--input", str(pairs)]) == 0
    expected = scorer_score_texts(
        model=model, pairs=[["a man is playing a guitar .", "a man plays the guitar ."]]
    )[0]
    # the same float, not one rounded to print: measures taken from it are the page's
    assert float(out.getvalue().split()[0]) == expected
    assert f"/scorers/{model.pk}/model.json" not in reader.get("/scorers/").content.decode()
    assert reader.get(f"/scorers/{model.pk}/model.json").status_code == 403
