"""Reads of a table's new events, shared by the sockets of one process that ask the same question at once.

When a table changes, each of its sockets in this process wants the events after its last ``seq``; sockets
that are up to date all ask for the same ``(table, after)``. The first asks the database (in a worker thread,
:func:`tables.live.db.read`), the others await its answer. Each socket then censors that answer for its own
viewer (:func:`tables.feed.censor`): one read per table change, not one per socket. The censored message is
kept with the read for each distinct viewer (:func:`tables.feed.viewer`): the table's spectators, who are all
the same viewer, share one censored and serialised copy.
"""

from __future__ import annotations

import asyncio
import json
import weakref
from dataclasses import dataclass, field
from typing import Any

from rest_framework.utils.encoders import JSONEncoder

from rules import Viewer
from tables import feed
from tables.live import db


@dataclass(slots=True)
class SharedRead:
    """One read of a table's events, with its censored messages by viewer."""

    loaded: feed.LoadedEvents
    messages: dict[Viewer, tuple[str, int]] = field(default_factory=dict)

    def message_for(self, user: Any) -> tuple[str, int]:
        """``(JSON text of the events message, its last_seq)`` as ``user`` may see the read."""
        viewer = feed.viewer(self.loaded, user)
        cached = self.messages.get(viewer)
        if cached is None:
            body = feed.censor(self.loaded, user)
            text = json.dumps({"type": "events", **body}, cls=JSONEncoder, ensure_ascii=False, separators=(",", ":"))
            cached = self.messages[viewer] = (text, body["last_seq"])
        return cached


_load = db.read(feed.load)
_inflight: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[tuple[int, int], asyncio.Future[SharedRead]]] = (
    weakref.WeakKeyDictionary()
)


async def load(table_id: int, after: int) -> SharedRead:
    """:func:`tables.feed.load` of ``(table_id, after)``, shared with concurrent callers of this loop."""
    loop = asyncio.get_running_loop()
    pending = _inflight.setdefault(loop, {})
    key = (table_id, after)
    future = pending.get(key)
    if future is None:
        future = loop.create_future()
        pending[key] = future
        try:
            future.set_result(SharedRead(await _load(table_id, after)))
        except asyncio.CancelledError:
            future.cancel()
            raise
        except Exception as exc:
            future.set_exception(exc)
            future.exception()  # retrieved: no "never retrieved" warning when nobody else waited
        finally:
            del pending[key]
    return await asyncio.shield(future)  # a waiter cancelled does not cancel the others
