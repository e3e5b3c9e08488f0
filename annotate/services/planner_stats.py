"""The query planner's statistics brought up to date after a bulk write.

PostgreSQL plans from the row counts and value distributions that ``ANALYZE`` gathers, and
autovacuum gathers them only a while after a table grew by a tenth or more. Just after an
import or a large assignment plan the planner can still believe a corpus of tens of thousands
of pairs holds a few hundred, and choose nested loops and sequential scans that take seconds
until autovacuum comes round. So the services that write thousands of rows analyse the tables
they filled once their writes have committed.

Only on PostgreSQL: SQLite's ``ANALYZE`` reads every row of the table while holding the
database's write lock (every other user's save waits for it), and the queries here are written
for SQLite's planner without statistics.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping

from django.db import Error, connection, transaction
from django.db.models import Model

from annotate.models import (
    Annotation,
    AnnotationEvent,
    AnnotationLink,
    Assignment,
    AutoAlignment,
    AutoLink,
    GoldAlignment,
    GoldEvent,
    GoldLink,
    PairDisagreement,
    SentencePair,
)

logger = logging.getLogger(__name__)

#: Rows written into a table from which it is analysed. ``ANALYZE`` reads a fixed sample (at
#: most 30,000 rows with the default statistics target), a fraction of a second per table.
ANALYZE_FROM_ROWS = 1000
#: How long ``ANALYZE`` waits for its lock (another ``ANALYZE`` or ``VACUUM`` of the table, or
#: a schema change) before it gives up: the statistics are then left to autovacuum.
LOCK_TIMEOUT = "5s"


def tables_analyze(written: Mapping[type[Model], int]) -> list[str]:
    """Analyse the tables of the models that ``written`` maps to at least
    :data:`ANALYZE_FROM_ROWS` rows; returns the tables analysed.

    Called inside a transaction, it waits until the outermost one commits (the statistics of
    uncommitted rows would count nothing, and ``ANALYZE`` would hold its lock for the rest of
    the transaction). Each table is analysed in a short transaction of its own; a failure is
    logged, never raised: the data were written and autovacuum analyses the table later."""
    if connection.vendor != "postgresql":
        return []
    tables = sorted(
        {model._meta.db_table for model, rows in written.items() if rows >= ANALYZE_FROM_ROWS}
    )
    if not tables:
        return []
    if connection.in_atomic_block:
        transaction.on_commit(lambda: _analyze(tables))
        return tables
    _analyze(tables)
    return tables


def _analyze(tables: list[str]) -> None:
    for table in tables:
        try:
            with transaction.atomic(), connection.cursor() as cursor:
                cursor.execute(f"SET LOCAL lock_timeout = '{LOCK_TIMEOUT}'")
                cursor.execute(f"ANALYZE {connection.ops.quote_name(table)}")
        except Error:  # any database error, the connection lost included
            logger.exception("could not analyse %s after a bulk write", table)


def import_tables_analyze(
    *, pairs: int, prefills: int = 0, annotations: int = 0, gold_alignments: int = 0
) -> list[str]:
    """:func:`tables_analyze` after an import that wrote ``pairs`` pairs (or, onto existing
    pairs, touched them) with these prefills, annotations and gold alignments: each count
    stands for its rows' links and events too, and the annotations for their assignments."""
    return tables_analyze(
        {
            SentencePair: pairs,
            PairDisagreement: max(annotations, gold_alignments),
            AutoAlignment: prefills,
            AutoLink: prefills,
            Assignment: annotations,
            Annotation: annotations,
            AnnotationEvent: annotations,
            AnnotationLink: annotations,
            GoldAlignment: gold_alignments,
            GoldEvent: gold_alignments,
            GoldLink: gold_alignments,
        }
    )
