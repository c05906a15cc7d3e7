"""The soak's clock: the timer settings it gives the casino, the slack it allows a loaded machine, and
waiting for a condition."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable

# the casino's timers as the soak configures them (short, so that many deadlines pass in a run)
TURN_TIMEOUT_S = 3
SWEEP_INTERVAL_S = 2.0
SWEEP_GRACE_S = 1.0
# How long after a service is back a 503 (or a late timer) is still counted as the outage's: connections in
# pools notice the restart on first use, and the machine's two cores are shared with other work (the short soak
# runs beside three other test workers: a timer 8.2 s late against 8 s allowed was seen once, 2026-12-05).
# Since issue #47 a database fault is Patroni's failover or a partition: after the primary is back, a waiting table
# was seen moving on up to 11.4 s later (against 11 s allowed) in the CI-style runs of 2026-12-05.
SLACK_S = 10.0


def wait_until(predicate: Callable[[], object], timeout: float, interval: float = 0.1) -> bool:
    """Ask ``predicate`` every ``interval`` s (an exception counts as no) until it holds: whether it did within
    ``timeout`` s."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with contextlib.suppress(Exception):
            if predicate():
                return True
        time.sleep(interval)
    return False

