"""Shared behaviour of the project's management commands: domain errors become one clean line
on stderr and a non-zero exit status, never a traceback."""

from __future__ import annotations

import json
import time
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from annotate.exceptions import DomainError
from annotate.models import Corpus, Job
from annotate.selectors import corpora as corpora_reads
from scoring.errors import ScoringError


class DomainCommand(BaseCommand):
    def corpus(self, name: str) -> Corpus:
        """The corpus of that name, or a clean error naming it."""
        return corpora_reads.corpus_named(name)

    def execute(self, *args: Any, **options: Any) -> str | None:
        try:
            return super().execute(*args, **options)
        except (DomainError, ScoringError) as error:
            raise CommandError(str(error)) from error


class JobCommand(DomainCommand):
    """A command that queues a background job and can wait for a worker to finish it."""

    def add_wait_argument(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--wait",
            type=float,
            default=0.0,
            metavar="SECONDS",
            help="wait up to this long for the worker and print the result",
        )

    def report(self, job: Job, wait: float) -> None:
        self.stdout.write(f"job {job.pk} queued")
        if not wait:
            return
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            job.refresh_from_db()
            if job.is_finished:
                break
            time.sleep(0.2)
        if job.status == Job.Status.SUCCEEDED:
            self.stdout.write(json.dumps(job.result, indent=2))
        elif job.is_finished:
            raise CommandError(f"job {job.pk} {job.status}: {job.error}")
        else:
            raise CommandError(
                f"job {job.pk} still {job.status} after {wait} s; is a worker running "
                "(`make worker`)?"
            )
