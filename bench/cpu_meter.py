"""Where the machine's CPU goes during a bench's measurement (from /proc): the server's processes, the bench
database's PostgreSQL backends, and the load generator itself.
"""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Iterable
from urllib.parse import urlsplit

TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def cpu_of(pids: Iterable[int]) -> float:
    """CPU seconds (user + system) the processes ``pids`` have used so far (0 for one that is gone)."""
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])  # utime, stime (fields 14 and 15 of proc(5))
    return total / TICKS


class CpuMeter:
    """Where the machine's CPU goes during a measurement: the gunicorn workers, the bench database's PostgreSQL
    backends, and this process (the load generator), in CPU milliseconds per request."""

    def __init__(self, server_pid: int, database_url: str) -> None:
        import psycopg

        self.server_pid = server_pid
        self.database = urlsplit(database_url).path.lstrip("/")
        self.conn = psycopg.connect(database_url.replace("postgres://", "postgresql://", 1), autocommit=True)

    def _parts(self) -> dict[str, float]:
        children = subprocess.run(
            ["pgrep", "-P", str(self.server_pid)], capture_output=True, text=True, check=False
        ).stdout.split()
        backends = [
            row[0]
            for row in self.conn.execute(
                "SELECT pid FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()", [self.database]
            ).fetchall()
        ]
        return {
            "gunicorn": cpu_of([self.server_pid, *map(int, children)]),
            "postgres": cpu_of(backends),
            "client": time.process_time(),
        }

    def start(self) -> None:
        self.before = self._parts()

    def stop(self, requests: int) -> dict[str, float]:
        after = self._parts()
        return {name: (after[name] - self.before[name]) * 1000 / max(requests, 1) for name in after}
