"""Production settings: secure by default, refused when incomplete, `check --deploy` clean."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.paths import ROOT

SECRET = "k" * 20 + "-Zq8#vX2!pL9@wR4$tY6^uI1&oP3*aS5(dF7)gH0"


# Not from this test run: the browser tests relax Django's async guard for their session,
# which ``check --deploy`` rightly reports.
NOT_INHERITED = {"DEBUG", "SECRET_KEY", "ALLOWED_HOSTS", "DJANGO_ALLOW_ASYNC_UNSAFE"}


def _manage(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if k not in NOT_INHERITED}
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.slow
def test_check_deploy_is_clean_with_the_documented_production_settings() -> None:
    result = _manage(
        "check",
        "--deploy",
        "--fail-level",
        "WARNING",
        PRODUCTION="true",
        SECRET_KEY=SECRET,
        ALLOWED_HOSTS="align.example.org",
        CACHE_URL="redis://cache:6379/1",
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"ALLOWED_HOSTS": "align.example.org"}, "SECRET_KEY must be set"),
        ({"SECRET_KEY": SECRET}, "ALLOWED_HOSTS must name"),
        ({"SECRET_KEY": SECRET, "ALLOWED_HOSTS": "a.org", "DEBUG": "true"}, "do not go together"),
    ],
)
def test_production_refuses_to_start_without_what_it_needs(
    env: dict[str, str], message: str
) -> None:
    result = _manage("check", PRODUCTION="true", **env)
    assert result.returncode != 0
    assert message in result.stderr


@pytest.mark.slow
@pytest.mark.parametrize(("cache", "warned"), [("", True), ("redis://127.0.0.1:6379/1", False)])
def test_check_deploy_asks_for_a_shared_cache_in_production(cache: str, warned: bool) -> None:
    result = _manage(
        "check",
        "--deploy",
        PRODUCTION="true",
        SECRET_KEY=SECRET,
        ALLOWED_HOSTS="align.example.org",
        CACHE_URL=cache,
    )
    assert ("annotate.W001" in result.stdout + result.stderr) is warned


# The embedded defaults: no database, broker or result backend from this test run's environment.
EMBEDDED = {"DATABASE_URL", "CELERY_BROKER_URL", "CELERY_RESULT_BACKEND"}


def _embedded_shell(script: str, var_dir: Path) -> dict[str, str]:
    """Run ``script`` in ``manage.py shell`` on the embedded defaults; its printed ``key value``
    lines as a dict."""
    env = {k: v for k, v in os.environ.items() if k not in EMBEDDED}
    result = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", script],
        cwd=ROOT,
        env={**env, "VAR_DIR": str(var_dir)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    return dict(line.split(" ", 1) for line in result.stdout.splitlines() if " " in line)


def test_the_embedded_database_reads_through_a_memory_map_with_a_larger_page_cache(
    tmp_path: Path,
) -> None:
    script = (
        "from django.db import connection\n"
        "cursor = connection.cursor()\n"
        "for name in ('journal_mode', 'synchronous', 'mmap_size', 'cache_size'):\n"
        "    print(name, cursor.execute(f'PRAGMA {name}').fetchone()[0])\n"
    )
    pragmas = _embedded_shell(script, tmp_path)
    assert {
        name: pragmas.get(name)
        for name in ("journal_mode", "synchronous", "mmap_size", "cache_size")
    } == {
        "journal_mode": "wal",
        "synchronous": "1",  # NORMAL
        "mmap_size": str(256 << 20),
        "cache_size": "-32768",  # KiB
    }


def test_the_embedded_broker_and_result_store_are_sqlite_files_under_var(tmp_path: Path) -> None:
    # Transactional stores (kombu's SQLAlchemy transport, Celery's database backend), safe with
    # several processes writing at once; files under var/ need no server.
    script = (
        "from config.celery import app\n"
        "print('broker', app.conf.broker_url)\n"
        "print('results', app.conf.result_backend)\n"
        "print('chord', app.conf.result_chord_retry_interval)\n"
    )
    figures = _embedded_shell(script, tmp_path)
    assert {name: figures.get(name) for name in ("broker", "results", "chord")} == {
        "broker": f"sqla+sqlite:///{tmp_path / 'broker.sqlite3'}",
        "results": f"db+sqlite:///{tmp_path / 'results.sqlite3'}",
        # Celery polls for a chord's end on a database backend (1 s apart by default).
        "chord": "0.25",
    }


def test_the_embedded_stores_are_in_wal_mode_and_wait_for_a_lock(tmp_path: Path) -> None:
    script = (
        "from django.conf import settings\n"
        "for name, options in (('broker', settings.CELERY_BROKER_TRANSPORT_OPTIONS),\n"
        "                      ('results', settings.CELERY_DATABASE_ENGINE_OPTIONS)):\n"
        "    connection = options['creator']()\n"
        "    mode = connection.execute('PRAGMA journal_mode').fetchone()[0]\n"
        "    wait = connection.execute('PRAGMA busy_timeout').fetchone()[0]\n"
        "    print(name, mode, wait, options['poolclass'].__name__)\n"
    )
    figures = _embedded_shell(script, tmp_path)
    assert {name: figures.get(name) for name in ("broker", "results")} == {
        "broker": "wal 20000 NullPool",
        "results": "wal 20000 NullPool",
    }


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"SESSION_IDLE_SECONDS": "10"}, "SESSION_IDLE_SECONDS=10 must be 300 or more"),
        ({"SESSION_IDLE_SECONDS": "soon"}, "SESSION_IDLE_SECONDS='soon' is not an integer"),
        (
            {"SESSION_IDLE_SECONDS": "7200", "SESSION_MAX_AGE_SECONDS": "3600"},
            "SESSION_MAX_AGE_SECONDS=3600 must be at least SESSION_IDLE_SECONDS=7200",
        ),
        ({"LOGIN_MAX_FAILURES": "0"}, "LOGIN_MAX_FAILURES=0 must be 1 or more"),
        ({"WORKER_MAX_MEMORY_MB": "-1"}, "WORKER_MAX_MEMORY_MB=-1 must be 0 (no limit) or more"),
    ],
)
def test_bad_session_and_login_limits_are_refused_by_name(
    env: dict[str, str], message: str
) -> None:
    result = _manage("check", **env)
    assert result.returncode != 0
    assert message in result.stderr


def test_the_session_cookie_outlives_the_idle_limit_so_the_idle_check_decides() -> None:
    from django.conf import settings

    assert settings.SESSION_COOKIE_AGE >= settings.SESSION_IDLE_SECONDS + 120
    assert settings.SESSION_SAVE_EVERY_REQUEST is False


@pytest.mark.slow
def test_redis_gives_a_task_out_longer_than_the_longest_run_before_handing_it_on(
    tmp_path: Path,
) -> None:
    env = {k: v for k, v in os.environ.items() if k not in EMBEDDED}
    script = (
        "from config.celery import app\n"
        "print('visibility', app.conf.broker_transport_options.get('visibility_timeout'))\n"
        "print('limit', app.conf.task_time_limit)\n"
    )
    result = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", script],
        cwd=ROOT,
        env={**env, "VAR_DIR": str(tmp_path), "CELERY_BROKER_URL": "redis://127.0.0.1:6379/9"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    figures = dict(line.split(" ", 1) for line in result.stdout.splitlines() if " " in line)
    assert int(figures["visibility"]) > int(figures["limit"])
