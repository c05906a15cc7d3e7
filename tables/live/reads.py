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
from tables.live.watch import stamp


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


@dataclass(slots=True)
class _Inflight:
    started: int  # the read's stamp (tables.live.watch.stamp): what it was asked after
    task: asyncio.Task[SharedRead]


_inflight: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[tuple[int, int], _Inflight]] = (
    weakref.WeakKeyDictionary()
)


async def load(table_id: int, after: int, fresh_after: int = 0) -> SharedRead:
    """:func:`tables.feed.load` of ``(table_id, after)``, shared with concurrent callers of this loop.

    A caller joins a read in flight only if it was asked after the :func:`~tables.live.watch.stamp`
    ``fresh_after``: a socket woken by a commit passes the stamp of that announcement, and is never handed a read
    that began before it and so may not hold that commit (the socket would wait for the next change to see it).

    The read is a task of its own, not the first caller's: a caller cancelled (its socket closed) leaves the
    read running for the others, and each caller awaits it through a shield so that cancelling one cancels
    nobody else."""
    loop = asyncio.get_running_loop()
    pending = _inflight.setdefault(loop, {})
    key = (table_id, after)
    shared = pending.get(key)
    if shared is None or shared.started < fresh_after:
        task = loop.create_task(_read(table_id, after), name=f"live-read-{table_id}-{after}")
        shared = pending[key] = _Inflight(stamp(), task)
        task.add_done_callback(lambda done: _forget(pending, key, done))
    return await asyncio.shield(shared.task)


async def _read(table_id: int, after: int) -> SharedRead:
    return SharedRead(await _load(table_id, after))


def _forget(pending: dict[tuple[int, int], _Inflight], key: tuple[int, int], done: asyncio.Task[SharedRead]) -> None:
    """A read ended: later callers start a new one. Its exception is marked retrieved (no "never retrieved"
    warning when every caller had left)."""
    shared = pending.get(key)
    if shared is not None and shared.task is done:
        del pending[key]
    if not done.cancelled():
        done.exception()
