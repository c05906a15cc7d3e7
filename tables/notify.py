"""Wake-ups for long-polling readers of a table's events: a Redis key per table holding its latest version,
plus a pub/sub message on each change (readers re-check the database; Redis only says "look again")."""

from __future__ import annotations

import functools

import redis
from django.conf import settings


@functools.cache
def client() -> redis.Redis:
    return redis.Redis.from_url(settings.REDIS_URL, socket_connect_timeout=2, socket_timeout=5)


def channel(table_id: int) -> str:
    return f"casino:table:{table_id}:events"


def publish(table_id: int, version: int) -> None:
    """Tell every waiting reader of ``table_id`` that version ``version`` is committed."""
    client().publish(channel(table_id), str(version))
