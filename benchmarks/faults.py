"""Fault tests on real processes (``make faults``); the last output goes to
``benchmarks/results/faults.json``.

1. **Broker down.** Jobs are requested while the broker (a Redis server of this script's own)
   is stopped: each request answers at once, the job waits as pending with the reason, and
   saving annotations keeps working. When the broker is back, the jobs are sent and a worker
   runs them.
2. **Worker killed mid-job.** An EM prefill of 3,000 pairs runs on a worker that is killed
   (SIGKILL) while it computes. The job is marked failed with the reason, never left running;
   run again on another worker it succeeds, and its prefills equal those of the same aligner
   run in one process.
3. **Worker killed mid-import.** An uploaded corpus of 20,000 pairs is stored by gunicorn and
   imported by a worker, which is killed (SIGKILL) while it writes; the job is marked failed
   and the corpus is not there at all (the import is one transaction); the same upload then
   succeeds whole on another worker.
4. **Oversized and malicious uploads.** At the default ``MAX_UPLOAD_BYTES`` (200 MB), a body
   above it is refused before it is read; a file just under it that is one JSON line is stored,
   and its import job fails naming the file, line and field.
   The peak memory of every gunicorn process and of the worker stays bounded (well under the
   file's size).
5. **PostgreSQL restarted during saves** (``--postgres-restart``; it restarts the machine's
   PostgreSQL cluster, so nothing else should be using it): an annotator saves every 50 ms
   through gunicorn, retrying what failed as the workspace's save queue does, while the
   database restarts. Afterwards the stored alignment is the last acknowledged one, and the
   version counts each change once (nothing lost, nothing applied twice).
6. **Many jobs at once**, 7. **worker killed under serve_demo**, 8. **no worker**: on the
   embedded defaults, see :mod:`benchmarks.faults_embedded`.

Scenarios 1–4 use their own SQLite database, a Redis broker and a file result store in a
temporary directory; scenario 5 a scratch PostgreSQL database; scenarios 6–8 the embedded
defaults (SQLite, the SQLAlchemy broker and result store) in a child process. ``--only`` runs
some scenarios and keeps the others' last rows. Exit status 1 if a check fails.

    python -m benchmarks.faults [--postgres-restart] [--only embedded_load,no_worker_notice]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmarks.paths import ROOT
from benchmarks.processes import (
    celery_worker,
    drop_database,
    free_port,
    gunicorn,
    recreate_database,
    stop,
    wait_for_port,
)
from benchmarks.results import RESULTS, Row, save


def _wait(predicate: Callable[[], bool], timeout: float, what: str) -> float:
    start = time.perf_counter()
    while time.perf_counter() - start < timeout:
        if predicate():
            return time.perf_counter() - start
        time.sleep(0.25)
    raise SystemExit(f"timed out after {timeout:.0f} s waiting for {what}")


def _redis(port: int, folder: Path) -> subprocess.Popen[bytes]:
    process = subprocess.Popen(
        [
            "redis-server",
            "--port",
            str(port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            str(folder),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    wait_for_port(port, "redis-server")
    return process


def _worker(folder: Path, name: str, beat: bool = False) -> subprocess.Popen[bytes]:
    schedule = folder / f"beat-{name}" if beat else None
    return celery_worker(name, folder / f"{name}.log", beat_schedule=schedule, loglevel="INFO")


def _setup(folder: Path, broker_port: int) -> None:
    os.environ.update(
        VAR_DIR=str(folder / "var"),
        DATABASE_URL=f"sqlite:///{folder}/faults.sqlite3",
        CELERY_BROKER_URL=f"redis://127.0.0.1:{broker_port}/0",
        CELERY_RESULT_BACKEND=f"file://{folder}/results",
        CACHE_URL="locmem://",
        JOB_HEARTBEAT_TIMEOUT_SECONDS="6",
        JOB_REAP_INTERVAL_SECONDS="2",
        DJANGO_SETTINGS_MODULE="config.settings",
    )
    (folder / "results").mkdir()
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", "--no-input", verbosity=0)


def _corpus(pairs: int) -> Any:
    import numpy as np

    from annotate.models import Corpus
    from annotate.services.corpora import corpus_import_records
    from benchmarks.bench_em import synthetic_corpus
    from scoring.corpus import PairRecord

    rng = np.random.default_rng(3)
    records = [
        PairRecord(id=f"p{k}", source_tokens=src, target_tokens=tgt)
        for k, (src, tgt) in enumerate(synthetic_corpus(pairs, rng, vocab=2000))
    ]
    corpus_import_records(corpus_name="faults", records=records)
    return Corpus.objects.get(name="faults")


def broker_down(folder: Path, port: int) -> list[Row]:
    from django.db import transaction

    from annotate import jobs_runtime, roles
    from annotate.models import Job
    from annotate.services.annotations import annotation_open, annotation_save
    from annotate.services.stats import corpus_stats_run
    from tests.annotate.factories import make_assignment, make_user

    corpus = _corpus(50)
    print("1. broker down: requesting jobs while the broker is stopped", flush=True)
    start = time.perf_counter()
    with transaction.atomic():
        job = corpus_stats_run.create(corpus=corpus)
    answered = time.perf_counter() - start
    job.refresh_from_db()
    waiting = job.status == Job.Status.PENDING and job.message == jobs_runtime.UNSENT
    print(
        f"   the request answered in {answered:.2f} s; job {job.pk}: {job.status}, “{job.message}”"
    )
    annotator = make_user("ann", roles.ANNOTATOR)
    assignment = make_assignment(corpus.pairs.first(), annotator)
    annotation_open(assignment=assignment, actor=annotator)
    saved = annotation_save(
        assignment=assignment, actor=annotator, base_version=1, links={(0, 0): True}
    ).changed
    print(f"   an annotation save while the broker is down: {'stored' if saved else 'FAILED'}")

    redis = _redis(port, folder)
    worker = _worker(folder, "faults-broker", beat=True)
    try:
        # the worker's beat sends the waiting job (no call from here)
        seconds = _wait(lambda: Job.objects.get(pk=job.pk).is_finished, 120, "the job to run")
        job.refresh_from_db()
        print(
            f"   broker back: job {job.pk} {job.status} {seconds:.1f} s after the broker "
            "started (sent by the worker's beat)",
            flush=True,
        )
    finally:
        stop(worker)
        stop(redis)
    ok = waiting and saved and answered < 5 and job.status == Job.Status.SUCCEEDED
    return [
        Row(
            "broker down: the request answers, the job waits, saves work; then it runs",
            answered,
            "s",
            target="request < 5 s, job succeeds after",
            met=ok,
        )
    ]


def worker_killed(folder: Path, port: int) -> list[Row]:
    from annotate.models import AutoAlignment, Job
    from annotate.services.jobs import jobs_reap_stale
    from annotate.services.prefill import prefill_job_create
    from scoring.aligners import get_aligner

    big = _corpus_big()
    redis = _redis(port, folder)
    try:
        print(
            "2. worker killed: an EM prefill of 3,000 pairs, SIGKILL while it computes", flush=True
        )
        doomed = _worker(folder, "faults-doomed")
        job = prefill_job_create(corpus=big, aligner="em")
        _wait(lambda: Job.objects.get(pk=job.pk).progress >= 2, 120, "the prefill to start")
        time.sleep(1.0)
        os.killpg(doomed.pid, signal.SIGKILL)
        doomed.wait()
        print(f"   killed the worker at {Job.objects.get(pk=job.pk).progress:.0f}%", flush=True)
        _wait(
            lambda: jobs_reap_stale() > 0 or Job.objects.get(pk=job.pk).is_finished,
            60,
            "the dead worker's job to be marked",
        )
        job.refresh_from_db()
        print(f"   job {job.pk}: {job.status}: {job.error}")
        marked = job.status == Job.Status.FAILED and "stopped responding" in job.error

        survivor = _worker(folder, "faults-survivor")
        try:
            again = prefill_job_create(corpus=big, aligner="em")
            _wait(lambda: Job.objects.get(pk=again.pk).is_finished, 300, "the re-run")
            again.refresh_from_db()
        finally:
            stop(survivor)
        print(f"   re-run, job {again.pk}: {again.status}", flush=True)
        rows = list(
            big.pairs.order_by("position").values_list("id", "source_tokens", "target_tokens")
        )
        aligner = get_aligner("em")
        aligner.fit([(list(s), list(t)) for _, s, t in rows])
        same = 0
        for pid, src, tgt in rows[:200]:
            newest = AutoAlignment.objects.filter(pair_id=pid).order_by("-id").first()
            stored = {(i, j, sure) for i, j, sure in newest.links.values_list("i", "j", "sure")}
            output = aligner.align(list(src), list(tgt)).alignment
            expected = {(i, j, (i, j) in output.sure) for i, j in output.possible}
            same += stored == expected
        print(f"   prefills equal to one process's on {same} of 200 pairs checked")
    finally:
        stop(redis)
    ok = marked and again.status == Job.Status.SUCCEEDED and same == 200
    return [
        Row(
            "worker killed mid-job: marked failed with the reason; re-run identical",
            float(same),
            "of 200 pairs identical",
            target="failed, then identical",
            met=ok,
        )
    ]


def worker_killed_mid_import(folder: Path, port: int) -> list[Row]:
    import requests
    from rest_framework.authtoken.models import Token

    from annotate import roles
    from annotate.models import Job, SentencePair
    from annotate.services.jobs import jobs_reap_stale
    from benchmarks.bench_import import write_corpus
    from tests.annotate.factories import make_user

    print(
        "3. worker killed mid-import: 20,000 pairs uploaded, the worker importing them killed",
        flush=True,
    )
    token = Token.objects.create(user=make_user("uploader", roles.ADMIN)).key
    corpus_file = folder / "upload.jsonl"
    write_corpus(corpus_file, 20_000)
    web_port = free_port()
    url = f"http://127.0.0.1:{web_port}/api/corpora/import/"
    headers = {"Authorization": f"Token {token}"}

    def upload() -> tuple[requests.Response, float]:
        start = time.perf_counter()
        with corpus_file.open("rb") as handle:
            response = requests.post(
                url,
                headers=headers,
                timeout=600,
                data={"corpus": "uploaded", "format": "jsonl"},
                files={"files": ("upload.jsonl", handle)},
            )
        return response, time.perf_counter() - start

    def running(job_id: int) -> bool:
        return Job.objects.get(pk=job_id).status == Job.Status.RUNNING

    redis = _redis(port, folder)
    server = gunicorn(web_port, folder)
    try:
        doomed = _worker(folder, "faults-importer")
        first, seconds = upload()
        job_id = first.json()["id"]
        print(f"   the upload answered {first.status_code} in {seconds:.1f} s: job {job_id}")
        _wait(lambda: running(job_id), 120, "the import to start")
        time.sleep(3.0)  # the import is writing its one transaction (about 15 s in all)
        os.killpg(doomed.pid, signal.SIGKILL)
        doomed.wait()
        _wait(
            lambda: jobs_reap_stale() > 0 or Job.objects.get(pk=job_id).is_finished,
            60,
            "the dead worker's job to be marked",
        )
        job = Job.objects.get(pk=job_id)
        left = SentencePair.objects.filter(corpus__name="uploaded").count()
        print(f"   job {job_id}: {job.status}: {job.error}; {left} pairs of the corpus stored")
        survivor = _worker(folder, "faults-importer-2")
        try:
            again, _ = upload()
            again_id = again.json()["id"]
            _wait(lambda: Job.objects.get(pk=again_id).is_finished, 300, "the second import")
        finally:
            stop(survivor)
        done = Job.objects.get(pk=again_id)
        stored = SentencePair.objects.filter(corpus__name="uploaded").count()
        print(f"   the same upload again: job {again_id} {done.status}, {stored:,} pairs stored")
    finally:
        stop(server)
        stop(redis)
    ok = (
        first.status_code == 201
        and job.status == Job.Status.FAILED
        and left == 0
        and done.status == Job.Status.SUCCEEDED
        and stored == 20_000
    )
    return [
        Row(
            "worker killed mid-import: nothing stored, the job failed; the upload again stores "
            "it whole",
            float(left),
            "pairs left behind",
            target="0, then 20,000",
            met=ok,
        )
    ]


def _peak_rss_mb(process: subprocess.Popen[bytes]) -> float:
    """The largest peak resident set (VmHWM) of a process and its children, in MB."""
    pids = [process.pid]
    children = Path(f"/proc/{process.pid}/task/{process.pid}/children")
    if children.exists():
        pids += [int(pid) for pid in children.read_text().split()]
    peak = 0
    for pid in pids:
        with contextlib.suppress(OSError):
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmHWM:"):
                    peak = max(peak, int(line.split()[1]))
    return peak / 1024


def malicious_uploads(folder: Path, port: int) -> list[Row]:
    import requests
    from django.conf import settings
    from rest_framework.authtoken.models import Token

    from annotate import roles
    from annotate.models import Corpus, Job
    from tests.annotate.factories import make_user

    print("4. oversized and malicious uploads", flush=True)
    token = Token.objects.create(user=make_user("attacker-admin", roles.ADMIN)).key
    headers = {"Authorization": f"Token {token}"}
    web_port = free_port()
    url = f"http://127.0.0.1:{web_port}/api/corpora/import/"
    limit = settings.MAX_UPLOAD_BYTES  # the default a server runs with
    megabyte = b"a" * (1024 * 1024)
    huge = folder / "huge.jsonl"  # just over the limit
    with huge.open("wb") as out:
        for _ in range((limit >> 20) + 1):
            out.write(megabyte)
    line = folder / "one-line.jsonl"  # just under the limit, one line
    with line.open("wb") as out:
        out.write(b'{"id": "p", "source_tokens": ["')
        for _ in range((limit >> 20) - 1):
            out.write(megabyte)
        out.write(b'"], "target_tokens": ["b"]}\n')
    redis = _redis(port, folder)
    server = gunicorn(web_port, folder)
    worker = _worker(folder, "faults-uploads")
    try:
        base = _peak_rss_mb(server)
        answers = {}
        for name, path in (("over the limit", huge), ("one line under the limit", line)):
            with path.open("rb") as handle:
                response = requests.post(
                    url,
                    headers=headers,
                    timeout=300,
                    data={"corpus": "evil", "format": "jsonl"},
                    files={"files": (path.name, handle)},
                )
            message = ""
            if response.status_code == 400:
                message = response.json().get("error", {}).get("message", "")
            elif response.status_code == 201:  # stored; its import job reads the line
                job_id = response.json()["id"]
                _wait(lambda j=job_id: Job.objects.get(pk=j).is_finished, 300, "the import job")
                message = Job.objects.get(pk=job_id).error
            answers[name] = (response.status_code, message)
            print(f"   {name}: HTTP {response.status_code}: {message[:120]}")
        peak = _peak_rss_mb(server)
        worker_peak = _peak_rss_mb(worker)
    finally:
        stop(worker)
        stop(server)
        stop(redis)
    print(
        f"   peak memory of a gunicorn process: {peak:.0f} MB (at start {base:.0f} MB), of the "
        f"worker: {worker_peak:.0f} MB; the files are {huge.stat().st_size >> 20} and "
        f"{line.stat().st_size >> 20} MB"
    )
    over, one_line = answers["over the limit"], answers["one line under the limit"]
    refused = over[0] == 400 and one_line[0] == 201 and "one-line.jsonl" in one_line[1]
    stored = Corpus.objects.filter(name="evil").exists()
    ok = refused and not stored and peak < base + 100 and worker_peak < 500
    return [
        Row(
            "oversized upload refused, one-line upload's import failed with the file named, "
            "nothing stored; peak memory of a server process",
            peak,
            "MB",
            target="400, failed job, ≤ start + 100 MB",
            met=ok,
        )
    ]


def _try(call: Callable[[], Any]) -> str:
    try:
        response = call()
    except Exception as error:  # the connection dies with the server
        return type(error).__name__
    return f"HTTP {response.status_code}"


PG_URL = "postgres://postgres@127.0.0.1:5432/faults_saves"


def _cluster_restart() -> None:
    version = sorted(os.listdir("/etc/postgresql"))[-1]
    subprocess.run(
        ["pg_ctlcluster", "--skip-systemctl-redirect", version, "main", "restart"],
        check=True,
        capture_output=True,
    )


def postgres_restart(folder: Path) -> list[Row]:
    print("5. PostgreSQL restarted while an annotator saves every 50 ms", flush=True)
    recreate_database(PG_URL)
    env = {
        **os.environ,
        "DATABASE_URL": PG_URL,
        "DATABASE_CONN_MAX_AGE": "60",
        "FAULTS_FOLDER": str(folder),
    }
    try:
        child = subprocess.run(
            [sys.executable, "-m", "benchmarks.faults", "--postgres-saves"],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
        )
    finally:
        drop_database(PG_URL)
    print(child.stdout.rstrip())
    if not child.stdout.strip():
        raise SystemExit(f"scenario 5 failed:\n{child.stderr[-3000:]}")
    result = json.loads(child.stdout.strip().splitlines()[-1])
    return [
        Row(
            f"PostgreSQL restarted during saves: {result['acknowledged']} acknowledged "
            f"saves, {result['retries']} retried, {result['lost']} lost, "
            f"{result['duplicated']} applied twice",
            float(result["lost"]),
            "saves lost",
            target="0 lost, 0 applied twice",
            met=result["ok"],
        )
    ]


def postgres_saves() -> int:
    """Child of scenario 5: the database is ``DATABASE_URL`` (PostgreSQL)."""
    import django

    os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings"
    django.setup()
    from django.core.management import call_command

    call_command("migrate", "--no-input", verbosity=0)
    import requests
    from django.db import connections
    from rest_framework.authtoken.models import Token

    from annotate import roles
    from annotate.models import Annotation, AnnotationEvent
    from annotate.services.annotations import annotation_links, annotation_open
    from tests.annotate.factories import make_assignment, make_pair, make_user

    folder = Path(os.environ["FAULTS_FOLDER"])
    user = make_user("saver", roles.ANNOTATOR)
    words = " ".join(f"w{k}" for k in range(20))
    assignment = make_assignment(make_pair(source=words, target=words, prefill=None), user)
    annotation_open(assignment=assignment, actor=user)
    token = Token.objects.create(user=user).key
    port = free_port()
    server = gunicorn(port, folder)
    url = f"http://127.0.0.1:{port}/api/assignments/{assignment.pk}/annotation/"
    headers = {"Authorization": f"Token {token}"}
    links: dict[tuple[int, int], str] = {}
    version, acknowledged, retries, changes = 1, 0, 0, 0
    restarted = False
    start = time.monotonic()
    try:
        for k in range(160):
            cell = (k % 20, (k * 7) % 20)
            if cell in links:
                del links[cell]
            else:
                links[cell] = "S"
            changes += 1
            body = {"version": version, "links": [[i, j, v] for (i, j), v in sorted(links.items())]}
            while True:  # the save queue's rule: resend the same change until it is answered
                try:
                    response = requests.put(url, json=body, headers=headers, timeout=10)
                except requests.RequestException:
                    response = None
                if response is not None and response.status_code == 200:
                    version = response.json()["version"]
                    acknowledged += 1
                    break
                retries += 1
                time.sleep(0.2)
                if time.monotonic() - start > 300:
                    raise SystemExit("saves did not recover within 300 s")
            if k == 40 and not restarted:  # restart while the saves go on
                restarter = threading.Thread(target=_cluster_restart)
                restarter.start()
                restarted = True
            time.sleep(0.05)
        restarter.join()
    finally:
        stop(server)
    connections.close_all()  # this process's own connection died with the server
    annotation = Annotation.objects.get(assignment=assignment)
    stored = {
        (i, j): ("S" if sure else "P") for (i, j), sure in annotation_links(annotation).items()
    }
    edits = AnnotationEvent.objects.filter(annotation=annotation, kind="edited").count()
    lost = int(stored != links)
    duplicated = max(0, edits - changes)
    ok = lost == 0 and duplicated == 0 and edits == changes and annotation.version == version
    print(
        f"   {acknowledged} saves acknowledged, {retries} retries across the restart; stored "
        f"version {annotation.version} (last acknowledged {version}), {edits} edits logged "
        f"for {changes} changes"
    )
    print(
        json.dumps(
            {
                "acknowledged": acknowledged,
                "retries": retries,
                "lost": lost,
                "duplicated": duplicated,
                "ok": ok,
            }
        )
    )
    return 0 if ok else 1


def _corpus_big() -> Any:
    from annotate.models import Corpus

    Corpus.objects.filter(name="faults").delete()
    return _corpus(3000)


#: Every scenario, in the order they run and report; the first of each row's text says which.
SCENARIOS = {
    "broker_down": "broker down:",
    "worker_killed": "worker killed mid-job",
    "worker_killed_import": "worker killed mid-import",
    "uploads": "oversized and one-line uploads",
    "postgres_restart": "PostgreSQL restarted",
    "embedded_load": "500 jobs started over HTTP",
    "demo_worker_killed": "worker killed (SIGKILL) under serve_demo",
    "no_worker_notice": "no worker (killed by SIGKILL)",
}
#: Scenarios of the embedded defaults, run by ``benchmarks.faults_embedded`` in a child process.
EMBEDDED = ("embedded_load", "demo_worker_killed", "no_worker_notice")
#: What a child process on the embedded defaults must not inherit from this one.
SERVICES = ("DATABASE_URL", "CELERY_BROKER_URL", "CELERY_RESULT_BACKEND", "CACHE_URL")


def embedded(folder: Path, names: list[str]) -> list[Row]:
    """Scenarios 6-8 in a child process on the embedded defaults under ``folder/embedded``."""
    env = {k: v for k, v in os.environ.items() if k not in SERVICES}
    env.pop("JOB_HEARTBEAT_TIMEOUT_SECONDS", None)
    env.pop("JOB_REAP_INTERVAL_SECONDS", None)
    env.update(
        VAR_DIR=str(folder / "embedded" / "var"),
        DJANGO_SETTINGS_MODULE="config.settings",
        # Four clients start 500 jobs within a minute or two: far above the per-user rates.
        API_RATE_JOBS="100000/hour",
        API_RATE_USER="100000/min",
        # The browser of scenario 8 runs an event loop in the thread that reads the database.
        DJANGO_ALLOW_ASYNC_UNSAFE="true",
    )
    (folder / "embedded").mkdir(exist_ok=True)
    child = subprocess.run(
        [sys.executable, "-m", "benchmarks.faults_embedded", *names],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=3600,
    )
    lines = child.stdout.strip().splitlines()
    print("\n".join(lines[:-1]), flush=True)
    try:
        return [Row(**row) for row in json.loads(lines[-1])]
    except (IndexError, ValueError, TypeError):
        raise SystemExit(f"the embedded scenarios failed:\n{child.stderr[-3000:]}") from None


def _previous_rows(names: set[str]) -> tuple[list[tuple[str, Row]], dict[str, str]]:
    """The rows of the scenarios ``names`` in the last results file, with their scenario, and
    when each of those scenarios ran (a row carried over keeps the date it was measured)."""
    path = RESULTS / "faults.json"
    if not path.exists():
        return [], {}
    body = json.loads(path.read_text(encoding="utf-8"))
    dates = body["details"].get("carried_over") or {}
    kept, when = [], {}
    for row in body["rows"]:
        for name in names:
            if row["what"].startswith(SCENARIOS[name]):
                kept.append((name, Row(**row)))
                when[name] = dates.get(name, body["date"])
    return kept, when


def main() -> int:
    if "--postgres-saves" in sys.argv:  # the child of scenario 5, on the scratch database
        return postgres_saves()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--postgres-restart",
        action="store_true",
        help="also scenario 5, which restarts the machine's PostgreSQL cluster",
    )
    parser.add_argument(
        "--only",
        metavar="NAMES",
        help="run only these comma-separated scenarios (the others keep their last rows in the "
        f"results file): {', '.join(SCENARIOS)}",
    )
    args = parser.parse_args()
    chosen = set(SCENARIOS) if not args.only else set(args.only.split(","))
    if unknown := chosen - set(SCENARIOS):
        parser.error(f"unknown scenarios: {', '.join(sorted(unknown))}")
    if not args.postgres_restart:
        chosen.discard("postgres_restart")
    ran: list[tuple[str, Row]] = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        if chosen & {"broker_down", "worker_killed", "worker_killed_import", "uploads"}:
            port = free_port()
            _setup(folder, port)
            steps: dict[str, Callable[[], list[Row]]] = {
                "broker_down": lambda: broker_down(folder, port),
                "worker_killed": lambda: worker_killed(folder, port),
                "worker_killed_import": lambda: worker_killed_mid_import(folder, port),
                "uploads": lambda: malicious_uploads(folder, port),
            }
            for name, step in steps.items():
                if name in chosen:
                    ran += [(name, row) for row in step()]
        if "postgres_restart" in chosen:
            ran += [("postgres_restart", row) for row in postgres_restart(folder)]
        if names := [name for name in EMBEDDED if name in chosen]:
            rows = embedded(folder, names)
            ran += [(_scenario_of(row), row) for row in rows]
        logs = {
            path.name: path.read_text(errors="replace")[-2000:] for path in folder.rglob("*.log")
        }
    carried, dates = _previous_rows(set(SCENARIOS) - chosen)
    order = list(SCENARIOS)
    results = sorted(ran + carried, key=lambda item: order.index(item[0]))
    rows = [row for _, row in results]
    # The scenarios not run this time (scenario 5 without --postgres-restart, the others
    # without --only naming them) keep their last rows, with the date they ran.
    save("faults", rows, worker_logs=logs, carried_over=dates)
    failed = [row.what for row in rows if not row.met]
    print(json.dumps({"failed": failed}, ensure_ascii=False))
    return 1 if failed else 0


def _scenario_of(row: Row) -> str:
    return next(name for name, start in SCENARIOS.items() if row.what.startswith(start))


if __name__ == "__main__":
    raise SystemExit(main())
