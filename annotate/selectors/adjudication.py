"""Reads for adjudication: the pairs ready for it (filtered, searched, sorted and paged in
SQL), the next waiting one, one pair's annotations with their majority, and the history of its
gold alignment. Nothing here writes.

A pair is ready for adjudication once two or more of its annotations are submitted: exactly the
pairs with a ``PairDisagreement`` row (kept by :mod:`annotate.services.disagreement`), which
also holds what the list filters and sorts on, so the list reads one small indexed table instead
of counting every pair's assignments.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from django.contrib.auth import get_user_model
from django.db.models import Func, IntegerField, Q, QuerySet
from django.db.models.fields.json import KeyTransform

from annotate import roles
from annotate.conversions import alignment_from_rows
from annotate.models import (
    AnnotationLink,
    Assignment,
    Corpus,
    GoldAlignment,
    GoldEvent,
    PairDisagreement,
    SentencePair,
)
from annotate.selectors.pair_search import pair_search
from annotate.selectors.workspace import pair_payload, prefill_of
from annotate.services.annotations import LinkMap, links_list
from annotate.services.disagreement import annotators_text
from scoring.alignment.links import Alignment
from scoring.alignment.majority import majority_vote

#: The gold source of an adjudicator's work (imports write "imported").
ADJUDICATED = "adjudicated"
#: ``waiting``: no gold saved by an adjudicator (none, or an imported one); ``adjudicated``: an
#: adjudicator saved it; ``imported``: the gold came with an import or a trial sample.
STATUSES = ("waiting", "adjudicated", "imported")
#: Orders of the list (``-`` before a name reverses it): ``id`` is corpus order,
#: ``disagreement`` puts the pairs whose annotators agree least (lowest link F1) first.
SORTS: dict[str, tuple[str, ...]] = {
    "id": ("corpus_id", "position"),
    "disagreement": ("lowest_f1", "corpus_id", "position"),
}
SORT_CHOICES = tuple(f"{sign}{name}" for name in SORTS for sign in ("", "-"))
#: The matching ids a search reads in one pass (see :class:`AdjudicationRows`).
SEARCH_IDS = 1000
#: Gold alignment events the history of a pair lists at most (newest first), and the links of
#: each it lists.
HISTORY_LIMIT = 30
HISTORY_LINKS = 20


@dataclass(frozen=True)
class AdjudicationFilters:
    """What the adjudication list shows: ``None`` or ``""`` means no filter."""

    corpus: int | None = None
    subcorpus: str | None = None
    split: str | None = None
    status: str | None = None
    annotator: str | None = None
    search: str = ""
    sort: str = "id"


@dataclass
class AdjudicationRow:
    """One pair of the list with what its row shows."""

    id: int
    external_id: str
    corpus: str
    subcorpus: str
    split: str
    source_text: str
    target_text: str
    submitted: int
    lowest_f1: float
    annotators: list[str] = field(default_factory=list)
    status: str = "waiting"
    gold_source: str | None = None
    adjudicator: str | None = None
    gold_updated_at: datetime | None = None

    @property
    def pk(self) -> int:
        return self.id


def pairs_for_adjudication(
    filters: AdjudicationFilters | None = None,
) -> QuerySet[PairDisagreement]:
    """The pairs ready for adjudication that pass ``filters``, in its sort order, as their
    :class:`PairDisagreement` rows: the filters and both orders read that small table and its
    indexes, and only a search reads the pairs' texts. ``search`` matches the pair id or
    either text, ignoring case."""
    filters = filters or AdjudicationFilters()
    rows = PairDisagreement.objects.filter(corpus__archived_at__isnull=True)
    if filters.corpus is not None:
        rows = rows.filter(corpus_id=filters.corpus)
    if filters.subcorpus:
        rows = rows.filter(subcorpus=filters.subcorpus)
    if filters.split:
        rows = rows.filter(split=filters.split)
    if filters.status == "waiting":
        rows = rows.exclude(gold_source=ADJUDICATED)
    elif filters.status == "adjudicated":
        rows = rows.filter(gold_source=ADJUDICATED)
    elif filters.status == "imported":
        rows = rows.exclude(gold_source="").exclude(gold_source=ADJUDICATED)
    if filters.annotator:
        user = get_user_model().objects.filter(username=filters.annotator).first()
        if user is None:
            return rows.none()
        rows = rows.filter(annotators__contains=annotators_text([user.pk]))
    if filters.search:
        rows = rows.filter(pair_search(filters.search, via="pair__"))
    return rows.order_by(*_ordering(filters.sort))


def pairs_agreed_waiting(filters: AdjudicationFilters) -> QuerySet[PairDisagreement]:
    """The pairs of the list ``filters`` describe whose majority a bulk accept takes as their
    gold: every annotator made the same alignment (``unanimous``: the majority has no tie and
    settles nothing), and the pair has no gold at all (neither an adjudicator's nor an
    imported one, which it never overwrites)."""
    return pairs_for_adjudication(filters).filter(unanimous=True, gold_source="")


def _ordering(sort: str) -> list[str]:
    descending = sort.startswith("-")
    return [f"-{key}" if descending else key for key in SORTS[sort.lstrip("-")]]


class AdjudicationRows:
    """The rows of :func:`pairs_for_adjudication` as a sequence a paginator pages: its length
    is counted in SQL, and a slice chooses its ids on the indexes before it reads those rows
    alone, with their gold and the names of their annotators (four queries a page whatever the
    corpus size).

    A search reads the texts of every pair it cannot rule out, so it is asked once for up to
    :data:`SEARCH_IDS` matching ids: when that is all of them, they are counted and sliced
    here (one pass instead of two); when there are more, the count and the page come from SQL
    (the page's pass stops early, as matches are many)."""

    ordered = True

    def __init__(self, filters: AdjudicationFilters) -> None:
        self.pairs = pairs_for_adjudication(filters)
        self.search = bool(filters.search)
        self._found: list[int] | None = None

    def _few(self) -> list[int] | None:
        """Every matching id of a search that matches at most :data:`SEARCH_IDS` pairs."""
        if not self.search:
            return None
        if self._found is None:
            self._found = list(self.pairs.values_list("pair_id", flat=True)[: SEARCH_IDS + 1])
        return self._found if len(self._found) <= SEARCH_IDS else None

    def count(self) -> int:
        few = self._few()
        return len(few) if few is not None else self.pairs.count()

    def __len__(self) -> int:
        return self.count()

    def __getitem__(self, window: slice) -> list[AdjudicationRow]:
        few = self._few()
        if few is not None:
            return adjudication_rows(few[window])
        return adjudication_rows(list(self.pairs.values_list("pair_id", flat=True)[window]))


def adjudication_page(
    filters: AdjudicationFilters, *, page: int, per_page: int
) -> tuple[list[AdjudicationRow], int]:
    """One page of :func:`pairs_for_adjudication` and the number of pairs it holds."""
    rows = AdjudicationRows(filters)
    start = (page - 1) * per_page
    return rows[start : start + per_page], rows.count()


def adjudication_rows(ids: list[int]) -> list[AdjudicationRow]:
    """The list's rows of the pairs ``ids``, in that order."""
    found = SentencePair.objects.filter(id__in=ids).select_related(
        "corpus", "disagreement", "gold", "gold__adjudicator"
    )
    names: dict[int, list[str]] = defaultdict(list)
    for pair_id, username in (
        Assignment.objects.filter(pair_id__in=ids, status=Assignment.Status.SUBMITTED)
        .order_by("annotator__username")
        .values_list("pair_id", "annotator__username")
    ):
        names[pair_id].append(username)
    rows = {}
    for pair in found:
        gold = getattr(pair, "gold", None)
        rows[pair.pk] = AdjudicationRow(
            id=pair.pk,
            external_id=pair.external_id,
            corpus=pair.corpus.name,
            subcorpus=pair.subcorpus,
            split=pair.split,
            source_text=pair.source_text,
            target_text=pair.target_text,
            submitted=pair.disagreement.submitted,
            lowest_f1=pair.disagreement.lowest_f1,
            annotators=names[pair.pk],
            status=adjudication_status(pair),
            gold_source=gold.source if gold else None,
            adjudicator=gold.adjudicator.get_username() if gold and gold.adjudicator else None,
            gold_updated_at=gold.updated_at if gold else None,
        )
    return [rows[pk] for pk in ids]


def adjudication_next(*, pair: SentencePair, filters: AdjudicationFilters) -> SentencePair | None:
    """The waiting pair that follows ``pair`` in the list ``filters`` describe (whatever its
    status filter), starting again from the top after the last; ``None`` when no other pair
    of that list waits."""
    waiting = pairs_for_adjudication(replace(filters, status="waiting")).exclude(pair=pair)
    after = _beyond(pair, filters.sort, later=True)
    found = waiting.filter(after).first() if after is not None else None
    found = found or waiting.first()
    return (
        None
        if found is None
        else SentencePair.objects.only("id", "external_id").get(pk=found.pair_id)
    )


def adjudication_previous(
    *, pair: SentencePair, filters: AdjudicationFilters
) -> SentencePair | None:
    """The pair just before ``pair`` in the list ``filters`` describe (its status filter
    kept: in a list of every pair, the one adjudicated just before); ``None`` for the first,
    or for a pair that has no place in the list."""
    before = _beyond(pair, filters.sort, later=False)
    if before is None:
        return None
    found = pairs_for_adjudication(filters).exclude(pair=pair).filter(before).reverse().first()
    return (
        None
        if found is None
        else SentencePair.objects.only("id", "external_id").get(pk=found.pair_id)
    )


def adjudication_list_page(
    *, pair: SentencePair, filters: AdjudicationFilters, per_page: int
) -> int:
    """The page of the list ``filters`` describe that holds ``pair``, or where it would be if
    the filters leave it out (adjudicated, in a list of the waiting pairs): the page its
    adjudicator returns to. 1 for a pair not ready for adjudication."""
    before = _beyond(pair, filters.sort, later=False)
    if before is None:
        return 1
    return pairs_for_adjudication(filters).filter(before).exclude(pair=pair).count() // per_page + 1


def _beyond(pair: SentencePair, sort: str, *, later: bool) -> Q | None:
    """The rows after ``pair`` in the order ``sort`` (``later``), or before it; ``None`` when
    the pair has no place in the list."""
    keys = SORTS[sort.lstrip("-")]
    side = "gt" if later != sort.startswith("-") else "lt"
    here = PairDisagreement.objects.filter(pair=pair).values_list(*keys).first()
    if here is None or None in here:
        return None
    values = list(here)
    beyond = Q()
    # Past the pair's sort key: (a > x) or (a = x and b > y) or ... (< when reversed)
    for k, key in enumerate(keys):
        beyond |= Q(**dict(zip(keys[:k], values[:k], strict=True)), **{f"{key}__{side}": values[k]})
    return beyond


def adjudication_facets(*, corpus: int | None = None) -> dict[str, list[Any]]:
    """The choices of the list's filters: the corpora in use (an archived one's pairs leave the
    list, so choosing it could only show an empty one), the sub-corpora and splits (of
    ``corpus`` when given) and the annotators."""
    pairs = SentencePair.objects.all()
    if corpus is not None:
        pairs = pairs.filter(corpus_id=corpus)

    def distinct(column: str) -> list[str]:
        values = pairs.order_by(column).values_list(column, flat=True).distinct()
        return [value for value in values if value]

    return {
        "corpora": list(
            Corpus.objects.filter(archived_at__isnull=True)
            .order_by("name")
            .values_list("id", "name")
        ),
        "subcorpora": distinct("subcorpus"),
        "splits": distinct("split"),
        "annotators": list(
            get_user_model()
            .objects.filter(groups__name=roles.ANNOTATOR)
            .order_by("username")
            .values_list("username", flat=True)
        ),
    }


def gold_state(gold: GoldAlignment, links: LinkMap | None = None) -> dict[str, Any]:
    """A gold alignment as clients see it: its links (``links`` when the caller has read them),
    version, who saved it and when, its origin (an adjudicator or an import), and ``job``: the
    bulk accept that saved this version in the adjudicator's name, if one did (a conflict then
    says so instead of implying a person edited it)."""
    if links is None:
        links = {(i, j): sure for i, j, sure in gold.links.values_list("i", "j", "sure")}
    job = (
        GoldEvent.objects.filter(pair_id=gold.pair_id, version=gold.version)
        .values_list("job_id", flat=True)
        .first()
    )
    return {
        "links": links_list(links),
        "version": gold.version,
        "adjudicator": gold.adjudicator.get_username() if gold.adjudicator else None,
        "updated_at": gold.updated_at.isoformat(),
        "origin": gold.source,
        "job": job,
    }


#: The origin of :func:`gold_waiting_state`: the pair's gold was sent back to waiting.
CLEARED = "cleared"


def last_gold_event(pair: SentencePair) -> GoldEvent | None:
    """The pair's last gold change (its highest version), with who made it; ``None`` when its
    gold never changed."""
    return GoldEvent.objects.filter(pair=pair).select_related("actor").order_by("-version").first()


def gold_waiting_state(event: GoldEvent) -> dict[str, Any]:
    """A pair without gold whose last gold change is ``event`` (a clear: Back to waiting), in
    the shape of :func:`gold_state`: no link, the version of that change (what the save that
    starts its next gold names), who sent it back and when (and ``job``: the undo of a bulk
    accept that did it for them, if one did), origin :data:`CLEARED`."""
    cleared = event.kind == GoldEvent.Kind.CLEARED
    return {
        "links": [],
        "version": event.version,
        "adjudicator": event.actor.get_username() if cleared and event.actor else None,
        "updated_at": event.created_at.isoformat(),
        "origin": CLEARED,
        "job": event.job_id if cleared else None,
    }


def adjudication_status(pair: SentencePair) -> str:
    """``adjudicated`` once an adjudicator saved the gold, else ``waiting``."""
    gold = getattr(pair, "gold", None)
    return "adjudicated" if gold is not None and gold.source == ADJUDICATED else "waiting"


def majority_payload(names: list[str], alignments: list[Alignment]) -> dict[str, Any] | None:
    """The majority of the submitted annotations by :mod:`scoring.alignment.majority`, as the
    adjudication page shows it: whose work it counts, its links, and the two kinds of tie (a
    cell linked by exactly half; a majority link exactly half marked sure), which the rule
    leaves to the adjudicator. ``None`` without a submitted annotation."""
    if not alignments:
        return None
    vote = majority_vote(alignments)
    return {
        "annotators": names,
        "links": vote.alignment.to_triples(),
        "link_ties": [[i, j] for i, j in sorted(vote.link_ties)],
        "kind_ties": [[i, j] for i, j in sorted(vote.kind_ties)],
    }


def adjudication_of(pair: SentencePair) -> dict[str, Any]:
    """Every annotator's alignment (``counted``: submitted, so part of the majority), the
    majority of the submitted ones, the prefill and the gold of a pair (with its version,
    which a save of the gold names); for a pair sent back to waiting, ``cleared``: that change
    (:func:`gold_waiting_state`), whose version the save of its next gold names."""
    assignments = list(
        Assignment.objects.filter(pair=pair, annotation__isnull=False)
        .select_related("annotator", "annotation")
        .order_by("annotator__username")
    )
    rows: dict[int, list[AnnotationLink]] = defaultdict(list)
    for link in AnnotationLink.objects.filter(annotation__assignment__pair=pair).only(
        "annotation_id", "i", "j", "sure"
    ):
        rows[link.annotation_id].append(link)
    annotations = []
    counted_names: list[str] = []
    counted: list[Alignment] = []
    for assignment in assignments:
        annotation = assignment.annotation
        alignment = alignment_from_rows(pair.n_source, pair.n_target, rows[annotation.pk])
        submitted = assignment.status == Assignment.Status.SUBMITTED
        if submitted:
            counted_names.append(assignment.annotator.get_username())
            counted.append(alignment)
        annotations.append(
            {
                "annotator": assignment.annotator.get_username(),
                "status": assignment.status,
                "counted": submitted,
                "version": annotation.version,
                "links": alignment.to_triples(),
                "flags": list(annotation.flags),
                "comment": annotation.comment,
                "rating": annotation.rating,
            }
        )
    gold = GoldAlignment.objects.select_related("adjudicator").filter(pair=pair).first()
    last = None if gold is not None else last_gold_event(pair)
    return {
        "pair": pair_payload(pair),
        "prefill": prefill_of(pair),
        "annotations": annotations,
        "majority": majority_payload(counted_names, counted),
        "gold": None if gold is None else gold_state(gold),
        "cleared": None if last is None else gold_waiting_state(last),
    }


def gold_history(pair: SentencePair, *, limit: int = HISTORY_LIMIT) -> dict[str, Any]:
    """The newest ``limit`` changes of the pair's gold alignment (its :class:`GoldEvent` log,
    newest first) and how many there are: who made each version and when, how many links it
    set and cleared, and the first :data:`HISTORY_LINKS` of each (a change may hold 10,000)."""
    events = GoldEvent.objects.filter(pair=pair).select_related("actor")
    # The counts and the first links are read in SQL: a change's lists can hold 10,000 links
    # each, and thirty of them parsed in Python took a second.
    heads = {
        f"{side}_{k}": KeyTransform(str(k), side)
        for side in ("added", "removed")
        for k in range(HISTORY_LINKS)
    }
    shown = (
        events.defer("added", "removed")
        .annotate(n_added=JSONArrayLength("added"), n_removed=JSONArrayLength("removed"), **heads)
        .order_by("-version")[:limit]
    )
    return {
        "total": events.count(),
        "events": [
            {
                "version": event.version,
                "kind": event.kind,
                "actor": event.actor.get_username() if event.actor else None,
                "job": event.job_id,
                "created_at": event.created_at.isoformat(),
                "set": event.n_added,
                "cleared": event.n_removed,
                "added": _head(event, "added", event.n_added),
                "removed": _head(event, "removed", event.n_removed),
            }
            for event in shown
        ],
    }


class JSONArrayLength(Func):
    """The length of a JSON array column (SQLite's ``json_array_length``, PostgreSQL's
    ``jsonb_array_length``)."""

    function = "JSON_ARRAY_LENGTH"
    output_field = IntegerField()

    def as_postgresql(self, compiler: Any, connection: Any, **extra: Any) -> Any:
        return self.as_sql(compiler, connection, function="JSONB_ARRAY_LENGTH", **extra)


def _head(event: GoldEvent, side: str, count: int) -> list[Any]:
    return [getattr(event, f"{side}_{k}") for k in range(min(count, HISTORY_LINKS))]
