"""Login lockout counts (annotate.services.logins)."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('annotate', '0009_gold_version'),
    ]

    operations = [
        migrations.CreateModel(
            name='LoginAttempts',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('key', models.CharField(max_length=64, unique=True)),
                ('count', models.PositiveIntegerField(default=0)),
                ('last_attempt_at', models.DateTimeField(db_index=True)),
            ],
            options={
                'verbose_name_plural': 'login attempts',
            },
        ),
    ]
