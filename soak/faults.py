"""The fault injector: each kind of fault, injected on a seeded schedule while the bots play."""

from __future__ import annotations

import os
import random
import signal
import threading
import time
from collections.abc import Callable

from devtools.ha import HaSet
from soak.bots import Bot
from soak.log import say
from soak.record import Fault, Record, Window
from soak.stack import Stack
from soak.timing import wait_until

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
# once per run too, on the Patroni set (devtools/ha.py): the primary's machine dies, or is cut off the network
PG_FAILOVER = "pg_failover"
PG_PARTITION = "pg_partition"
ONCE_PER_RUN = (PG_RESTART, PG_FAILOVER, PG_PARTITION)
FAILOVER_KINDS = (PG_FAILOVER, PG_PARTITION)


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
        if kind in FAILOVER_KINDS:
            return isinstance(self.stack.postgres, HaSet)
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
        postgres = self.stack.postgres
        if isinstance(postgres, HaSet):
            self._pg_crash(fault, postgres)
            return
        fault.detail = "PostgreSQL immediate shutdown (a crash), started again (recovery)"
        with self.database_lock:
            self._service_outage(fault, "database", lambda: postgres.stop("immediate"), postgres.start, 2 + 2 * u, 120)

    def _pg_crash(self, fault: Fault, ha: HaSet) -> None:
        """kill -9 the primary's postmaster and backends; its Patroni, alive, starts it again in place."""
        with self.database_lock:
            self._wait_whole(ha)
            window = self.record.open_window("database", fault.kind)
            fault.at = time.monotonic()  # (the lock may have kept it waiting behind another database fault)
            name = ha.kill_postmaster()
            window.down_from = time.monotonic()
            window.down_to = self._wait_writes(ha)
            fault.down_s = window.down_to - fault.at
            self._database_back(fault, window)
        fault.detail = f"kill -9 the primary's postmaster ({name}); Patroni starts it again (crash recovery)"

    def _wait_whole(self, ha: HaSet) -> None:
        """Wait until the set is whole (a synchronous standby streaming): the next database fault may then be a
        dead primary. Right after a primary's restart its standbys reconnect, and until one is synchronous again
        Patroni may promote none of them (docs/reliability.md, "Failover")."""
        if not wait_until(ha.whole, 90, 0.2):
            self.record.violation(f"the Patroni set is not whole: {ha.cluster()}")

    def _wait_writes(self, ha: HaSet) -> float:
        """Wait until the set commits again: the start of the last attempt that failed (surely down until then:
        the server comes back once)."""
        down_to = time.monotonic()
        deadline = down_to + 120
        while time.monotonic() < deadline:
            asked = time.monotonic()
            if ha.accepts_writes():
                return down_to
            down_to = asked
            time.sleep(0.1)
        raise RuntimeError("the database did not come back")

    def _database_back(self, fault: Fault, window: Window) -> None:
        fault.back = time.monotonic()
        wait_until(self.stack.healthy, 60, 0.1)
        window.end = time.monotonic()
        fault.ready_s = window.end - fault.back
        self.record.timers_up_since = max(self.record.timers_up_since, window.end)

    def pg_failover(self, fault: Fault, u: float) -> None:
        """kill -9 every process of the primary's machine (Patroni and PostgreSQL): its leader key expires and
        Patroni promotes the synchronous standby. The machine comes back 1-3 s later: its Patroni starts it again
        as a standby of the new primary. HAProxy sends the clients to the new primary by itself."""
        ha = self.stack.postgres
        assert isinstance(ha, HaSet)
        with self.database_lock:
            self._wait_whole(ha)
            window = self.record.open_window("database", fault.kind)
            fault.at = time.monotonic()  # (the lock may have kept it waiting behind another database fault)
            old = ha.kill_primary()
            window.down_from = time.monotonic()
            try:
                new, window.down_to = ha.wait_new_primary(old)
                fault.down_s = time.monotonic() - fault.at
                self._database_back(fault, window)
                time.sleep(1 + 2 * u)
            finally:
                ha.restart_member(old)  # (also when no standby was promoted: the machine's return ends the outage)
            whole = wait_until(ha.whole, 90, 0.2)
        fault.detail = f"kill -9 the primary's machine ({old}): Patroni promoted {new}; {old} back as a standby"
        if not whole:
            self.record.violation(f"after {fault.kind}, {old} did not rejoin as a standby")

    def pg_partition(self, fault: Fault, u: float) -> None:
        """Cut the primary's links while it runs: its Patroni, unable to renew the leader key, demotes it; the key
        expires and the synchronous standby is promoted. While still cut off, the old primary must be read-only.
        The links come back 1-3 s after the new primary serves; the old one rejoins as a standby (pg_rewind)."""
        ha = self.stack.postgres
        assert isinstance(ha, HaSet)
        with self.database_lock:
            self._wait_whole(ha)
            window = self.record.open_window("database", fault.kind)
            fault.at = time.monotonic()  # (the lock may have kept it waiting behind another database fault)
            old = ha.partition_primary()
            window.down_from = time.monotonic()
            try:
                new, window.down_to = ha.wait_new_primary(old)
                fault.down_s = time.monotonic() - fault.at
                self._database_back(fault, window)
                if not wait_until(lambda: ha.members[old].in_recovery(), 30, 0.2):
                    self.record.violation(f"the partitioned old primary ({old}) still accepts writes")
                time.sleep(1 + 2 * u)
            finally:
                ha.heal(old)
            whole = wait_until(ha.whole, 90, 0.2)
        fault.detail = f"partition the primary ({old}): Patroni demoted it and promoted {new}; healed, it rejoined"
        if not whole:
            self.record.violation(f"after {fault.kind}, {old} did not rejoin as a standby")

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

