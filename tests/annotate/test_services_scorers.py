"""Training scorers on a stored corpus and scoring with them, by service, job and API."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.utils import timezone
from rest_framework.test import APIClient

from annotate import jobs_runtime, roles
from annotate.exceptions import Conflict
from annotate.models import Assignment, Corpus, Job, ScorerModel
from annotate.services import scorers
from annotate.services.corpora import corpus_import_records
from annotate.services.scorers import (
    ScorerTrainingError,
    scorer_score_texts,
    scorer_train,
    scorer_train_job_create,
    training_data,
)
from scoring.alignment.links import Alignment
from scoring.corpus import AnnotationRecord, PairRecord
from scoring.scorers.base import scorer_from_dict
from tests.scoring.scorers.test_scorers import PAIRS

pytestmark = [pytest.mark.django_db, pytest.mark.postgres]


@pytest.fixture(autouse=True)
def no_heartbeat_during_jobs(monkeypatch: pytest.MonkeyPatch) -> None:
    """The jobs here run in the test's transaction: on PostgreSQL the heartbeat thread's own
    connection cannot see the job, so a beat during a training slower than its interval took
    the job for cancelled."""
    monkeypatch.setattr(jobs_runtime, "HEARTBEAT_INTERVAL", 3600.0)


@pytest.fixture
def corpus() -> Corpus:
    records = []
    for index, (a, b, y) in enumerate(PAIRS * 2):
        src, tgt = a.split(), b.split()
        records.append(
            PairRecord(
                id=f"p{index}",
                source_tokens=src,
                target_tokens=tgt,
                source_text=a,
                target_text=b,
                split="train" if index < len(PAIRS) else "test",
                gold_score=y,
                annotations={
                    "rater": AnnotationRecord(
                        alignment=Alignment.empty(len(src), len(tgt)), rating=5.0 - y
                    )
                }
                if index < 3
                else {},
            )
        )
    corpus_import_records(corpus_name="sts", records=records)
    return Corpus.objects.get(name="sts")


def test_training_stores_the_model_and_its_evaluation_on_both_splits(corpus: Corpus) -> None:
    model = scorer_train(
        corpus=corpus,
        kind="pfsm",
        train_split="train",
        test_split="test",
        options={"cutoff": 0},
        name="toy",
    )
    assert model.name == "toy" and model.kind == "pfsm"
    assert model.training["pairs"] == len(PAIRS) and model.training["task"] == "regression"
    assert model.evaluation["train"]["n"] == len(PAIRS)
    assert model.evaluation["test"]["split"] == "test"
    texts = [(a, b) for a, b, _ in PAIRS]
    expected = scorer_from_dict(model.weights).predict([(a.split(), b.split()) for a, b in texts])
    assert scorer_score_texts(model=model, pairs=texts) == pytest.approx(list(expected))


def test_ratings_are_averaged_over_submitted_annotations(corpus: Corpus) -> None:
    pairs, targets = training_data(corpus, "train", "rating")
    assert len(pairs) == 3
    assert targets == [pytest.approx(5.0 - y) for _, _, y in PAIRS[:3]]
    Assignment.objects.filter(pair__external_id="p0").update(status=Assignment.Status.IN_PROGRESS)
    assert len(training_data(corpus, "train", "rating")[0]) == 2


def test_a_split_without_targets_is_refused(corpus: Corpus) -> None:
    with pytest.raises(ScorerTrainingError, match="has no split 'dev'; its splits: test, train"):
        scorer_train(corpus=corpus, kind="pfsm", train_split="dev", test_split=None)
    with pytest.raises(ScorerTrainingError, match="no pairs in split 'train' with a gold label"):
        scorer_train(
            corpus=corpus, kind="pfsm", train_split="train", test_split=None, target="gold_label"
        )


def test_the_job_trains_and_returns_the_evaluation(corpus: Corpus) -> None:
    job = Job.objects.create(
        kind="train_scorer",
        corpus=corpus,
        parameters={
            "kind": "pfsm",
            "train_split": "train",
            "test_split": "test",
            "options": {"cutoff": 0},
        },
    )
    assert jobs_runtime.job_run(job_id=job.pk, worker="w") == Job.Status.SUCCEEDED
    job.refresh_from_db()
    model = ScorerModel.objects.get(pk=job.result["model"])
    assert model.job_id == job.pk
    assert job.result["evaluation"]["test"]["n"] == len(PAIRS)


def _training_job(corpus: Corpus) -> Job:
    return Job.objects.create(
        kind="train_scorer",
        corpus=corpus,
        parameters={"kind": "pfsm", "train_split": "train", "options": {"cutoff": 0}},
    )


def test_a_training_cancelled_as_it_finishes_stores_no_model(
    corpus: Corpus, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The cancel wins cleanly, as for every other job: a training cancelled after it trained,
    before its model was stored, is cancelled with no model (the model and the job's success
    are written together, so no stored model belongs to a cancelled job)."""
    from annotate.services.jobs import job_cancel

    job = _training_job(corpus)
    evaluate = scorers.evaluate

    def evaluated_then_cancelled(*args: Any) -> Any:  # the last step before the model is stored
        figures = evaluate(*args)
        assert job_cancel(job=Job.objects.get(pk=job.pk))
        return figures

    monkeypatch.setattr(scorers, "evaluate", evaluated_then_cancelled)
    assert jobs_runtime.job_run(job_id=job.pk, worker="w") == Job.Status.CANCELLED
    job.refresh_from_db()
    assert job.status == "cancelled" and job.result is None
    assert not ScorerModel.objects.exists()


