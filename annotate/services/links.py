"""Bulk writes of link rows (prefill, annotation and gold links), and of an import's rows.

Saves, imports and prefills write thousands of links at a time. Building an ORM object per link
costs more than the database's own work (for a 7,200-link save on PostgreSQL, about 200 ms of
Python on top of 120 ms of SQL), so these writes go straight to the table. The database still
checks every row: constraints and the bounds trigger.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from django.db import connection
from django.db.models import Model

from annotate.models import AnnotationLink, AutoLink, GoldLink

LinkModel = type[AutoLink | AnnotationLink | GoldLink]

#: Rows per statement on PostgreSQL (one array per column, so no limit on bound variables).
PG_BATCH = 10_000
#: Ids per DELETE statement: well under SQLite's limit of bound variables.
DELETE_BATCH = 500

_PG_TYPES = {"i": "integer", "j": "integer", "sure": "boolean", "confidence": "double precision"}


def links_insert(
    *,
    model: LinkModel,
    parent_column: str,
    rows: Iterable[tuple[Any, ...]],
    with_confidence: bool = False,
) -> int:
    """Insert link rows ``(parent id, i, j, sure[, confidence])``; returns how many.

    On PostgreSQL each batch is one ``INSERT … SELECT FROM unnest(…)`` of one array per column:
    one statement, so the statement-level bounds trigger runs once per batch, not once per row.
    Elsewhere (SQLite) one ``executemany``, which the driver runs as a single prepared
    statement."""
    columns = [parent_column, "i", "j", "sure"] + (["confidence"] if with_confidence else [])
    table = model._meta.db_table
    listed = list(rows)
    if not listed:
        return 0
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            arrays = ", ".join(f"%s::{_PG_TYPES.get(column, 'bigint')}[]" for column in columns)
            sql = f"INSERT INTO {table} ({', '.join(columns)}) SELECT * FROM unnest({arrays})"
            for start in range(0, len(listed), PG_BATCH):
                batch = listed[start : start + PG_BATCH]
                cursor.execute(sql, [list(column) for column in zip(*batch, strict=True)])
        else:
            values = ", ".join(["%s"] * len(columns))
            cursor.executemany(
                f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({values})", listed
            )
    return len(listed)


def links_delete(*, model: LinkModel, ids: Sequence[int]) -> None:
    """Delete link rows by primary key: on PostgreSQL one statement per ``PG_BATCH`` ids (an
    array), elsewhere per ``DELETE_BATCH`` ids."""
    table = model._meta.db_table
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            for start in range(0, len(ids), PG_BATCH):
                batch = list(ids[start : start + PG_BATCH])
                cursor.execute(f"DELETE FROM {table} WHERE id = ANY(%s::bigint[])", [batch])
            return
        for start in range(0, len(ids), DELETE_BATCH):
            batch = list(ids[start : start + DELETE_BATCH])
            cursor.execute(
                f"DELETE FROM {table} WHERE id IN ({', '.join(['%s'] * len(batch))})", batch
            )


def rows_insert(*, model: type[Model], fields: Sequence[str], rows: Iterable[Sequence[Any]]) -> int:
    """Insert rows of ``model`` holding the values of ``fields`` (ready for the database: JSON
    as text) with one ``executemany``; returns how many. Every other column gets what an ORM
    insert would give it: its field's default, adapted by the field, ``auto_now`` ones now.

    An import writes a row for each pair, its gold, prefill, annotations and their events: the
    ORM's model objects and per-value compiling cost more than the database's work, and the
    import holds the write lock meanwhile."""
    template = model()
    concrete = {field.name: field for field in model._meta.concrete_fields}
    given = [concrete[name] for name in fields]
    # a generated column (the pair's `search_text`) is the database's to fill
    rest = [
        f
        for f in concrete.values()
        if not f.primary_key and not f.generated and f.name not in fields
    ]
    defaults = tuple(f.get_db_prep_save(f.pre_save(template, True), connection) for f in rest)
    listed = [(*row, *defaults) for row in rows]
    if not listed:
        return 0
    quote = connection.ops.quote_name
    columns = ", ".join(quote(str(f.column)) for f in given + rest)
    values = ", ".join(["%s"] * (len(given) + len(rest)))
    with connection.cursor() as cursor:
        cursor.executemany(
            f"INSERT INTO {quote(model._meta.db_table)} ({columns}) VALUES ({values})", listed
        )
    return len(listed)
