"""Least privilege in the database (issue #12, docs/architecture.md "Database roles").

The tests connect as the application role, like web, workers and beat. Everything an attacker holding the
application's database credentials would try against history is refused by PostgreSQL itself.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.db import DatabaseError, connection, transaction
from django.utils import timezone

from backoffice import dbprovision, dbroles
from ledger import services
from ledger.accounts import wallet_for
from tables import store
from tables.models import Table
from tests.conftest import owner_cursor
from tests.support.staff import staff_user

pytestmark = pytest.mark.django_db(transaction=True)


def _one(sql: str, params: list[object] | None = None) -> object:
    with connection.cursor() as cursor:
        cursor.execute(sql, params or [])
        return cursor.fetchone()[0]


@pytest.fixture
def history() -> dict[str, int]:
    """An event in the store and a deposit in the ledger (a transaction with its postings)."""
    table = Table.objects.create(name="t", preset="classic")
    store.append(
        stream_id=table.pk,
        expected_version=0,
        prev_hash=store.GENESIS,
        events=[store.NewEvent("Test", {"i": 1}, {"actor": None})],
        recorded_at=timezone.now(),
    )
    users = get_user_model().objects
    player, operator = users.create(username="mallory"), staff_user("op", "operator", password="pw")
    services.deposit(user=player, amount=100, reference="r", operator=operator, cause="test:deposit")
    wallet = wallet_for(player)
    return {"table": table.pk, "wallet": wallet.pk}


def test_the_tests_connect_as_the_application_role_which_is_no_superuser_and_owns_nothing():
    app = settings.DATABASE_APP_ROLE
    assert app and settings.MIGRATE_DATABASE and settings.MIGRATE_DATABASE["USER"] != app, (
        "run the tests through `make test` (it creates the two roles)"
    )
    assert _one("SELECT current_user") == app
    me = "(SELECT oid FROM pg_roles WHERE rolname = current_user)"
    powers = "rolsuper OR rolcreaterole OR rolcreatedb OR rolbypassrls"
    assert _one(f"SELECT {powers} FROM pg_roles WHERE oid = {me}") is False
    assert _one(f"SELECT count(*) FROM pg_class WHERE relowner = {me}") == 0
    assert _one(f"SELECT count(*) FROM pg_proc WHERE proowner = {me}") == 0
    assert _one("SELECT pg_has_role(current_user, %s, 'MEMBER')", [settings.MIGRATE_DATABASE["USER"]]) is False
    assert _one("SELECT current_setting('is_superuser')") == "off"


FORBIDDEN = [
    "UPDATE tables_event SET data = '{\"i\": 2}'",
    "DELETE FROM tables_event",
    "TRUNCATE tables_event CASCADE",
    "UPDATE ledger_posting SET amount = amount + 1000000",
    "DELETE FROM ledger_posting",
    "TRUNCATE ledger_posting CASCADE",
    "UPDATE ledger_transaction SET memo = 'forged'",
    "DELETE FROM ledger_transaction",
    "TRUNCATE ledger_transaction CASCADE",
    "TRUNCATE ledger_balance CASCADE",
    "ALTER TABLE tables_event DISABLE TRIGGER tables_event_no_update_delete",
    "ALTER TABLE ledger_posting DISABLE TRIGGER USER",
    "ALTER TABLE ledger_balance DISABLE TRIGGER ALL",
    "DROP TRIGGER ledger_balance_only_by_postings ON ledger_balance",
    "ALTER TABLE ledger_balance DROP CONSTRAINT ledger_balance_non_negative",
    "CREATE OR REPLACE FUNCTION ledger_refuse_change() RETURNS trigger LANGUAGE plpgsql "
    "AS $$ BEGIN RETURN NULL; END $$",
    "SET session_replication_role = replica",
    "SET LOCAL session_replication_role = replica",
    "CREATE TABLE public.backdoor (id int)",
    "CREATE TABLE backdoor (id int)",
    "CREATE VIEW backdoor AS SELECT 1",
    "CREATE SCHEMA backdoor",
    "ALTER ROLE CURRENT_USER SUPERUSER",
    "ALTER ROLE CURRENT_USER SET session_replication_role = replica",
]


@pytest.mark.parametrize("statement", FORBIDDEN)
def test_the_application_role_is_refused(history, statement):
    events = _one("SELECT count(*) FROM tables_event")
    postings = _one("SELECT count(*) FROM ledger_posting")
    refused = pytest.raises(DatabaseError, match=r"permission denied|must be owner|must be superuser")
    with refused, transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(statement)
    assert _one("SELECT count(*) FROM tables_event") == events
    assert _one("SELECT count(*) FROM ledger_posting") == postings
    assert _one("SELECT current_setting('session_replication_role')") == "origin"


def test_the_attack_of_the_issue_a_million_chips_under_the_replica_role_is_refused(history):
    """Issue #12: ``SET LOCAL session_replication_role = replica`` then an UPDATE of a wallet's balance."""
    wallet = history["wallet"]
    attack = "UPDATE ledger_balance SET balance = balance + 1000000 WHERE account_id = %s"
    with pytest.raises(DatabaseError, match="permission denied"), transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SET LOCAL session_replication_role = replica")
        cursor.execute(attack, [wallet])
    # without the replica role, it holds no UPDATE on the balance column (balance rows change only through
    # postings, whose trigger runs as the owner; tests/tables/test_database_attacks.py shows the trigger's own refusal)
    refused = pytest.raises(DatabaseError, match="permission denied for table ledger_balance")
    with refused, transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(attack, [wallet])
    assert _one("SELECT balance FROM ledger_balance WHERE account_id = %s", [wallet]) == 100
    assert services.balance(wallet_for(get_user_model().objects.get(username="mallory"))) == 100


