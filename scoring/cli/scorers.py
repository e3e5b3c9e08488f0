"""``python -m scoring train`` and ``python -m scoring score``: the similarity scorers on files.

    python -m scoring train --kind perp --input STS.input.MSRpar.txt \\
        --targets STS.gs.MSRpar.txt --output msrpar.perp.json
    python -m scoring score --model msrpar.perp.json --input pairs.tsv > scores.txt

Input: one pair per line, ``sentence 1<TAB>sentence 2`` (raw text, tokenized Penn-Treebank
style), optionally ``<TAB>target`` as a third column; or the targets one per line in a file of
their own (``--targets``, as STS ships them).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Any

from scoring import formats
from scoring.cli.fields import naming
from scoring.cli.outputs import check_output_file, write_atomic
from scoring.cli.phrases import check_line_bytes, check_line_counts, check_sentence_length
from scoring.cli.streams import input_file, output_file
from scoring.errors import FormatError
from scoring.files import STDOUT
from scoring.options import options_help
from scoring.scorers.base import (
    TASKS,
    TokenPair,
    evaluate,
    get_scorer,
    load_scorer,
    parse_options,
    save_scorer,
    scorer_class,
    scorer_kinds,
)
from scoring.text import tokenize

_INPUT_HELP = (
    "pairs: s1<TAB>s2[<TAB>y]; or a .jsonl corpus (the web app's export), its pairs' tokens "
    "and gold score (regression) or gold label (classification)"
)


def register(subparsers: Any) -> None:
    train = subparsers.add_parser(
        "train",
        help="train a similarity scorer (perp, pfsm, ppda, mt, combined) on a TSV of pairs",
        description="Train a scorer on sentence pairs with gold scores or labels.",
        epilog=options_help(
            {kind: scorer_class(kind).options_class for kind in scorer_kinds()}, what="scorer"
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    train.add_argument("--kind", required=True, choices=scorer_kinds())
    train.add_argument("--task", choices=TASKS, default="regression")
    train.add_argument("--input", required=True, type=input_file, help=_INPUT_HELP)
    train.add_argument("--split", help="a .jsonl corpus: train on this split's pairs only")
    train.add_argument("--targets", type=input_file, help="gold values, one per line")
    train.add_argument("--test", type=input_file, help="pairs to evaluate on after training")
    train.add_argument("--test-split", help="a .jsonl --test: evaluate on this split's pairs")
    train.add_argument("--test-targets", type=input_file)
    train.add_argument("--output", required=True, type=output_file, help="model file (JSON)")
    train.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a scorer option, e.g. epochs=200 (repeatable; lists as JSON or comma-separated)",
    )
    train.add_argument("--json", action="store_true", help="print the evaluation as JSON")
    train.set_defaults(handler=_train)

    score = subparsers.add_parser(
        "score",
        help="score sentence pairs with a trained scorer",
        description=(
            "Print one score (or 0/1 label) per input pair. A regressor's scores are clipped "
            "to the range of its training targets (an STS model trained on 0-5 scores 0-5); "
            "--raw prints the model's values as they are."
        ),
    )
    score.add_argument("--model", required=True, type=input_file)
    score.add_argument("--input", required=True, type=input_file, help=_INPUT_HELP)
    score.add_argument("--split", help="a .jsonl corpus: score this split's pairs only")
    score.add_argument("--output", type=output_file, help="write the scores here instead of stdout")
    score.add_argument(
        "--raw", action="store_true", help="do not clip scores to the training targets' range"
    )
    score.set_defaults(handler=_score)


def read_pairs(
    path: Path,
    targets: Path | None = None,
    *,
    task: str = "regression",
    field: str = "--input",
    targets_field: str = "--targets",
    split: str | None = None,
    split_field: str = "--split",
    training: bool = True,
) -> tuple[list[TokenPair], list[float]]:
    """Pairs of a TSV file and their targets (third column or a separate file), if any.
    Errors name the option of the file at fault: ``field`` (the pairs and a third column's
    targets) or ``targets_field``.

    Line numbers are the file's own: a blank line between pairs is an error (dropping it would
    put every later score on the wrong line), blank lines at the end are ignored. A target must
    be a finite number, and 0 or 1 for classification."""
    if _is_corpus(path):
        if targets is not None:
            raise FormatError(
                "a .jsonl corpus holds its pairs' targets; leave out this option",
                path=targets,
                field=targets_field,
            )
        return read_corpus_pairs(
            path, split=split, task=task, split_field=split_field, training=training
        )
    if split is not None:
        raise FormatError(
            "a split chooses pairs of a .jsonl corpus; this file is read as TSV pairs",
            path=path,
            field=split_field,
        )
    lines = _lines(path, field)
    pairs: list[TokenPair] = []
    values: list[float] = []
    for number, line in lines:
        columns = line.split("\t")
        if len(columns) not in (2, 3):
            raise FormatError(
                f"expected 2 or 3 tab-separated columns, found {len(columns)}",
                path=path,
                line=number,
                field="columns",
            )
        first, second = (tokenize(text) for text in columns[:2])
        for field, tokens in (("sentence 1", first), ("sentence 2", second)):
            if not tokens:
                raise FormatError("the sentence is empty", path=path, line=number, field=field)
            check_sentence_length(tokens, path=path, line=number, field=field)
        pairs.append((first, second))
        if len(columns) == 3:
            values.append(_number(columns[2], path, number, "target", task))
    if not pairs:
        raise FormatError("the file has no pairs", path=path, line=1, field=field)
    if targets is not None:
        values = [
            _number(text, targets, number, targets_field, task)
            for number, text in _lines(targets, targets_field)
        ]
        check_line_counts(targets, len(values), path, len(pairs), field=targets_field)
    elif values and len(values) != len(pairs):
        raise FormatError("some lines have a target and some do not", path=path, field="target")
    return pairs, values


def _is_corpus(path: Path) -> bool:
    return path.suffix == ".jsonl"


def read_corpus_pairs(
    path: Path, *, split: str | None, task: str, split_field: str, training: bool = True
) -> tuple[list[TokenPair], list[float]]:
    """The pairs of a JSONL corpus (of ``split``, if given), in file order, each with its
    tokens as the corpus holds them, and the gold score (regression) or gold label
    (classification) of every pair that has one: the pairs and targets the web app trains
    on for the same split and target. For ``training`` only the pairs that have the target
    are returned, with theirs; else every pair, with the targets if all have one."""
    records = list(formats.read_corpus("jsonl", [path]))
    chosen = [r for r in records if split is None or r.split == split]
    if not chosen:
        splits = sorted({r.split for r in records if r.split})
        raise FormatError(
            f"no pair of split {split!r}; the file's splits: {', '.join(splits) or 'none'}",
            path=path,
            field=split_field,
        )
    what = "gold_score" if task == "regression" else "gold_label"
    valued = [r for r in chosen if getattr(r, what) is not None]
    if training:
        chosen = valued
    pairs = [(list(r.source_tokens), list(r.target_tokens)) for r in chosen]
    values = [float(getattr(r, what)) for r in chosen if getattr(r, what) is not None]
    if task == "classification" and any(v not in (0.0, 1.0) for v in values):
        raise FormatError("a classification target is 0 or 1", path=path, field=what)
    return pairs, values


def _lines(path: Path, field: str) -> list[tuple[int, str]]:
    """``(1-based line number, text)`` of every line but the blank ones at the end."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise FormatError("no such file", path=path, field=field) from None
    except OSError as error:
        raise FormatError(
            f"cannot read the file: {error.strerror}", path=path, field=field
        ) from None
    lines = []
    for number, raw_line in enumerate(raw.split(b"\n"), start=1):
        check_line_bytes(raw_line.rstrip(b"\r"), path=path, line=number, field=field)
        lines.append(formats.decode_line(raw_line, path=path, line=number, field=field))
    while lines and not lines[-1].strip():
        lines.pop()
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            raise FormatError(
                "the line is blank; one pair or target a line", path=path, line=number, field=field
            )
    return list(enumerate(lines, start=1))


