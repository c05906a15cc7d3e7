"""When each checkpoint-signing key was put in service (API.md v1.3: a key's ``valid_from`` is never null).

Append-only like the checkpoints. A trigger on ``tables_checkpoint`` records the key a checkpoint names the first
time it signs (SECURITY DEFINER, so whoever may insert a checkpoint needs no privilege on this table; its
``search_path`` pinned); the keys that signed before this migration are recorded from their first checkpoint."""

from django.db import migrations, models

GUARDS = """
CREATE FUNCTION public.tables_keyinservice_refuse_change() RETURNS trigger LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    RAISE EXCEPTION 'tables_keyinservice is append-only: % refused', TG_OP
        USING ERRCODE = 'restrict_violation';
END
$$;
CREATE TRIGGER tables_keyinservice_no_update_delete
    BEFORE UPDATE OR DELETE ON tables_keyinservice
    FOR EACH ROW EXECUTE FUNCTION public.tables_keyinservice_refuse_change();
CREATE TRIGGER tables_keyinservice_no_truncate
    BEFORE TRUNCATE ON tables_keyinservice
    FOR EACH STATEMENT EXECUTE FUNCTION public.tables_keyinservice_refuse_change();

CREATE FUNCTION public.tables_checkpoint_key_in_service() RETURNS trigger LANGUAGE plpgsql
SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    INSERT INTO public.tables_keyinservice (key_id, valid_from) VALUES (NEW.key_id, NEW.at)
        ON CONFLICT (key_id) DO NOTHING;
    RETURN NULL;
END
$$;
CREATE TRIGGER tables_checkpoint_key_in_service
    AFTER INSERT ON tables_checkpoint
    FOR EACH ROW EXECUTE FUNCTION public.tables_checkpoint_key_in_service();

INSERT INTO tables_keyinservice (key_id, valid_from)
    SELECT key_id, min(at) FROM tables_checkpoint GROUP BY key_id;
"""

DROP_GUARDS = """
DROP TRIGGER tables_checkpoint_key_in_service ON tables_checkpoint;
DROP FUNCTION public.tables_checkpoint_key_in_service();
DROP TRIGGER tables_keyinservice_no_truncate ON tables_keyinservice;
DROP TRIGGER tables_keyinservice_no_update_delete ON tables_keyinservice;
DROP FUNCTION public.tables_keyinservice_refuse_change();
"""


class Migration(migrations.Migration):
    dependencies = [("tables", "0015_checkpoint_signs_forms_and_facts")]

    operations = [
        migrations.CreateModel(
            name="KeyInService",
            fields=[
                ("key_id", models.CharField(max_length=40, primary_key=True, serialize=False)),
                ("valid_from", models.DateTimeField()),
            ],
        ),
        migrations.RunSQL(GUARDS, DROP_GUARDS),
    ]
