"""``/ws/v1/tables/{id}``: a table's events pushed as they commit (API.md "Live updates (WebSocket)").

The conversation:

1. The server accepts the connection (beyond ``LIVE_MAX_UNAUTHENTICATED`` sockets of this process not yet
   authenticated, or ``LIVE_MAX_UNAUTHENTICATED_PER_ADDRESS`` from the client's address, it closes it at once with
   1013; when the cap is full, a newcomer from a lighter address takes the place of the oldest waiting socket of
   the heaviest, which is closed with 1013: :class:`tables.live.guard.Unauthenticated`). The client's first
   message is ``{"type": "auth", "token": "<key>"}``; a browser of this site may rely on its session cookie
   (staff) or the /play/ pages' HttpOnly token cookie instead (only when the ``Origin`` is one of
   ``ALLOWED_HOSTS``, or absent: another site's page cannot ride on a player's cookie). Nothing valid within
   ``LIVE_AUTH_TIMEOUT_S`` (10 s), or another known message first, closes with 4401.
2. An unknown table closes with 4404; a user already holding ``LIVE_MAX_OPEN_WAITS`` open waits (long-polls plus
   sockets, every process) closes with 4429.
3. The server sends ``{"type": "events", "events": [], "last_seq": V}``: the table's version now; events after
   it will follow. Then, whenever events commit, ``{"type": "events", "events": [...], "last_seq": N}``: every
   event after the previous message's ``last_seq``, in order, none skipped, at most 500 per message, each
   censored for this viewer at that moment by :func:`tables.feed.censor` (the REST feed's function). When
   ``N`` is the table's version, ``{"type": "table", "table": <view>}`` follows (v1.3): what ``GET
   /tables/{id}`` answers this user at version ``N`` (:mod:`tables.live.table_views`).
4. ``{"type": "resume", "after": N}`` at any time: the events after ``N`` are sent (again, if this socket
   already sent some of them), and the stream continues from there. After a reconnect, resume from the last
   ``last_seq`` received.

Every frame is checked before anything else (:mod:`tables.live.guard`): over ``LIVE_MAX_FRAME_BYTES`` (4 KiB)
closes 1009, not a JSON object with a known ``type`` (or a ``resume`` without a valid ``after``) closes 4400. A
second ``auth`` is ignored. What the sockets of one user are sent is paced (``LIVE_SEND_BYTES_PER_S``), and a
resume only moves the cursor of the socket's one sending task: a storm of resumes costs one read at a time.
The credentials of every open socket are checked again every ``LIVE_REVALIDATE_S`` (:mod:`tables.live.credentials`):
a token revoked or expired, a session ended, a deactivated account closes 4401.

However a socket ends (closed by either side, dropped mid-push, an error in any of its tasks), its slot among the
user's open waits is released and its tasks stop: ``__call__`` cleans up in a ``finally``. No frame can raise out
of the consumer: an unexpected error is logged and closes 1011.

Every ``LIVE_RECHECK_S`` (30 s) the process's table watch reads the latest version of each table it follows as
the committing process recorded it in Redis (``tables.notify.latest_key``) and announces it
(:mod:`tables.live.watch`): a notification lost while pub/sub was down delays an event by that much at most. A
socket also checks it once after its first read (which may be shared with sockets that began it before this one
listened).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from typing import Any
from urllib.parse import urlsplit

from channels.auth import get_user
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings
from django.http.request import validate_host
from rest_framework.utils.encoders import JSONEncoder

from kit.proxy import scope_client_address
from kit.tokens import find_token
from tables import feed
from tables.live import db, limits, reads
from tables.live.credentials import Credential, registry
from tables.live.guard import CLOSE_BAD_FRAME, CLOSE_TRY_LATER, Refusal, Waiting, guards, parse_frame
from tables.live.watch import Watcher, stamp, watch
from tables.models import Table

CLOSE_UNAUTHENTICATED = 4401
CLOSE_NOT_FOUND = 4404
CLOSE_TOO_MANY = 4429
CLOSE_INTERNAL = 1011
NO_CONSUMER_CHANNEL = "none"  # not a configured layer: the process's table watch receives for every socket

log = logging.getLogger(__name__)


def _token_user(key: str) -> tuple[Any, str] | None:
    """``(user, token id)`` for a valid key of an active user, else None."""
    token, _ = find_token(key)
    if token is None or not token.user.is_active:
        return None
    return token.user, str(token.pk)


_user_for_token = db.read(_token_user)
_table_exists = db.read(lambda table_id: Table.objects.filter(pk=table_id).exists())


def _origin_may_use_cookies(scope: dict[str, Any]) -> bool:
    headers = dict(scope.get("headers") or [])
    origin = headers.get(b"origin")
    if origin is None:
        return True
    host = urlsplit(origin.decode("latin-1")).hostname or ""
    return validate_host(host, settings.ALLOWED_HOSTS)


def _page_token(scope: dict[str, Any]) -> str | None:
    """The token in the /play/ pages' HttpOnly cookie, when this socket's origin may use cookies."""
    if not _origin_may_use_cookies(scope):
        return None
    token = (scope.get("cookies") or {}).get(settings.PLAY_TOKEN_COOKIE)
    return token if isinstance(token, str) and token else None


async def _session_user(scope: dict[str, Any]) -> Any | None:
    if "session" not in scope or not _origin_may_use_cookies(scope):
        return None
    user = await get_user(scope)
    return user if user.is_authenticated and user.is_active else None


class TableEventsConsumer(AsyncWebsocketConsumer):
    channel_layer_alias = NO_CONSUMER_CHANNEL

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        self.user: Any = None
        self.slot: limits.Slot | None = None
        self.watcher: Watcher | None = None
        self.pending: Waiting | None = None  # counted among this process's sockets not yet authenticated
        self.tasks: list[asyncio.Task[None]] = []
        self.closing = False
        self.ended = False
        try:
            await super().__call__(scope, receive, send)
        finally:
            await self._end()

    async def connect(self) -> None:
        self.table_id = int(self.scope["url_route"]["kwargs"]["table_id"])
        self.cursor = 0
        self.resume_to: int | None = None
        self.asked_at = 0  # the stamp of the last resume (tables.live.watch.stamp)
        self.wake = asyncio.Event()  # the sending task has something to do (a resume, a new version)
        self.pending = guards().unauthenticated.enter(scope_client_address(self.scope), self._evicted)
        await self.accept()
        if self.pending is None:
            await self._close(CLOSE_TRY_LATER)
            return
        user = await _session_user(self.scope)
        page_token = _page_token(self.scope)
        found = await _user_for_token(page_token) if user is None and page_token else None
        if user is not None:
            await self._start(user, Credential(user_id=int(user.pk), session=self.scope["session"].session_key))
        elif found is not None:  # the /play/ pages' HttpOnly cookie (kit.authentication.CookieTokenAuthentication)
            await self._start(found[0], Credential(user_id=int(found[0].pk), token=found[1]))
        else:
            self.tasks.append(asyncio.create_task(self._auth_deadline()))

    async def _auth_deadline(self) -> None:
        await asyncio.sleep(settings.LIVE_AUTH_TIMEOUT_S)
        if self.user is None:
            await self._close(CLOSE_UNAUTHENTICATED)

    async def websocket_receive(self, message: dict[str, Any]) -> None:
        if self.closing:
            return
        try:
            frame = parse_frame(message.get("text"), message.get("bytes"))
            if isinstance(frame, Refusal):
                await self._close(frame.code)
            else:
                await self._handle(frame)
        except Exception:
            log.exception("live: a frame raised; closing the socket")
            await self._close(CLOSE_INTERNAL)

    async def _handle(self, message: dict[str, Any]) -> None:
        kind = message["type"]
        if self.user is None:
            token = message.get("token") if kind == "auth" else None
            found = await _user_for_token(token) if isinstance(token, str) else None
            if found is None:
                await self._close(CLOSE_UNAUTHENTICATED)
            else:
                user, token_id = found
                await self._start(user, Credential(user_id=int(user.pk), token=token_id))
            return
        if kind == "resume":
            after = message.get("after")
            if not isinstance(after, int) or isinstance(after, bool) or not 0 <= after < 2**63:
                await self._close(CLOSE_BAD_FRAME)
                return
            self.asked_at = stamp()
            self.resume_to = after  # the sending task sends from there (one read at a time, however many resumes)
            self.wake.set()

    def _authenticated(self) -> None:
        if self.pending is not None:
            pending, self.pending = self.pending, None
            guards().unauthenticated.leave(pending)

    def _evicted(self) -> None:
        """Another address's socket took this one's place among those waiting to authenticate: 1013."""
        self.pending = None  # (counted out already)
        self.tasks.append(asyncio.create_task(self._close(CLOSE_TRY_LATER)))

    async def _start(self, user: Any, credential: Credential) -> None:
        self.user = user
        self._authenticated()
        if not await _table_exists(self.table_id):
            await self._close(CLOSE_NOT_FOUND)
            return
        slot = await limits.acquire(user.pk, "socket", settings.LIVE_SLOT_TTL_S)
        if isinstance(slot, limits.Refused):
            await self._close(CLOSE_TOO_MANY)
            return
        if self.ended:  # ended meanwhile: nobody else would release it
            await limits.release(slot)
            return
        self.slot = slot
        if self.closing:  # closing: _end releases the slot
            return
        registry().add(self._revoke, credential)
        # before the read: nothing committed after it is missed; its announcements wake the sending task
        self.watcher = await watch().add(self.table_id, event=self.wake, user=user)
        read = await reads.load(self.table_id, 2**31 - 1)  # no events: the table's version now
        self.cursor = read.loaded.state.version
        await self._send({"type": "events", "events": [], "last_seq": self.cursor})
        # That read may be shared with sockets that began it before this one's watcher registered: a commit in
        # between was announced before this socket listened. The version its committer recorded (after the
        # watcher registered, so any later one is announced to it) says whether to look again now.
        latest = await limits.latest_version(self.table_id)
        if latest is not None and latest > self.cursor:
            self.watcher.announce(latest)
        self.tasks.append(asyncio.create_task(self._guarded(self._pump())))
        if self.slot is not None:  # (None once the socket ended meanwhile: _end released it)
            limits.keeper().add(self.slot)  # refreshed with this process's other sockets' slots while open

    async def _guarded(self, work: Any) -> None:
        """A task of the socket: whatever it raises closes the socket (and so frees everything) instead of
        leaving the others running."""
        try:
            await work
            return
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if task is not None and task.cancelling():
                raise  # cancelled by _end: the socket is ending
            # a cancellation that came from something this task awaited, not from the socket ending: the task
            # would end silently and the socket stay open, delivering nothing more
            log.warning("live: a socket's task was cancelled from outside; closing it")
        except OSError:  # the client went away mid-send (uvicorn's ClientDisconnected): the socket just ends
            log.debug("live: a socket's client went away mid-send", exc_info=True)
        except Exception:
            if not self.closing:
                log.warning("live: a socket's task failed; closing it", exc_info=True)
        await self._close(CLOSE_INTERNAL)
        await self._end()

    async def _pump(self) -> None:
        """The socket's one sender: every event after ``cursor`` as this viewer may see it now, paced per user.
        Woken by the table's announcements (the watcher sets ``wake``) and by resumes; an announcement of nothing
        newer than ``cursor`` costs no read. A resume takes effect at the next read; however many arrive
        meanwhile, the last one wins."""
        pace = guards().pace
        assert self.watcher is not None
        while True:
            await self.wake.wait()
            self.wake.clear()
            if self.resume_to is None and self.watcher.version <= self.cursor:
                continue
            while not self.closing:
                if self.resume_to is not None:
                    self.cursor, self.resume_to = self.resume_to, None
                # a read that began after the last announcement and the last resume (one shared with other
                # sockets may have begun earlier: it would miss the commit that woke this one)
                fresh_after = max(self.watcher.heard_at, self.asked_at)
                read = await reads.load(self.table_id, self.cursor, fresh_after=fresh_after)
                if not read.loaded.events:
                    if self.resume_to is None:
                        break
                    continue
                text, last_seq = read.message_for(self.user)
                # v1.3: after the events, the table as this user sees it at that version (paced with them)
                view = await read.table_message_for(self.user) if read.reaches_version else ""
                await pace.take(int(self.user.pk), len(text) + len(view))
                if self.closing:
                    return
                await self.send(text_data=text)
                self.cursor = last_seq
                if view:
                    await self.send(text_data=view)
                if len(read.loaded.events) < feed.MAX_FEED_EVENTS and self.resume_to is None:
                    break

    async def _revoke(self) -> None:
        await self._close(CLOSE_UNAUTHENTICATED)

    async def _send(self, message: dict[str, Any]) -> None:
        await self.send(text_data=json.dumps(message, cls=JSONEncoder, ensure_ascii=False, separators=(",", ":")))

    async def _close(self, code: int) -> None:
        if self.closing:
            return
        self.closing = True
        with contextlib.suppress(Exception):  # the client may be gone already
            await self.close(code=code)

    async def disconnect(self, code: int) -> None:
        self.closing = True
        await self._end()

    async def _end(self) -> None:
        """Free everything the socket holds; safe to call more than once, from any of its tasks."""
        if self.ended:
            return
        self.ended = True
        self.closing = True
        self._authenticated()
        registry().discard(self._revoke)
        current = asyncio.current_task()
        for task in self.tasks:
            if task is not current:
                task.cancel()
        for task in self.tasks:
            if task is not current:
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
        if self.watcher is not None:
            watcher, self.watcher = self.watcher, None
            with contextlib.suppress(Exception):
                await watch().remove(watcher)
        if self.slot is not None:
            slot, self.slot = self.slot, None
            limits.keeper().discard(slot)
            await limits.release(slot)
