"""A corpus streamed as records (what exports read): every pair once, in corpus order, over
several chunks; and, on the embedded SQLite file, the streaming job writes its progress between
records while other connections commit (a heartbeat every 2 s), as an export of a large corpus
does."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from annotate.models import Corpus
from annotate.selectors import corpora as corpora_reads
from annotate.services.corpora import corpus_import_records
from tests.annotate.records import make_record
from tests.paths import ROOT


@pytest.mark.django_db
def test_every_pair_is_streamed_once_in_corpus_order_over_several_chunks(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ids = [f"p{k}" for k in range(7)]
    corpus_import_records(
        corpus_name="c",
        records=[make_record(pair_id, annotations={"A": "0-0"}) for pair_id in ids],
    )
    monkeypatch.setattr(corpora_reads, "STREAM_CHUNK", 3)
    records = list(corpora_reads.corpus_pair_records(Corpus.objects.get(name="c")))
    assert [record.id for record in records] == ids
    assert all(record.annotations["A"].alignment.sure == {(0, 0)} for record in records)


@pytest.mark.django_db
def test_a_pair_prefilled_by_every_retraining_reads_only_its_latest_prefill() -> None:
    from annotate.models import AutoAlignment, AutoLink, SentencePair

    corpus_import_records(corpus_name="c", records=[make_record("p", prefill=None)])
    pair = SentencePair.objects.get(external_id="p")
    for k, aligner in enumerate(["identity", "supervised", "supervised"]):
        older = AutoAlignment.objects.create(pair=pair, aligner=aligner, aligner_version=str(k))
        AutoLink.objects.create(alignment=older, i=k, j=k, sure=True, confidence=0.5)
    (read,) = corpora_reads.pair_reads([pair])
    assert read.prefill_at == AutoAlignment.objects.get(aligner_version="2").created_at
    assert read.record.prefill is not None and read.record.prefill.sure == {(2, 2)}
    assert read.record.prefill_aligner == "supervised"
    assert read.record.prefill_confidence == {(2, 2): 0.5}


@pytest.mark.django_db
def test_a_pair_reads_as_the_jsonl_it_was_imported_from_with_every_alignment() -> None:
    imported = [
        make_record(
            "p",
            annotations={"B": "0-0 1?1", "A": "1-0"},
            prefill="0-0 1?1",
            gold="0-0",
        ),
        make_record("q", annotations={}, prefill=None, gold=""),
    ]
    corpus_import_records(corpus_name="c", records=imported)
    read = list(corpora_reads.corpus_pair_records(Corpus.objects.get(name="c")))
    assert read == imported
    assert list(read[0].annotations) == ["A", "B"]


# Runs on the embedded defaults (a SQLite file in WAL mode): the in-memory test database has
# no read snapshots. Each record, another thread's connection commits, then the streaming
# connection writes the job's progress.
STREAM_AND_WRITE = """
import threading
import django
django.setup()
from django.db import connection
from annotate import jobs_runtime
from annotate.models import Corpus, Job
from annotate.selectors import corpora as corpora_reads
from annotate.services.corpora import corpus_import_records
from tests.annotate.records import make_record

corpus_import_records(
    corpus_name="c", records=[make_record(f"p{k}", annotations={"A": "0-0"}) for k in range(7)]
)
corpus = Corpus.objects.get(name="c")
job = Job.objects.create(kind="export", corpus=corpus, status=Job.Status.RUNNING)
corpora_reads.STREAM_CHUNK = 3


def beat():
    Job.objects.filter(pk=job.pk).update(message="heartbeat")
    connection.close()


streamed = 0
for record in corpora_reads.corpus_pair_records(corpus):
    beater = threading.Thread(target=beat)
    beater.start()
    beater.join()
    streamed += 1
    jobs_runtime.job_progress(job_id=job.pk, percent=streamed, message=f"written {streamed}")
print("STREAMED", streamed)
"""


@pytest.mark.slow
def test_a_job_streaming_a_corpus_writes_its_progress_while_other_connections_commit(
    tmp_path: Path,
) -> None:
    services = ("DATABASE_URL", "CELERY_BROKER_URL", "CELERY_RESULT_BACKEND", "CACHE_URL")
    env = {k: v for k, v in os.environ.items() if k not in services}
    env.update(VAR_DIR=str(tmp_path / "var"), DJANGO_SETTINGS_MODULE="config.settings")
    manage = [sys.executable, str(ROOT / "manage.py")]
    subprocess.run([*manage, "migrate", "--no-input", "-v", "0"], env=env, cwd=ROOT, check=True)
    result = subprocess.run(
        [sys.executable, "-c", STREAM_AND_WRITE],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert "STREAMED 7" in result.stdout
