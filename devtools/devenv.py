"""Development launcher: the README's two commands.

    python -m devtools.devenv run        # services, migrate, demo data, web + live + worker + beat until Ctrl-C
    python -m devtools.devenv test [...] # services, then pytest (the whole suite: two workers a core), any arguments
    python -m devtools.devenv bench bench/store.py [...]  # services, then a benchmark script
    python -m devtools.devenv manage verify_hands --all  # any manage.py command against the running `make run`

PostgreSQL and Redis come from ``DATABASE_URL`` / ``REDIS_URL`` when those are set and answer, else embedded ones
are started for the command (devtools/servers.py). ``run`` leaves files for its processes and for ``manage``
while it runs (devtools/localfiles.py).

Database roles (backoffice/dbroles.py): when the database URL is a superuser's (the embedded server's, CI's
``postgres``), ``run`` and ``test`` create the database's owner and application roles (``<db>_owner``,
``<db>_app``: backoffice/dbprovision.py) and hand the programs ``DATABASE_URL`` = the application role and
``MIGRATE_DATABASE_URL`` = the owner; the superuser's URL goes no further (only the test run gets it, as
``DATABASE_SUPERUSER_URL``, for the tests that start a whole ``make run`` of their own). A URL that is not a
superuser's is used as given, with ``MIGRATE_DATABASE_URL`` from the environment (an existing server:
docs/architecture.md, "Database roles").

This module runs before Django is configured and imports no Django code.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

from devtools import procenv
from devtools.localfiles import local_secret, process_secrets, record_run, running_instances
from devtools.servers import ServiceUnavailable, log, servers

ROOT = Path(__file__).resolve().parent.parent
LOCAL = ROOT / ".local"


@contextlib.contextmanager
def services(*, fallback: bool = True) -> Iterator[dict[str, str]]:
    """Yield the programs' environment: ``DATABASE_URL`` and ``REDIS_URL`` (the set variables, else embedded
    services: devtools/servers.py), with the database roles of :func:`database_roles` in place of a superuser.

    A set variable whose service does not answer falls back to the embedded one when ``fallback`` (tests),
    and is an error otherwise (``run``: the variable names the database the operator meant).
    """
    with servers(fallback=fallback) as env:
        yield {**env, **database_roles(env["DATABASE_URL"])}


def database_roles(url: str) -> dict[str, str]:
    """The database variables for the programs: the owner and application roles when ``url`` is a superuser's
    (created now), else ``url`` as the application's with ``MIGRATE_DATABASE_URL`` left to the environment."""
    from backoffice import dbprovision

    if not dbprovision.is_superuser(url):
        log("DATABASE_URL is not a superuser's: using it as the application role as given")
        return {"DATABASE_URL": url}
    roles = dbprovision.provision(url, local_secret("db_role_secret").encode())
    log(f"database roles: owner {roles.owner!r} (migrate), application {roles.app!r} (web, workers, beat)")
    return {
        "DATABASE_URL": roles.app_url,
        "MIGRATE_DATABASE_URL": roles.owner_url,
        "SIGNER_DATABASE_URL": roles.signer_url,
        "CASHIER_DATABASE_URL": roles.cashier_url,
        "TESTS_DATABASE_URL": roles.tests_url,
        "DATABASE_SUPERUSER_URL": url,
    }


def _run(cmd: list[str], env: dict[str, str], *, stop_is_success: bool = False) -> int:
    """Run a child in its own process group; forward Ctrl-C/TERM to the whole group; return its code.

    ``stop_is_success`` (``make run``): a Ctrl-C or TERM is how the operator ends a server that was running, so the
    command then ends with 0 once the child has stopped, whatever code the stopped child gave."""
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, start_new_session=True)
    stopped = False

    def forward(signum: int, _frame: object) -> None:
        nonlocal stopped
        stopped = True
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signum)

    old_int = signal.signal(signal.SIGINT, forward)
    old_term = signal.signal(signal.SIGTERM, forward)
    try:
        while True:
            try:
                code = proc.wait()
                return 0 if stopped and stop_is_success else code
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


