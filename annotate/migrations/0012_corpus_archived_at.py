from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("annotate", "0011_prefill_order"),
    ]

    operations = [
        migrations.AddField(
            model_name="corpus",
            name="archived_at",
            field=models.DateTimeField(
                blank=True,
                help_text=(
                    "Set while the corpus is archived: it keeps every pair and all work, but is "
                    "left out of annotators' queues, the adjudication list, prefill retraining "
                    "and the corpus lists (except their archived filter) until it is restored."
                ),
                null=True,
            ),
        ),
    ]
