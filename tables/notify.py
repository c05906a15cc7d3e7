"""After a command commits: tell every process that follows the table "look again".

:func:`publish` runs after commit (``tables.after_commit``) in whatever process ran the command (web, Celery
worker). In one Redis round trip it records the table's latest version under a key and publishes a
``table.changed`` message to the table's group of the Channels layer (``channels_redis``' pub/sub layer, see
``CHANNEL_LAYERS``). The ASGI processes (``tables.live``) hold one layer channel each, joined to the groups of
the tables their sockets and long-polls watch.

Redis only ever says "look again": a woken reader re-reads the database, which is the truth (a lost or
duplicated message delays or repeats a read, never changes an answer).

The message is published with the layer's own serializer on the layer's group channel name
(``<prefix>__group__<group>``, what ``group_send`` uses): ``group_send`` itself is async and would need an event
loop and a connection of its own for each commit. ``tests/live/test_live_notify.py`` pins this to the layer.
"""

from __future__ import annotations

import functools

import redis
from channels.layers import get_channel_layer
from django.conf import settings

LATEST_KEY_TTL_S = 24 * 3600
MESSAGE_TYPE = "table.changed"


@functools.cache
def client() -> redis.Redis:
    return redis.Redis.from_url(settings.REDIS_URL, socket_connect_timeout=2, socket_timeout=5)


def group(table_id: int) -> str:
    """The Channels group of a table's followers."""
    return f"table.{table_id}"


def group_channel(table_id: int) -> str:
    """The Redis pub/sub channel of the table's group (as ``channels_redis.pubsub`` names it)."""
    prefix = settings.CHANNEL_LAYERS["default"]["CONFIG"]["prefix"]
    return f"{prefix}__group__{group(table_id)}"


def latest_key(table_id: int) -> str:
    return f"{settings.REDIS_KEY_PREFIX}casino:table:{table_id}:latest"


def message(table_id: int, version: int) -> dict[str, object]:
    return {"type": MESSAGE_TYPE, "table": table_id, "version": version}


def publish(table_id: int, version: int) -> None:
    """Tell every follower of ``table_id`` that version ``version`` is committed (one round trip)."""
    layer = get_channel_layer()
    payload = layer.serialize(message(table_id, version))  # type: ignore[union-attr]
    pipe = client().pipeline(transaction=False)
    pipe.set(latest_key(table_id), version, ex=LATEST_KEY_TTL_S)
    pipe.publish(group_channel(table_id), payload)
    pipe.execute()
