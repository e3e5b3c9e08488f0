"""The login lockout under parallel tries, against a real server: gunicorn with two worker
processes of eight threads, on a SQLite file (the embedded default) or on the PostgreSQL test
database (the integration suite). However many tries arrive together, at most the limit get
their password checked."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests
from django.db import connection

from tests.paths import ROOT

pytestmark = [pytest.mark.slow, pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

PASSWORD = "a-long-Password-1"
LIMIT = 5
TRIES = 16


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _postgres_url() -> str:
    s = connection.settings_dict
    user = s["USER"] or "postgres"
    password = f":{s['PASSWORD']}" if s["PASSWORD"] else ""
    return f"postgres://{user}{password}@{s['HOST'] or '127.0.0.1'}:{s['PORT'] or 5432}/{s['NAME']}"


@pytest.fixture
def server(tmp_path: Path) -> Iterator[str]:
    """A gunicorn server with the user ``mallory``; its URL."""
    env = {
        **os.environ,
        "VAR_DIR": str(tmp_path / "var"),
        "CACHE_URL": "locmem://",
        "LOGIN_MAX_FAILURES": str(LIMIT),
        "LOGIN_MAX_FAILURES_PER_ADDRESS": "1000",
    }
    env.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
    create = (
        "from django.contrib.auth import get_user_model; "
        f"get_user_model().objects.create_user('mallory', password='{PASSWORD}')"
    )
    if connection.vendor == "postgresql":
        env["DATABASE_URL"] = _postgres_url()
    else:
        env.pop("DATABASE_URL", None)  # a SQLite file under the test's VAR_DIR
        manage = [sys.executable, "manage.py"]
        subprocess.run([*manage, "migrate", "-v0"], cwd=ROOT, env=env, check=True, timeout=300)
    subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", create],
        cwd=ROOT,
        env=env,
        check=True,
        timeout=120,
    )
    port = _free_port()
    log = open(tmp_path / "gunicorn.log", "wb")  # noqa: SIM115
    process = subprocess.Popen(
        [
            str(Path(sys.executable).with_name("gunicorn")),
            "config.wsgi",
            "--bind",
            f"127.0.0.1:{port}",
            "--workers",
            "2",
            "--threads",
            "8",
            "--worker-class",
            "gthread",
        ],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if requests.get(f"{url}/login/", timeout=5).status_code == 200:
                    break
            except (requests.ConnectionError, requests.Timeout):
                pass  # not up yet, or a first request slowed by a busy machine: until the deadline
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError((tmp_path / "gunicorn.log").read_text(errors="replace"))
            time.sleep(0.2)
        yield url
    finally:
        process.terminate()
        process.wait(timeout=30)
        log.close()


def _form(url: str) -> tuple[requests.Session, str]:
    session = requests.Session()
    page = session.get(f"{url}/login/", timeout=30).text
    match = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)
    assert match is not None
    return session, match.group(1)


def test_parallel_wrong_passwords_get_no_more_password_checks_than_the_limit(
    server: str,
) -> None:
    forms = [_form(server) for _ in range(TRIES)]
    start = threading.Barrier(TRIES)
    statuses: list[int] = []

    def attempt(k: int) -> None:
        session, token = forms[k]
        start.wait()
        response = session.post(
            f"{server}/login/",
            {"username": "mallory", "password": f"wrong-{k}", "csrfmiddlewaretoken": token},
            timeout=120,
            allow_redirects=False,
        )
        statuses.append(response.status_code)

    threads = [threading.Thread(target=attempt, args=(k,)) for k in range(TRIES)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    checked = statuses.count(200)  # the form again: the password was checked and was wrong
    assert statuses.count(429) == TRIES - checked, statuses
    assert checked == LIMIT, statuses
    session, token = _form(server)
    right = session.post(
        f"{server}/login/",
        {"username": "mallory", "password": PASSWORD, "csrfmiddlewaretoken": token},
        timeout=60,
        allow_redirects=False,
    )
    assert right.status_code == 429