@contextlib.contextmanager
def terminal_foreground() -> Iterator[None]:
    """Make this process the terminal's foreground process group while ``make run`` serves (when there is a
    terminal), and give the terminal back after.

    Ctrl-C signals the terminal's foreground group: that was ``make`` and this process together, and GNU make,
    once its recipe has ended, kills itself with the same SIGINT ("make: *** [run] Interrupt", exit status 130)
    even when the recipe stopped cleanly. In a group of its own this process alone gets Ctrl-C, stops the servers,
    and ``make run`` ends with 0, as the README says."""
    fd = sys.stdin.fileno() if sys.stdin is not None and sys.stdin.isatty() else -1
    if fd < 0:
        yield
        return
    try:
        before = os.tcgetpgrp(fd)
        os.setpgid(0, 0)
        old_ttou = signal.signal(signal.SIGTTOU, signal.SIG_IGN)  # a background group may then set the foreground
        os.tcsetpgrp(fd, os.getpgrp())
    except OSError:  # not the terminal's session (a terminal handed in by another program): leave it as it is
        yield
        return
    try:
        yield
    finally:
        with contextlib.suppress(OSError):
            os.tcsetpgrp(fd, before)
        signal.signal(signal.SIGTTOU, old_ttou)


def cmd_test(args: list[str]) -> int:
    with services() as svc:  # (the tests that start `make run` themselves need the superuser's URL)
        env = {
            **dev_keys(),
            **os.environ,
            **svc,
            "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
        }
        # (importing the casino package already set DJANGO_SETTINGS_MODULE for Celery: override it)
        env["DJANGO_SETTINGS_MODULE"] = os.environ.get("TEST_SETTINGS_MODULE", "casino.settings_test")
        pytest = [sys.executable, "-m", "pytest"]
        parallel = parallel_args(args)
        if not parallel or "-m" in args:
            return _run([*pytest, *parallel, *args], env)
        # The whole suite: everything but the HA drills on every worker, then the drills (tests/conftest.py HA)
        # beside each other only: a Patroni set started among the whole suite's four workers has seen its first
        # member's bootstrap never finish, three fresh-clone runs in a row, while it elects in seconds otherwise.
        first = _run([*pytest, *parallel, "-m", "not ha", *args], env)
        second = _run([*pytest, "-n", "2", "-m", "ha", *args], env)
        return first or second


WORKERS_PER_CORE = 2


def parallel_args(args: list[str]) -> list[str]:
    """pytest-xdist's arguments for a run of the whole suite: two workers per core (``TEST_WORKERS`` overrides,
    0 runs in this process), each with a database of its own (pytest-django's ``_gw<n>`` suffix) and Redis keys of
    its own (``REDIS_KEY_PREFIX``, casino/settings_test.py). Two per core because a worker spends about half its
    time waiting on the servers, browsers, timers and subprocesses its tests start (docs/performance.md, "Test
    suite"). A run of chosen tests (a path among the arguments) or one that says how to distribute (``-n``,
    ``--dist``, ``-p no:xdist``) is left as asked."""
    chosen = any(not arg.startswith("-") and (ROOT / arg.split("::", 1)[0]).exists() for arg in args)
    explicit = any(arg.startswith(("-n", "--numprocesses", "--dist", "-pno:xdist")) for arg in args) or any(
        pair == ("-p", "no:xdist") for pair in itertools.pairwise(args)
    )
    workers = int(os.environ.get("TEST_WORKERS") or WORKERS_PER_CORE * (os.cpu_count() or 1))
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
            svc.pop("CASHIER_DATABASE_URL", None)
            svc.pop("TESTS_DATABASE_URL", None)
        env = {**dev_keys(), **os.environ, **svc, "PYTHONPATH": str(ROOT)}
        return _run([sys.executable, *args], env)


def cmd_run(args: list[str]) -> int:
    """Migrate (as the owner), seed the demo data, then serve with honcho: each process with only the credentials
    it uses (devtools/procenv.py)."""
    port = os.environ.get("PORT", "8000")
    live_port = os.environ.get("LIVE_PORT") or str(int(port) + 1)
    with services(fallback=False) as svc:
        secrets = _run_secrets(svc)
        base = _run_environment(svc["REDIS_URL"], secrets, port=port, live_port=live_port)
        signs = base["CHECKPOINT_SIGNER"] == "signer"
        # `make manage` runs commands like a process that deals: the application role, never the owner's URL
        record = record_run(port, {**base, **procenv.variables_for("manage", secrets, signer=signs)})
        code = _migrate_and_seed(base, secrets, signs=signs)
        if code:
            return code
        _announce(base, demo_password=secrets["DEMO_PASSWORD"])
        honcho = shutil.which("honcho", path=str(Path(sys.executable).parent)) or "honcho"
        try:
            with process_secrets(secrets) as (procfile, secrets_file):
                env = {**base, procenv.SECRETS_FILE_VARIABLE: str(secrets_file)}
                with terminal_foreground():
                    return _run([honcho, "-f", str(procfile), "start", *args], env, stop_is_success=True)
        finally:
            record.unlink(missing_ok=True)


