"""``manage.py serve_demo``: the web server and the workers on the embedded defaults, stopped
together and cleanly; a worker that dies is restarted while the server keeps serving; the quick
jobs and the users' jobs run on workers of their own."""

from __future__ import annotations

import contextlib
import io
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path

import pytest
from django.conf import settings

from annotate.management.commands.serve_demo import (
    GRACE_SECONDS,
    Backoff,
    WorkerSupervisor,
    exit_reason,
    worker_commands,
)
from tests.paths import ROOT

# The embedded defaults: SQLite, and the broker and result store in SQLite files, under VAR_DIR.
SERVICE_VARIABLES = ("DATABASE_URL", "CELERY_BROKER_URL", "CELERY_RESULT_BACKEND", "CACHE_URL")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _processes_mentioning(text: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if text in command:
            found.append(int(entry.name))
    return found


def _wait_until(condition, what: str, timeout: float = 90.0) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} within {timeout:.0f} s")
        time.sleep(0.3)


def test_sigterm_stops_the_server_and_lets_the_worker_shut_down_warm(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in SERVICE_VARIABLES}
    env.update(VAR_DIR=str(tmp_path / "var"), DJANGO_SETTINGS_MODULE="config.settings")
    manage = [sys.executable, str(ROOT / "manage.py")]
    subprocess.run([*manage, "migrate", "--no-input", "-v", "0"], env=env, cwd=ROOT, check=True)
    port = _free_port()
    log = tmp_path / "serve_demo.log"
    with log.open("wb") as out:
        demo = subprocess.Popen(
            [*manage, "serve_demo", "--port", str(port)],
            env=env,
            cwd=ROOT,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:

        def serving() -> bool:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/login/", timeout=2) as r:
                    return bool(r.status == 200)
            except OSError:
                return False

        _wait_until(serving, "the server answered")
        _wait_until(
            lambda: log.read_text(errors="replace").count(" ready.") == 3, "the workers were ready"
        )
        started = time.monotonic()
        demo.send_signal(signal.SIGTERM)
        assert demo.wait(timeout=GRACE_SECONDS + 15) == 0
        # Within the grace period: nothing had to be killed.
        assert time.monotonic() - started < GRACE_SECONDS
    finally:
        if demo.poll() is None:
            _kill_everything(demo)
    output = log.read_text(errors="replace")
    assert "stopped server and workers" in output
    assert "Warm shutdown" in output
    # The pool's processes were stopped by the worker, not signalled from outside mid-task.
    assert "exited with 'signal" not in output
    assert _processes_mentioning(str(tmp_path)) == []


def _kill_everything(demo: subprocess.Popen[bytes]) -> None:
    """SIGKILL serve_demo and what it started: its workers and web server lead sessions of
    their own, which a failed test would otherwise leave running."""
    with contextlib.suppress(OSError):
        children = Path(f"/proc/{demo.pid}/task/{demo.pid}/children").read_text().split()
        for pid in map(int, children):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(pid, signal.SIGKILL)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(demo.pid, signal.SIGKILL)


def _serve_demo(tmp_path: Path) -> tuple[subprocess.Popen[bytes], int, Path, dict[str, str]]:
    """``serve_demo`` on the embedded defaults under ``tmp_path``, once it answers and its
    worker is ready: (process, port, log, environment)."""
    env = {k: v for k, v in os.environ.items() if k not in SERVICE_VARIABLES}
    env.update(VAR_DIR=str(tmp_path / "var"), DJANGO_SETTINGS_MODULE="config.settings")
    manage = [sys.executable, str(ROOT / "manage.py")]
    subprocess.run([*manage, "migrate", "--no-input", "-v", "0"], env=env, cwd=ROOT, check=True)
    port = _free_port()
    log = tmp_path / "serve_demo.log"
    with log.open("wb") as out:
        demo = subprocess.Popen(
            [*manage, "serve_demo", "--port", str(port)],
            env=env,
            cwd=ROOT,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    _wait_until(lambda: _answers(port), "the server answered")
    _wait_until(lambda: log.read_text(errors="replace").count(" ready.") == 3, "workers ready")
    return demo, port, log, env


def _answers(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/login/", timeout=2) as response:
            return bool(response.status == 200)
    except OSError:
        return False


def _worker_command(pid: int) -> list[str]:
    return Path(f"/proc/{pid}/cmdline").read_bytes().decode().split("\0")[:-1]


def _worker_pid(demo: subprocess.Popen[bytes], *, queue: str | None = None) -> int:
    """A worker's main process: the child of serve_demo that runs the main celery worker (with
    beat), or the one that serves ``queue`` alone."""
    children = Path(f"/proc/{demo.pid}/task/{demo.pid}/children").read_text().split()
    for pid in map(int, children):
        command = _worker_command(pid)
        if not any(part.endswith("celery") for part in command):
            continue
        queues = command[command.index("--queues") + 1] if "--queues" in command else None
        if (queue is None and "--beat" in command) or (queue is not None and queues == queue):
            return pid
    raise AssertionError("serve_demo has no such worker")


QUEUE_A_JOB = """
import django
django.setup()
from django.db import transaction
from annotate.models import Corpus
from annotate.services.corpora import corpus_import_records
from annotate.services.prefill import prefill_queue
from annotate.services.stats import corpus_stats_job_create
from scoring.corpus import PairRecord

name = "{corpus}"
records = [PairRecord(id="a", source_tokens=["a", "cat"], target_tokens=["the", "cat"])]
corpus_import_records(corpus_name=name, records=records)
corpus = Corpus.objects.get(name=name)
with transaction.atomic():
    if "{kind}" == "prefill":  # the main worker's
        job = prefill_queue(corpus=corpus, aligner="identity")
    else:  # a quick job
        job = corpus_stats_job_create(corpus=corpus)
print("JOB", job.pk)
"""

JOB_STATUS = """
import django
django.setup()
from annotate.models import Job
print("STATUS", Job.objects.get(pk={job_id}).status)
"""


def _python(script: str, env: dict[str, str], marker: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout.split(marker, 1)[1].strip()


def _succeeds(job_id: str, env: dict[str, str], log: Path, what: str) -> None:
    """Wait until job ``job_id`` has succeeded; if it does not in time, the failure carries the
    end of serve_demo's log (why it did not)."""
    status = JOB_STATUS.format(job_id=job_id)
    try:
        _wait_until(lambda: _python(status, env, "STATUS ") == "succeeded", what)
    except AssertionError as late:
        raise AssertionError(f"{late}; serve_demo's log:\n{log.read_text()[-6000:]}") from None


@pytest.mark.slow
def test_a_killed_worker_is_restarted_while_the_server_keeps_answering(tmp_path: Path) -> None:
    demo, port, log, env = _serve_demo(tmp_path)
    try:
        answers: list[bool] = []
        stop_asking = threading.Event()

        def ask() -> None:
            while not stop_asking.is_set():
                answers.append(_answers(port))
                time.sleep(0.2)

        asker = threading.Thread(target=ask)
        asker.start()
        killed = _worker_pid(demo)
        os.kill(killed, signal.SIGKILL)
        _wait_until(
            lambda: log.read_text(errors="replace").count(" ready.") == 4, "a new worker ready"
        )
        stop_asking.set()
        asker.join()
        assert answers and all(answers), "the web server answered all along"
        assert _worker_pid(demo) != killed
        output = log.read_text(errors="replace")
        assert f"the worker (pid {killed}) killed by signal 9 (SIGKILL)" in output
        assert "restarting the worker in 1 s" in output

        # The new worker takes jobs from the embedded broker.
        job_id = _python(QUEUE_A_JOB.format(corpus="after-restart", kind="prefill"), env, "JOB ")
        _succeeds(job_id, env, log, "the job ran")

        demo.send_signal(signal.SIGTERM)
        assert demo.wait(timeout=GRACE_SECONDS + 15) == 0
    finally:
        if demo.poll() is None:
            _kill_everything(demo)
    assert "stopped server and workers" in log.read_text(errors="replace")
    assert _processes_mentioning(str(tmp_path)) == []


def _stop_outside_a_write(group: int, var: Path) -> None:
    """SIGSTOP the process group at a moment none of its processes holds a write transaction
    on the database, the broker or the result store (its heartbeat and its polling write
    often): stopped inside one, it would stop every other process's writes too, which no busy
    worker does."""
    files = [var / name for name in ("db.sqlite3", "broker.sqlite3", "results.sqlite3")]
    for _ in range(100):
        os.killpg(group, signal.SIGSTOP)
        try:
            for file in files:
                with contextlib.closing(sqlite3.connect(file, timeout=0.5)) as database:
                    database.execute("BEGIN IMMEDIATE")
                    database.rollback()
            return
        except sqlite3.OperationalError:
            os.killpg(group, signal.SIGCONT)
            time.sleep(0.05)
    raise AssertionError("the worker was always inside a write")


@pytest.mark.slow
def test_a_quick_job_runs_while_the_main_worker_is_busy(tmp_path: Path) -> None:
    """The main worker stopped in its tracks (SIGSTOP: as busy as can be) holds back a prefill
    but not the statistics, which the quick jobs' own worker runs."""
    demo, _, log, env = _serve_demo(tmp_path)
    main = _worker_pid(demo)
    try:
        _stop_outside_a_write(main, tmp_path / "var")
        waiting = _python(QUEUE_A_JOB.format(corpus="slow", kind="prefill"), env, "JOB ")
        quick = _python(QUEUE_A_JOB.format(corpus="quick", kind="stats"), env, "JOB ")
        _succeeds(quick, env, log, "the quick job")
        assert _python(JOB_STATUS.format(job_id=waiting), env, "STATUS ") == "pending"
        os.killpg(main, signal.SIGCONT)
        _succeeds(waiting, env, log, "the prefill ran")
        demo.send_signal(signal.SIGTERM)
        assert demo.wait(timeout=GRACE_SECONDS + 15) == 0
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(main, signal.SIGCONT)
        if demo.poll() is None:
            _kill_everything(demo)
    assert _processes_mentioning(str(tmp_path)) == []


QUEUE_A_SCORE_JOB = """
import django
django.setup()
from annotate.models import ScorerModel
from annotate.services.scorers import score_job_create
from scoring.scorers.base import get_scorer

model = ScorerModel.objects.filter(name="tiny").first()
if model is None:
    pairs = [(["a", "cat", "sat"], ["the", "cat", "sat"]), (["he", "ran"], ["she", "walked"])]
    scorer = get_scorer("pfsm")
    scorer.fit(pairs, [4.0, 1.0])
    model = ScorerModel.objects.create(kind="pfsm", name="tiny", weights=scorer.to_dict())
job = score_job_create(model=model, pairs=[["{text}", "{text} too"]], owner=None)
print("JOB", job.pk)
"""


@pytest.mark.slow
def test_a_users_score_job_runs_on_its_own_worker_and_never_on_the_main_one(
    tmp_path: Path,
) -> None:
    """The users' jobs' worker stopped, a score job waits while the main worker runs a
    prefill (it never takes a user's job); the main worker stopped, the score job runs on its
    own worker while a prefill waits."""
    demo, _, log, env = _serve_demo(tmp_path)
    main, users = _worker_pid(demo), _worker_pid(demo, queue=settings.USER_QUEUE)
    assert _worker_command(main)[-2:] == ["--exclude-queues", settings.USER_QUEUE]
    var = tmp_path / "var"
    try:
        _stop_outside_a_write(users, var)
        score = _python(QUEUE_A_SCORE_JOB.format(text="a cat sat"), env, "JOB ")
        prefill = _python(QUEUE_A_JOB.format(corpus="first", kind="prefill"), env, "JOB ")
        _succeeds(prefill, env, log, "the prefill ran")
        assert _python(JOB_STATUS.format(job_id=score), env, "STATUS ") == "pending"

        _stop_outside_a_write(main, var)
        os.killpg(users, signal.SIGCONT)
        waiting = _python(QUEUE_A_JOB.format(corpus="second", kind="prefill"), env, "JOB ")
        _succeeds(score, env, log, "the score job")
        assert _python(JOB_STATUS.format(job_id=waiting), env, "STATUS ") == "pending"
        os.killpg(main, signal.SIGCONT)
        _succeeds(waiting, env, log, "the prefill ran")
        demo.send_signal(signal.SIGTERM)
        assert demo.wait(timeout=GRACE_SECONDS + 15) == 0
    finally:
        for group in (main, users):
            with contextlib.suppress(ProcessLookupError):
                os.killpg(group, signal.SIGCONT)
        if demo.poll() is None:
            _kill_everything(demo)
    assert _processes_mentioning(str(tmp_path)) == []


def test_the_main_worker_leaves_the_users_jobs_to_a_worker_of_their_own(tmp_path: Path) -> None:
    main, quick, users = worker_commands(celery="celery", var=tmp_path)
    assert "--beat" in main and "--queues" not in main, "the main worker serves every queue..."
    assert main[main.index("--exclude-queues") + 1] == settings.USER_QUEUE, "...but the users'"
    for command, queue in ((quick, settings.QUICK_QUEUE), (users, settings.USER_QUEUE)):
        assert command[command.index("--queues") + 1] == queue
        assert command[command.index("--hostname") + 1] == f"{queue}@%h"
        assert command[command.index("--concurrency") + 1] == "1"
        assert "--beat" not in command


@pytest.mark.slow
def test_serve_demo_stops_its_worker_and_exits_when_the_web_server_dies(tmp_path: Path) -> None:
    demo, _, log, _ = _serve_demo(tmp_path)
    try:
        children = Path(f"/proc/{demo.pid}/task/{demo.pid}/children").read_text().split()
        server = next(
            int(pid)
            for pid in children
            if b"runserver" in Path(f"/proc/{pid}/cmdline").read_bytes()
        )
        os.killpg(server, signal.SIGKILL)
        assert demo.wait(timeout=GRACE_SECONDS + 15) == 1
    finally:
        if demo.poll() is None:
            _kill_everything(demo)
    output = log.read_text(errors="replace")
    assert "the web server killed by signal 9 (SIGKILL); stopped the workers too" in output
    assert "Warm shutdown" in output
    assert _processes_mentioning(str(tmp_path)) == []


def test_an_exit_is_told_by_its_signal_or_its_status() -> None:
    assert exit_reason(-signal.SIGKILL) == "killed by signal 9 (SIGKILL)"
    assert exit_reason(-signal.SIGSEGV) == "killed by signal 11 (SIGSEGV)"
    assert exit_reason(1) == "exited with status 1"
    assert exit_reason(0) == "exited with status 0"


def test_the_wait_doubles_while_the_worker_dies_young_and_resets_after_a_healthy_run() -> None:
    backoff = Backoff(first=1, longest=8, healthy=60)
    assert [backoff.after(ran) for ran in (2, 2, 2, 2, 2)] == [1, 2, 4, 8, 8]
    assert backoff.after(61) == 1, "a worker that ran a minute was healthy"
    assert backoff.after(2) == 2


class _Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def _dying_worker() -> subprocess.Popen[bytes]:
    """A process that dies at once, as a worker killed by the kernel would."""
    return subprocess.Popen(
        [sys.executable, "-c", "import os, signal; os.kill(os.getpid(), signal.SIGKILL)"],
        start_new_session=True,
    )


def test_a_dead_worker_is_logged_forgotten_and_restarted_after_its_wait() -> None:
    clock, log, dead = _Clock(), io.StringIO(), []
    supervisor = WorkerSupervisor(
        _dying_worker,
        log,
        backoff=Backoff(first=1),
        on_death=lambda *death: dead.append(death),
        clock=clock,
    )
    supervisor.start()
    first = supervisor.process
    assert first is not None
    first.wait()
    clock.now += 5
    supervisor.check()
    assert dead == [(first.pid, -9)]
    assert f"the worker (pid {first.pid}) killed by signal 9 (SIGKILL) after 5 s" in log.getvalue()
    assert "restarting the worker in 1 s" in log.getvalue()
    supervisor.check()
    assert supervisor.process is first, "not before its wait is over"
    clock.now += 1
    supervisor.check()
    assert supervisor.process is not first and supervisor.restarts == 1
    assert supervisor.process is not None
    supervisor.process.wait()
    clock.now += 1
    supervisor.check()
    assert "restarting the worker in 2 s" in log.getvalue(), "it died young again"


def _slow_to_stop_worker() -> subprocess.Popen[bytes]:
    """A process that takes a second to stop after SIGTERM, as a worker's warm shutdown does;
    started once it handles the signal."""
    process = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import signal, sys, time\n"
            "signal.signal(signal.SIGTERM, lambda *a: (time.sleep(1), sys.exit(0)))\n"
            "print('ready', flush=True)\n"
            "time.sleep(60)\n",
        ],
        stdout=subprocess.PIPE,
        start_new_session=True,
    )
    assert process.stdout is not None and process.stdout.readline() == b"ready\n"
    return process


def test_the_workers_are_told_to_stop_all_at_once_and_share_the_grace_period() -> None:
    supervisors = [WorkerSupervisor(_slow_to_stop_worker, io.StringIO()) for _ in range(3)]
    for supervisor in supervisors:
        supervisor.start()
    started = time.monotonic()
    for supervisor in supervisors:
        supervisor.terminate()
    assert time.monotonic() - started < 0.5, "terminate does not wait"
    for supervisor in supervisors:
        supervisor.stop(started + 10)
    assert time.monotonic() - started < 2.5, "three shutdowns of 1 s overlapped"
    assert [s.process.returncode for s in supervisors if s.process] == [0, 0, 0], "none killed"


def _busy_worker(released: Path) -> Callable[[], subprocess.Popen[bytes]]:
    """A worker whose main process ignores the warm shutdown's SIGTERM while its pool process
    runs a long job; the pool process, on a SIGTERM of its own, puts its job back (writes
    ``released``) and exits, as a Celery pool process does."""
    child = (
        "import signal, sys, time\n"
        f"mark = lambda *a: (open({str(released)!r}, 'w').close(), sys.exit(0))\n"
        "signal.signal(signal.SIGTERM, mark)\n"
        "time.sleep(60)\n"
    )
    main = (
        "import signal, subprocess, sys, time\n"
        "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
        f"pool = subprocess.Popen([sys.executable, '-c', {child!r}])\n"
        "time.sleep(0.5)\n"
        "print('ready', flush=True)\n"
        "pool.wait()\n"
        "time.sleep(60)\n"
    )

    def start() -> subprocess.Popen[bytes]:
        process = subprocess.Popen(
            [sys.executable, "-c", main], stdout=subprocess.PIPE, start_new_session=True
        )
        assert process.stdout is not None and process.stdout.readline() == b"ready\n"
        return process

    return start


def test_a_worker_busy_past_the_grace_period_puts_its_jobs_back_before_it_is_killed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from annotate.management.commands import serve_demo

    monkeypatch.setattr(serve_demo, "RELEASE_SECONDS", 1)
    released = tmp_path / "released"
    supervisor = WorkerSupervisor(_busy_worker(released), io.StringIO())
    supervisor.start()
    started = time.monotonic()
    supervisor.stop(started + 0.5)
    assert released.exists(), "the pool process was told to stop its job, not killed outright"
    assert supervisor.process is not None and supervisor.process.returncode == -signal.SIGKILL
    assert time.monotonic() - started < 5


def _deaf_worker() -> subprocess.Popen[bytes]:
    """A worker whose every process ignores SIGTERM, as a pool process in a long step of
    compiled code does until the step returns."""
    process = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import signal, time\n"
            "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
            "print('ready', flush=True)\n"
            "time.sleep(60)\n",
        ],
        stdout=subprocess.PIPE,
        start_new_session=True,
    )
    assert process.stdout is not None and process.stdout.readline() == b"ready\n"
    return process


def test_a_worker_killed_at_the_end_of_the_stop_has_its_jobs_failed_at_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from annotate.management.commands import serve_demo

    monkeypatch.setattr(serve_demo, "RELEASE_SECONDS", 0.5)
    dead: list[tuple[int, int]] = []
    supervisor = WorkerSupervisor(
        _deaf_worker, io.StringIO(), on_death=lambda *death: dead.append(death)
    )
    supervisor.start()
    assert supervisor.process is not None
    supervisor.stop(time.monotonic() + 0.2)
    assert dead == [(supervisor.process.pid, -signal.SIGKILL)]


def test_a_worker_that_stops_in_time_is_not_taken_for_a_dead_one() -> None:
    dead: list[tuple[int, int]] = []
    supervisor = WorkerSupervisor(
        _slow_to_stop_worker, io.StringIO(), on_death=lambda *death: dead.append(death)
    )
    supervisor.start()
    supervisor.stop(time.monotonic() + 10)
    assert dead == []
