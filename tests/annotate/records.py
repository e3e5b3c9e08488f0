"""Small builders of scoring records for the platform tests (no fixture files)."""

from __future__ import annotations

from scoring.alignment.links import Alignment
from scoring.corpus import AnnotationRecord, PairRecord


def make_record(
    pair_id: str = "p1",
    source: str = "the cat sat on the mat",
    target: str = "a cat was sitting on the mat",
    *,
    prefill: str | None = "1-1 3-4 4-5 5-6",
    annotations: dict[str, str] | None = None,
    gold: str | None = None,
    subcorpus: str = "news",
    split: str = "train",
) -> PairRecord:
    src, tgt = source.split(), target.split()
    n, m = len(src), len(tgt)
    record = PairRecord(
        id=pair_id,
        source_tokens=src,
        target_tokens=tgt,
        source_text=source,
        target_text=target,
        subcorpus=subcorpus,
        split=split,
        gold_score=3.5,
        gold_label=1,
    )
    if prefill is not None:
        record.prefill = Alignment.from_pharaoh(prefill, n, m)
        record.prefill_aligner = "identity"
        record.prefill_confidence = {link: 0.5 for link in record.prefill.possible}
    for name, links in (annotations or {}).items():
        record.annotations[name] = AnnotationRecord(
            alignment=Alignment.from_pharaoh(links, n, m), flags=("bad_tokenization",), rating=4.0
        )
    if gold is not None:
        record.gold_alignment = Alignment.from_pharaoh(gold, n, m)
    return record
