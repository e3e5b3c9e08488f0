"""One consistent read of the database for work that reads a corpus in many statements (an
export streams it :data:`~annotate.selectors.corpora.STREAM_CHUNK` pairs at a time, an
agreement report reads every annotation): each statement sees the database as it was when the
snapshot began, so a pair's annotation, its events and its gold come from one moment, and a
pair added meanwhile is in none of the reads, whatever annotators save while it runs.

- PostgreSQL: a ``REPEATABLE READ, READ ONLY`` transaction.
- SQLite (WAL mode): a *deferred* transaction, which takes no lock at its start and, from its
  first read, holds a read mark only: writers on other connections go on committing, and the
  reads keep seeing the snapshot. (The settings' ``transaction_mode`` is ``IMMEDIATE``, so
  ``transaction.atomic()`` would take the write lock for the whole read, and every
  annotator's save would wait behind the export, then fail at the busy timeout.)

The connection holding the snapshot must not write: on PostgreSQL its writes would be seen
only when the snapshot ends, and one to a row changed since it began fails; on SQLite a write
of a connection whose snapshot is older than another connection's commit fails at once
("database is locked"). A job's progress reports, which also tell it that it was cancelled,
therefore go through :func:`reports_from_own_connection`.

This module imports nothing of the app, so anything may use it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import Any

from django.db import DEFAULT_DB_ALIAS, connection, connections, transaction

#: ``progress(percent, message)``, as a job's runner gets it.
Progress = Callable[[float, str], None]


@contextmanager
def read_snapshot(using: str = DEFAULT_DB_ALIAS) -> Iterator[bool]:
    """Read one snapshot of the database on this thread's connection until the block ends;
    yields True. Inside a transaction already (a caller's ``atomic()``, a test's), that
    transaction's reads are left as they are and this yields False."""
    db = connections[using]
    if db.in_atomic_block:
        yield False
        return
    if db.vendor == "sqlite":
        with _sqlite_snapshot(db):
            yield True
        return
    with transaction.atomic(using=using):
        if db.vendor == "postgresql":
            with db.cursor() as cursor:
                cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        yield True


@contextmanager
def _sqlite_snapshot(db: Any) -> Iterator[None]:
    """A deferred read transaction on ``db`` (Django's SQLite connection), begun by hand: Django
    would begin it with the settings' ``transaction_mode``."""
    db.ensure_connection()
    raw = db.connection
    with db.cursor() as cursor:
        cursor.execute("BEGIN DEFERRED")
        # The snapshot begins at the transaction's first read: now, not at the caller's.
        cursor.execute("SELECT count(*) FROM sqlite_master")
    try:
        yield
    finally:
        if db.connection is raw and raw.in_transaction:
            raw.rollback()  # it read only


@contextmanager
def reports_from_own_connection(progress: Progress) -> Iterator[Progress]:
    """``progress`` called from a thread of its own, which has a database connection of its
    own, for a runner whose connection holds a :func:`read_snapshot`. Each report waits for its
    write, and raises in the caller what ``progress`` raised (``JobCancelled``)."""
    thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="job-progress")

    def report(percent: float, message: str) -> None:
        thread.submit(progress, percent, message).result()

    try:
        yield report
    finally:
        thread.submit(_close_connection).result()
        thread.shutdown()


def _close_connection() -> None:
    connection.close()  # this thread's


@contextmanager
def job_read_snapshot(progress: Progress) -> Iterator[Progress]:
    """:func:`read_snapshot` for a job's runner, with the ``progress`` to report through while it
    lasts: :func:`reports_from_own_connection` when a snapshot was begun, else ``progress``."""
    with read_snapshot() as begun:
        if not begun:
            yield progress
            return
        with reports_from_own_connection(progress) as report:
            yield report