def test_a_stored_model_and_its_jobs_success_are_one_write(corpus: Corpus) -> None:
    """Once the model is stored its job has succeeded: a cancel then is refused."""
    from annotate.services.jobs import job_cancel

    job = _training_job(corpus)
    assert jobs_runtime.job_run(job_id=job.pk, worker="w") == Job.Status.SUCCEEDED
    job.refresh_from_db()
    assert ScorerModel.objects.get().pk == job.result["model"]
    assert not job_cancel(job=job)


def test_the_command_writes_the_evaluation(corpus: Corpus, tmp_path) -> None:
    out = tmp_path / "result.json"
    call_command(
        "train_scorer",
        "--kind",
        "pfsm",
        "--corpus",
        "sts",
        "--train-split",
        "train",
        "--test-split",
        "test",
        "--option",
        "cutoff=0",
        "--output",
        str(out),
    )
    assert '"pearson"' in out.read_text()


# --- API: each role gets an explicit status ----------------------------------------------------

EVERY_USER = {"annotator": 200, "adjudicator": 200, "admin": 200, "anon": 401}
ADMIN_ONLY = {"annotator": 403, "adjudicator": 403, "admin": 201, "anon": 401}


def client_for(persona: str) -> APIClient:
    client = APIClient()
    if persona != "anon":
        user = get_user_model().objects.create(username=persona)
        user.groups.add(roles.role_group(persona))
        client.force_authenticate(user)
    return client


@pytest.mark.parametrize("persona", list(EVERY_USER))
def test_scorer_list_permissions(corpus: Corpus, persona: str) -> None:
    scorer_train(
        corpus=corpus, kind="pfsm", train_split="train", test_split=None, options={"cutoff": 0}
    )
    response = client_for(persona).get("/api/scorers/")
    assert response.status_code == EVERY_USER[persona]
    if response.status_code == 200:
        assert response.json()[0]["evaluation"]["train"]["n"] == len(PAIRS)


@pytest.mark.parametrize("persona", list(EVERY_USER))
def test_score_permissions_and_answers(corpus: Corpus, persona: str) -> None:
    model = scorer_train(
        corpus=corpus,
        kind="pfsm",
        train_split="train",
        test_split=None,
        options={"cutoff": 0},
        name="m",
    )
    body = {"model": "m", "pairs": [["A man plays a guitar.", "A man is playing guitar."]]}
    response = client_for(persona).post("/api/score", body, format="json")
    assert response.status_code == EVERY_USER[persona]
    if response.status_code == 200:
        expected = scorer_score_texts(model=model, pairs=[tuple(body["pairs"][0])])
        assert response.json()["scores"] == pytest.approx(expected)
        low, high = min(y for _, _, y in PAIRS), max(y for _, _, y in PAIRS)
        assert response.json()["range"] == [low, high]  # the scores are clipped to it
        assert low <= response.json()["scores"][0] <= high


