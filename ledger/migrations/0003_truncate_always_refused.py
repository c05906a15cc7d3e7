"""TRUNCATE of the ledger is refused, full stop: no session setting opens it.

(0002 let a session opt in with ``SET ledger.allow_truncate``, which any connection could do. Emptying the
tables between transactional tests is done by the test-only database backend ``devtools.testing_db`` instead,
with ``session_replication_role = replica``, which needs a superuser.)
"""

from django.db import migrations

FORWARD = """
CREATE OR REPLACE FUNCTION ledger_refuse_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'ledger: TRUNCATE on % is refused: the ledger is append-only', TG_TABLE_NAME
        USING ERRCODE = 'integrity_constraint_violation';
END
$$;
"""

REVERSE = """
CREATE OR REPLACE FUNCTION ledger_refuse_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF current_setting('ledger.allow_truncate', true) = 'on' THEN
        RETURN NULL;
    END IF;
    RAISE EXCEPTION 'ledger: TRUNCATE on % is refused: the ledger is append-only', TG_TABLE_NAME
        USING ERRCODE = 'integrity_constraint_violation';
END
$$;
"""


class Migration(migrations.Migration):
    dependencies = [("ledger", "0002_database_guarantees")]
    operations = [migrations.RunSQL(FORWARD, REVERSE)]
