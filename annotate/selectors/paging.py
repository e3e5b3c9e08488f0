"""Reading one page of a long sorted list: the page's ids first, then only its rows.

``OFFSET`` skips rows by reading them: a deep page of a list sorted by an expression or a
joined column read (and on PostgreSQL sorted) every skipped row whole, the texts included.
Choosing the page's ids reads only the sort's columns (from an index, when one holds them),
and the page's rows are then read by primary key.
"""

from __future__ import annotations

from typing import Any, Generic, TypeVar

from django.db.models import Model, QuerySet

M = TypeVar("M", bound=Model)


def rows_in_order(queryset: QuerySet[M], ids: list[Any]) -> list[M]:
    """The rows of ``queryset`` whose primary keys are ``ids``, in the order of ``ids``."""
    if not ids:
        return []
    by_id = {row.pk: row for row in queryset.order_by().filter(pk__in=ids)}
    return [by_id[pk] for pk in ids if pk in by_id]


class IdsFirst(Generic[M]):
    """A sorted queryset as a paginator reads it (``count()``, slices, ``order_by()``), each
    slice read as its ids, then its rows.

    ``whole``: the ids of every matching row are read once, in order, for both the count and
    the pages. For a filter that has to be evaluated on every row anyway (a search in the
    texts), one pass gives the count and any page; counting, then skipping to a deep page,
    evaluated it twice."""

    ordered = True

    def __init__(self, queryset: QuerySet[M], *, whole: bool = False) -> None:
        self.queryset = queryset
        self.whole = whole
        self._ids: list[Any] | None = None
        self._count: int | None = None

    def order_by(self, *fields: Any) -> IdsFirst[M]:
        return IdsFirst(self.queryset.order_by(*fields), whole=self.whole)

    def _all_ids(self) -> list[Any]:
        if self._ids is None:
            self._ids = list(self.queryset.values_list("pk", flat=True))
        return self._ids

    def count(self) -> int:
        if self._count is None:
            self._count = len(self._all_ids()) if self.whole else self.queryset.count()
        return self._count

    def __len__(self) -> int:
        return self.count()

    def ids(self, index: slice) -> list[Any]:
        """The primary keys of the slice ``index`` of the list, in its order."""
        if not isinstance(index, slice) or index.step not in (None, 1):
            raise TypeError("a page is read by a slice")
        if self.whole:
            return self._all_ids()[index]
        return list(self.queryset.values_list("pk", flat=True)[index])

    def __getitem__(self, index: slice) -> list[M]:
        return rows_in_order(self.queryset, self.ids(index))