def test_score_names_what_is_wrong(corpus: Corpus) -> None:
    client = client_for("annotator")
    assert (
        client.post(
            "/api/score", {"model": "nope", "pairs": [["a", "b"]]}, format="json"
        ).status_code
        == 404
    )
    response = client.post("/api/score", {"model": "x", "pairs": [["only one"]]}, format="json")
    assert response.status_code == 400


@pytest.mark.parametrize("persona", list(ADMIN_ONLY))
def test_training_jobs_are_queued_only_by_admins(corpus: Corpus, persona: str) -> None:
    body = {"kind": "pfsm", "corpus": "sts", "train_split": "train"}
    response = client_for(persona).post("/api/scorers/train/", body, format="json")
    assert response.status_code == ADMIN_ONLY[persona]
    if response.status_code == 201:
        assert Job.objects.get(pk=response.json()["id"]).kind == "train_scorer"


def test_the_combined_scorer_trains_on_a_corpus_with_the_configured_ppdb(
    corpus: Corpus, settings, tmp_path
) -> None:
    ppdb = tmp_path / "ppdb.tsv"
    ppdb.write_text("automobile\tcar\n", encoding="utf-8")
    settings.PPDB_PATH = str(ppdb)
    model = scorer_train(
        corpus=corpus,
        kind="combined",
        train_split="train",
        test_split="test",
        options={"groups": ["align", "overlap"], "learner": "ridge", "folds": 2},
    )
    assert model.parameters["ppdb"] == str(ppdb)
    assert model.evaluation["test"]["n"] == len(PAIRS)
    client = APIClient()
    client.force_authenticate(get_user_model().objects.create(username="reader"))
    response = client.post(
        "/api/score", {"model": model.name, "pairs": [["a car", "an automobile"]]}, format="json"
    )
    assert response.status_code == 200, response.content
    expected = scorer_from_dict(model.weights).predict([(["a", "car"], ["an", "automobile"])])
    assert response.json()["scores"] == pytest.approx(list(expected))


@pytest.mark.parametrize(
    ("options", "code", "field", "message"),
    [
        ({"epochs": 5}, "invalid_option", "epochs", "unknown option 'epochs' for scorer 'pfsm'"),
        (
            {"cutoff": -1},
            "invalid_option",
            "cutoff",
            "'cutoff' of scorer 'pfsm' must be in [0, 100000]",
        ),
        ({"l2": "big"}, "invalid_option", "l2", "'l2' of scorer 'pfsm' must be a finite number"),
        (
            {"paraphrase_table": "/etc/passwd"},
            "scorer_training_failed",
            "paraphrase_table",
            "names a file on the server",
        ),
    ],
)
def test_bad_training_options_are_a_400_naming_the_option_and_queue_nothing(
    corpus: Corpus, options: dict[str, object], code: str, field: str, message: str
) -> None:
    body = {"kind": "pfsm", "corpus": "sts", "train_split": "train", "options": options}
    response = client_for("admin").post("/api/scorers/train/", body, format="json")
    assert response.status_code == 400
    error = response.json()["error"]
    assert (error["code"], error["field"]) == (code, field)
    assert message in error["message"]
    assert not Job.objects.filter(kind="train_scorer").exists()


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("name", "n" * 201),
        ("train_split", "s" * 51),
        ("test_split", "s" * 51),
        ("corpus", "c" * 101),
    ],
)
def test_a_training_request_longer_than_its_column_is_a_400_and_queues_nothing(
    corpus: Corpus, field: str, value: str
) -> None:
    body = {"kind": "pfsm", "corpus": "sts", "train_split": "train", field: value}
    response = client_for("admin").post("/api/scorers/train/", body, format="json")
    assert response.status_code == 400
    assert field in response.content.decode()
    assert not Job.objects.filter(kind="train_scorer").exists()


def test_a_training_job_stores_its_options_typed(corpus: Corpus) -> None:
    body = {"kind": "pfsm", "corpus": "sts", "train_split": "train", "options": {"l2": 1}}
    response = client_for("admin").post("/api/scorers/train/", body, format="json")
    assert response.status_code == 201
    job = Job.objects.get(pk=response.json()["id"])
    assert job.parameters["options"] == {"l2": 1.0}


