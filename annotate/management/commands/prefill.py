from __future__ import annotations

from typing import Any

from django.core.management.base import CommandParser

from annotate.management.commands._base import JobCommand
from annotate.services.jobs import job_create
from scoring.aligners import available_aligners


class Command(JobCommand):
    help = (
        "Prefill a corpus with an automatic alignment as a background job. Pairs an annotator "
        "has started keep their prefill."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--corpus", required=True)
        parser.add_argument("--aligner", required=True, choices=available_aligners())
        self.add_wait_argument(parser)

    def handle(self, *args: Any, **options: Any) -> None:
        corpus = self.corpus(options["corpus"])
        job = job_create(kind="prefill", corpus=corpus, parameters={"aligner": options["aligner"]})
        self.report(job, options["wait"])
