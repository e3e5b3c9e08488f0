"""How far each pair's submitted annotations disagree, kept for the adjudication list.

``PairDisagreement`` has a row for every pair with two or more submitted annotations: how many,
and the lowest link F1 between two of them (``scoring.alignment.metrics.lowest_pairwise_f1``),
with the pair's corpus, position, sub-corpus, split, its annotators and gold source, which the
list filters and sorts on.
Pairs annotated before it get theirs here.
"""

from collections import defaultdict

import django.db.models.deletion
from django.db import migrations, models

from scoring.alignment.links import Alignment
from scoring.alignment.metrics import lowest_pairwise_f1

CHUNK = 1000


def fill(apps, schema_editor):
    pair_model = apps.get_model("annotate", "SentencePair")
    assignment_model = apps.get_model("annotate", "Assignment")
    link_model = apps.get_model("annotate", "AnnotationLink")
    disagreement_model = apps.get_model("annotate", "PairDisagreement")
    gold_model = apps.get_model("annotate", "GoldAlignment")
    submitted = assignment_model.objects.filter(status="submitted", annotation__isnull=False)
    pair_ids = sorted(set(submitted.values_list("pair_id", flat=True)))
    for start in range(0, len(pair_ids), CHUNK):
        chunk = pair_ids[start : start + CHUNK]
        pairs = {
            row[0]: row
            for row in pair_model.objects.filter(pk__in=chunk).values_list(
                "pk", "n_source", "n_target", "corpus_id", "position", "subcorpus", "split"
            )
        }
        annotations = {
            annotation_id: (pair_id, annotator_id)
            for annotation_id, pair_id, annotator_id in submitted.filter(
                pair_id__in=chunk
            ).values_list("annotation__id", "pair_id", "annotator_id")
        }
        gold = dict(gold_model.objects.filter(pair_id__in=chunk).values_list("pair_id", "source"))
        links = defaultdict(lambda: ([], []))
        for annotation_id, i, j, sure in link_model.objects.filter(
            annotation_id__in=list(annotations)
        ).values_list("annotation_id", "i", "j", "sure"):
            links[annotation_id][0 if sure else 1].append((i, j))
        alignments = defaultdict(list)
        annotators = defaultdict(list)
        for annotation_id, (pair_id, annotator_id) in sorted(annotations.items()):
            sure, possible = links[annotation_id]
            n, m = pairs[pair_id][1:3]
            alignments[pair_id].append(Alignment.from_links(n, m, sure, possible))
            annotators[pair_id].append(annotator_id)
        disagreement_model.objects.bulk_create(
            disagreement_model(
                pair_id=pair_id,
                corpus_id=pairs[pair_id][3],
                position=pairs[pair_id][4],
                subcorpus=pairs[pair_id][5],
                split=pairs[pair_id][6],
                gold_source=gold.get(pair_id, ""),
                submitted=len(found),
                annotators=f" {' '.join(str(pk) for pk in sorted(annotators[pair_id]))} ",
                lowest_f1=lowest_pairwise_f1(found),
            )
            for pair_id, found in alignments.items()
            if len(found) >= 2
        )


class Migration(migrations.Migration):
    dependencies = [
        ("annotate", "0012_corpus_archived_at"),
    ]

    operations = [
        migrations.CreateModel(
            name="PairDisagreement",
            fields=[
                (
                    "pair",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        primary_key=True,
                        related_name="disagreement",
                        serialize=False,
                        to="annotate.sentencepair",
                    ),
                ),
                ("position", models.PositiveIntegerField()),
                ("subcorpus", models.CharField(blank=True, max_length=100)),
                ("split", models.CharField(blank=True, max_length=50)),
                (
                    "gold_source",
                    models.CharField(
                        blank=True,
                        help_text="Where the pair's gold alignment came from "
                        "(GoldAlignment.source; empty without one): kept by the gold's writes, "
                        "read by the list's status filter.",
                        max_length=50,
                    ),
                ),
                (
                    "submitted",
                    models.PositiveSmallIntegerField(
                        help_text="Submitted annotations of the pair."
                    ),
                ),
                (
                    "annotators",
                    models.TextField(
                        help_text="The ids of the users who submitted them, each between spaces "
                        "(' 3 17 42 '): the list's annotator filter matches ' 17 ' in this row "
                        "instead of looking up the assignments of every pair."
                    ),
                ),
                (
                    "lowest_f1",
                    models.FloatField(
                        help_text="The lowest link F1 (P against P) between two submitted "
                        "annotations."
                    ),
                ),
                (
                    "corpus",
                    models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to="annotate.corpus",
                    ),
                ),
            ],
            options={
                "indexes": [
                    models.Index(
                        fields=["lowest_f1", "corpus", "position"], name="disagreement_order"
                    ),
                    models.Index(
                        fields=["corpus", "lowest_f1", "position"], name="disagreement_corpus_f1"
                    ),
                    models.Index(
                        fields=["corpus", "position"], name="disagreement_corpus_order"
                    ),
                ],
                "constraints": [
                    models.CheckConstraint(
                        condition=models.Q(("submitted__gte", 2)), name="disagreement_pairs"
                    ),
                    models.CheckConstraint(
                        condition=models.Q(("lowest_f1__gte", 0.0), ("lowest_f1__lte", 1.0)),
                        name="disagreement_f1",
                    ),
                ],
            },
        ),
        migrations.RunPython(fill, migrations.RunPython.noop),
    ]
