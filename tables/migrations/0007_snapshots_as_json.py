"""Snapshots and the cached starting states of hands become plain JSON (``rules.state_to_json``).

They were serialised Python objects, which made write access to the database code execution in every process
that loaded one (issue #12). Both are caches rebuilt from the events, so the old rows are dropped, not
converted: the next load folds from the events and writes a JSON snapshot.
"""

from django.db import migrations, models

FORWARD = """
LOCK TABLE tables_snapshot, tables_hand IN ACCESS EXCLUSIVE MODE;
DELETE FROM tables_snapshot;
ALTER TABLE tables_snapshot ALTER COLUMN state TYPE jsonb USING NULL;
ALTER TABLE tables_hand ALTER COLUMN start_state TYPE jsonb USING NULL;
"""

REVERSE = """
DELETE FROM tables_snapshot;
ALTER TABLE tables_snapshot ALTER COLUMN state TYPE bytea USING NULL;
ALTER TABLE tables_hand ALTER COLUMN start_state TYPE bytea USING NULL;
"""


class Migration(migrations.Migration):
    dependencies = [("tables", "0006_bigint_nets")]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[migrations.RunSQL(FORWARD, REVERSE)],
            state_operations=[
                migrations.AlterField(model_name="snapshot", name="state", field=models.JSONField()),
                migrations.AlterField(
                    model_name="hand",
                    name="start_state",
                    field=models.JSONField(blank=True, editable=False, null=True),
                ),
            ],
        )
    ]