def test_the_application_role_may_do_what_the_product_does(history):
    """Reads, appends, balance rows through postings, read models updated and deleted (sessions, seats...)."""
    assert _one("SELECT count(*) FROM tables_event WHERE stream_id = %s", [history["table"]]) == 1
    with connection.cursor() as cursor:
        cursor.execute("UPDATE tables_table SET name = 'renamed' WHERE id = %s", [history["table"]])
        cursor.execute("DELETE FROM django_session")
    assert _one("SELECT has_table_privilege('tables_event', 'INSERT')") is True
    assert _one("SELECT has_table_privilege('ledger_balance', 'UPDATE')") is False
    assert _one("SELECT has_column_privilege('ledger_balance', 'kind', 'UPDATE')") is True  # to lock rows
    assert _one("SELECT has_column_privilege('ledger_balance', 'balance', 'UPDATE')") is False
    assert _one("SELECT has_column_privilege('ledger_account', 'code', 'UPDATE')") is False


@pytest.mark.parametrize(
    ("table", "expected"),
    [
        ("tables_event", {"SELECT", "INSERT"}),
        ("ledger_posting", {"SELECT"}),  # written by ledger_hand_entry from stored events, or by the cashier's role
        ("ledger_transaction", {"SELECT"}),
        ("tables_checkpoint", {"SELECT"}),  # the signer's role alone inserts checkpoints (tables/signer.py)
        ("ledger_balance", {"SELECT", "INSERT"}),  # and UPDATE (kind), to lock rows: see the reviewed list
        ("ledger_account", {"SELECT", "INSERT"}),
        ("tables_table", {"SELECT", "INSERT", "UPDATE", "DELETE"}),
        ("tables_snapshot", {"SELECT", "INSERT", "UPDATE", "DELETE"}),
        ("django_migrations", {"SELECT"}),
    ],
)
def test_the_application_role_holds_exactly_its_privileges(table, expected):
    held = {
        privilege
        for privilege in ("SELECT", "INSERT", "UPDATE", "DELETE", "TRUNCATE", "REFERENCES", "TRIGGER")
        if _one("SELECT has_table_privilege(%s, %s)", [table, privilege])
    }
    assert held == expected


PRIVILEGES_FILE = Path(__file__).with_name("app_role_privileges.txt")


