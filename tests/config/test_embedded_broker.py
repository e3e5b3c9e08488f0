"""The embedded defaults' job queue with several producers and consumers at once: web processes
publish while a worker takes messages, and no message is lost, read twice or read half-written.

kombu's filesystem transport fails the first test within a few dozen messages: a producer creates
the message file and only then locks and writes it, while the consumer moves and reads files
without a lock, so it reads an empty file and the worker dies with
``JSONDecodeError('Expecting value: line 1 column 1 (char 0)')``.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.paths import ROOT

# The embedded defaults: no database, broker or result backend from this test run's environment.
SERVICE_VARIABLES = ("DATABASE_URL", "CELERY_BROKER_URL", "CELERY_RESULT_BACKEND", "CACHE_URL")

RACE = """
import json, queue, threading, time
import django
django.setup()
from config.celery import app

PRODUCERS, EACH, SIZE = 4, 50, 20_000

def produce(k):
    with app.connection_for_write() as connection:
        box = connection.SimpleQueue("race")
        for n in range(EACH):
            box.put({"producer": k, "n": n, "pad": "x" * SIZE})
            time.sleep(0.01)
        box.close()

seen, crashed = [], ""
with app.connection_for_read() as connection:
    connection.transport.polling_interval = 0  # look as often as it can: the worst case
    box = connection.SimpleQueue("race")
    threads = [threading.Thread(target=produce, args=(k,)) for k in range(PRODUCERS)]
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + 60
    try:
        while len(seen) < PRODUCERS * EACH and time.monotonic() < deadline:
            try:
                message = box.get(timeout=1)
            except queue.Empty:
                continue
            body = message.payload
            seen.append([body["producer"], body["n"], len(body["pad"])])
            message.ack()
    except Exception as error:
        crashed = repr(error)
    for thread in threads:
        thread.join()
print("RESULT", json.dumps({"seen": seen, "crashed": crashed, "broker": app.conf.broker_url}))
"""


def _embedded_env(var_dir: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in SERVICE_VARIABLES}
    return {**env, "VAR_DIR": str(var_dir), "DJANGO_SETTINGS_MODULE": "config.settings", **extra}


def test_four_producers_and_a_greedy_consumer_lose_no_message_and_read_none_half_written(
    tmp_path: Path,
) -> None:
    result = subprocess.run(
        [sys.executable, "-c", RACE],
        cwd=ROOT,
        env=_embedded_env(tmp_path / "var"),
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    outcome = json.loads(result.stdout.split("RESULT ", 1)[1])
    assert outcome["broker"].startswith("sqla+sqlite:///"), "the embedded default is tested"
    assert outcome["crashed"] == ""
    seen = [tuple(item) for item in outcome["seen"]]
    assert sorted(seen) == [(k, n, 20_000) for k in range(4) for n in range(50)]


# A web process: a corpus of its own, then one job after another, each sent when its
# transaction commits. Distinct seeds make distinct jobs (an identical request would reuse one).
PRODUCE_JOBS = """
import django
django.setup()
from django.db import transaction
from annotate.models import Corpus
from annotate.services.corpora import corpus_import_records
from annotate.services.stats import corpus_stats_run
from scoring.corpus import PairRecord

name = "producer-{producer}"
records = [PairRecord(id="a", source_tokens=["a", "cat"], target_tokens=["the", "cat"])]
corpus_import_records(corpus_name=name, records=records)
corpus = Corpus.objects.get(name=name)
for seed in range({count}):
    with transaction.atomic():
        corpus_stats_run.create(corpus=corpus, seed=seed)
