from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.core.management.base import CommandParser

from annotate.management.commands._base import JobCommand
from annotate.services.scorers import (
    TARGETS,
    scorer_model_summary,
    scorer_train,
    scorer_train_job_create,
)
from scoring.scorers.base import parse_options, scorer_kinds


class Command(JobCommand):
    help = (
        "Train a similarity scorer (perp, pfsm, ppda, mt, combined) on a corpus split, "
        "evaluate it on another and store the model. Runs here, or with --job on the Celery "
        "workers."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--kind", required=True, choices=scorer_kinds())
        parser.add_argument("--corpus", required=True)
        parser.add_argument("--train-split", required=True)
        parser.add_argument("--test-split")
        parser.add_argument(
            "--target",
            choices=TARGETS,
            default="gold_score",
            help="gold_score / rating: regression; gold_label: classification",
        )
        parser.add_argument("--name", help="name of the stored model (default: generated)")
        parser.add_argument(
            "--option",
            action="append",
            default=[],
            metavar="KEY=VALUE",
            help="a scorer option, e.g. epochs=200 (lists as JSON or comma-separated)",
        )
        parser.add_argument("--output", type=Path, help="write the evaluation here (JSON)")
        parser.add_argument("--job", action="store_true", help="run on the Celery workers")
        self.add_wait_argument(parser)

    def handle(self, *args: Any, **options: Any) -> None:
        corpus = self.corpus(options["corpus"])
        scorer_options = parse_options(options["kind"], options["option"])
        if options["job"]:
            job = scorer_train_job_create(
                corpus=corpus,
                kind=options["kind"],
                train_split=options["train_split"],
                test_split=options["test_split"],
                target=options["target"],
                options=scorer_options,
                name=options["name"],
            )
            self.report(job, options["wait"])
            summary = job.result if job.status == "succeeded" else None
        else:
            model = scorer_train(
                corpus=corpus,
                kind=options["kind"],
                train_split=options["train_split"],
                test_split=options["test_split"],
                target=options["target"],
                options=scorer_options,
                name=options["name"],
            )
            summary = scorer_model_summary(model)
            self.stdout.write(json.dumps(summary, indent=2))
        if options["output"] is not None and summary is not None:
            options["output"].write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
            self.stdout.write(f"wrote {options['output']}")
