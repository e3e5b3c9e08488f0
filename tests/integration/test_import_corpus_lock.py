"""On PostgreSQL an import holds its corpus's row for each batch it writes (a minute or more
on a busy machine): other writers of the row wait for it, but a row that only refers to the
corpus (a job of it, whose foreign key PostgreSQL checks with ``FOR KEY SHARE`` at commit)
is written at once, so that starting an export during an import does not hang the request."""

from __future__ import annotations

import threading

import pytest
from django.db import OperationalError, connection, connections, transaction
from django.utils import timezone

from annotate.models import Corpus, Job
from annotate.services.corpora import corpus_import_lock

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def _lock_held_by_an_import(name: str, held: threading.Event, done: threading.Event) -> None:
    try:
        with transaction.atomic():
            assert corpus_import_lock(name=name) is not None
            held.set()
            done.wait(30)
    finally:
        connections.close_all()


def _with_lock_timeout(write: object) -> None:
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("SET LOCAL lock_timeout = '2s'")
        write()  # type: ignore[operator]


def test_a_job_of_the_corpus_is_written_while_an_import_batch_holds_it() -> None:
    if connection.vendor != "postgresql":
        pytest.fail("the integration suite runs on PostgreSQL: set DATABASE_URL=postgres://...")
    corpus = Corpus.objects.create(name="busy")
    held, done = threading.Event(), threading.Event()
    importer = threading.Thread(target=_lock_held_by_an_import, args=("busy", held, done))
    importer.start()
    try:
        assert held.wait(10)
        _with_lock_timeout(lambda: Job.objects.create(kind="export", corpus=corpus))
        assert Job.objects.filter(corpus=corpus).count() == 1
        # another writer of the corpus's row still waits for the batch
        with pytest.raises(OperationalError, match="lock timeout"):
            _with_lock_timeout(
                lambda: Corpus.objects.filter(pk=corpus.pk).update(archived_at=timezone.now())
            )
    finally:
        done.set()
        importer.join(10)
