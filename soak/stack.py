"""The stack under test: the private services and the casino's processes on them (gunicorn, the Celery
worker, beat, the signer, the live server, nginx in front), their settings, and how to reach and break them."""

from __future__ import annotations

import contextlib
import http.client
import os
import re
import secrets
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit

from devtools.ha import HaSet
from devtools.ha import missing as ha_missing
from devtools.nginx import configuration as nginx_configuration
from devtools.nginx import nginx_binary
from devtools.pgcluster import Cluster
from soak.log import say
from soak.services import ROOT, GivenPostgres, PrivateRedis, Process, free_port
from soak.timing import SWEEP_GRACE_S, SWEEP_INTERVAL_S, wait_until

# the suite's own services (and its database roles) never reach the private stack
PRIVATE_SERVICE_VARIABLES = ("DATABASE_", "MIGRATE_DATABASE_", "REDIS_", "CELERY_")


def live_server_command() -> list[str] | None:
    """The ASGI server of the Procfile's ``live`` line (uvicorn), as ``python -m`` arguments without its address;
    None when the Procfile has none."""
    for line in (ROOT / "Procfile").read_text().splitlines():
        name, _, command = line.partition(":")
        if name.strip() == "live":
            # the shell's ${NAME:-default} as honcho's shell expands it (LIVE_WORKERS unset: one process)
            command = re.sub(
                r"\$\{(\w+):-([^}]*)\}", lambda m: os.environ.get(m.group(1)) or m.group(2), command
            )
            words = command.split()
            kept: list[str] = []
            skip = False
            for word in words:
                if skip:
                    skip = False
                elif word in ("--host", "--port"):
                    skip = True
                else:
                    kept.append(word)
            return kept
    return None


def provision(superuser_url: str) -> dict[str, str]:
    """The database and key variables of the programs, made the way ``make run`` makes them (devtools/devenv.py):
    the owner and application roles, and the development fairness keys (unless the environment sets keys)."""
    from devtools.devenv import database_roles, dev_keys

    env = dict(database_roles(superuser_url))
    env.pop("DATABASE_SUPERUSER_URL", None)  # the programs get the two roles' URLs only
    return {**dev_keys(), **env}


def signer_settings(env: dict[str, str]) -> dict[str, str]:
    """With a signer role provisioned, the signer signs (as `make run` runs it): the mode, the role's name for
    migrate, and the public keys the other processes verify with."""
    signer_url = env.get("SIGNER_DATABASE_URL", "")
    signing = env.get("CHECKPOINT_SIGNING_KEYS") or (
        Path(env["CHECKPOINT_SIGNING_KEY_FILE"]).read_text() if env.get("CHECKPOINT_SIGNING_KEY_FILE") else ""
    )
    if not signer_url or not signing:
        return {}
    from devtools.devkeys import public_key_lines

    return {
        "CHECKPOINT_SIGNER": "signer",
        "DATABASE_SIGNER_ROLE": urlsplit(signer_url).username or "",
        "CHECKPOINT_PUBLIC_KEYS": public_key_lines(signing),
    }


