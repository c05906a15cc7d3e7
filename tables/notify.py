"""Wake-ups for long-polling readers of a table's events, through Redis.

After a command commits, :func:`publish` records the table's latest version under a Redis key and publishes it
on the table's channel. Redis only ever says "look again": a woken reader re-reads the database, which is the
truth (a lost or duplicated message delays or repeats a read, never changes an answer).

Readers wait through one :class:`Hub` per process: a daemon thread holding a single Redis connection,
pattern-subscribed to every table's channel, that wakes the threads waiting on a table when a version past
theirs is published. A waiting request therefore holds no database connection and no Redis connection of
its own; it registers (:func:`waiter`) *before* reading the database, so a commit that lands between its read
and its wait still wakes it. While the hub is not subscribed (Redis down, reconnecting), waiters fall back to
re-reading the database every :data:`FALLBACK_POLL_S` seconds.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import threading
import time
from collections.abc import Iterator

import redis
from django.conf import settings

log = logging.getLogger(__name__)

CHANNEL_PREFIX = "casino:table:"
CHANNEL_SUFFIX = ":events"
LATEST_KEY_TTL_S = 24 * 3600
FALLBACK_POLL_S = 1.0
_RECONNECT_DELAY_S = 0.5


@functools.cache
def client() -> redis.Redis:
    return redis.Redis.from_url(settings.REDIS_URL, socket_connect_timeout=2, socket_timeout=5)


def channel(table_id: int) -> str:
    return f"{CHANNEL_PREFIX}{table_id}{CHANNEL_SUFFIX}"


def latest_key(table_id: int) -> str:
    return f"{CHANNEL_PREFIX}{table_id}:latest"


def publish(table_id: int, version: int) -> None:
    """Tell every waiting reader of ``table_id`` that version ``version`` is committed (one round trip)."""
    pipe = client().pipeline(transaction=False)
    pipe.set(latest_key(table_id), version, ex=LATEST_KEY_TTL_S)
    pipe.publish(channel(table_id), str(version))
    pipe.execute()


def latest_published(table_id: int) -> int | None:
    """The latest version published for the table (None if unknown or Redis does not answer)."""
    try:
        value = client().get(latest_key(table_id))
    except redis.RedisError:
        return None
    return int(value) if value is not None else None


class _Waiter:
    __slots__ = ("after", "event", "table_id")

    def __init__(self, table_id: int, after: int) -> None:
        self.table_id = table_id
        self.after = after
        self.event = threading.Event()


class Hub:
    """One Redis subscription per process, fanned out to the threads waiting on tables."""

    def __init__(self, redis_url: str) -> None:
        self._redis_url = redis_url
        self._lock = threading.Lock()
        self._waiters: dict[int, set[_Waiter]] = {}
        self._subscribed = threading.Event()
        self._thread: threading.Thread | None = None
        self._stopping = False

    # --- waiting side ---------------------------------------------------------------------------------------
    @contextlib.contextmanager
    def waiter(self, table_id: int, after: int) -> Iterator[_Waiter]:
        """Register interest in versions of ``table_id`` past ``after`` (register before reading the database)."""
        self._ensure_started()
        w = _Waiter(table_id, after)
        with self._lock:
            self._waiters.setdefault(table_id, set()).add(w)
        try:
            yield w
        finally:
            with self._lock:
                bucket = self._waiters.get(table_id)
                if bucket is not None:
                    bucket.discard(w)
                    if not bucket:
                        del self._waiters[table_id]

    def wait(self, w: _Waiter, timeout: float) -> bool:
        """Block up to ``timeout`` seconds for a wake-up; True if one came (or the hub cannot promise one)."""
        if timeout <= 0:
            return False
        if not self._subscribed.is_set():
            time.sleep(min(timeout, FALLBACK_POLL_S))
            return True
        woken = w.event.wait(timeout)
        w.event.clear()
        return woken

    @property
    def subscribed(self) -> bool:
        return self._subscribed.is_set()

    # --- the listening thread -------------------------------------------------------------------------------
    def _ensure_started(self) -> None:
        if self._thread is not None and self._thread.is_alive():
            return
        with self._lock:
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="table-notify-hub", daemon=True)
                self._thread.start()
        self._subscribed.wait(2.0)  # the first waiter waits for the subscription, so no wake-up is missed

    def _wake(self, table_id: int, version: int | None) -> None:
        with self._lock:
            bucket = list(self._waiters.get(table_id, ()))
        for w in bucket:
            if version is None or version > w.after:
                w.event.set()

    def _wake_all(self) -> None:
        with self._lock:
            everyone = [w for bucket in self._waiters.values() for w in bucket]
        for w in everyone:
            w.event.set()

    def _run(self) -> None:
        pattern = f"{CHANNEL_PREFIX}*{CHANNEL_SUFFIX}"
        while not self._stopping:
            connection = redis.Redis.from_url(self._redis_url, socket_connect_timeout=2, health_check_interval=10)
            pubsub = connection.pubsub(ignore_subscribe_messages=False)
            try:
                pubsub.psubscribe(pattern)
                while not self._stopping:
                    message = pubsub.get_message(timeout=1.0)
                    if message is None:
                        continue
                    if message["type"] == "psubscribe":
                        self._subscribed.set()
                        self._wake_all()  # anything published while we were not listening: look again
                    elif message["type"] == "pmessage":
                        self._dispatch(message["channel"], message["data"])
            except Exception:
                if not self._stopping:
                    log.warning("table notifications: Redis subscription lost; retrying", exc_info=True)
            finally:
                self._subscribed.clear()
                with contextlib.suppress(Exception):
                    pubsub.close()
                with contextlib.suppress(Exception):
                    connection.close()
            self._wake_all()
            time.sleep(_RECONNECT_DELAY_S)

    def _dispatch(self, raw_channel: bytes | str, raw_data: bytes | str) -> None:
        name = raw_channel.decode() if isinstance(raw_channel, bytes) else raw_channel
        middle = name[len(CHANNEL_PREFIX) : -len(CHANNEL_SUFFIX)]
        if not middle.isdecimal():
            return
        data = raw_data.decode() if isinstance(raw_data, bytes) else str(raw_data)
        self._wake(int(middle), int(data) if data.isdecimal() else None)

    def stop(self) -> None:
        self._stopping = True


_hub: tuple[int, Hub] | None = None
_hub_lock = threading.Lock()


def hub() -> Hub:
    """The process's hub (started on first use; a forked child gets its own)."""
    global _hub
    current = _hub
    if current is None or current[0] != os.getpid():
        with _hub_lock:
            current = _hub
            if current is None or current[0] != os.getpid():
                current = _hub = (os.getpid(), Hub(settings.REDIS_URL))
    return current[1]
