"""Reads of who annotates what: coverage (annotators per pair), progress per annotator and per
sub-corpus, active time and how much annotators change the prefill. Nothing here writes.

The figures are aggregated in SQL (a few statements whatever the corpus size), so the
Assignments tab stays fast on large corpora.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from django.contrib.auth import get_user_model
from django.db import connection
from django.db.models import Count, Exists, F, OuterRef, Q

from annotate import roles
from annotate.models import Annotation, AnnotationEvent, Assignment, Corpus, SentencePair

_STATUS = Assignment.Status


def _rows(sql: str, params: list[Any]) -> list[tuple[Any, ...]]:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return list(cursor.fetchall())


def _coverage_rows(corpus: Corpus) -> list[tuple[Any, ...]]:
    """The corpus's assigned pairs grouped by sub-corpus and number of assignments ``k``: per
    group the pairs, those whose every assignment is submitted, and the new, in-progress and
    submitted assignments. One statement, which reads the corpus's assignments and, of its
    pairs, only the ``pair_figures`` index (the unassigned pairs are counted apart, by
    :func:`_pairs_by_subcorpus`: joining every pair to its assignments read each pair's row)."""
    pair, assignment = SentencePair._meta.db_table, Assignment._meta.db_table
    # The inner query groups each pair with its assignments (selecting the sub-corpus is
    # allowed: it depends on the grouped primary key).
    sql = f"""
        SELECT p.subcorpus, p.k, COUNT(*),
               SUM(CASE WHEN p.done = p.k THEN 1 ELSE 0 END),
               SUM(p.new), SUM(p.started), SUM(p.done)
        FROM (
            SELECT sp.subcorpus AS subcorpus, COUNT(*) AS k,
                   SUM(CASE WHEN a.status = %s THEN 1 ELSE 0 END) AS new,
                   SUM(CASE WHEN a.status = %s THEN 1 ELSE 0 END) AS started,
                   SUM(CASE WHEN a.status = %s THEN 1 ELSE 0 END) AS done
            FROM {pair} sp JOIN {assignment} a ON a.pair_id = sp.id
            WHERE sp.corpus_id = %s
            GROUP BY sp.id
        ) p
        GROUP BY p.subcorpus, p.k
        ORDER BY p.subcorpus, p.k
    """
    params = [_STATUS.NEW, _STATUS.IN_PROGRESS, _STATUS.SUBMITTED, corpus.pk]
    return _rows(sql, params)


def _pairs_by_subcorpus(corpus: Corpus) -> dict[str, int]:
    """The corpus's pairs per sub-corpus, in the database's order of the sub-corpora (one pass
    over the ``pair_figures`` index)."""
    return dict(
        SentencePair.objects.filter(corpus=corpus)
        .values("subcorpus")
        .annotate(n=Count("*"))
        .order_by("subcorpus")
        .values_list("subcorpus", "n")
    )


def corpus_coverage(corpus: Corpus) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """How many annotators the corpus's pairs have: ``coverage`` (its pairs, the histogram of
    annotators per pair, the doubly annotated pairs and their share) and per sub-corpus its
    pairs (unassigned, doubly annotated, done) and assignments (new, in progress, submitted).
    Two statements."""
    assigned: dict[str, list[tuple[int, ...]]] = defaultdict(list)
    for sub, k, n, done_pairs, new, started, done in _coverage_rows(corpus):
        assigned[sub].append((int(k), int(n), int(done_pairs), int(new), int(started), int(done)))
    histogram: dict[int, int] = defaultdict(int)
    subcorpora = []
    for sub, pairs in _pairs_by_subcorpus(corpus).items():
        # pairs, unassigned, doubly annotated, done, new, in progress, submitted
        totals = [pairs, pairs, 0, 0, 0, 0, 0]
        for k, n, done_pairs, new, started, done in assigned[sub]:
            histogram[k] += n
            totals[1] -= n
            totals[2] += n if k >= 2 else 0
            for index, value in enumerate((done_pairs, new, started, done), start=3):
                totals[index] += value
        if totals[1]:
            histogram[0] += totals[1]
        names = ("pairs", "unassigned", "doubly_annotated", "pairs_done", "new", "in_progress")
        subcorpora.append(
            {"subcorpus": sub, **dict(zip((*names, "submitted"), totals, strict=True))}
        )
    pairs = sum(histogram.values())
    doubled = sum(n for k, n in histogram.items() if k >= 2)
    coverage = {
        "pairs": pairs,
        "annotators_per_pair": [
            {"annotators": k, "pairs": n} for k, n in sorted(histogram.items())
        ],
        "doubly_annotated": doubled,
        "doubly_annotated_fraction": doubled / pairs if pairs else None,
    }
    return coverage, subcorpora


def _median(values: list[float]) -> float | None:
    return round(statistics.median(values), 1) if values else None


def _work(corpus: Corpus) -> list[dict[str, Any]]:
    """Each annotator with assignments in ``corpus``, by username: their id, whether the
    account is active, and their assigned, new, in-progress and submitted assignments.

    The corpus's assignments are counted per annotator id alone (from the
    ``assignment_progress`` index, grouped by an integer); a second query reads the accounts
    of the annotators counted, by username. Grouping by the username as well would have
    PostgreSQL sort every assignment of the corpus by it. Nothing counted is outside that
    index (``COUNT(*)``, the statuses), so PostgreSQL, which keeps no row id in it, reads
    the index alone too."""
    counts = {
        row["annotator_id"]: row
        for row in Assignment.objects.filter(pair__corpus=corpus)
        .values("annotator_id")
        .annotate(
            assigned=Count("*"),
            new=Count("status", filter=Q(status=_STATUS.NEW)),
            in_progress=Count("status", filter=Q(status=_STATUS.IN_PROGRESS)),
            submitted=Count("status", filter=Q(status=_STATUS.SUBMITTED)),
        )
        .order_by()
    }
    if not counts:
        return []
    people = (
        get_user_model()
        .objects.filter(pk__in=list(counts))
        .order_by("username")
        .values_list("pk", "username", "is_active")
    )
    return [
        {"username": username, "is_active": is_active, **counts[pk]}
        for pk, username, is_active in people
    ]


def corpus_progress(corpus: Corpus) -> dict[str, Any]:
    """The Assignments tab: coverage, progress per annotator and per sub-corpus.

    Active time is the time with activity in the workspace (see
    :mod:`annotate.services.annotations`), per submitted pair that was timed (imported work
    was not): ``None`` without any. The edit rate is
    ``Σ edited cells / Σ cells`` over an annotator's submitted pairs with a prefill, against
    the newest prefill: the per-cell ``Pr(edit)`` of Cohn et al. (2008, §3) before its fit
    against sentence length.
    """
    coverage, subcorpora = corpus_coverage(corpus)
    figures = submitted_figures(corpus)
    annotators = []
    for row in _work(corpus):
        edits = figures.edited.get(row["annotator_id"], {})
        annotators.append(
            {
                "username": row["username"],
                "is_active": row["is_active"],
                "assigned": row["assigned"],
                "new": row["new"],
                "in_progress": row["in_progress"],
                "submitted": row["submitted"],
                "median_active_seconds": figures.median_by_annotator.get(row["annotator_id"]),
                "edit_rate": edits["edits"] / edits["cells"] if edits.get("cells") else None,
                "edit_rate_pairs": edits.get("pairs", 0),
            }
        )
    for sub in subcorpora:
        sub["median_active_seconds"] = figures.median_by_subcorpus.get(sub["subcorpus"])
    return {"coverage": coverage, "annotators": annotators, "subcorpora": subcorpora}


@dataclass(frozen=True)
class SubmittedFigures:
    """The figures of a corpus's submitted assignments: the median active time of the timed
    ones (imported work is untimed) per annotator id and per sub-corpus (``None`` without
    any), and per annotator id the edit rate's sums over those with a prefill (``pairs``,
    ``cells``, ``edits``; see :attr:`Annotation.prefill_edits`)."""

    median_by_annotator: dict[int, float | None]
    median_by_subcorpus: dict[str, float | None]
    edited: dict[int, dict[str, int]]


def submitted_figures(corpus: Corpus) -> SubmittedFigures:
    """:class:`SubmittedFigures` of ``corpus``: on PostgreSQL aggregated in one statement
    (:func:`_submitted_figures_sql`), elsewhere from the rows (:func:`submitted_figures_rows`),
    with the same result."""
    if connection.vendor == "postgresql":
        return _submitted_figures_sql(corpus)
    return submitted_figures_rows(corpus)


def submitted_figures_rows(corpus: Corpus) -> SubmittedFigures:
    """:class:`SubmittedFigures` from every submitted assignment's row, read into Python (what
    a database without ordered-set aggregates does; one row per assignment)."""
    submitted = (
        Assignment.objects.filter(pair__corpus=corpus, status=_STATUS.SUBMITTED)
        .annotate(cells=F("pair__n_source") * F("pair__n_target"))
        .values_list(
            "annotator_id",
            "pair__subcorpus",
            "active_seconds",
            "annotation__prefill_edits",
            "cells",
        )
        .order_by()
    )
    edited: dict[int, dict[str, int]] = defaultdict(lambda: {"pairs": 0, "cells": 0, "edits": 0})
    times: dict[int, list[float]] = defaultdict(list)
    times_by_sub: dict[str, list[float]] = defaultdict(list)
    for annotator_id, subcorpus, seconds, changed, cells in submitted:
        if seconds > 0:
            times[annotator_id].append(seconds)
            times_by_sub[subcorpus].append(seconds)
        if changed is not None:
            counted = edited[annotator_id]
            counted["pairs"] += 1
            counted["cells"] += cells
            counted["edits"] += changed
    return SubmittedFigures(
        median_by_annotator={pk: _median(values) for pk, values in times.items()},
        median_by_subcorpus={sub: _median(values) for sub, values in times_by_sub.items()},
        edited=dict(edited),
    )


def _middle(low: float | None, high: float | None) -> float | None:
    """The median from its two middle values (the same one for an odd count), rounded as
    :func:`_median` rounds it: ``statistics.median`` averages the two middle values the same
    way (``(a + b) / 2``; ``(x + x) / 2`` is ``x``)."""
    if low is None or high is None:
        return None
    return round((low + high) / 2, 1)


def _submitted_figures_sql(corpus: Corpus) -> SubmittedFigures:
    """:class:`SubmittedFigures` aggregated by PostgreSQL, grouped by annotator and by
    sub-corpus in one pass over the submitted assignments: a few rows reach Python instead of
    one per assignment (240,000 at 80,000 pairs × 3 annotators, most of the tab's time). The
    median is exact: ``percentile_disc(0.5)`` in ascending order is the lower middle value and
    in descending order the upper one."""
    pair, assignment = SentencePair._meta.db_table, Assignment._meta.db_table
    annotation = Annotation._meta.db_table
    sql = f"""
        SELECT GROUPING(a.annotator_id), a.annotator_id, sp.subcorpus,
               PERCENTILE_DISC(0.5) WITHIN GROUP (ORDER BY a.active_seconds)
                   FILTER (WHERE a.active_seconds > 0),
               PERCENTILE_DISC(0.5) WITHIN GROUP (ORDER BY a.active_seconds DESC)
                   FILTER (WHERE a.active_seconds > 0),
               COUNT(an.prefill_edits),
               SUM(sp.n_source * sp.n_target) FILTER (WHERE an.prefill_edits IS NOT NULL),
               SUM(an.prefill_edits)
        FROM {assignment} a
        JOIN {pair} sp ON sp.id = a.pair_id
        LEFT JOIN {annotation} an ON an.assignment_id = a.id
        WHERE sp.corpus_id = %s AND a.status = %s
        GROUP BY GROUPING SETS ((a.annotator_id), (sp.subcorpus))
    """
    by_annotator: dict[int, float | None] = {}
    by_subcorpus: dict[str, float | None] = {}
    edited: dict[int, dict[str, int]] = {}
    for grouped_by_sub, annotator_id, subcorpus, low, high, pairs, cells, edits in _rows(
        sql, [corpus.pk, _STATUS.SUBMITTED]
    ):
        if grouped_by_sub:
            by_subcorpus[subcorpus] = _middle(low, high)
            continue
        by_annotator[annotator_id] = _middle(low, high)
        if pairs:
            edited[annotator_id] = {"pairs": pairs, "cells": int(cells), "edits": int(edits)}
    return SubmittedFigures(by_annotator, by_subcorpus, edited)


@dataclass(frozen=True)
class PlanCandidate:
    """An active annotator a plan or a hand-over may name.

    ``signs_in``: the account has a password or has signed in before. ``imported``: an account
    an import made for the work it attributed (imported annotations, no password, never signed
    in), so nobody works as it. A plan ticks by default only people who sign in, never a
    superuser (an admin is an annotator only by being one)."""

    username: str
    imported: bool
    superuser: bool
    open_here: int
    signs_in: bool = True

    @property
    def ticked(self) -> bool:
        return self.signs_in and not (self.imported or self.superuser)


def _imported_work() -> Exists:
    return Exists(
        AnnotationEvent.objects.filter(
            kind=AnnotationEvent.Kind.IMPORTED, annotation__assignment__annotator=OuterRef("pk")
        )
    )


def _signs_in(user: Any) -> bool:
    return bool(user.has_usable_password() or user.last_login is not None)


def _made_by_import(people: list[Any]) -> set[int]:
    """The ids of those of ``people`` an import made: imported annotations, no password and
    never signed in. Only the accounts nobody signs in as are looked for imported work (one
    query, none without any): the look-up goes through every assignment of an account
    without it, and most accounts sign in."""
    ids = [user.pk for user in people if not _signs_in(user)]
    if not ids:
        return set()
    return set(
        get_user_model()
        .objects.filter(pk__in=ids)
        .filter(_imported_work())
        .values_list("pk", flat=True)
    )


_SIGN_IN_FIELDS = ("username", "password", "last_login")


def imported_accounts(usernames: Iterable[str]) -> set[str]:
    """Which of ``usernames`` are accounts an import made (see :class:`PlanCandidate`)."""
    people = list(
        get_user_model().objects.filter(username__in=list(usernames)).only(*_SIGN_IN_FIELDS)
    )
    made = _made_by_import(people)
    return {user.get_username() for user in people if user.pk in made}


def plan_candidates(
    corpus: Corpus, *, open_here: Mapping[str, int] | None = None
) -> list[PlanCandidate]:
    """Every active holder of the annotator role (superusers hold every role), by username, with
    their open (new or in progress) assignments in ``corpus``: ``open_here`` maps usernames to
    them when the caller has counted them already (:func:`work_by_annotator`), else they are
    counted here."""
    if open_here is None:
        open_here = {row["username"]: row["new"] + row["in_progress"] for row in _work(corpus)}
    people = list(
        get_user_model()
        .objects.filter(is_active=True)
        .filter(Q(groups=roles.role_group(roles.ANNOTATOR)) | Q(is_superuser=True))
        .distinct()
        .only(*_SIGN_IN_FIELDS, "is_superuser")
        .order_by("username")
    )
    made = _made_by_import(people)
    return [
        PlanCandidate(
            username=user.get_username(),
            imported=user.pk in made,
            superuser=user.is_superuser,
            open_here=open_here.get(user.get_username(), 0),
            signs_in=_signs_in(user),
        )
        for user in people
    ]


def work_by_annotator(corpus: Corpus) -> list[dict[str, Any]]:
    """Each annotator with assignments in ``corpus``, by username: new, in progress and
    submitted (the forms of the corpus tabs need no more than this)."""
    return [
        {
            "username": row["username"],
            "new": row["new"],
            "in_progress": row["in_progress"],
            "submitted": row["submitted"],
        }
        for row in _work(corpus)
    ]
