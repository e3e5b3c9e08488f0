"""``python -m scoring evaluate-aligner``: score a prefill aligner against gold alignments.

    python -m scoring evaluate-aligner --aligner em --gold-format jacana \\
        gold.train.sure.json gold.train.sure+poss.json
    python -m scoring evaluate-aligner --aligner lexical --option ppdb=ppdb.tsv \\
        --gold-format rte2 RTE2_dev_A.align.txt RTE2_dev_B.align.txt RTE2_dev_C.align.txt --json

The aligner is trained on every gold pair's tokens (never on their gold links) plus the pairs
of ``--train`` files (read in ``--train-format``, by default the gold format, whose gold links
a supervised aligner learns from), or cross-validated with ``--folds K``. It is scored against
every reference the gold files hold: the gold alignment, each annotator who aligned every pair,
and, with three or more annotators, the majority (RTE-2: 2 of 3). Each score is labelled; see
:mod:`scoring.aligners.evaluation`. ``--json`` prints the full report as JSON.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from scoring.aligners.base import Aligner, available_aligners
from scoring.aligners.evaluation import evaluate_records, format_summary
from scoring.cli.align import aligner_options_help, load_or_build
from scoring.cli.streams import input_file
from scoring.errors import FormatError
from scoring.formats import read_corpus

GOLD_FORMATS = ("jacana", "multimwa", "rte2", "pharaoh")


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "evaluate-aligner",
        help="score an aligner against gold alignments (literature metric, Och & Ney, phrases)",
        description=__doc__,
        epilog=aligner_options_help(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--aligner", required=True, help=f"aligner name: {', '.join(available_aligners())}"
    )
    parser.add_argument("--gold-format", required=True, choices=GOLD_FORMATS)
    parser.add_argument(
        "gold_files",
        nargs="+",
        type=input_file,
        metavar="GOLD",
        help="gold files (format-specific)",
    )
    parser.add_argument("--train", nargs="+", type=input_file, default=[], metavar="TRAIN")
    parser.add_argument("--train-format", choices=GOLD_FORMATS, help="default: --gold-format")
    parser.add_argument("--folds", type=int, help="K-fold cross-validation")
    parser.add_argument("--seed", type=int, default=0, help="seed of the fold assignment")
    parser.add_argument("--model", type=input_file, help="use this saved model (no training)")
    parser.add_argument(
        "--option", action="append", default=[], metavar="KEY=VALUE", help="aligner option"
    )
    parser.add_argument("--no-phrases", action="store_true", help="skip phrase-pair scores")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    if args.folds is not None and args.folds < 2:
        raise FormatError(f"--folds must be at least 2, got {args.folds}", field="--folds")
    if args.folds is not None and args.model is not None:
        raise FormatError("--folds retrains the aligner; drop --model", field="--folds")
    records = list(read_corpus(args.gold_format, args.gold_files))
    if args.folds is not None and args.folds > len(records):
        raise FormatError(f"{args.folds} folds but only {len(records)} gold pairs", field="--folds")
    train_records = (
        list(read_corpus(args.train_format or args.gold_format, args.train)) if args.train else []
    )
    # Validate the name, options and model before the (possibly long) run.
    first = load_or_build(args.aligner, args.model, args.option)

    def make() -> Aligner:
        return load_or_build(args.aligner, args.model, args.option)

    handed_out = [False]

    def make_once() -> Aligner:
        if not handed_out[0]:
            handed_out[0] = True
            return first
        return make()

    report = evaluate_records(
        make_once,
        records,
        folds=args.folds,
        seed=args.seed,
        train_records=train_records,
        phrases=not args.no_phrases,
    )
    report["gold_files"] = [str(p) for p in args.gold_files]
    report["train_files"] = [str(p) for p in args.train]
    if args.json:
        print(json.dumps(report, indent=2, sort_keys=True, default=str))
        return 0
    for warning in report["warnings"]:
        print(f"warning: {warning}")
    training = report["training"]
    if training["cross_validation"]:
        cv = training["cross_validation"]
        print(f"{cv['folds']}-fold cross-validation, seed {cv['seed']}")
    for reference in report["references"].values():
        print(format_summary(reference))
    return 0
