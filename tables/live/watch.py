"""Who in this process follows which table, woken by the Channels layer.

Each event loop (one per ASGI process) holds one channel of the layer. The first watcher of a table joins that
channel to the table's group (``tables.notify.group``); the last one to leave takes it out. One task receives
the channel's ``table.changed`` messages and wakes the table's watchers. So a process holds one Redis
subscription per table it follows, whatever the number of sockets and long-polls on it.

A watcher registers *before* it reads the database: a commit that lands between its read and its wait still
wakes it.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
from typing import Any

from channels.layers import get_channel_layer
from django.conf import settings

from tables import notify
from tables.live import limits
from tables.live.loops import per_loop

log = logging.getLogger(__name__)

_order = itertools.count(1)


def stamp() -> int:
    """A number larger than any earlier stamp of this process: what happened before what (announcements, reads)."""
    return next(_order)


class Watcher:
    """One follower of one table: ``version`` is the latest version announced since it registered, ``heard_at``
    the :func:`stamp` of that announcement (at first, of the registration): the watcher's reads must begin after
    it to see everything it has been told of."""

    __slots__ = ("_event", "heard_at", "table_id", "user", "version")

    def __init__(self, table_id: int, event: asyncio.Event | None = None, user: Any = None) -> None:
        self.table_id = table_id
        self.user = user  # a socket's user (its view is built with each read of the table: tables.live.reads)
        self.version = 0
        self.heard_at = stamp()
        # what an announcement sets: the watcher's own (for wait()), or its owner's (a socket's sending task waits
        # on it directly: no task per socket turning announcements into wake-ups)
        self._event = event if event is not None else asyncio.Event()

    def announce(self, version: int) -> None:
        if version > self.version:
            self.version = version
            self.heard_at = stamp()
        self._event.set()

    async def wait(self, timeout: float | None = None) -> bool:
        """Wait for an announcement (True) or ``timeout`` seconds (False); consumes the announcement."""
        try:
            if timeout is None:
                await self._event.wait()
            else:
                await asyncio.wait_for(self._event.wait(), timeout)
        except TimeoutError:
            return False
        self._event.clear()
        return True


class Watch:
    """The watchers of one event loop, and its one layer channel."""

    def __init__(self) -> None:
        self._layer: Any = get_channel_layer()
        self._channel: str | None = None
        self._watchers: dict[int, set[Watcher]] = {}
        self._lock = asyncio.Lock()  # group membership changes one at a time (join before anyone relies on it)
        self._task: asyncio.Task[None] | None = None
        self._recheck_task: asyncio.Task[None] | None = None

    @property
    def tables(self) -> int:
        return len(self._watchers)

    @property
    def watchers(self) -> int:
        return sum(len(bucket) for bucket in self._watchers.values())

    def users(self, table_id: int) -> list[Any]:
        """The users of the watchers of ``table_id`` that named one (sockets), each once."""
        found = {int(w.user.pk): w.user for w in self._watchers.get(table_id, ()) if w.user is not None}
        return list(found.values())

    async def add(self, table_id: int, event: asyncio.Event | None = None, user: Any = None) -> Watcher:
        """A new watcher of ``table_id``, in the table's group before this returns; ``event``: set by each
        announcement instead of the watcher's own (see :class:`Watcher`); ``user``: whose table view the table's
        reads build (a socket's)."""
        watcher = Watcher(table_id, event, user)
        async with self._lock:
            if self._channel is None:
                self._channel = await self._layer.new_channel()
                self._task = asyncio.create_task(self._receive(self._channel), name="table-watch")
                self._recheck_task = asyncio.create_task(self._recheck(), name="table-watch-recheck")
            bucket = self._watchers.get(table_id)
            if bucket is None:
                await self._layer.group_add(notify.group(table_id), self._channel)
                bucket = self._watchers[table_id] = set()
            bucket.add(watcher)
            watcher.heard_at = stamp()  # in the group now: every commit after this is announced to it
        return watcher

    async def remove(self, watcher: Watcher) -> None:
        async with self._lock:
            bucket = self._watchers.get(watcher.table_id)
            if bucket is None:
                return
            bucket.discard(watcher)
            if not bucket:
                del self._watchers[watcher.table_id]
                with contextlib.suppress(Exception):
                    await self._layer.group_discard(notify.group(watcher.table_id), self._channel)

    async def _receive(self, channel: str) -> None:
        while True:
            try:
                message = await self._layer.receive(channel)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("table watch: receiving failed; retrying")
                await asyncio.sleep(0.5)
                continue
            if message.get("type") != notify.MESSAGE_TYPE:
                continue
            table_id, version = message.get("table"), message.get("version")
            if not isinstance(table_id, int) or not isinstance(version, int):
                continue
            for watcher in list(self._watchers.get(table_id, ())):
                watcher.announce(version)

    async def _recheck(self) -> None:
        """Every ``LIVE_RECHECK_S``: each followed table's latest version as its committer recorded it in Redis
        (one MGET for all), announced to its watchers. An announcement lost while pub/sub was down delays a
        socket or a long-poll by that much at most; each watcher reads only if it is behind."""
        while True:
            await asyncio.sleep(settings.LIVE_RECHECK_S)
            tables = list(self._watchers)
            if not tables:
                continue
            try:
                latest = await limits.latest_versions(tables)
            except Exception:  # Redis away: the next round tries again
                log.warning("table watch: could not read the tables' latest versions", exc_info=True)
                continue
            for table_id, version in zip(tables, latest, strict=True):
                if version is not None:
                    for watcher in list(self._watchers.get(table_id, ())):
                        watcher.announce(version)


#: This event loop's :class:`Watch`.
watch = per_loop(Watch)


@contextlib.asynccontextmanager
async def watching(table_id: int):  # type: ignore[no-untyped-def]
    """``async with watching(table) as watcher:`` register, then read, then ``await watcher.wait(...)``."""
    current = watch()
    watcher = await current.add(table_id)
    try:
        yield watcher
    finally:
        await current.remove(watcher)
