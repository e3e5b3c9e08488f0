"""``python -m scoring agreement``: chance-corrected agreement Ĉ between annotators.

    python -m scoring agreement --source S.txt --target T.txt --prefill AUTO.txt \\
        --annotation A.txt --annotation B.txt [--samples J] [--seed N] [--json]

Every pair of ``--annotation`` files is compared (the first as candidate, the second as reference
for precision and recall). Ĉ uses each annotator's Pr(edit) line fitted against the prefill and
``J`` Monte Carlo samples per sentence pair; the seed and every parameter are printed with the
result, and the same inputs always give the same numbers.
"""

from __future__ import annotations

import argparse
import json
import sys
from itertools import combinations
from pathlib import Path
from typing import Any

from scoring.alignment.agreement import (
    AgreementPair,
    AgreementParams,
    chance_corrected_agreement,
    signature,
)
from scoring.alignment.links import Alignment
from scoring.alignment.metrics import ComparePair, corpus_scores
from scoring.cli.phrases import (
    MAX_LENGTH_HELP,
    add_file_arguments,
    fmt,
    read_alignments,
    read_sentences,
)
from scoring.cli.streams import input_file
from scoring.errors import FormatError


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "agreement",
        help="chance-corrected agreement (Ĉ) between two or more annotators",
        description=(
            "Ĉ of Cohn, Callison-Burch & Lapata (2008) over non-identical links and atomic phrase "
            "pairs, from P (poss) and S (sure), with π̂0 by Monte Carlo from the prefill; plus "
            "precision/recall/F1. Annotators are compared pairwise."
        ),
    )
    add_file_arguments(parser)
    parser.add_argument("--prefill", required=True, type=input_file, help="automatic Pharaoh links")
    parser.add_argument(
        "--annotation",
        required=True,
        action="append",
        type=input_file,
        help="one annotator's Pharaoh links (give at least two)",
    )
    parser.add_argument("--samples", type=int, default=1000, metavar="J")
    parser.add_argument("--seed", type=int, default=0, metavar="N")
    parser.add_argument(
        "--estimator",
        choices=("paper", "pooled"),
        default="paper",
        help="paper: mean of per-pair ratios (Eq. 5, 7); pooled: ratio of summed counts",
    )
    parser.add_argument("--keep-identical", action="store_true")
    parser.add_argument("--max-length", type=int, default=None, metavar="K", help=MAX_LENGTH_HELP)
    parser.add_argument("--no-boundary-rule", action="store_true")
    parser.add_argument("--json", action="store_true")
    parser.set_defaults(handler=run)


def _names(paths: list[Path]) -> list[str]:
    stems = [p.stem for p in paths]
    if len(set(stems)) == len(stems):
        return stems
    return [str(p) for p in paths]


def run(args: argparse.Namespace) -> int:
    if len(args.annotation) < 2:
        raise FormatError("give at least two --annotation files", field="--annotation")
    if args.samples < 1:
        raise FormatError("must be at least 1", field="--samples")
    if args.seed < 0:
        raise FormatError("must be non-negative", field="--seed")
    if args.max_length is not None and args.max_length < 1:
        raise FormatError("must be at least 1", field="--max-length")
    sources, targets = read_sentences(args.source, args.target)
    prefill = read_alignments(
        args.prefill, sources, targets, field="--prefill", source_path=args.source
    )
    annotations: list[list[Alignment]] = [
        read_alignments(path, sources, targets, field="--annotation", source_path=args.source)
        for path in args.annotation
    ]
    names = _names(args.annotation)
    if len(set(names)) != len(names):
        raise FormatError("the same file is given twice", field="--annotation")
    params = AgreementParams(
        samples=args.samples,
        seed=args.seed,
        exclude_identical=not args.keep_identical,
        boundary_rule=not args.no_boundary_rule,
        max_length=args.max_length,
        estimator=args.estimator,
    )
    results = []
    for x, y in combinations(range(len(names)), 2):
        pairs = [
            AgreementPair(
                str(k + 1), sources[k], targets[k], prefill[k], annotations[x][k], annotations[y][k]
            )
            for k in range(len(sources))
        ]
        report = chance_corrected_agreement(
            pairs, params=params, annotator_a=names[x], annotator_b=names[y]
        )
        compare = [ComparePair(p.source, p.target, p.a, p.b, key=p.key) for p in pairs]
        scores: dict[str, Any] = {}
        for level, kind in (
            ("word", "possible"),
            ("word", "sure"),
            ("phrase", "possible"),
            ("phrase", "sure"),
        ):
            cs = corpus_scores(
                compare,
                level=level,
                kind=kind,
                exclude_identical=params.exclude_identical,
                boundary_rule=params.boundary_rule,
                max_length=params.max_length,
            )
            scores[f"{level}:{kind}"] = cs.overall.to_dict()
        results.append({"agreement": report.to_dict(), "precision_recall": scores})
    if args.json:
        json.dump(
            {"params": params.to_dict(), "comparisons": results}, sys.stdout, ensure_ascii=False
        )
        sys.stdout.write("\n")
        return 0
    print(
        f"samples J={params.samples}  seed={params.seed}  estimator={params.estimator}  "
        f"pairs={len(sources)}"
    )
    for entry in results:
        agreement = entry["agreement"]
        a, b = agreement["annotators"]
        print(f"\n{a} (candidate) vs {b} (reference)")
        print(f"  {'items':<16}{'kind':<10}{'π̂':>10}{'π̂0':>10}{'Ĉ':>10}  {'P':>8}{'R':>8}{'F1':>8}")
        for kind, col in (("possible", "poss"), ("sure", "sure")):
            for level, label, pr_key in (
                ("word", "words", f"word:{kind}"),
                ("phrase_atomic", "atomic phrases", f"phrase:{kind}"),
            ):
                r = agreement["results"][kind][level]
                prf = entry["precision_recall"][pr_key]
                note = f"  ({r['undefined_reason']})" if r["c_hat"] is None else ""
                print(
                    f"  {label:<16}{col:<10}{fmt(r['pi_hat']):>10}{fmt(r['pi0_hat']):>10}"
                    f"{fmt(r['c_hat']):>10}  {fmt(prf['precision']):>8}{fmt(prf['recall']):>8}"
                    f"{fmt(prf['f1']):>8}{note}"
                )
        # one line signs the four rows above: their kinds and items, and the settings they share
        sig = signature(params, kind=("possible", "sure"), level=("word", "phrase_atomic"))
        print(f"  signature: {sig}")
    return 0
