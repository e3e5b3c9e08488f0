"""The gold event log belongs to the pair, so a pair's gold can be removed ("back to waiting")
and its history stays.

``GoldEvent.gold`` (the pair's gold alignment row) becomes ``GoldEvent.pair``; a pair sent back
to waiting has no ``GoldAlignment`` row and keeps its events, the last of kind ``cleared``. The
append-only trigger (migration 0009) is dropped while the existing events get their pair and
made again as it was (SQLite rebuilds the table, which drops its triggers anyway).

Going back, each event hangs on its pair's gold alignment again; the events of a pair that has
none (sent back to waiting) cannot, and are deleted.
"""

import django.db.models.deletion
from django.db import migrations, models
from django.db.models import OuterRef, Subquery

TRIGGER_DROP = {
    "sqlite": ["DROP TRIGGER IF EXISTS annotate_goldevent_append_only"],
    "postgresql": ["DROP TRIGGER IF EXISTS annotate_goldevent_append_only ON annotate_goldevent"],
}
# As migration 0009 made it (on PostgreSQL its function stays).
TRIGGER_CREATE = {
    "sqlite": [
        "CREATE TRIGGER annotate_goldevent_append_only BEFORE UPDATE ON annotate_goldevent "
        "BEGIN SELECT RAISE(ABORT, 'the gold event log is append-only'); END"
    ],
    "postgresql": [
        "CREATE TRIGGER annotate_goldevent_append_only BEFORE UPDATE ON annotate_goldevent "
        "FOR EACH ROW EXECUTE FUNCTION annotate_goldevent_append_only()"
    ],
}


def _run(statements_for):
    def run(apps, schema_editor):
        vendor = schema_editor.connection.vendor
        if vendor not in statements_for:
            raise RuntimeError(
                f"database backend '{vendor}' is not supported: use SQLite or PostgreSQL"
            )
        with schema_editor.connection.cursor() as cursor:
            for statement in statements_for[vendor]:
                cursor.execute(statement)

    return run


def _checks_now(schema_editor):
    # PostgreSQL defers foreign key checks to the commit, and refuses an ALTER TABLE of a table
    # with checks pending: run them now, before the schema changes that follow.
    if schema_editor.connection.vendor == "postgresql":
        with schema_editor.connection.cursor() as cursor:
            cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")


def events_to_pairs(apps, schema_editor):
    event_model = apps.get_model("annotate", "GoldEvent")
    gold_model = apps.get_model("annotate", "GoldAlignment")
    event_model.objects.update(
        pair_id=Subquery(gold_model.objects.filter(pk=OuterRef("gold_id")).values("pair_id")[:1])
    )
    _checks_now(schema_editor)


def events_to_golds(apps, schema_editor):
    event_model = apps.get_model("annotate", "GoldEvent")
    gold_model = apps.get_model("annotate", "GoldAlignment")
    event_model.objects.update(
        gold_id=Subquery(gold_model.objects.filter(pair_id=OuterRef("pair_id")).values("pk")[:1])
    )
    event_model.objects.filter(gold_id__isnull=True).delete()
    _checks_now(schema_editor)


class Migration(migrations.Migration):
    dependencies = [
        ("annotate", "0019_workerheartbeat_broker"),
    ]

    operations = [
        migrations.RunPython(_run(TRIGGER_DROP), _run(TRIGGER_CREATE)),
        migrations.RemoveConstraint(
            model_name="goldevent",
            name="goldevent_unique_version",
        ),
        migrations.AddField(
            model_name="goldevent",
            name="pair",
            field=models.ForeignKey(
                null=True,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="gold_events",
                to="annotate.sentencepair",
            ),
        ),
        migrations.AlterField(
            model_name="goldevent",
            name="gold",
            field=models.ForeignKey(
                null=True,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="events",
                to="annotate.goldalignment",
            ),
        ),
        migrations.RunPython(events_to_pairs, events_to_golds),
        migrations.AlterField(
            model_name="goldevent",
            name="pair",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.CASCADE,
                related_name="gold_events",
                to="annotate.sentencepair",
            ),
        ),
        migrations.RemoveField(
            model_name="goldevent",
            name="gold",
        ),
        migrations.AddConstraint(
            model_name="goldevent",
            constraint=models.UniqueConstraint(
                fields=("pair", "version"), name="goldevent_unique_version"
            ),
        ),
        migrations.AlterModelOptions(
            name="goldevent",
            options={"ordering": ["pair", "version", "id"]},
        ),
        migrations.AlterField(
            model_name="goldevent",
            name="kind",
            field=models.CharField(
                choices=[
                    ("imported", "Imported"),
                    ("adjudicated", "Adjudicated"),
                    ("cleared", "Cleared"),
                ],
                max_length=20,
            ),
        ),
        migrations.RunPython(_run(TRIGGER_CREATE), _run(TRIGGER_DROP)),
    ]
