"""After a command commits: tell every process that follows the table "look again".

:func:`publish` runs after commit (``tables.after_commit``) in whatever process ran the command (web, Celery
worker). In one Redis round trip it records the table's latest version under a key and publishes a
``table.changed`` message to the table's group of the Channels layer (``channels_redis``' pub/sub layer, see
``CHANNEL_LAYERS``). The ASGI processes (``tables.live``) hold one layer channel each, joined to the groups of
the tables their sockets and long-polls watch.

Redis only ever says "look again": a woken reader re-reads the database, which is the truth (a lost or
duplicated message delays or repeats a read, never changes an answer). So a publish that fails on its
connection is sent once more at once, on a new connection: at worst a follower hears a version twice.

The message is published with the layer's own serializer on the layer's group channel name
(``<prefix>__group__<group>``, what ``group_send`` uses): ``group_send`` itself is async and would need an event
loop and a connection of its own for each commit. ``tests/live/test_live_notify.py`` pins this to the layer.

The client (issue #45): one per process, made under a lock, on a connection pool it does not own. It used to be a
``functools.cache`` of ``redis.Redis.from_url``: two threads of a fresh gunicorn worker publishing at once both
made a client, the second replaced the first in the cache, and when the first was dropped its ``__del__`` closed
its pool (``from_url`` clients own theirs), connections in use by another thread's publish included: that
publish failed with ``ValueError: I/O operation on closed file`` and its notification was lost.
"""

from __future__ import annotations

import logging
import os
import threading
import time

import redis
from channels.layers import get_channel_layer
from django.conf import settings

LATEST_KEY_TTL_S = 24 * 3600
MESSAGE_TYPE = "table.changed"

log = logging.getLogger(__name__)

_client: tuple[int, redis.Redis] | None = None  # (the process id it was made in, the client)
_client_lock = threading.Lock()


def client() -> redis.Redis:
    """This process's client (a forked child makes its own: the parent's sockets are not the child's)."""
    global _client
    made = _client
    if made is not None and made[0] == os.getpid():
        return made[1]
    with _client_lock:
        if _client is None or _client[0] != os.getpid():
            pool = redis.ConnectionPool.from_url(settings.REDIS_URL, socket_connect_timeout=2, socket_timeout=5)
            _client = (os.getpid(), redis.Redis(connection_pool=pool))  # never closes the pool it was given
        return _client[1]


def group(table_id: int) -> str:
    """The Channels group of a table's followers."""
    return f"table.{table_id}"


def group_channel(table_id: int) -> str:
    """The Redis pub/sub channel of the table's group (as ``channels_redis.pubsub`` names it)."""
    prefix = settings.CHANNEL_LAYERS["default"]["CONFIG"]["prefix"]
    return f"{prefix}__group__{group(table_id)}"


def latest_key(table_id: int) -> str:
    return f"{settings.REDIS_KEY_PREFIX}casino:table:{table_id}:latest"


def message(table_id: int, version: int, at: float | None = None) -> dict[str, object]:
    """``at``: the commit's wall-clock time (Unix seconds), for whoever times delivery (bench/live.py)."""
    return {"type": MESSAGE_TYPE, "table": table_id, "version": version, "at": time.time() if at is None else at}


def publish(table_id: int, version: int) -> None:
    """Tell every follower of ``table_id`` that version ``version`` is committed (one round trip). A failure on
    the connection (closed under the publish, reset, timed out) is retried once at once on a new connection;
    a second failure raises."""
    layer = get_channel_layer()
    payload = layer.serialize(message(table_id, version))  # type: ignore[union-attr]
    try:
        _send(table_id, version, payload)
    except (redis.RedisError, OSError, ValueError, AttributeError):
        # ValueError / AttributeError: redis-py's reader found its buffer closed (or gone) under it
        log.warning("notifying table %s failed on its connection; sending again", table_id, exc_info=True)
        client().connection_pool.disconnect(inuse_connections=False)  # what is left idle may be as broken
        _send(table_id, version, payload)


def _send(table_id: int, version: int, payload: bytes) -> None:
    pipe = client().pipeline(transaction=False)
    pipe.set(latest_key(table_id), version, ex=LATEST_KEY_TTL_S)
    pipe.publish(group_channel(table_id), payload)
    pipe.execute()
