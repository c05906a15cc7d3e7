"""What watches the stack during the run: /healthz asked four times a second, and a watchdog that checks
every passed deadline fires in time and restarts a process that exited by itself (as a supervisor would)."""

from __future__ import annotations

import contextlib
import threading
import time

from soak.client import Client
from soak.log import say
from soak.record import Record
from soak.services import Process
from soak.stack import Stack
from soak.timing import SLACK_S, SWEEP_GRACE_S, SWEEP_INTERVAL_S, wait_until


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

