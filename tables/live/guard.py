"""What the live server does against hostile sockets (API.md v1.2 "Live updates"; docs/security.md, "Hostile
clients"): one frame's checks before anything else, the cap on sockets not yet authenticated, and the pace of
what one user's sockets are sent.

- :func:`parse_frame`: a frame over ``LIVE_MAX_FRAME_BYTES`` is refused with 1009 before it is decoded; a frame
  that is not a JSON object with a known ``type`` with 4400. Parsing never raises (a deeply nested frame is a
  refused frame, not a ``RecursionError``).
- :class:`Unauthenticated`: this process's sockets that have not yet authenticated, at most
  ``LIVE_MAX_UNAUTHENTICATED`` at once and ``LIVE_MAX_UNAUTHENTICATED_PER_ADDRESS`` from one client address (the
  one the deployment trusts: :func:`kit.proxy.scope_client_address`); each is held at most
  ``LIVE_AUTH_TIMEOUT_S``. When the cap is full, a socket from an address holding fewer than the heaviest
  address less one takes the place of that address's oldest waiting socket (closed 1013): the cap is shared
  fairly per address, so one client (or a few) cannot fill it and have every player refused (issue #43).
- :class:`Pace`: a token bucket per user and process: whatever the sockets of one user are sent (a ``resume``
  after 0, repeated, included) flows at ``LIVE_SEND_BYTES_PER_S`` after a burst of ``LIVE_SEND_BURST_BYTES``.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.conf import settings

from tables.live.loops import per_loop

CLOSE_TOO_BIG = 1009  # RFC 6455 "message too big"
CLOSE_TRY_LATER = 1013  # RFC 6455 "try again later": too many sockets waiting to authenticate
CLOSE_BAD_FRAME = 4400

KNOWN_TYPES = frozenset({"auth", "resume"})


@dataclass(frozen=True, slots=True)
class Refusal:
    """A frame refused: the close code to answer it with."""

    code: int


def frame_size(text_data: str | None, bytes_data: bytes | None) -> int:
    """The frame's size in bytes (a text frame's UTF-8 length, counted without encoding a huge string)."""
    if text_data is not None:
        # a str of n code points is at most 4n bytes and at least n: only the borderline ones are encoded
        if len(text_data) * 4 <= settings.LIVE_MAX_FRAME_BYTES:
            return len(text_data)
        if len(text_data) > settings.LIVE_MAX_FRAME_BYTES:
            return len(text_data)
        return len(text_data.encode("utf-8", "surrogatepass"))
    return len(bytes_data or b"")


def parse_frame(text_data: str | None, bytes_data: bytes | None) -> dict[str, Any] | Refusal:
    """The frame as a JSON object with a known ``type``, or the refusal to close the socket with."""
    if frame_size(text_data, bytes_data) > settings.LIVE_MAX_FRAME_BYTES:
        return Refusal(CLOSE_TOO_BIG)
    try:
        message = json.loads(text_data if text_data is not None else (bytes_data or b""))
    except (ValueError, RecursionError, UnicodeDecodeError):
        return Refusal(CLOSE_BAD_FRAME)
    kind = message.get("type") if isinstance(message, dict) else None
    if not isinstance(kind, str) or kind not in KNOWN_TYPES:
        return Refusal(CLOSE_BAD_FRAME)
    return message


@dataclass(eq=False, slots=True)
class Waiting:
    """One socket counted among those not yet authenticated; ``evict`` closes it to make room for another."""

    address: str
    evict: Callable[[], None]
    counted: bool = True


class Unauthenticated:
    """The sockets of one event loop that have not authenticated yet, by client address (caps: settings)."""

    def __init__(self) -> None:
        self.count = 0
        self._by_address: dict[str, deque[Waiting]] = {}

    def held_by(self, address: str) -> int:
        return len(self._by_address.get(address, ()))

    def enter(self, address: str, evict: Callable[[], None]) -> Waiting | None:
        """Count one more socket from ``address`` in, or None when it may not wait (then it is not counted).
        At the cap, the oldest waiting socket of the address holding the most is evicted for it when that
        address holds at least two more than this one."""
        own = self.held_by(address)
        if own >= settings.LIVE_MAX_UNAUTHENTICATED_PER_ADDRESS:
            return None
        if self.count >= settings.LIVE_MAX_UNAUTHENTICATED:
            heaviest = max(self._by_address.values(), key=len, default=None)
            if heaviest is None or len(heaviest) <= own + 1:
                return None
            oldest = heaviest[0]
            self.leave(oldest)
            oldest.evict()
        waiting = Waiting(address, evict)
        self._by_address.setdefault(address, deque()).append(waiting)
        self.count += 1
        return waiting

    def leave(self, waiting: Waiting) -> None:
        """Count it out (once, however often it is called)."""
        if not waiting.counted:
            return
        waiting.counted = False
        queue = self._by_address[waiting.address]
        queue.remove(waiting)  # (a deque of at most LIVE_MAX_UNAUTHENTICATED_PER_ADDRESS)
        if not queue:
            del self._by_address[waiting.address]
        self.count -= 1


class Pace:
    """Token buckets of bytes, one per user, for one event loop."""

    def __init__(self) -> None:
        self._buckets: dict[int, tuple[float, float]] = {}  # user id -> (tokens, monotonic time of that count)

    def delay(self, user_id: int, size: int) -> float:
        """Take ``size`` bytes from the user's bucket; the seconds to wait before sending them (0: at once)."""
        rate = float(settings.LIVE_SEND_BYTES_PER_S)
        burst = float(settings.LIVE_SEND_BURST_BYTES)
        now = time.monotonic()
        tokens, then = self._buckets.get(user_id, (burst, now))
        tokens = min(burst, tokens + (now - then) * rate) - size
        if tokens >= burst:  # a full bucket is the default: forget it
            self._buckets.pop(user_id, None)
        else:
            self._buckets[user_id] = (tokens, now)
        return 0.0 if tokens >= 0 else -tokens / rate

    async def take(self, user_id: int, size: int) -> None:
        """Wait until ``size`` bytes may be sent to the user."""
        wait = self.delay(user_id, size)
        if wait > 0:
            await asyncio.sleep(wait)

    def forget_idle(self) -> None:
        """Drop the buckets that have refilled (bounded memory however many users came and went)."""
        rate = float(settings.LIVE_SEND_BYTES_PER_S)
        burst = float(settings.LIVE_SEND_BURST_BYTES)
        now = time.monotonic()
        for user_id, (tokens, then) in list(self._buckets.items()):
            if tokens + (now - then) * rate >= burst:
                del self._buckets[user_id]


@dataclass(slots=True)
class LoopGuards:
    unauthenticated: Unauthenticated
    pace: Pace


#: This event loop's guards.
guards = per_loop(lambda: LoopGuards(Unauthenticated(), Pace()))
