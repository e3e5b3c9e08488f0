"""An `em` prefill job cancelled while EM trains stops between two chunks of an E-step, not at
the end of the step (minutes on a large corpus)."""

from __future__ import annotations

import pytest

from annotate import jobs_runtime
from annotate.models import AutoAlignment, Corpus, Job
from annotate.services.corpora import corpus_import_records
from scoring.aligners import em
from scoring.aligners.em_kernels import model1_estep
from tests.annotate.records import make_record

pytestmark = [pytest.mark.django_db, pytest.mark.postgres, pytest.mark.usefixtures("eager_chunks")]


def test_a_cancel_stops_an_em_prefill_between_two_chunks_of_an_e_step(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from annotate.services.jobs import job_cancel

    corpus_import_records(
        corpus_name="c", records=[make_record(f"p{k}", prefill=None) for k in range(12)]
    )
    job = Job.objects.create(
        kind="prefill", corpus=Corpus.objects.get(name="c"), parameters={"aligner": "em"}
    )
    monkeypatch.setattr(jobs_runtime, "PROGRESS_MIN_INTERVAL", 0.0)
    monkeypatch.setattr(em, "FIRST_CHUNK", 2)
    monkeypatch.setattr(em, "CHUNK_SECONDS", 0.0)  # chunks of one pair after the first
    steps: list[int] = []  # pairs of each E-step call

    def cancelled_in_the_second_chunk(*args: object) -> float:
        steps.append(len(args[0]))  # type: ignore[arg-type]
        if len(steps) == 3:  # the second chunk's first direction
            job_cancel(job=job)
        return model1_estep(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(em, "model1_estep", cancelled_in_the_second_chunk)
    assert jobs_runtime.job_run(job_id=job.pk, worker="test") == Job.Status.CANCELLED
    # Two pairs, then one, in both directions: it stopped once the chunk under way was done.
    assert steps == [2, 2, 1, 1]
    assert not AutoAlignment.objects.filter(pair__corpus__name="c").exists()


def test_the_corpus_rows_of_a_prefill_hold_one_string_per_distinct_token() -> None:
    """Read as JSON, every token would be a string object of its own, held for the whole job."""
    from annotate.services.prefill import _corpus_rows

    corpus_import_records(
        corpus_name="c", records=[make_record(f"p{k}", prefill=None) for k in range(3)]
    )
    rows = _corpus_rows(Corpus.objects.get(name="c"))
    assert [src for _, src, _ in rows] == [["the", "cat", "sat", "on", "the", "mat"]] * 3
    tokens = [w for _, src, tgt in rows for w in src + tgt]
    assert len({id(w) for w in tokens}) == len(set(tokens))
