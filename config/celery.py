"""The Celery application: ``celery -A config worker``."""

import gc
import logging
import os
import signal
import time
from pathlib import Path
from typing import Any

from celery import Celery, bootsteps
from celery.canvas import maybe_signature
from celery.result import result_from_tuple
from celery.signals import (
    task_received,
    worker_init,
    worker_process_shutdown,
    worker_ready,
    worker_shutdown,
)
from kombu.transport import TRANSPORT_ALIASES

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

AUTOGROUP = Path("/proc/self/autogroup")

logger = logging.getLogger(__name__)

# A broker URL naming kombu's SQLAlchemy transport gets it with queue creation safe across
# processes (config/embedded.py), imported only when such a URL is used.
for _name in ("sqla", "sqlalchemy"):
    TRANSPORT_ALIASES[_name] = "config.embedded:EmbeddedTransport"
# Redis's gets one that survives Redis going away under a running job (config/redis_broker.py).
for _name in ("redis", "rediss"):
    TRANSPORT_ALIASES[_name] = "config.redis_broker:RedisTransport"

app = Celery("config")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


def _stop_abandoned_chord_unlocks(sender: Any = None, **kwargs: Any) -> None:
    """Celery's ``chord_unlock`` (how a chord's end is noticed without a results backend that
    tells it: the embedded defaults') polls with no limit on its tries: it stops polling once
    its job ended long ago (:func:`annotate.job_chunks.chord_abandoned`), which a chunk that
    died with a killed worker would otherwise never let it do, and hands the chord's callback
    the results of the chunks that ended."""
    task = sender.tasks.get("celery.chord_unlock")
    if task is None or getattr(task.run, "stops_when_abandoned", False):
        return
    unlock = task.run

    def run(group_id: str, callback: Any, *args: Any, **kwargs: Any) -> Any:
        from annotate.job_chunks import chord_abandoned

        try:
            abandoned = chord_abandoned(callback)
        except Exception:  # the database away a moment: ask again at the next poll
            logger.exception("could not tell whether chord %s's job ended; polling on", group_id)
            abandoned = False
        if abandoned:
            logger.warning(
                "stopped waiting for the chunks of chord %s: its job (%s %s) ended long ago",
                group_id,
                callback.get("task"),
                (callback.get("args") or ["?"])[0],
            )
            # The callback still gets the chunks that ended (None for the others): a prefill's
            # records how many pairs its chunks wrote.
            header = [result_from_tuple(r, app=sender) for r in kwargs.get("result") or ()]
            done = [r.result if r.successful() else None for r in header]
            maybe_signature(callback, app=sender).apply_async((done,))
            return None
        return unlock(group_id, callback, *args, **kwargs)

    run.stops_when_abandoned = True  # type: ignore[attr-defined]
    task.run = run


app.on_after_finalize.connect(_stop_abandoned_chord_unlocks)


class BrokerPolling(bootsteps.StartStopStep):  # type: ignore[misc]  # celery is untyped
    """How often the worker looks for messages on the embedded broker, which it polls (kombu's
    SQLAlchemy transport; kombu's default is once a second).

    From a message received until ``BROKER_BUSY_SECONDS`` after the worker last had a task, every
    ``BROKER_POLLING_INTERVAL`` seconds: a worker takes the next of many queued jobs, or a chunked
    job's next chunk, as soon as it is free. Idle, every ``BROKER_IDLE_POLLING_INTERVAL`` seconds:
    each look is a few SQL statements, which ten times a second would cost an idle worker a few
    per cent of a core. Set on the connection's transport after every (re)connection; other
    brokers (Redis, RabbitMQ) push their messages and are left alone."""

    requires = {"celery.worker.consumer.connection:Connection"}
    #: How often the worker's tasks are looked at to fall back to idle polling (seconds).
    CHECK_SECONDS = 0.5

    def __init__(self, parent: Any, **kwargs: Any) -> None:
        super().__init__(parent, **kwargs)
        self._tref: Any = None
        self._transport: Any = None
        self._busy_at = 0.0

    def start(self, parent: Any) -> None:
        connection = parent.connection
        if connection is None or connection.transport.driver_name != "sqlalchemy":
            return
        self._transport = connection.transport
        self.busy()  # just (re)connected: work may be waiting
        task_received.connect(self.busy, weak=False)
        self._tref = parent.timer.call_repeatedly(self.CHECK_SECONDS, self.adjust)

    def stop(self, parent: Any) -> None:
        task_received.disconnect(self.busy)
        if self._tref is not None:
            self._tref.cancel()
            self._tref = None

    shutdown = stop

    def busy(self, **kwargs: Any) -> None:
        """A message came (``task_received``): look for the next one soon. The transport reads
        the interval when it next starts waiting, which is right after a delivery."""
        from django.conf import settings

        self._busy_at = time.monotonic()
        self._transport.polling_interval = settings.BROKER_POLLING_INTERVAL

    def adjust(self) -> None:
        """Every ``CHECK_SECONDS``: busy while tasks are reserved or running, idle after."""
        from celery.worker import state
        from django.conf import settings

        now = time.monotonic()
        if state.active_requests or state.reserved_requests:
            self._busy_at = now
        busy = now - self._busy_at < settings.BROKER_BUSY_SECONDS
        self._transport.polling_interval = (
            settings.BROKER_POLLING_INTERVAL if busy else settings.BROKER_IDLE_POLLING_INTERVAL
        )


