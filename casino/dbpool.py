"""psycopg's connection pool, made to give up on an unreachable server quickly (docs/reliability.md, "Failover").

Left to its defaults the pool, when connecting fails, tries again after 1, 2, 4, 8 ... seconds for five minutes,
while every request waits for a connection its whole ``DB_POOL_TIMEOUT`` (10 s). During an outage every thread of
a web process then sits out those 10 s (and a health probe queues behind them), and after it the pool's next
attempt may come seconds after the server (or the promoted standby) is back. So:

- ``reconnect_timeout`` is short (``DB_POOL_RECONNECT_TIMEOUT_S``, 2 s): an attempt that keeps failing is given
  up after about 2 s, and the next request that wants a connection starts a fresh one at once; the pool never
  sleeps through the server's return;
- when it gives up (:func:`fail_waiting`, the pool's ``reconnect_failed``), every request waiting for a
  connection is answered at once with the pool's own ``PoolTimeout`` (a lost database connection: 503 with
  ``Retry-After``, kit/error_views.py) instead of waiting out its timeout; threads come free, probes are answered.

A borrowed connection is checked without a round trip (:func:`check_borrowed`): an idle connection has nothing to
read, so a socket with something to read (the server's "terminating connection" and its close) or a connection
libpq already knows is broken is checked the slow way, with psycopg's empty query, and replaced if it fails.
"""

from __future__ import annotations

import logging
import os
import select
from typing import Any

from psycopg import Connection, pq
from psycopg_pool import ConnectionPool, PoolTimeout

log = logging.getLogger(__name__)


def pool_options() -> dict[str, Any]:
    """The ``OPTIONS["pool"]`` of the default database (psycopg_pool.ConnectionPool's keywords)."""
    return {
        "min_size": int(os.environ.get("DB_POOL_MIN") or 1),
        "max_size": int(os.environ.get("DB_POOL_MAX") or 8),
        "timeout": float(os.environ.get("DB_POOL_TIMEOUT") or 10),
        "reconnect_timeout": float(os.environ.get("DB_POOL_RECONNECT_TIMEOUT_S") or 2),
        "reconnect_failed": fail_waiting,
    }


def check_borrowed(conn: Connection[Any]) -> None:
    """The pool's ``check`` of a connection it lends (Django's ``CONN_HEALTH_CHECKS``): raise if it is unusable.

    psycopg's own check (``ConnectionPool.check_connection``) sends an empty query: one round trip before every
    request's first statement. A connection sitting idle in the pool expects nothing from the server, so it is
    only checked that way when libpq already marks it broken or its socket has something to read: a server that
    terminates a backend (a restart, ``pg_terminate_backend``, a failover) sends an error and closes the socket,
    both of which make it readable at once. (A server that vanished without a word is not seen by the empty
    query either: it would wait for TCP.) Anything else readable (a notice, a parameter change) just costs the
    round trip. ``tests/casino/test_dbpool.py`` terminates a pooled connection's backend and borrows again.
    """
    if conn.closed or conn.pgconn.status != pq.ConnStatus.OK or _readable(conn.pgconn.socket):
        ConnectionPool.check_connection(conn)


def _readable(fd: int) -> bool:
    poller = select.poll()
    poller.register(fd, select.POLLIN | select.POLLPRI)
    return bool(poller.poll(0))


def fail_waiting(pool: ConnectionPool[Any]) -> None:
    """The pool could not connect for ``reconnect_timeout``: answer every request waiting for a connection now.

    (psycopg_pool 3.3 keeps its queue of waiting clients in ``_waiting``, under ``_lock``; each has ``fail``.)
    """
    with pool._lock:
        waiting = list(pool._waiting)
        pool._waiting.clear()
    failed = sum(client.fail(PoolTimeout(f"the database of pool {pool.name!r} is unreachable")) for client in waiting)
    if failed:
        log.warning("database unreachable: %d requests waiting for a connection answered at once", failed)
