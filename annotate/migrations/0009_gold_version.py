"""Gold alignments are versioned and every change is logged.

``GoldAlignment.version`` (1 for every existing gold) is the version an adjudicator's save must
name; ``GoldEvent`` is the append-only log of gold changes (a trigger rejects UPDATE, as for
the annotation event log). Existing gold alignments get the event of their version 1: their
links, by their adjudicator (an import when they were imported).
"""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

BATCH = 2000

# SQLite adds the column and its check by rebuilding annotate_goldalignment, which its gold link
# triggers (migration 0002) name; they are dropped around the rebuild and made again as they were.
_GOLD_PAIR = (
    "SELECT p.{column} FROM annotate_sentencepair p "
    "JOIN annotate_goldalignment g ON g.pair_id = p.id WHERE g.id = NEW.gold_id"
)
SQLITE_LINK_TRIGGERS = [
    f"CREATE TRIGGER annotate_goldlink_bounds_{name} BEFORE {when} ON annotate_goldlink "
    f"FOR EACH ROW WHEN NEW.i >= ({_GOLD_PAIR.format(column='n_source')}) "
    f"OR NEW.j >= ({_GOLD_PAIR.format(column='n_target')}) "
    "BEGIN SELECT RAISE(ABORT, 'link index outside the sentence pair'); END"
    for when, name in (("INSERT", "ins"), ("UPDATE OF i, j", "upd"))
]
SQLITE_LINK_TRIGGERS_DROP = [
    f"DROP TRIGGER IF EXISTS annotate_goldlink_bounds_{name}" for name in ("ins", "upd")
]

SQLITE = [
    "CREATE TRIGGER annotate_goldevent_append_only BEFORE UPDATE ON annotate_goldevent BEGIN "
    "SELECT RAISE(ABORT, 'the gold event log is append-only'); END",
]
SQLITE_REVERSE = ["DROP TRIGGER IF EXISTS annotate_goldevent_append_only"]
POSTGRES = [
    "CREATE FUNCTION annotate_goldevent_append_only() RETURNS trigger LANGUAGE plpgsql AS $$ "
    "BEGIN RAISE EXCEPTION 'the gold event log is append-only' "
    "USING ERRCODE = 'check_violation'; END $$",
    "CREATE TRIGGER annotate_goldevent_append_only BEFORE UPDATE ON annotate_goldevent "
    "FOR EACH ROW EXECUTE FUNCTION annotate_goldevent_append_only()",
]
POSTGRES_REVERSE = ["DROP FUNCTION IF EXISTS annotate_goldevent_append_only() CASCADE"]


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


def first_events(apps, schema_editor):
    """The version-1 event of every gold alignment made before the log existed."""
    gold_model = apps.get_model("annotate", "GoldAlignment")
    link_model = apps.get_model("annotate", "GoldLink")
    event_model = apps.get_model("annotate", "GoldEvent")
    ids = list(gold_model.objects.order_by("pk").values_list("pk", flat=True))
    for start in range(0, len(ids), BATCH):
        chunk = ids[start : start + BATCH]
        links = {pk: [] for pk in chunk}
        for gold_id, i, j, sure in (
            link_model.objects.filter(gold_id__in=chunk)
            .order_by("gold_id", "i", "j")
            .values_list("gold_id", "i", "j", "sure")
        ):
            links[gold_id].append([i, j, "S" if sure else "P"])
        event_model.objects.bulk_create(
            event_model(
                gold_id=gold_id,
                version=1,
                kind="adjudicated" if source == "adjudicated" else "imported",
                actor_id=adjudicator_id,
                added=links[gold_id],
            )
            for gold_id, source, adjudicator_id in gold_model.objects.filter(
                pk__in=chunk
            ).values_list("pk", "source", "adjudicator_id")
        )


class Migration(migrations.Migration):
    dependencies = [
        ("annotate", "0008_worker_heartbeat"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.RunPython(
            _run({"sqlite": SQLITE_LINK_TRIGGERS_DROP, "postgresql": []}),
            _run({"sqlite": SQLITE_LINK_TRIGGERS, "postgresql": []}),
        ),
        migrations.AddField(
            model_name="goldalignment",
            name="version",
            field=models.PositiveIntegerField(default=1),
        ),
        migrations.AddConstraint(
            model_name="goldalignment",
            constraint=models.CheckConstraint(
                condition=models.Q(("version__gte", 1)), name="gold_version"
            ),
        ),
        migrations.RunPython(
            _run({"sqlite": SQLITE_LINK_TRIGGERS, "postgresql": []}),
            _run({"sqlite": SQLITE_LINK_TRIGGERS_DROP, "postgresql": []}),
        ),
        migrations.CreateModel(
            name="GoldEvent",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("version", models.PositiveIntegerField()),
                (
                    "kind",
                    models.CharField(
                        choices=[("imported", "Imported"), ("adjudicated", "Adjudicated")],
                        max_length=20,
                    ),
                ),
                (
                    "added",
                    models.JSONField(
                        default=list, help_text="[[i, j, 'S'|'P'], ...] set by this change"
                    ),
                ),
                (
                    "removed",
                    models.JSONField(default=list, help_text="[[i, j], ...] cleared by this change"),
                ),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                (
                    "actor",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "gold",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="events",
                        to="annotate.goldalignment",
                    ),
                ),
            ],
            options={
                "ordering": ["gold", "version", "id"],
                "constraints": [
                    models.UniqueConstraint(
                        fields=("gold", "version"), name="goldevent_unique_version"
                    ),
                    models.CheckConstraint(
                        condition=models.Q(("version__gte", 1)), name="goldevent_version"
                    ),
                ],
            },
        ),
        migrations.RunPython(
            _run({"sqlite": SQLITE, "postgresql": POSTGRES}),
            _run({"sqlite": SQLITE_REVERSE, "postgresql": POSTGRES_REVERSE}),
        ),
        migrations.RunPython(first_events, migrations.RunPython.noop),
    ]
