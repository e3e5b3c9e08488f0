from __future__ import annotations

import json
import time
from typing import Any

from django.core.management.base import CommandError, CommandParser

from annotate.management.commands._base import DomainCommand
from annotate.models import Corpus, Job
from annotate.services.jobs import job_create


class Command(DomainCommand):
    help = "Recompute a corpus' statistics as a background job (run by a Celery worker)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--corpus", required=True)
        parser.add_argument(
            "--wait",
            type=float,
            default=0.0,
            metavar="SECONDS",
            help="wait up to this long for the worker and print the result",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            corpus = Corpus.objects.get(name=options["corpus"])
        except Corpus.DoesNotExist:
            raise CommandError(f"no corpus named {options['corpus']!r}") from None
        job = job_create(kind="corpus_stats", corpus=corpus, parameters={"corpus": corpus.name})
        self.stdout.write(f"job {job.pk} queued")
        deadline = time.monotonic() + options["wait"]
        while options["wait"] and time.monotonic() < deadline:
            job.refresh_from_db()
            if job.is_finished:
                break
            time.sleep(0.2)
        if not options["wait"]:
            return
        if job.status == Job.Status.SUCCEEDED:
            self.stdout.write(json.dumps(job.result, indent=2))
        elif job.is_finished:
            raise CommandError(f"job {job.pk} {job.status}: {job.error}")
        else:
            raise CommandError(
                f"job {job.pk} still {job.status} after {options['wait']} s; is a worker running "
                "(`make worker`)?"
            )
