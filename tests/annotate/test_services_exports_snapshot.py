"""An export reads the corpus of one moment: saves, golds and pairs committed while it streams
the corpus are in none of its lines, and those saves are not held up by it. Run against a real
database in another process (a SQLite file in WAL mode, the embedded default; or the PostgreSQL
test database in the integration suite): the in-memory test database has no read snapshots."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.db import connection

from tests.paths import ROOT

pytestmark = [pytest.mark.slow, pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

# The export streams one pair at a time; right after it has read the first pair, another
# thread (a connection of its own) saves the annotator's work on the first and the last pair,
# saves their gold and adds a pair, all committed before the export reads on.
EXPORT_WHILE_SAVING = """
import json
import threading
import time

import django

django.setup()
from django.db import connection

from annotate import jobs_runtime, roles
from annotate.models import Corpus, SentencePair
from annotate.selectors import corpora as corpora_reads
from annotate.services import adjudication, annotations
from annotate.services.corpora import corpus_import_records
from annotate.services.exports import export_file, export_job_create
from scoring import formats
from tests.annotate.factories import make_assignment, make_pair, make_user
from tests.annotate.records import make_record

corpus_import_records(corpus_name="c", records=[make_record(f"p{k}") for k in range(4)])
corpus = Corpus.objects.get(name="c")
pairs = list(SentencePair.objects.filter(corpus=corpus).order_by("position"))
first, last = pairs[0], pairs[-1]
alice = make_user("alice", roles.ANNOTATOR)
carol = make_user("carol", roles.ADJUDICATOR)
work = [make_assignment(pair, alice) for pair in (first, last)]
for assignment in work:
    annotations.annotation_open(assignment=assignment, actor=alice)
job = export_job_create(corpus=corpus, format_name="jsonl", which="all")
saved = {}


def save_meanwhile():
    started = time.monotonic()
    try:
        for assignment in work:
            annotations.annotation_save(
                assignment=assignment, actor=alice, base_version=1, links={(0, 0): True}
            )
        for pair in (first, last):
            adjudication.gold_save(
                pair=pair, links={(0, 0): True}, adjudicator=carol, base_version=None
            )
        make_pair(corpus, external_id="added")
        saved["seconds"] = time.monotonic() - started
    finally:
        connection.close()


read = corpora_reads.pair_reads


def read_then_save(chunk):
    records = read(chunk)
    if chunk and chunk[0].pk == first.pk:
        saver = threading.Thread(target=save_meanwhile)
        saver.start()
        saver.join()
    return records


corpora_reads.pair_reads = read_then_save
corpora_reads.STREAM_CHUNK = 1
status = jobs_runtime.job_run(job_id=job.pk, worker="test")
job.refresh_from_db()
records = []
if status == "succeeded":
    records = list(formats.get_format("jsonl").read([export_file(job)]))
print(json.dumps({
    "status": status,
    "error": job.error,
    "saved_seconds": saved.get("seconds"),
    "ids": [record.id for record in records],
    "alice": {
        record.id: sorted(map(list, record.annotations["alice"].alignment.possible))
        for record in records
        if "alice" in record.annotations
    },
    "gold": [record.id for record in records if record.gold_alignment is not None],
}))
"""


def _postgres_url() -> str:
    s = connection.settings_dict
    user = s["USER"] or "postgres"
    password = f":{s['PASSWORD']}" if s["PASSWORD"] else ""
    return f"postgres://{user}{password}@{s['HOST'] or '127.0.0.1'}:{s['PORT'] or 5432}/{s['NAME']}"


def test_an_export_holds_the_corpus_of_one_moment_and_holds_up_no_save(tmp_path: Path) -> None:
    env = {
        **{k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "CACHE_URL")},
        "VAR_DIR": str(tmp_path / "var"),
        "EXPORT_DIR": str(tmp_path / "exports"),
        "CELERY_BROKER_URL": "memory://",
        "DJANGO_SETTINGS_MODULE": "config.settings",
    }
    if connection.vendor == "postgresql":
        env["DATABASE_URL"] = _postgres_url()
    else:  # a SQLite file under the test's VAR_DIR, with the embedded defaults' settings
        manage = [sys.executable, str(ROOT / "manage.py")]
        subprocess.run([*manage, "migrate", "--no-input", "-v", "0"], env=env, cwd=ROOT, check=True)
    result = subprocess.run(
        [sys.executable, "-c", EXPORT_WHILE_SAVING],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    out = json.loads(result.stdout.strip().splitlines()[-1])
    assert out["status"] == "succeeded", out["error"]
    assert out["saved_seconds"] is not None and out["saved_seconds"] < 5, (
        "the saves went through at once while the export read"
    )
    assert out["ids"] == ["p0", "p1", "p2", "p3"], "the pair added meanwhile is not exported"
    opened = [[1, 1], [3, 4], [4, 5], [5, 6]]  # the prefill each annotation was opened from
    assert out["alice"] == {"p0": opened, "p3": opened}, "no save made meanwhile is exported"
    assert out["gold"] == [], "no gold saved meanwhile is exported"