def test_the_combined_scorers_ppdb_comes_from_the_settings_only(corpus: Corpus) -> None:
    with pytest.raises(ScorerTrainingError, match="comes from the server's setting PPDB_PATH"):
        scorer_train(
            corpus=corpus,
            kind="combined",
            train_split="train",
            test_split=None,
            options={"ppdb": "/etc/passwd"},
        )


def test_training_reports_each_perceptron_epoch_between_its_start_and_the_evaluation(
    corpus: Corpus,
) -> None:
    reports: list[tuple[float, str]] = []
    scorer_train(
        corpus=corpus,
        kind="perp",
        train_split="train",
        test_split=None,
        options={"epochs": 3},
        progress=lambda percent, message: reports.append((percent, message)),
    )
    messages = [message for _, message in reports]
    assert messages[0] == f"training perp on {len(PAIRS)} pairs"
    assert messages[-1] == "evaluating"
    epochs = [m.split(",")[0] for m in messages if m.startswith("perp: epoch ")]
    assert epochs == ["perp: epoch 1 of 3", "perp: epoch 2 of 3", "perp: epoch 3 of 3"]
    percents = [percent for percent, _ in reports]
    assert percents == sorted(percents) and percents[0] == 5 and percents[-1] == 85


# --- refused at the request, not once the job runs ---------------------------------------------


@pytest.mark.parametrize(
    ("body", "field", "message"),
    [
        (
            {"train_split": "dev"},
            "train_split",
            "corpus “sts” has no split 'dev'; its splits: test, train",
        ),
        (
            {"train_split": "train", "target": "gold_label"},
            "train_split",
            "corpus “sts” has no pairs in split 'train' with a gold label",
        ),
        (
            {"train_split": "train", "test_split": "held-out"},
            "test_split",
            "corpus “sts” has no split 'held-out'; its splits: test, train",
        ),
        (
            {"train_split": "train", "test_split": "train"},
            "test_split",
            "the test split 'train' is the training split; choose another split, or none to be "
            "measured on the training split",
        ),
        (
            {"train_split": "test", "target": "rating"},
            "train_split",
            "corpus “sts” has no pairs in split 'test' with an annotator's rating",
        ),
    ],
)
def test_a_split_without_training_data_is_a_400_naming_it_and_queues_nothing(
    corpus: Corpus, body: dict[str, str], field: str, message: str
) -> None:
    response = client_for("admin").post(
        "/api/scorers/train/", {"kind": "pfsm", "corpus": "sts", **body}, format="json"
    )
    assert response.status_code == 400, response.content
    error = response.json()["error"]
    assert (error["code"], error["field"]) == ("scorer_training_failed", field)
    assert error["message"] == message
    assert not Job.objects.filter(kind="train_scorer").exists()


def test_the_job_still_checks_the_split_when_it_runs(corpus: Corpus) -> None:
    job = scorer_train_job_create(corpus=corpus, kind="pfsm", train_split="train")
    Assignment.objects.all().delete()
    corpus.pairs.filter(split="train").update(gold_score=None)
    assert jobs_runtime.job_run(job_id=job.pk, worker="w") == Job.Status.FAILED
    job.refresh_from_db()
    assert "no pairs in split 'train' with a gold score" in job.error


def test_a_name_in_use_is_refused_at_the_request_and_queues_nothing(corpus: Corpus) -> None:
    scorer_train(
        corpus=corpus, kind="pfsm", train_split="train", test_split=None, options={"cutoff": 0}
    )
    taken = ScorerModel.objects.get().name
    body = {"kind": "perp", "corpus": "sts", "train_split": "train", "name": taken}
    response = client_for("admin").post("/api/scorers/train/", body, format="json")
    assert response.status_code == 409, response.content
    error = response.json()["error"]
    assert error["field"] == "name"
    assert error["message"] == f"there is already a scorer model named {taken!r}"
    assert not Job.objects.filter(kind="train_scorer").exists()


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("best\u202egnp.exe", "invisible or control character U+202E"),
        ("two\nlines", "invisible or control character U+000A"),
        ("zero\u200bwidth", "invisible or control character U+200B"),
        ("7", "may not be a number ('7')"),
        (" 12 ", "may not be a number ('12')"),
    ],
)
def test_a_name_not_shown_as_itself_or_read_as_an_id_is_refused_and_queues_nothing(
    corpus: Corpus, name: str, message: str
) -> None:
    """A bidirectional override showed ``best\u202egnp.exe`` on the scorers page as
    ``bestexe.png``; a model named ``7`` was out of reach by its name in ``/api/score``, which
    scored with model #7 instead."""
    body = {"kind": "perp", "corpus": "sts", "train_split": "train", "name": name}
    response = client_for("admin").post("/api/scorers/train/", body, format="json")
    assert response.status_code == 400, response.content
    error = response.json()["error"]
    assert error["field"] == "name" and message in error["message"]
    assert not Job.objects.filter(kind="train_scorer").exists()


