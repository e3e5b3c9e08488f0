"""The scorers page lists trained models beside the papers' figures."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from annotate.models import ScorerModel

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
