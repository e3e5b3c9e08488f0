"""The pairs' search column and, on PostgreSQL, its trigram index.

``search_text`` is the pair's id and both texts, one per line, upper-cased by the database's
``UPPER``: what the searches compared with ``icontains`` on each column (``UPPER(column) LIKE
UPPER('%term%')`` on PostgreSQL), now upper-cased once when a row is written rather than three
times per row of every search. It is a stored generated column: the database fills it for the
existing rows when the column is added (one rewrite of the table, inside this migration's
transaction) and keeps it on every insert and update, whatever code writes the pair.

On PostgreSQL one GIN index with ``gin_trgm_ops`` on the column answers ``LIKE '%TERM%'`` for
a rare term; it replaces the three per-column expression indexes of ``pair_text_search``,
which the searches no longer use (a term holding a newline still searches the three columns
apart, by a scan). ``ANALYZE`` then gives the planner the column's statistics, from which it
tells a rare term (the index) from a common one (a sequential scan). SQLite has no trigram
index and keeps its scan; as in ``pair_text_search`` the index is not in the model's state.
Reversed, the three per-column indexes come back and the ``pg_trgm`` extension stays.

SQLite cannot add a stored generated column to a table: Django rebuilds the table, and the
rename at its end fails on the link tables' triggers that name the pairs' table (migration
``0002``), and the rebuild drops the table's own triggers. All of them are dropped before the
rebuild and made again after it from their own SQL.
"""

import django.db.models.functions.text
from django.db import migrations, models

OLD_INDEXES = {
    "pair_search_id": "external_id",
    "pair_search_source": "source_text",
    "pair_search_target": "target_text",
}


def _forward() -> list[str]:
    return [
        "CREATE EXTENSION IF NOT EXISTS pg_trgm",
        "CREATE INDEX IF NOT EXISTS pair_search_text ON annotate_sentencepair "
        "USING gin (search_text gin_trgm_ops)",
        *(f"DROP INDEX IF EXISTS {name}" for name in OLD_INDEXES),
        "ANALYZE annotate_sentencepair",
    ]


def _reverse() -> list[str]:
    return [
        *(
            f"CREATE INDEX IF NOT EXISTS {name} ON annotate_sentencepair "
            f"USING gin ((UPPER({column}::text)) gin_trgm_ops)"
            for name, column in OLD_INDEXES.items()
        ),
        "DROP INDEX IF EXISTS pair_search_text",
    ]


#: The SQL of the SQLite triggers dropped around the table's rebuild, to make them again.
_SQLITE_TRIGGERS: list[str] = []


def _sqlite_triggers_drop(apps, schema_editor):  # type: ignore[no-untyped-def]
    if schema_editor.connection.vendor != "sqlite":
        return
    with schema_editor.connection.cursor() as cursor:
        cursor.execute(
            "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' "
            "AND sql LIKE '%annotate_sentencepair%'"
        )
        found = cursor.fetchall()
    _SQLITE_TRIGGERS[:] = [sql for _, sql in found]
    for name, _ in found:
        schema_editor.execute(f'DROP TRIGGER "{name}"')


def _sqlite_triggers_create(apps, schema_editor):  # type: ignore[no-untyped-def]
    if schema_editor.connection.vendor != "sqlite":
        return
    for sql in _SQLITE_TRIGGERS:
        schema_editor.execute(sql)
    _SQLITE_TRIGGERS.clear()


def _run(statements):  # type: ignore[no-untyped-def]
    def run(apps, schema_editor):  # type: ignore[no-untyped-def]
        if schema_editor.connection.vendor != "postgresql":
            return
        for statement in statements():
            schema_editor.execute(statement)

    return run


class Migration(migrations.Migration):
    dependencies = [("annotate", "0026_pair_by_position_index")]

    operations = [
        migrations.RunPython(_sqlite_triggers_drop, _sqlite_triggers_create),
        migrations.AddField(
            model_name="sentencepair",
            name="search_text",
            field=models.GeneratedField(
                db_persist=True,
                expression=django.db.models.functions.text.Upper(
                    django.db.models.functions.text.Concat(
                        "external_id",
                        models.Value("\n"),
                        "source_text",
                        models.Value("\n"),
                        "target_text",
                        output_field=models.TextField(),
                    )
                ),
                output_field=models.TextField(),
            ),
        ),
        migrations.RunPython(_sqlite_triggers_create, _sqlite_triggers_drop),
        # the column is added (and filled) before its index is built
        migrations.RunPython(_run(_forward), _run(_reverse)),
    ]