def test_a_name_is_stored_without_its_surrounding_spaces(corpus: Corpus) -> None:
    job = scorer_train_job_create(corpus=corpus, kind="pfsm", train_split="train", name=" m1 ")
    assert job.parameters["name"] == "m1"


def test_a_name_a_queued_training_will_take_is_refused_but_the_same_request_reuses_it(
    corpus: Corpus,
) -> None:
    first = scorer_train_job_create(corpus=corpus, kind="pfsm", train_split="train", name="mine")
    again = scorer_train_job_create(corpus=corpus, kind="pfsm", train_split="train", name="mine")
    assert again.pk == first.pk and again.reused
    with pytest.raises(Conflict) as error:
        scorer_train_job_create(corpus=corpus, kind="perp", train_split="train", name="mine")
    assert error.value.extra["field"] == "name"
    assert error.value.message == (
        f"training job #{first.pk}, queued, will store a scorer model named 'mine'"
    )
    assert Job.objects.filter(kind="train_scorer").count() == 1


def test_two_trainings_finishing_in_the_same_second_store_two_models(
    corpus: Corpus, monkeypatch: pytest.MonkeyPatch
) -> None:
    from annotate.services import scorers as service

    instant = timezone.now()
    monkeypatch.setattr(service.timezone, "now", lambda: instant)
    jobs = [
        scorer_train_job_create(
            corpus=corpus, kind="pfsm", train_split="train", options={"cutoff": cutoff}
        )
        for cutoff in (0, 1)
    ]
    for job in jobs:
        assert jobs_runtime.job_run(job_id=job.pk, worker="w") == Job.Status.SUCCEEDED
    names = sorted(ScorerModel.objects.values_list("name", flat=True))
    stamp = f"{instant:%Y%m%d-%H%M%S}"
    assert names == sorted(f"pfsm-sts-train-{stamp}-job{job.pk}" for job in jobs)


def test_a_default_name_a_user_took_meanwhile_gets_a_suffix_instead_of_losing_the_model(
    corpus: Corpus, monkeypatch: pytest.MonkeyPatch
) -> None:
    from annotate.services import scorers as service

    instant = timezone.now()
    monkeypatch.setattr(service.timezone, "now", lambda: instant)
    job = scorer_train_job_create(corpus=corpus, kind="pfsm", train_split="train")
    default = f"pfsm-sts-train-{instant:%Y%m%d-%H%M%S}-job{job.pk}"
    scorer_train(corpus=corpus, kind="pfsm", train_split="train", test_split=None, name=default)
    assert jobs_runtime.job_run(job_id=job.pk, worker="w") == Job.Status.SUCCEEDED
    job.refresh_from_db()
    assert job.result["name"] == f"{default}-2"


def test_a_given_name_taken_while_the_job_waited_fails_it_before_training(
    corpus: Corpus, monkeypatch: pytest.MonkeyPatch
) -> None:
    from annotate.services import scorers as service

    job = scorer_train_job_create(corpus=corpus, kind="pfsm", train_split="train", name="mine")
    scorer_train(corpus=corpus, kind="pfsm", train_split="train", test_split=None, name="mine")
    monkeypatch.setattr(service, "get_scorer", lambda *a, **k: pytest.fail("it trained"))
    assert jobs_runtime.job_run(job_id=job.pk, worker="w") == Job.Status.FAILED
    job.refresh_from_db()
    assert job.error == "there is already a scorer model named 'mine'"


