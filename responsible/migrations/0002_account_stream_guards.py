"""The account stream is append-only, like the tables' event store: nobody rewrites a player's history of
limits, reality checks and exclusions (the application's role gets SELECT and INSERT only)."""

from django.db import migrations

FORWARD = """
CREATE FUNCTION responsible_event_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'responsible_accountevent is append-only: % refused', TG_OP
        USING ERRCODE = 'restrict_violation';
END
$$;
CREATE TRIGGER responsible_event_no_update_delete
    BEFORE UPDATE OR DELETE ON responsible_accountevent
    FOR EACH ROW EXECUTE FUNCTION responsible_event_refuse_change();
CREATE TRIGGER responsible_event_no_truncate
    BEFORE TRUNCATE ON responsible_accountevent
    FOR EACH STATEMENT EXECUTE FUNCTION responsible_event_refuse_change();
"""

REVERSE = """
DROP TRIGGER responsible_event_no_truncate ON responsible_accountevent;
DROP TRIGGER responsible_event_no_update_delete ON responsible_accountevent;
DROP FUNCTION responsible_event_refuse_change();
"""


class Migration(migrations.Migration):
    dependencies = [("responsible", "0001_initial")]
    operations = [migrations.RunSQL(FORWARD, REVERSE)]
