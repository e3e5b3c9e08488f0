from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import CommandParser

from annotate.management.commands._base import DomainCommand
from annotate.services.exports import MAX_PHRASE_LENGTH, PHRASE_USES, corpus_export
from scoring import formats


class Command(DomainCommand):
    help = (
        "Export a corpus. jsonl is lossless; other formats write one chosen alignment; phrases "
        "writes the phrase table of the chosen alignment, or of every one."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--corpus", required=True)
        parser.add_argument(
            "--format",
            required=True,
            dest="format_name",
            help=f"one of: {', '.join([*formats.format_names(), 'phrases'])}",
        )
        parser.add_argument("--output", required=True, type=Path)
        which = parser.add_mutually_exclusive_group()
        which.add_argument("--annotator", help="write this annotator's alignments")
        which.add_argument("--prefill", action="store_true", help="write the automatic prefill")
        which.add_argument("--gold", action="store_true", help="write the gold alignments")
        table = parser.add_argument_group("phrases (a phrase table)")
        table.add_argument(
            "--use",
            choices=PHRASE_USES,
            help="the links phrase pairs are extracted from: possible (P, the default) or sure (S)",
        )
        table.add_argument(
            "--max-length",
            type=int,
            help=f"the longest phrase, in words (1 to {MAX_PHRASE_LENGTH}; 7 unless given)",
        )
        table.add_argument(
            "--keep-identical",
            action="store_true",
            default=None,
            help="count lexically identical phrase pairs too",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        count = corpus_export(
            corpus_name=options["corpus"],
            format_name=options["format_name"],
            output=options["output"],
            annotator=options["annotator"],
            prefill=options["prefill"],
            gold=options["gold"],
            phrases={
                name: options[name]
                for name in ("use", "max_length", "keep_identical")
                if options[name] is not None
            },
        )
        self.stdout.write(f"wrote {count} pairs to {options['output']}")