def _run_secrets(svc: dict[str, str]) -> dict[str, str]:
    """Every credential of the run, of which each process gets only its own (procenv.variables_for): the
    development keys, the secrets set in the environment, the services' URLs (the roles', never the superuser's),
    the secret key and the demo password (per-checkout ones kept in .local unless set)."""
    secrets = {
        **dev_keys(),
        **{k: v for k, v in os.environ.items() if k in procenv.SECRET_VARIABLES},
        **svc,
        "SECRET_KEY": os.environ.get("SECRET_KEY") or local_secret(),
        "DEMO_PASSWORD": os.environ.get("DEMO_PASSWORD") or local_secret("demo_password", nbytes=12),
    }
    secrets.pop("DATABASE_SUPERUSER_URL", None)  # the programs get the roles' URLs only
    secrets.pop("TESTS_DATABASE_URL", None)  # (the test suite's alone)
    return secrets


def _run_environment(redis_url: str, secrets: dict[str, str], *, port: str, live_port: str) -> dict[str, str]:
    """The variables every process of the run gets, none of them secret: the environment without its secrets,
    Redis, the settings, the ports, the metrics' directory, who signs checkpoints and the public keys to verify
    them with, and the signer role's name."""
    base = {
        **{k: v for k, v in os.environ.items() if k not in procenv.SECRET_VARIABLES},
        "REDIS_URL": redis_url,
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
    if secrets.get("CASHIER_DATABASE_URL"):  # likewise
        base["DATABASE_CASHIER_ROLE"] = urlsplit(secrets["CASHIER_DATABASE_URL"]).username or ""
    return base


def _migrate_and_seed(base: dict[str, str], secrets: dict[str, str], *, signs: bool) -> int:
    """``manage.py migrate`` and the demo staff (``staff_account``) as the owner, then ``seed_demo`` with a dealing
    process's credentials and the demo
    password; the exit code of the first that fails, else 0."""
    manage = [sys.executable, str(ROOT / "manage.py")]
    owner = {k: secrets[k] for k in ("DATABASE_URL", "MIGRATE_DATABASE_URL", "SECRET_KEY") if secrets.get(k)}
    demo = {**procenv.variables_for("seed_demo", secrets, signer=signs), "DEMO_PASSWORD": secrets["DEMO_PASSWORD"]}
    staff = {**owner, "STAFF_PASSWORD": secrets["DEMO_PASSWORD"]}  # staff are the owner's to make (backoffice/staff.py)
    steps = (
        (["migrate", "--noinput"], owner),
        # devtools/demo.py's DEMO_OPERATOR and DEMO_AUDITOR, in their groups (this module imports no Django)
        (["staff_account", "operator", "--role", "operator", "--verbosity", "0"], staff),
        (["staff_account", "auditor", "--role", "auditor", "--verbosity", "0"], staff),
        (["seed_demo"], demo),
    )
    for step, extra in steps:
        code = _run([*manage, *step], {**base, **extra})
        if code:
            log(f"`manage.py {' '.join(step)}` failed with exit code {code}")
            return code
    return 0


def _announce(base: dict[str, str], *, demo_password: str) -> None:
    """Tell the developer where everything the run serves is, and how to sign in and stop it."""
    port, live = base["PORT"], f"127.0.0.1:{base['LIVE_PORT']}"
    base_url = f"http://127.0.0.1:{port}"
    log("the casino is starting:")
    log(f"  API        {base_url}/api/v1/")
    log(f"  API docs   {base_url}/api/docs/ (ReDoc: {base_url}/api/redoc/)")
    log(f"  admin      {base_url}/admin/ (the operator's dashboard)")
    log(f"  metrics    {base_url}/metrics (Prometheus; from {base['METRICS_ALLOW_IPS'] or 'the token holder'})")
    log(f"  health     {base_url}/healthz")
    log(f"  live (ASGI: WebSocket and long-polls) ws://{live}/ws/v1/tables/<id>")
    log(f"                                        http://{live}/api/v1/tables/<id>/events?wait=30")
    log(f"  play       {base_url}/play/ (the player client: sign in as alice, bob, carol or dave)")
    log('  the production proxy in front of both (optional, Debian\'s nginx; docs/operations.md, "The proxy"):')
    log(f"    .venv/bin/python -m devtools.nginx --port <free port> --web 127.0.0.1:{port} --live {live}")
    log(f"  demo accounts operator, auditor, alice, bob, carol, dave: password {demo_password}")
    log("  (kept in .local/demo_password; listening on 127.0.0.1 only: HOST=0.0.0.0 make run to open it)")
    log(f'  any manage.py command against it: make manage ARGS="verify_hands --all" (PORT={port} if several)')
    log("Ctrl-C stops the web server, the live server, the Celery workers (the signer's too) and beat together.")


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


def dev_keys() -> dict[str, str]:
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
