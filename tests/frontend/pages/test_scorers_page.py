"""The scorers page lists trained models beside the papers' figures and scores a pair with one
of them (a GET form: it changes nothing)."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from annotate.models import Corpus, ScorerModel
from annotate.services.scorers import scorer_score_texts, scorer_train
from tests.annotate.test_services_scorers import corpus  # noqa: F401 - a fixture

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
    assert 'id="score-form"' in page


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
