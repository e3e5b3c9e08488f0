from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from django.core.management.base import CommandError, CommandParser

from annotate.management.commands._base import JobCommand
from annotate.services.agreement import (
    DEFAULT_CHUNK_PAIRS,
    agreement_compute,
    agreement_job_create,
    agreement_params,
)
from scoring.alignment.report_records import CorpusReport, report_to_csv
from scoring.alignment.reports import CHANCE_MODELS


class Command(JobCommand):
    help = (
        "Agreement report of a corpus for two or more annotators (pairwise): Tables 3-5 and "
        "Figure 4 of Cohn et al. (2008), with Monte Carlo Ĉ. Computed here, or with --job by the "
        "workers (the Monte Carlo split into chunks)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--corpus", required=True)
        parser.add_argument("--annotators", nargs="+", required=True, metavar="USERNAME")
        parser.add_argument("--samples", type=int, default=1000, help="J (default 1000)")
        parser.add_argument("--seed", type=int, default=0)
        parser.add_argument("--output", type=Path, help="report JSON (or CSV if it ends .csv)")
        parser.add_argument(
            "--job", action="store_true", help="run as a background job on the Celery workers"
        )
        parser.add_argument(
            "--chance-model",
            choices=("auto", *CHANCE_MODELS),
            default="auto",
            help="π̂0's chance model: edits of the prefill, link density, or auto (the prefill "
            "when every annotated pair has one and every annotation started from it)",
        )
        parser.add_argument(
            "--subcorpus",
            action="append",
            default=[],
            dest="subcorpora",
            help="only this sub-corpus (repeat for several; default: all)",
        )
        parser.add_argument("--chunk-pairs", type=int, default=DEFAULT_CHUNK_PAIRS)
        self.add_wait_argument(parser)

    def handle(self, *args: Any, **options: Any) -> None:
        corpus = self.corpus(options["corpus"])
        if options["job"]:
            job = agreement_job_create(
                corpus=corpus,
                annotators=options["annotators"],
                samples=options["samples"],
                seed=options["seed"],
                chunk_pairs=options["chunk_pairs"],
                chance_model=options["chance_model"],
                subcorpora=options["subcorpora"],
            )
            self.report(job, options["wait"])
            if options["output"] and job.status == "succeeded" and job.result is not None:
                self._write(job.result, options["output"])
            return
        if options["output"] is None:
            raise CommandError("--output is required unless --job is given")

        live = sys.stderr.isatty()
        shown: dict[str, int] = {}

        def progress(stage: str, done: int, total: int) -> None:
            """One line updated in place on a terminal; a line per tenth in a log."""
            if options["verbosity"] == 0:
                return
            if live:
                end = "\n" if done == total else ""
                print(f"\r{stage}: {done}/{total}\x1b[K", end=end, file=sys.stderr, flush=True)
                return
            tenth = 10 * done // max(total, 1)
            if done == total or tenth > shown.get(stage, 0):
                shown[stage] = tenth
                print(f"{stage}: {done}/{total}", file=sys.stderr, flush=True)

        report = agreement_compute(
            corpus=corpus,
            annotators=options["annotators"],
            params=agreement_params({"samples": options["samples"]}, options["seed"]),
            progress=progress,
            chance_model=options["chance_model"],
            subcorpora=options["subcorpora"],
        )
        self._write(report, options["output"])

    def _write(self, report: dict[str, Any], output: Path) -> None:
        if output.suffix == ".csv":
            output.write_text(report_to_csv(CorpusReport.from_dict(report)), encoding="utf-8")
        else:
            output.write_text(json.dumps(report, indent=2, sort_keys=True) + "\n", "utf-8")
        self.stdout.write(f"wrote {output}")
