"""An agreement report's progress grows as its Monte Carlo chunks end, whatever their number:
a report on 12,000 pairs has 240 chunks of 50, fewer than half a percent each."""

from __future__ import annotations

import random
from typing import Any

import pytest

from annotate.jobs_runtime import job_chunk_done
from annotate.models import Job
from annotate.services import agreement as service
from tests.annotate.factories import make_corpus

pytestmark = pytest.mark.django_db


def _shares_sent(monkeypatch: pytest.MonkeyPatch, chunks: int) -> list[float]:
    """The share of progress each chunk task of the report's chord is sent with."""
    sent: list[Any] = []
    monkeypatch.setattr(service, "chord", lambda header: sent.extend(header) or (lambda _: None))
    service.agreement_chord_send(job_id=1, chunks=[[k] for k in range(chunks)], models={})
    return [signature.args[3] for signature in sent]


@pytest.mark.parametrize("chunks", [1, 7, 95, 240, 1000])
def test_the_chunks_progress_adds_up_and_grows_with_the_chunks_done(
    monkeypatch: pytest.MonkeyPatch, chunks: int
) -> None:
    shares = _shares_sent(monkeypatch, chunks)
    assert len(shares) == chunks
    job = Job.objects.create(
        kind="agreement_report", corpus=make_corpus(), status=Job.Status.RUNNING, progress=5
    )
    random.Random(0).shuffle(shares)  # chunks end in any order
    half = chunks // 2
    for share in shares[:half]:
        job_chunk_done(job_id=job.pk, share=share, message="Monte Carlo")
    job.refresh_from_db()
    expected = 5 + 95 * half / chunks
    assert abs(job.progress - expected) <= 10, (job.progress, expected)
    for share in shares[half:]:
        job_chunk_done(job_id=job.pk, share=share, message="Monte Carlo")
    job.refresh_from_db()
    assert job.progress == 99  # the finishing callback makes it 100
