"""The embedded defaults' job queue and result store: SQLite files under ``VAR_DIR``, reached
through SQLAlchemy by kombu's ``sqla`` transport and Celery's ``db`` result backend.

Both are transactional: a message is a row, inserted by one transaction and taken by another
(``BEGIN IMMEDIATE``), so a worker never sees half a message, whatever the number of web
processes publishing and worker processes consuming at once.

The broker's transport is kombu's own with one change (:class:`EmbeddedTransport`), registered
under kombu's names for it (``sqla+``, ``sqlalchemy+``) by :mod:`config.celery`.
"""

from __future__ import annotations

import functools
import sqlite3
import threading
from collections.abc import Callable
from json import loads
from pathlib import Path
from queue import Empty
from typing import Any

from kombu.transport import sqlalchemy as kombu_sqlalchemy
from kombu.utils.encoding import bytes_to_str
from sqlalchemy import delete, select, text
from sqlalchemy.exc import IntegrityError, OperationalError

#: How long a writer waits for another's lock before "database is locked" (seconds). Every
#: transaction on these files lasts milliseconds; the wait only bridges a burst of them.
BUSY_TIMEOUT = 20.0


#: Rows of messages handed out before deleted per transaction when a channel opens: a few
#: milliseconds of the broker's write lock each.
FORGET_BATCH = 2000

#: The files this process has put in WAL mode (a setting kept in the file itself).
_in_wal_mode: set[str] = set()


def sqlite_connect(path: str) -> sqlite3.Connection:
    """A connection in WAL mode (readers never wait for the writer, a commit is not an fsync)
    that waits up to :data:`BUSY_TIMEOUT` for a lock instead of failing at once."""
    connection = sqlite3.connect(path, timeout=BUSY_TIMEOUT, check_same_thread=False)
    if path not in _in_wal_mode:
        connection.execute("PRAGMA journal_mode=WAL")
        _in_wal_mode.add(path)
    connection.execute("PRAGMA synchronous=NORMAL")
    return connection


def engine_options(path: Path) -> dict[str, Any]:
    """``create_engine`` options for one of these files.

    No connection pool: a connection is opened per transaction and closed after it, so a pool
    process forked by the worker never inherits an open SQLite connection of its parent (SQLite
    forbids using one across a fork). Opening one costs tens of microseconds."""
    from sqlalchemy.pool import NullPool

    creator: Callable[[], sqlite3.Connection] = functools.partial(sqlite_connect, str(path))
    return {"creator": creator, "poolclass": NullPool}


#: How often a process opens a fresh broker file whose tables another process is creating.
_OPEN_ATTEMPTS = 5


