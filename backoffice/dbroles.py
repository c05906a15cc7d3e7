"""The two database roles (docs/architecture.md, "Database roles"): an owner and the application's role.

- The **owner** runs ``manage.py migrate`` (``MIGRATE_DATABASE_URL``) and owns every table, function and
  sequence. It is not a superuser.
- The **application role** (``DATABASE_URL``: web, workers, beat) owns nothing and is no superuser. After every
  migrate, :func:`grant_app_privileges` (run by the owner) gives it, on every table of the schema:

  * ``SELECT, INSERT`` on the guarded tables (those with a trigger refusing TRUNCATE: the event store, the
    ledger's transactions and postings), and only ``SELECT`` on checkpoints when the database has a signer role
    (every database ``make run``, ``make test`` and compose set up: the signer's role alone inserts them);
  * on a few tables, exactly what :data:`EXPLICIT_PRIVILEGES` says (column-level where it updates only some
    columns: nothing on ``ledger_balance.balance`` or ``ledger_account.code``);
  * ``SELECT, INSERT, UPDATE, DELETE`` on every other table (read models, sessions, tokens, caches);
  * never ``TRUNCATE``, ``REFERENCES`` or ``TRIGGER``; ``USAGE, SELECT`` on sequences; ``EXECUTE`` only on the
    schema's functions that are not trigger functions (PUBLIC has none); ``USAGE`` on the schema and no
    ``CREATE`` in it; ``CONNECT`` on the database and no ``TEMPORARY`` (a temporary table would shadow a table
    for anything that names it without a schema).

  The reviewed list of what it holds is ``tests/backoffice/app_role_privileges.txt``
  (``tests/backoffice/test_database_roles.py`` compares it with the catalog, so a new grant is a visible change).

  So it cannot UPDATE/DELETE/TRUNCATE events or postings, cannot ALTER a table or disable a trigger (only an
  owner can), cannot set ``session_replication_role`` (superusers only) and cannot create objects. Grants are
  recomputed from the catalog after every migrate, so a table added by any migration gets them.

Creating the roles with a superuser's URL (development, CI, tests) is backoffice/dbprovision.py's. This module
imports no Django code.
"""

from __future__ import annotations

from typing import Any, Protocol

#: The application's privileges on the tables where they are not the default of their kind (issues #26, #43):
#: - ``ledger_balance``: rows are inserted at 0 and change only through postings (the SECURITY DEFINER posting
#:   trigger); ``UPDATE (kind)`` only because ``SELECT ... FOR UPDATE`` needs UPDATE on some column, and the
#:   balance row's trigger refuses any change to ``kind``;
#: - ``ledger_account``: created, never updated (its code names the house bankroll of a table);
#: - ``django_migrations``: which migrations ran is the owner's record;
#: - ``auth_user``: players register (a trigger refuses a staff or superuser row from anyone but the owner) and
#:   sign in (``last_login``); no privilege, password or activation changes: staff are the owner's to make
#:   (``manage.py staff_account``);
#: - who holds which permission (groups, their permissions, the permissions and content types themselves): read
#:   only; ``migrate`` (the owner) writes them;
#: - ``knox_authtoken``: read and revoked; a token is inserted only by ``accounts_issue_token`` (SECURITY
#:   DEFINER: never for staff, superusers or inactive accounts);
#: - the audit log and the verification alerts: appended, never changed or deleted.
#: - ``ledger_transaction``, ``ledger_posting``: read only (issue #43, DESIGN.md principle 17): the game's entries
#:   are written by ``ledger_hand_entry`` (SECURITY DEFINER), which posts only what the stored event its cause
#:   names moves (tables/migrations/0017), and the sweep by ``ledger_sweep_bankroll``; deposits, withdrawals and
#:   corrections by the cashier's role (:func:`cashier_statements`).
EXPLICIT_PRIVILEGES = {
    "ledger_transaction": "SELECT",
    "ledger_posting": "SELECT",
    "ledger_balance": "SELECT, INSERT, UPDATE (kind)",
    "ledger_account": "SELECT, INSERT",
    "django_migrations": "SELECT",
    "auth_user": "SELECT, INSERT, UPDATE (last_login)",
    "auth_group": "SELECT",
    "auth_group_permissions": "SELECT",
    "auth_user_groups": "SELECT",
    "auth_user_user_permissions": "SELECT",
    "auth_permission": "SELECT",
    "django_content_type": "SELECT",
    "knox_authtoken": "SELECT, DELETE",
    "django_admin_log": "SELECT, INSERT",
    "casino_verificationfailure": "SELECT, INSERT",
}
APPEND_ONLY_PRIVILEGES = "SELECT, INSERT"
TABLE_PRIVILEGES = "SELECT, INSERT, UPDATE, DELETE"

