"""Workers' signs of life: each Celery worker's main process writes its
:class:`~annotate.models.WorkerHeartbeat` row every ``WORKER_HEARTBEAT_SECONDS`` from a thread
of its own, and removes it when it stops cleanly. The pages read them
(:mod:`annotate.selectors.workers`) to tell a job that waits for a free worker from one that
waits for a worker nobody started.

Each write is one short statement in its own transaction, so on SQLite it holds the write lock
for a moment only and never keeps a web request waiting.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import ClassVar

from django.conf import settings
from django.db import IntegrityError, connection, transaction
from django.utils import timezone

from annotate.models import WorkerHeartbeat
from annotate.services.jobs import jobs_fail_of_dead_worker

logger = logging.getLogger(__name__)

#: Rows of workers gone this long are removed when a worker starts.
FORGET_AFTER = timedelta(days=1)


def queues_field(queues: Iterable[str]) -> str:
    """``queues`` as :attr:`WorkerHeartbeat.queues` holds them: sorted, each between commas;
    empty when none is named (a worker of unknown queues)."""
    names = sorted(set(queues))
    return f",{','.join(names)}," if names else ""


@transaction.atomic
def worker_heartbeat_beat(
    *,
    hostname: str,
    pid: int,
    started_at: datetime,
    queues: Iterable[str] = (),
    broker: str = "",
) -> None:
    """Record that the worker ``hostname`` (main process ``pid``, taking jobs from ``queues``;
    none named: unknown, taken as every queue) is alive now, taking its messages from
    ``broker`` (:func:`~annotate.selectors.workers.broker_label`; empty: unknown, taken as
    this site's)."""
    now = timezone.now()
    row = {
        "pid": pid,
        "started_at": started_at,
        "beat_at": now,
        "queues": queues_field(queues),
        "broker": broker,
    }
    updated = WorkerHeartbeat.objects.filter(hostname=hostname).update(**row)
    if updated:
        return
    try:
        with transaction.atomic():
            WorkerHeartbeat.objects.create(hostname=hostname, **row)
    except IntegrityError:  # another process of the same name wrote it first
        WorkerHeartbeat.objects.filter(hostname=hostname).update(**row)


def worker_heartbeat_clear(*, hostname: str | None = None, pid: int | None = None) -> int:
    """Remove the row of a worker that stopped: by ``hostname`` and, when given, only while it
    is still the row of process ``pid`` (a restarted worker of the same name keeps its own).
    ``pid`` alone removes the rows of that process. Returns how many were removed."""
    rows = WorkerHeartbeat.objects.all()
    if hostname is None and pid is None:
        raise ValueError("say which worker: a hostname, a pid or both")
    if hostname is not None:
        rows = rows.filter(hostname=hostname)
    if pid is not None:
        rows = rows.filter(pid=pid)
    removed, _ = rows.delete()
    return removed


@transaction.atomic
def worker_died(*, pid: int, reason: str) -> int:
    """The worker whose main process was ``pid`` ended (``reason``, in words) and took its
    pool with it: its rows go (it is gone as of now for the pages) and the jobs it was running
    are marked failed at once (:func:`~annotate.services.jobs.jobs_fail_of_dead_worker`).
    Returns how many jobs were failed."""
    hostnames = list(WorkerHeartbeat.objects.filter(pid=pid).values_list("hostname", flat=True))
    worker_heartbeat_clear(pid=pid)
    if not hostnames:
        return 0
    return jobs_fail_of_dead_worker(hostnames=hostnames, reason=reason)


def worker_heartbeats_forget(*, now: datetime | None = None) -> int:
    """Remove the rows of workers not seen for :data:`FORGET_AFTER` (killed ones, renamed
    hosts), so the table holds only workers that may still be around."""
    limit = (now or timezone.now()) - FORGET_AFTER
    removed, _ = WorkerHeartbeat.objects.filter(beat_at__lt=limit).delete()
    return removed


class WorkerHeartbeatThread(threading.Thread):
    """Beats for one worker until :meth:`stop`. Started when the worker is ready to take
    tasks (``worker_ready``) and stopped when it shuts down (``worker_shutdown``), in the
    worker's main process: its pool processes may all be busy with long tasks while it is
    perfectly alive."""

    _running: ClassVar[dict[str, WorkerHeartbeatThread]] = {}
    _lock: ClassVar[threading.Lock] = threading.Lock()

    def __init__(
        self, hostname: str, interval: float, queues: Iterable[str] = (), broker: str = ""
    ) -> None:
        super().__init__(name=f"worker-heartbeat-{hostname}", daemon=True)
        self.hostname = hostname
        self.interval = interval
        self.queues = tuple(queues)
        self.broker = broker
        self.pid = os.getpid()
        self.started_at = timezone.now()
        self._stop_event = threading.Event()

    @classmethod
    def start_for(
        cls, *, hostname: str, queues: Iterable[str] = (), broker: str = ""
    ) -> WorkerHeartbeatThread:
        """Start beating for ``hostname``, a worker taking jobs from ``queues`` of ``broker``,
        unless this process already does (the worker is ready again after reconnecting to its
        broker)."""
        with cls._lock:
            thread = cls._running.get(hostname)
            if thread is None or not thread.is_alive():
                thread = cls(hostname, settings.WORKER_HEARTBEAT_SECONDS, queues, broker)
                cls._running[hostname] = thread
                thread.start()
            return thread

    @classmethod
    def stop_for(cls, *, hostname: str) -> None:
        with cls._lock:
            thread = cls._running.pop(hostname, None)
        if thread is not None:
            thread.stop()

    def run(self) -> None:
        self._beat(forget=True)
        while not self._stop_event.wait(self.interval):
            self._beat()

    def _beat(self, *, forget: bool = False) -> None:
        try:
            if forget:
                worker_heartbeats_forget()
            worker_heartbeat_beat(
                hostname=self.hostname,
                pid=self.pid,
                started_at=self.started_at,
                queues=self.queues,
                broker=self.broker,
            )
        except Exception:  # the database may be away for a while: beat again next time
            logger.exception("the heartbeat of worker %s failed", self.hostname)
        finally:
            # No connection is kept between beats: a pool process the worker forks later
            # must not inherit an open one, and a restarted database costs one beat at most.
            connection.close()

    def stop(self, timeout: float = 5.0) -> None:
        """Stop beating and remove the row: the worker is gone as of now."""
        self._stop_event.set()
        self.join(timeout)
        try:
            worker_heartbeat_clear(hostname=self.hostname, pid=self.pid)
        except Exception:
            logger.exception("could not remove the heartbeat of worker %s", self.hostname)
        finally:
            connection.close()
