"""The processes benchmarks and fault tests start: Celery workers, gunicorn, ports, scratch
databases."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from benchmarks.paths import ROOT

BIN = Path(sys.executable).parent


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_for_port(port: int, what: str, timeout: float = 30.0) -> None:
    """Until something accepts connections on ``port``; :class:`SystemExit` naming ``what``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise SystemExit(f"{what} did not start within {timeout:.0f} s")


def celery_worker(
    name: str,
    log: Path,
    *,
    env: dict[str, str] | None = None,
    beat_schedule: Path | None = None,
    loglevel: str = "WARNING",
    concurrency: int = 1,
) -> subprocess.Popen[bytes]:
    """``celery -A config worker`` with ``concurrency`` pool processes, in a session of its own
    (so that :func:`stop` reaches its children), logging to ``log``."""
    command = [
        str(BIN / "celery"),
        "-A",
        "config",
        "worker",
        "--concurrency",
        str(concurrency),
        "--loglevel",
        loglevel,
        "--hostname",
        f"{name}@%h",
    ]
    if beat_schedule is not None:
        command += ["--beat", "--schedule", str(beat_schedule)]
    handle = log.open("ab")
    return subprocess.Popen(
        command,
        cwd=ROOT,
        env=env or os.environ.copy(),
        stdout=handle,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )


def gunicorn(
    port: int, folder: Path, env: dict[str, str] | None = None, workers: int = 2
) -> subprocess.Popen[bytes]:
    """gunicorn serving the project on ``port`` with ``workers`` processes, logging to
    ``folder/gunicorn.log``; returned once it answers a page."""
    log = open(folder / "gunicorn.log", "ab")  # noqa: SIM115 - lives as long as the server
    process = subprocess.Popen(
        [
            str(BIN / "gunicorn"),
            "config.wsgi:application",
            "--workers",
            str(workers),
            "--timeout",
            "300",
            "--bind",
            f"127.0.0.1:{port}",
        ],
        cwd=ROOT,
        env=env or os.environ.copy(),
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    wait_for_port(port, "gunicorn")
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:  # answering, not only listening
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/login/", timeout=5):
                return process
        except OSError:
            time.sleep(0.2)
    raise SystemExit("gunicorn does not answer")


def stop(process: subprocess.Popen[bytes], sig: int = signal.SIGTERM) -> None:
    """Stop a process and, when it leads a session of its own, everything it started."""
    if process.poll() is not None:
        return
    if os.getpgid(process.pid) == process.pid:
        os.killpg(process.pid, sig)
    else:
        process.send_signal(sig)
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def recreate_database(url: str) -> None:
    """Drop (closing its sessions) and create the PostgreSQL database ``url`` names."""
    import psycopg

    drop_database(url)
    with psycopg.connect(_maintenance(url), autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{url.rsplit("/", 1)[1]}"')


def drop_database(url: str) -> None:
    import psycopg

    with psycopg.connect(_maintenance(url), autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{url.rsplit("/", 1)[1]}" WITH (FORCE)')


def _maintenance(url: str) -> str:
    return url.rsplit("/", 1)[0] + "/postgres"
