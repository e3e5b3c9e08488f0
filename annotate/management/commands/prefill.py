from __future__ import annotations

from typing import Any

from django.core.management.base import CommandParser

from annotate.management.commands._base import JobCommand
from annotate.services.prefill import prefill_queue
from scoring.aligners import available_aligners
from scoring.aligners.base import parse_option_strings


class Command(JobCommand):
    help = (
        "Prefill a corpus with an automatic alignment as a background job. Pairs an annotator "
        "has started keep their prefill. With --retrain-every N, an aligner that learns from "
        "annotations (supervised) is retrained and re-prefills each time N more pairs are "
        "finished (checked by Celery beat), with the same --option values."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--corpus", required=True)
        parser.add_argument("--aligner", required=True, choices=available_aligners())
        parser.add_argument(
            "--option",
            action="append",
            default=[],
            metavar="KEY=VALUE",
            help="an aligner option, repeatable (e.g. --option fine_tune_epochs=5); file paths "
            "such as ppdb come from the server's settings",
        )
        retrain = parser.add_mutually_exclusive_group()
        retrain.add_argument(
            "--retrain-every",
            type=int,
            metavar="N",
            help="retrain automatically after every N newly finished pairs",
        )
        retrain.add_argument(
            "--no-retrain", action="store_true", help="switch automatic retraining off"
        )
        self.add_wait_argument(parser)

    def handle(self, *args: Any, **options: Any) -> None:
        every = 0 if options["no_retrain"] else options["retrain_every"]
        corpus = self.corpus(options["corpus"])
        # a ScoringError (a bad option) or PrefillError becomes a CommandError in
        # DomainCommand.execute
        aligner_options = parse_option_strings(options["aligner"], options["option"])
        job = prefill_queue(
            corpus=corpus,
            aligner=options["aligner"],
            retrain_every=every,
            trigger="command",
            options=aligner_options,
        )
        corpus.refresh_from_db()
        if corpus.prefill_aligner:
            with_options = ", ".join(f"{k}={v}" for k, v in corpus.prefill_options.items())
            self.stdout.write(
                f"{corpus.name}: {corpus.prefill_aligner} is retrained after every "
                f"{corpus.prefill_retrain_every} newly finished pairs"
                + (f" with {with_options}" if with_options else "")
            )
        elif every == 0:
            self.stdout.write(f"{corpus.name}: automatic retraining is off")
        self.report(job, options["wait"])
