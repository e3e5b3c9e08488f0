"""An index of the assignments by annotator, then pair, in place of the annotator's own.

It answers what the annotator's index did (an annotator's assignments) and also whether an
annotator has an assignment among a range of pair ids: the pair list's annotator names ask
that of each account for the corpus's range of pair ids, where grouping the corpus's
assignments by annotator read every one of them (240,000 for 80,000 pairs × 3) on every page.

The new index is built first, then the annotator's own is dropped by its name (the same on
SQLite and PostgreSQL). Letting Django alter the foreign key instead would make SQLite rebuild
the table, and the rename at its end fails on the link tables' triggers that name it.
"""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

#: The index Django made for the foreign key (its name is a hash of the table and column).
ANNOTATOR_INDEX = "annotate_assignment_annotator_id_78f474f8"


class Migration(migrations.Migration):
    dependencies = [
        ("annotate", "0027_pair_search_text"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddIndex(
            model_name="assignment",
            index=models.Index(fields=["annotator", "pair"], name="assignment_by_annotator"),
        ),
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="assignment",
                    name="annotator",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="assignments",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            database_operations=[
                migrations.RunSQL(
                    f"DROP INDEX IF EXISTS {ANNOTATOR_INDEX}",
                    f"CREATE INDEX {ANNOTATOR_INDEX} ON annotate_assignment (annotator_id)",
                ),
            ],
        ),
    ]
