"""Database guards of the event store: append-only events and the transaction id used by global readers."""

from django.db import migrations

FORWARD = """
CREATE FUNCTION tables_event_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'tables_event is append-only: % refused', TG_OP
        USING ERRCODE = 'restrict_violation';
END
$$;
CREATE TRIGGER tables_event_no_update_delete
    BEFORE UPDATE OR DELETE ON tables_event
    FOR EACH ROW EXECUTE FUNCTION tables_event_refuse_change();
CREATE TRIGGER tables_event_no_truncate
    BEFORE TRUNCATE ON tables_event
    FOR EACH STATEMENT EXECUTE FUNCTION tables_event_refuse_change();
ALTER TABLE tables_event ALTER COLUMN tx_id SET DEFAULT (pg_current_xact_id()::text::bigint);
ALTER TABLE tables_event ALTER COLUMN tx_id SET NOT NULL;
"""

REVERSE = """
ALTER TABLE tables_event ALTER COLUMN tx_id DROP NOT NULL;
ALTER TABLE tables_event ALTER COLUMN tx_id DROP DEFAULT;
DROP TRIGGER tables_event_no_truncate ON tables_event;
DROP TRIGGER tables_event_no_update_delete ON tables_event;
DROP FUNCTION tables_event_refuse_change();
"""


class Migration(migrations.Migration):
    dependencies = [("tables", "0001_initial")]
    operations = [migrations.RunSQL(FORWARD, REVERSE)]