class EmbeddedChannel(kombu_sqlalchemy.Channel):
    """kombu's channel, with a queue's row safe to create from several processes at once, and
    its one SQLAlchemy session used by one thread at a time.

    kombu creates a queue's row on the first publish to it or read from it, guarded by a lock of
    its own process only: two processes that publish to a new queue at once (a fresh broker file,
    a web process and a worker starting together) both insert the row, and the second's
    unique-name violation would end its publish with an error. The second takes the first's row.

    A worker's main thread polls the queues through the channel's session while the pool's
    result thread acknowledges or rejects messages through the same channel (Celery runs
    those at once, from that thread). A reject that puts a message back in the queue (the pool
    process running it died: ``task_reject_on_worker_lost``) writes a row: in the middle of the
    main thread's read, the session's transaction broke, and the whole worker stopped with
    ``IllegalStateChangeError``, taking the other pool process's job with it. Every use of the
    session goes through one lock."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self._session_lock = threading.RLock()
        self._taken_forgotten = False
        super().__init__(*args, **kwargs)  # type: ignore[no-untyped-call]

    def _open(self) -> Any:
        """The engine and session maker of the broker file, its tables created if missing.

        kombu checks for the tables and then creates them, guarded by a lock of its own
        process only: processes opening a fresh broker file at once (``make demo``'s web
        process and worker, several web processes) can both find them missing, and the
        second's ``CREATE TABLE`` fails with "already exists". kombu takes that for a lost
        connection and retries the publish on the channel it has just closed, so the job is
        left unsent. The loser opens the file again and finds the tables."""
        for attempt in range(_OPEN_ATTEMPTS):
            try:
                return super()._open()  # type: ignore[no-untyped-call]
            except OperationalError as error:
                if "already exists" not in str(error) or attempt == _OPEN_ATTEMPTS - 1:
                    raise
        raise AssertionError("unreachable")

    def _get_or_create(self, queue: str) -> Any:
        with self._session_lock:
            try:
                return super()._get_or_create(queue)  # type: ignore[no-untyped-call]
            except IntegrityError:
                self.session.rollback()
                return self.session.query(self.queue_cls).filter(self.queue_cls.name == queue).one()

    def _put(self, queue: Any, payload: Any, **kwargs: Any) -> Any:  # type: ignore[override]
        with self._session_lock:
            return super()._put(queue, payload, **kwargs)  # type: ignore[no-untyped-call]

    def _get(self, queue: Any, timeout: Any = None) -> Any:
        """The queue's oldest message, its row deleted in the transaction that takes it.

        kombu's own ``_get`` keeps every message it ever handed out, marked invisible, and
        looks for the next one by scanning the rows in order of their time: an idle queue's
        look read every message the broker had ever carried. After a few months of a demo (a
        reaping task every 30 s, a chord's end polled four times a second while its job
        runs) that is hundreds of thousands of rows: with 300,000 (a 1.6 GB file) each look
        at an empty queue took 0.4 s, and a worker looks at each of its queues every second.
        No one reads a taken row again: a message a worker gives back (at a warm shutdown, or
        a task whose pool process died) is put in as a new row, and one a killed worker held
        is lost with it either way. Rows taken before (kept by kombu's ``_get``) go, a batch
        at a time, at this channel's first looks."""
        with self._session_lock:
            session = self.session
            if session.bind.dialect.name != "sqlite":  # another database: kombu's own way
                return super()._get(queue)  # type: ignore[no-untyped-call]
            if not self._taken_forgotten:
                self._taken_forgotten = self._forget_taken()
            obj = self._get_or_create(queue)
            session.execute(text("BEGIN IMMEDIATE TRANSACTION"))
            try:
                message = (
                    session.query(self.message_cls)
                    .filter(self.message_cls.queue_id == obj.id)
                    .filter(self.message_cls.visible != False)  # noqa: E712  # SQL, not Python
                    .order_by(self.message_cls.sent_at)
                    .order_by(self.message_cls.id)
                    .limit(1)
                    .first()
                )
                if message is None:
                    raise Empty()
                payload = message.payload
                session.delete(message)
                return loads(bytes_to_str(payload))  # type: ignore[no-untyped-call]
            finally:
                session.commit()

    def _forget_taken(self) -> bool:
        """Delete a batch of the rows of messages handed out before (kombu's ``_get`` kept
        them, invisible); True once none is left."""
        session = self.session
        taken = self.message_cls.__table__
        batch = select(taken.c.id).where(taken.c.visible == False).limit(FORGET_BATCH)  # noqa: E712
        try:
            deleted = session.execute(delete(taken).where(taken.c.id.in_(batch))).rowcount
            session.commit()
        except OperationalError:  # busy: another time
            session.rollback()
            return False
        return bool(deleted < FORGET_BATCH)

    def _purge(self, queue: str) -> int:
        with self._session_lock:
            return int(super()._purge(queue))  # type: ignore[no-untyped-call]

    def _size(self, queue: str) -> int:
        with self._session_lock:
            return int(super()._size(queue))  # type: ignore[no-untyped-call]


class EmbeddedTransport(kombu_sqlalchemy.Transport):
    """kombu's SQLAlchemy transport with :class:`EmbeddedChannel`."""

    Channel = EmbeddedChannel
