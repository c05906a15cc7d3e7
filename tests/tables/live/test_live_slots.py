"""The sockets' slots among their users' open waits (tables/live/limits.py) are kept together: one task and one
round trip per process refresh every open socket's slot, and a slot released while a refresh is in flight does
not come back as a phantom that holds its user's cap. Against the real Redis."""

from __future__ import annotations

import asyncio
import time

import redis
from django.conf import settings

from tables.live import limits

TTL_S = 60


def _scores(user_id: int) -> dict[str, float]:
    client = redis.Redis.from_url(settings.REDIS_URL)
    return {member.decode(): score for member, score in client.zrange(limits.key(user_id), 0, -1, withscores=True)}


def _clear(*user_ids: int) -> None:
    redis.Redis.from_url(settings.REDIS_URL).delete(*(limits.key(user_id) for user_id in user_ids))


def test_one_refresh_extends_every_kept_slot() -> None:
    users = (990_001, 990_002, 990_003)
    _clear(*users)
    before = time.time()
    extended: dict[str, float] = {}

    async def scene_and_look() -> None:
        keeper = limits.Keeper()
        for user_id in users:
            slot = await limits.acquire(user_id, "socket", 5)
            assert isinstance(slot, limits.Slot)
            keeper.add(slot)
        await keeper.refresh_all(TTL_S)
        for user_id in users:
            extended.update(_scores(user_id))
        for slot in list(keeper._slots):
            keeper.discard(slot)
            await limits.release(slot)

    asyncio.run(scene_and_look())
    assert len(extended) == 3
    assert all(score >= before + TTL_S - 2 for score in extended.values()), extended  # not the 5 s they began with
    assert all(_scores(user_id) == {} for user_id in users)  # released


def test_a_slot_released_during_a_refresh_does_not_come_back() -> None:
    """The refresh has taken its list of slots and waits for a Redis connection (every pooled one is busy) while
    the socket ends and its slot is removed; the refresh then writes the slot back. The keeper removes it again."""
    user_id = 990_010
    _clear(user_id)
    direct = redis.Redis.from_url(settings.REDIS_URL)

    async def scene() -> None:
        keeper = limits.Keeper()
        slot = await limits.acquire(user_id, "socket", TTL_S)
        assert isinstance(slot, limits.Slot)
        keeper.add(slot)
        pool = limits._client().connection_pool
        busy = [asyncio.create_task(limits._client().blpop([f"{user_id}:nothing"], timeout=1))
                for _ in range(pool.max_connections)]  # fmt: skip
        await asyncio.sleep(0.2)  # every pooled connection is waiting in BLPOP
        refreshing = asyncio.create_task(keeper.refresh_all(TTL_S))
        await asyncio.sleep(0.1)  # the refresh has its list and waits for a connection
        keeper.discard(slot)  # the socket ends meanwhile, and its slot is removed
        direct.zrem(limits.key(user_id), slot.member)
        assert _scores(user_id) == {}
        await asyncio.gather(*busy)
        await refreshing
        limits.OPEN[slot.kind] -= 1

    asyncio.run(scene())
    assert _scores(user_id) == {}  # no phantom slot holding the user's cap for another minute