def test_the_application_role_holds_exactly_the_reviewed_list_of_privileges():
    """Every privilege the application role holds on the database, read from the catalog (granted to it or to
    PUBLIC), against the reviewed list in the repository: a new grant is a visible change of that file. After a
    reviewed change, write the list this test prints into tests/backoffice/app_role_privileges.txt."""
    with connection.cursor() as cursor:
        held = dbroles.privileges_held(cursor, settings.DATABASE_APP_ROLE)
    reviewed = [line for line in PRIVILEGES_FILE.read_text().splitlines() if line and not line.startswith("#")]
    assert held == reviewed, "the application role's privileges changed:\n" + "\n".join(
        [f"+ {line}" for line in held if line not in reviewed] + [f"- {line}" for line in reviewed if line not in held]
    )
    # what the issue names, whatever the list says
    assert "database TEMPORARY" not in held and "database CREATE" not in held
    assert not [line for line in held if "ledger_account.code" in line or "ledger_balance.balance" in line]
    assert not [line for line in held if line.startswith("table ") and line.split()[-1] in {"TRUNCATE", "TRIGGER"}]


def test_grants_follow_the_tables_any_migration_adds():
    """A table created by the owner (as a new migration of another app would) gets the application's grants at
    the end of the next ``migrate``; one guarded by a TRUNCATE-refusing trigger is append-only for it."""
    app = settings.DATABASE_APP_ROLE
    with owner_cursor() as owner:
        owner.execute("CREATE TABLE roles_test_cache (id int PRIMARY KEY)")
        owner.execute("CREATE TABLE roles_test_log (id int PRIMARY KEY)")
        owner.execute(
            "CREATE TRIGGER roles_test_log_no_truncate BEFORE TRUNCATE ON roles_test_log "
            "FOR EACH STATEMENT EXECUTE FUNCTION tables_event_refuse_change()"
        )
    try:
        assert _one("SELECT has_table_privilege('roles_test_cache', 'SELECT')") is False
        call_command("migrate", verbosity=0)
        assert _one("SELECT current_user") == app  # back to the application role afterwards
        for table, expected in (
            ("roles_test_cache", {"SELECT", "INSERT", "UPDATE", "DELETE"}),
            ("roles_test_log", {"SELECT", "INSERT"}),
        ):
            held = {
                p
                for p in ("SELECT", "INSERT", "UPDATE", "DELETE", "TRUNCATE")
                if _one("SELECT has_table_privilege(%s, %s)", [table, p])
            }
            assert held == expected, table
    finally:
        with owner_cursor() as owner:
            owner.execute("DROP TABLE roles_test_cache, roles_test_log")


def test_grant_statements_name_every_table_once():
    with connection.cursor() as cursor:
        statements = dbroles.grant_statements(cursor, "someone")
    grants = [s for s in statements if s.startswith("GRANT") and "ON TABLE" in s]
    named = [t.strip() for s in grants for t in s.split(" ON TABLE ", 1)[1].split(" TO ")[0].split(",")]
    assert len(named) == len(set(named)) and '"tables_event"' in named


