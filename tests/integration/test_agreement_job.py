"""The agreement job's chord on real workers gives the numbers of a single process."""

from __future__ import annotations

import pytest

from annotate.models import Corpus, Job
from annotate.services.agreement import agreement_compute, agreement_job_create, agreement_params
from annotate.services.corpora import corpus_import_records
from tests.annotate.agreement_data import agreement_records
from tests.integration.conftest import broker_urls, wait_until

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def test_two_workers_split_the_monte_carlo_and_agree_with_one_process(start_worker) -> None:
    corpus_import_records(corpus_name="agr", records=agreement_records(pairs=40))
    corpus = Corpus.objects.get(name="agr")
    broker = broker_urls()[0]
    first = start_worker(broker)
    start_worker(broker)
    job = agreement_job_create(
        corpus=corpus, annotators=["ann1", "ann2"], samples=200, seed=5, chunk_pairs=7
    )

    def finished() -> bool:
        job.refresh_from_db()
        return job.is_finished

    wait_until(finished, 180, f"agreement job {job.pk}", first)
    assert job.status == Job.Status.SUCCEEDED, job.error
    assert job.result["chunks"] == 6
    print(f"agreement job {job.pk}: {job.result['chunks']} chunks, {job.message}")

    local = agreement_compute(
        corpus=corpus,
        annotators=["ann1", "ann2"],
        params=agreement_params({"samples": 200}, 5),
    )
    assert job.result["annotator_pairs"] == local["annotator_pairs"]
    assert job.result["table5"] == local["table5"]
    c_hat = job.result["annotator_pairs"][0]["table4"]["overall"]["c_hat"]["poss"]
    assert c_hat["c_hat"] is not None and 0 < c_hat["pi0_hat"] < 1
