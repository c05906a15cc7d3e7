"""The event store's and the checkpoints' trigger functions run with a pinned ``search_path`` (issue #26): they
name no table, but a function that runs with the caller's path is one edit away from trusting it."""

from django.db import migrations

PATH = "SET search_path = pg_catalog, pg_temp"
FUNCTIONS = ("public.tables_event_refuse_change()", "public.tables_checkpoint_refuse_change()")

FORWARD = "\n".join(f"ALTER FUNCTION {f} {PATH};" for f in FUNCTIONS)
REVERSE = "\n".join(f"ALTER FUNCTION {f} RESET search_path;" for f in FUNCTIONS)


class Migration(migrations.Migration):
    dependencies = [("tables", "0010_seed_committed_index")]
    operations = [migrations.RunSQL(FORWARD, REVERSE)]
