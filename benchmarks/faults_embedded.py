"""Fault tests of the embedded defaults (SQLite, the SQLAlchemy broker and result store,
``make demo``'s ``serve_demo``), run by ``benchmarks.faults`` in a child process configured
for them (``VAR_DIR`` in the fault tests' temporary folder, no service URL):

6. **Many jobs at once.** Four clients start 500 jobs (corpus statistics, one corpus each)
   through the HTTP API as fast as they can, on gunicorn (two processes publishing) while a
   worker runs: every request answers 201, every job runs exactly once (one attempt, its
   statistics stored), the worker never dies and is never handed a message twice.
7. **Worker killed under serve_demo.** The worker ``make demo`` runs is killed (SIGKILL): the
   reason is logged, a new worker is ready within seconds and runs a job queued after, and the
   web server answers every request all along (one every 0.1 s).
8. **No worker.** The worker is killed (SIGKILL: no clean stop removes its heartbeat) and a job
   is queued: the jobs page in Chromium says that no worker is running, within 10 s of the kill.

    python -m benchmarks.faults_embedded [embedded_load] [demo_worker_killed] [no_worker_notice]

Prints one line of JSON, the rows, last. Exit status 1 if a check fails.
"""

from __future__ import annotations

import collections
import json
import os
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import Any

from benchmarks.paths import ROOT
from benchmarks.processes import celery_worker, free_port, gunicorn, stop
from benchmarks.results import Row

CLIENTS, JOBS = 4, 500
CHROMIUM = Path(os.environ.get("CHROMIUM", "/usr/bin/chromium"))
NOTICE_TARGET_SECONDS = 10.0


def _wait(predicate: Callable[[], bool], timeout: float, what: str) -> float:
    start = time.monotonic()
    while time.monotonic() - start < timeout:
        if predicate():
            return time.monotonic() - start
        time.sleep(0.2)
    raise SystemExit(f"timed out after {timeout:.0f} s waiting for {what}")