def test_the_compose_init_script_then_migrate_give_the_same_roles_on_a_real_server():
    """docker/postgres-initdb/10-casino-roles.sh (what the db image runs on its first start, or an operator on an
    existing server), then `manage.py migrate` as the owner: the application role is limited the same way."""
    import os
    import shutil
    import subprocess
    import sys
    from pathlib import Path
    from urllib.parse import unquote, urlsplit

    import psycopg

    from tests.conftest import ROOT

    superuser = os.environ.get("DATABASE_SUPERUSER_URL")
    pg_bin = Path(__import__("pgserver").__file__).parent / "pginstall" / "bin"
    psql = shutil.which("psql") or str(pg_bin / "psql")
    if not superuser:
        pytest.skip("needs DATABASE_SUPERUSER_URL (set by `make test`)")
    name = f"{connection.settings_dict['NAME']}_compose"[:50]
    owner, app = f"{name}_owner", f"{name}_app"
    parts = urlsplit(superuser)
    hostport = parts.netloc.rsplit("@", 1)[-1]
    host, _, port = (unquote(hostport), "", "") if hostport.upper().startswith("%2F") else hostport.partition(":")
    admin = superuser.replace("postgres://", "postgresql://", 1)
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')
    env = {
        **os.environ,
        "PGHOST": host,
        "PGPORT": port or "5432",
        "PGPASSWORD": parts.password or "",
        "POSTGRES_USER": parts.username or "postgres",
        "POSTGRES_DB": name,
        "DB_OWNER_ROLE": owner,
        "DB_APP_ROLE": app,
        "DB_OWNER_PASSWORD": "owner-secret",
        "DB_APP_PASSWORD": "app-secret",
        "PATH": f"{Path(psql).parent}{os.pathsep}{os.environ['PATH']}",
    }
    try:
        script = ROOT / "docker/postgres-initdb/10-casino-roles.sh"
        for _ in range(2):  # idempotent
            done = subprocess.run(["bash", str(script)], env=env, capture_output=True, text=True, timeout=60)
            assert done.returncode == 0, done.stderr
        app_url = dbprovision.url_as(urlsplit(superuser)._replace(path=f"/{name}").geturl(), app, "app-secret")
        owner_url = dbprovision.url_as(urlsplit(superuser)._replace(path=f"/{name}").geturl(), owner, "owner-secret")
        migrate_env = {
            **{k: v for k, v in os.environ.items() if k != "DATABASE_SUPERUSER_URL"},
            "DATABASE_URL": app_url,
            "MIGRATE_DATABASE_URL": owner_url,
            "DJANGO_SETTINGS_MODULE": "casino.settings_test",
            "PYTHONPATH": str(ROOT),
        }
        done = subprocess.run(
            [sys.executable, "manage.py", "migrate", "--noinput"],
            cwd=ROOT,
            env=migrate_env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 0, done.stdout + done.stderr
        assert f"Granted the application role {app!r}" in done.stdout
        with psycopg.connect(app_url.replace("postgres://", "postgresql://", 1), autocommit=True) as conn:
            assert conn.execute("SELECT current_user, current_setting('is_superuser')").fetchone() == (app, "off")
            held = {
                p
                for p in ("SELECT", "INSERT", "UPDATE", "DELETE", "TRUNCATE")
                if conn.execute("SELECT has_table_privilege('tables_event', %s)", [p]).fetchone()[0]
            }
            assert held == {"SELECT", "INSERT"}
            for statement in (
                "SET session_replication_role = replica",
                "CREATE TABLE backdoor (id int)",
                "ALTER TABLE tables_event DISABLE TRIGGER USER",
                "TRUNCATE ledger_posting",
            ):
                with pytest.raises(psycopg.Error, match=r"permission denied|must be owner"):
                    conn.execute(statement)
            owned = (
                "SELECT count(*) FROM pg_class WHERE relnamespace = 'public'::regnamespace AND relowner <> %s::regrole"
            )
            assert conn.execute(owned, [owner]).fetchone()[0] == 0
    finally:
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            conn.execute(f'DROP ROLE IF EXISTS "{owner}"')
            conn.execute(f'DROP ROLE IF EXISTS "{app}"')


def test_the_processes_the_tests_start_connect_as_the_application_role_too(child_env):
    """Servers, workers and commands started by tests get ``child_database_url()``: the application role."""
    import subprocess
    import sys

    from tests.conftest import ROOT, child_database_url

    env = {**child_env, "DATABASE_URL": child_database_url(), "DJANGO_SETTINGS_MODULE": "casino.settings_test"}
    assert "MIGRATE_DATABASE_URL" not in env and "DATABASE_SUPERUSER_URL" not in env
    code = (
        "import django; django.setup(); from django.db import connection; c = connection.cursor(); "
        "c.execute(\"SELECT current_user, current_database(), current_setting('is_superuser')\"); "
        "print(*c.fetchone())"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == [settings.DATABASE_APP_ROLE, connection.settings_dict["NAME"], "off"]
