from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("annotate", "0010_accounts"),
    ]

    operations = [
        migrations.AddField(
            model_name="corpus",
            name="queue_order",
            field=models.CharField(
                choices=[("position", "corpus order"), ("least_sure", "least sure prefill first")],
                default="position",
                help_text=(
                    "Which of an annotator's planned pairs of this corpus opens next: the next in "
                    "corpus order, or the one whose prefill is least sure (most expected "
                    "corrections), so that a retrained prefill aligner learns first where it is "
                    "weakest."
                ),
                max_length=20,
            ),
        ),
        migrations.AddField(
            model_name="autoalignment",
            name="expected_corrections",
            field=models.FloatField(
                blank=True,
                help_text="How unsure the prefill is: the cells an annotator is expected to change.",
                null=True,
            ),
        ),
    ]
