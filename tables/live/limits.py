"""The per-user cap on open waits (long-polls plus sockets), counted in Redis across processes.

A user's open waits are the members of a sorted set ``casino:live:waits:<user id>``, each scored with the
Redis time at which it expires. Taking a slot first drops the expired members, then adds one only if fewer than
``LIVE_MAX_OPEN_WAITS`` remain (one Lua script: atomic across processes). A long-poll's slot expires a little
after its wait; a socket's slot lives ``LIVE_SLOT_TTL_S`` and is refreshed while the socket is open (all the
sockets of a process together, :class:`Keeper`). A process
killed with waits open therefore leaks their slots for at most that long.

If Redis does not answer, a wait is let in (and logged): the cap protects the service, it must not take it down.

:data:`OPEN` counts this process's open long-polls and sockets (for a metrics gauge).
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections import Counter
from dataclasses import dataclass

import redis.asyncio as aioredis
from django.conf import settings
from redis.exceptions import RedisError

from tables.live.loops import per_loop
from tables.notify import latest_key

log = logging.getLogger(__name__)

#: Open waits held by this process, by kind ("long_poll", "socket").
OPEN: Counter[str] = Counter()

_ACQUIRE = """
local now = tonumber(redis.call('TIME')[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then
  local first = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  return {0, tonumber(first[2]) - now}
end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[3])
if redis.call('TTL', KEYS[1]) < tonumber(ARGV[2]) then redis.call('EXPIRE', KEYS[1], tonumber(ARGV[2])) end
return {1, 0}
"""
_REFRESH = """
local now = tonumber(redis.call('TIME')[1])
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[1]), ARGV[2])
if redis.call('TTL', KEYS[1]) < tonumber(ARGV[1]) then redis.call('EXPIRE', KEYS[1], tonumber(ARGV[1])) end
return 1
"""


def _new_client() -> aioredis.Redis:
    # a bounded pool that makes callers queue: a thousand sockets opening at once share a few connections
    pool = aioredis.BlockingConnectionPool.from_url(
        settings.REDIS_URL, max_connections=32, timeout=10, socket_connect_timeout=2, socket_timeout=5
    )
    return aioredis.Redis(connection_pool=pool)


_client = per_loop(_new_client)


def key(user_id: int) -> str:
    return f"{settings.REDIS_KEY_PREFIX}casino:live:waits:{user_id}"


@dataclass(frozen=True, slots=True)
class Slot:
    user_id: int
    member: str
    kind: str


@dataclass(frozen=True, slots=True)
class Refused:
    """Over the cap: ``retry_after`` seconds until the user's oldest slot expires at the latest."""

    retry_after: int


async def acquire(user_id: int, kind: str, ttl_s: float) -> Slot | Refused:
    """Take one of the user's ``LIVE_MAX_OPEN_WAITS`` slots for ``ttl_s`` seconds, or be refused."""
    member = f"{kind}:{uuid.uuid4().hex}"
    try:
        admitted, retry = await _client().eval(  # type: ignore[misc]
            _ACQUIRE, 1, key(user_id), settings.LIVE_MAX_OPEN_WAITS, max(1, int(ttl_s) + 1), member
        )
    except RedisError:
        log.warning("open waits: Redis does not answer; letting user %s in", user_id, exc_info=True)
        admitted, retry = 1, 0
    if not admitted:
        return Refused(max(1, min(int(retry), settings.LIVE_RETRY_AFTER_S)))
    OPEN[kind] += 1
    return Slot(user_id, member, kind)


class Keeper:
    """The long-lived slots (sockets') of one event loop, kept together: every ``LIVE_SLOT_TTL_S / 3`` seconds one
    pipeline refreshes them all, one round trip and one task whatever the number of sockets (a task and a round
    trip per socket cost a fifth of a busy live process's time).

    A slot discarded while a refresh is in flight may be written back by it after its release: it is released
    again once the refresh is done, so no phantom slot holds a user's cap."""

    def __init__(self) -> None:
        self._slots: set[Slot] = set()
        self._in_flight: set[Slot] = set()
        self._discarded_in_flight: set[Slot] = set()
        self._task: asyncio.Task[None] | None = None

    def add(self, slot: Slot) -> None:
        self._slots.add(slot)
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self._run(), name="live-slots")

    def discard(self, slot: Slot) -> None:
        """Stop refreshing ``slot`` (call before :func:`release`)."""
        self._slots.discard(slot)
        if slot in self._in_flight:
            self._discarded_in_flight.add(slot)

    async def refresh_all(self, ttl_s: float) -> None:
        """Refresh every kept slot for another ``ttl_s`` seconds, in one round trip."""
        slots = list(self._slots)
        if not slots:
            return
        self._in_flight = set(slots)
        try:
            pipe = _client().pipeline(transaction=False)
            for slot in slots:
                pipe.eval(_REFRESH, 1, key(slot.user_id), max(1, int(ttl_s)), slot.member)
            await pipe.execute()
        except RedisError as exc:  # they expire unless the next round gets through: let them (no traceback)
            log.warning("open waits: could not refresh %d slots: %s", len(slots), exc)
        finally:
            late, self._discarded_in_flight, self._in_flight = self._discarded_in_flight, set(), set()
        for slot in late:  # released while the refresh was in flight: the refresh may have written it back
            await _remove(slot)

    async def _run(self) -> None:
        while self._slots:
            await asyncio.sleep(settings.LIVE_SLOT_TTL_S / 3)
            await self.refresh_all(settings.LIVE_SLOT_TTL_S)


#: This event loop's :class:`Keeper`.
keeper = per_loop(Keeper)


async def _remove(slot: Slot) -> None:
    try:
        await _client().zrem(key(slot.user_id), slot.member)
    except RedisError:  # it expires anyway
        log.warning("open waits: could not release a slot of user %s", slot.user_id, exc_info=True)


async def release(slot: Slot) -> None:
    OPEN[slot.kind] -= 1
    await _remove(slot)


async def latest_versions(table_ids: list[int]) -> list[int | None]:
    """:func:`latest_version` of each of ``table_ids``, in one round trip; raises ``RedisError``."""
    values = await _client().mget([latest_key(table_id) for table_id in table_ids])
    return [int(value) if value is not None else None for value in values]


async def latest_version(table_id: int) -> int | None:
    """The table's latest version recorded after commit (``tables.notify.latest_key``), or None."""
    try:
        value = await _client().get(latest_key(table_id))
    except RedisError:
        return None
    return int(value) if value is not None else None