def _number(text: str, path: Path, line: int, field: str, task: str = "regression") -> float:
    try:
        value = float(text)
    except ValueError:
        raise FormatError(
            f"{text.strip()!r} is not a number", path=path, line=line, field=field
        ) from None
    if not math.isfinite(value):
        raise FormatError(
            f"{text.strip()!r} is not a finite number", path=path, line=line, field=field
        )
    if task == "classification" and value not in (0.0, 1.0):
        raise FormatError(
            f"{text.strip()!r}: a classification target is 0 or 1",
            path=path,
            line=line,
            field=field,
        )
    return value


def _train(args: argparse.Namespace) -> int:
    check_output_file(args.output)
    pairs, targets = read_pairs(args.input, args.targets, task=args.task, split=args.split)
    if not targets:
        target = "gold score" if args.task == "regression" else "gold label"
        raise FormatError(
            f"training needs targets: no pair{'' if args.split is None else ' of the split'} "
            f"has a {target}"
            if _is_corpus(args.input)
            else "training needs targets: a third column or --targets",
            path=args.input,
            field="--targets" if not _is_corpus(args.input) else "--input",
        )
    if args.test_split is not None and args.test is None:
        raise FormatError("--test-split chooses pairs of --test: give --test", field="--test")
    test: tuple[list[TokenPair], list[float]] | None = None
    if args.test is not None:  # read before training, which may take minutes
        test = read_pairs(
            args.test,
            args.test_targets,
            task=args.task,
            field="--test",
            targets_field="--test-targets",
            split=args.test_split,
            split_field="--test-split",
        )
        if not test[1] or len(test[1]) != len(test[0]):
            raise FormatError(
                "the test pairs have no targets: a third column or --test-targets, or a "
                "gold score or label in a .jsonl corpus",
                path=args.test,
                field="--test-targets",
            )
    scorer = get_scorer(args.kind, args.task, **parse_options(args.kind, args.option))
    refusal = scorer.training_refusal(targets)  # the targets' fault: said with their file
    if refusal is not None:
        raise FormatError(
            refusal,
            path=args.targets or args.input,
            field="--targets" if args.targets else "target",
        )
    scorer.fit(pairs, targets)
    save_scorer(scorer, args.output)
    report: dict[str, Any] = {
        "model": str(args.output),
        "train": evaluate(args.task, targets, scorer.predict(pairs)).to_dict(),
    }
    if test is not None:
        report["test"] = evaluate(args.task, test[1], scorer.predict(test[0])).to_dict()
    # with the model on standard output (``--output -``) the report goes to standard error
    out = sys.stderr if args.output == STDOUT else sys.stdout
    if args.json:
        print(json.dumps(report, indent=2), file=out)
    else:
        print(f"saved {args.kind} model to {args.output}", file=out)
        for split in ("train", "test"):
            if split in report:
                figures = ", ".join(
                    f"{k} {v:.4f}" if isinstance(v, float) else f"{k} {v}"
                    for k, v in report[split].items()
                    if k != "task"
                )
                print(f"  {split}: {figures}", file=out)
    return 0


def _score(args: argparse.Namespace) -> int:
    if args.output is not None:
        check_output_file(args.output)
    with naming("--model"):
        scorer = load_scorer(args.model)
    pairs, _ = read_pairs(args.input, split=args.split, training=False)
    scores = scorer.predict(pairs, clip=not args.raw)
    lines = "".join(
        # a score as the float it is (its shortest exact form), so measures taken from the
        # printed scores are the ones the web app reports for the same model and pairs
        f"{int(s)}\n" if scorer.task == "classification" else f"{float(s)!r}\n"
        for s in scores
    )
    if args.output is not None:
        write_atomic(args.output, lines)
    else:
        sys.stdout.write(lines)
    return 0
