"""Load what scoring a pair needs before the first pair comes.

A process's first score pays for loading: NLTK and the tokenizer, WordNet (about 2 s), the POS
tagger, word frequencies, scikit-learn and each scorer's compiled kernels. A server that scores
pairs inside requests calls :func:`scorers_preload` once at start, in a background thread, so
that no request waits for them. It trains a tiny scorer of each kind and scores one pair with
it, which loads exactly what that kind uses. The kernels come from numba's cache when
``python -m scoring warm`` has filled it; otherwise they are compiled here, which takes minutes.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from scoring.errors import ResourceMissingError
from scoring.scorers.base import get_scorer, scorer_kinds
from scoring.text import tokenize

_TEXTS = [
    ("A man is playing a guitar.", "A person plays the guitar."),
    ("The cat sat on the mat.", "A dog slept on the rug."),
    ("Prices rose sharply today.", "Prices went up a lot today."),
    ("It is raining.", "It rains."),
]
_TARGETS = [4.5, 1.0, 4.0, 4.5]
_LABELS = [1, 0, 1, 0]
_SMALL_SVM = {"folds": 2, "c_grid": [1.0], "gamma_factors": [1.0], "epsilon_grid": [0.1]}
#: Options that keep each kind's training tiny; what it loads stays the same.
_OPTIONS: dict[str, dict[str, Any]] = {
    "perp": {"epochs": 2},
    "pfsm": {"max_iter": 2, "cutoff": 1},
    "ppda": {"max_iter": 2, "cutoff": 1},
    "mt": _SMALL_SVM,
    "combined": _SMALL_SVM,
}


def scorers_preload(kinds: Sequence[str] | None = None) -> dict[str, float | str]:
    """Train a tiny scorer of each kind (all by default) and score a pair with it; returns the
    seconds each kind took, or why it was skipped (a missing NLTK resource: the message names
    the command that installs it). Repeated calls cost little."""
    out: dict[str, float | str] = {}
    # Tokenized as the requests tokenize their sentences: that loads NLTK too.
    pairs = [(tokenize(first), tokenize(second)) for first, second in _TEXTS]
    for kind in scorer_kinds() if kinds is None else kinds:
        start = time.perf_counter()
        try:
            scorer = get_scorer(kind, **_OPTIONS.get(kind, {}))
            scorer.fit(pairs, _TARGETS).predict(pairs[:1])
            if "classification" in scorer.tasks:
                get_scorer(kind, "classification", **_OPTIONS.get(kind, {})).fit(
                    pairs, _LABELS
                ).predict(pairs[:1])
        except ResourceMissingError as error:
            out[kind] = str(error)
            continue
        out[kind] = time.perf_counter() - start
    return out
