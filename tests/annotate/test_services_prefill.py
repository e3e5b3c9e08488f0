"""The prefill job: trains on the corpus, prefills only pairs nobody started (issue 6)."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from annotate.models import Assignment, AutoAlignment, Corpus, Job, SentencePair
from annotate.services import jobs
from annotate.services.corpora import corpus_import_records
from annotate.services.prefill import _finished_work, majority_alignment
from scoring.alignment import Alignment
from tests.annotate.records import make_record

pytestmark = [pytest.mark.django_db, pytest.mark.postgres]


def run_prefill(aligner: str) -> Job:
    job = Job.objects.create(
        kind="prefill", corpus=Corpus.objects.get(name="c"), parameters={"aligner": aligner}
    )
    jobs.job_run(job_id=job.pk, worker="test")
    job.refresh_from_db()
    return job


@pytest.fixture
def corpus() -> Corpus:
    corpus_import_records(
        corpus_name="c",
        records=[
            make_record("fresh", "The cat sat", "the cat was sitting", prefill=None),
            make_record("started", "a dog ran", "the dog runs", prefill="1-1"),
        ],
    )
    started = SentencePair.objects.get(external_id="started")
    Assignment.objects.create(
        pair=started,
        annotator=get_user_model().objects.create(username="ann"),
        status=Assignment.Status.IN_PROGRESS,
    )
    return Corpus.objects.get(name="c")


def test_it_prefills_the_pairs_nobody_started(corpus: Corpus) -> None:
    job = run_prefill("identity")
    assert job.status == "succeeded", job.error
    assert job.result["prefilled_pairs"] == 1
    assert job.result["skipped_started_pairs"] == 1
    fresh = AutoAlignment.objects.get(pair__external_id="fresh")
    assert fresh.aligner == "identity"
    assert {(link.i, link.j) for link in fresh.links.all()} == {(0, 0), (1, 1)}
    assert all(0 <= link.confidence <= 1 for link in fresh.links.all())
    started = AutoAlignment.objects.filter(pair__external_id="started")
    assert [a.aligner for a in started] == ["identity"], "the started pair keeps its prefill"
    assert list(started[0].links.values_list("i", "j")) == [(1, 1)]


def test_an_unknown_aligner_fails_the_job_with_the_known_names(corpus: Corpus) -> None:
    job = run_prefill("giza")
    assert job.status == "failed"
    assert "unknown aligner 'giza'" in job.error and "identity" in job.error


def test_majority_keeps_links_more_than_half_hold() -> None:
    a = Alignment.from_pharaoh("0-0 1-1 2?2", 3, 3)
    b = Alignment.from_pharaoh("0-0 1?1", 3, 3)
    c = Alignment.from_pharaoh("0?0 2?2", 3, 3)
    majority = majority_alignment([a, b, c])
    assert majority.sure == {(0, 0)}
    assert majority.possible == {(0, 0), (1, 1), (2, 2)}
    assert majority_alignment([a]) == a


def test_finished_work_prefers_gold_over_submitted_annotations() -> None:
    corpus_import_records(
        corpus_name="g",
        records=[
            make_record("with-gold", annotations={"x": "0-0"}, gold="1-1"),
            make_record("annotated", annotations={"x": "0-0 1-1", "y": "0-0"}),
            make_record("bare", prefill=None),
        ],
    )
    work = {
        SentencePair.objects.get(pk=pid).external_id: alignment
        for pid, alignment in _finished_work(Corpus.objects.get(name="g")).items()
    }
    assert set(work) == {"with-gold", "annotated"}
    assert work["with-gold"].sure == {(1, 1)}
    assert work["annotated"].sure == {(0, 0)}
