"""Run the web server and the Celery workers together on the embedded defaults (``make demo``):
the main worker (two jobs at a time, with beat); the quick jobs' own worker (planning,
hand-overs, statistics: ``settings.QUICK_JOB_KINDS``), which the main worker also serves when
it is free; and the users' jobs' own worker (the score jobs any signed-in user may queue:
``settings.USER_JOB_KINDS``), one job at a time, which the main worker leaves alone, so that
no annotator's job ever holds a slot of the corpus admins' jobs.

Each worker is supervised: whatever ends it (an error at start-up, an out-of-memory kill, a
SIGKILL), the reason is logged and a new worker is started, sooner after a worker that ran for
a while than after one that died at once (:class:`Backoff`). The web server keeps serving all
along. If the web server itself ends, the workers are stopped and the command exits with
status 1.

Ctrl-C (or SIGTERM) stops all: the workers get a warm shutdown, all at once, finishing their
current tasks; a worker still busy at the end of the grace period has its running jobs stopped
and put back in the queue (SIGTERM to its pool processes), to run again at the next start, and
is killed only if even that takes too long.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from io import TextIOBase
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandParser

GRACE_SECONDS = 15
#: How long a worker still busy at the end of the grace period has, after a SIGTERM to its
#: whole group, to put its jobs back in the queue and exit before it is killed. Its pool
#: processes stop their tasks within a second or two, but the main process then waits 5 s
#: more for the results of the pool processes it lost (billiard's own wait) before it puts
#: the messages it holds back in the embedded broker: 10.5-11.7 s on two idle cores. Killed
#: sooner, it takes those messages with it, so a released job waits for the resending and a
#: report or prefill whose chunks it held fails as a dead worker's job.
RELEASE_SECONDS = 25
#: How often the command looks at its processes (seconds).
CHECK_SECONDS = 0.3


def exit_reason(returncode: int) -> str:
    """How a process ended, in words: ``killed by signal 9 (SIGKILL)`` or ``exited with
    status 1``."""
    if returncode < 0:
        try:
            name = signal.Signals(-returncode).name
        except ValueError:
            name = "an unknown signal"
        return f"killed by signal {-returncode} ({name})"
    return f"exited with status {returncode}"


class Backoff:
    """The wait before restarting a worker that died: ``first`` seconds, doubled after each
    death of a worker that had run less than ``healthy`` seconds (one failing at start-up is
    not restarted in a tight loop), at most ``longest``; back to ``first`` after a worker that
    ran ``healthy`` seconds or more."""

    def __init__(self, first: float = 1.0, longest: float = 60.0, healthy: float = 60.0):
        self.first, self.longest, self.healthy = first, longest, healthy
        self._next = first

    def after(self, ran_seconds: float) -> float:
        """The wait before the next start, for a worker that ran ``ran_seconds``."""
        if ran_seconds >= self.healthy:
            self._next = self.first
        wait = self._next
        self._next = min(self._next * 2, self.longest)
        return wait


class WorkerSupervisor:
    """Starts the worker (``start`` returns its process), notices when it has ended, logs why
    and starts another after the :class:`Backoff`'s wait."""

    def __init__(
        self,
        start: Callable[[], subprocess.Popen[bytes]],
        log: TextIOBase,
        *,
        backoff: Backoff | None = None,
        on_death: Callable[[int, int], object] = lambda pid, returncode: None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._start, self._log, self._on_death, self._clock = start, log, on_death, clock
        self.backoff = backoff or Backoff()
        self.process: subprocess.Popen[bytes] | None = None
        self.restarts = 0
        self._started_at = 0.0
        self._restart_at: float | None = None
        self._terminated = False

    def start(self) -> None:
        self.process = self._start()
        self._started_at = self._clock()
        self._restart_at = None
        self._terminated = False

    def check(self) -> None:
        """Restart the worker if it has ended and its wait is over; call this often."""
        now = self._clock()
        if self._restart_at is not None:
            if now >= self._restart_at:
                self.restarts += 1
                self._log.write(f"serve_demo: starting a new worker (restart {self.restarts})\n")
                self.start()
            return
        process = self.process
        if process is None or process.poll() is None:
            return
        ran = now - self._started_at
        wait = self.backoff.after(ran)
        _kill_group(process.pid)  # pool processes left behind by their killed parent
        self._on_death(process.pid, process.returncode)
        self._log.write(
            f"serve_demo: the worker (pid {process.pid}) {exit_reason(process.returncode)} "
            f"after {ran:.0f} s; the web server keeps running; restarting the worker in "
            f"{wait:.0f} s\n"
        )
        self._log.flush()
        self._restart_at = now + wait

    def terminate(self) -> None:
        """Start a warm shutdown: SIGTERM (once) to the worker's main process alone (it stops
        its pool after the running tasks; a signal to the whole group would kill them
        mid-task). Returns at once, so that several workers shut down at the same time."""
        process = self.process
        if process is not None and process.poll() is None and not self._terminated:
            process.send_signal(signal.SIGTERM)
            self._terminated = True

    def stop(self, deadline: float) -> None:
        """Warm shutdown (:meth:`terminate`, if not done yet) and wait for it. A worker still
        running its jobs at ``deadline`` (a monotonic time) has SIGTERM sent to its whole group:
        each pool process stops its task and puts the job back in the queue, to run again when
        a worker is back (killed outright, the job would be failed as a dead worker's); what is
        left after :data:`RELEASE_SECONDS` is killed, and its jobs are failed as a dead
        worker's (``on_death``)."""
        process = self.process
        if process is None:
            return
        self.terminate()
        try:
            process.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, signal.SIGTERM)
            try:
                process.wait(timeout=RELEASE_SECONDS)
            except subprocess.TimeoutExpired:
                _kill_group(process.pid)
                process.wait()
                # A job still running (a long step in compiled code, which takes no signal
                # until it returns) was neither put back nor finished, and its message went
                # with the worker: it fails now, with the reason, not "running" at the next
                # start until the reaper calls its worker unresponsive.
                self._on_death(process.pid, process.returncode)
        _kill_group(process.pid)


