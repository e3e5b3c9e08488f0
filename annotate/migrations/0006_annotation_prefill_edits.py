from collections import defaultdict

from django.db import migrations, models

CHUNK = 2000


def _check_constraints_now(schema_editor):
    """Run the deferred constraint checks the updates above left pending: PostgreSQL refuses
    the next ALTER TABLE of the table in the same transaction while any are ("cannot ALTER
    TABLE because it has pending trigger events")."""
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute("SET CONSTRAINTS ALL IMMEDIATE")


def count_links(apps, schema_editor):
    """Each annotation's number of links."""
    Annotation = apps.get_model("annotate", "Annotation")
    AnnotationLink = apps.get_model("annotate", "AnnotationLink")
    counts = dict(
        AnnotationLink.objects.order_by()
        .values_list("annotation_id")
        .annotate(n=models.Count("id"))
        .values_list("annotation_id", "n")
    )
    Annotation.objects.update(link_count=0)
    rows = [Annotation(id=pk, link_count=n) for pk, n in counts.items()]
    Annotation.objects.bulk_update(rows, ["link_count"], batch_size=CHUNK)
    _check_constraints_now(schema_editor)


def count_edits(apps, schema_editor):
    """Each annotation's cells that differ (in P) from its pair's newest prefill."""
    Annotation = apps.get_model("annotate", "Annotation")
    AnnotationLink = apps.get_model("annotate", "AnnotationLink")
    AutoAlignment = apps.get_model("annotate", "AutoAlignment")
    AutoLink = apps.get_model("annotate", "AutoLink")
    newest = {}
    for pair_id, prefill_id in AutoAlignment.objects.order_by("created_at", "id").values_list(
        "pair_id", "id"
    ):
        newest[pair_id] = prefill_id
    ids = list(
        Annotation.objects.filter(assignment__pair_id__in=list(newest))
        .order_by("id")
        .values_list("id", "assignment__pair_id")
    )
    for start in range(0, len(ids), CHUNK):
        chunk = dict(ids[start : start + CHUNK])
        prefill_ids = {newest[pair_id] for pair_id in chunk.values()}
        prefill = defaultdict(set)
        for alignment_id, i, j in AutoLink.objects.filter(alignment_id__in=prefill_ids).values_list(
            "alignment_id", "i", "j"
        ):
            prefill[alignment_id].add((i, j))
        mine = defaultdict(set)
        for annotation_id, i, j in AnnotationLink.objects.filter(
            annotation_id__in=list(chunk)
        ).values_list("annotation_id", "i", "j"):
            mine[annotation_id].add((i, j))
        rows = [
            Annotation(id=annotation_id, prefill_edits=len(mine[annotation_id] ^ prefill[newest[pair_id]]))
            for annotation_id, pair_id in chunk.items()
        ]
        Annotation.objects.bulk_update(rows, ["prefill_edits"])
    _check_constraints_now(schema_editor)


class Migration(migrations.Migration):
    dependencies = [
        ("annotate", "0005_job_snapshot"),
    ]

    operations = [
        migrations.AddField(
            model_name="annotation",
            name="link_count",
            field=models.PositiveIntegerField(
                null=True, blank=True, help_text="Links in the alignment (kept by every write of the links)."
            ),
        ),
        migrations.RunPython(count_links, migrations.RunPython.noop),
        migrations.AddField(
            model_name="annotation",
            name="prefill_edits",
            field=models.PositiveIntegerField(
                blank=True,
                help_text="Cells of the pair's N×M grid whose P state differs from its newest "
                "prefill (kept by every write of the links); empty without a prefill.",
                null=True,
            ),
        ),
        migrations.RunPython(count_edits, migrations.RunPython.noop),
        migrations.AddIndex(
            model_name="sentencepair",
            index=models.Index(
                fields=["corpus", "subcorpus", "split", "n_source", "n_target", "position"],
                name="pair_figures",
            ),
        ),
    ]
