"""The agreement report of RTE-2 dev as the product runs it: a job on two Celery workers.

Target: the report for MSR RTE-2 dev (800 pairs, annotators A, B and C pairwise, J = 1,000)
finishes within 60 s of being queued, on two worker processes. The corpus is imported and
prefilled with the EM aligner first (the prefill chance model of Cohn et al. 2008, §3), on the
embedded defaults (SQLite, and the broker and result store in SQLite files too) in a temporary
directory. The peer is the same report computed in this one process (``manage.py
agreement_report``'s path), timed in the same run; the two reports must be identical.

    python -m benchmarks.bench_agreement_rte2 [--samples 1000] [--workers 2]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import tempfile
import time
from pathlib import Path

from benchmarks.paths import data_dir
from benchmarks.processes import celery_worker, stop
from benchmarks.results import Row, save

TARGET_SECONDS = 60.0
ANNOTATORS = ["A", "B", "C"]


def _setup(var: Path) -> None:
    os.environ["VAR_DIR"] = str(var)
    os.environ["DATABASE_URL"] = f"sqlite:///{var}/bench.sqlite3"
    os.environ.pop("CELERY_BROKER_URL", None)  # the embedded broker and results under var/
    os.environ.pop("CELERY_RESULT_BACKEND", None)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", "--no-input", verbosity=0)


def _workers(count: int, var: Path) -> list[subprocess.Popen[bytes]]:
    return [celery_worker(f"bench{k}", var / f"worker-{k}.log") for k in range(count)]


def _wait(job_id: int, timeout: float) -> float:
    from annotate.models import Job

    start = time.perf_counter()
    last = ""
    while time.perf_counter() - start < timeout:
        job = Job.objects.get(pk=job_id)
        if job.is_finished:
            if job.status != Job.Status.SUCCEEDED:
                raise SystemExit(f"job {job_id} {job.status}: {job.error}")
            return time.perf_counter() - start
        if job.message != last:
            last = job.message
            print(f"  {job.progress:5.1f}%  {job.message}", flush=True)
        time.sleep(0.5)
    raise SystemExit(f"job {job_id} did not finish within {timeout:.0f} s")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--samples", type=int, default=1000)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    files = sorted((data_dir() / "rte2-alignments").glob("RTE2_dev_*.align.txt"))
    with tempfile.TemporaryDirectory() as tmp:
        var = Path(tmp)
        _setup(var)
        from annotate.models import Corpus
        from annotate.services.agreement import (
            agreement_compute,
            agreement_job_create,
            agreement_params,
        )
        from annotate.services.corpora import corpus_import

        corpus_import(corpus_name="RTE-2 dev", format_name="rte2", paths=files)
        corpus = Corpus.objects.get(name="RTE-2 dev")
        workers = _workers(args.workers, var)
        try:
            from annotate.services.prefill import prefill_job_create

            prefill = prefill_job_create(corpus=corpus, aligner="em")
            print(f"prefill with EM on {args.workers} workers…", flush=True)
            print(f"prefill took {_wait(prefill.pk, 600):.1f} s")
            job = agreement_job_create(
                corpus=corpus,
                annotators=ANNOTATORS,
                samples=args.samples,
                seed=1,
                chance_model="prefill",
            )
            print(f"agreement report, J = {args.samples:,}, {len(ANNOTATORS)} annotators pairwise")
            seconds = _wait(job.pk, 10 * TARGET_SECONDS)
        finally:
            for process in workers:
                stop(process)
        job.refresh_from_db()
        start = time.perf_counter()
        local = agreement_compute(
            corpus=corpus,
            annotators=ANNOTATORS,
            params=agreement_params({"samples": args.samples}, 1),
            chance_model="prefill",
        )
        one_process = time.perf_counter() - start
        same = local["annotator_pairs"] == job.result["annotator_pairs"]
        print(f"\n{'':34} {'seconds':>8}")
        print(f"{'job on ' + str(args.workers) + ' workers (queued → done)':34} {seconds:8.1f}")
        print(f"{'one process (the peer)':34} {one_process:8.1f}")
        print(f"ratio one process / job: {one_process / seconds:.2f}; identical numbers: {same}")
        ok = seconds <= TARGET_SECONDS and same
        save(
            "bench_agreement_rte2",
            [
                Row(
                    f"RTE-2 dev agreement report, J = {args.samples:,}, A/B/C pairwise, as a job "
                    f"on {args.workers} workers (identical to one process: {same})",
                    seconds,
                    "s",
                    "the same report in one process",
                    one_process,
                    one_process / seconds,
                    f"≤ {TARGET_SECONDS:.0f} s",
                    ok,
                )
            ],
        )
        print(f"target ≤ {TARGET_SECONDS:.0f} s: {'met' if ok else 'MISSED'}")
        return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
