"""How many cells a second trained annotator changes: the human peer of the prefill campaign.

Run: ``.venv/bin/python -m experiments.human_corrections RESULTS.json``.

The prefill campaign (``benchmarks/bench_prefill_campaign.py``) counts the cells an annotator
changes to turn a prefill into the gold (:mod:`scoring.aligners.corrections`). The same count
between two people says how far apart trained annotators are, and so how far any prefill can be
expected to come: an aligner that learns one annotator's gold can get closer to it than a second
annotator does, but the disagreement between annotators is where learning turns into fitting one
person's choices.

RTE-2 dev is aligned by three annotators (A, B and C, Brockett 2007). Reported, over all 800
pairs and over the campaign's held-out fifth: each annotator's corrections to reach each other
annotator's alignment, the 2-of-3 majority (the campaign's gold; an annotator's own vote is part
of it) and the other two's majority (both must agree, :mod:`scoring.alignment.majority`), split
into cells of lowercase-identical and of different words. Edinburgh++ has one gold alignment per
pair; for it the gold's links per pair, sure and between different words, are reported so the
two corpora can be compared.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.bench_prefill_campaign import corpora, heldout_of
from benchmarks.paths import data_dir
from scoring.alignment.links import Alignment
from scoring.alignment.majority import majority_alignment
from scoring.formats import read_corpus


def cell_differences(
    candidate: Alignment, reference: Alignment, tokens: tuple[list[str], list[str]]
) -> dict[str, int]:
    """The corrections from ``candidate`` to ``reference``, split by identical words or not."""
    shown, wanted = candidate.to_matrix(), reference.to_matrix()
    source, target = tokens
    out = {"three_state": 0, "linked": 0, "identical": 0, "different": 0}
    for i, j in zip(*np.nonzero(shown != wanted), strict=True):
        out["three_state"] += 1
        out["linked"] += int((shown[i, j] > 0) != (wanted[i, j] > 0))
        same = source[i].lower() == target[j].lower()
        out["identical" if same else "different"] += 1
    return out


def comparisons(alignments: dict[str, Alignment]) -> list[tuple[str, str, Alignment]]:
    """(label, annotator, reference) for each annotator against each reference of one pair."""
    names = sorted(alignments)
    everyone = majority_alignment(list(alignments.values()))
    out = []
    for who in names:
        others = [n for n in names if n != who]
        out += [(f"{who} → annotator {n}", who, alignments[n]) for n in others]
        out.append((f"{who} → majority of three", who, everyone))
        both = majority_alignment([alignments[n] for n in others])
        out.append((f"{who} → majority of the other two", who, both))
    return out


def rte2_annotators(heldout: set[int]) -> dict[str, Any]:
    root = data_dir() / "rte2-alignments"
    records = list(read_corpus("rte2", [root / f"RTE2_dev_{x}.align.txt" for x in "ABC"]))
    totals: dict[str, dict[str, dict[str, int]]] = {"all": {}, "held-out": {}}
    for k, record in enumerate(records):
        alignments = {n: a.alignment for n, a in record.annotations.items()}
        tokens = (record.source_tokens, record.target_tokens)
        scopes = ("all", "held-out") if k in heldout else ("all",)
        for label, who, reference in comparisons(alignments):
            counts = cell_differences(alignments[who], reference, tokens)
            for scope in scopes:
                row = totals[scope].setdefault(label, dict.fromkeys(counts, 0))
                for key, value in counts.items():
                    row[key] += value
    sizes = {"all": len(records), "held-out": len(heldout)}
    return {
        scope: {
            label: {key: round(value / sizes[scope], 3) for key, value in row.items()}
            for label, row in sorted(rows.items())
        }
        for scope, rows in totals.items()
    }


def gold_statistics() -> dict[str, dict[str, float]]:
    out = {}
    for name, (pairs, gold) in corpora().items():
        links = sure = different = different_sure = 0
        for (source, target), alignment in zip(pairs, gold, strict=True):
            matrix = alignment.to_matrix()
            for i, j in zip(*np.nonzero(matrix), strict=True):
                is_sure = int(matrix[i, j] == 2)
                links += 1
                sure += is_sure
                if source[i].lower() != target[j].lower():
                    different += 1
                    different_sure += is_sure
        n = len(pairs)
        out[name] = {
            "pairs": n,
            "links_per_pair": round(links / n, 2),
            "sure_per_pair": round(sure / n, 2),
            "different_word_links_per_pair": round(different / n, 2),
            "different_word_sure_per_pair": round(different_sure / n, 2),
        }
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("output", type=Path, help="where to write the JSON results")
    args = parser.parse_args(argv)
    results = {
        "gold": gold_statistics(),
        "rte2_annotators": rte2_annotators(set(heldout_of(800))),
    }
    for scope, rows in results["rte2_annotators"].items():
        print(f"RTE-2, {scope} pairs: corrections per pair (identical / different words)")
        for label, row in rows.items():
            print(
                f"  {label:40} {row['three_state']:5.2f} (linked-or-not {row['linked']:.2f}; "
                f"{row['identical']:.2f} / {row['different']:.2f})"
            )
    for name, row in results["gold"].items():
        print(f"{name}: {row}")
    args.output.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
