"""A bulk accept of the pairs whose annotators agree: ``PairDisagreement.unanimous`` marks them
(so the list counts them in SQL), and ``GoldEvent.job_id`` names the job that wrote a gold.

The existing rows are filled from their submitted annotations: only a pair whose lowest link F1
is 1 (the same cells linked) can be unanimous, and it is when the annotations also mark the
same links sure. The gold event log's append-only trigger is dropped around the new column and
made again as it was (SQLite may rebuild the table, which drops its triggers).
"""

from collections import defaultdict

from django.db import migrations, models

TRIGGER_DROP = {
    "sqlite": ["DROP TRIGGER IF EXISTS annotate_goldevent_append_only"],
    "postgresql": ["DROP TRIGGER IF EXISTS annotate_goldevent_append_only ON annotate_goldevent"],
}
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
CHUNK = 1000


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


def fill_unanimous(apps, schema_editor):
    disagreement = apps.get_model("annotate", "PairDisagreement")
    assignment = apps.get_model("annotate", "Assignment")
    link = apps.get_model("annotate", "AnnotationLink")
    candidates = list(
        disagreement.objects.filter(lowest_f1__gte=1.0).order_by("pk").values_list("pk", flat=True)
    )
    for start in range(0, len(candidates), CHUNK):
        chunk = candidates[start : start + CHUNK]
        of_annotation = dict(
            assignment.objects.filter(
                pair_id__in=chunk, status="submitted", annotation__isnull=False
            ).values_list("annotation__id", "pair_id")
        )
        links = defaultdict(set)
        for annotation_id, i, j, sure in link.objects.filter(
            annotation_id__in=list(of_annotation)
        ).values_list("annotation_id", "i", "j", "sure"):
            links[annotation_id].add((i, j, sure))
        alignments = defaultdict(list)
        for annotation_id, pair_id in of_annotation.items():
            alignments[pair_id].append(frozenset(links[annotation_id]))
        agreed = [
            pair_id
            for pair_id, found in alignments.items()
            if len(found) >= 2 and len(set(found)) == 1
        ]
        disagreement.objects.filter(pk__in=agreed).update(unanimous=True)


class Migration(migrations.Migration):
    dependencies = [
        ("annotate", "0022_login_attempts_per_address"),
    ]

    operations = [
        migrations.RunPython(_run(TRIGGER_DROP), _run(TRIGGER_CREATE)),
        migrations.AddField(
            model_name="goldevent",
            name="job_id",
            field=models.PositiveIntegerField(
                blank=True,
                help_text="The job that made this change for ``actor`` (a bulk accept), if one "
                "did: a number, not a key, so that deleting old jobs never rewrites this "
                "append-only log.",
                null=True,
            ),
        ),
        migrations.RunPython(_run(TRIGGER_CREATE), _run(TRIGGER_DROP)),
        migrations.AddField(
            model_name="pairdisagreement",
            name="unanimous",
            field=models.BooleanField(
                default=False,
                help_text="Every submitted annotation is the same alignment (links and "
                "sure/possible alike): its majority has no tie, and a bulk accept may take it "
                "as the gold.",
            ),
        ),
        migrations.RunPython(fill_unanimous, migrations.RunPython.noop),
    ]
