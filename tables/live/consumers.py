"""``/ws/v1/tables/{id}``: a table's events pushed as they commit (API.md "Live updates (WebSocket)").

The conversation:

1. The server accepts the connection. The client's first message is ``{"type": "auth", "token": "<key>"}``; a
   browser of this site may rely on its session cookie instead (only when the ``Origin`` is one of
   ``ALLOWED_HOSTS``, or absent: another site's page cannot ride on a player's cookie). Nothing valid within
   ``LIVE_AUTH_TIMEOUT_S`` (10 s), or anything else first, closes with 4401.
2. An unknown table closes with 4404; a user already holding ``LIVE_MAX_OPEN_WAITS`` open waits (long-polls plus
   sockets, every process) closes with 4429.
3. The server sends ``{"type": "events", "events": [], "last_seq": V}``: the table's version now; events after
   it will follow. Then, whenever events commit, ``{"type": "events", "events": [...], "last_seq": N}``: every
   event after the previous message's ``last_seq``, in order, none skipped, at most 500 per message, each
   censored for this viewer at that moment by :func:`tables.feed.censor` (the REST feed's function).
4. ``{"type": "resume", "after": N}`` at any time: the events after ``N`` are sent (again, if this socket
   already sent some of them), and the stream continues from there. After a reconnect, resume from the last
   ``last_seq`` received.

Other messages after authentication are ignored.

A socket that hears nothing for ``LIVE_RECHECK_S`` (30 s) checks the table's latest version recorded in Redis by
the committing process (``tables.notify.latest_key``): a notification lost while pub/sub was down delays an
event by that much at most.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from typing import Any
from urllib.parse import urlsplit

from channels.auth import get_user
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings
from django.http.request import validate_host
from rest_framework.utils.encoders import JSONEncoder

from casino.tokens import user_for_token
from tables import feed
from tables.live import db, limits, reads
from tables.live.watch import Watcher, watch
from tables.models import Table

CLOSE_UNAUTHENTICATED = 4401
CLOSE_NOT_FOUND = 4404
CLOSE_TOO_MANY = 4429
NO_CONSUMER_CHANNEL = "none"  # not a configured layer: the process's table watch receives for every socket

_user_for_token = db.read(user_for_token)
_table_exists = db.read(lambda table_id: Table.objects.filter(pk=table_id).exists())


def _origin_may_use_cookies(scope: dict[str, Any]) -> bool:
    headers = dict(scope.get("headers") or [])
    origin = headers.get(b"origin")
    if origin is None:
        return True
    host = urlsplit(origin.decode("latin-1")).hostname or ""
    return validate_host(host, settings.ALLOWED_HOSTS)


async def _session_user(scope: dict[str, Any]) -> Any | None:
    if "session" not in scope or not _origin_may_use_cookies(scope):
        return None
    user = await get_user(scope)
    return user if user.is_authenticated and user.is_active else None


class TableEventsConsumer(AsyncWebsocketConsumer):
    channel_layer_alias = NO_CONSUMER_CHANNEL

    async def connect(self) -> None:
        self.table_id = int(self.scope["url_route"]["kwargs"]["table_id"])
        self.user: Any = None
        self.slot: limits.Slot | None = None
        self.watcher: Watcher | None = None
        self.cursor = 0
        self.lock = asyncio.Lock()
        self.tasks: list[asyncio.Task[None]] = []
        self.closing = False
        await self.accept()
        user = await _session_user(self.scope)
        if user is not None:
            await self._start(user)
        else:
            self.tasks.append(asyncio.create_task(self._auth_deadline()))

    async def _auth_deadline(self) -> None:
        await asyncio.sleep(settings.LIVE_AUTH_TIMEOUT_S)
        if self.user is None:
            await self._close(CLOSE_UNAUTHENTICATED)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        if self.closing:
            return
        try:
            message = json.loads(text_data if text_data is not None else (bytes_data or b""))
        except ValueError:
            message = None
        kind = message.get("type") if isinstance(message, dict) else None
        if self.user is None:
            token = message.get("token") if kind == "auth" else None  # type: ignore[union-attr]
            user = await _user_for_token(token) if isinstance(token, str) else None
            if user is None:
                await self._close(CLOSE_UNAUTHENTICATED)
            else:
                await self._start(user)
                if not self.closing:
                    self.tasks.append(asyncio.create_task(self._keep_token(token)))  # type: ignore[arg-type]
            return
        if kind == "resume":
            after = message.get("after")  # type: ignore[union-attr]
            if isinstance(after, int) and not isinstance(after, bool) and after >= 0:
                async with self.lock:
                    self.cursor = after
                    await self._push()

    async def _start(self, user: Any) -> None:
        self.user = user
        if not await _table_exists(self.table_id):
            await self._close(CLOSE_NOT_FOUND)
            return
        slot = await limits.acquire(user.pk, "socket", settings.LIVE_SLOT_TTL_S)
        if isinstance(slot, limits.Refused):
            await self._close(CLOSE_TOO_MANY)
            return
        self.slot = slot
        self.watcher = await watch().add(self.table_id)  # before the read: nothing committed after it is missed
        async with self.lock:
            read = await reads.load(self.table_id, 2**31 - 1)  # no events: the table's version now
            self.cursor = read.loaded.state.version
            await self._send({"type": "events", "events": [], "last_seq": self.cursor})
        self.tasks.append(asyncio.create_task(self._pump()))
        self.tasks.append(asyncio.create_task(self._keep_slot()))

    async def _pump(self) -> None:
        assert self.watcher is not None
        while True:
            if not await self.watcher.wait(settings.LIVE_RECHECK_S):
                # nothing heard for a while: a notification may have been lost (Redis pub/sub down meanwhile);
                # the latest version the committing process recorded says whether to look
                latest = await limits.latest_version(self.table_id)
                if latest is not None and latest > self.cursor:
                    self.watcher.announce(latest)
            if self.watcher.version > self.cursor:
                async with self.lock:
                    await self._push()

    async def _push(self) -> None:
        """Send every event after ``cursor`` as this viewer may see it now (caller holds the lock)."""
        while True:
            read = await reads.load(self.table_id, self.cursor)
            if not read.loaded.events:
                return
            text, self.cursor = read.message_for(self.user)
            await self.send(text_data=text)
            if len(read.loaded.events) < feed.MAX_FEED_EVENTS:
                return

    async def _keep_token(self, token: str) -> None:
        """A token revoked (logout, password change, a break or self-exclusion) or expired ends the stream with
        4401 within ``LIVE_TOKEN_RECHECK_S`` (API.md: within 5 seconds)."""
        while not self.closing:
            await asyncio.sleep(settings.LIVE_TOKEN_RECHECK_S)
            if await _user_for_token(token) is None:
                await self._close(CLOSE_UNAUTHENTICATED)
                return

    async def _keep_slot(self) -> None:
        while self.slot is not None:
            await asyncio.sleep(settings.LIVE_SLOT_TTL_S / 3)
            await limits.refresh(self.slot, settings.LIVE_SLOT_TTL_S)

    async def _send(self, message: dict[str, Any]) -> None:
        await self.send(text_data=json.dumps(message, cls=JSONEncoder, ensure_ascii=False, separators=(",", ":")))

    async def _close(self, code: int) -> None:
        self.closing = True
        await self.close(code=code)

    async def disconnect(self, code: int) -> None:
        self.closing = True
        current = asyncio.current_task()
        for task in self.tasks:
            if task is not current:
                task.cancel()
        for task in self.tasks:
            if task is not current:
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
        if self.watcher is not None:
            await watch().remove(self.watcher)
            self.watcher = None
        if self.slot is not None:
            slot, self.slot = self.slot, None
            await limits.release(slot)
