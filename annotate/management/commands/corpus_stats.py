from __future__ import annotations

from typing import Any

from django.core.management.base import CommandParser

from annotate.management.commands._base import JobCommand
from annotate.services.stats import corpus_stats_job_create


class Command(JobCommand):
    help = "Recompute a corpus' statistics as a background job (run by a Celery worker)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--corpus", required=True)
        self.add_wait_argument(parser)

    def handle(self, *args: Any, **options: Any) -> None:
        corpus = self.corpus(options["corpus"])
        job = corpus_stats_job_create(corpus=corpus)
        self.report(job, options["wait"])
