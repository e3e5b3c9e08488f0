"""Aligner results on Edinburgh++ train and RTE-2 dev.

Run: ``.venv/bin/python -m experiments.aligner_results RESULTS.json [--no-phrases]``.

Evaluates the identity baseline, ``lexical`` (with PPDB) and ``em`` (alone, ``+lexical`` =
lexical links first and EM intersection links between the words they leave unaligned,
``+merge`` = EM links first; ``[+11k]`` = EM also trained on 11,143 unlabelled MSRP and STS 2012
pairs) and ``supervised`` (5-fold cross-validation, seed 0: each pair is aligned by a model
trained on the gold of the other folds; on RTE-2 the training gold is the 2-of-3 majority;
``+finetune`` blends in the fine-tuned cross-encoder, 5 epochs, about 40 minutes; ``+large``
adds the larger encoder's features, option ``large_encoder``) on

- Edinburgh++ train (``../shared/data/edinburgh``, 714 pairs; gold = the sure file, possible =
  sure+poss − sure), and
- RTE-2 dev (``../shared/data/rte2-alignments``, 800 pairs) against each of the annotators A, B,
  C and their 2-of-3 majority (sure = sure for ≥ 2 annotators; P likewise from P),

prints a table of the headline figures and writes every labelled figure
(:mod:`scoring.aligners.evaluation`) as JSON to the given path. ``em`` is trained, by EM, on the
tokens of all pairs of the set it is evaluated on (never on their links), as Cohn et al. trained
GIZA++ on their corpus. Published reference points (Edinburgh++ *test*, literature metric):
identity 82.2, GIZA++ intersection 85.5, jacana 86.4, Sultan et al. 2014 87.6, 2015 88.5;
RTE-2 majority: identity 80.8, Sultan et al. 2015 92.1.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmarks.paths import data_dir
from scoring import __version__
from scoring.aligners.base import Aligner, get_aligner
from scoring.aligners.evaluation import evaluate_records
from scoring.corpus import PairRecord
from scoring.formats import read_corpus

PPDB = data_dir() / "ppdb" / "ppdb-1.0-xxxl-lexical.synonyms.tsv"
SEED = 0  # fold assignment of the cross-validated aligners


def datasets() -> dict[str, list[PairRecord]]:
    edinburgh = data_dir() / "edinburgh"
    rte2 = data_dir() / "rte2-alignments"
    return {
        "edinburgh_train": list(
            read_corpus(
                "jacana",
                [edinburgh / "gold.train.sure.json", edinburgh / "gold.train.sure+poss.json"],
            )
        ),
        "rte2_dev": list(
            read_corpus("rte2", [rte2 / f"RTE2_dev_{letter}.align.txt" for letter in "ABC"])
        ),
    }


def extra_pairs() -> list[tuple[list[str], list[str]]]:
    """Unlabelled paraphrase pairs for EM: MSRP train+test and STS 2012 train+test (11,143)."""
    msrp = data_dir() / "msrp"
    sts = data_dir() / "sts2012"
    records = list(
        read_corpus("msrp", [msrp / "msr_paraphrase_train.txt", msrp / "msr_paraphrase_test.txt"])
    )
    records += list(read_corpus("sts", [sts / "train", sts / "test"]))
    return [
        (r.source_tokens, r.target_tokens)
        for r in records
        if 0 < len(r.source_tokens) <= 250 and 0 < len(r.target_tokens) <= 250
    ]


def configurations() -> dict[str, tuple[Callable[[], Aligner], bool, int | None]]:
    """Name → (aligner factory, whether EM also trains on the unlabelled MSRP/STS pairs,
    cross-validation folds or None)."""
    ppdb = str(PPDB)
    return {
        "identity": (lambda: get_aligner("identity"), False, None),
        "lexical": (lambda: get_aligner("lexical", ppdb=ppdb), False, None),
        "em": (lambda: get_aligner("em"), False, None),
        "em+lexical": (lambda: get_aligner("em", lexical="first-sure", ppdb=ppdb), False, None),
        "em+merge": (lambda: get_aligner("em", lexical="merge", ppdb=ppdb), False, None),
        "em[+11k]": (lambda: get_aligner("em"), True, None),
        "em+lexical[+11k]": (
            lambda: get_aligner("em", lexical="first-sure", ppdb=ppdb),
            True,
            None,
        ),
        "supervised[5-fold]": (lambda: get_aligner("supervised", ppdb=ppdb), False, 5),
        "supervised+finetune[5-fold]": (
            lambda: get_aligner("supervised", ppdb=ppdb, fine_tune_epochs=5),
            False,
            5,
        ),
        "supervised+large[5-fold]": (
            lambda: get_aligner("supervised", ppdb=ppdb, large_encoder=True),
            False,
            5,
        ),
        "supervised+large+finetune[5-fold]": (
            lambda: get_aligner("supervised", ppdb=ppdb, large_encoder=True, fine_tune_epochs=5),
            False,
            5,
        ),
    }


def _pct(value: float | None) -> str:
    return "  n/a" if value is None else f"{100 * value:5.1f}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("output", type=Path, help="where to write the JSON results")
    parser.add_argument("--no-phrases", action="store_true", help="skip phrase-pair scores")
    parser.add_argument("--only", nargs="*", help="run only these configurations")
    parser.add_argument("--data", nargs="*", help="run only these data sets")
    args = parser.parse_args(argv)

    results: dict[str, Any] = {
        "scoring_version": __version__,
        "python": platform.python_version(),
        "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "ppdb": str(PPDB),
        "seed": SEED,
        "datasets": {},
    }
    header = (
        f"{'data':16} {'aligner':18} {'reference':9} | {'lit F1':>6} {'lit-S F1':>8} "
        f"{'exact%':>6} | {'non-id F1':>9} | {'O&N F1':>6} {'AER':>5} | {'phr S F1':>8} "
        f"{'phr P F1':>8} | {'sec':>5}"
    )
    print(header)
    print("-" * len(header))
    unlabelled: list[tuple[list[str], list[str]]] | None = None
    for data_name, records in datasets().items():
        if args.data and data_name not in args.data:
            continue
        per_data: dict[str, Any] = {"pairs": len(records), "aligners": {}}
        for config, (make, with_extra, folds) in configurations().items():
            if args.only and config not in args.only:
                continue
            if with_extra and unlabelled is None:
                unlabelled = extra_pairs()
            report = evaluate_records(
                make,
                records,
                phrases=not args.no_phrases,
                folds=folds,
                seed=SEED,
                extra_pairs=unlabelled if with_extra and unlabelled is not None else (),
            )
            per_data["aligners"][config] = report
            seconds = report["training"]["seconds_train_and_align"]
            for ref_name, ref in report["references"].items():
                ps = ref.get("phrases_sure", {}).get("f1")
                pp = ref.get("phrases_possible", {}).get("f1")
                print(
                    f"{data_name:16} {config:18} {ref_name:9} | "
                    f"{_pct(ref['literature']['f1']):>6} "
                    f"{_pct(ref['literature_sure_only']['f1']):>8} "
                    f"{ref['literature']['exact_match']:6.1f} | "
                    f"{_pct(ref['non_identical']['f1']):>9} | "
                    f"{_pct(ref['och_ney']['f1']):>6} {_pct(ref['och_ney']['aer']):>5} | "
                    f"{_pct(ps):>8} {_pct(pp):>8} | {seconds:5.1f}",
                    flush=True,
                )
            for warning in report["warnings"]:
                print(f"  warning: {warning}")
        results["datasets"][data_name] = per_data
    results["finished"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    args.output.write_text(json.dumps(results, indent=1, sort_keys=True, default=str) + "\n")
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