def _answers(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/login/", timeout=5) as response:
            return bool(response.status == 200)
    except OSError:
        return False


def _clients() -> list[str]:
    """API tokens of the clients, admins each (a job-starting rate of their own)."""
    from rest_framework.authtoken.models import Token

    from annotate import roles
    from tests.annotate.factories import make_user

    return [
        Token.objects.create(user=make_user(f"client{k}", roles.ADMIN)).key for k in range(CLIENTS)
    ]


def _corpora(count: int) -> list[int]:
    from annotate.models import Corpus
    from annotate.services.corpora import corpus_import_records
    from scoring.corpus import PairRecord

    pair = PairRecord(id="a", source_tokens=["a", "cat", "sat"], target_tokens=["the", "cat"])
    for k in range(count):
        corpus_import_records(corpus_name=f"load-{k}", records=[pair])
    return list(Corpus.objects.filter(name__startswith="load-").values_list("pk", flat=True))


def _start_stats(session: Any, port: int, token: str, corpus_id: int) -> int:
    response = session.post(
        f"http://127.0.0.1:{port}/api/corpora/{corpus_id}/stats/",
        headers={"Authorization": f"Token {token}"},
        timeout=60,
    )
    return int(response.status_code)


def embedded_load(folder: Path, tokens: list[str]) -> list[Row]:
    import requests

    from annotate.models import Corpus, Job

    print(f"6. {JOBS} jobs started by {CLIENTS} clients at once on the embedded defaults")
    corpora = _corpora(JOBS)
    port = free_port()
    server = gunicorn(port, folder)
    log = folder / "embedded-worker.log"
    worker = celery_worker(
        "embedded", log, beat_schedule=folder / "beat-embedded", loglevel="INFO", concurrency=2
    )
    statuses: collections.Counter[int] = collections.Counter()
    lock = threading.Lock()

    def client(k: int) -> None:
        with requests.Session() as session:
            for corpus_id in corpora[k::CLIENTS]:
                code = _start_stats(session, port, tokens[k], corpus_id)
                with lock:
                    statuses[code] += 1

    try:
        started = time.monotonic()
        threads = [threading.Thread(target=client, args=(k,)) for k in range(CLIENTS)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        requested = time.monotonic() - started
        print(f"   {sum(statuses.values())} requests in {requested:.1f} s: {dict(statuses)}")
        unfinished = Job.objects.exclude(
            status__in=[Job.Status.SUCCEEDED, Job.Status.FAILED, Job.Status.CANCELLED]
        )
        _wait(
            lambda: not unfinished.exists() or worker.poll() is not None,
            900,
            "the jobs to finish",
        )
        finished = time.monotonic() - started
        alive = worker.poll() is None
    finally:
        stop(worker)
        stop(server)
    jobs = Job.objects.filter(kind="corpus_stats")
    once = jobs.filter(status=Job.Status.SUCCEEDED, attempts=1).count()
    with_stats = Corpus.objects.filter(pk__in=corpora, stats__pairs=1).count()
    text = log.read_text(errors="replace")
    received = sum(
        "annotate.job.corpus_stats[" in line and line.endswith("received")
        for line in text.splitlines()
    )
    twice = text.count("not claimed")
    deaths = text.count("Unrecoverable error") + text.count("Connection to broker lost")
    print(
        f"   all done {finished:.1f} s after the first request; {jobs.count()} jobs, {once} ran "
        f"exactly once; {with_stats} corpora got their statistics; the worker "
        f"{'is alive' if alive else 'DIED'}; {twice} messages handed over twice; {deaths} "
        f"broker errors in its log; it received {received} job messages",
        flush=True,
    )
    ok = (
        statuses == {201: JOBS}
        and jobs.count() == JOBS
        and once == JOBS
        and with_stats == JOBS
        and alive
        and twice == 0
        and deaths == 0
        and received == JOBS
    )
    return [
        Row(
            f"{JOBS} jobs started over HTTP by {CLIENTS} clients at once on the embedded "
            f"defaults (gunicorn, 2 processes; {finished:.0f} s): each ran exactly once, the "
            "worker lived",
            float(once),
            f"of {JOBS} jobs run once",
            target=f"{JOBS}, all requests 201, worker alive",
            met=ok,
        )
    ]


def _worker_of(demo: subprocess.Popen[bytes]) -> int:
    """serve_demo's main worker (the one with beat; the others serve the quick jobs and the
    users' jobs alone)."""
    children = Path(f"/proc/{demo.pid}/task/{demo.pid}/children").read_text().split()
    for pid in map(int, children):
        command = Path(f"/proc/{pid}/cmdline").read_bytes()
        if b"celery" in command and b"--beat" in command:
            return pid
    raise SystemExit("serve_demo has no worker")


def demo_worker_killed(folder: Path, tokens: list[str]) -> list[Row]:
    import requests

    from annotate.models import Corpus, Job

    print("7. the worker of serve_demo killed (SIGKILL) while the web server is asked all along")
    port = free_port()
    log = folder / "serve_demo.log"
    with log.open("wb") as out:
        demo = subprocess.Popen(
            [sys.executable, "manage.py", "serve_demo", "--port", str(port)],
            cwd=ROOT,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    answered = collections.Counter[bool]()
    done = threading.Event()

    def ask() -> None:
        while not done.is_set():
            answered[_answers(port)] += 1
            time.sleep(0.1)

    def ready_workers() -> int:
        return log.read_text(errors="replace").count(" ready.")

    asker = threading.Thread(target=ask)
    try:
        # three workers: the main one, the quick jobs' own and the users' jobs' own
        _wait(lambda: _answers(port) and ready_workers() == 3, 120, "serve_demo to start")
        asker.start()
        killed = _worker_of(demo)
        os.kill(killed, signal.SIGKILL)
        restarted = _wait(lambda: ready_workers() == 4, 120, "a new worker")
        corpus = Corpus.objects.get(name="load-0")
        with requests.Session() as session:
            code = _start_stats(session, port, tokens[0], corpus.pk)
        job = Job.objects.filter(corpus=corpus).latest("pk")
        _wait(lambda: Job.objects.get(pk=job.pk).is_finished, 120, "a job on the new worker")
        job.refresh_from_db()
        done.set()
        asker.join()
        demo.send_signal(signal.SIGTERM)
        exit_code = demo.wait(timeout=60)
    finally:
        done.set()
        if demo.poll() is None:
            os.killpg(demo.pid, signal.SIGKILL)
            demo.wait()
    output = log.read_text(errors="replace")
    logged = f"the worker (pid {killed}) killed by signal 9 (SIGKILL)" in output
    print(
        f"   a new worker was ready {restarted:.1f} s after the kill (reason logged: {logged}); "
        f"the server answered {answered[True]} of {sum(answered.values())} requests; a job "
        f"queued after: HTTP {code}, {job.status}; serve_demo exited {exit_code} on SIGTERM",
        flush=True,
    )
    ok = (
        logged
        and answered[False] == 0
        and answered[True] > 0
        and job.status == Job.Status.SUCCEEDED
        and exit_code == 0
    )
    return [
        Row(
            "worker killed (SIGKILL) under serve_demo: restarted, the web server answered "
            f"every request meanwhile ({answered[False]} of {sum(answered.values())} failed), "
            "a job runs after",
            restarted,
            "s to a new ready worker",
            target="restarted, 0 requests failed",
            met=ok,
        )
    ]


def _notice_in_browser(port: int, user: Any) -> Callable[[float], float]:
    """Opens the jobs page in Chromium as ``user``; the returned function waits for the
    no-worker notice and returns the monotonic time it was seen."""
    from django.conf import settings
    from django.test import Client
    from playwright.sync_api import sync_playwright

    client = Client()
    client.force_login(user)
    cookie = client.cookies[settings.SESSION_COOKIE_NAME].value

    def wait(timeout: float) -> float:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path=str(CHROMIUM), args=["--headless", "--no-sandbox"]
            )
            context = browser.new_context()
            url = f"http://127.0.0.1:{port}"
            name = settings.SESSION_COOKIE_NAME
            context.add_cookies([{"name": name, "value": cookie, "url": url}])
            page = context.new_page()
            page.goto(f"{url}/jobs/")
            page.locator("#worker-notice").wait_for(state="visible", timeout=timeout * 1000)
            seen = time.monotonic()
            browser.close()
            return seen

    return wait


def no_worker_notice(folder: Path, tokens: list[str]) -> list[Row]:
    import requests
    from rest_framework.authtoken.models import Token

    from annotate.models import Corpus
    from annotate.selectors.workers import any_worker_alive

    print("8. no worker: killed (SIGKILL), then a job is queued and the jobs page is opened")
    port = free_port()
    server = gunicorn(port, folder)
    worker = celery_worker("doomed", folder / "doomed-worker.log", loglevel="INFO")
    try:
        _wait(any_worker_alive, 120, "the worker's heartbeat")
        user = Token.objects.get(key=tokens[1]).user
        seen = _notice_in_browser(port, user) if CHROMIUM.exists() else None
        killed_at = time.monotonic()
        stop(worker, signal.SIGKILL)
        with requests.Session() as session:
            code = _start_stats(session, port, tokens[1], Corpus.objects.get(name="load-1").pk)
        if seen is not None:
            how = "the jobs page in Chromium"
            seconds = seen(30.0) - killed_at
        else:  # no browser here: what the page asks for every 2 s
            how = "the jobs list the page polls"
            headers = {"Authorization": f"Token {tokens[1]}"}

            def noticed() -> bool:
                rows = requests.get(
                    f"http://127.0.0.1:{port}/api/jobs/?status=pending", headers=headers, timeout=10
                ).json()
                return any(row["worker_notice"] for row in rows)

            seconds = _wait(noticed, 30, "the notice") + time.monotonic() - killed_at
    finally:
        stop(worker, signal.SIGKILL)
        stop(server)
    print(f"   job queued (HTTP {code}); {how} said no worker runs {seconds:.1f} s after the kill")
    return [
        Row(
            f"no worker (killed by SIGKILL), a job queued: {how} says so and how to start one",
            seconds,
            "s after the kill",
            target=f"≤ {NOTICE_TARGET_SECONDS:.0f} s",
            met=code == 201 and seconds <= NOTICE_TARGET_SECONDS,
        )
    ]


SCENARIOS = {
    "embedded_load": embedded_load,
    "demo_worker_killed": demo_worker_killed,
    "no_worker_notice": no_worker_notice,
}


def main() -> int:
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", "--no-input", verbosity=0)
    call_command("collectstatic", "--no-input", verbosity=0)  # the pages' scripts, as make demo
    folder = Path(os.environ["VAR_DIR"]).parent
    names = [name for name in sys.argv[1:] if name in SCENARIOS] or list(SCENARIOS)
    tokens = _clients()
    if "embedded_load" not in names:
        _corpora(2)  # the corpora the other scenarios queue jobs on
    rows: list[Row] = []
    for name in names:
        rows += SCENARIOS[name](folder, tokens)
    print(json.dumps([asdict(row) for row in rows], ensure_ascii=False))
    return 0 if all(row.met for row in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
