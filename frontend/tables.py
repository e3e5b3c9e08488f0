"""Server-rendered tables: columns defined once, rows paged and sorted on the server.

A page declares its columns as :class:`Column` objects; ``frontend/_table.html`` renders the
header from them and every cell with the column's cell template (usually a partial of the page's
own template, ``"frontend/admin/job_list.html#job-status"``), so a column is written in one
place. :func:`table_page` turns a queryset (or a list) and the request's query string into a
:class:`Table`: the sort the user asked for (only among the columns that allow it), one page of
rows and the pager's links.

A live part of a page (a job's progress) is a partial that the page's view renders alone when
asked with ``?fragment=<name>``; ``fragments.js`` fetches it again every few seconds while the
fragment says it is still changing (``data-live``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from django.core.paginator import Page, Paginator
from django.http import HttpRequest, QueryDict

#: Rows a page of a table shows unless the view says otherwise.
PER_PAGE = 50


@dataclass(frozen=True)
class Column:
    """One column: its heading, the template of its cell (rendered with ``row`` in the context)
    and, when it can sort, the ordering it sorts by (``"-created_at"`` sorts newest first when
    the user asks for ascending order, so a column may sort by any expression the view allows).
    """

    label: str
    cell: str
    key: str = ""
    sort: str | None = None
    numeric: bool = False
    help: str = ""
    #: Extra classes of the column's cells (``"clip"`` cuts long text with an ellipsis).
    classes: str = ""

    @property
    def css(self) -> str:
        return " ".join(filter(None, ("num" if self.numeric else "", self.classes)))


@dataclass(frozen=True)
class Header:
    """A column's heading as rendered: its ``aria-sort`` and the link that sorts by it."""

    column: Column
    aria_sort: str
    query: str


@dataclass(frozen=True)
class Table:
    """What ``_table.html`` and ``_pager.html`` render."""

    columns: Sequence[Column]
    page: Page[Any]
    sort: str
    descending: bool
    query: QueryDict
    noun: str = "rows"
    empty_title: str = "Nothing here"
    empty_text: str = ""
    extra: dict[str, Any] = field(default_factory=dict)
    #: The page's path, for its sort and page links: set when the table may be rendered in the
    #: answer to a form posted elsewhere (the form again, with its errors); else the links are
    #: relative to the address shown.
    path: str = ""

    @property
    def headers(self) -> list[Header]:
        return [
            Header(
                column=column,
                aria_sort=self.aria_sort(column) if column.sort else "",
                query=self.sort_query(column) if column.sort else "",
            )
            for column in self.columns
        ]

    #: The rows of this page, read once (a view may annotate them before rendering).
    rows: list[Any] = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "rows", list(self.page.object_list))

    @property
    def total(self) -> int:
        return self.page.paginator.count

    def sort_query(self, column: Column) -> str:
        """The query string that sorts by ``column``, toggling the direction when it is the
        current sort; the page goes back to the first."""
        query = self.query.copy()
        descending = not self.descending if column.key == self.sort else False
        query["sort"] = f"-{column.key}" if descending else column.key
        query.pop("page", None)
        return query.urlencode()

    def aria_sort(self, column: Column) -> str:
        if column.key != self.sort:
            return "none"
        return "descending" if self.descending else "ascending"

    def page_query(self, number: int) -> str:
        query = self.query.copy()
        query["page"] = str(number)
        query.pop("fragment", None)
        return query.urlencode()

    @property
    def previous_query(self) -> str:
        return self.page_query(self.page.previous_page_number()) if self.page.has_previous() else ""

    @property
    def next_query(self) -> str:
        return self.page_query(self.page.next_page_number()) if self.page.has_next() else ""

    @property
    def first_query(self) -> str:
        return self.page_query(1)

    @property
    def last_query(self) -> str:
        return self.page_query(self.page.paginator.num_pages)

    @property
    def kept_fields(self) -> list[tuple[str, str]]:
        """The query's fields but the page, as hidden inputs of the pager's "go to page" form,
        so a jump keeps the filters and the sort."""
        return [
            (name, value)
            for name, values in self.query.lists()
            if name not in ("page", "fragment")
            for value in values
        ]


def _ordering(sort: str, descending: bool) -> list[str]:
    """``"-a"`` under a descending sort becomes ``"a"``; each field is flipped."""
    fields = [part.strip() for part in sort.split(",") if part.strip()]
    if not descending:
        return fields
    return [name[1:] if name.startswith("-") else f"-{name}" for name in fields]


def page_asked(raw: str | None) -> int:
    """The page a ``page`` query parameter asks for, as every server-rendered list reads it:
    a page number from 1; anything that is not a whole number, and any number below 1, is the
    first page; past the last page (however large) is the last. Django's
    ``get_page`` alone shows the last page for 0 and negative numbers."""
    text = (raw or "").strip()
    if not (text.isascii() and text.isdigit()):
        return 1
    if len(text) > 18:  # past any last page; int() would refuse thousands of digits
        text = "9" * 18
    return max(1, int(text))


def table_page(
    request: HttpRequest,
    rows: Any,
    columns: Sequence[Column],
    *,
    default_sort: str = "",
    per_page: int = PER_PAGE,
    tie_breaker: str = "pk",
    **options: Any,
) -> Table:
    """One page of ``rows`` (a queryset, or a list already in order) sorted as the request's
    ``sort`` asks, if a column allows that sort; an unknown sort falls back to the default and
    a page out of range to the first or the last (:func:`page_asked`) instead of failing.
    ``options`` go to :class:`Table` (noun,
    empty_title, empty_text, extra, path)."""
    by_key = {column.key: column for column in columns if column.sort}
    asked = request.GET.get("sort", default_sort)
    descending = asked.startswith("-")
    key = asked.lstrip("-")
    if key not in by_key:
        key = default_sort.lstrip("-")
        descending = default_sort.startswith("-")
    if key in by_key and hasattr(rows, "order_by"):
        sort = by_key[key].sort or key
        rows = rows.order_by(*_ordering(sort, descending), tie_breaker)
    paginator = Paginator(rows, per_page)
    page = paginator.get_page(page_asked(request.GET.get("page")))
    query = request.GET.copy()
    query.pop("fragment", None)
    return Table(
        columns=columns, page=page, sort=key, descending=descending, query=query, **options
    )
