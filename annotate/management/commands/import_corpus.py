from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import CommandParser

from annotate.exceptions import quoted
from annotate.management.commands._base import DomainCommand
from annotate.services.uploads import corpus_import_files
from scoring import formats


class Command(DomainCommand):
    help = (
        "Import sentence pairs (and their alignments) into a corpus, from files or an export's "
        "zip. All or nothing: any error names the file, line and field, and leaves the "
        "database unchanged."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--corpus", required=True, help="corpus name (created if missing)")
        parser.add_argument(
            "--format",
            required=True,
            dest="format_name",
            help=f"one of: {', '.join(formats.format_names())}",
        )
        parser.add_argument("--subcorpus", help="sub-corpus label for every imported pair")
        parser.add_argument("--split", help="split label (train, test, trial, ...)")
        parser.add_argument(
            "--annotator",
            help="attribute the file's alignments to this user (single-alignment formats); "
            "without it they become the gold alignments",
        )
        parser.add_argument("--description", default="", help="description of a new corpus")
        parser.add_argument(
            "--onto-existing",
            action="store_true",
            help="add the files' annotations (and gold alignments) to the corpus's pairs of the "
            "same ids and tokens instead of adding pairs; refused if a pair is missing, differs "
            "or already has other work of that annotator or another gold (the same is left as "
            "it is)",
        )
        parser.add_argument("paths", nargs="+", type=Path, metavar="PATH")

    def handle(self, *args: Any, **options: Any) -> None:
        report = corpus_import_files(
            corpus_name=options["corpus"],
            format_name=options["format_name"],
            paths=options["paths"],
            subcorpus=options["subcorpus"],
            split=options["split"],
            annotator=options["annotator"],
            description=options["description"],
            onto_existing=options["onto_existing"],
        )
        if report.onto_existing:
            self.stdout.write(
                f"added {report.annotations} annotations to {report.annotated_pairs} of the "
                f"{report.pairs} pairs of the file in corpus {quoted(report.corpus)}, "
                f"{report.gold_alignments} gold alignments"
                + _already(report.annotations_unchanged, report.gold_unchanged)
            )
        else:
            self.stdout.write(
                f"imported {report.pairs} pairs into corpus {quoted(report.corpus)}"
                f"{' (new)' if report.created_corpus else ''}: {report.annotations} annotations, "
                f"{report.prefills} prefills, {report.gold_alignments} gold alignments"
            )
        if report.created_users:
            self.stdout.write(f"created annotator accounts: {', '.join(report.created_users)}")


def _already(annotations: int, golds: int) -> str:
    """`` (3 of the file's annotations and the gold of 1 pair were the corpus's already)``, or
    empty."""
    parts = [
        part
        for count, part in (
            (annotations, f"{annotations} of the file's annotations"),
            (golds, f"the gold of {golds} pair{'s' if golds != 1 else ''}"),
        )
        if count
    ]
    return f" ({' and '.join(parts)} were the corpus's already)" if parts else ""