def test_a_given_name_taken_while_the_model_trained_keeps_the_model_under_a_suffix(
    corpus: Corpus,
) -> None:
    def meanwhile(percent: float, message: str) -> None:
        if not ScorerModel.objects.filter(name="mine").exists():
            ScorerModel.objects.create(kind="pfsm", name="mine", weights={})

    model = scorer_train(
        corpus=corpus,
        kind="pfsm",
        train_split="train",
        test_split=None,
        options={"cutoff": 0},
        name="mine",
        progress=meanwhile,
    )
    assert model.name == "mine-2" and model.training["name_requested"] == "mine"


def test_a_corpus_without_splits_is_named_plainly_in_refusals_and_model_names() -> None:
    records = [
        PairRecord(id=f"q{k}", source_tokens=a.split(), target_tokens=b.split(), gold_score=y)
        for k, (a, b, y) in enumerate(PAIRS)
    ]
    corpus_import_records(corpus_name="plain", records=records)
    corpus = Corpus.objects.get(name="plain")
    with pytest.raises(ScorerTrainingError) as refused:
        scorer_train_job_create(corpus=corpus, kind="pfsm", train_split="", target="gold_label")
    assert str(refused.value) == "corpus “plain” has no pairs without a split with a gold label"
    with pytest.raises(ScorerTrainingError, match=r"its splits: \(none\)$"):
        scorer_train_job_create(corpus=corpus, kind="pfsm", train_split="dev")
    model = scorer_train(corpus=corpus, kind="pfsm", train_split="", test_split=None)
    assert model.name.startswith("pfsm-plain-2") and "--" not in model.name


@pytest.fixture
def preloading(settings: Any, monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """``PRELOAD_SCORERS`` on in a process that has preloaded nothing yet; the kinds each
    background preload loads (instead of loading them)."""
    settings.PRELOAD_SCORERS = True
    monkeypatch.setattr(scorers, "_preloaded", set())
    loaded: list[list[str]] = []
    monkeypatch.setattr(scorers, "scorers_preload", lambda kinds: loaded.append(kinds) or {})
    return loaded


def test_a_web_process_preloads_each_kind_once_in_the_background(
    preloading: list[list[str]],
) -> None:
    thread = scorers.scorers_preload_start(kinds={"perp", "mt", "no-such-kind"})
    assert thread is not None
    thread.join()
    assert preloading == [["mt", "perp"]]
    assert scorers.scorers_preload_start(kinds={"mt"}) is None
    thread = scorers.scorers_preload_start(kinds={"mt", "pfsm"})
    assert thread is not None
    thread.join()
    assert preloading[-1] == ["pfsm"]


@pytest.mark.django_db(transaction=True)  # the preload thread reads the models itself
def test_a_web_process_preloads_the_stored_models_kinds_from_its_first_request(
    preloading: list[list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    for kind, name in (("perp", "a"), ("perp", "b"), ("ppda", "c")):
        ScorerModel.objects.create(kind=kind, name=name, training={}, evaluation={})
    started: list[threading.Thread | None] = []
    monkeypatch.setattr(scorers, "_preloading_pid", None)
    real_start = scorers.scorers_preload_start
    monkeypatch.setattr(scorers, "scorers_preload_start", lambda: started.append(real_start()))
    for _ in range(3):  # three requests
        scorers.scorers_preload_in_this_process()
    [thread] = started
    assert thread is not None
    thread.join()
    assert preloading == [["perp", "ppda"]]


def test_preloading_is_off_when_the_settings_say_so(
    preloading: list[list[str]], settings: Any
) -> None:
    settings.PRELOAD_SCORERS = False
    assert scorers.scorers_preload_start(kinds={"mt"}) is None
    assert preloading == []


def test_training_on_an_unknown_corpus_is_a_404_naming_it_as_every_lookup_by_name_does(
    corpus: Corpus,
) -> None:
    body = {"kind": "pfsm", "corpus": "nope", "train_split": "train"}
    response = client_for("admin").post("/api/scorers/train/", body, format="json")
    assert response.status_code == 404
    error = response.json()["error"]
    assert (error["message"], error["field"]) == ("there is no corpus named “nope”", "corpus")
    assert not Job.objects.filter(kind="train_scorer").exists()
