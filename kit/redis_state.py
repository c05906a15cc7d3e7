"""Everything the casino keeps in Redis, and what losing each of it costs (docs/reliability.md, "Redis").

PostgreSQL is the truth; Redis holds only what may vanish: a Redis restarted empty, or replaced by another one
at the same address, is the whole of a Redis failover here (the soak's ``redis_restart`` fault). Sentinel would
keep a replica's copy of these keys across a failover, and nothing below needs one: each family is rebuilt,
re-sent or simply not needed once the service is back. The soak lists every key of its Redis at the end of the
run and fails on one that is of no family here (a new kind of state must say what its loss costs).

Keys carry ``REDIS_KEY_PREFIX`` first; the patterns here match what follows it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Family:
    name: str
    pattern: str  # a regular expression for the key after REDIS_KEY_PREFIX
    holds: str
    if_lost: str


FAMILIES: tuple[Family, ...] = (
    Family(
        "timer and task messages",
        r"(celery|signer|lab)(\.\d+)?(\x06\x16\d)?|unacked(_index|_mutex)?|_kombu\.binding.*|.*\.reply\.celery\.pidbox",
        "Celery's queues on the broker (the timers' by table shard): each wait's timeout message (ETA), the signer's "
        "and the lab's tasks, the messages a worker holds unacknowledged",
        "beat's sweeper fires every passed deadline from the tables' own rows within TIMEOUT_SWEEP_INTERVAL_S + "
        "TIMEOUT_SWEEP_GRACE_S; the signer's sweep finds every unsigned hand end; the lab asks again after "
        "HOUSE_EDGE_RETRY_S; beat sends its periodic tasks again",
    ),
    Family(
        "task results",
        r"celery-task-meta-.*",
        "Celery's result backend (every task of ours ignores its result: nothing is written)",
        "nothing reads them",
    ),
    Family(
        "latest table versions",
        r"casino:table:\d+:latest",
        "each table's latest version, written after commit, for live sockets to notice a lost wake-up",
        "a socket or long-poll that missed a wake-up while Redis was down hears of the table's next event (an "
        "action, or the timer of its deadline), or of the version its live process reads back every "
        "`LIVE_RECHECK_S` once the key is written again, and is sent everything after its cursor; a long-poll "
        "re-reads when its wait ends",
    ),
    Family(
        "open waits",
        r"casino:live:waits:\d+",
        "each user's open long-polls and sockets (the LIVE_MAX_OPEN_WAITS cap)",
        "the count starts again from zero: a user may open up to the cap again; open sockets refresh their slot",
    ),
    Family(
        "heartbeats",
        r"casino:alive:.*",
        "when each worker, beat and signer process last said it was alive (/readyz)",
        "/readyz says 503 until each process beats again (every HEARTBEAT_INTERVAL_S)",
    ),
    Family(
        "throttle counters",
        r":\d+:throttle.*",
        "the API's request counts per user and per address over the current window (Django's cache)",
        "the windows start again: a client gets at most one more burst; while Redis is down throttling lets "
        "requests through",
    ),
    Family(
        "table worth",
        r":\d+:rtp:exact:[0-9a-f]{64}",
        "each house-banked table card's exact return to player (tables/worth.py), keyed by its rules, limits and the "
        "engine's code (Django's cache)",
        "the next view of such a table prices it again with the exact engine (milliseconds to seconds a rule set)",
    ),
)

_COMPILED = [(family, re.compile(family.pattern)) for family in FAMILIES]


def family_of(key: str, prefix: str = "") -> Family | None:
    """The family of ``key`` (with the casino's ``prefix``), or None for a key of no known family."""
    if not key.startswith(prefix):
        return None
    rest = key[len(prefix) :]
    return next((family for family, pattern in _COMPILED if pattern.fullmatch(rest)), None)
