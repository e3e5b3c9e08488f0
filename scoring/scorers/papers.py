"""Figures the papers report, to print beside ours.

Keys: scorer kind → evaluation setting → sub-corpus → value. Values are as printed in the papers
(Pearson for STS-2012 test, accuracy in % for the MSRP test set).
"""

from __future__ import annotations

from typing import Any

#: The three STS-2012 training files, and Heilman & Madnani's (2012) per-subtask scheme (§6): each
#: test file is
#: scored by the model of this training file (On-WN by MSRpar's, SMT-news by SMT-eur's).
STS2012_TRAIN_FILES: tuple[str, ...] = ("MSRpar", "MSRvid", "SMTeuroparl")
STS2012_MODEL_OF_TEST: dict[str, str] = {
    "MSRpar": "MSRpar",
    "MSRvid": "MSRvid",
    "SMTeuroparl": "SMTeuroparl",
    "surprise.OnWN": "MSRpar",
    "surprise.SMTnews": "SMTeuroparl",
}

PAPER_FIGURES: dict[str, dict[str, Any]] = {
    "perp": {
        "source": "Heilman & Madnani 2012, Table 2, PERP without phrases",
        "measure": "pearson",
        "sts2012": {
            "ALL": 0.7808,
            "MSRpar": 0.6211,
            "MSRvid": 0.7210,
            "SMTeuroparl": 0.4722,
            "surprise.OnWN": 0.7080,
            "surprise.SMTnews": 0.5149,
        },
    },
    "pfsm": {
        "source": "Wang & Cer 2012, Table 1, pFSM trained per sub-corpus",
        "measure": "pearson",
        "sts2012": {"MSRpar": 0.3795, "MSRvid": 0.5350, "SMTeuroparl": 0.4377},
    },
    "ppda": {
        "source": "Wang & Cer 2012, Table 1, pPDA (jump 5) trained per sub-corpus",
        "measure": "pearson",
        "sts2012": {"MSRpar": 0.4244, "MSRvid": 0.5051, "SMTeuroparl": 0.4554},
    },
    "mt": {
        "source": "Finch, Hwang & Sumita 2005, Table 3, MSRP test accuracy (%)",
        "measure": "accuracy",
        "msrp": {
            "WER": 68.29,
            "PER": 71.88,
            "POS": 74.20,
            "BLEU1": 73.22,
            "NIST1": 72.35,
            "ALL": 74.96,
        },
    },
}


def best_paper_figures(data: str) -> dict[str, dict[str, Any]]:
    """The best paper figure of every column of ``data`` (``"sts2012"`` or ``"msrp"``) over the
    kinds above: column → ``{"value", "kind"}`` (higher is better for both measures)."""
    best: dict[str, dict[str, Any]] = {}
    for kind, paper in PAPER_FIGURES.items():
        if kind == "combined":
            continue
        for column, value in paper.get(data, {}).items():
            if column not in best or value > best[column]["value"]:
                best[column] = {"value": value, "kind": kind}
    return best


# The combined scorer has no paper of its own: its page shows the figures it must beat.
PAPER_FIGURES["combined"] = {
    "source": "no paper of its own: the best figure of each column above, to beat",
    "measure": {"sts2012": "pearson", "msrp": "accuracy %"},
    "sts2012": {k: v["value"] for k, v in best_paper_figures("sts2012").items()},
    "msrp": {"best (ALL)": max(PAPER_FIGURES["mt"]["msrp"].values())},
}
