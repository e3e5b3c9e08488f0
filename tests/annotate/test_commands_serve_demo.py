"""``manage.py serve_demo``: the web server and a worker on the embedded defaults, stopped
together and cleanly."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from annotate.management.commands.serve_demo import GRACE_SECONDS
from tests.paths import ROOT

# The embedded defaults: SQLite and the filesystem broker under VAR_DIR.
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
        _wait_until(lambda: " ready." in log.read_text(errors="replace"), "the worker was ready")
        started = time.monotonic()
        demo.send_signal(signal.SIGTERM)
        assert demo.wait(timeout=GRACE_SECONDS + 15) == 0
        # Within the grace period: nothing had to be killed.
        assert time.monotonic() - started < GRACE_SECONDS
    finally:
        if demo.poll() is None:
            os.killpg(demo.pid, signal.SIGKILL)
    output = log.read_text(errors="replace")
    assert "stopped server and worker" in output
    assert "Warm shutdown" in output
    # The pool's processes were stopped by the worker, not signalled from outside mid-task.
    assert "exited with 'signal" not in output
    assert _processes_mentioning(str(tmp_path)) == []