app.steps["consumer"].add(BrokerPolling)


def _yield_to_the_web(**kwargs: Any) -> None:
    """Run jobs at a lower CPU priority (``WORKER_NICE``): on a machine shared with the web
    processes, an agreement report or an EM run must not slow the annotators' saves. The pool's
    processes are forked after this and inherit it; on a machine of its own it changes nothing."""
    from django.conf import settings

    target = settings.WORKER_NICE
    if target > os.getpriority(os.PRIO_PROCESS, 0):
        os.setpriority(os.PRIO_PROCESS, 0, target)
    if _session_is_own():
        _nice_autogroup(target)


def _session_is_own() -> bool:
    """Whether the worker's session holds nothing but the worker: it leads it, or its leader
    has gone (a daemon's double fork)."""
    leader = os.getsid(0)
    return leader == os.getpid() or not Path(f"/proc/{leader}").exists()


def _nice_autogroup(target: int, path: Path = AUTOGROUP) -> None:
    """Under Linux's autogroup scheduling (``sched_autogroup_enabled``), the scheduler first
    shares the CPU between sessions as equals and applies a process's nice only inside its own:
    a niced worker in a session of its own still takes a whole core from the web server's
    session. The session's group has a nice of its own, which this raises (never lowers).
    Nothing happens where the kernel has no autogroups."""
    try:
        current = int(path.read_text().rsplit("nice", 1)[1])
        if target > current:
            path.write_text(f"{target}\n")
    except (OSError, ValueError, IndexError):
        return


worker_init.connect(_yield_to_the_web)


def _ignore_term_while_exiting(**kwargs: Any) -> None:
    """A pool process about to exit ignores further SIGTERMs, so that it exits whole.

    When a SIGTERM reaches the whole worker (systemd's ``systemctl stop``, a supervisor that
    signals the process group), each pool process ends its task and, on its way out, writes
    "I am dead" to the queue it shares with the main process, under a lock shared by them
    all; the main process answers with a SIGTERM of its own. billiard blocks that signal only
    in the exiting thread, and its handler of the first SIGTERM has left the default (die at
    once) in place: a pool process that ran numba or BLAS code has threads of theirs, which
    take the signal, so the process could die between its write and the lock's release. The
    lock then stays taken for good, and the main process, which needs it to tell the pool to
    stop, waits in its warm shutdown until it is killed. Ignored, the signal changes nothing:
    the process ends a second later all the same (``os._exit`` after billiard's one-second
    wait). Sent as the pool process exits (``worker_process_shutdown``), never while it
    runs a task, so that SIGTERM still stops a task as before."""
    signal.signal(signal.SIGTERM, signal.SIG_IGN)


worker_process_shutdown.connect(_ignore_term_while_exiting)


def _start_worker_heartbeat(sender: Any = None, **kwargs: Any) -> None:
    """The worker is ready: it says so, which queues it takes jobs from (its ``-Q`` and
    ``-X``) and from which broker, every ``WORKER_HEARTBEAT_SECONDS`` from now on."""
    from annotate.selectors.workers import broker_label
    from annotate.services.workers import WorkerHeartbeatThread

    queues = sender.app.amqp.queues.consume_from
    WorkerHeartbeatThread.start_for(
        hostname=sender.hostname,
        queues=list(queues),
        broker=broker_label(sender.app.conf.broker_url or ""),
    )


def _stop_worker_heartbeat(sender: Any = None, **kwargs: Any) -> None:
    """The worker stops cleanly: it is gone as of now, not once its heartbeat is stale."""
    from annotate.services.workers import WorkerHeartbeatThread

    WorkerHeartbeatThread.stop_for(hostname=sender.hostname)


def _freeze_startup_objects(sender: Any = None, **kwargs: Any) -> None:
    """Keep the objects of the ready worker's main process (the whole application, a couple of
    hundred thousand objects) out of every later garbage collection: they live as long as the
    process. Without this the interpreter's collections at exit take about ten seconds, which
    makes a warm shutdown overrun a supervisor's grace period; the collections while it runs get
    cheaper too. Once per process (the worker is "ready" again after each reconnection)."""
    if not gc.get_freeze_count():
        gc.freeze()


worker_ready.connect(_freeze_startup_objects)
worker_ready.connect(_start_worker_heartbeat)
worker_shutdown.connect(_stop_worker_heartbeat)
