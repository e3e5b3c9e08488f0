"""The chance model a stored corpus's report uses: the prefill's edits only for annotations made
from that prefill, else link density with the reason stated in the report and its job."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import AbstractUser
from rest_framework.test import APIClient

from annotate import roles
from annotate.jobs_runtime import job_claim, job_run
from annotate.models import Annotation, AutoAlignment, Corpus, Job, SentencePair
from annotate.services.agreement import (
    AgreementReportError,
    agreement_chance_model,
    agreement_compute,
    agreement_inputs,
    agreement_job_create,
    agreement_params,
)
from annotate.services.annotations import annotation_open, annotation_submit
from annotate.services.corpora import corpus_import_records
from annotate.services.prefill import prefill_job_create
from tests.annotate.agreement_data import agreement_records as synthetic
from tests.annotate.factories import make_assignment, make_corpus, make_pair, make_user

pytestmark = pytest.mark.django_db

ANNOTATORS = ["ann1", "ann2"]


def _prefill(corpus: Corpus) -> None:
    job = prefill_job_create(corpus=corpus, aligner="identity")
    assert job_run(job_id=job.pk, worker="here") == Job.Status.SUCCEEDED


@pytest.fixture
def imported_without_prefill() -> Corpus:
    records = synthetic(pairs=6)
    for record in records:
        record.prefill = None
    corpus_import_records(corpus_name="imported", records=records)
    return Corpus.objects.get(name="imported")


def test_a_corpus_imported_with_its_prefill_uses_the_prefill(db: None) -> None:
    corpus_import_records(corpus_name="with", records=synthetic(pairs=6))
    corpus = Corpus.objects.get(name="with")
    records, made_without = agreement_inputs(corpus, ANNOTATORS)
    assert len(records) == 6 and made_without == set()
    _, choice = agreement_chance_model(corpus, ANNOTATORS)
    assert choice.name == "prefill"


@pytest.mark.usefixtures("eager_chunks")  # the prefill's chunks run here
def test_a_prefill_run_after_an_import_is_not_the_imported_annotations_prefill(
    imported_without_prefill: Corpus,
) -> None:
    _prefill(imported_without_prefill)
    assert AutoAlignment.objects.filter(pair__corpus=imported_without_prefill).count() == 6
    records, made_without = agreement_inputs(imported_without_prefill, ANNOTATORS)
    assert made_without == {(r.id, name) for r in records for name in ANNOTATORS}
    _, choice = agreement_chance_model(imported_without_prefill, ANNOTATORS)
    assert choice.name == "density"
    assert choice.reason.startswith(
        "12 annotations of 12 were made without the prefill (imported or started before it"
    )
    report = agreement_compute(
        corpus=imported_without_prefill,
        annotators=ANNOTATORS,
        params=agreement_params({"samples": 4}, 1),
    )
    assert report["signature"]["chance_model"] == "density"
    assert report["signature"]["chance_model_reason"] == choice.reason


@pytest.mark.usefixtures("eager_chunks")  # the prefill's chunks run here
def test_asking_for_the_prefill_model_anyway_keeps_it_with_a_warning(
    imported_without_prefill: Corpus,
) -> None:
    _prefill(imported_without_prefill)
    _, choice = agreement_chance_model(imported_without_prefill, ANNOTATORS, "prefill")
    assert choice.name == "prefill"
    assert choice.reason.startswith("chosen for this report; 12 annotations of 12 were made")


def _annotate_here(pair: SentencePair, user: AbstractUser) -> Annotation:
    assignment = make_assignment(pair, user)
    annotation = annotation_open(assignment=assignment, actor=user)
    return annotation_submit(assignment=assignment, actor=user, base_version=annotation.version)


def test_pairs_opened_after_the_prefill_use_it_and_one_opened_before_a_newer_one_does_not() -> None:
    alice, bob = make_user("alice"), make_user("bob")
    corpus = make_corpus("here")
    pairs = [make_pair(corpus, external_id=f"x{k}") for k in range(3)]
    for pair in pairs:
        for user in (alice, bob):
            _annotate_here(pair, user)
    _, choice = agreement_chance_model(corpus, ["alice", "bob"])
    assert choice.name == "prefill"

    # a prefill written while bob had x2 open (the job chose its pairs before he opened it)
    AutoAlignment.objects.create(pair=pairs[2], aligner="em")
    _, made_without = agreement_inputs(corpus, ["alice", "bob"])
    assert made_without == {("x2", "alice"), ("x2", "bob")}
    _, choice = agreement_chance_model(corpus, ["alice", "bob"])
    assert (choice.name, choice.reason.split(",")[0]) == (
        "density",
        "2 annotations of 6 were made without the prefill (imported or started before it existed)",
    )


@pytest.mark.usefixtures("eager_chunks")  # the prefill's chunks run here
def test_the_job_records_its_chance_model_reason_and_edit_lines_in_its_parameters(
    imported_without_prefill: Corpus, monkeypatch: pytest.MonkeyPatch
) -> None:
    from annotate.services import agreement as service

    _prefill(imported_without_prefill)
    monkeypatch.setattr(service, "agreement_chord_send", lambda **kwargs: None)
    job = agreement_job_create(corpus=imported_without_prefill, annotators=ANNOTATORS, samples=4)
    assert job_claim(job_id=job.pk, worker="here")
    service.agreement_run.runner(job, lambda percent, message: None)
    stored = Job.objects.get(pk=job.pk).parameters
    assert stored["chance_model"] == "density"
    assert stored["chance_model_requested"] == "auto"
    assert stored["chance_model_reason"].startswith("12 annotations of 12 were made without")
    intercept, slope, pairs = stored["edit_models"]["ann1"]["possible"]
    assert pairs == 6 and 0.0 <= intercept + slope * 10 <= 1.0


# --- refused at the request, not once the job runs ---------------------------------------------

NO_PREFILL = (
    "the prefill chance model needs a prefill, and none of the annotated pairs has one: "
    "prefill the corpus first, or use the density chance model"
)


def test_the_prefill_model_where_no_annotated_pair_has_a_prefill_is_refused_at_the_request(
    imported_without_prefill: Corpus,
) -> None:
    with pytest.raises(AgreementReportError) as error:
        agreement_job_create(
            corpus=imported_without_prefill, annotators=ANNOTATORS, chance_model="prefill"
        )
    assert error.value.message == NO_PREFILL
    assert error.value.extra["field"] == "chance_model"
    assert not Job.objects.exists()
    for model in ("auto", "density"):
        agreement_job_create(
            corpus=imported_without_prefill, annotators=ANNOTATORS, chance_model=model
        )
    assert Job.objects.count() == 2


def test_the_prefill_model_is_checked_on_the_chosen_sub_corpora_only() -> None:
    records = synthetic(pairs=6)
    for record in records[:3]:
        record.subcorpus, record.prefill = "bare", None
    for record in records[3:]:
        record.subcorpus = "prefilled"
    corpus_import_records(corpus_name="mixed", records=records)
    corpus = Corpus.objects.get(name="mixed")
    with pytest.raises(AgreementReportError, match="none of the annotated pairs has one"):
        agreement_job_create(
            corpus=corpus, annotators=ANNOTATORS, chance_model="prefill", subcorpora=["bare"]
        )
    job = agreement_job_create(corpus=corpus, annotators=ANNOTATORS, chance_model="prefill")
    assert job.parameters["chance_model"] == "prefill"


def test_a_report_on_annotators_without_submitted_work_is_refused_at_the_request(
    imported_without_prefill: Corpus,
) -> None:
    make_user("carol"), make_user("dave")
    with pytest.raises(AgreementReportError) as error:
        agreement_job_create(corpus=imported_without_prefill, annotators=["carol", "dave"])
    assert error.value.message == ("none of carol, dave has submitted work in corpus “imported”")
    assert error.value.extra["field"] == "annotators"
    assert not Job.objects.exists()


@pytest.mark.usefixtures("eager_chunks")  # the prefill's chunks run here
def test_the_job_still_refuses_the_prefill_model_when_the_prefill_went_away(
    imported_without_prefill: Corpus,
) -> None:
    _prefill(imported_without_prefill)
    job = agreement_job_create(
        corpus=imported_without_prefill, annotators=ANNOTATORS, chance_model="prefill"
    )
    AutoAlignment.objects.filter(pair__corpus=imported_without_prefill).delete()
    assert job_run(job_id=job.pk, worker="here") == Job.Status.FAILED
    assert Job.objects.get(pk=job.pk).error == NO_PREFILL


def test_the_api_answers_the_refusal_with_a_400_naming_the_chance_model(
    imported_without_prefill: Corpus,
) -> None:
    client = APIClient()
    client.force_authenticate(make_user("root", roles.ADMIN))
    response = client.post(
        f"/api/corpora/{imported_without_prefill.pk}/agreement/",
        {"annotators": ANNOTATORS, "chance_model": "prefill"},
        format="json",
    )
    assert response.status_code == 400, response.content
    error = response.json()["error"]
    assert (error["field"], error["message"]) == ("chance_model", NO_PREFILL)
    assert not Job.objects.exists()