class Stack:
    """The private services and the processes of the casino, and how to break each of them."""

    def __init__(
        self, workdir: Path, workers: int, threads: int, database_url: str | None = None, pgdata: str | None = None
    ) -> None:
        self.workdir = workdir
        self.logdir = workdir / "logs"
        self.logdir.mkdir(parents=True, exist_ok=True)
        # private servers are a Patroni set (devtools/ha.py: a primary, a synchronous standby and a second standby,
        # each in its network namespace; the pg_failover and pg_partition faults), else one cluster (where the set
        # cannot run: ``ha_unavailable`` says why); a given server is alone
        self.ha_unavailable = "" if database_url else ha_missing()
        self.postgres: HaSet | Cluster | GivenPostgres
        if database_url:
            self.postgres = GivenPostgres(database_url, pgdata)
        elif not self.ha_unavailable:
            self.postgres = HaSet(workdir / "pg", members=3, archive=True)
        else:
            self.postgres = Cluster(workdir / "pg")
        self.redis = PrivateRedis(workdir / "redis")
        self.web_port = free_port()
        self.live_port = free_port() if live_server_command() else None
        # the buffering proxy (docker/nginx/, devtools/nginx.py) in front of both when nginx is installed: the bots
        # and the health monitor go through it, as clients do in production
        self.edge_port = free_port() if nginx_binary() else None
        self.workers = workers
        self.threads = threads
        self.database = "casino_soak" if database_url is None else f"casino_soak_{secrets.token_hex(4)}"
        self.env: dict[str, str] = {}
        self.processes: dict[str, Process] = {}
        self.restarting: set[str] = set()  # processes the injector is restarting (their death is expected)

    @property
    def admin_url(self) -> str:
        """The superuser's URL of the soak database (checks and the fault injector's backend killer)."""
        return self.postgres.url(self.database)

    def start_services(self) -> None:
        if isinstance(self.postgres, HaSet):
            count, bindir = self.postgres.count, self.postgres.bindir
            say(f"etcd + {count} PostgreSQL ({bindir}) under Patroni, each in a network namespace")
        elif isinstance(self.postgres, Cluster):
            say(f"initdb + PostgreSQL ({self.postgres.bindir}) on :{self.postgres.port} alone: {self.ha_unavailable}")
        else:
            restart = "restarted once" if self.postgres.restartable else "never restarted (no --pgdata)"
            say(f"the given PostgreSQL, database {self.database} (dropped afterwards); the server is {restart}")
        self.postgres.init()
        import psycopg

        with psycopg.connect(self.postgres.url().replace("postgres://", "postgresql://"), autocommit=True) as c:
            c.execute(f"CREATE DATABASE {self.database}")
        say(f"redis-server on 127.0.0.1:{self.redis.port}")
        self.redis.start()
        python_bin = str(Path(sys.executable).parent)
        self.env = {
            **{k: v for k, v in os.environ.items() if not k.startswith(PRIVATE_SERVICE_VARIABLES)},
            **provision(self.admin_url),
            "REDIS_URL": self.redis.url,
            "DJANGO_SETTINGS_MODULE": "casino.settings",
            "DEBUG": "0",
            "SECURE_SSL_REDIRECT": "0",  # plain HTTP on 127.0.0.1 (production is HTTPS only)
            "SECRET_KEY": secrets.token_urlsafe(40),
            "ALLOWED_HOSTS": "127.0.0.1,localhost",
            "LOG_LEVEL": "WARNING",
            "LOG_CELERY_TASK_LINES": "1",  # Celery's own lines: the soak reads when a worker or beat is up
            "TABLE_TIMERS": "1",
            "TABLE_TIMER_QUEUE": "celery",
            "TIMEOUT_SWEEP_INTERVAL_S": str(SWEEP_INTERVAL_S),
            "TIMEOUT_SWEEP_GRACE_S": str(SWEEP_GRACE_S),
            # the bots log in together from one address: the per-IP limits of register/token are not under test
            "THROTTLE_AUTH_BURST": "off",
            "THROTTLE_AUTH_SUSTAINED": "off",
            "LOGIN_FAILURE_LIMIT": "1000",
            "LOGIN_ACCOUNT_FAILURE_LIMIT": "100000",
            "TRUSTED_PROXIES": "127.0.0.1",  # nginx's X-Real-IP (kit/proxy.py)
            # the soak's tables (every preset, both banks, 1:10) stress the stack, not the table card's worth: the
            # RTP guard is open here (it is tested over HTTP in tests/tables/api/test_api_rtp.py)
            "MIN_RTP": "0",
            "MAX_RTP": "1000",
            "PYTHONPATH": str(ROOT),
            "PATH": f"{python_bin}{os.pathsep}{os.environ.get('PATH', '')}",
        }
        self.env.update(signer_settings(self.env))

    def migrate(self) -> None:
        code = subprocess.run(
            [sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=ROOT, env=self.env, check=False
        ).returncode
        if code:
            raise RuntimeError(f"migrate failed ({code})")

    def define_processes(self) -> None:
        py = sys.executable
        # credentials per process (docs/security.md): the owner's URL is migrate's alone; the signing keys and the
        # signer's role are the signer's (when devenv provisions one); beat deals no card
        signing = {k: v for k, v in self.env.items() if k.startswith("CHECKPOINT_SIGNING_")}
        signer_url = self.env.get("SIGNER_DATABASE_URL", "")
        served = {k: v for k, v in self.env.items() if k not in ("MIGRATE_DATABASE_URL", "SIGNER_DATABASE_URL")}
        if signer_url:
            served = {k: v for k, v in served.items() if k not in signing}
        keyless = {k: v for k, v in served.items() if not k.startswith(("SEED_SEALING_", "CHECKPOINT_SIGNING_"))}
        self.processes = {
            "web": Process(
                "web",
                [py, "-m", "gunicorn", "casino.wsgi:application", "--bind", f"127.0.0.1:{self.web_port}",
                 "--workers", str(self.workers), "--worker-class", "gthread", "--threads", str(self.threads),
                 "--timeout", "60", "--graceful-timeout", "5", "--keep-alive", "30"],
                served, self.logdir,
            ),
            "worker": Process(
                "worker",
                [py, "-m", "celery", "-A", "casino", "worker", "--concurrency=2", "--loglevel=INFO",
                 "--without-gossip", "--without-mingle", "--without-heartbeat", "-n", "soak@%h"],
                served, self.logdir,
            ),
            "beat": Process(
                "beat",
                [py, "-m", "celery", "-A", "casino", "beat", "--loglevel=INFO", "--max-interval", "1",
                 "--schedule", str(self.workdir / "celerybeat-schedule")],
                keyless, self.logdir,
            ),
        }  # fmt: skip
        if signer_url:
            self.processes["signer"] = Process(
                "signer",
                [py, "-m", "celery", "-A", "casino", "worker", "-Q", "signer", "--concurrency=1", "--loglevel=INFO",
                 "--without-gossip", "--without-mingle", "--without-heartbeat", "-n", "soak-signer@%h"],
                {**served, **signing, "DATABASE_URL": signer_url}, self.logdir,  # (sealing: it opens what it replays)
            )  # fmt: skip
        live = live_server_command()
        if live is not None and self.live_port is not None:
            argv = [py, "-m", *live, "--host", "127.0.0.1", "--port", str(self.live_port)]
            self.processes["live"] = Process("live", argv, served, self.logdir)
        binary = nginx_binary()
        if binary is not None and self.edge_port is not None:
            prefix = self.workdir / "nginx"
            prefix.mkdir(parents=True, exist_ok=True)
            conf = prefix / "nginx.conf"
            live_address = f"127.0.0.1:{self.live_port or self.web_port}"
            conf.write_text(
                nginx_configuration(prefix, port=self.edge_port, web=f"127.0.0.1:{self.web_port}", live=live_address)
            )
            argv = [binary, "-p", str(prefix), "-c", str(conf), "-g", "daemon off;"]
            self.processes["edge"] = Process("edge", argv, keyless, self.logdir)

    @property
    def client_port(self) -> int:
        """Where clients send REST requests: the proxy when there is one, else gunicorn."""
        return self.edge_port if self.edge_port is not None else self.web_port

    @property
    def client_live_port(self) -> int | None:
        """Where clients long-poll: the proxy when there is one (it routes to the live server), else uvicorn."""
        return self.edge_port if self.edge_port is not None else self.live_port

    def start_all(self) -> None:
        for process in self.processes.values():
            process.start()
        if not wait_until(self.healthy, 90, 0.3):
            raise RuntimeError(f"the web server did not become healthy (see {self.logdir})")
        for name in ("worker", "beat", "live", "signer"):
            if name in self.processes and not self.wait_ready(name, 90):
                raise RuntimeError(f"{name} did not start (see {self.logdir})")

    def healthy(self) -> bool:
        conn = http.client.HTTPConnection("127.0.0.1", self.client_port, timeout=5)
        try:
            conn.request("GET", "/healthz")
            return conn.getresponse().status == 200
        finally:
            conn.close()

    def wait_ready(self, name: str, timeout: float) -> bool:
        process = self.processes[name]
        if name == "edge":  # nginx says nothing when it is up: the chain through it answers
            return wait_until(lambda: process.alive() and self.healthy(), timeout, 0.1)
        marker = {"worker": "ready.", "signer": "ready.", "beat": "Starting...", "live": "Uvicorn running on"}[name]
        return wait_until(lambda: process.alive() and marker in process.log_since_start(), timeout, 0.1)

    def web_worker_pids(self) -> list[int]:
        import psutil

        web = self.processes["web"].proc
        if web is None:
            return []
        with contextlib.suppress(psutil.NoSuchProcess):
            return [p.pid for p in psutil.Process(web.pid).children()]
        return []

    def app_backends(self) -> list[int]:
        """Backend pids of the app's connections to the soak database (not this process's own)."""
        import psycopg

        with psycopg.connect(self.admin_url.replace("postgres://", "postgresql://"), autocommit=True) as c:
            rows = c.execute(
                "SELECT pid FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid() "
                "AND backend_type = 'client backend'",
                [self.database],
            ).fetchall()
        return [int(r[0]) for r in rows]

    def terminate_backends(self, pids: list[int]) -> int:
        import psycopg

        with psycopg.connect(self.admin_url.replace("postgres://", "postgresql://"), autocommit=True) as c:
            return sum(bool(c.execute("SELECT pg_terminate_backend(%s)", [pid]).fetchone()[0]) for pid in pids)

    def shutdown(self) -> None:
        self.restarting.update(self.processes)  # (a run that failed early has its supervisor still watching)
        for name in ("edge", "beat", "signer", "worker", "live", "web"):
            process = self.processes.get(name)
            if process is not None and process.alive():
                process.stop()
        self.redis.kill()
        if isinstance(self.postgres, HaSet):
            self.postgres.shutdown()
        elif isinstance(self.postgres, Cluster):
            self.postgres.stop("immediate")
        else:
            import psycopg

            with psycopg.connect(self.postgres.url().replace("postgres://", "postgresql://"), autocommit=True) as c:
                c.execute(f"DROP DATABASE IF EXISTS {self.database} WITH (FORCE)")

