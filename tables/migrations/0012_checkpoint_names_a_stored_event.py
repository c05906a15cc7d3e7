"""A checkpoint names an event that is stored, with the hash it has (issue #26, the checkpoint squat).

The application's role may insert checkpoints (the command that ends a hand signs it, docs/security.md). Rows at
future versions, unsigned or not, made every later hand end of that table fail on the unique (table, version):
stakes stuck in escrow, every later hand unverifiable. The database now refuses a checkpoint whose (table,
version, hash) is not a stored event's, so nothing can be planted ahead of the chain. (What a forged row at a
past version does is seen, not prevented: ``verify`` reports a checkpoint that no configured key signed.)
"""

from django.db import migrations, models

FORWARD = """
CREATE FUNCTION public.tables_checkpoint_names_a_stored_event() RETURNS trigger LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM public.tables_event e
                    WHERE e.stream_id = NEW.table_id AND e.version = NEW.version AND e.hash = NEW.hash) THEN
        RAISE EXCEPTION 'tables_checkpoint: table % has no event % with hash %', NEW.table_id, NEW.version, NEW.hash
            USING ERRCODE = 'foreign_key_violation';
    END IF;
    RETURN NULL;
END
$$;
-- checked at commit: the command that ends a hand inserts its checkpoint in the same statement as the events
CREATE CONSTRAINT TRIGGER tables_checkpoint_names_a_stored_event
    AFTER INSERT ON public.tables_checkpoint DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW EXECUTE FUNCTION public.tables_checkpoint_names_a_stored_event();
"""

REVERSE = """
DROP TRIGGER tables_checkpoint_names_a_stored_event ON public.tables_checkpoint;
DROP FUNCTION public.tables_checkpoint_names_a_stored_event();
"""


class Migration(migrations.Migration):
    dependencies = [("tables", "0011_pinned_search_path")]
    operations = [
        migrations.RunSQL(FORWARD, REVERSE),
        # GET /fairness/public-key: each key's `valid_from`, its first checkpoint (API.md v1.2)
        migrations.AddIndex(
            model_name="checkpoint", index=models.Index(fields=["key_id", "at"], name="checkpoint_key_first_use")
        ),
    ]
