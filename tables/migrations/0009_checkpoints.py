"""Signed checkpoints of each table's hash chain (API.md v1.1), append-only like the events they sign."""

import django.db.models.deletion
from django.db import migrations, models

GUARDS = """
CREATE FUNCTION tables_checkpoint_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'tables_checkpoint is append-only: % refused', TG_OP
        USING ERRCODE = 'restrict_violation';
END
$$;
CREATE TRIGGER tables_checkpoint_no_update_delete
    BEFORE UPDATE OR DELETE ON tables_checkpoint
    FOR EACH ROW EXECUTE FUNCTION tables_checkpoint_refuse_change();
CREATE TRIGGER tables_checkpoint_no_truncate
    BEFORE TRUNCATE ON tables_checkpoint
    FOR EACH STATEMENT EXECUTE FUNCTION tables_checkpoint_refuse_change();
"""

DROP_GUARDS = """
DROP TRIGGER tables_checkpoint_no_truncate ON tables_checkpoint;
DROP TRIGGER tables_checkpoint_no_update_delete ON tables_checkpoint;
DROP FUNCTION tables_checkpoint_refuse_change();
"""


class Migration(migrations.Migration):
    dependencies = [
        ("tables", "0008_operations_indexes"),
    ]

    operations = [
        migrations.CreateModel(
            name="Checkpoint",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("version", models.PositiveIntegerField()),
                ("hash", models.CharField(max_length=64)),
                ("key_id", models.CharField(max_length=40)),
                ("signature", models.CharField(max_length=100)),
                ("at", models.DateTimeField()),
                (
                    "table",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT, related_name="checkpoints", to="tables.table"
                    ),
                ),
            ],
            options={
                "ordering": ["table", "version"],
                "constraints": [
                    models.UniqueConstraint(fields=("table", "version"), name="checkpoint_table_version_unique")
                ],
            },
        ),
        migrations.RunSQL(GUARDS, DROP_GUARDS),
    ]