"""

JOB_STATES = """
import json
import django
django.setup()
from annotate.models import Job, WorkerHeartbeat
print("RESULT", json.dumps(list(Job.objects.values_list("status", "attempts"))))
print("WORKERS", json.dumps(list(WorkerHeartbeat.objects.values_list("hostname", "queues"))))
"""


def _manage_python(script: str, env: dict[str, str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", script],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _job_states(env: dict[str, str]) -> tuple[list[tuple[str, int]], list[list[str]]]:
    """The jobs' (status, attempts), and the workers with a heartbeat row (hostname, queues)."""
    done = subprocess.run(
        [sys.executable, "-c", JOB_STATES],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    jobs, workers = done.stdout.split("RESULT ", 1)[1].split("WORKERS ")
    return [tuple(row) for row in json.loads(jobs)], json.loads(workers)


@pytest.mark.integration
def test_jobs_published_by_four_processes_at_once_each_run_once_on_a_worker(
    tmp_path: Path,
) -> None:
    env = _embedded_env(tmp_path / "var")
    manage = [sys.executable, str(ROOT / "manage.py")]
    subprocess.run([*manage, "migrate", "--no-input", "-v", "0"], env=env, cwd=ROOT, check=True)
    log = (tmp_path / "worker.log").open("wb")
    celery = str(Path(sys.executable).with_name("celery"))
    options = ["--concurrency", "2", "--loglevel", "INFO", "--hostname", "embedded@test"]
    worker = subprocess.Popen(
        [celery, "-A", "config", "worker", *options],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        producers = [
            _manage_python(PRODUCE_JOBS.format(count=15, producer=k), env) for k in range(4)
        ]
        for producer in producers:
            _, errors = producer.communicate(timeout=180)
            assert producer.returncode == 0, errors[-3000:]
        deadline = time.monotonic() + 180
        while True:
            states, workers = _job_states(env)
            if all(status == "succeeded" for status, _ in states) or time.monotonic() > deadline:
                break
            assert worker.poll() is None, (tmp_path / "worker.log").read_text()[-3000:]
            time.sleep(1)
        assert worker.poll() is None, "the worker is still running"
        assert workers == [["embedded@test", ",celery,chunks,quick,users,"]], (
            "it reports that it is alive, and that without -Q it takes jobs from every queue"
        )
    finally:
        worker.send_signal(signal.SIGTERM)  # a warm shutdown, as serve_demo does
        try:
            worker.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(worker.pid, signal.SIGKILL)
            worker.wait()
        log.close()
    assert states == [("succeeded", 1)] * 60, (tmp_path / "worker.log").read_text()[-3000:]
    assert _job_states(env)[1] == [], "a worker that stopped cleanly removed its heartbeat"


def test_a_channel_read_by_one_thread_and_written_by_another_keeps_working(tmp_path: Path) -> None:
    """A worker's main thread polls while its pool's result thread puts a message back (the
    reject of a task whose pool process died): both through the channel's one session."""
    import threading

    from kombu import Connection

    import config.celery  # noqa: F401  # registers the embedded transport under sqla+

    errors: list[BaseException] = []
    stop = threading.Event()
    with Connection(f"sqla+sqlite:///{tmp_path / 'broker.sqlite3'}") as connection:
        channel = connection.default_channel
        channel._new_queue("q")

        def poll() -> None:
            while not stop.is_set():
                try:
                    channel._get("q")
                except Exception as error:  # Empty, or the session broken by the other thread
                    if type(error).__name__ != "Empty":
                        errors.append(error)
                        return

        def put_back() -> None:
            try:
                for n in range(300):
                    channel._put("q", {"body": n})
            except Exception as error:
                errors.append(error)

        threads = [threading.Thread(target=poll), threading.Thread(target=put_back)]
        for thread in threads:
            thread.start()
        threads[1].join(120)
        stop.set()
        threads[0].join(120)
    assert not errors, repr(errors[0])


def test_a_message_taken_leaves_no_row_behind_nor_do_those_kombu_kept(tmp_path: Path) -> None:
    """A broker that kept every message it ever handed out made each look at an idle queue
    read them all: after months of a demo, seconds of a core every second. Rows that kombu's
    own ``_get`` left (marked invisible) go too."""
    import sqlite3

    from kombu import Connection

    import config.celery  # noqa: F401  # registers the embedded transport under sqla+

    path = tmp_path / "broker.sqlite3"
    with Connection(f"sqla+sqlite:///{path}") as connection:
        box = connection.SimpleQueue("q")
        for n in range(5):
            box.put({"n": n})
        box.close()
    with sqlite3.connect(path) as database:  # two of them as kombu's own _get leaves them
        database.execute("UPDATE kombu_message SET visible = 0 WHERE id IN (1, 2)")
    with Connection(f"sqla+sqlite:///{path}") as connection:
        box = connection.SimpleQueue("q")
        taken = []
        for _ in range(3):
            message = box.get(timeout=5)
            taken.append(message.payload["n"])
            message.ack()
        box.close()
    assert taken == [2, 3, 4]
    with sqlite3.connect(path) as database:
        assert database.execute("SELECT count(*) FROM kombu_message").fetchone() == (0,)


@pytest.mark.integration
def test_a_broker_on_postgresql_under_sqla_takes_its_messages_the_way_kombu_does() -> None:
    """The transport is registered under every ``sqla+`` name: on a database other than
    SQLite it takes messages as kombu does (SQLite's ``BEGIN IMMEDIATE`` is a syntax error
    there)."""
    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith(("postgres://", "postgresql://")):
        pytest.skip("needs DATABASE_URL on PostgreSQL (the integration suite's)")
    import sqlalchemy
    from kombu import Connection

    import config.celery  # noqa: F401  # registers the embedded transport under sqla+

    database = "postgresql+psycopg://" + url.split("://", 1)[1]
    with Connection(f"sqla+{database}") as connection:
        box = connection.SimpleQueue("embedded-on-postgres")
        try:
            for n in range(3):
                box.put({"n": n})
            taken = []
            for _ in range(3):
                message = box.get(timeout=5)
                taken.append(message.payload["n"])
                message.ack()
        finally:
            box.close()
    assert taken == [0, 1, 2]
    engine = sqlalchemy.create_engine(database)
    with engine.begin() as tables:
        tables.execute(sqlalchemy.text("DROP TABLE IF EXISTS kombu_message, kombu_queue CASCADE"))
    engine.dispose()
