"""Reads of who annotates what: coverage (annotators per pair), progress per annotator and per
sub-corpus, active time and how much annotators change the prefill. Nothing here writes.

The figures are aggregated in SQL (a few statements whatever the corpus size), so the
Assignments tab stays fast on large corpora.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from typing import Any

from django.db import connection
from django.db.models import Count, F, Q, Sum

from annotate.models import Assignment, Corpus, SentencePair

_STATUS = Assignment.Status


def _rows(sql: str, params: list[Any]) -> list[tuple[Any, ...]]:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return list(cursor.fetchall())


def _per_pair_sql() -> str:
    """Per pair of a corpus: its sub-corpus, number of assignments and how many are new, in
    progress and submitted (0 for a pair nobody has)."""
    pair, assignment = SentencePair._meta.db_table, Assignment._meta.db_table
    return f"""
        SELECT sp.subcorpus AS subcorpus,
               COALESCE(s.k, 0) AS k,
               COALESCE(s.new, 0) AS new,
               COALESCE(s.started, 0) AS started,
               COALESCE(s.done, 0) AS done
        FROM {pair} sp LEFT JOIN (
            SELECT pair_id, COUNT(*) AS k,
                   SUM(CASE WHEN status = %s THEN 1 ELSE 0 END) AS new,
                   SUM(CASE WHEN status = %s THEN 1 ELSE 0 END) AS started,
                   SUM(CASE WHEN status = %s THEN 1 ELSE 0 END) AS done
            FROM {assignment} GROUP BY pair_id
        ) s ON s.pair_id = sp.id
        WHERE sp.corpus_id = %s
    """


def _coverage(corpus: Corpus) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    params = [_STATUS.NEW, _STATUS.IN_PROGRESS, _STATUS.SUBMITTED, corpus.pk]
    histogram = _rows(
        f"SELECT k, COUNT(*) FROM ({_per_pair_sql()}) p GROUP BY k ORDER BY k", params
    )
    by_sub = _rows(
        f"""SELECT subcorpus, COUNT(*),
               SUM(CASE WHEN k = 0 THEN 1 ELSE 0 END),
               SUM(CASE WHEN k >= 2 THEN 1 ELSE 0 END),
               SUM(CASE WHEN k > 0 AND done = k THEN 1 ELSE 0 END),
               SUM(new), SUM(started), SUM(done)
            FROM ({_per_pair_sql()}) p GROUP BY subcorpus ORDER BY subcorpus""",
        params,
    )
    pairs = sum(n for _, n in histogram)
    doubled = sum(n for k, n in histogram if k >= 2)
    coverage = {
        "pairs": pairs,
        "annotators_per_pair": [{"annotators": int(k), "pairs": int(n)} for k, n in histogram],
        "doubly_annotated": doubled,
        "doubly_annotated_fraction": doubled / pairs if pairs else None,
    }
    subcorpora = [
        {
            "subcorpus": sub,
            "pairs": int(n),
            "unassigned": int(unassigned or 0),
            "doubly_annotated": int(doubled_sub or 0),
            "pairs_done": int(pairs_done or 0),
            "new": int(new or 0),
            "in_progress": int(started or 0),
            "submitted": int(done or 0),
        }
        for sub, n, unassigned, doubled_sub, pairs_done, new, started, done in by_sub
    ]
    return coverage, subcorpora


def _edit_counts(corpus: Corpus) -> dict[int, dict[str, int]]:
    """Per annotator, over their submitted pairs that have a prefill: pairs, cells (``N·M``) and
    cells whose state in ``P`` differs from the pair's newest prefill (stored with each
    annotation, :attr:`Annotation.prefill_edits`)."""
    with_prefill = Q(annotation__prefill_edits__isnull=False)
    rows = (
        Assignment.objects.filter(pair__corpus=corpus, status=_STATUS.SUBMITTED)
        .filter(with_prefill)
        .values("annotator_id")
        .annotate(
            pairs=Count("id"),
            cells=Sum(F("pair__n_source") * F("pair__n_target")),
            edits=Sum("annotation__prefill_edits"),
        )
        .order_by()
    )
    return {
        row["annotator_id"]: {
            "pairs": row["pairs"],
            "cells": int(row["cells"] or 0),
            "edits": int(row["edits"] or 0),
        }
        for row in rows
    }


def _median(values: list[float]) -> float | None:
    return round(statistics.median(values), 1) if values else None


def corpus_progress(corpus: Corpus) -> dict[str, Any]:
    """The Assignments tab: coverage, progress per annotator and per sub-corpus.

    Active time is the time with activity in the workspace (see
    :mod:`annotate.services.annotations`), per submitted pair that was timed (imported work
    was not): ``None`` without any. The edit rate is
    ``Σ edited cells / Σ cells`` over an annotator's submitted pairs with a prefill, against
    the newest prefill: the per-cell ``Pr(edit)`` of Cohn et al. (2008, §3) before its fit
    against sentence length.
    """
    coverage, subcorpora = _coverage(corpus)
    assignments = Assignment.objects.filter(pair__corpus=corpus)
    per_annotator = (
        assignments.values("annotator_id", "annotator__username", "annotator__is_active")
        .annotate(
            assigned=Count("id"),
            new=Count("id", filter=Q(status=_STATUS.NEW)),
            in_progress=Count("id", filter=Q(status=_STATUS.IN_PROGRESS)),
            submitted=Count("id", filter=Q(status=_STATUS.SUBMITTED)),
        )
        .order_by("annotator__username")
    )
    times: dict[int, list[float]] = defaultdict(list)
    times_by_sub: dict[str, list[float]] = defaultdict(list)
    for annotator_id, subcorpus, seconds in assignments.filter(
        status=_STATUS.SUBMITTED
    ).values_list("annotator_id", "pair__subcorpus", "active_seconds"):
        if seconds > 0:  # imported work was never timed
            times[annotator_id].append(seconds)
            times_by_sub[subcorpus].append(seconds)
    edits = _edit_counts(corpus)
    annotators = []
    for row in per_annotator:
        counted = edits.get(row["annotator_id"])
        annotators.append(
            {
                "username": row["annotator__username"],
                "is_active": row["annotator__is_active"],
                "assigned": row["assigned"],
                "new": row["new"],
                "in_progress": row["in_progress"],
                "submitted": row["submitted"],
                "median_active_seconds": _median(times[row["annotator_id"]]),
                "edit_rate": counted["edits"] / counted["cells"]
                if counted and counted["cells"]
                else None,
                "edit_rate_pairs": counted["pairs"] if counted else 0,
            }
        )
    for sub in subcorpora:
        sub["median_active_seconds"] = _median(times_by_sub[sub["subcorpus"]])
    return {"coverage": coverage, "annotators": annotators, "subcorpora": subcorpora}
