"""Creating a database's roles with a superuser's URL (development, CI, tests; docs/architecture.md, "Database
roles"): the owner, application and signer roles of backoffice/dbroles.py, with names derived from the database's
name (roles are global to a PostgreSQL cluster, shared by every database on it) and passwords derived from a
per-checkout secret.

:func:`provision` is what ``devtools.devenv`` runs when its database URL is a superuser's; production creates the
roles with ``docker/postgres-initdb/10-casino-roles.sh`` instead. It imports no Django code.
"""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, unquote, urlsplit

from backoffice.dbroles import grant_app_privileges, quote_ident


@dataclass(frozen=True, slots=True)
class Roles:
    """The roles of one database and the URLs to connect as each."""

    owner: str
    app: str
    owner_url: str
    app_url: str
    signer: str = ""
    signer_url: str = ""
    cashier: str = ""
    cashier_url: str = ""
    #: the test suite's login (``make test`` only): a member of the application's and the cashier's roles, which
    #: becomes the application's role on connecting and the cashier's for a cashier entry (ledger/cashier_role.py)
    tests_url: str = ""


def role_names(database: str) -> tuple[str, str]:
    """(owner, app) role names for ``database``: derived from its name, so two databases never share one."""
    return f"{database}_owner"[:63], f"{database}_app"[:63]


def signer_role_name(database: str) -> str:
    """The checkpoint signer's role for ``database``."""
    return f"{database}_signer"[:63]


def cashier_role_name(database: str) -> str:
    """The cashier's role for ``database`` (deposits, withdrawals, corrections: issue #43)."""
    return f"{database}_cashier"[:63]


def tests_role_name(database: str) -> str:
    """The test suite's login role for ``database`` (see :class:`Roles`)."""
    return f"{database}_tests"[:63]


def role_password(secret: bytes, role: str) -> str:
    """A role's password, derived from a per-checkout secret (stable across runs, never committed)."""
    return hmac.new(secret, role.encode(), hashlib.sha256).hexdigest()[:32]


def url_as(url: str, user: str, password: str) -> str:
    """``url`` with its credentials replaced by ``user``/``password`` (host, port, database, query kept)."""
    parts = urlsplit(url)
    host = parts.netloc.rsplit("@", 1)[-1]
    return parts._replace(netloc=f"{quote(user, safe='')}:{quote(password, safe='')}@{host}").geturl()


def database_of(url: str) -> str:
    return unquote(urlsplit(url).path.lstrip("/"))


def _libpq(url: str) -> str:
    return url.replace("postgres://", "postgresql://", 1) if url.startswith("postgres://") else url


def is_superuser(url: str) -> bool:
    import psycopg

    with psycopg.connect(_libpq(url), connect_timeout=5) as conn:
        row = conn.execute("SELECT rolsuper FROM pg_roles WHERE rolname = current_user").fetchone()
        return bool(row and row[0])


def provision(superuser_url: str, secret: bytes) -> Roles:
    """Create (or update) the owner and application roles of the database of ``superuser_url``.

    Run as a superuser. Idempotent, and serialised per database (an advisory lock) so two commands starting
    together do not race. The owner gets the database, the ``public`` schema and every object already in it
    (a database migrated before the roles existed), and may create databases (the test database). A test
    database (``test_<name>``) left by an earlier run is handed to the owner too, so it can drop it.
    """
    import psycopg

    database = database_of(superuser_url)
    owner, app = role_names(database)
    signer = signer_role_name(database)
    owner_password, app_password = role_password(secret, owner), role_password(secret, app)
    signer_password = role_password(secret, signer)
    cashier, tests = cashier_role_name(database), tests_role_name(database)
    cashier_password, tests_password = role_password(secret, cashier), role_password(secret, tests)
    with psycopg.connect(_libpq(superuser_url), connect_timeout=5) as conn, conn.cursor() as cur:
        cur.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", [f"backoffice.dbroles:{database}"])
        for role, password, extra in (
            (owner, owner_password, "CREATEDB"),
            (app, app_password, "NOCREATEDB"),
            (signer, signer_password, "NOCREATEDB"),
            (cashier, cashier_password, "NOCREATEDB"),
            (tests, tests_password, "NOCREATEDB NOINHERIT"),
        ):
            cur.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", [role])
            verb = "ALTER" if cur.fetchone() else "CREATE"
            cur.execute(
                f"{verb} ROLE {quote_ident(role)} LOGIN NOSUPERUSER NOCREATEROLE NOREPLICATION NOBYPASSRLS {extra} "
                f"PASSWORD '{password}'"
            )
        cur.execute(f"GRANT {quote_ident(app)}, {quote_ident(cashier)} TO {quote_ident(tests)}")
        cur.execute(f"ALTER DATABASE {quote_ident(database)} OWNER TO {quote_ident(owner)}")
        cur.execute(f"ALTER SCHEMA public OWNER TO {quote_ident(owner)}")
        cur.execute("REVOKE CREATE ON SCHEMA public FROM PUBLIC")
        _hand_over_objects(cur, owner)
        cur.execute("SELECT 1 FROM pg_database WHERE datname = %s", [f"test_{database}"])
        if cur.fetchone():
            cur.execute(f"ALTER DATABASE {quote_ident('test_' + database)} OWNER TO {quote_ident(owner)}")
        cur.execute(f"SET LOCAL ROLE {quote_ident(owner)}")
        grant_app_privileges(cur, app, signer_role=signer, cashier_role=cashier)  # (and again after every migrate)
    return Roles(
        owner=owner,
        app=app,
        owner_url=url_as(superuser_url, owner, owner_password),
        app_url=url_as(superuser_url, app, app_password),
        signer=signer,
        signer_url=url_as(superuser_url, signer, signer_password),
        cashier=cashier,
        cashier_url=url_as(superuser_url, cashier, cashier_password),
        tests_url=url_as(superuser_url, tests, tests_password),
    )


def _hand_over_objects(cur: Any, owner: str) -> None:
    """Make ``owner`` the owner of every table, view, sequence and function of the ``public`` schema."""
    cur.execute(
        "SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
        "WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p', 'v', 'm', 'f') "
        "AND c.relowner <> (SELECT oid FROM pg_roles WHERE rolname = %s)",
        [owner],
    )
    for (name,) in cur.fetchall():
        cur.execute(f"ALTER TABLE public.{quote_ident(name)} OWNER TO {quote_ident(owner)}")  # and its owned sequences
    cur.execute(
        "SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
        "WHERE n.nspname = 'public' AND c.relkind = 'S' "
        "AND c.relowner <> (SELECT oid FROM pg_roles WHERE rolname = %s)",
        [owner],
    )
    for (name,) in cur.fetchall():
        cur.execute(f"ALTER SEQUENCE public.{quote_ident(name)} OWNER TO {quote_ident(owner)}")
    cur.execute(
        "SELECT p.oid::regprocedure::text FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace "
        "WHERE n.nspname = 'public' AND p.proowner <> (SELECT oid FROM pg_roles WHERE rolname = %s)",
        [owner],
    )
    for (signature,) in cur.fetchall():
        cur.execute(f"ALTER ROUTINE {signature} OWNER TO {quote_ident(owner)}")
