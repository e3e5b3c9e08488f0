"""A real Celery worker process against the test database and a real broker.

Run by ``make test-integration`` with ``DATABASE_URL`` pointing at PostgreSQL and
``CELERY_BROKER_URL`` at Redis (``AMQP_URL`` adds RabbitMQ). Tests here must use
``django_db(transaction=True)`` so the worker sees their rows.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.db import connection
from kombu import Connection

from tests.paths import ROOT


def _database_url() -> str:
    s = connection.settings_dict
    if s["ENGINE"] != "django.db.backends.postgresql":
        pytest.fail("the integration suite runs on PostgreSQL: set DATABASE_URL=postgres://...")
    user = s["USER"] or "postgres"
    password = f":{s['PASSWORD']}" if s["PASSWORD"] else ""
    return f"postgres://{user}{password}@{s['HOST'] or '127.0.0.1'}:{s['PORT'] or 5432}/{s['NAME']}"


#: Stands for the embedded defaults' broker, a SQLite file under the worker's VAR_DIR.
EMBEDDED = "embedded"


def broker_urls() -> list[str]:
    """The brokers to test on: ``CELERY_BROKER_URL`` first, RabbitMQ at ``AMQP_URL``, and the
    embedded broker (:data:`EMBEDDED`)."""
    urls = [os.environ.get("CELERY_BROKER_URL", "")]
    if os.environ.get("AMQP_URL"):
        urls.append(os.environ["AMQP_URL"])
    return [u for u in urls if u and not u.startswith(("sqla+", "memory://"))] + [EMBEDDED]


def broker_connection(url: str) -> Connection:
    """A connection of this test process to the broker at ``url``, to publish to it or count
    its messages, without the transport options the suite's settings give its own broker
    (Redis's visibility timeout, which the embedded SQLAlchemy transport refuses)."""
    return Connection(url)


def embedded_broker_url(tmp_path: Path) -> str:
    """The URL of the broker that a worker started by ``start_worker(EMBEDDED)`` consumes (its
    folder made, should this process publish before the worker has started)."""
    (tmp_path / "var").mkdir(exist_ok=True)
    return f"sqla+sqlite:///{tmp_path / 'var' / 'broker.sqlite3'}"


@pytest.fixture
def start_worker(tmp_path: Path) -> Iterator:
    """Start ``celery -A config worker --beat`` on a broker (of ``queues`` only, if given:
    comma-separated); stopped at the end of the test.
    Its result backend is the default for that broker (Redis: the broker; else a SQLite file
    under the test's VAR_DIR)."""
    processes: list[subprocess.Popen[bytes]] = []

    def start(
        broker_url: str, concurrency: int = 1, queues: str = "", **extra_env: str
    ) -> subprocess.Popen[bytes]:
        env = {
            **os.environ,
            "DATABASE_URL": _database_url(),
            "CELERY_BROKER_URL": broker_url,
            "VAR_DIR": str(tmp_path / "var"),
            **extra_env,
        }
        env.pop("CELERY_RESULT_BACKEND", None)
        if broker_url == EMBEDDED:
            env.pop("CELERY_BROKER_URL")
        log = open(tmp_path / f"worker-{len(processes)}.log", "wb")  # noqa: SIM115
        process = subprocess.Popen(
            [
                str(Path(sys.executable).with_name("celery")),
                "-A",
                "config",
                "worker",
                "--beat",
                "--concurrency",
                str(concurrency),
                "--loglevel",
                "INFO",
                "--schedule",
                str(tmp_path / "beat-schedule"),
                "--hostname",
                f"itest{len(processes)}@%h",
                *(["--queues", queues] if queues else []),
            ],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        process.log_path = log.name  # type: ignore[attr-defined]
        processes.append(process)
        return process

    yield start
    for process in processes:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGTERM)
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()


def wait_until(predicate, timeout: float, what: str, process=None) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        if process is not None and process.poll() is not None:
            break
        time.sleep(0.25)
    log = Path(process.log_path).read_text()[-4000:] if process is not None else ""
    pytest.fail(f"timed out waiting for {what}\n--- worker log ---\n{log}")