# Tables, views and sequences of the current schema, with whether a user trigger refuses TRUNCATE on them
# (tgtype bit 5 = TRUNCATE). Partitions are not among them: the roles reach a partitioned table's rows through
# the parent only (its grants and triggers apply), and hold nothing on any partition (_PARTITIONS).
_RELATIONS = """
SELECT c.relname, c.relkind,
       EXISTS (SELECT 1 FROM pg_trigger t
               WHERE t.tgrelid = c.oid AND NOT t.tgisinternal AND (t.tgtype & 32) <> 0) AS guarded
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p', 'v', 'm', 'S') AND NOT c.relispartition
ORDER BY c.relname
"""
_PARTITIONS = """
SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname = current_schema() AND c.relispartition AND c.relkind IN ('r', 'p') ORDER BY c.relname
"""


class Cursor(Protocol):
    def execute(self, query: Any, params: Any = ...) -> Any: ...
    def fetchall(self) -> list[Any]: ...


def quote_ident(name: str) -> str:
    """``name`` as a quoted SQL identifier."""
    return '"' + name.replace('"', '""') + '"'


#: written only by the signer's role when the database has one (whichever process signs: tables/signer.py)
SIGNER_WRITES = ("tables_checkpoint", "casino_verificationfailure")
#: what the signer may not read: credentials, sessions, sign-in records, players' stored answers
SIGNER_HIDDEN = frozenset(
    {
        "auth_user",  # but its id and username (the ledger check names wallets by username)
        "knox_authtoken",
        "django_session",
        "axes_accessattempt",
        "axes_accesslog",
        "axes_accessfailurelog",
        "tables_idempotencyrecord",
    }
)


def app_privileges(table: str, guarded: bool, *, signer: bool = False) -> str:
    """The privileges the application role holds on ``table`` (``signer``: a signer role writes checkpoints, the
    application only reads them)."""
    if signer and table == "tables_checkpoint":
        return "SELECT"
    if table in EXPLICIT_PRIVILEGES:
        return EXPLICIT_PRIVILEGES[table]
    return APPEND_ONLY_PRIVILEGES if guarded else TABLE_PRIVILEGES


def grant_statements(cursor: Cursor, app_role: str, *, signer: bool = False) -> list[str]:
    """The statements that set the application role's privileges on everything in the current schema."""
    cursor.execute(_RELATIONS)
    role = quote_ident(app_role)
    by_privileges: dict[str, list[str]] = {}
    sequences: list[str] = []
    for name, kind, guarded in cursor.fetchall():
        if kind == "S":
            sequences.append(quote_ident(name))
        else:
            by_privileges.setdefault(app_privileges(name, guarded, signer=signer), []).append(quote_ident(name))
    statements = _revoke_partitions(cursor, role)
    tables = [t for names in by_privileges.values() for t in names]
    if tables:
        statements.append(f"REVOKE ALL ON TABLE {', '.join(tables)} FROM {role}")
    for privileges, names in sorted(by_privileges.items()):
        statements.append(f"GRANT {privileges} ON TABLE {', '.join(names)} TO {role}")
    if sequences:
        statements.append(f"REVOKE ALL ON SEQUENCE {', '.join(sequences)} FROM {role}")
        statements.append(f"GRANT USAGE, SELECT ON SEQUENCE {', '.join(sequences)} TO {role}")
    return statements


def _revoke_partitions(cursor: Cursor, role: str) -> list[str]:
    """Nothing for ``role`` on any partition (the event table's: migration tables/0013)."""
    cursor.execute(_PARTITIONS)
    partitions = [quote_ident(name) for (name,) in cursor.fetchall()]
    return [f"REVOKE ALL ON TABLE {', '.join(partitions)} FROM {role}"] if partitions else []


