"""A small doubly annotated corpus with a prefill, for agreement tests (random but seeded)."""

from __future__ import annotations

import random

from scoring.alignment.links import Alignment
from scoring.corpus import AnnotationRecord, PairRecord

WORDS = ("the", "a", "cat", "dog", "sat", "ran", "on", "under", "mat", "rug", "big", "red")


def agreement_records(pairs: int = 24, seed: int = 7) -> list[PairRecord]:
    rng = random.Random(seed)
    out = []
    for index in range(pairs):
        n, m = rng.randint(4, 12), rng.randint(4, 12)
        src = [rng.choice(WORDS) for _ in range(n)]
        tgt = [rng.choice(WORDS) for _ in range(m)]
        diagonal = {(i, round(i * (m - 1) / max(1, n - 1))) for i in range(n)}
        prefill = Alignment.from_links(n, m, diagonal)

        out.append(
            PairRecord(
                id=f"p{index}",
                source_tokens=src,
                target_tokens=tgt,
                subcorpus=("news", "novels")[index % 2],
                prefill=prefill,
                prefill_aligner="diagonal",
                annotations={
                    "ann1": AnnotationRecord(alignment=_edited(rng, prefill, 0.2)),
                    "ann2": AnnotationRecord(alignment=_edited(rng, prefill, 0.3)),
                    "ann3": AnnotationRecord(
                        alignment=_edited(rng, prefill, 0.1), status="in_progress"
                    ),
                },
            )
        )
    return out


def _edited(rng: random.Random, prefill: Alignment, rate: float) -> Alignment:
    """The prefill with some links dropped and a few sure and possible links added."""
    n, m = prefill.shape
    sure = {link for link in sorted(prefill.sure) if rng.random() > rate}
    sure |= {(rng.randrange(n), rng.randrange(m)) for _ in range(rng.randint(0, 2))}
    possible = {(rng.randrange(n), rng.randrange(m)) for _ in range(rng.randint(0, 2))}
    return Alignment.from_links(n, m, sure, possible)
