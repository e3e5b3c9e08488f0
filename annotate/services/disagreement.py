"""How far each pair's submitted annotations disagree, kept for the adjudication list: the
lowest link F1 between two of them (:func:`scoring.alignment.metrics.lowest_pairwise_f1`).

Sorting 100,000 pairs by disagreement cannot compare every pair's annotations at each request,
so the figure is stored (:class:`PairDisagreement`, one row per pair with two or more submitted
annotations) and every write that changes a pair's submitted annotations keeps it: submit and
reopen call :func:`pair_disagreement_refresh` in their transaction, and an import computes it
from its records as it stages them and writes it with the pairs. A save never changes it: a
submitted annotation cannot be saved until it is reopened. The row also holds the source of the
pair's gold, for the list's status filter: a save of the gold calls
:func:`pair_disagreement_gold`.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence

from annotate.conversions import alignment_from_rows
from annotate.models import (
    AnnotationLink,
    Assignment,
    GoldAlignment,
    PairDisagreement,
    SentencePair,
)
from scoring.alignment.links import Alignment
from scoring.alignment.majority import majority_vote
from scoring.alignment.metrics import lowest_pairwise_f1

#: Pairs refreshed per round of queries (their annotation ids go into one ``IN`` list).
CHUNK = 1000


def disagreement_of(
    pair: SentencePair,
    alignments: Sequence[Alignment],
    annotators: Sequence[int],
    gold_source: str = "",
) -> PairDisagreement | None:
    """The unsaved row of a pair whose submitted annotations are ``alignments``, by the users
    ``annotators`` (ids), and whose gold came from ``gold_source`` (empty without one); ``None``
    with fewer than two annotations (the pair is not ready for adjudication)."""
    lowest = lowest_pairwise_f1(alignments)
    if lowest is None:
        return None
    return PairDisagreement(
        pair=pair,
        corpus_id=pair.corpus_id,
        position=pair.position,
        subcorpus=pair.subcorpus,
        split=pair.split,
        gold_source=gold_source,
        submitted=len(alignments),
        annotators=annotators_text(annotators),
        lowest_f1=lowest,
        unanimous=unanimous(alignments),
    )


def unanimous(alignments: Sequence[Alignment]) -> bool:
    """Whether two or more annotations are all the same alignment (by the majority rule's
    count, :attr:`scoring.alignment.majority.MajorityVote.unanimous`)."""
    return len(alignments) >= 2 and majority_vote(alignments).unanimous


def annotators_text(user_ids: Iterable[int]) -> str:
    """``' 3 17 42 '``: the ids sorted, each between spaces (see ``PairDisagreement``)."""
    return f" {' '.join(str(pk) for pk in sorted(user_ids))} "


def pair_disagreement_refresh(*, pair_ids: Iterable[int]) -> None:
    """Recompute the rows of the pairs ``pair_ids`` from their submitted annotations and gold:
    four queries and two writes per :data:`CHUNK` pairs, in the caller's transaction."""
    ids = sorted(set(pair_ids))
    for start in range(0, len(ids), CHUNK):
        chunk = ids[start : start + CHUNK]
        annotations = {
            annotation_id: (pair_id, annotator_id)
            for annotation_id, pair_id, annotator_id in Assignment.objects.filter(
                pair_id__in=chunk, status=Assignment.Status.SUBMITTED, annotation__isnull=False
            ).values_list("annotation__id", "pair_id", "annotator_id")
        }
        gold = dict(
            GoldAlignment.objects.filter(pair_id__in=chunk).values_list("pair_id", "source")
        )
        links: dict[int, list[AnnotationLink]] = defaultdict(list)
        for link in AnnotationLink.objects.filter(annotation_id__in=list(annotations)).only(
            "annotation_id", "i", "j", "sure"
        ):
            links[link.annotation_id].append(link)
        of_pair: dict[int, list[int]] = defaultdict(list)
        for annotation_id, (pair_id, _) in sorted(annotations.items()):
            of_pair[pair_id].append(annotation_id)
        rows = []
        for pair in SentencePair.objects.filter(pk__in=list(of_pair)).only(
            "id", "n_source", "n_target", "corpus_id", "position", "subcorpus", "split"
        ):
            row = disagreement_of(
                pair,
                [
                    alignment_from_rows(pair.n_source, pair.n_target, links[annotation_id])
                    for annotation_id in of_pair[pair.pk]
                ],
                [annotations[annotation_id][1] for annotation_id in of_pair[pair.pk]],
                gold.get(pair.pk, ""),
            )
            if row is not None:
                rows.append(row)
        ready = {row.pair_id for row in rows}
        PairDisagreement.objects.filter(pair_id__in=chunk).exclude(pair_id__in=ready).delete()
        PairDisagreement.objects.bulk_create(
            rows,
            update_conflicts=True,
            unique_fields=["pair"],
            update_fields=[
                "corpus",
                "position",
                "subcorpus",
                "split",
                "gold_source",
                "submitted",
                "annotators",
                "lowest_f1",
                "unanimous",
            ],
        )


def pair_disagreement_gold(*, pair_id: int, source: str) -> None:
    """The pair's gold alignment now comes from ``source`` (a save of its gold calls this in
    its transaction); nothing to do for a pair not ready for adjudication."""
    PairDisagreement.objects.filter(pair_id=pair_id).exclude(gold_source=source).update(
        gold_source=source
    )
