"""On PostgreSQL, trigram indexes for searching the pairs' ids and texts.

The pair list, the annotator's queue and the adjudication list search with ``icontains``,
which Django writes on PostgreSQL as ``UPPER(column::text) LIKE UPPER('%term%')``: no B-tree
helps, so every search read every pair of the corpus. A GIN index with ``gin_trgm_ops`` answers
``LIKE '%term%'``, but only over the expression the query compares, so each column is indexed
as ``UPPER(column::text)``, exactly as Django writes it; all three, since the search ORs them
and a bitmap OR needs an index for each. ``ANALYZE`` then gathers the indexed expressions'
statistics, from which the planner tells a rare term (the index) from a common one (a
sequential scan is cheaper when most pairs match).

SQLite has no trigram index and keeps its scan. The indexes are not in the model's state:
SQLite rebuilds a table from that state when a later migration alters it, and could not build
a GIN index. Reversed, the indexes go and the ``pg_trgm`` extension stays (other schemas may
use it; Django's ``TrigramExtension`` would drop it, and its reverse fails on SQLite).
"""

from django.db import migrations

#: index name -> the column it indexes.
INDEXES = {
    "pair_search_id": "external_id",
    "pair_search_source": "source_text",
    "pair_search_target": "target_text",
}


def _forward() -> list[str]:
    statements = ["CREATE EXTENSION IF NOT EXISTS pg_trgm"]
    statements += [
        f"CREATE INDEX IF NOT EXISTS {name} ON annotate_sentencepair "
        f"USING gin ((UPPER({column}::text)) gin_trgm_ops)"
        for name, column in INDEXES.items()
    ]
    return [*statements, "ANALYZE annotate_sentencepair"]


def _reverse() -> list[str]:
    return [f"DROP INDEX IF EXISTS {name}" for name in INDEXES]


def _run(statements):  # type: ignore[no-untyped-def]
    def run(apps, schema_editor):  # type: ignore[no-untyped-def]
        if schema_editor.connection.vendor != "postgresql":
            return
        for statement in statements():
            schema_editor.execute(statement)

    return run


class Migration(migrations.Migration):
    dependencies = [("annotate", "0023_bulk_accept")]

    operations = [migrations.RunPython(_run(_forward), _run(_reverse))]