def grant_app_privileges(cursor: Cursor, app_role: str, *, signer_role: str = "", cashier_role: str = "") -> None:
    """Give ``app_role`` exactly its privileges on the current schema (run by the owner, after migrate); with a
    ``signer_role``, checkpoints are the signer's to write, and it gets its own privileges; with a
    ``cashier_role``, it gets the cashier's (:func:`cashier_statements`)."""
    cursor.execute("SELECT current_schema()")
    (schema,) = cursor.fetchall()[0]
    if signer_role:
        for statement in signer_statements(cursor, signer_role):
            cursor.execute(statement)
    if cashier_role:
        for statement in cashier_statements(cursor, cashier_role):
            cursor.execute(statement)
    for statement in grant_statements(cursor, app_role, signer=bool(signer_role)):
        cursor.execute(statement)
    role = quote_ident(app_role)
    cursor.execute(f"GRANT USAGE ON SCHEMA {quote_ident(schema)} TO {role}")
    # functions: EXECUTE only on those the application calls (not trigger functions), and not for PUBLIC
    cursor.execute(f"REVOKE ALL ON ALL FUNCTIONS IN SCHEMA {quote_ident(schema)} FROM PUBLIC, {role}")
    cursor.execute(
        "SELECT p.oid::regprocedure::text FROM pg_proc p WHERE p.pronamespace = current_schema()::regnamespace "
        "AND p.prorettype <> 'trigger'::regtype AND p.prokind = 'f' ORDER BY 1"
    )
    for (signature,) in cursor.fetchall():
        cursor.execute(f"GRANT EXECUTE ON FUNCTION {signature} TO {role}")
    # the database: connect, and no temporary objects (a temporary table shadows a table of the same name
    # for whatever names it without a schema); the owner keeps its own rights as the database's owner
    cursor.execute("SELECT current_database()")
    (database,) = cursor.fetchall()[0]
    cursor.execute(f"REVOKE TEMPORARY, CREATE ON DATABASE {quote_ident(database)} FROM PUBLIC, {role}")
    cursor.execute(f"GRANT CONNECT ON DATABASE {quote_ident(database)} TO {role}")


def _own_role_start(cursor: Cursor, own_role: str) -> tuple[str, list[str], set[str], list[str]]:
    """For a role of its own (the signer's, the cashier's): its quoted name, the schema's tables and sequences, and
    the statements that start its privileges: connect, use the schema, nothing on any partition, table or
    sequence, and of the users only their id and username."""
    cursor.execute(_RELATIONS)
    rows = cursor.fetchall()
    role = quote_ident(own_role)
    tables = [name for name, kind, _ in rows if kind != "S"]
    sequences = {name for name, kind, _ in rows if kind == "S"}
    cursor.execute("SELECT current_database(), current_schema()")
    database, schema = cursor.fetchall()[0]
    statements = [
        f"GRANT CONNECT ON DATABASE {quote_ident(database)} TO {role}",
        f"GRANT USAGE ON SCHEMA {quote_ident(schema)} TO {role}",
        *_revoke_partitions(cursor, role),
    ]
    if tables:
        statements.append(f"REVOKE ALL ON TABLE {', '.join(quote_ident(t) for t in tables)} FROM {role}")
    if "auth_user" in tables:
        statements.append(f"GRANT SELECT (id, username) ON TABLE auth_user TO {role}")
    if sequences:
        statements.append(f"REVOKE ALL ON SEQUENCE {', '.join(quote_ident(q) for q in sorted(sequences))} FROM {role}")
    return role, tables, sequences, statements


def signer_statements(cursor: Cursor, signer_role: str) -> list[str]:
    """The signer's privileges: read what a hand's verification reads (not credentials, sessions or sign-in
    records; of the users only id and username), insert checkpoints and verification failures, nothing else."""
    role, tables, sequences, statements = _own_role_start(cursor, signer_role)
    if tables:
        readable = [quote_ident(t) for t in tables if t not in SIGNER_HIDDEN]
        statements.append(f"GRANT SELECT ON TABLE {', '.join(readable)} TO {role}")
    for table in SIGNER_WRITES:
        if table in tables:
            statements.append(f"GRANT INSERT ON TABLE {quote_ident(table)} TO {role}")
        if f"{table}_id_seq" in sequences:
            statements.append(f"GRANT USAGE ON SEQUENCE {quote_ident(table + '_id_seq')} TO {role}")
    return statements


#: what the cashier's role reads (the accounts, the users they belong to) and writes: deposits, withdrawals and
#: corrections are balanced transactions it inserts itself (ledger/cashier.py, ledger/corrections.py), creating the
#: accounts they name; it runs no game and reads nothing else
CASHIER_READS = ("ledger_account", "ledger_balance", "ledger_transaction", "ledger_posting")
CASHIER_INSERTS = ("ledger_account", "ledger_balance", "ledger_transaction", "ledger_posting")