def _kill_group(pid: int) -> None:
    """SIGKILL what is left of the process group ``pid`` leads (none: nothing happens)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


def _starter(command: list[str]) -> Callable[[], subprocess.Popen[bytes]]:
    """Starts ``command`` in a session of its own (its process group is the worker's)."""
    return lambda: subprocess.Popen(command, start_new_session=True)


def _forget_worker(pid: int, returncode: int) -> None:
    """A dead worker is gone as of now for the pages, not once its heartbeat goes stale, and
    the jobs it was running fail at once with the reason, instead of showing "running" until
    the reaper finds their heartbeats stale."""
    from annotate.services.workers import worker_died

    try:
        worker_died(pid=pid, reason=exit_reason(returncode))
    except Exception as error:  # the database being busy must not stop the supervision
        sys.stderr.write(f"serve_demo: could not record the dead worker's end: {error}\n")


def worker_commands(*, celery: str, var: Path) -> list[list[str]]:
    """The command lines of the three workers: the main one (two jobs at a time, with beat;
    every queue but the users' jobs'), the quick jobs' own and the users' jobs' own."""
    main = [
        *(celery, "-A", "config", "worker", "--beat", "--loglevel", "INFO", "--concurrency", "2"),
        *("--schedule", str(var / "celerybeat-schedule")),
        # An annotator's score job of hours never takes one of the admins' jobs' two slots.
        *("--exclude-queues", settings.USER_QUEUE),
    ]

    def alone(queue: str) -> list[str]:
        """A worker of one job at a time serving ``queue`` alone."""
        return [
            *(celery, "-A", "config", "worker", "--queues", queue, "--hostname", f"{queue}@%h"),
            *("--loglevel", "INFO", "--concurrency", "1"),
        ]

    # The quick jobs' own worker: a plan or a hand-over runs at once while the main worker is
    # busy for hours with a prefill (settings.QUICK_JOB_KINDS). The users' jobs' own: their
    # score jobs run one at a time, beside the admins' jobs (settings.USER_JOB_KINDS).
    return [main, alone(settings.QUICK_QUEUE), alone(settings.USER_QUEUE)]


class Command(BaseCommand):
    help = (
        "Start the web server and the Celery workers (the main one with beat, the quick jobs' "
        "own and the users' jobs' own), restarting a worker whenever it dies; Ctrl-C stops all "
        "cleanly."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--host", default="127.0.0.1")
        parser.add_argument("--port", type=int, default=8000)

    def handle(self, *args: Any, **options: Any) -> None:
        var = Path(settings.VAR_DIR)
        var.mkdir(parents=True, exist_ok=True)
        python = sys.executable
        stopping = False

        def stop(signum: int, frame: Any) -> None:
            nonlocal stopping
            stopping = True

        # Before any child starts: a Ctrl-C (or SIGTERM) while they start stops them too,
        # instead of a KeyboardInterrupt that leaves them running in sessions of their own.
        signal.signal(signal.SIGINT, stop)
        signal.signal(signal.SIGTERM, stop)
        supervisors = [
            WorkerSupervisor(_starter(command), self.stderr, on_death=_forget_worker)
            for command in worker_commands(celery=str(Path(python).with_name("celery")), var=var)
        ]
        address = f"{options['host']}:{options['port']}"
        server: subprocess.Popen[bytes] | None = None
        try:
            for supervisor in supervisors:
                supervisor.start()
            server = subprocess.Popen(
                [python, "manage.py", "runserver", "--noreload", address], start_new_session=True
            )
            self.stdout.write(
                self.style.SUCCESS(f"\nThe workbench is running at http://{address}/")
                + f"\n  admin: http://{address}/admin/"
                + f"\n  database: {settings.DATABASES['default']['NAME']}"
                + f"\n  broker: {settings.CELERY_BROKER_URL}   (Ctrl-C stops server and workers)\n"
            )
            while not stopping and server.poll() is None:
                for supervisor in supervisors:
                    supervisor.check()
                time.sleep(CHECK_SECONDS)
        finally:
            deadline = time.monotonic() + GRACE_SECONDS
            if server is not None and server.poll() is None:
                server.send_signal(signal.SIGTERM)
            for supervisor in supervisors:  # all at once: one grace period for all
                supervisor.terminate()
            for supervisor in supervisors:
                supervisor.stop(deadline)
            if server is not None:
                try:
                    server.wait(timeout=max(0.1, deadline - time.monotonic()))
                except subprocess.TimeoutExpired:
                    _kill_group(server.pid)
                    server.wait()
        if not stopping and server is not None:
            self.stderr.write(
                f"serve_demo: the web server {exit_reason(server.returncode)}; stopped the "
                "workers too (see the server's output above)"
            )
            sys.exit(1)
        self.stdout.write("stopped server and workers")
