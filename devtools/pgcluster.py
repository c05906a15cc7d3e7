"""One throwaway PostgreSQL cluster of our own on this machine (the soak's private server where the Patroni set
cannot run, the restore drill's scratch cluster: devtools/ha.py, the tests of an outage), never the machine's
shared server.

``initdb`` (Debian's PostgreSQL 15, else pgserver's binaries) into a directory given by the caller, listening on a
free port of 127.0.0.1, trust authentication, run as the ``postgres`` OS user when we are root (PostgreSQL refuses
root); fast and disposable (``fsync`` off). A cluster can be killed, hung and resumed the way a dead or frozen
machine would be, and made a standby of another (``standby.signal``).
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
from pathlib import Path
from typing import Any


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def postgres_bindir() -> Path:
    """The PostgreSQL server binaries: the distribution's 15, else the ones pgserver ships."""
    system = Path("/usr/lib/postgresql/15/bin")
    if (system / "initdb").exists():
        return system
    from pgserver._commands import POSTGRES_BIN_PATH  # type: ignore[import-untyped]

    return Path(POSTGRES_BIN_PATH)


def libpq(url: str) -> str:
    return url.replace("postgres://", "postgresql://", 1) if url.startswith("postgres://") else url


# Settings of every cluster here: fast and disposable (fsync off survives kill -9 of PostgreSQL, not of the OS)
BASE_CONF = "max_connections = 200\nshared_buffers = 64MB\nfsync = off\nfull_page_writes = off\n"


class Cluster:
    """A throwaway cluster (``initdb``) in ``directory``, listening on 127.0.0.1:<free port>; trust auth."""

    restartable = True

    def __init__(self, directory: Path, name: str = "pg") -> None:
        self.bindir = postgres_bindir()
        self.name = name
        self.directory = directory
        self.data = directory / "data"
        self.port = free_port()
        self.log = directory / "postgres.log"
        # initdb refuses to run as root: run the server as the distribution's postgres user then
        self.user: str | None = None
        directory.mkdir(parents=True, exist_ok=True)
        if os.geteuid() == 0:
            import pwd

            self.user = "postgres"
            entry = pwd.getpwnam(self.user)
            os.chown(directory, entry.pw_uid, entry.pw_gid)

    def url(self, database: str = "postgres") -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/{database}"

    def run(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        """Run one of the server's programs (``initdb``, ``pg_ctl``, ``pg_basebackup``, ``pg_rewind``) as the
        cluster's OS user, in its directory; ``check``: a failure raises."""
        return subprocess.run(
            [str(self.bindir / args[0]), *args[1:]],
            user=self.user,
            cwd=self.directory,
            capture_output=True,
            text=True,
            check=check,
            timeout=120,
        )

    def configure(self, settings: str) -> None:
        """Append to postgresql.conf (later lines win)."""
        with (self.data / "postgresql.conf").open("a") as conf:
            conf.write("\n" + settings)

    def own_settings(self) -> str:
        """This cluster's own lines of postgresql.conf: its address, port, socket directory and name (a copy of
        another cluster's data directory must get them anew)."""
        return (
            f"listen_addresses = '127.0.0.1'\nport = {self.port}\nunix_socket_directories = '{self.directory}'\n"
            f"cluster_name = '{self.name}'\n"
        )

    def init(self, extra: str = "") -> None:
        """initdb, configure and start."""
        self.run("initdb", "-D", str(self.data), "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync")
        self.configure(self.own_settings() + BASE_CONF + extra)
        self.start()

    def start(self) -> None:
        self.run("pg_ctl", "-D", str(self.data), "-l", str(self.log), "-w", "-t", "60", "start")

    def stop(self, mode: str = "fast") -> None:
        self.run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "-t", "60", "stop", check=False)

    def running(self) -> bool:
        return self.run("pg_ctl", "-D", str(self.data), "status", check=False).returncode == 0

    def postmaster_pid(self) -> int | None:
        with contextlib.suppress(OSError, ValueError, IndexError):
            return int((self.data / "postmaster.pid").read_text().split()[0])
        return None

    def signal_all(self, sig: int) -> None:
        """Send ``sig`` to the postmaster and every process of the cluster, all stopped first (so none notices
        the others dying and cleans up)."""
        import psutil

        pid = self.postmaster_pid()
        if pid is None:
            return
        with contextlib.suppress(psutil.NoSuchProcess):
            postmaster = psutil.Process(pid)
            family = [postmaster, *postmaster.children(recursive=True)]
            for process in family if sig != signal.SIGCONT else ():
                with contextlib.suppress(psutil.NoSuchProcess):
                    process.send_signal(signal.SIGSTOP)
            for process in family if sig != signal.SIGSTOP else ():
                with contextlib.suppress(psutil.NoSuchProcess):
                    process.send_signal(sig)
            if sig == signal.SIGKILL:
                psutil.wait_procs(family, timeout=10)

    def kill(self) -> None:
        """``kill -9`` every process of the cluster at once: what a dead machine does (no shutdown checkpoint, no
        goodbye to clients or to the standby)."""
        self.signal_all(signal.SIGKILL)

    def hang(self) -> None:
        """Stop (SIGSTOP) every process of the cluster: a hung server. The kernel still accepts connections and
        acknowledges data; nothing answers."""
        self.signal_all(signal.SIGSTOP)

    def resume(self) -> None:
        self.signal_all(signal.SIGCONT)

    def query(self, sql: str, database: str = "postgres") -> list[tuple[Any, ...]]:
        import psycopg

        with psycopg.connect(libpq(self.url(database)), autocommit=True, connect_timeout=5) as conn:
            cursor = conn.execute(sql)
            return list(cursor.fetchall()) if cursor.description else []

    def in_recovery(self) -> bool:
        return bool(self.query("SELECT pg_is_in_recovery()")[0][0])

    def follow(self, upstream: Cluster) -> None:
        """Make this data directory a standby of ``upstream`` the next time it starts (``standby.signal``)."""
        conninfo = f"host=127.0.0.1 port={upstream.port} user=postgres application_name={self.name}"
        self.configure(
            f"primary_conninfo = '{conninfo}'\nsynchronous_standby_names = ''\nwal_retrieve_retry_interval = 1s\n"
        )
        signal_file = self.data / "standby.signal"
        signal_file.touch()
        if self.user is not None:
            import pwd

            entry = pwd.getpwnam(self.user)
            os.chown(signal_file, entry.pw_uid, entry.pw_gid)
