# Where a hand's commitment was published (tables/verify.py): an index probe however long the table's history.

import django.db.models.fields.json
import django.db.models.functions.comparison
from django.contrib.postgres.operations import AddIndexConcurrently
from django.db import migrations, models


class Migration(migrations.Migration):
    atomic = False  # built CONCURRENTLY: the event table may be large and live

    dependencies = [
        ("tables", "0009_checkpoints"),
    ]

    operations = [
        AddIndexConcurrently(
            model_name="event",
            index=models.Index(
                models.F("table"),
                django.db.models.functions.comparison.Cast(
                    django.db.models.fields.json.KeyTextTransform("number", "data"), models.IntegerField()
                ),
                condition=models.Q(("type", "SeedCommitted")),
                name="event_seed_committed_idx",
            ),
        ),
    ]