def cashier_statements(cursor: Cursor, cashier_role: str) -> list[str]:
    """The cashier's privileges (issue #43): read the ledger and the users' ids and names, insert accounts,
    transactions and postings (the ledger's triggers bind it as they bind everyone), nothing else."""
    role, tables, sequences, statements = _own_role_start(cursor, cashier_role)
    present = [t for t in CASHIER_READS if t in tables]
    if present:
        statements.append(f"GRANT SELECT ON TABLE {', '.join(present)} TO {role}")
    present = [t for t in CASHIER_INSERTS if t in tables]
    if present:
        statements.append(f"GRANT INSERT ON TABLE {', '.join(present)} TO {role}")
    if "ledger_balance" in tables:  # SELECT ... FOR UPDATE needs UPDATE on some column; the trigger refuses kind
        statements.append(f"GRANT UPDATE (kind) ON TABLE ledger_balance TO {role}")
    for table in CASHIER_INSERTS:
        if f"{table}_id_seq" in sequences:
            statements.append(f"GRANT USAGE ON SEQUENCE {quote_ident(table + '_id_seq')} TO {role}")
    return statements


_TABLE_PRIVILEGES = ("SELECT", "INSERT", "UPDATE", "DELETE", "TRUNCATE", "REFERENCES", "TRIGGER")
_PRIVILEGES_HELD = """
SELECT 'role: ' || concat_ws(' ', CASE WHEN r.rolsuper THEN 'SUPERUSER' END,
       CASE WHEN r.rolcreaterole THEN 'CREATEROLE' END, CASE WHEN r.rolcreatedb THEN 'CREATEDB' END,
       CASE WHEN r.rolreplication THEN 'REPLICATION' END, CASE WHEN r.rolbypassrls THEN 'BYPASSRLS' END,
       CASE WHEN r.rolcanlogin THEN 'LOGIN' END)
  FROM pg_roles r WHERE r.rolname = %(role)s
UNION ALL
SELECT 'member of ' || m.rolname FROM pg_auth_members a JOIN pg_roles m ON m.oid = a.roleid
 WHERE a.member = to_regrole(%(role)s)
UNION ALL
SELECT 'database ' || p FROM unnest(ARRAY['CONNECT', 'CREATE', 'TEMPORARY']) AS p
 WHERE has_database_privilege(%(role)s, current_database(), p)
UNION ALL
SELECT 'schema ' || n.nspname || ' ' || p FROM pg_namespace n, unnest(ARRAY['USAGE', 'CREATE']) AS p
 WHERE n.nspname = current_schema() AND has_schema_privilege(%(role)s, n.oid, p)
UNION ALL
SELECT 'table ' || c.relname || ' ' || p FROM pg_class c, unnest(%(privileges)s::text[]) AS p
 WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind IN ('r', 'p', 'v', 'm')
   AND has_table_privilege(%(role)s, c.oid, p)
UNION ALL
SELECT 'column ' || c.relname || '.' || a.attname || ' ' || p
  FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped,
       unnest(ARRAY['SELECT', 'INSERT', 'UPDATE', 'REFERENCES']) AS p
 WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind IN ('r', 'p', 'v', 'm')
   AND has_column_privilege(%(role)s, c.oid, a.attnum, p) AND NOT has_table_privilege(%(role)s, c.oid, p)
UNION ALL
SELECT 'sequence ' || c.relname || ' ' || p FROM pg_class c, unnest(ARRAY['USAGE', 'SELECT', 'UPDATE']) AS p
 WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind = 'S'
   AND has_sequence_privilege(%(role)s, c.oid, p)
UNION ALL
SELECT 'function ' || f.oid::regprocedure::text || ' EXECUTE' FROM pg_proc f
 WHERE f.pronamespace = current_schema()::regnamespace AND has_function_privilege(%(role)s, f.oid, 'EXECUTE')
"""


def privileges_held(cursor: Cursor, role: str) -> list[str]:
    """Every privilege ``role`` holds on the current database and schema, granted to it or to PUBLIC, one
    sorted line each (what ``tests/backoffice/app_role_privileges.txt`` lists for the application role)."""
    cursor.execute(_PRIVILEGES_HELD, {"role": role, "privileges": list(_TABLE_PRIVILEGES)})
    return sorted(row[0] for row in cursor.fetchall())
