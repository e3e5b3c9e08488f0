"""Reads of who annotates what: coverage (annotators per pair), progress per annotator and per
sub-corpus, active time and how much annotators change the prefill. Nothing here writes.

The figures are aggregated in SQL (a few statements whatever the corpus size), so the
Assignments tab stays fast on large corpora.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.contrib.auth import get_user_model
from django.db import connection
from django.db.models import Count, Exists, F, OuterRef, Q, Sum

from annotate import roles
from annotate.models import AnnotationEvent, Assignment, Corpus, SentencePair

_STATUS = Assignment.Status


def _rows(sql: str, params: list[Any]) -> list[tuple[Any, ...]]:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return list(cursor.fetchall())


def _coverage_rows(corpus: Corpus) -> list[tuple[Any, ...]]:
    """Pairs of a corpus grouped by sub-corpus and number of assignments ``k``: per group the
    pairs, those whose every assignment is submitted (``k`` > 0), and the new, in-progress
    and submitted assignments. One statement; only the corpus's assignments are read."""
    pair, assignment = SentencePair._meta.db_table, Assignment._meta.db_table
    # The inner query groups each pair with its assignments in one pass over the corpus's pairs
    # (selecting the sub-corpus is allowed: it depends on the grouped primary key).
    sql = f"""
        SELECT p.subcorpus, p.k, COUNT(*),
               SUM(CASE WHEN p.k > 0 AND p.done = p.k THEN 1 ELSE 0 END),
               SUM(p.new), SUM(p.started), SUM(p.done)
        FROM (
            SELECT sp.subcorpus AS subcorpus, COUNT(a.id) AS k,
                   SUM(CASE WHEN a.status = %s THEN 1 ELSE 0 END) AS new,
                   SUM(CASE WHEN a.status = %s THEN 1 ELSE 0 END) AS started,
                   SUM(CASE WHEN a.status = %s THEN 1 ELSE 0 END) AS done
            FROM {pair} sp LEFT JOIN {assignment} a ON a.pair_id = sp.id
            WHERE sp.corpus_id = %s
            GROUP BY sp.id
        ) p
        GROUP BY p.subcorpus, p.k
        ORDER BY p.subcorpus, p.k
    """
    params = [_STATUS.NEW, _STATUS.IN_PROGRESS, _STATUS.SUBMITTED, corpus.pk]
    return _rows(sql, params)


def _coverage(corpus: Corpus) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    histogram: dict[int, int] = defaultdict(int)
    by_sub: dict[str, list[int]] = {}
    for sub, k, n, done_pairs, new, started, done in _coverage_rows(corpus):
        histogram[int(k)] += int(n)
        totals = by_sub.setdefault(sub, [0] * 7)
        for index, value in enumerate(
            (n, n if k == 0 else 0, n if k >= 2 else 0, done_pairs, new, started, done)
        ):
            totals[index] += int(value or 0)
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
    names = ("pairs", "unassigned", "doubly_annotated", "pairs_done", "new", "in_progress")
    subcorpora = [
        {"subcorpus": sub, **dict(zip((*names, "submitted"), totals, strict=True))}
        for sub, totals in by_sub.items()
    ]
    return coverage, subcorpora


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
    # The edit rate counts submitted pairs with a prefill, against the newest prefill (stored
    # with each annotation, :attr:`Annotation.prefill_edits`).
    edited = Q(status=_STATUS.SUBMITTED, annotation__prefill_edits__isnull=False)
    per_annotator = (
        assignments.values("annotator_id", "annotator__username", "annotator__is_active")
        .annotate(
            assigned=Count("id"),
            new=Count("id", filter=Q(status=_STATUS.NEW)),
            in_progress=Count("id", filter=Q(status=_STATUS.IN_PROGRESS)),
            submitted=Count("id", filter=Q(status=_STATUS.SUBMITTED)),
            edit_pairs=Count("id", filter=edited),
            cells=Sum(F("pair__n_source") * F("pair__n_target"), filter=edited),
            edits=Sum("annotation__prefill_edits", filter=edited),
        )
        .order_by("annotator__username")
    )
    times: dict[int, list[float]] = defaultdict(list)
    times_by_sub: dict[str, list[float]] = defaultdict(list)
    for annotator_id, subcorpus, seconds in (
        assignments.filter(status=_STATUS.SUBMITTED, active_seconds__gt=0)  # imported: untimed
        .values_list("annotator_id", "pair__subcorpus", "active_seconds")
        .order_by()
    ):
        times[annotator_id].append(seconds)
        times_by_sub[subcorpus].append(seconds)
    annotators = []
    for row in per_annotator:
        annotators.append(
            {
                "username": row["annotator__username"],
                "is_active": row["annotator__is_active"],
                "assigned": row["assigned"],
                "new": row["new"],
                "in_progress": row["in_progress"],
                "submitted": row["submitted"],
                "median_active_seconds": _median(times[row["annotator_id"]]),
                "edit_rate": row["edits"] / row["cells"] if row["cells"] else None,
                "edit_rate_pairs": row["edit_pairs"],
            }
        )
    for sub in subcorpora:
        sub["median_active_seconds"] = _median(times_by_sub[sub["subcorpus"]])
    return {"coverage": coverage, "annotators": annotators, "subcorpora": subcorpora}


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


def _made_by_import(user: Any) -> bool:
    """An account an import made (annotated with ``imported_work``): imported annotations, no
    password and never signed in."""
    return bool(user.imported_work) and not _signs_in(user)


def imported_accounts(usernames: Iterable[str]) -> set[str]:
    """Which of ``usernames`` are accounts an import made (see :class:`PlanCandidate`)."""
    people = (
        get_user_model()
        .objects.filter(username__in=list(usernames))
        .annotate(imported_work=_imported_work())
    )
    return {user.get_username() for user in people if _made_by_import(user)}


def plan_candidates(corpus: Corpus) -> list[PlanCandidate]:
    """Every active holder of the annotator role (superusers hold every role), by username, with
    their open (not submitted) assignments in ``corpus``. One query."""
    people = (
        get_user_model()
        .objects.filter(is_active=True)
        .filter(Q(groups=roles.role_group(roles.ANNOTATOR)) | Q(is_superuser=True))
        .distinct()
        .annotate(
            imported_work=_imported_work(),
            open_here=Count(
                "assignments",
                filter=Q(assignments__pair__corpus=corpus)
                & ~Q(assignments__status=_STATUS.SUBMITTED),
                distinct=True,
            ),
        )
        .order_by("username")
    )
    return [
        PlanCandidate(
            username=user.get_username(),
            imported=_made_by_import(user),
            superuser=user.is_superuser,
            open_here=user.open_here,
            signs_in=_signs_in(user),
        )
        for user in people
    ]


def work_by_annotator(corpus: Corpus) -> list[dict[str, Any]]:
    """Each annotator with assignments in ``corpus``, by username: new, in progress and
    submitted. One grouped query over the corpus's assignments (the forms of the corpus tabs
    need no more than this)."""
    rows = (
        Assignment.objects.filter(pair__corpus=corpus)
        .values("annotator__username")
        .annotate(
            new=Count("id", filter=Q(status=_STATUS.NEW)),
            in_progress=Count("id", filter=Q(status=_STATUS.IN_PROGRESS)),
            submitted=Count("id", filter=Q(status=_STATUS.SUBMITTED)),
        )
        .order_by("annotator__username")
    )
    return [
        {
            "username": row["annotator__username"],
            "new": row["new"],
            "in_progress": row["in_progress"],
            "submitted": row["submitted"],
        }
        for row in rows
    ]
